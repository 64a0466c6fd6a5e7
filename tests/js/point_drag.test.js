// @ts-check
/* ui/components/point_drag.js: the pointer and the keys on a chart's points, shared by the curve
   canvas and the annotation surface — when a press becomes a drag, where a key moves a point,
   where a pointer lies in data coordinates, and what the drawing steps set (on stand-in
   elements: no browser here). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} PointDragApi
 * @property {typeof globalThis.dragStarted} dragStarted
 * @property {typeof globalThis.pointKeyEdit} pointKeyEdit
 * @property {typeof globalThis.plotPosition} plotPosition
 * @property {typeof globalThis.pointIndexIn} pointIndexIn
 * @property {typeof globalThis.placePlot} placePlot
 * @property {typeof globalThis.showCrosshair} showCrosshair
 * @property {number} DRAG_START_PX
 */
const { dragStarted, pointKeyEdit, plotPosition, pointIndexIn, placePlot, showCrosshair, DRAG_START_PX } =
  /** @type {PointDragApi} */ (loadSource(["dom_helpers.js", "curve_points.js", "point_drag.js"],
    ["dragStarted", "pointKeyEdit", "plotPosition", "pointIndexIn", "placePlot", "showCrosshair", "DRAG_START_PX"]));

/** An element stand-in that records its attributes. */
function fakeElement() {
  /** @type {Record<string, string>} */
  const attrs = {};
  return { attrs, textContent: "", setAttribute: (/** @type {string} */ k, /** @type {string} */ v) => { attrs[k] = v; } };
}
/** A 100 × 50 px plot at (10, 20): 0 … 100 in x, 0 … 1 in y. */
/** @type {ChartGeometry} */
const G = { left: 10, top: 20, w: 100, h: 50, sx: (x) => 10 + x, sy: (y) => 20 + (1 - y) * 50 };

test("a press becomes a drag once the pointer has moved DRAG_START_PX", () => {
  assert.equal(DRAG_START_PX, 3);
  assert.equal(dragStarted(100, 100, 102, 102), false);  // 2.83 px
  assert.equal(dragStarted(100, 100, 103, 100), true);
  assert.equal(dragStarted(100, 100, 98, 97.5), true);
});

test("the arrow keys nudge a point by 1 x-unit or 0.02, with Shift 5 or 0.1", () => {
  const pts = [[10, 0.5], [20, 0.25]];
  assert.deepEqual(pointKeyEdit(pts, 0, "ArrowRight", false, 200), { action: "move", index: 0, x: 11, y: 0.5 });
  assert.deepEqual(pointKeyEdit(pts, 0, "ArrowLeft", true, 200), { action: "move", index: 0, x: 5, y: 0.5 });
  assert.deepEqual(pointKeyEdit(pts, 1, "ArrowUp", false, 200), { action: "move", index: 1, x: 20, y: 0.27 });
  assert.deepEqual(pointKeyEdit(pts, 1, "ArrowDown", true, 200), { action: "move", index: 1, x: 20, y: 0.15 });
});

test("a nudge stays on the chart and is rounded as the server rounds", () => {
  assert.deepEqual(pointKeyEdit([[199.5, 0.99]], 0, "ArrowRight", true, 200), { action: "move", index: 0, x: 200, y: 0.99 });
  assert.deepEqual(pointKeyEdit([[0.5, 0.99]], 0, "ArrowUp", true, 200), { action: "move", index: 0, x: 0.5, y: 1 });
  assert.deepEqual(pointKeyEdit([[3, 0.01]], 0, "ArrowDown", false, 200), { action: "move", index: 0, x: 3, y: 0 });
  assert.deepEqual(pointKeyEdit([[0.1, 0.3]], 0, "ArrowUp", false, 200), { action: "move", index: 0, x: 0.1, y: 0.32 });
});

