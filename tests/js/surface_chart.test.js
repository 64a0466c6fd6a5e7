// @ts-check
/* ui/components/surface_chart.js: the annotation surface's chart part — the checks of the
   hand-tuned parameters and the durations typed in, the unit a select shows, the hint's words,
   a curve's path. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} ChartApi
 * @property {typeof globalThis.tunedParams} tunedParams
 * @property {typeof globalThis.placedDurations} placedDurations
 * @property {typeof globalThis.unitShown} unitShown
 * @property {typeof globalThis.chartHint} chartHint
 * @property {typeof globalThis.curvePath} curvePath
 */
const { tunedParams, placedDurations, unitShown, chartHint, curvePath } = /** @type {ChartApi} */ (loadSource(
  ["dom_helpers.js", "curve_points.js", "point_drag.js", "surface_chart.js"],
  ["tunedParams", "placedDurations", "unitShown", "chartHint", "curvePath"]));

/** The test's own parameters and bounds (the view's, in the surface). */
const PARAMETERS = [{ name: "xi", symbol: "ξ", min: -10, max: 30 }, { name: "omega", symbol: "ω", min: 0.5, max: 20 }];

test("hand-tuned parameters: each a number within the view's bounds", () => {
  const typed = { xi: "12.5", omega: "0.5" };
  assert.deepEqual(tunedParams(PARAMETERS, (name) => typed[/** @type {"xi" | "omega"} */ (name)]), { values: { xi: 12.5, omega: 0.5 } });
  for (const [xi, omega] of [["31", "1"], ["", "1"], ["x", "1"], ["1", "0.4"], ["Infinity", "1"]]) {
    const got = tunedParams(PARAMETERS, (name) => (name === "xi" ? xi : omega));
    assert.ok("error" in got, `${xi}, ${omega}`);
  }
  assert.deepEqual(tunedParams(PARAMETERS, (name) => (name === "xi" ? "40" : "1")), { error: "ξ must be a number from -10 to 30." });
  assert.deepEqual(tunedParams(PARAMETERS, () => null), { error: "ξ must be a number from -10 to 30." });  // no input drawn
});

test("durations: two positive numbers, half gone after the peak, in minutes", () => {
  assert.deepEqual(placedDurations("2", 1440, "1", 10080), { peak_minutes: 2880, half_gone_minutes: 10080 });
  assert.deepEqual(placedDurations("0.5", 60, "45", 1), { peak_minutes: 30, half_gone_minutes: 45 });
  for (const [p, q] of [["", "1"], ["1", ""], ["0", "1"], ["-1", "2"], ["a", "2"]]) {
    assert.deepEqual(placedDurations(p, 60, q, 60),
      { error: "Enter two positive durations: when the validity peaks and when half of it is gone." });
  }
  assert.deepEqual(placedDurations("2", 60, "2", 60), { error: "“Half gone by” must come after the peak." });
  assert.deepEqual(placedDurations("1", 1440, "20", 60), { error: "“Half gone by” must come after the peak." });
});

test("a duration's unit: the one shown, else the view's preferred one, else the first", () => {
  const names = ["minutes", "hours", "days"];
  assert.equal(unitShown(names, "hours", "days"), "hours");
  assert.equal(unitShown(names, "", "days"), "days");
  assert.equal(unitShown(names, "weeks", "years"), "minutes");
  assert.equal(unitShown([], "", "days"), "");
});

test("the hint says what a click does, how many points there are and may be", () => {
  const s = { readOnly: false, placing: false, n: 2, minPoints: 3, maxPoints: 5 };
  assert.equal(chartHint(s), "Click to place a point (2 of 5; at least 3) · drag to move · double-click to remove · arrow keys nudge");
  assert.equal(chartHint({ ...s, n: 5 }), "5 points placed — drag a point to move it, double-click or Delete to remove it");
  assert.equal(chartHint({ ...s, placing: true }), "Placing the points from your durations…");
  assert.equal(chartHint({ ...s, readOnly: true }), "");
});

test("a curve's path goes through its finite points, y kept just around 0 … 1", () => {
  const g = { left: 0, top: 0, w: 100, h: 100, sx: (/** @type {number} */ x) => x, sy: (/** @type {number} */ y) => (1 - y) * 100 };
  const { d, points } = curvePath([[0, 0.5], [10, 2], ["x", 1], [20, -1], null], g);
  assert.equal(d, "M0.0,50.0L10.0,-5.0L20.0,105.0");
  assert.equal(points.length, 3);
  assert.deepEqual(curvePath(undefined, g), { d: "", points: [] });
});
