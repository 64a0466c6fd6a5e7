// @ts-check
/* The points of a validity chart that a pointer places, drags and removes and the keys move,
   shared by the curve canvas and the annotation surface (put in front of each component's
   module at import, after curve_points.js and dom_helpers.js; see ui/components/sources.py).

   The chart gives its SVG, its plot rectangle, its crosshair and callbacks (attachPointEditing):
   a click on the plot adds a point, a press on a point and a move of at least DRAG_START_PX drags
   it (drawn as it goes, sent once on the release; a cancel sends nothing), a double-click, a
   right-click or Delete removes it, the arrow keys nudge it. The arithmetic (when a press
   becomes a drag, where a key moves a point) is pure and unit-tested with `node --test`
   (tests/js/point_drag.test.js). */

/**
 * Where the chart draws: the plot's box in pixels and the scales from data to pixels.
 * @typedef {{ left: number, top: number, w: number, h: number, sx: (x: number) => number,
 *   sy: (y: number) => number }} ChartGeometry
 */
/**
 * The crosshair's elements: the group, its vertical and horizontal lines, the label's box and
 * text (an SVG text element: its width is measured when the browser can).
 * @typedef {{ cross: Element, crossV: Element, crossH: Element, crossBox: Element,
 *   crossText: Element & { getComputedTextLength?: () => number } }} CrosshairParts
 */
/**
 * An edit of the points, as a chart makes it (the host adds what its protocol needs).
 * @typedef {{ action: "add", x: number, y: number } | { action: "move", index: number, x: number, y: number }
 *   | { action: "remove", index: number }} PointEdit
 */

/** A press on a point becomes a drag once the pointer has moved this far (px). */
const DRAG_START_PX = 3;
/** How far an arrow key moves a point: x-units and validity, and with Shift. */
const NUDGE = { x: 1, y: 0.02, xShift: 5, yShift: 0.1 };

/**
 * Whether a press at (x0, y0), the pointer now at (x, y), has become a drag.
 * @param {number} x0
 * @param {number} y0
 * @param {number} x
 * @param {number} y
 * @returns {boolean}
 */
function dragStarted(x0, y0, x, y) {
  return Math.hypot(x - x0, y - y0) >= DRAG_START_PX;
}

/**
 * The edit a key makes on point `index` of `points`: an arrow moves it (NUDGE; kept on the
 * chart, 0 … xMax and 0 … 1, and rounded as the server rounds), Delete or Backspace removes it;
 * null for any other key or a point that is not there.
 * @param {ReadonlyArray<ReadonlyArray<number>>} points
 * @param {number} index
 * @param {string} key
 * @param {boolean} shift
 * @param {number} xMax
 * @returns {PointEdit | null}
 */
