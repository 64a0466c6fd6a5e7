// @ts-check
/* The annotation surface's view as the browser reads it: the types of what Python sends
   (ui/workbench_view.build_view; the field list is in annotation_surface.py's docstring and
   CONTRACT.md) and of the annotation content, and the two readers that take them defensively
   (surfaceRulesOf: the names and limits the surface edits with, every one of them Python's;
   readSurfaceContent: the stored content). Pure (no DOM, no timers); put in front of the
   surface's module at import before surface_state.js, whose reducer works on them (see
   ui/components/sources.py), and unit-tested with it (tests/js/surface_state.test.js). */

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
 * @property {SurfacePoint[]} context_points a pair's second curve (the target given the follow-up)
 * @property {number | null} context_xi
 * @property {number | null} context_omega
 * @property {number | null} context_alpha
 * @property {number | null} context_rmse
 * @property {"fit" | "manual"} context_params_source
 * @property {string} change the annotator's choice of the change ("": none yet, "derived", or a label)
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
 * An axis to choose from (view.axes, in order; `digit` is the key that chooses it).
 * @typedef {{ name: string, label: string, color: string, key_question: string, digit: string }} SurfaceAxis
 */
/**
 * A reason to flag a sample (view.flags, in the canonical order).
 * @typedef {{ code: string, label: string, needs_note: boolean }} SurfaceFlagReason
 */
/**
 * A curve parameter the annotator may tune by hand, with the fit's bounds (view.parameters).
 * @typedef {{ name: string, symbol: string, min: number, max: number }} SurfaceParameter
 */
/**
 * A unit a duration is entered in (view.time_units, smallest first).
 * @typedef {{ name: string, minutes: number }} SurfaceTimeUnit
 */
/**
 * A message to show; its text is always set with textContent.
 * @typedef {{ level: "error" | "warning" | "info" | "success", text: string }} SurfaceNotice
 */
/**
 * The chart's side panel as the server computed it (ui/workbench_view.fit_panel).
 * @typedef {object} SurfaceFit
 * @property {string | null} message
 * @property {string[]} summary
 * @property {{ xi: number, omega: number, alpha: number, rmse: number | null, source: string } | null} params
 * @property {number[] | null} residuals
 */

/**
 * What Python sends (ui/workbench_view.build_view; the field list is in annotation_surface.py's
 * docstring and CONTRACT.md).
 * @typedef {object} SurfaceView
 * @property {number} annotation_id
 * @property {string} client
 * @property {number} version
 * @property {number} acked the largest seq the server has applied (or refused) for this client
 * @property {number} step
 * @property {"steps" | "single"} layout
 * @property {boolean} confirm_submit
 * @property {boolean} read_only
 * @property {"conflict" | "submitted" | null} [read_only_reason]
 * @property {boolean} quota_reached
 * @property {string[]} tokens
 * @property {boolean[]} spaces `spaces[i]`: a space follows token i
 * @property {unknown} content AnnotationContent.to_json() as stored (read with readSurfaceContent)
 * @property {string[]} steps the steps' names
 * @property {SurfaceAxis[]} axes
 * @property {SurfaceFlagReason[]} flags
 * @property {[number, number][]} curve the stored curve as drawn ([] when none)
 * @property {[number, string][]} ticks
 * @property {number} x_max
 * @property {number} max_points
 * @property {number} min_points
 * @property {SurfaceParameter[]} parameters
 * @property {SurfaceTimeUnit[]} time_units
 * @property {number} note_max_chars
 * @property {SurfaceFit} fit
 * @property {string | null} [hand_tuned_misses]
 * @property {{ lines: string[], left_after: [string, string][] } | null} feedback
 * @property {string[]} problems why the stored content cannot be submitted ([] when it can)
 * @property {SurfaceNotice[]} notices
 * @property {Record<string, unknown>} sample
 * @property {number} [first_step] the first step an annotator may go to (0 when absent)
 * @property {boolean} [segmented] whether the text is segmented (true when absent)
 * @property {boolean} [pair] whether the sample is a context pair
 * @property {number | null} [context_step] a pair's step of its second curve
 * @property {string} [change_confirm] the choice that confirms the derived label
 * @property {string[]} [change_options] the choices of the change ("derived" first, then the labels)
 * @property {SurfacePair | null} [pair_panel] a pair's follow-up and change (null for a single text)
 * @property {[number, number][]} [context_curve] a pair's second curve as drawn
 * @property {SurfaceFit} [context_fit] the side panel of a pair's second curve
 * @property {{ lines: string[], left_after: [string, string][] } | null} [context_feedback]
 * @property {Record<string, number>} [part_steps] the step that shows each part ("segments",
 *   "axes", "curve")
 * @property {string[]} [curve_edits] the kinds that edit a curve
 * @property {string[][]} [context_fields] a pair's second curve's fields beside the first's, as
 *   [first, second] pairs
 * @property {{ peak: string, half_gone: string }} [duration_defaults] the units the durations
 *   are offered in first
 * @property {string[]} [notice_levels] the levels a notice may have
 */

/**
 * A pair's reading of its two curves (ui/pair_view.change_reading).
 * @typedef {object} SurfaceChangeReading
 * @property {string} label the derived change label
 * @property {string} words the change in the annotator's words
 * @property {number | null} factor
 * @property {{ index: number, name: string }} alone_class the target's TVCP duration class alone
 * @property {{ index: number, name: string }} given_class and given the follow-up
 */
