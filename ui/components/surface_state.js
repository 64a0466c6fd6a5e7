// @ts-check
/* The annotation surface's local state: what the surface draws before the server answers.

   Pure (no DOM, no timers); put in front of the surface's module at import, after
   curve_points.js whose point rules it uses and surface_view.js whose types and readers it
   uses (see ui/components/sources.py), and unit-tested with
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

/**
 * The pairs of `fields` (rules.contextFields: Python's whole list) that the content holds: the
 * surface keeps no curve scale, which only the server uses.
 * @param {SurfaceContent} c
 * @param {ReadonlyArray<[string, string]>} fields
 * @returns {[string, string][]}
 */
function heldContextFields(c, fields) {
  return fields.filter(([first, second]) => first in c && second in c);
}

/**
 * `c` with its two curves exchanged (AnnotationContent.swapped_curves): an edit of a pair's
 * second curve is made on the swapped content and swapped back.
 * @param {SurfaceContent} c
 * @param {ReadonlyArray<[string, string]>} fields the view's context fields (rules.contextFields)
 * @returns {SurfaceContent}
 */
function swappedCurves(c, fields) {
  const out = /** @type {Record<string, unknown>} */ ({ ...c });
  const src = /** @type {Record<string, unknown>} */ (c);
  for (const [first, second] of heldContextFields(c, fields)) { out[first] = src[second]; out[second] = src[first]; }
  return /** @type {SurfaceContent} */ (out);
}

/**
 * `c` with its second curve started as a copy of the first (AnnotationContent.with_context_copied).
 * @param {SurfaceContent} c
 * @param {ReadonlyArray<[string, string]>} fields the view's context fields (rules.contextFields)
 * @returns {SurfaceContent}
 */
function withContextCopied(c, fields) {
  const out = /** @type {Record<string, unknown>} */ ({ ...c });
  const src = /** @type {Record<string, unknown>} */ (c);
  for (const [first, second] of heldContextFields(c, fields)) {
    const value = src[first];
    out[second] = Array.isArray(value) ? value.map((p) => (Array.isArray(p) ? [...p] : p)) : value;
  }
  return /** @type {SurfaceContent} */ (out);
}

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
  if (rules.curveEdits.includes(ev.kind) && ev.curve !== undefined && ev.curve !== null) {
    // a pair's second curve: the first curve's rules on the swapped content (event_log._apply)
    if (ev.curve !== "context" || !rules.pair) return state;
    const { curve: _, ...onFirst } = ev;
    const swapped = { ...state, content: swappedCurves(state.content, rules.contextFields) };
    const next = applyToState(swapped, onFirst, rules);
    return next === swapped ? state : { ...next, content: swappedCurves(next.content, rules.contextFields) };
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
      if (rules.pair && step === rules.contextStep && !c.context_points.length) return { step, content: withContextCopied(c, rules.contextFields) };
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
    curveProblems(name, swappedCurves(content, rules.contextFields), curve.contextFitMessage);
    // no pair is labelled by silence (annotation.workbench.protocol.submission_problems)
    if (!content.change) out.push(`${name}: confirm the change the curves give, or choose another.`);
  }
  return out;
}
