// @ts-check
/* ui/components/surface_axes.js: the annotation surface's axis rows — a segment's text, and
   what a key does to the rows. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} AxesApi
 * @property {typeof globalThis.segmentText} segmentText
 * @property {typeof globalThis.axisKeyAction} axisKeyAction
 */
const { segmentText, axisKeyAction } = /** @type {AxesApi} */ (loadSource(["dom_helpers.js", "surface_axes.js"],
  ["segmentText", "axisKeyAction"]));

/** Three axes of the test's own, chosen with the keys 1–3 (the view's digits). */
const AXES = [{ name: "main", label: "Main", color: "#111", key_question: "?", digit: "1" },
  { name: "static", label: "Static", color: "#222", key_question: "?", digit: "2" },
  { name: "generic", label: "Generic", color: "#333", key_question: "?", digit: "3" }];
const PAGE = { inRow: false, isRow: false, pageLevel: true, onPoint: false, readOnly: false };
const ROW = { ...PAGE, inRow: true, isRow: true };

test("a segment's text is its tokens spaced as the text is, without a trailing space", () => {
  const tokens = ["The", "shop", "is", "closed", "."], spaces = [true, true, true, false, false];
  assert.equal(segmentText(tokens, spaces, 0, 2), "The shop");
  assert.equal(segmentText(tokens, spaces, 2, 5), "is closed.");
  assert.equal(segmentText(tokens, spaces, 3, 3), "");
});

test("an axis's digit labels the focused segment, typed anywhere on the page", () => {
  assert.deepEqual(axisKeyAction("2", false, AXES, PAGE), { axis: "static" });
  assert.deepEqual(axisKeyAction("3", false, AXES, ROW), { axis: "generic" });
  assert.equal(axisKeyAction("4", false, AXES, PAGE), null);  // no fourth axis in this view
  assert.equal(axisKeyAction("1", false, AXES, { ...PAGE, readOnly: true }), null);
  assert.equal(axisKeyAction("1", false, AXES, { ...PAGE, pageLevel: false }), null);  // another control's key
});

test("↑/↓ move between segments, except on a chart point (which they nudge)", () => {
  assert.deepEqual(axisKeyAction("ArrowDown", false, AXES, PAGE), { move: 1, tab: false });
  assert.deepEqual(axisKeyAction("ArrowUp", false, AXES, { ...PAGE, readOnly: true }), { move: -1, tab: false });
  assert.equal(axisKeyAction("ArrowDown", false, AXES, { ...PAGE, onPoint: true }), null);
});

test("Tab and Shift+Tab move between rows only from a row; Delete clears only on the row itself", () => {
  assert.deepEqual(axisKeyAction("Tab", false, AXES, ROW), { move: 1, tab: true });
  assert.deepEqual(axisKeyAction("Tab", true, AXES, { ...ROW, isRow: false }), { move: -1, tab: true });
  assert.equal(axisKeyAction("Tab", false, AXES, PAGE), null);
  assert.deepEqual(axisKeyAction("Delete", false, AXES, ROW), { clear: true });
  assert.deepEqual(axisKeyAction("Backspace", false, AXES, ROW), { clear: true });
  assert.equal(axisKeyAction("Delete", false, AXES, { ...ROW, isRow: false }), null);  // a button in the row
  assert.equal(axisKeyAction("Delete", false, AXES, { ...ROW, readOnly: true }), null);
  assert.equal(axisKeyAction("Enter", false, AXES, ROW), null);
});