/**
 * What a pair's view carries beyond a single text (ui/pair_view.pair_panel).
 * @typedef {object} SurfacePair
 * @property {string} follow_up the follow-up statement (plain text)
 * @property {string[]} labels the change labels
 * @property {string} threshold the project's time factor, as "×1.5"
 * @property {string} change the stored choice ("": none yet, "derived", or a label)
 * @property {SurfaceChangeReading | null} reading
 */

/**
 * What the reducer and the surface's checks need to know, read from the view
 * (surfaceRulesOf): every number and name comes from Python.
 * @typedef {object} SurfaceRules
 * @property {number} n the number of tokens
 * @property {number} xMax the chart's x range is 0 … xMax
 * @property {number} maxPoints at most this many points
 * @property {number} minPoints at least this many points for a curve
 * @property {string[]} steps the steps' names (a step is a number 0 … steps.length − 1)
 * @property {string[]} axisNames
 * @property {string[]} flagCodes in the canonical order
 * @property {SurfaceParameter[]} parameters
 * @property {SurfaceTimeUnit[]} timeUnits
 * @property {number} noteMaxChars the note's longest length (0: not known)
 * @property {number} firstStep the first step an annotator may go to (a pair that is not
 *   segmented starts at its curve)
 * @property {boolean} segmented whether the text is segmented and labelled with axes
 * @property {boolean} pair whether the sample is a context pair (a second curve, a change)
 * @property {number} contextStep the step of a pair's second curve (-1: none)
 * @property {string} changeConfirm the choice that confirms the label the curves give ("derived")
 * @property {string[]} changeOptions the choices an annotator makes (keys 0…: "derived" first, then the labels)
 * @property {string[]} curveEdits the kinds that edit a curve (a pair's second curve when they
 *   carry `curve: "context"`)
 * @property {[string, string][]} contextFields a pair's second curve's fields, each beside the
 *   first curve's field it stands for (annotation.workbench.protocol.CONTEXT_FIELDS)
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
 * The rules a view carries (ui/workbench_view.surface_rules), read defensively: a missing or
 * malformed field reads as "none" (no steps, no axes, no points), never as a copy of Python's
 * value.
 * @param {Partial<SurfaceView> | null | undefined} view
 * @returns {SurfaceRules}
 */
function surfaceRulesOf(view) {
  const v = view || {};
  /** @type {(list: unknown) => Record<string, unknown>[]} */
  const records = (list) => (Array.isArray(list) ? list.filter((x) => x && typeof x === "object") : []);
  /** @type {(v: unknown) => number} */
  const count = (v) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : 0);
  /** @type {(list: unknown) => string[]} */
  const strings = (list) => (Array.isArray(list) ? list.filter((x) => typeof x === "string").map(String) : []);
  return {
    n: Array.isArray(v.tokens) ? v.tokens.length : 0,
    // any positive width keeps the chart's arithmetic finite: a view always carries x_max
    xMax: finite(v.x_max) && v.x_max > 0 ? v.x_max : 1,
    maxPoints: count(v.max_points),
    minPoints: count(v.min_points),
    steps: Array.isArray(v.steps) ? v.steps.map(String) : [],
    axisNames: records(v.axes).filter((a) => typeof a.name === "string").map((a) => String(a.name)),
    flagCodes: records(v.flags).filter((f) => typeof f.code === "string").map((f) => String(f.code)),
    parameters: records(v.parameters).filter((p) => typeof p.name === "string" && finite(p.min) && finite(p.max))
      .map((p) => ({ name: String(p.name), symbol: String(p.symbol || p.name), min: Number(p.min), max: Number(p.max) })),
    timeUnits: records(v.time_units).filter((u) => typeof u.name === "string" && finite(u.minutes) && u.minutes > 0)
      .map((u) => ({ name: String(u.name), minutes: Number(u.minutes) })),
    noteMaxChars: count(v.note_max_chars),
    firstStep: typeof v.first_step === "number" && Number.isInteger(v.first_step) && v.first_step > 0 ? v.first_step : 0,
    segmented: v.segmented !== false,
    pair: v.pair === true,
    contextStep: v.pair === true && typeof v.context_step === "number" && Number.isInteger(v.context_step) ? v.context_step : -1,
    changeConfirm: typeof v.change_confirm === "string" ? v.change_confirm : "",
    changeOptions: strings(v.change_options),
    curveEdits: strings(v.curve_edits),
    contextFields: (Array.isArray(v.context_fields) ? v.context_fields : [])
      .filter((f) => Array.isArray(f) && f.length === 2 && typeof f[0] === "string" && typeof f[1] === "string")
      .map((f) => /** @type {[string, string]} */ ([f[0], f[1]])),
  };
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
  /** @type {(list: unknown) => SurfacePoint[]} */
  const pointsOf = (list) => (Array.isArray(list)
    ? list.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])).map((p) => [p[0], p[1]]) : []);
  /** @param {unknown} v */
  const num = (v) => (finite(v) ? v : null);
  return {
    boundaries, segment_axes: axes, points: pointsOf(c.points),
    xi: num(c.xi), omega: num(c.omega), alpha: num(c.alpha), rmse: num(c.rmse),
    params_source: c.params_source === "manual" ? "manual" : "fit",
    flags: Array.isArray(c.flags) ? c.flags.map(String) : [],
    note: typeof c.note === "string" ? c.note : "",
    context_points: pointsOf(c.context_points),
    context_xi: num(c.context_xi), context_omega: num(c.context_omega), context_alpha: num(c.context_alpha),
    context_rmse: num(c.context_rmse),
    context_params_source: c.context_params_source === "manual" ? "manual" : "fit",
    change: typeof c.change === "string" ? c.change : "",
  };
}
