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
   annotation.workbench.event_log applies them; every name and limit they need comes with the
   view (surfaceRulesOf: ui/workbench_view.surface_rules). While edits are pending, what stops
   a plain submit is worked out here too (unflaggedSubmitProblems, protocol.submission_problems'
   rules and words).

   A context pair (rules.pair) has a second curve, the target's curve given the follow-up: a
   curve edit carrying `curve: "context"` edits it (the same rules, on the content with its two
   curves swapped), a `step` to rules.contextStep while it has no points starts it as a copy of
   the first, and a `change` sets the annotator's choice of the change ("derived" confirms the
   label the curves give, a label is their own, "" is none chosen yet). */

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
    changeOptions: Array.isArray(v.change_options) ? v.change_options.filter((/** @type {unknown} */ x) => typeof x === "string").map(String) : [],
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

/* What Python's str.strip() strips (str.isspace): JS's trim() also strips U+FEFF and leaves
   U+001C…U+001F and U+0085, so the note is stripped with this, as the server stores it. */
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/**
 * `text` without the leading and trailing whitespace Python's str.strip() removes.
 * @param {string} text
 * @returns {string}
 */
function stripLikePython(text) {
  return text.replace(PY_STRIP, "");
}

/* The curve fields of a pair's second curve, by the first curve's field each stands beside
   (annotation.workbench.protocol.CONTEXT_FIELDS, as far as the surface holds them). */
const CONTEXT_FIELDS = /** @type {const} */ ([["points", "context_points"], ["xi", "context_xi"], ["omega", "context_omega"],
  ["alpha", "context_alpha"], ["rmse", "context_rmse"], ["params_source", "context_params_source"]]);

/**
 * `c` with its two curves exchanged (AnnotationContent.swapped_curves): an edit of a pair's
 * second curve is made on the swapped content and swapped back.
 * @param {SurfaceContent} c
 * @returns {SurfaceContent}
 */
function swappedCurves(c) {
  const out = /** @type {Record<string, unknown>} */ ({ ...c });
  const src = /** @type {Record<string, unknown>} */ (c);
  for (const [first, second] of CONTEXT_FIELDS) { out[first] = src[second]; out[second] = src[first]; }
  return /** @type {SurfaceContent} */ (out);
}

/**
 * `c` with its second curve started as a copy of the first (AnnotationContent.with_context_copied).
 * @param {SurfaceContent} c
 * @returns {SurfaceContent}
 */
function withContextCopied(c) {
  const out = /** @type {Record<string, unknown>} */ ({ ...c });
  const src = /** @type {Record<string, unknown>} */ (c);
  for (const [first, second] of CONTEXT_FIELDS) out[second] = first === "points" ? c.points.map((p) => [p[0], p[1]]) : src[first];
  return /** @type {SurfaceContent} */ (out);
}

const CURVE_EDITS = new Set(["point", "params", "refit", "place"]);

/**
 * The local state after one edit, as a new object (`state` is not changed); an edit the server
 * would refuse (annotation.workbench.event_log: a field missing or of the wrong type, a gap,
 * segment, point or step that does not exist, an unknown axis or flag, parameters outside the
 * fit's bounds) returns `state` itself.
 *
 * Drawn before the server answers: the segmentation, the axes, the points, the step, the flags
 * and the note, exactly as the server stores them. The curve is the server's: a point edit
 * leaves the parameters as they were (the server refits), `place` changes nothing here (the
 * server places the points), `params` shows the hand-tuned values (the server may still refuse
 * them when they give no curve near the points).
 * @param {SurfaceLocal} state
 * @param {SurfaceEditData} ev
 * @param {SurfaceRules} rules
 * @returns {SurfaceLocal}
 */
function applySurfaceEvent(state, ev, rules) {
  if (CURVE_EDITS.has(ev.kind) && ev.curve !== undefined && ev.curve !== null) {
    // a pair's second curve: the first curve's rules on the swapped content (event_log._apply)
    if (ev.curve !== "context" || !rules.pair) return state;
    const { curve: _, ...onFirst } = ev;
    const swapped = { ...state, content: swappedCurves(state.content) };
    const next = applyToState(swapped, onFirst, rules);
    return next === swapped ? state : { ...next, content: swappedCurves(next.content) };
  }
  return applyToState(state, ev, rules);
}

/**
 * applySurfaceEvent's rules for one edit (a curve edit applies to the first curve).
 * @param {SurfaceLocal} state
 * @param {SurfaceEditData} ev
 * @param {SurfaceRules} rules
 * @returns {SurfaceLocal}
 */
