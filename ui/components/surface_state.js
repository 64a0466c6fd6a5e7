// @ts-check
/* The annotation surface's local state: what the surface draws before the server answers.

   Pure (no DOM, no timers); put in front of the surface's module at import, after
   curve_points.js whose point rules it uses (see ui/components/sources.py), and unit-tested with
   `node --test` (tests/js/surface_state.test.js). tests/unit/test_surface_state_crosscheck.py
   replays the same random event sequences here and through the server's replay
   (annotation.workbench.event_log) and requires the same segmentation, axes, points, step,
   flags and note.

   The surface applies each edit to its local state at once (applySurfaceEvent) and, on every
   new view, starts again from what is stored (view.content, view.step) and re-applies the edits
   still on their way (replaySurfaceEvents). The rules are annotation.workbench.editing's, as
   annotation.workbench.event_log applies them. */

/**
 * A point of the validity chart: [x in base-1.1 log minutes, relative validity in 0 … 1].
 * @typedef {[number, number]} SurfacePoint
 */

/**
 * The annotation content as the surface draws it: AnnotationContent.to_json(), read
 * defensively (readSurfaceContent).
 * @typedef {object} SurfaceContent
 * @property {number[]} boundaries the first token of each segment, ascending, 0 first
 * @property {(string | null)[]} segment_axes one axis name (or null) per segment
 * @property {SurfacePoint[]} points in insertion order (an event names a point by its index)
 * @property {number | null} xi
 * @property {number | null} omega
 * @property {number | null} alpha
 * @property {number | null} rmse
 * @property {"fit" | "manual"} params_source
 * @property {string[]} flags flag codes
 * @property {string} note
 */

/**
 * What the surface draws: the content and the step shown.
 * @typedef {{ content: SurfaceContent, step: number }} SurfaceLocal
 */

/**
 * An edit as the reducer reads it: a `kind` and that kind's fields, unchecked (the reducer
 * checks them, as the server does; an edit it cannot apply changes nothing).
 * @typedef {{ kind: string, [field: string]: unknown }} SurfaceEditData
 */

/**
 * What the reducer needs to know about the sample.
 * @typedef {object} SurfaceRules
 * @property {number} n the number of tokens
 * @property {number} xMax the chart's x range is 0 … xMax
 * @property {number} maxPoints at most this many points
 */

/**
 * `v` when it is a whole number, else `fallback`.
 * @param {unknown} v
 * @param {number} fallback
 * @returns {number}
 */
function wholeOr(v, fallback) {
  return typeof v === "number" && Number.isInteger(v) ? v : fallback;
}

/**
 * `raw` (a view's `content`) as a SurfaceContent: missing or malformed fields get their
 * empty value, the axes are padded or cut to one per segment, malformed points are dropped.
 * @param {unknown} raw
 * @returns {SurfaceContent}
 */
function readSurfaceContent(raw) {
  const c = /** @type {Record<string, unknown>} */ (raw && typeof raw === "object" ? raw : {});
  const boundaries = Array.isArray(c.boundaries) && c.boundaries.length ? c.boundaries.map(Number) : [0];
  /** @type {(string | null)[]} */
  let axes = Array.isArray(c.segment_axes) ? c.segment_axes.map((a) => (a ? String(a) : null)) : [];
  while (axes.length < boundaries.length) axes.push(null);
  axes = axes.slice(0, boundaries.length);
  /** @type {SurfacePoint[]} */
  const points = Array.isArray(c.points)
    ? c.points.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])).map((p) => [p[0], p[1]]) : [];
  /** @param {unknown} v */
  const num = (v) => (finite(v) ? v : null);
  return {
    boundaries, segment_axes: axes, points,
    xi: num(c.xi), omega: num(c.omega), alpha: num(c.alpha), rmse: num(c.rmse),
    params_source: c.params_source === "manual" ? "manual" : "fit",
    flags: Array.isArray(c.flags) ? c.flags.map(String) : [],
    note: typeof c.note === "string" ? c.note : "",
  };
}

