// @ts-check
/* ui/components/surface_pair.js: a context pair's panel — the server's reading, what a choice
   sends, and what the panel shows (the words, the classes, the buttons). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} PairApi
 * @property {typeof globalThis.pairReading} pairReading
 * @property {typeof globalThis.pairChoice} pairChoice
 * @property {typeof globalThis.pairPanelState} pairPanelState
 * @property {typeof globalThis.surfaceRulesOf} surfaceRulesOf
 * @property {typeof globalThis.readSurfaceContent} readSurfaceContent
 */
const { pairReading, pairChoice, pairPanelState, surfaceRulesOf, readSurfaceContent } = /** @type {PairApi} */ (loadSource(
  ["dom_helpers.js", "curve_points.js", "surface_view.js", "surface_pair.js"],
  ["pairReading", "pairChoice", "pairPanelState", "surfaceRulesOf", "readSurfaceContent"]));

/** A pair's rules of the test's own: confirm with "ok", labels down / same / up. */
const RULES = surfaceRulesOf({ pair: true, context_step: 3, change_confirm: "ok", change_options: ["ok", "down", "same", "up"] });
const READING = { label: "down", words: "Given the follow-up the target stays valid for less time.", factor: 0.5,
  alone_class: { index: 3, name: "days" }, given_class: { index: 2, name: "hours" } };
/** @type {(reading: unknown, followUp?: string) => Partial<SurfaceView>} */
const view = (reading, followUp = "The shop reopened.") => ({ pair_panel: /** @type {SurfacePair} */ (
  /** @type {unknown} */ ({ follow_up: followUp, labels: [], threshold: "×1.5", change: "", reading })) });

test("the reading is the server's, or none", () => {
  assert.deepEqual(pairReading(view(READING)), READING);
  assert.equal(pairReading(view(null)), null);
  assert.equal(pairReading({}), null);
  assert.equal(pairReading(view("odd")), null);
});

test("choosing the derived label confirms it, unless a curve edit is on its way", () => {
  assert.equal(pairChoice("down", READING, "ok", false), "ok");
  assert.equal(pairChoice("down", READING, "ok", true), "down");  // the reading is of the stored curves
  assert.equal(pairChoice("up", READING, "ok", false), "up");     // an override
  assert.equal(pairChoice("ok", READING, "ok", false), "ok");
  assert.equal(pairChoice("down", null, "ok", false), "down");
});

test("nothing chosen yet: the reading's words and what to do; the classes; the buttons", () => {
  const s = pairPanelState(view(READING), readSurfaceContent({}), RULES);
  assert.equal(s.followUp, "The shop reopened.");
  assert.equal(s.words, READING.words + " Confirm it (0) or choose another (1–3).");
  assert.equal(s.classes, "Duration class (TVCP): alone “days” → given the follow-up “hours”.");
  assert.deepEqual(s.options.map((o) => [o.option, o.digit, o.label, o.on, o.derived]),
    [["ok", "0", "As derived", false, false], ["down", "1", "down", false, true], ["same", "2", "same", false, false], ["up", "3", "up", false, false]]);
  assert.equal(s.options[0].title, "Confirm the change the two curves say (down)");
  assert.equal(s.options[1].title, "down: what the two curves say");
  assert.equal(s.options[3].title, "Override: the change is up (recorded and reviewed)");
});

test("an override the curves do not give is said to go to review; a confirmation needs no words", () => {
  const up = pairPanelState(view(READING), readSurfaceContent({ change: "up" }), RULES);
  assert.equal(up.words, READING.words + " Your label: up, not the curves' — it goes to review.");
  assert.deepEqual(up.options.map((o) => o.on), [false, false, false, true]);
  const ok = pairPanelState(view(READING), readSurfaceContent({ change: "ok" }), RULES);
  assert.equal(ok.words, READING.words);
  assert.equal(ok.options[0].on, true);
});

test("before both curves are drawn: no reading, the line keeps its height", () => {
  const s = pairPanelState(view(null, ""), readSurfaceContent({}), RULES);
  assert.equal(s.words, "Draw both curves to see the change they say. Confirm it (0) or choose another (1–3).");
  assert.equal(s.classes, "\u00a0");
  assert.equal(s.options[0].title, "Confirm the change the two curves say");
  assert.equal(s.followUp, "");
  assert.equal(pairPanelState({}, readSurfaceContent({}), surfaceRulesOf({})).options.length, 0);
});
