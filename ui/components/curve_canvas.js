// @ts-check
/* The validity chart on which the annotator places, drags and removes the curve's points (see
   curve_canvas.py for the events and the DOM). One instance per parentElement, kept in INSTANCES;
   its edits reach Python through delivery.js (put in front of this module with
   instance_cleanup.js, dom_helpers.js, curve_points.js, point_drag.js and chart_grid.js). */

/**
 * One edit of the points, numbered by delivery.js.
 * @typedef {{ seq: number, action: string, index?: number, x?: number, y?: number }} ChartEdit
 */
/**
 * A comparison curve as curve_canvas.py sends it.
 * @typedef {{ points: number[][], color: string, label: string, dash: boolean }} ChartExtraCurve
 */
/**
 * The data curve_canvas.py sends (and the acknowledgement beside it, see delivery.js).
 * @typedef {object} ChartData
 * @property {number[][]} [points] the annotation points [x, y]
 * @property {number[][]} [curve] the fitted curve's vertices
 * @property {ChartExtraCurve[]} [extra_curves]
 * @property {Array<[number, string]>} [ticks] time-axis ticks [x, label]
 * @property {number} [x_max]
 * @property {number} [max_points]
 * @property {number} [height]
 * @property {boolean} [disabled]
 * @property {string} [curve_label]
 */
/**
 * One mounted chart.
 * @typedef {object} ChartInstance
 * @property {HTMLDivElement} root
 * @property {SVGSVGElement} svg
 * @property {HTMLDivElement} hint
 * @property {Record<string, unknown>} data the data of the latest call (a ChartData)
 * @property {number} generation
 * @property {number} width the width drawn last
 * @property {ChartGeometry | null} geom
 * @property {Delivery<ChartEdit>} delivery
 * @property {() => void} render
 * @property {() => void} destroy
 */

/** @type {WeakMap<HTMLElement, ChartInstance>} */
const INSTANCES = new WeakMap();
const MARGIN = { left: 58, right: 18, top: 16, bottom: 62 };
let clipCounter = 0;

// h, el: dom_helpers.js; the pointer, the keys and the drawn points: point_drag.js; the grid: chart_grid.js
// finite, round2, clamp, applyPointAction and the other point helpers: curve_points.js

/**
 * @param {HTMLElement} parentElement
 * @returns {ChartInstance}
 */
