// @ts-check
/* ui/components/surface_config.js: the annotation surface's configuration read from a view. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} ConfigApi
 * @property {typeof globalThis.surfaceConfigOf} surfaceConfigOf
 * @property {typeof globalThis.axisKeysOf} axisKeysOf
 * @property {(n: number, one: string, many: string) => string} plural
 */
const { surfaceConfigOf, axisKeysOf, plural } = /** @type {ConfigApi} */ (loadSource(
  ["curve_points.js", "surface_view.js", "surface_config.js"], ["surfaceConfigOf", "axisKeysOf", "plural"]));

test("the view's names: which step shows which part, the units offered first, the notices' levels", () => {
  const c = surfaceConfigOf(/** @type {any} */ ({ tokens: ["a", 2], part_steps: { segments: 0, axes: 1, curve: 2 },
    duration_defaults: { peak: "days", half_gone: "weeks" }, notice_levels: ["error", 3, "info"], steps: ["A", "B", "C"] }));
  assert.deepEqual([c.segmentStep, c.axisStep, c.curveStep], [0, 1, 2]);
  assert.deepEqual(c.durationDefaults, { peak: "days", halfGone: "weeks" });
  assert.deepEqual(c.noticeLevels, ["error", "info"]);
  assert.deepEqual(c.tokens, ["a", "2"]);
  assert.deepEqual(c.steps, ["A", "B", "C"]);  // the reducer's rules are there too (surfaceRulesOf)
});

test("a view without them: no step shows a part, no unit is preferred, no level is known", () => {
  const c = surfaceConfigOf({});
  assert.deepEqual([c.segmentStep, c.axisStep, c.curveStep], [-1, -1, -1]);
  assert.deepEqual(c.durationDefaults, { peak: "", halfGone: "" });
  assert.deepEqual([c.noticeLevels, c.axes, c.flags, c.tokens], [[], [], [], []]);
  assert.deepEqual([c.single, c.readOnly, c.conflict, c.confirm, c.quota], [false, false, false, false, false]);
  assert.deepEqual(surfaceConfigOf(/** @type {any} */ ({ part_steps: { axes: "1", curve: 2.5 } })).axisStep, -1);
});

test("the layout and the flags of the view", () => {
  const c = surfaceConfigOf(/** @type {any} */ ({ layout: "single", read_only: true, read_only_reason: "conflict", confirm_submit: true,
    quota_reached: true, axes: [{ name: "main" }, null, { label: "no name" }], flags: [{ code: "other" }, { label: "no code" }] }));
  assert.deepEqual([c.single, c.readOnly, c.conflict, c.confirm, c.quota], [true, true, true, true, true]);
  assert.equal(c.axes.length, 1);
  assert.equal(c.flags.length, 1);
  assert.equal(surfaceConfigOf({ layout: "single", pair: true }).single, false);  // a pair is always shown step by step
});

test("the axis keys as the footer says them, and plurals", () => {
  assert.equal(axisKeysOf([{ digit: "1" }, { digit: "2" }, { digit: "8" }]), "1–8");
  assert.equal(axisKeysOf([{ digit: "1" }]), "1");
  assert.equal(axisKeysOf([]), "");
  assert.deepEqual([plural(1, "point", "points"), plural(0, "point", "points"), plural(3, "point", "points")],
    ["1 point", "0 points", "3 points"]);
});
