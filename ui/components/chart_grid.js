// @ts-check
/* The grid a validity chart's points are drawn on, shared by the curve canvas and the annotation
   surface (put in front of each component's module at import, after dom_helpers.js and
   curve_points.js; see ui/components/sources.py): the validity lines with their percentages and
   the time axis's ticks, whose labels drop to a second row rather than overlap. Each chart gives
   its own classes and metrics (the canvas is drawn a little larger). tickRow is pure and
   unit-tested with `node --test` (tests/js/chart_grid.test.js). */

/** The validity lines: 0 %, 25 %, … 100 %. */
const CHART_VALIDITY_LINES = [0, 0.25, 0.5, 0.75, 1];

/**
 * The row a time label centred at `x`, `half` px wide each side, goes in: the first row when it
 * clears the last label there (`lastRight[0]`: where that one ends), else the second, else none
 * (-1: left out, on a very narrow chart).
 * @param {number} x
 * @param {number} half
 * @param {ReadonlyArray<number>} lastRight
 * @returns {number}
 */
function tickRow(x, half, lastRight) {
  return x - half >= lastRight[0] ? 0 : (x - half >= lastRight[1] ? 1 : -1);
}

/**
 * How a chart draws its grid: the classes of the lines, of the axis lines (0 %, time 0) and of
 * the labels, the percentages' gap left of the plot, a character's half width and the two label
 * rows' offset below the plot and spacing.
 * @typedef {{ gridClass: string, axisClass: string, tickClass: string, yLabelGap: number,
 *   charHalf: number, rowOffset: number, rowStep: number }} ChartGridLook
 */

/**
 * Draw the grid into `backdrop` on geometry `g`: the validity lines and percentages, and a line
 * and a label per tick ([x, label], those on 0 … xMax).
 * @param {Element} backdrop
 * @param {ChartGeometry} g
 * @param {unknown} ticks
 * @param {number} xMax
 * @param {ChartGridLook} look
 * @returns {SVGGElement} the labels' group (the chart adds its axis titles)
 */
function drawChartGrid(backdrop, g, ticks, xMax, look) {
  const grid = el("g", { class: look.gridClass }, backdrop), labels = el("g", {}, backdrop);
  for (const yv of CHART_VALIDITY_LINES) {
    const y = g.sy(yv);
    el("line", { x1: g.left, x2: g.left + g.w, y1: y, y2: y, class: yv === 0 ? look.axisClass : "" }, grid);
    el("text", { x: g.left - look.yLabelGap, y: y + 4, "text-anchor": "end", class: look.tickClass }, labels).textContent = Math.round(yv * 100) + "%";
  }
  const lastRight = [-Infinity, -Infinity];
  for (const tick of Array.isArray(ticks) ? ticks : []) {
    if (!Array.isArray(tick) || !finite(tick[0]) || tick[0] < 0 || tick[0] > xMax) continue;
    const x = g.sx(tick[0]);
    el("line", { x1: x, x2: x, y1: g.top, y2: g.top + g.h, class: tick[0] === 0 ? look.axisClass : "" }, grid);
    const text = String(tick[1] ?? "");
    const half = text.length * look.charHalf + 4;
    const row = tickRow(x, half, lastRight);
    if (row < 0) continue;
    el("text", { x, y: g.top + g.h + look.rowOffset + row * look.rowStep, "text-anchor": "middle", class: look.tickClass }, labels).textContent = text;
    lastRight[row] = x + half;
  }
  return labels;
}