function pointKeyEdit(points, index, key, shift, xMax) {
  if (index < 0 || index >= points.length) return null;
  if (key === "Delete" || key === "Backspace") return { action: "remove", index };
  let [x, y] = points[index];
  const dx = shift ? NUDGE.xShift : NUDGE.x, dy = shift ? NUDGE.yShift : NUDGE.y;
  if (key === "ArrowLeft") x -= dx;
  else if (key === "ArrowRight") x += dx;
  else if (key === "ArrowUp") y += dy;
  else if (key === "ArrowDown") y -= dy;
  else return null;
  return { action: "move", index, x: round2(clamp(x, 0, xMax)), y: round2(clamp(y, 0, 1)) };
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
  const c = closestFrom(target, "[data-point]");
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

/**
 * A crosshair group with its lines, box and text, appended to `svg`.
 * @param {SVGSVGElement} svg
 * @param {string} cls the group's class
 * @returns {CrosshairParts & { cross: SVGGElement }}
 */
function makeCrosshair(svg, cls) {
  const cross = el("g", { class: cls, visibility: "hidden", "pointer-events": "none" }, svg);
  return { cross, crossV: el("line", {}, cross), crossH: el("line", {}, cross),
    crossBox: el("rect", { rx: 5 }, cross), crossText: el("text", {}, cross) };
}

/**
 * Lay the plot rectangle (the click target) exactly over the plot area of `g` and the
 * crosshair's lines across it.
 * @param {Element} plot
 * @param {CrosshairParts} parts
 * @param {ChartGeometry} g
 * @param {number} xMax
 */
function placePlot(plot, parts, g, xMax) {
  for (const [k, v] of Object.entries({ x: g.left, y: g.top, width: g.w, height: g.h, "data-x-max": xMax })) {
    plot.setAttribute(k, String(v));
  }
  parts.crossV.setAttribute("y1", String(g.top)); parts.crossV.setAttribute("y2", String(g.top + g.h));
  parts.crossH.setAttribute("x1", String(g.left)); parts.crossH.setAttribute("x2", String(g.left + g.w));
}

/**
 * What a chart gives attachPointEditing.
 * @typedef {object} PointEditingHost
 * @property {SVGSVGElement} svg
 * @property {SVGRectElement} plot the plot area: a click on it adds a point
 * @property {CrosshairParts} cross
 * @property {() => ChartGeometry | null} geometry as drawn last
 * @property {() => number} xMax
 * @property {() => ReadonlyArray<ReadonlyArray<number>>} points the points drawn now
 * @property {() => number} maxPoints
 * @property {() => boolean} locked no point may be added, moved or removed now
 * @property {boolean} [crossWhileLocked] the crosshair follows the pointer on a locked chart too
 * @property {() => void} onFull a click on a chart that has all its points
 * @property {(edit: PointEdit) => void} edit make the edit (send it and draw it)
 * @property {() => void} redraw draw the chart again (a drag that sent nothing, a render held)
 */
/**
 * The point editing of one chart.
 * @typedef {object} PointEditing
 * @property {number | null} focusIndex the point to keep focused across redraws
 * @property {() => boolean} holdRender whether a render must wait: a drag is on (the chart is
 *   drawn once it ends)
 * @property {(layer: Element, pts: ReadonlyArray<ReadonlyArray<number>>, g: ChartGeometry,
 *   disabled: boolean, prefix: string) => void} drawPoints the numbered circles of `pts` in
 *   `layer` (circle i reused for point i; classes `prefix`-point and `prefix`-num), and the
 *   focus kept on the point it was on
 * @property {() => void} detach remove the listeners
 */

/**
 * Listen to `host.svg` for the pointer and the keys on the chart's points.
 * @param {PointEditingHost} host
 * @returns {PointEditing}
 */
function attachPointEditing(host) {
  const { svg, plot } = host;
  /** @type {{ index: number, pointerId: number, x0: number, y0: number, moved: boolean, circle: SVGElement, pos: [number, number] | null } | null} */
  let drag = null;
  let held = false;  // a render came during the drag
  /** @type {(target: EventTarget | null) => number | null} */
  const pointIndex = (target) => pointIndexIn(svg, target);
  /** @type {(clientX: number, clientY: number) => [number, number]} */
  const toData = (clientX, clientY) => plotPosition(plot, host.xMax(), clientX, clientY);
  const activeElement = () => /** @type {Document | ShadowRoot} */ (svg.getRootNode()).activeElement;
  const hideCross = () => host.cross.cross.setAttribute("visibility", "hidden");

  /** @type {PointEditing} */
  const editing = {
    focusIndex: null,
    holdRender() { if (drag) held = true; return !!drag; },
    drawPoints(layer, pts, g, disabled, prefix) {
      const want = editing.focusIndex;  // removing a focused circle may fire focusout
      while (layer.children.length > 2 * pts.length) layer.lastChild.remove();
      editing.focusIndex = want;
      pts.forEach((p, i) => {
        let circle = layer.children[2 * i], num = layer.children[2 * i + 1];
        if (!circle) {
          circle = el("circle", { r: 8, class: `${prefix}-point`, "data-point": i }, layer);
          num = el("text", { dy: "0.35em", "text-anchor": "middle", class: `${prefix}-num`, "data-point-label": i }, layer);
          num.textContent = String(i + 1);
        }
        circle.setAttribute("cx", String(g.sx(p[0]))); circle.setAttribute("cy", String(g.sy(p[1])));
        num.setAttribute("x", String(g.sx(p[0]))); num.setAttribute("y", String(g.sy(p[1])));
        if (disabled) for (const a of ["tabindex", "role", "aria-label"]) circle.removeAttribute(a);
        else {
          circle.setAttribute("tabindex", "0"); circle.setAttribute("role", "button");
          circle.setAttribute("aria-label", `Point ${i + 1}: ${Math.round(p[1] * 100)}% validity. Arrow keys move it, Delete removes it.`);
        }
      });
      // the focused point was the last one and was removed: focus the new last one
      if (editing.focusIndex !== null && !disabled) {
        const active = activeElement();
        if (!active || pointIndex(active) === null) {
          const target = pts.length ? /** @type {SVGElement} */ (layer.children[2 * Math.min(editing.focusIndex, pts.length - 1)]) : null;
          if (target) target.focus({ preventScroll: true }); else editing.focusIndex = null;
        }
      }
    },
    detach() {
      plot.removeEventListener("click", onPlotClick);
      for (const [name, fn] of listeners) svg.removeEventListener(name, fn);
    },
  };

  /**
   * @param {number} i
   * @param {boolean} [keepFocus] the point that takes its place is focused (Delete on a focused point)
   */
  function remove(i, keepFocus) {
    if (host.locked()) return;
    editing.focusIndex = keepFocus ? i : null;
    host.edit({ action: "remove", index: i });
  }
  /** @param {MouseEvent} e */
  function onPlotClick(e) {
    if (host.locked() || e.button !== 0 || e.detail > 1) return;  // the 2nd click of a double-click
    if (host.points().length >= host.maxPoints()) { host.onFull(); return; }
    const [x, y] = toData(e.clientX, e.clientY);
    host.edit({ action: "add", x, y });
  }
  /** @param {PointerEvent} e */
  function onPointerDown(e) {
    const i = pointIndex(e.target);
    if (i === null && e.target === plot) {
      e.preventDefault();  // no focus ring on the chart, no text selection; the click still fires
      const active = activeElement();
      if (active && pointIndex(active) !== null) /** @type {SVGElement} */ (active).blur();
      return;
    }
    if (i === null || host.locked() || e.button !== 0) return;
    e.preventDefault();
    const circle = /** @type {SVGElement} */ (/** @type {Element} */ (e.target).closest("[data-point]"));
    circle.focus({ preventScroll: true });
    try { circle.setPointerCapture(e.pointerId); } catch (_) { /* synthetic events */ }
    drag = { index: i, pointerId: e.pointerId, x0: e.clientX, y0: e.clientY, moved: false, circle, pos: null };
  }
  /** @param {PointerEvent} e */
  function onPointerMove(e) {
    if (drag && e.pointerId === drag.pointerId) {
      if (!drag.moved && !dragStarted(drag.x0, drag.y0, e.clientX, e.clientY)) return;
      drag.moved = true;
      drag.circle.classList.add("dragging");
      drag.pos = toData(e.clientX, e.clientY);
      placePointAt(svg, host.geometry(), drag.index, drag.pos);
      showCrosshair(host.cross, host.geometry(), drag.pos);
      return;
    }
    if (e.target === plot && (host.crossWhileLocked || !host.locked())) showCrosshair(host.cross, host.geometry(), toData(e.clientX, e.clientY));
  }
  /**
   * @param {PointerEvent} e
   * @param {boolean} commit the drag ended on a release (not a cancel): send the move
   */
  function endDrag(e, commit) {
    const d = drag;
    if (!d || e.pointerId !== d.pointerId) return;
    drag = null;
    try { d.circle.releasePointerCapture(e.pointerId); } catch (_) { /* already released */ }
    d.circle.classList.remove("dragging");
    hideCross();
    const wasHeld = held;
    held = false;
    if (commit && d.moved && d.pos) {
      editing.focusIndex = d.index;
      host.edit({ action: "move", index: d.index, x: d.pos[0], y: d.pos[1] });
    } else if (wasHeld || d.moved) host.redraw();
  }
  /** @param {KeyboardEvent} e */
  function onKeyDown(e) {
    const i = pointIndex(e.target);
    if (i === null || host.locked() || e.altKey || e.ctrlKey || e.metaKey) return;
    const edit = pointKeyEdit(host.points(), i, e.key, e.shiftKey, host.xMax());
    if (!edit) return;
    e.preventDefault(); e.stopPropagation();
    if (edit.action === "remove") { remove(i, true); return; }
    editing.focusIndex = i;
    host.edit(edit);
  }
  /** @param {MouseEvent} e */
  function onRemoveClick(e) {
    const i = pointIndex(e.target);
    if (i !== null) { e.preventDefault(); remove(i); }
  }
  /** @type {[string, EventListener][]} */
  const listeners = [
    ["pointerdown", onPointerDown], ["pointermove", onPointerMove],
    ["pointerup", (/** @type {PointerEvent} */ e) => endDrag(e, true)],
    ["pointercancel", (/** @type {PointerEvent} */ e) => endDrag(e, false)],
    ["pointerleave", () => { if (!drag) hideCross(); }],
    ["dblclick", onRemoveClick], ["contextmenu", onRemoveClick], ["keydown", onKeyDown],
    ["focusin", (/** @type {FocusEvent} */ e) => { const i = pointIndex(e.target); if (i !== null) editing.focusIndex = i; }],
    ["focusout", (/** @type {FocusEvent} */ e) => { if (!e.relatedTarget || pointIndex(e.relatedTarget) === null) editing.focusIndex = null; }],
  ];
  plot.addEventListener("click", onPlotClick);
  for (const [name, fn] of listeners) svg.addEventListener(name, fn);
  return editing;
}