function applyToState(state, ev, rules) {
  const c = state.content;
  switch (ev.kind) {
    case "boundary": return { ...state, content: toggleSurfaceBoundary(c, rules.n, ev.gap) };
    case "reset_segments": return { ...state, content: { ...c, boundaries: [0], segment_axes: [null] } };
    case "axis": {
      const segment = ev.segment, axis = ev.axis;
      if (typeof segment !== "number" || !Number.isInteger(segment) || segment < 0 || segment >= c.segment_axes.length) return state;
      const clear = axis === undefined || axis === null || axis === "";
      if (!clear && !(typeof axis === "string" && rules.axisNames.includes(axis))) return state;
      const axes = c.segment_axes.slice();
      axes[segment] = clear ? null : /** @type {string} */ (axis);
      return { ...state, content: { ...c, segment_axes: axes } };
    }
    case "point": return { ...state, content: { ...c, points: applyPointAction(c.points, ev, rules.xMax, rules.maxPoints) } };
    case "params": {
      /** @type {Record<string, number>} */
      const values = {};
      for (const { name, min, max } of rules.parameters) {
        const v = ev[name];
        if (!finite(v) || v < min || v > max) return state;
        values[name] = v;
      }
      if (!finite(values.xi) || !finite(values.omega) || !finite(values.alpha)) return state;
      return { ...state, content: { ...c, xi: values.xi, omega: values.omega, alpha: values.alpha, params_source: "manual" } };
    }
    case "refit": return { ...state, content: { ...c, params_source: "fit" } };
    case "step": {
      const step = ev.step;
      if (typeof step !== "number" || !Number.isInteger(step) || step < rules.firstStep || step >= rules.steps.length) return state;
      // the curve given the follow-up starts as a copy of the target's while it has no points
      if (rules.pair && step === rules.contextStep && !c.context_points.length) return { step, content: withContextCopied(c) };
      // back at the target alone a confirmation of the derived label is asked for again (event_log._step)
      if (rules.pair && step < rules.contextStep && c.change === rules.changeConfirm) return { step, content: { ...c, change: "" } };
      return { ...state, step };
    }
    case "change": {
      const change = ev.change === undefined || ev.change === null ? "" : ev.change;
      // "" (none chosen yet) clears a choice, as the server allows
      if (!rules.pair || typeof change !== "string" || (change !== "" && !rules.changeOptions.includes(change))) return state;
      return { ...state, content: { ...c, change } };
    }
    case "flag": {
      const flags = ev.flags === undefined ? [] : ev.flags, note = ev.note === undefined ? "" : ev.note;
      if (!Array.isArray(flags) || !flags.every((f) => typeof f === "string" && rules.flagCodes.includes(f))) return state;
      if (typeof note !== "string") return state;
      // the known codes in their canonical order, each once (annotation.workbench.editing.set_flags)
      return { ...state, content: { ...c, flags: rules.flagCodes.filter((code) => flags.includes(code)), note: stripLikePython(note) } };
    }
    case "submit": {
      const flagged = ev.flagged === undefined ? false : ev.flagged;
      const acceptMisses = ev.accept_misses === undefined ? false : ev.accept_misses;
      if (typeof flagged !== "boolean" || typeof acceptMisses !== "boolean") return state;
      // a plain submit drops a flag chosen earlier (the server stores it so, submitted or not)
      return flagged ? state : { ...state, content: { ...c, flags: [], note: "" } };
    }
    default: return state;  // place: the server places the points; an unknown kind: refused
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
  let state = { content: readSurfaceContent(content), step: clamp(wholeOr(step, 0), rules.firstStep, Math.max(rules.steps.length - 1, rules.firstStep)) };
  for (const ev of pending) state = applySurfaceEvent(state, ev, rules);
  return state;
}

/**
 * What stops a plain (unflagged) submit of `content` — the rules and words of
 * annotation.workbench.protocol.submission_problems for an unflagged annotation: an axis on
 * every segment (when the project segments), min … max points, a curve through them, and the
 * same for a pair's second curve. (Its other rules, a valid segmentation and known axes,
 * always hold for what the surface builds.)
 * @param {SurfaceContent} content
 * @param {SurfaceRules} rules
 * @param {{ curvePending: boolean, fitMessage: string | null, contextFitMessage?: string | null }} curve `curvePending`: a curve
 *   edit is on its way, so the parameters shown are not yet the ones it makes (not checked);
 *   `fitMessage`: the fit's own reason the points give no curve (the view's fit.message), said
 *   instead of the general one, as ui/workbench_view.build_view does (`contextFitMessage`: the
 *   same for a pair's second curve)
 * @returns {string[]}
 */
function unflaggedSubmitProblems(content, rules, curve) {
  /** @type {string[]} */
  const out = [];
  /** @type {number[]} */
  const missing = [];
  if (rules.segmented) content.segment_axes.forEach((a, i) => { if (!a) missing.push(i + 1); });
  if (missing.length === 1) out.push(`Axis labels: segment ${missing[0]} still needs an axis.`);
  else if (missing.length > 1) {
    out.push(`Axis labels: segments ${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]} still need an axis.`);
  }
  /** @type {(name: string, c: SurfaceContent, why: string | null | undefined) => void} */
  const curveProblems = (name, c, why) => {
    const n = c.points.length;
    if (n < rules.minPoints || n > rules.maxPoints) out.push(`${name}: place ${rules.minPoints} to ${rules.maxPoints} points (now ${n}).`);
    else if (!curve.curvePending && (c.xi === null || c.omega === null || c.alpha === null)) {
      out.push(`${name}: ` + (why || "the points do not define a curve yet."));
    }
  };
  curveProblems("Curve", content, curve.fitMessage);
  if (rules.pair) {
    const name = rules.steps[rules.contextStep] || "Given the follow-up";
    curveProblems(name, swappedCurves(content), curve.contextFitMessage);
    // no pair is labelled by silence (annotation.workbench.protocol.submission_problems)
    if (!content.change) out.push(`${name}: confirm the change the curves give, or choose another.`);
  }
  return out;
}