/**
 * The index of the segment that holds `token`, for segments starting at `starts` (ascending).
 * @param {ReadonlyArray<number>} starts
 * @param {number} token
 * @returns {number}
 */
function segmentOfToken(starts, token) {
  let j = 0;
  for (let k = 0; k < starts.length; k++) if (starts[k] <= token) j = k;
  return j;
}

/**
 * The content after toggling the segment start before token `gap` of an `n`-token text
 * (annotation.workbench.editing.toggle_boundary): a new segment takes the axis of the segment
 * it splits; a removed start merges its segment into the one before, which keeps its axis.
 * A gap outside 1 … n−1 changes nothing.
 * @param {SurfaceContent} c
 * @param {number} n
 * @param {unknown} gap
 * @returns {SurfaceContent}
 */
function toggleSurfaceBoundary(c, n, gap) {
  if (typeof gap !== "number" || !Number.isInteger(gap) || gap < 1 || gap >= n) return c;
  const set = new Set(c.boundaries);
  if (set.has(gap)) set.delete(gap); else set.add(gap);
  const starts = [...set].sort((a, b) => a - b);
  const axes = starts.map((st) => c.segment_axes[segmentOfToken(c.boundaries, st)] ?? null);
  return { ...c, boundaries: starts, segment_axes: axes };
}

/**
 * The local state after one edit, as a new object (`state` is not changed).
 * @param {SurfaceLocal} state
 * @param {SurfaceEditData} ev
 * @param {SurfaceRules} rules
 * @returns {SurfaceLocal}
 */
function applySurfaceEvent(state, ev, rules) {
  const c = state.content;
  switch (ev.kind) {
    case "boundary": return { ...state, content: toggleSurfaceBoundary(c, rules.n, ev.gap) };
    case "reset_segments": return { ...state, content: { ...c, boundaries: [0], segment_axes: [null] } };
    case "axis": {
      const segment = ev.segment;
      if (typeof segment !== "number" || !Number.isInteger(segment) || segment < 0 || segment >= c.segment_axes.length) return state;
      const axes = c.segment_axes.slice();
      axes[segment] = /** @type {string | null} */ (ev.axis || null);
      return { ...state, content: { ...c, segment_axes: axes } };
    }
    case "point": return { ...state, content: { ...c, points: applyPointAction(c.points, ev, rules.xMax, rules.maxPoints) } };
    case "params": {
      const { xi, omega, alpha } = /** @type {{ xi: number, omega: number, alpha: number }} */ (/** @type {unknown} */ (ev));
      return { ...state, content: { ...c, xi, omega, alpha, params_source: "manual" } };
    }
    case "refit": return { ...state, content: { ...c, params_source: "fit" } };
    case "step": return { ...state, step: clamp(wholeOr(ev.step, state.step), 0, 2) };
    case "flag": {
      const flags = /** @type {string[]} */ (ev.flags || []).slice();
      return { ...state, content: { ...c, flags, note: String(ev.note || "").trim() } };
    }
    default: return state;  // place: the server places the points; submit: nothing to draw
  }
}

/**
 * What the surface draws for a view: the stored `content` and `step` with the edits still on
 * their way (`pending`, oldest first) applied on top.
 * @param {unknown} content the view's content (AnnotationContent.to_json())
 * @param {unknown} step the view's step
 * @param {ReadonlyArray<SurfaceEditData>} pending
 * @param {SurfaceRules} rules
 * @returns {SurfaceLocal}
 */
function replaySurfaceEvents(content, step, pending, rules) {
  /** @type {SurfaceLocal} */
  let state = { content: readSurfaceContent(content), step: clamp(wholeOr(step, 0), 0, 2) };
  for (const ev of pending) state = applySurfaceEvent(state, ev, rules);
  return state;
}
