"""Curve canvas: the log-time validity chart on which the annotator places, drags and removes
the curve's points (Streamlit custom component v2, inline SVG/CSS/JS, no libraries).

Python stays the source of truth: the page passes the points and the fitted curve; the chart
reports each edit as one event dict, which the page applies with
:func:`annotation.curve_points.apply_point_event` and draws again. Delivery is exactly-once
(see :mod:`ui.components.events`); an edit on its way is drawn at once (optimistically).

Events (the return value, or the argument of ``on_change``)::

    {"action": "add", "x": 54.2, "y": 0.8}               # click on empty chart area
    {"action": "move", "index": 1, "x": 60.0, "y": 0.5}  # drag and release, or arrow keys
    {"action": "remove", "index": 0}                     # double-click, right-click, Delete

``x`` in ``[0, x_max]`` (log-time units), ``y`` in ``[0, 1]``, rounded to 2 decimals.
Arrow keys nudge the focused point by 1 x-unit / 0.02 y (Shift: 5 / 0.1).

Geometry for tests (inside the component's shadow root; Playwright CSS selectors pierce it):
``[data-testid="curve-plot"]`` is an SVG ``rect`` covering exactly the plot area, with
``data-x-min="0" data-x-max="<x_max>" data-y-min="0" data-y-max="1"``. With Playwright::

    box = page.locator('[data-testid="curve-plot"]').bounding_box()
    px = box["x"] + (x - x_min) / (x_max - x_min) * box["width"]
    py = box["y"] + (1 - (y - y_min) / (y_max - y_min)) * box["height"]
    page.mouse.click(px, py)            # -> {"action": "add", "x": ~x, "y": ~y}

(one pixel is about ``x_max / box["width"]`` x-units, so compare with that tolerance). Points
are ``circle[data-point="i"]`` (focusable, numbered i+1 on the chart); the chart root is
``[data-testid="curve-canvas"]`` with ``data-points`` = the drawn points as JSON, and the hint
line ``[data-testid="curve-hint"]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from annotation.curve_points import ACTIONS
from ui.components.events import (
    EVENT_QUEUE_JS,
    TRIGGER,
    acknowledged_ids,
    first_new_action,
    make_callback,
)
from ui.components.token_boundaries import css_color

#: Most vertices sent for one curve; denser curves are thinned evenly (the chart is < 2000 px).
MAX_CURVE_VERTICES = 1200

_CSS = r"""
:host { display: block; }
.cc-root {
  position: relative;
  font-family: var(--st-font, "Source Sans Pro", system-ui, sans-serif);
  color: var(--st-text-color, #31333f);
  --cc-accent: var(--st-primary-color, #ff4b4b);
  --cc-ink: var(--st-text-color, #31333f);
  --cc-muted: color-mix(in srgb, var(--st-text-color, #31333f) 55%, transparent);
  --cc-grid: color-mix(in srgb, var(--st-text-color, #31333f) 11%, transparent);
  --cc-grid-strong: color-mix(in srgb, var(--st-text-color, #31333f) 30%, transparent);
  user-select: none;
  -webkit-user-select: none;
}
.cc-root svg { display: block; overflow: visible; touch-action: none; outline: none; }
.cc-grid line { stroke: var(--cc-grid); stroke-width: 1; shape-rendering: crispEdges; }
.cc-grid line.cc-axis { stroke: var(--cc-grid-strong); }
.cc-tick { fill: var(--cc-muted); font-size: 12px; }
.cc-title { fill: var(--cc-muted); font-size: 12px; font-style: italic; }
.cc-plot { fill: transparent; cursor: crosshair; }
.cc-root.full .cc-plot, .cc-root.disabled .cc-plot { cursor: default; }
.cc-area { fill: color-mix(in srgb, var(--cc-accent) 10%, transparent); stroke: none; pointer-events: none; }
.cc-curve { fill: none; stroke: var(--cc-accent); stroke-width: 2.75; stroke-linejoin: round; stroke-linecap: round; pointer-events: none; }
.cc-extra { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; pointer-events: none; opacity: 0.9; }
.cc-cross line { stroke: var(--cc-muted); stroke-width: 1; stroke-dasharray: 3 3; }
.cc-cross rect { fill: var(--st-background-color, #ffffff); stroke: var(--cc-grid-strong); }
.cc-cross text { fill: var(--cc-ink); font-size: 12px; font-weight: 600; }
.cc-point { fill: var(--cc-accent); stroke: var(--st-background-color, #ffffff); stroke-width: 2.5; cursor: grab; outline: none; }
.cc-point:hover { stroke: var(--cc-ink); stroke-width: 2; }
.cc-point:focus-visible { stroke: var(--cc-ink); stroke-width: 3.5; }
.cc-point.dragging { cursor: grabbing; }
.cc-root.disabled .cc-point { cursor: default; }
.cc-num { fill: #ffffff; font-size: 11px; font-weight: 700; pointer-events: none; }
.cc-legend text { fill: var(--cc-ink); font-size: 12px; }
.cc-legend rect.cc-legend-bg { fill: var(--st-background-color, #ffffff); opacity: 0.85; }
.cc-hint {
  min-height: 1.4em;
  margin-top: 0.2rem;
  font-size: 0.85rem;
  color: var(--cc-muted);
}
.cc-hint.full { color: var(--cc-ink); }
"""

_JS = (
    EVENT_QUEUE_JS
    + r"""
const INSTANCES = new WeakMap();
const SVG = "http://www.w3.org/2000/svg";
const MARGIN = { left: 58, right: 18, top: 16, bottom: 62 };
const Y_GRID = [0, 0.25, 0.5, 0.75, 1];
let clipCounter = 0;

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}
const round2 = (v) => Math.round(v * 100) / 100;
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
const finite = (v) => typeof v === "number" && Number.isFinite(v);

/* The same rules as annotation.curve_points.apply_point_event (drawn while an edit is on
   its way to Python). */
function applyAction(points, a, xMax, maxPoints) {
  const pts = points.map((p) => [p[0], p[1]]);
  const valid = (i) => Number.isInteger(i) && i >= 0 && i < pts.length;
  if (a.action === "add" && pts.length < maxPoints && finite(a.x) && finite(a.y)) {
    pts.push([round2(clamp(a.x, 0, xMax)), round2(clamp(a.y, 0, 1))]);
  } else if (a.action === "move" && valid(a.index) && finite(a.x) && finite(a.y)) {
    pts[a.index] = [round2(clamp(a.x, 0, xMax)), round2(clamp(a.y, 0, 1))];
  } else if (a.action === "remove" && valid(a.index)) {
    pts.splice(a.index, 1);
  }
  return pts;
}

function createInstance(parentElement) {
  const root = document.createElement("div");
  root.className = "cc-root";
  root.setAttribute("data-testid", "curve-canvas");
  const svg = el("svg", { role: "group" });
  root.appendChild(svg);
  const hint = document.createElement("div");
  hint.className = "cc-hint";
  hint.setAttribute("data-testid", "curve-hint");
  hint.setAttribute("aria-live", "polite");
  root.appendChild(hint);
  parentElement.appendChild(root);

  const inst = { root, svg, hint, data: null, generation: 0, width: 0, drag: null,
                 needsRender: false, geom: null, focusIndex: null };
  inst.queue = createEventQueue(() => inst.render());
  const clipId = "cc-clip-" + (++clipCounter);

  // Layers. The backdrop (grid, labels, curves, legend) is redrawn on every render; the plot
  // rect, the crosshair and the point circles persist and are updated in place, so listeners,
  // focus and element handles survive a redraw.
  const backdrop = el("g", { class: "cc-backdrop" }, svg);
  const plot = el("rect", {
    class: "cc-plot", "data-testid": "curve-plot", "pointer-events": "all",
    "data-x-min": 0, "data-y-min": 0, "data-y-max": 1,
  }, svg);
  inst.plotRect = plot;
  const cross = el("g", { class: "cc-cross", visibility: "hidden", "pointer-events": "none" }, svg);
  inst.cross = cross;
  inst.crossV = el("line", {}, cross);
  inst.crossH = el("line", {}, cross);
  inst.crossBox = el("rect", { rx: 5 }, cross);
  inst.crossText = el("text", {}, cross);
  const pointLayer = el("g", { class: "cc-points" }, svg);

  const cfg = () => {
    const d = inst.data || {};
    return {
      xMax: finite(d.x_max) && d.x_max > 0 ? d.x_max : 200,
      maxPoints: Number.isInteger(d.max_points) && d.max_points > 0 ? d.max_points : 5,
      disabled: !!d.disabled,
    };
  };
  function currentPoints() {
    const d = inst.data || {};
    const { xMax, maxPoints, disabled } = cfg();
    let pts = Array.isArray(d.points) ? d.points.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) : [];
    pts = pts.map((p) => [p[0], p[1]]);
    if (!disabled) for (const a of inst.queue.pending) pts = applyAction(pts, a, xMax, maxPoints);
    return pts;
  }
  // client (page) coordinates -> data coordinates, through the plot rect's real box
  function toData(clientX, clientY) {
    const { xMax } = cfg();
    const r = inst.plotRect.getBoundingClientRect();
    const x = ((clientX - r.left) / r.width) * xMax;
    const y = 1 - (clientY - r.top) / r.height;
    return [round2(clamp(x, 0, xMax)), round2(clamp(y, 0, 1))];
  }
  function pointIndex(target) {
    const c = target && target.closest ? target.closest("[data-point]") : null;
    if (!c || !svg.contains(c)) return null;
    const i = Number(c.getAttribute("data-point"));
    return Number.isInteger(i) ? i : null;
  }

  // ---------- interactions ----------
  function onPlotClick(e) {
    const { maxPoints, disabled } = cfg();
    if (disabled || e.button !== 0 || e.detail > 1) return;  // 2nd click of a double-click
    if (currentPoints().length >= maxPoints) { flashHint(); return; }
    const [x, y] = toData(e.clientX, e.clientY);
    inst.queue.push({ action: "add", x, y });
  }
  function onPointerDown(e) {
    const i = pointIndex(e.target);
    if (i === null && e.target === inst.plotRect) {
      e.preventDefault();  // no focus ring on the chart, no text selection; click still fires
      const active = root.getRootNode().activeElement;
      if (active && pointIndex(active) !== null) active.blur();
      return;
    }
    if (i === null || cfg().disabled || e.button !== 0) return;
    e.preventDefault();
    const circle = e.target.closest("[data-point]");
    circle.focus({ preventScroll: true });
    try { circle.setPointerCapture(e.pointerId); } catch (_) { /* synthetic events */ }
    inst.drag = { index: i, pointerId: e.pointerId, x0: e.clientX, y0: e.clientY, moved: false, circle, pos: null };
  }
  function onPointerMove(e) {
    const drag = inst.drag;
    if (drag && e.pointerId === drag.pointerId) {
      if (!drag.moved && Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < 3) return;
      drag.moved = true;
      drag.circle.classList.add("dragging");
      drag.pos = toData(e.clientX, e.clientY);
      placePoint(drag.index, drag.pos);
      showCross(drag.pos);
      return;
    }
    if (e.target === inst.plotRect) showCross(toData(e.clientX, e.clientY));
  }
  function endDrag(e, commit) {
    const drag = inst.drag;
    if (!drag || e.pointerId !== drag.pointerId) return;
    inst.drag = null;
    try { drag.circle.releasePointerCapture(e.pointerId); } catch (_) { /* already released */ }
    drag.circle.classList.remove("dragging");
    hideCross();
    if (commit && drag.moved && drag.pos) {
      inst.focusIndex = drag.index;
      inst.queue.push({ action: "move", index: drag.index, x: drag.pos[0], y: drag.pos[1] });
    } else if (inst.needsRender || drag.moved) {
      inst.render();
    }
  }
  const onPointerUp = (e) => endDrag(e, true);
  const onPointerCancel = (e) => endDrag(e, false);
  function onPointerLeave(e) { if (!inst.drag) hideCross(); }
  function remove(i, keepFocus) {
    if (cfg().disabled) return;
    inst.focusIndex = keepFocus ? i : null;  // keyboard: focus moves on to the next point
    inst.queue.push({ action: "remove", index: i });
  }
  function onDblClick(e) {
    const i = pointIndex(e.target);
    if (i !== null) { e.preventDefault(); remove(i); }
  }
  function onContextMenu(e) {
    const i = pointIndex(e.target);
    if (i !== null) { e.preventDefault(); remove(i); }
  }
  function onKeyDown(e) {
    const i = pointIndex(e.target);
    if (i === null || cfg().disabled || e.altKey || e.ctrlKey || e.metaKey) return;
    const pts = currentPoints();
    if (i >= pts.length) return;
    const big = e.shiftKey;
    let [x, y] = pts[i];
    if (e.key === "ArrowLeft") x -= big ? 5 : 1;
    else if (e.key === "ArrowRight") x += big ? 5 : 1;
    else if (e.key === "ArrowUp") y += big ? 0.1 : 0.02;
    else if (e.key === "ArrowDown") y -= big ? 0.1 : 0.02;
    else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault(); e.stopPropagation(); remove(i, true); return;
    } else return;
    e.preventDefault();
    e.stopPropagation();
    const { xMax } = cfg();
    inst.focusIndex = i;
    inst.queue.push({ action: "move", index: i, x: round2(clamp(x, 0, xMax)), y: round2(clamp(y, 0, 1)) });
  }
  function onFocusIn(e) { const i = pointIndex(e.target); if (i !== null) inst.focusIndex = i; }
  function onFocusOut(e) {
    const to = e.relatedTarget;
    if (!to || pointIndex(to) === null) inst.focusIndex = null;
  }

  plot.addEventListener("click", onPlotClick);
  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerCancel);
  svg.addEventListener("pointerleave", onPointerLeave);
  svg.addEventListener("dblclick", onDblClick);
  svg.addEventListener("contextmenu", onContextMenu);
  svg.addEventListener("keydown", onKeyDown);
  svg.addEventListener("focusin", onFocusIn);
  svg.addEventListener("focusout", onFocusOut);

  const resize = new ResizeObserver(() => {
    const w = Math.floor(root.clientWidth);
    if (w > 0 && Math.abs(w - inst.width) >= 1) inst.render();
  });
  resize.observe(root);

  // ---------- drawing ----------
  function placePoint(i, pos) {
    const g = inst.geom;
    const circle = svg.querySelector(`[data-point="${i}"]`);
    const num = svg.querySelector(`[data-point-label="${i}"]`);
    if (!g || !circle) return;
    circle.setAttribute("cx", g.sx(pos[0]));
    circle.setAttribute("cy", g.sy(pos[1]));
    if (num) { num.setAttribute("x", g.sx(pos[0])); num.setAttribute("y", g.sy(pos[1])); }
  }
  function showCross(pos) {
    const g = inst.geom;
    if (!g || !inst.cross) return;
    const cx = g.sx(pos[0]), cy = g.sy(pos[1]);
    inst.cross.setAttribute("visibility", "visible");
    inst.crossV.setAttribute("x1", cx); inst.crossV.setAttribute("x2", cx);
    inst.crossH.setAttribute("y1", cy); inst.crossH.setAttribute("y2", cy);
    inst.crossText.textContent = Math.round(pos[1] * 100) + "% valid";
    const tw = inst.crossText.getComputedTextLength ? inst.crossText.getComputedTextLength() : 70;
    const boxW = tw + 14, boxH = 22;
    let bx = cx + 10;
    if (bx + boxW > g.left + g.w) bx = cx - 10 - boxW;
    let by = cy - boxH - 8;
    if (by < g.top) by = cy + 8;
    inst.crossBox.setAttribute("x", bx); inst.crossBox.setAttribute("y", by);
    inst.crossBox.setAttribute("width", boxW); inst.crossBox.setAttribute("height", boxH);
    inst.crossText.setAttribute("x", bx + 7); inst.crossText.setAttribute("y", by + 15);
  }
  function hideCross() { if (inst.cross) inst.cross.setAttribute("visibility", "hidden"); }
  function flashHint() {
    hint.animate([{ opacity: 0.35 }, { opacity: 1 }], { duration: 450 });
  }

  inst.render = () => {
    if (inst.drag) { inst.needsRender = true; return; }
    inst.needsRender = false;
    const d = inst.data;
    if (!d) return;
    const { xMax, maxPoints, disabled } = cfg();
    const height = Number.isInteger(d.height) && d.height > 120 ? d.height : 380;
    const width = Math.max(Math.floor(root.clientWidth) || 640, 280);
    inst.width = width;
    const g = {
      left: MARGIN.left, top: MARGIN.top,
      w: width - MARGIN.left - MARGIN.right, h: height - MARGIN.top - MARGIN.bottom,
    };
    g.sx = (x) => g.left + (x / xMax) * g.w;
    g.sy = (y) => g.top + (1 - y) * g.h;
    inst.geom = g;
    const pts = currentPoints();
    const full = pts.length >= maxPoints;
    root.classList.toggle("full", full);
    root.classList.toggle("disabled", disabled);
    root.setAttribute("data-points", JSON.stringify(pts));

    backdrop.replaceChildren();
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", `Validity curve chart with ${pts.length} of ${maxPoints} points`);

    const defs = el("defs", {}, backdrop);
    const clip = el("clipPath", { id: clipId }, defs);
    el("rect", { x: g.left, y: g.top - 2, width: g.w, height: g.h + 4 }, clip);

    // grid and axes
    const grid = el("g", { class: "cc-grid" }, backdrop);
    const labels = el("g", {}, backdrop);
    for (const yv of Y_GRID) {
      const y = g.sy(yv);
      el("line", { x1: g.left, x2: g.left + g.w, y1: y, y2: y, class: yv === 0 ? "cc-axis" : "" }, grid);
      const t = el("text", { x: g.left - 8, y: y + 4, "text-anchor": "end", class: "cc-tick" }, labels);
      t.textContent = Math.round(yv * 100) + "%";
    }
    // Labels that would overlap their left neighbour drop to a second row ("12 h" / "1 day");
    // only when both rows are taken (very narrow charts) is a label left out.
    const lastRight = [-Infinity, -Infinity];
    const ticks = Array.isArray(d.ticks) ? d.ticks : [];
    for (const tick of ticks) {
      if (!Array.isArray(tick) || !finite(tick[0]) || tick[0] < 0 || tick[0] > xMax) continue;
      const x = g.sx(tick[0]);
      el("line", { x1: x, x2: x, y1: g.top, y2: g.top + g.h, class: tick[0] === 0 ? "cc-axis" : "" }, grid);
      const text = String(tick[1] ?? "");
      const halfW = text.length * 3.4 + 4;
      const row = x - halfW >= lastRight[0] ? 0 : (x - halfW >= lastRight[1] ? 1 : -1);
      if (row < 0) continue;
      const t = el("text", { x, y: g.top + g.h + 18 + row * 14, "text-anchor": "middle", class: "cc-tick" }, labels);
      t.textContent = text;
      lastRight[row] = x + halfW;
    }
    const yTitle = el("text", { class: "cc-title", "text-anchor": "middle",
      transform: `translate(${14} ${g.top + g.h / 2}) rotate(-90)` }, labels);
    yTitle.textContent = "validity";
    const xTitle = el("text", { class: "cc-title", "text-anchor": "middle", x: g.left + g.w / 2, y: g.top + g.h + 54 }, labels);
    xTitle.textContent = "time since publication (log scale)";

    // curves
    const pathOf = (list) => {
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
      const entries = (main.length > 1 ? [{ label: String(d.curve_label || "fitted curve"), color: null, dash: false }] : [])
        .concat(extras.map((c) => ({ label: String(c.label || ""), color: String(c.color || "#64748b"), dash: !!c.dash })));
      const lg = el("g", { class: "cc-legend" }, backdrop);
      const bg = el("rect", { class: "cc-legend-bg", rx: 6 }, lg);
      let y = g.top + 16, maxW = 0;
      const x0 = g.left + g.w - 12;
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
        r.t.setAttribute("x", x0 - maxW);
        const sw = el("line", { x1: x0 - maxW - 34, x2: x0 - maxW - 8, y1: r.y, y2: r.y, "stroke-width": 2.5 }, lg);
        if (r.en.color) sw.setAttribute("stroke", r.en.color); else sw.setAttribute("class", "cc-curve");
        if (r.en.dash) sw.setAttribute("stroke-dasharray", "7 5");
      }
      bg.setAttribute("x", x0 - maxW - 42); bg.setAttribute("y", g.top + 4);
      bg.setAttribute("width", maxW + 50); bg.setAttribute("height", rows.length * 18 + 6);
    }

    // the click target: exactly the plot area
    for (const [k, v] of Object.entries({ x: g.left, y: g.top, width: g.w, height: g.h, "data-x-max": xMax })) {
      plot.setAttribute(k, String(v));
    }
    inst.crossV.setAttribute("y1", g.top); inst.crossV.setAttribute("y2", g.top + g.h);
    inst.crossH.setAttribute("x1", g.left); inst.crossH.setAttribute("x2", g.left + g.w);

    // points, numbered: reuse circle i for point i
    const wantFocus = inst.focusIndex;  // removing a focused circle may fire focusout
    while (pointLayer.children.length > 2 * pts.length) pointLayer.lastChild.remove();
    inst.focusIndex = wantFocus;
    pts.forEach((p, i) => {
      let c = pointLayer.children[2 * i];
      let num = pointLayer.children[2 * i + 1];
      if (!c) {
        c = el("circle", { r: 8, class: "cc-point", "data-point": i }, pointLayer);
        num = el("text", { dy: "0.35em", "text-anchor": "middle", class: "cc-num", "data-point-label": i }, pointLayer);
        num.textContent = String(i + 1);
      }
      c.setAttribute("cx", g.sx(p[0])); c.setAttribute("cy", g.sy(p[1]));
      num.setAttribute("x", g.sx(p[0])); num.setAttribute("y", g.sy(p[1]));
      if (disabled) {
        for (const a of ["tabindex", "role", "aria-label"]) c.removeAttribute(a);
      } else {
        c.setAttribute("tabindex", "0");
        c.setAttribute("role", "button");
        c.setAttribute("aria-label", `Point ${i + 1}: ${Math.round(p[1] * 100)}% validity. Arrow keys move it, Delete removes it.`);
      }
    });
    // the focused point was the last one and was removed: focus the new last one
    if (inst.focusIndex !== null && !disabled) {
      const active = root.getRootNode().activeElement;
      if (!active || pointIndex(active) === null) {
        const last = pts.length ? pointLayer.children[2 * Math.min(inst.focusIndex, pts.length - 1)] : null;
        if (last) last.focus({ preventScroll: true }); else inst.focusIndex = null;
      }
    }

    // hint line
    hint.classList.toggle("full", full && !disabled);
    if (disabled) hint.textContent = "";
    else if (full) hint.textContent = `${maxPoints} points placed \u2014 drag or double-click a point to change it`;
    else hint.textContent = `Click to place a point (${pts.length} of ${maxPoints}) \u00b7 drag to move \u00b7 double-click to remove \u00b7 arrow keys nudge`;
  };

  inst.destroy = () => {
    for (const [name, fn] of [["pointerdown", onPointerDown], ["pointermove", onPointerMove],
      ["pointerup", onPointerUp], ["pointercancel", onPointerCancel], ["pointerleave", onPointerLeave],
      ["dblclick", onDblClick], ["contextmenu", onContextMenu], ["keydown", onKeyDown],
      ["focusin", onFocusIn], ["focusout", onFocusOut]]) svg.removeEventListener(name, fn);
    resize.disconnect();
    inst.queue.dispose();
    root.remove();
  };
  return inst;
}

export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  let inst = INSTANCES.get(parentElement);
  if (!inst) {
    inst = createInstance(parentElement);
    INSTANCES.set(parentElement, inst);
  }
  // Called again (same parentElement, previous cleanup not run) whenever `data` changes.
  inst.queue.send = setTriggerValue;
  inst.data = data && typeof data === "object" ? data : {};
  inst.queue.acknowledge(inst.data.ack);
  inst.render();
  return instanceCleanup(inst, ++inst.generation, parentElement, INSTANCES);
}
"""
)

_COMPONENT = st.components.v2.component(
    "chronocept_curve_canvas", css=_CSS, js=_JS, isolate_styles=True
)


def _finite_pairs(values: Sequence[Sequence[float]] | None) -> list[list[float]]:
    """``[[x, y], ...]`` of the finite pairs in ``values`` (JSON cannot carry NaN)."""
    pairs: list[list[float]] = []
    for value in values or []:
        try:
            x, y = float(value[0]), float(value[1])
        except (TypeError, ValueError, IndexError):
            continue
        if math.isfinite(x) and math.isfinite(y):
            pairs.append([x, y])
    return pairs


def _thinned(pairs: list[list[float]]) -> list[list[float]]:
    if len(pairs) <= MAX_CURVE_VERTICES:
        return pairs
    step = (len(pairs) - 1) / (MAX_CURVE_VERTICES - 1)
    return [pairs[round(i * step)] for i in range(MAX_CURVE_VERTICES)]


def _parse_event(action: dict[str, Any]) -> dict[str, Any] | None:
    """The public event dict (no protocol id), or None for something the chart never sends."""
    kind = action.get("action")
    if kind not in ACTIONS:
        return None
    event: dict[str, Any] = {"action": kind}
    for name in ("index", "x", "y"):
        if name in action:
            event[name] = action[name]
    return event


def curve_canvas(
    points: list[tuple[float, float]],
    *,
    curve: list[tuple[float, float]] | None = None,
    extra_curves: list[dict] | None = None,
    ticks: list[tuple[float, str]],
    x_max: float = 200.0,
    max_points: int = 5,
    key: str,
    height: int = 380,
    disabled: bool = False,
    curve_label: str = "fitted curve",
    on_change: Callable[[dict[str, Any]], None] | None = None,
) -> dict | None:
    """Draw the validity chart with the annotation points and report the annotator's edits.

    Parameters
    ----------
    points
        The annotation points ``(x, y)``, in the order the page keeps them (indices in events
        refer to this order).
    curve
        The fitted proportional curve as dense ``(x, y)`` vertices, drawn as a line (optional).
    extra_curves
        More curves for comparison: ``{"points": [(x, y), ...], "color": "#hex", "label": str,
        "dash": bool}``; a legend appears when there are any.
    ticks
        ``(x, label)`` pairs for the time axis, e.g. ``(0, "1 min"), (42.96, "1 h")``.
    x_max, max_points
        The x range ``[0, x_max]`` and how many points may be placed.
    key
        Streamlit key of this instance (required).
    height
        Chart height in pixels (the width follows the container).
    disabled
        Read-only: no point can be added, moved or removed.
    curve_label
        Legend label of ``curve`` (shown only when there are ``extra_curves``).
    on_change
        Optional ``callback(event)``, run once per edit *before* the script body; when given,
        the function returns None.

    Returns
    -------
    dict | None
        One edit, once: ``{"action": "add", "x", "y"}``, ``{"action": "move", "index", "x",
        "y"}`` or ``{"action": "remove", "index"}`` (see the module docstring) when no
        ``on_change`` is given; None otherwise. Apply it with
        :func:`annotation.curve_points.apply_point_event` and ``st.rerun()``.
    """
    extras = []
    for extra in extra_curves or []:
        extras.append(
            {
                "points": _thinned(_finite_pairs(extra.get("points"))),
                "color": css_color(extra.get("color"), "#64748b"),
                "label": str(extra.get("label") or ""),
                "dash": bool(extra.get("dash", False)),
            }
        )
    data = {
        "points": _finite_pairs(points),
        "curve": _thinned(_finite_pairs(curve)),
        "extra_curves": extras,
        "ticks": [[float(x), str(label)] for x, label in ticks if math.isfinite(float(x))],
        "x_max": float(x_max),
        "max_points": int(max_points),
        "height": int(height),
        "disabled": bool(disabled),
        "curve_label": str(curve_label),
        "ack": acknowledged_ids(key),
    }
    result = _COMPONENT(
        key=key,
        data=data,
        on_events_change=make_callback(key, _parse_event, on_change),
    )
    if on_change is not None or disabled:
        return None
    return first_new_action(key, result.get(TRIGGER), _parse_event)
