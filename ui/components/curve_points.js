// @ts-check
/* The validity chart's point rules, shared by the curve canvas and the annotation surface (this
   file is put in front of each component's module at import, see ui/components/sources.py):
   how an edit changes the points, drawn before Python answers, rounded as Python rounds. Pure;
   unit-tested with `node --test` (tests/js/curve_points.test.js). The pointer and the keys that
   make the edits: point_drag.js. */

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
