// @ts-check
/* The annotation surface's chart part: the validity chart of the curve being edited (a pair's
   second curve on its last step, the first drawn faintly behind), its side panel (the fit in
   words, the parameters, the residuals, the feedback) and the two tools beside it: fine-tuning
   the parameters and entering two durations instead of points. Made by createSurfaceChart(ctx)
   (annotation_surface.js; the context's type is in surface_config.js); put in front of the
   surface's module at import (ui/components/sources.py), after dom_helpers.js, curve_points.js,
   point_drag.js (the pointer and the keys on the points) and chart_grid.js (the grid), both
   shared with the curve canvas.
   The checks of what is typed and the hint's words are pure and unit-tested with `node --test`
   (tests/js/surface_chart.test.js). All text is set with textContent. */

const CHART_MARGIN = { left: 50, right: 14, top: 12, bottom: 46 };
let chartClipCounter = 0;

/**
 * The hand-tuned parameters typed in, or why they cannot be sent: each must be a number within
 * the fit's bounds (the view's parameters).
 * @param {ReadonlyArray<SurfaceParameter>} parameters
 * @param {(name: string) => string | null} typed what is typed for a parameter (null: no input)
 * @returns {{ values: Record<string, number> } | { error: string }}
 */
function tunedParams(parameters, typed) {
  /** @type {Record<string, number>} */
  const values = {};
  for (const { name, symbol, min: lo, max: hi } of parameters) {
    const text = typed(name);
    const v = Number(text ?? "");
    if (text === null || text === "" || !Number.isFinite(v) || v < lo || v > hi) return { error: `${symbol} must be a number from ${lo} to ${hi}.` };
    values[name] = v;
  }
  return { values };
}

/**
 * The `place` edit's minutes for the two durations typed in (each a number and its unit's
 * minutes), or why they cannot be sent.
 * @param {string} peak
 * @param {number} peakUnit
 * @param {string} half
 * @param {number} halfUnit
 * @returns {{ peak_minutes: number, half_gone_minutes: number } | { error: string }}
 */
function placedDurations(peak, peakUnit, half, halfUnit) {
  const p = Number(peak), q = Number(half);
  if (peak === "" || half === "" || !(p > 0) || !(q > 0)) {
    return { error: "Enter two positive durations: when the validity peaks and when half of it is gone." };
  }
  const peakMinutes = p * peakUnit, halfMinutes = q * halfUnit;
  if (!(halfMinutes > peakMinutes)) return { error: "“Half gone by” must come after the peak." };
  return { peak_minutes: peakMinutes, half_gone_minutes: halfMinutes };
}

/**
 * The unit a duration's select shows after its units are drawn: the one it showed, else the
 * preferred one (the view's duration_defaults), else the first.
 * @param {ReadonlyArray<string>} names
 * @param {string} was
 * @param {string} preferred
 * @returns {string}
 */
function unitShown(names, was, preferred) {
  return names.includes(was) ? was : names.includes(preferred) ? preferred : (names[0] ?? "");
}

/**
 * The hint under the chart.
 * @param {{ readOnly: boolean, placing: boolean, n: number, minPoints: number, maxPoints: number }} s
 * @returns {string}
 */
function chartHint(s) {
  if (s.readOnly) return "";
  if (s.placing) return "Placing the points from your durations…";
  if (s.n >= s.maxPoints) return `${s.maxPoints} points placed — drag a point to move it, double-click or Delete to remove it`;
  return `Click to place a point (${s.n} of ${s.maxPoints}; at least ${s.minPoints}) · drag to move · double-click to remove · arrow keys nudge`;
}

/**
 * The SVG path through the finite points of `line` on geometry `g` (y kept just around 0 … 1).
 * @param {unknown} line
 * @param {ChartGeometry} g
 * @returns {{ d: string, points: [number, number][] }}
 */
function curvePath(line, g) {
  /** @type {[number, number][]} */
  const points = Array.isArray(line) ? line.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) : [];
  let d = "";
  for (const p of points) d += (d ? "L" : "M") + g.sx(p[0]).toFixed(1) + "," + g.sy(clamp(p[1], -0.05, 1.05)).toFixed(1);
  return { d, points };
}