function createInstance(parentElement) {
  const root = h("div", { class: "cc-root", "data-testid": "curve-canvas" });
  const svg = el("svg", { role: "group" });
  root.appendChild(svg);
  const hint = h("div", { class: "cc-hint", "data-testid": "curve-hint", "aria-live": "polite" });
  root.appendChild(hint);
  parentElement.appendChild(root);

  const clipId = "cc-clip-" + (++clipCounter);

  // Layers. The backdrop (grid, labels, curves, legend) is redrawn on every render; the plot
  // rect, the crosshair and the point circles persist and are updated in place, so listeners,
  // focus and element handles survive a redraw.
  const backdrop = el("g", { class: "cc-backdrop" }, svg);
  const plot = el("rect", {
    class: "cc-plot", "data-testid": "curve-plot", "pointer-events": "all",
    "data-x-min": 0, "data-y-min": 0, "data-y-max": 1,
  }, svg);
  const crossParts = makeCrosshair(svg, "cc-cross");
  const pointLayer = el("g", { class: "cc-points" }, svg);

  /** @type {ChartInstance} */
  const inst = {
    root, svg, hint, data: {}, generation: 0, width: 0, geom: null,
    /** @type {Delivery<ChartEdit>} */
    delivery: createDelivery(),  // delivery.js
    render: () => {},
    destroy: () => {},
  };
  /** The data of the latest call, as curve_canvas.py sends it. */
  const chartData = () => /** @type {ChartData} */ (inst.data);

  // the range and the number of points are Python's (curve_canvas.py always sends them); data
  // without them draws an empty chart on which nothing can be placed
  const cfg = () => {
    const d = chartData();
    return {
      xMax: finite(d.x_max) && d.x_max > 0 ? d.x_max : 1,
      maxPoints: Number.isInteger(d.max_points) && d.max_points > 0 ? d.max_points : 0,
      disabled: !!d.disabled,
    };
  };
  /**
   * The points drawn: Python's, with the edits still on their way applied.
   * @returns {number[][]}
   */
  function currentPoints() {
    const d = chartData();
    const { xMax, maxPoints, disabled } = cfg();
    /** @type {number[][]} */
    let pts = Array.isArray(d.points) ? d.points.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) : [];
    pts = pts.map((p) => [p[0], p[1]]);
    if (!disabled) for (const a of inst.delivery.pending()) pts = applyPointAction(pts, a, xMax, maxPoints);
    return pts;
  }

  // the pointer and the keys on the points (point_drag.js): each edit is sent and drawn at once
  const editing = attachPointEditing({
    svg, plot, cross: crossParts,
    geometry: () => inst.geom,
    xMax: () => cfg().xMax,
    points: currentPoints,
    maxPoints: () => cfg().maxPoints,
    locked: () => cfg().disabled,
    crossWhileLocked: true,
    onFull: () => hint.animate([{ opacity: 0.35 }, { opacity: 1 }], { duration: 450 }),
    edit: (edit) => { inst.delivery.push(edit); inst.render(); },
    redraw: () => inst.render(),
  });

  const resize = new ResizeObserver(() => {
    const w = Math.floor(root.clientWidth);
    if (w > 0 && Math.abs(w - inst.width) >= 1) inst.render();
  });
  resize.observe(root);

  inst.render = () => {
    if (editing.holdRender()) return;  // drawn when the drag ends
    const d = chartData();
    const { xMax, maxPoints, disabled } = cfg();
    const height = Number.isInteger(d.height) && d.height > 120 ? d.height : 380;
    const width = Math.max(Math.floor(root.clientWidth) || 640, 280);
    inst.width = width;
    const w = width - MARGIN.left - MARGIN.right, h = height - MARGIN.top - MARGIN.bottom;
    /** @type {ChartGeometry} */
    const g = {
      left: MARGIN.left, top: MARGIN.top, w, h,
      sx: (x) => MARGIN.left + (x / xMax) * w,
      sy: (y) => MARGIN.top + (1 - y) * h,
    };
    inst.geom = g;
    const pts = currentPoints();
    const full = pts.length >= maxPoints;
    root.classList.toggle("full", full);
    root.classList.toggle("disabled", disabled);
    root.setAttribute("data-points", JSON.stringify(pts));

    backdrop.replaceChildren();
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", `Validity curve chart with ${pts.length} of ${maxPoints} points`);

    const defs = el("defs", {}, backdrop);
    const clip = el("clipPath", { id: clipId }, defs);
    el("rect", { x: g.left, y: g.top - 2, width: g.w, height: g.h + 4 }, clip);

    // grid and axes (chart_grid.js)
    const labels = drawChartGrid(backdrop, g, d.ticks, xMax, { gridClass: "cc-grid", axisClass: "cc-axis", tickClass: "cc-tick",
      yLabelGap: 8, charHalf: 3.4, rowOffset: 18, rowStep: 14 });
    const yTitle = el("text", { class: "cc-title", "text-anchor": "middle",
      transform: `translate(${14} ${g.top + g.h / 2}) rotate(-90)` }, labels);
    yTitle.textContent = "validity";
    const xTitle = el("text", { class: "cc-title", "text-anchor": "middle", x: g.left + g.w / 2, y: g.top + g.h + 54 }, labels);
    xTitle.textContent = "time since publication (log scale)";

    // curves
    const pathOf = (/** @type {unknown[]} */ list) => {
      let s = "";
      for (const p of list) {
        if (!Array.isArray(p) || !finite(p[0]) || !finite(p[1])) continue;
        s += (s ? "L" : "M") + g.sx(p[0]).toFixed(1) + "," + g.sy(clamp(p[1], -0.05, 1.05)).toFixed(1);
      }
      return s;
    };
    const curves = el("g", { "clip-path": `url(#${clipId})` }, backdrop);
    const extras = Array.isArray(d.extra_curves) ? d.extra_curves : [];
    for (const c of extras) {
      const path = pathOf(Array.isArray(c.points) ? c.points : []);
      if (!path) continue;
      const color = String(c.color || "#64748b");
      const node = el("path", { d: path, class: "cc-extra", stroke: color }, curves);
      if (c.dash) node.setAttribute("stroke-dasharray", "7 5");
    }
    const main = Array.isArray(d.curve) ? d.curve.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) : [];
    if (main.length > 1) {
      const line = pathOf(main);
      const first = main[0], last = main[main.length - 1];
      el("path", { class: "cc-area", d: line + `L${g.sx(last[0]).toFixed(1)},${g.sy(0)}L${g.sx(first[0]).toFixed(1)},${g.sy(0)}Z` }, curves);
      el("path", { class: "cc-curve", d: line, "data-testid": "curve-fit" }, curves);
    }

    // legend (only when there is something to tell apart)
    if (extras.length) {
      /** @type {{ label: string, color: string | null, dash: boolean }[]} */
      const entries = (main.length > 1 ? [{ label: String(d.curve_label || "fitted curve"), color: null, dash: false }] : [])
        .concat(extras.map((c) => ({ label: String(c.label || ""), color: String(c.color || "#64748b"), dash: !!c.dash })));
      const lg = el("g", { class: "cc-legend" }, backdrop);
      const bg = el("rect", { class: "cc-legend-bg", rx: 6 }, lg);
      let y = g.top + 16, maxW = 0;
      const x0 = g.left + g.w - 12;
      /** @type {{ y: number, en: { label: string, color: string | null, dash: boolean }, t: SVGTextElement }[]} */
      const rows = [];
      for (const en of entries) {
        const t = el("text", { y: y + 4 }, lg);
        t.textContent = en.label;
        const w = t.getComputedTextLength ? t.getComputedTextLength() : en.label.length * 6.5;
        maxW = Math.max(maxW, w);
        rows.push({ y, en, t });
        y += 18;
      }
      for (const r of rows) {
        r.t.setAttribute("x", String(x0 - maxW));
        const sw = el("line", { x1: x0 - maxW - 34, x2: x0 - maxW - 8, y1: r.y, y2: r.y, "stroke-width": 2.5 }, lg);
        if (r.en.color) sw.setAttribute("stroke", r.en.color); else sw.setAttribute("class", "cc-curve");
        if (r.en.dash) sw.setAttribute("stroke-dasharray", "7 5");
      }
      bg.setAttribute("x", String(x0 - maxW - 42)); bg.setAttribute("y", String(g.top + 4));
      bg.setAttribute("width", String(maxW + 50)); bg.setAttribute("height", String(rows.length * 18 + 6));
    }

    placePlot(plot, crossParts, g, xMax);  // the click target: exactly the plot area

    // points, numbered: circle i for point i
    editing.drawPoints(pointLayer, pts, g, disabled, "cc");

    // hint line
    hint.classList.toggle("full", full && !disabled);
    if (disabled) hint.textContent = "";
    else if (full) hint.textContent = `${maxPoints} points placed \u2014 drag or double-click a point to change it`;
    else hint.textContent = `Click to place a point (${pts.length} of ${maxPoints}) \u00b7 drag to move \u00b7 double-click to remove \u00b7 arrow keys nudge`;
  };

  inst.destroy = () => {
    editing.detach();
    resize.disconnect();
    inst.delivery.dispose();
    root.remove();
  };
  return inst;
}

/** @param {ComponentCall} component */
export default function (component) {
  return mountDelivering(component, INSTANCES, createInstance);  // delivery.js
}