test("Delete and Backspace remove the point; other keys and missing points do nothing", () => {
  assert.deepEqual(pointKeyEdit([[1, 1]], 0, "Delete", false, 200), { action: "remove", index: 0 });
  assert.deepEqual(pointKeyEdit([[1, 1]], 0, "Backspace", true, 200), { action: "remove", index: 0 });
  assert.equal(pointKeyEdit([[1, 1]], 0, "Enter", false, 200), null);
  assert.equal(pointKeyEdit([[1, 1]], 1, "ArrowUp", false, 200), null);
  assert.equal(pointKeyEdit([], 0, "Delete", false, 200), null);
});

test("a pointer's page position reads as data through the plot's box, kept on the chart", () => {
  const plot = /** @type {Element} */ (/** @type {unknown} */ ({ getBoundingClientRect: () => ({ left: 100, top: 50, width: 400, height: 200 }) }));
  assert.deepEqual(plotPosition(plot, 200, 300, 150), [100, 0.5]);
  assert.deepEqual(plotPosition(plot, 200, 100, 250), [0, 0]);
  assert.deepEqual(plotPosition(plot, 200, 900, 0), [200, 1]);  // outside: on the edge
  assert.deepEqual(plotPosition(plot, 200, 101, 51), [0.5, 0.99]);
});

test("a target's point index: the circle it is in, inside this chart", () => {
  const circle = { getAttribute: () => "2" };
  const inside = { closest: () => circle };
  const svg = /** @type {Element} */ (/** @type {unknown} */ ({ contains: (/** @type {unknown} */ n) => n === circle }));
  assert.equal(pointIndexIn(svg, /** @type {EventTarget} */ (/** @type {unknown} */ (inside))), 2);
  const elsewhere = /** @type {Element} */ (/** @type {unknown} */ ({ contains: () => false }));
  assert.equal(pointIndexIn(elsewhere, /** @type {EventTarget} */ (/** @type {unknown} */ (inside))), null);
  assert.equal(pointIndexIn(svg, null), null);
  assert.equal(pointIndexIn(svg, /** @type {EventTarget} */ (/** @type {unknown} */ ({ closest: () => /** @type {Element | null} */ (null) }))), null);
});

test("the plot rectangle covers the plot area and the crosshair spans it", () => {
  const plot = fakeElement(), parts = { cross: fakeElement(), crossV: fakeElement(), crossH: fakeElement(), crossBox: fakeElement(), crossText: fakeElement() };
  placePlot(/** @type {any} */ (plot), /** @type {any} */ (parts), G, 100);
  assert.deepEqual(plot.attrs, { x: "10", y: "20", width: "100", height: "50", "data-x-max": "100" });
  assert.deepEqual(parts.crossV.attrs, { y1: "20", y2: "70" });
  assert.deepEqual(parts.crossH.attrs, { x1: "10", x2: "110" });
});

test("the crosshair's box says the validity and stays inside the plot", () => {
  const parts = { cross: fakeElement(), crossV: fakeElement(), crossH: fakeElement(), crossBox: fakeElement(), crossText: fakeElement() };
  showCrosshair(/** @type {any} */ (parts), G, [50, 0.5]);
  assert.equal(parts.cross.attrs.visibility, "visible");
  assert.equal(parts.crossText.textContent, "50% valid");
  assert.deepEqual([parts.crossV.attrs.x1, parts.crossH.attrs.y1], ["60", "45"]);
  // no text measure here: 70 px of text, a box of 84 px; right of x 60 it would leave the plot,
  // above y 45 too (the plot's top is 20): it goes left of the point and below it
  assert.deepEqual([parts.crossBox.attrs.x, parts.crossBox.attrs.y, parts.crossBox.attrs.width], ["-34", "53", "84"]);
  showCrosshair(/** @type {any} */ (parts), G, [0, 0.1]);  // room to the right and above
  assert.deepEqual([parts.crossBox.attrs.x, parts.crossBox.attrs.y], ["20", "35"]);
  showCrosshair(/** @type {any} */ (parts), null, [0, 1]);  // before the first drawing: nothing
});
