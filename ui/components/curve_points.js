
/* The validity chart's points, shared by the curve canvas and the annotation surface (this file
   is put in front of each component's module at import, see ui/components/sources.py): the edit
   rules, drawn before Python answers, and the drawing steps both charts take alike. */
const finite = (v) => typeof v === "number" && Number.isFinite(v);
/* v rounded to 2 decimals as Python's round(v, 2) rounds it (the server stores what that
   gives): to the hundredth nearest to v's exact value, and a tie to the even hundredth. A
   binary fraction lies exactly halfway between two hundredths only at an odd number of eighths
   (k + 0.125, 0.375, 0.625, 0.875), where toFixed would round away from zero; elsewhere toFixed
   is exact (Math.round(v * 100) / 100 rounded ties up and could meet a tie v * 100 made). */
const round2 = (v) => {
  if (Number.isInteger(v * 8) && !Number.isInteger(v * 4)) {  // a tie: v * 100 is exact here
    const below = Math.floor(v * 100);
    return (below % 2 === 0 ? below : below + 1) / 100;
  }
  return Number(v.toFixed(2));
};
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/* The same rules as annotation.workbench.curve_points.apply_point_event: the points after one edit
   {action: "add" | "move" | "remove", index, x, y}, as a new list (x clamped to [0, xMax], y to
   [0, 1], both rounded to 2 decimals; an edit that does not apply leaves them as they are). */
function applyPointAction(points, a, xMax, maxPoints) {
  const pts = points.map((p) => [p[0], p[1]]);
  const valid = (i) => Number.isInteger(i) && i >= 0 && i < pts.length;
  const at = (x, y) => [round2(clamp(x, 0, xMax)), round2(clamp(y, 0, 1))];
  if (a.action === "add" && pts.length < maxPoints && finite(a.x) && finite(a.y)) pts.push(at(a.x, a.y));
  else if (a.action === "move" && valid(a.index) && finite(a.x) && finite(a.y)) pts[a.index] = at(a.x, a.y);
  else if (a.action === "remove" && valid(a.index)) pts.splice(a.index, 1);
  return pts;
}

/* Client (page) coordinates -> data coordinates, through the plot rect's real box. */
function plotPosition(plotRect, xMax, clientX, clientY) {
  const r = plotRect.getBoundingClientRect();
  const x = ((clientX - r.left) / r.width) * xMax;
  const y = 1 - (clientY - r.top) / r.height;
  return [round2(clamp(x, 0, xMax)), round2(clamp(y, 0, 1))];
}

/* The index of the point (circle[data-point]) that target is in, inside svg; else null. */
function pointIndexIn(svg, target) {
  const c = target && target.closest ? target.closest("[data-point]") : null;
  if (!c || !svg.contains(c)) return null;
  const i = Number(c.getAttribute("data-point"));
  return Number.isInteger(i) ? i : null;
}

/* Move the circle and the number of point i to pos (data coordinates) on the chart geometry g,
   while the point is dragged. */
function placePointAt(svg, g, i, pos) {
  const circle = svg.querySelector(`[data-point="${i}"]`);
  const num = svg.querySelector(`[data-point-label="${i}"]`);
  if (!g || !circle) return;
  circle.setAttribute("cx", g.sx(pos[0]));
  circle.setAttribute("cy", g.sy(pos[1]));
  if (num) { num.setAttribute("x", g.sx(pos[0])); num.setAttribute("y", g.sy(pos[1])); }
}

/* Show the crosshair at pos (data coordinates) with its "NN% valid" box, kept inside the plot.
   parts: the crosshair's elements {cross, crossV, crossH, crossBox, crossText}. */
function showCrosshair(parts, g, pos) {
  if (!g) return;
  const { cross, crossV, crossH, crossBox, crossText } = parts;
  const cx = g.sx(pos[0]), cy = g.sy(pos[1]);
  cross.setAttribute("visibility", "visible");
  crossV.setAttribute("x1", cx); crossV.setAttribute("x2", cx);
  crossH.setAttribute("y1", cy); crossH.setAttribute("y2", cy);
  crossText.textContent = Math.round(pos[1] * 100) + "% valid";
  const tw = crossText.getComputedTextLength ? crossText.getComputedTextLength() : 70;
  const boxW = tw + 14, boxH = 22;
  let bx = cx + 10;
  if (bx + boxW > g.left + g.w) bx = cx - 10 - boxW;
  let by = cy - boxH - 8;
  if (by < g.top) by = cy + 8;
  crossBox.setAttribute("x", bx); crossBox.setAttribute("y", by);
  crossBox.setAttribute("width", boxW); crossBox.setAttribute("height", boxH);
  crossText.setAttribute("x", bx + 7); crossText.setAttribute("y", by + 15);
}
