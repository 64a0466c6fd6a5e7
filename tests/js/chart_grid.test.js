// @ts-check
/* ui/components/chart_grid.js: the grid both validity charts draw their points on — which row a
   time label goes in, and what the grid holds (on a stand-in document). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} GridApi
 * @property {typeof globalThis.tickRow} tickRow
 * @property {typeof globalThis.drawChartGrid} drawChartGrid
 */
const { tickRow, drawChartGrid } = /** @type {GridApi} */ (loadSource(["dom_helpers.js", "curve_points.js", "chart_grid.js"],
  ["tickRow", "drawChartGrid"]));

/** A stand-in SVG element: its name, attributes, text and children. */
class FakeElement {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
    /** @type {Record<string, string>} */
    this.attrs = {};
    /** @type {FakeElement[]} */
    this.children = [];
    this.textContent = "";
  }
  /** @param {string} k @param {string} v */
  setAttribute(k, v) { this.attrs[k] = v; }
  /** @param {FakeElement} child */
  appendChild(child) { this.children.push(child); return child; }
}

test("a label goes in the first row when it clears the last one there, else the second, else none", () => {
  assert.equal(tickRow(100, 10, [-Infinity, -Infinity]), 0);
  assert.equal(tickRow(100, 10, [90, -Infinity]), 0);   // touches: still clear
  assert.equal(tickRow(100, 10, [95, -Infinity]), 1);
  assert.equal(tickRow(100, 10, [95, 91]), -1);
});

test("the grid: five validity lines with percentages, a line and a label per tick on the chart", (t) => {
  const g = /** @type {any} */ (globalThis);
  const saved = g.document;
  g.document = { createElementNS: (/** @type {string} */ _ns, /** @type {string} */ name) => new FakeElement(name) };
  t.after(() => { g.document = saved; });
  const backdrop = new FakeElement("g");
  const geom = { left: 50, top: 10, w: 200, h: 100, sx: (/** @type {number} */ x) => 50 + x, sy: (/** @type {number} */ y) => 10 + (1 - y) * 100 };
  const look = { gridClass: "grid", axisClass: "axis", tickClass: "tick", yLabelGap: 7, charHalf: 3, rowOffset: 16, rowStep: 13 };
  const ticks = [[0, "1 min"], [10, "15 min"], [100, "1 day"], [300, "1 year"], ["x", "?"]];
  const labels = /** @type {any} */ (drawChartGrid(/** @type {any} */ (backdrop), geom, ticks, 200, look));
  const [grid] = backdrop.children;
  assert.equal(grid.attrs.class, "grid");
  assert.equal(grid.children.length, 5 + 3);  // the validity lines, the ticks on 0 … 200
  assert.deepEqual(grid.children.filter((c) => c.attrs.class === "axis").map((c) => c.attrs.y1), ["110", "10"]);
  const texts = labels.children.map((/** @type {FakeElement} */ c) => [c.textContent, c.attrs.y]);
  assert.deepEqual(texts.slice(0, 5).map((/** @type {string[]} */ x) => x[0]), ["0%", "25%", "50%", "75%", "100%"]);
  // "15 min" 10 units after "1 min" would overlap it: the second row
  assert.deepEqual(texts.slice(5), [["1 min", "126"], ["15 min", "139"], ["1 day", "126"]]);
});
