// @ts-check
/* ui/components/curve_points.js: the chart's point rules, shared by the curve canvas and the
   annotation surface — Python's rounding and annotation.workbench.curve_points' edits (the
   surface's crosscheck replays them against the server too; these name them one by one). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} PointsApi
 * @property {(v: unknown) => boolean} finite
 * @property {(v: number) => number} round2
 * @property {(v: number, lo: number, hi: number) => number} clamp
 * @property {typeof globalThis.applyPointAction} applyPointAction
 */
const { finite, round2, clamp, applyPointAction } = /** @type {PointsApi} */ (loadSource("curve_points.js",
  ["finite", "round2", "clamp", "applyPointAction"]));

test("finite: numbers only, and not NaN or ±Infinity", () => {
  assert.deepEqual([1, 0, -2.5].map(finite), [true, true, true]);
  assert.deepEqual([NaN, Infinity, -Infinity, "1", null, undefined].map(finite), [false, false, false, false, false, false]);
});

test("round2 rounds as Python's round(v, 2): a binary tie to the even hundredth", () => {
  assert.deepEqual([0.125, 0.375, 0.625, 0.875, 2.675, -0.125].map(round2), [0.12, 0.38, 0.62, 0.88, 2.67, -0.12]);
  assert.deepEqual([1.005, 1.234, 54.2, 0.1 + 0.2, 199.999].map(round2), [1, 1.23, 54.2, 0.3, 200]);
});

test("clamp keeps a value within its bounds", () => {
  assert.deepEqual([clamp(-1, 0, 1), clamp(0.5, 0, 1), clamp(3, 0, 1)], [0, 0.5, 1]);
});

test("add appends a point kept on the chart and rounded, up to the most points", () => {
  assert.deepEqual(applyPointAction([], { action: "add", x: 54.204, y: 1.3 }, 200, 2), [[54.2, 1]]);
  assert.deepEqual(applyPointAction([[1, 1]], { action: "add", x: -3, y: -0.1 }, 200, 2), [[1, 1], [0, 0]]);
  assert.deepEqual(applyPointAction([[1, 1], [2, 1]], { action: "add", x: 3, y: 1 }, 200, 2), [[1, 1], [2, 1]]);
  assert.deepEqual(applyPointAction([], { action: "add", x: 250, y: 0.5 }, 200, 2), [[200, 0.5]]);
});

test("move and remove act on an existing point; anything else changes nothing", () => {
  const pts = [[10, 0.5], [20, 0.25]];
  assert.deepEqual(applyPointAction(pts, { action: "move", index: 1, x: 30.333, y: 0.5 }, 200, 5), [[10, 0.5], [30.33, 0.5]]);
  assert.deepEqual(applyPointAction(pts, { action: "remove", index: 0 }, 200, 5), [[20, 0.25]]);
  for (const a of [{ action: "move", index: 2, x: 1, y: 1 }, { action: "move", index: 0.5, x: 1, y: 1 }, { action: "remove", index: -1 },
    { action: "move", index: 0, x: "1", y: 1 }, { action: "add", x: NaN, y: 1 }, { action: "rotate", index: 0 }, {}]) {
    assert.deepEqual(applyPointAction(pts, a, 200, 5), pts, JSON.stringify(a));
  }
  assert.deepEqual(pts, [[10, 0.5], [20, 0.25]]);  // the list given is never changed
});
