// @ts-check
/* ui/components/surface_submit.js: what stops a plain submit while edits are on their way, and
   the server's word on a hand-tuned curve that misses the points. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} SubmitApi
 * @property {typeof globalThis.submitProblems} submitProblems
 * @property {typeof globalThis.handTunedMisses} handTunedMisses
 * @property {typeof globalThis.surfaceRulesOf} surfaceRulesOf
 * @property {typeof globalThis.readSurfaceContent} readSurfaceContent
 */
const { submitProblems, handTunedMisses, surfaceRulesOf, readSurfaceContent } = /** @type {SubmitApi} */ (loadSource(
  ["dom_helpers.js", "curve_points.js", "surface_view.js", "surface_state.js", "surface_submit.js"],
  ["submitProblems", "handTunedMisses", "surfaceRulesOf", "readSurfaceContent"]));

const VIEW = { tokens: ["a", "b"], steps: ["Cut", "Label", "Draw"], min_points: 2, max_points: 3, x_max: 100,
  axes: [{ name: "main", label: "Main", color: "#111", key_question: "?", digit: "1" }], curve_edits: ["point", "params", "refit", "place"],
  problems: ["Stored: what the server says."], fit: /** @type {SurfaceFit} */ ({ message: "Points 1 and 2 are both peaks.", summary: [], params: null, residuals: null }) };
const RULES = surfaceRulesOf(VIEW);

test("nothing pending and no flag: the server's problems", () => {
  assert.deepEqual(submitProblems(VIEW, readSurfaceContent({}), [], RULES), ["Stored: what the server says."]);
  assert.deepEqual(submitProblems({}, readSurfaceContent({}), [], RULES), []);
});

test("edits pending: the rules on the local content, with the fit's own reason", () => {
  const content = readSurfaceContent({ segment_axes: ["main"], points: [[1, 1], [2, 0.5]] });
  assert.deepEqual(submitProblems(VIEW, content, [{ kind: "axis" }], RULES), ["Curve: Points 1 and 2 are both peaks."]);
  // a curve edit on its way: its parameters are not known yet, so not checked
  assert.deepEqual(submitProblems(VIEW, content, [{ kind: "point" }], RULES), []);
  assert.deepEqual(submitProblems(VIEW, readSurfaceContent({ points: [[1, 1]] }), [{ kind: "place" }], RULES),
    ["Axis labels: segment 1 still needs an axis.", "Curve: place 2 to 3 points (now 1)."]);
});

test("a flag chosen earlier does not excuse a plain submit", () => {
  const flagged = readSurfaceContent({ flags: ["other"], points: [] });
  assert.deepEqual(submitProblems(VIEW, flagged, [], RULES), ["Axis labels: segment 1 still needs an axis.", "Curve: place 2 to 3 points (now 0)."]);
});

test("the hand-tuned curve's miss: the server's words without their prefix, only while nothing is pending", () => {
  const view = { hand_tuned_misses: "Curve: the hand-tuned curve misses point 2 by 0.30." };
  assert.equal(handTunedMisses(view, 0), "the hand-tuned curve misses point 2 by 0.30.");
  assert.equal(handTunedMisses(view, 1), null);
  assert.equal(handTunedMisses({}, 0), null);
});