/**
 * The chart part of a surface.
 * @typedef {object} SurfaceChart
 * @property {HTMLElement} section the chart and its side panel
 * @property {(show: boolean) => void} render
 * @property {() => void} reset a new sample: the tools closed, no point focused
 * @property {() => void} dispose
 */

/**
 * @param {SurfaceContext} ctx
 * @returns {SurfaceChart}
 */
function createSurfaceChart(ctx) {
  const { inst, root } = ctx;
  const svg = el("svg", { role: "group", class: "as-svg" });
  const backdrop = el("g", {}, svg);
  const plot = el("rect", { class: "as-plot", "data-testid": "curve-plot", "pointer-events": "all",
    "data-x-min": 0, "data-y-min": 0, "data-y-max": 1 }, svg);
  const crossParts = makeCrosshair(svg, "as-cross");
  const pointLayer = el("g", {}, svg);
  const clipId = "as-clip-" + (++chartClipCounter);
  const chartHintBox = h("div", { class: "as-hint", "data-testid": "curve-hint", "aria-live": "polite" });
  const chartBox = h("div", { class: "as-chart", "data-testid": "curve-canvas" }, svg, chartHintBox);
  const side = h("div", { class: "as-side", "data-testid": "fit-summary" });
  const sideInfo = h("div", { class: "as-sideinfo" });
  // fine-tune parameters: an input per parameter of the view (drawRuleControls)
  const tuneToggle = h("button", { type: "button", class: "as-link", "data-command": "tune", "aria-expanded": "false", text: "Fine-tune parameters" });
  /** @type {Map<string, HTMLInputElement>} */
  const tuneInputs = new Map();
  const tuneRow = h("div", { class: "as-tune-row" });
  const tuneApply = h("button", { type: "button", class: "as-btn as-small", "data-command": "params", text: "Apply" });
  const tuneRefit = h("button", { type: "button", class: "as-btn as-small", "data-command": "refit", text: "Back to the fitted curve" });
  const tunePanel = h("div", { class: "as-panel", hidden: true }, tuneRow, h("div", { class: "as-panel-actions" }, tuneApply, tuneRefit));
  // durations: the units' options are the view's time_units (drawRuleControls)
  const placeToggle = h("button", { type: "button", class: "as-link", "data-command": "durations", "aria-expanded": "false", text: "Enter durations instead" });
  const peakN = h("input", { type: "number", min: "0", step: "any", name: "peak-n", "aria-label": "peak after" });
  const peakU = h("select", { name: "peak-unit", "aria-label": "unit" });
  const halfN = h("input", { type: "number", min: "0", step: "any", name: "half-n", "aria-label": "half gone by" });
  const halfU = h("select", { name: "half-unit", "aria-label": "unit" });
  const placeBtn = h("button", { type: "button", class: "as-btn as-small", "data-command": "place", text: "Place the points" });
  const placePanel = h("div", { class: "as-panel", hidden: true },
    h("label", { class: "as-dur" }, h("span", { text: "Peak ≈" }), peakN, peakU),
    h("label", { class: "as-dur" }, h("span", { text: "Half gone by ≈" }), halfN, halfU),
    h("div", { class: "as-panel-actions" }, placeBtn));
  side.append(sideInfo, h("div", { class: "as-side-tools" }, tuneToggle, placeToggle), tunePanel, placePanel);
  const section = h("section", { class: "as-curvesec" }, chartBox, side);

  let tuneOpen = false, tuneFilled = false, placeOpen = false, chartWidth = 0;
  /** @type {ChartGeometry | null} */
  let geom = null;
  const chartLocked = () => ctx.locked() || ctx.placing();
  /** @returns {SurfacePoint[]} the points of the curve the chart edits now */
  const activePoints = () => (ctx.onContext() ? inst.local.content.context_points : inst.local.content.points);

  // ---------- the tools
  /** @param {string} text */
  function say(text) { inst.message = { kind: "input", level: "warning", text }; ctx.render(); }
  function applyParams() {
    const got = tunedParams(ctx.cfg().parameters, (name) => { const input = tuneInputs.get(name); return input ? input.value : null; });
    if ("error" in got) { say(got.error); return; }
    inst.message = null;
    ctx.push(ctx.curveEdit({ kind: "params", ...got.values }));
  }
  function place() {
    const units = ctx.cfg().timeUnits;
    /** @type {(sel: HTMLSelectElement) => number} */
    const minutes = (sel) => (units.find((u) => u.name === sel.value) || units[0] || { minutes: NaN }).minutes;
    const got = placedDurations(peakN.value, minutes(peakU), halfN.value, minutes(halfU));
    if ("error" in got) { say(got.error); return; }
    inst.message = null;
    ctx.push(ctx.curveEdit({ kind: "place", ...got }));
  }
  tuneToggle.addEventListener("click", () => { tuneOpen = !tuneOpen; tuneFilled = false; ctx.render(); });
  placeToggle.addEventListener("click", () => { placeOpen = !placeOpen; ctx.render(); if (placeOpen) peakN.focus(); });
  tuneApply.addEventListener("click", applyParams);
  tuneRefit.addEventListener("click", () => ctx.push(ctx.curveEdit({ kind: "refit" })));
  tuneRow.addEventListener("keydown", (e) => { if (closestFrom(e.target, "input") && e.key === "Enter" && !e.altKey) { e.preventDefault(); applyParams(); } });
  placeBtn.addEventListener("click", place);
  for (const input of [peakN, halfN]) input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.altKey) { e.preventDefault(); place(); } });

  // ---------- the points: the pointer and the keys (point_drag.js), on the local points
  const editing = attachPointEditing({
    svg, plot, cross: crossParts,
    geometry: () => geom,
    xMax: () => ctx.cfg().xMax,
    points: activePoints,
    maxPoints: () => ctx.cfg().maxPoints,
    locked: chartLocked,
    onFull: () => chartHintBox.animate([{ opacity: 0.35 }, { opacity: 1 }], { duration: 450 }),
    edit: (edit) => { ctx.push(ctx.curveEdit({ kind: "point", ...edit })); },
    redraw: () => renderChart(),
  });
  const resize = new ResizeObserver(() => {
    const w = Math.floor(chartBox.clientWidth);
    if (w > 0 && Math.abs(w - chartWidth) >= 1 && inst.view) renderChart();
  });
  resize.observe(chartBox);
  const onWindowResize = () => { if (inst.view) renderChart(); };
  window.addEventListener("resize", onWindowResize);

  // ---------- drawing
  function renderChart() {
    if (editing.holdRender()) return;  // drawn when the drag ends
    const v = ctx.view(), c = ctx.cfg();
    const height = c.single ? 300 : Math.round(clamp(window.innerHeight * 0.5 - 80, 220, 380));
    const width = Math.max(Math.floor(chartBox.clientWidth) || 560, 260);
    chartWidth = width;
    root.style.setProperty("--as-chart-h", height + "px");
    const { left, top } = CHART_MARGIN;
    const w = width - CHART_MARGIN.left - CHART_MARGIN.right, ht = height - CHART_MARGIN.top - CHART_MARGIN.bottom;
    /** @type {ChartGeometry} */
    const g = { left, top, w, h: ht, sx: (x) => left + (x / c.xMax) * w, sy: (y) => top + (1 - y) * ht };
    geom = g;
    const context = ctx.onContext();
    const pts = activePoints();
    const disabled = chartLocked();
    const stale = ctx.curvePending();
    chartBox.classList.toggle("disabled", disabled);
    chartBox.classList.toggle("full", pts.length >= c.maxPoints);
    chartBox.setAttribute("data-points", JSON.stringify(pts));
    svg.setAttribute("width", String(width)); svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", `Validity curve chart with ${pts.length} of ${c.maxPoints} points`);
    backdrop.replaceChildren();
    const clip = el("clipPath", { id: clipId }, el("defs", {}, backdrop));
    el("rect", { x: g.left, y: g.top - 2, width: g.w, height: g.h + 4 }, clip);
    const labels = drawChartGrid(backdrop, g, v.ticks, c.xMax, { gridClass: "as-grid", axisClass: "axis", tickClass: "as-tick",
      yLabelGap: 7, charHalf: 3.3, rowOffset: 16, rowStep: 13 });
    el("text", { class: "as-axis-title", "text-anchor": "middle", transform: `translate(12 ${g.top + g.h / 2}) rotate(-90)` }, labels).textContent = "validity";
    el("text", { class: "as-axis-title", "text-anchor": "end", x: g.left + g.w, y: g.top + g.h + 42 }, labels).textContent = "time since publication (log scale) →";
    if (context) {  // the target's own curve, drawn faintly behind the one given the follow-up
      const behind = curvePath(v.curve, g);
      if (behind.points.length > 1) el("path", { class: "as-curve-behind", d: behind.d, "data-testid": "curve-alone", "clip-path": `url(#${clipId})` }, backdrop);
    }
    const curve = curvePath(context ? v.context_curve : v.curve, g);
    if (curve.points.length > 1) {
      const layer = el("g", { "clip-path": `url(#${clipId})`, class: stale ? "stale" : "" }, backdrop);
      const first = curve.points[0], last = curve.points[curve.points.length - 1];
      el("path", { class: "as-area", d: curve.d + `L${g.sx(last[0]).toFixed(1)},${g.sy(0)}L${g.sx(first[0]).toFixed(1)},${g.sy(0)}Z` }, layer);
      el("path", { class: "as-curve", d: curve.d, "data-testid": "curve-fit", "data-stale": stale ? "true" : "false" }, layer);
    }
    placePlot(plot, crossParts, g, c.xMax);
    editing.drawPoints(pointLayer, pts, g, disabled, "as");
    chartHintBox.textContent = chartHint({ readOnly: c.readOnly, placing: ctx.placing(), n: pts.length, minPoints: c.minPoints, maxPoints: c.maxPoints });
  }

  /** @param {Partial<SurfaceFit>} fit */
  function fitLines(fit) {
    const c = ctx.cfg();
    if (fit.message) sideInfo.appendChild(h("div", { class: "as-fitmsg", "data-testid": "fit-message", text: String(fit.message) }));
    const summary = Array.isArray(fit.summary) ? fit.summary : [];
    if (summary.length) sideInfo.appendChild(h("ul", { class: "as-summary" }, ...summary.map((line) => h("li", { text: String(line) }))));
    const p = /** @type {Record<string, unknown> | null} */ (fit.params && typeof fit.params === "object" ? fit.params : null);
    if (p) {
      /** @type {(x: unknown, d: number) => string} */
      const f = (x, d) => (finite(x) ? x.toFixed(d) : "–");
      const line = h("div", { class: "as-params", "data-testid": "fit-params" },
        ...c.parameters.map(({ name, symbol }) => h("span", { text: `${symbol} ${f(p[name], 2)}` })), h("span", { text: `RMSE ${f(p.rmse, 3)}` }));
      if (p.source === "manual") line.appendChild(h("span", { class: "as-badge", text: "hand-tuned" }));
      sideInfo.appendChild(line);
    } else if (!fit.message && !summary.length) {
      sideInfo.appendChild(h("div", { class: "as-muted", text: `No curve yet: place at least ${c.minPoints} points.` }));
    }
    const residuals = Array.isArray(fit.residuals) ? fit.residuals : null;
    if (residuals && residuals.length) {
      sideInfo.appendChild(h("div", { class: "as-resid" }, h("span", { class: "as-muted", text: "Residual per point: " }),
        ...residuals.map((/** @type {unknown} */ r, /** @type {number} */ i) => h("span", { class: "as-resid-item",
          text: `${i + 1}: ${finite(r) ? (r >= 0 ? "+" : "") + r.toFixed(2) : "–"}` }))));
    }
    return p;
  }
  /** @param {{ lines?: unknown, left_after?: unknown } | null} fb */
  function feedbackLines(fb) {
    if (!fb) return;
    const lines = Array.isArray(fb.lines) ? fb.lines : [];
    if (lines.length) sideInfo.appendChild(h("ul", { class: "as-feedback", "data-testid": "feedback" }, ...lines.map((line) => h("li", { text: String(line) }))));
    const left = Array.isArray(fb.left_after) ? fb.left_after.filter((r) => Array.isArray(r)) : [];
    if (left.length) {
      const cells = h("div", { class: "as-left-cells" }, ...left.map(([label, value]) => h("div", { class: "as-left-cell" },
        h("span", { class: "as-muted", text: String(label) }), h("b", { text: String(value) }))));
      sideInfo.appendChild(h("div", { class: "as-left", "data-testid": "left-after" }, h("div", { class: "as-left-title", text: "Validity left after" }), cells));
    }
  }
  function renderSide() {
    const v = ctx.view(), content = inst.local.content, context = ctx.onContext();
    /** @type {Partial<SurfaceFit>} */
    const viewFit = context ? v.context_fit : v.fit;
    const stale = ctx.curvePending();
    sideInfo.replaceChildren();
    side.classList.toggle("stale", stale);
    if (stale) sideInfo.appendChild(h("div", { class: "as-updating", text: "Updating the curve…" }));
    const p = fitLines(viewFit && typeof viewFit === "object" ? viewFit : {});
    const fb = context ? v.context_feedback : v.feedback;
    feedbackLines(fb && typeof fb === "object" ? fb : null);
    const ro = ctx.locked();
    tuneToggle.hidden = ro || !p; placeToggle.hidden = ro;
    tuneToggle.setAttribute("aria-expanded", tuneOpen ? "true" : "false");
    placeToggle.setAttribute("aria-expanded", placeOpen ? "true" : "false");
    tunePanel.hidden = ro || !p || !tuneOpen;
    placePanel.hidden = ro || !placeOpen;
    if (tunePanel.hidden) return;
    const shadowActive = ctx.activeElement();
    if (!(shadowActive && tunePanel.contains(shadowActive)) || !tuneFilled) {
      const active = context ? swappedCurves(content, ctx.cfg().contextFields) : content;  // the curve the chart edits, as the first
      const src = /** @type {Record<string, unknown>} */ (active.params_source === "manual" && finite(active.xi) ? active : p);
      for (const [name, input] of tuneInputs) { const value = src[name]; if (finite(value)) input.value = String(round2(value)); }
      tuneFilled = true;
    }
    tuneRefit.disabled = (context ? content.context_params_source : content.params_source) !== "manual";
  }

  /* The tools' controls from the view's names and limits: an input per parameter (with the
     fit's bounds) and the duration units; each drawn again only when what it shows changes. */
  const ruleKeys = { parameters: "", units: "" };
  function drawRuleControls() {
    const c = ctx.cfg();
    const parametersKey = JSON.stringify(c.parameters);
    if (ruleKeys.parameters !== parametersKey) {
      ruleKeys.parameters = parametersKey;
      tuneInputs.clear();
      tuneRow.replaceChildren();
      for (const { name, symbol, min, max } of c.parameters) {
        const input = h("input", { type: "number", step: "0.5", name: `param-${name}`, "aria-label": symbol, min, max });
        tuneInputs.set(name, input);
        tuneRow.appendChild(h("label", { class: "as-field" }, h("span", { text: symbol }), input));
      }
      tuneFilled = false;
    }
    const names = c.timeUnits.map((u) => u.name);
    if (ruleKeys.units !== names.join("\n")) {
      ruleKeys.units = names.join("\n");
      for (const [sel, preferred] of /** @type {[HTMLSelectElement, string][]} */ ([[peakU, c.durationDefaults.peak], [halfU, c.durationDefaults.halfGone]])) {
        const was = sel.value;
        sel.replaceChildren(...c.timeUnits.map((u) => h("option", { value: u.name, text: u.name })));
        sel.value = unitShown(names, was, preferred);
      }
    }
  }

  return {
    section,
    render(show) {
      drawRuleControls();
      section.hidden = !show;
      if (show) { renderChart(); renderSide(); }
    },
    reset() { tuneOpen = false; placeOpen = false; editing.focusIndex = null; },
    dispose() {
      window.removeEventListener("resize", onWindowResize);
      resize.disconnect();
      editing.detach();
    },
  };
}
