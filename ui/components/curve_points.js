// @ts-check
/* The validity chart's points, shared by the curve canvas and the annotation surface (this file
   is put in front of each component's module at import, see ui/components/sources.py): the edit
   rules, drawn before Python answers, and the drawing steps both charts take alike. */

/**
 * Where the chart draws: the plot's box in pixels and the scales from data to pixels.
 * @typedef {{ left: number, top: number, w: number, h: number, sx: (x: number) => number,
 *   sy: (y: number) => number }} ChartGeometry
 */
/**
 * A point edit as both charts send it: `action` "add" | "move" | "remove", `index` (move,
 * remove), `x`, `y` (add, move) — unchecked (applyPointAction checks them).
 * @typedef {{ action?: unknown, index?: unknown, x?: unknown, y?: unknown, [field: string]: unknown }} PointAction
 */

/**
 * Whether `v` is a finite number (not NaN, not ±Infinity, not a numeric string).
 * @param {unknown} v
 * @returns {v is number}
 */
const finite = (v) => typeof v === "number" && Number.isFinite(v);
/* v rounded to 2 decimals as Python's round(v, 2) rounds it (the server stores what that
   gives): to the hundredth nearest to v's exact value, and a tie to the even hundredth. A
   binary fraction lies exactly halfway between two hundredths only at an odd number of eighths
   (k + 0.125, 0.375, 0.625, 0.875), where toFixed would round away from zero; elsewhere toFixed
   is exact (Math.round(v * 100) / 100 rounded ties up and could meet a tie v * 100 made). */
/** @type {(v: number) => number} */
const round2 = (v) => {
  if (Number.isInteger(v * 8) && !Number.isInteger(v * 4)) {  // a tie: v * 100 is exact here
    const below = Math.floor(v * 100);
    return (below % 2 === 0 ? below : below + 1) / 100;
  }
  return Number(v.toFixed(2));
};
/** @type {(v: number, lo: number, hi: number) => number} */
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/* The same rules as annotation.workbench.curve_points.apply_point_event: the points after one edit
   {action: "add" | "move" | "remove", index, x, y}, as a new list (x clamped to [0, xMax], y to
   [0, 1], both rounded to 2 decimals; an edit that does not apply leaves them as they are). */
/**
 * @param {ReadonlyArray<ReadonlyArray<number>>} points
 * @param {PointAction} a
 * @param {number} xMax
 * @param {number} maxPoints
 * @returns {[number, number][]}
 */
function applyPointAction(points, a, xMax, maxPoints) {
  /** @type {[number, number][]} */
  const pts = points.map((p) => [p[0], p[1]]);
  /** @type {(i: unknown) => i is number} */
  const valid = (i) => typeof i === "number" && Number.isInteger(i) && i >= 0 && i < pts.length;
  /** @type {(x: number, y: number) => [number, number]} */
  const at = (x, y) => [round2(clamp(x, 0, xMax)), round2(clamp(y, 0, 1))];
  if (a.action === "add" && pts.length < maxPoints && finite(a.x) && finite(a.y)) pts.push(at(a.x, a.y));
  else if (a.action === "move" && valid(a.index) && finite(a.x) && finite(a.y)) pts[a.index] = at(a.x, a.y);
  else if (a.action === "remove" && valid(a.index)) pts.splice(a.index, 1);
  return pts;
}

/**
 * Client (page) coordinates -> data coordinates, through the plot rect's real box.
 * @param {Element} plotRect
 * @param {number} xMax
 * @param {number} clientX
 * @param {number} clientY
 * @returns {[number, number]}
 */
function plotPosition(plotRect, xMax, clientX, clientY) {
  const r = plotRect.getBoundingClientRect();
  const x = ((clientX - r.left) / r.width) * xMax;
  const y = 1 - (clientY - r.top) / r.height;
  return [round2(clamp(x, 0, xMax)), round2(clamp(y, 0, 1))];
}

/**
 * The index of the point (circle[data-point]) that target is in, inside svg; else null.
 * @param {Element} svg
 * @param {EventTarget | null} target
 * @returns {number | null}
 */
function pointIndexIn(svg, target) {
  const el = /** @type {Partial<Element> | null} */ (target);
  const c = el && el.closest ? el.closest("[data-point]") : null;
  if (!c || !svg.contains(c)) return null;
  const i = Number(c.getAttribute("data-point"));
  return Number.isInteger(i) ? i : null;
}

/**
 * Move the circle and the number of point i to pos (data coordinates) on the chart geometry g,
 * while the point is dragged.
 * @param {Element} svg
 * @param {ChartGeometry | null} g
 * @param {number} i
 * @param {ReadonlyArray<number>} pos
 */
function placePointAt(svg, g, i, pos) {
  const circle = svg.querySelector(`[data-point="${i}"]`);
  const num = svg.querySelector(`[data-point-label="${i}"]`);
  if (!g || !circle) return;
  circle.setAttribute("cx", String(g.sx(pos[0])));
  circle.setAttribute("cy", String(g.sy(pos[1])));
  if (num) { num.setAttribute("x", String(g.sx(pos[0]))); num.setAttribute("y", String(g.sy(pos[1]))); }
}

/**
 * The crosshair's elements: the group, its vertical and horizontal lines, the label's box and
 * text (an SVG text element: its width is measured when the browser can).
 * @typedef {{ cross: Element, crossV: Element, crossH: Element, crossBox: Element,
 *   crossText: Element & { getComputedTextLength?: () => number } }} CrosshairParts
 */

/**
 * Show the crosshair at pos (data coordinates) with its "NN% valid" box, kept inside the plot.
 * @param {CrosshairParts} parts
 * @param {ChartGeometry | null} g
 * @param {ReadonlyArray<number>} pos
 */
function showCrosshair(parts, g, pos) {
  if (!g) return;
  const { cross, crossV, crossH, crossBox, crossText } = parts;
  const cx = g.sx(pos[0]), cy = g.sy(pos[1]);
  cross.setAttribute("visibility", "visible");
  crossV.setAttribute("x1", String(cx)); crossV.setAttribute("x2", String(cx));
  crossH.setAttribute("y1", String(cy)); crossH.setAttribute("y2", String(cy));
  crossText.textContent = Math.round(pos[1] * 100) + "% valid";
  const tw = crossText.getComputedTextLength ? crossText.getComputedTextLength() : 70;
  const boxW = tw + 14, boxH = 22;
  let bx = cx + 10;
  if (bx + boxW > g.left + g.w) bx = cx - 10 - boxW;
  let by = cy - boxH - 8;
  if (by < g.top) by = cy + 8;
  crossBox.setAttribute("x", String(bx)); crossBox.setAttribute("y", String(by));
  crossBox.setAttribute("width", String(boxW)); crossBox.setAttribute("height", String(boxH));
  crossText.setAttribute("x", String(bx + 7)); crossText.setAttribute("y", String(by + 15));
}
