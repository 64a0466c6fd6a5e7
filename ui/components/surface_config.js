// @ts-check
/* What the annotation surface's parts share: the surface's configuration read from a view (the
   reducer's rules, surface_state.js's surfaceRulesOf, and what the surface draws with), and the
   types of the instance and of the context each part is made with (annotation_surface.js makes
   them; the parts are surface_text.js, surface_axes.js, surface_chart.js, surface_pair.js,
   surface_submit.js and surface_footer.js). Put in front of the surface's module at import after
   surface_state.js (see ui/components/sources.py); surfaceConfigOf is pure and unit-tested with
   `node --test` (tests/js/surface_config.test.js). Every name and limit comes with the view
   (ui/workbench_view.surface_rules): the browser keeps no copy of Python's. */

/**
 * An edit the surface makes (CONTRACT.md, "Event kinds"); `push` numbers it.
 * @typedef {{ kind: "boundary", gap: number } | { kind: "reset_segments" }
 *   | { kind: "axis", segment: number, axis: string | null }
 *   | { kind: "point", action: "add", x: number, y: number }
 *   | { kind: "point", action: "move", index: number, x: number, y: number }
 *   | { kind: "point", action: "remove", index: number }
 *   | { kind: "params", [parameter: string]: number | string }
 *   | { kind: "refit" } | { kind: "place", peak_minutes: number, half_gone_minutes: number }
 *   | { kind: "step", step: number } | { kind: "flag", flags: string[], note: string }
 *   | { kind: "change", change: string }
 *   | { kind: "submit", flagged: boolean, accept_misses?: boolean }} SurfaceEdit
 * A curve edit (point, params, refit, place) of a pair's second curve also carries
 * `curve: "context"` (the context's curveEdit).
 */

/**
 * What the surface reads of the view, once per view: the rules (surface_state.js) and the rest
 * of what it draws with.
 * @typedef {SurfaceRules & { tokens: string[], spaces: boolean[], axes: SurfaceAxis[],
 *   flags: SurfaceFlagReason[], single: boolean, readOnly: boolean, conflict: boolean,
 *   confirm: boolean, quota: boolean, segmentStep: number, axisStep: number, curveStep: number,
 *   noticeLevels: string[], durationDefaults: { peak: string, halfGone: string } }} SurfaceConfig
 * `segmentStep`, `axisStep`, `curveStep`: the step that shows the segmentation, the axis rows and
 * the chart (-1: none).
 */

/**
 * A message of the surface's own on the message line: "missing" (what a submit still needs,
 * refreshed after every edit), "input" (a value typed in a panel), "quota".
 * @typedef {{ kind: "missing" | "input" | "quota", level: SurfaceNotice["level"], text: string }} LocalMessage
 */

/**
 * One mounted surface: the state its parts share (each part keeps its own drawing state).
 * @typedef {object} SurfaceInstance
 * @property {SurfaceView | null} view the view drawn (null before the first)
 * @property {string | null} id "annotation_id|client" of the sample it speaks for
 * @property {number} generation calls of the default export so far (instance_cleanup.js)
 * @property {number} mount this instance's number on the page (data-mount)
 * @property {Delivery<QueuedEdit>} delivery the queue of edits not yet acknowledged, numbered
 *   under the view's client (delivery.js)
 * @property {number} baseVersion the stored version this client started from, sent as
 *   base_version (a new client takes the draft over only from that version)
 * @property {SurfaceLocal} local what is drawn: the view's content with the pending edits
 * @property {number} focusSeg the segment the keys 1–8 label
 * @property {boolean} flagOpen
 * @property {{ flagged: boolean, misses: string | null } | null} confirm the open confirmation
 * @property {number | null} submittingSeq the seq of a submit on its way
 * @property {LocalMessage | null} message
 * @property {Set<string>} dismissed the notices closed ("version|level|text")
 * @property {boolean} [fresh] a new sample was received: focus its first row once drawn
 * @property {() => void} render
 * @property {(view: SurfaceView) => void} receive
 * @property {() => void} afterReceive
 * @property {HTMLElement} root
 * @property {() => void} destroy
 */

/**
 * What each part of the surface is made with (annotation_surface.js): the instance, the view's
 * configuration and the surface's commands. Parts speak to each other only through it.
 * @typedef {object} SurfaceContext
 * @property {SurfaceInstance} inst
 * @property {HTMLElement} root
 * @property {() => SurfaceConfig} cfg the configuration of the view drawn
 * @property {() => Partial<SurfaceView>} view the view drawn, or nothing before the first one
 * @property {(edit: SurfaceEdit) => QueuedEdit | null} push number, queue, send and draw an edit
 *   (null: nothing done, the surface is locked or has no view)
 * @property {() => void} render draw everything again
 * @property {() => void} renderText draw the text again (incremental: the focused segment)
 * @property {() => void} renderStatus draw the "Saving…"/"Saved" line again
 * @property {() => boolean} locked nothing may be edited (read-only, a submit on its way)
 * @property {() => boolean} rowsShown the axis rows are on screen (the keys 1–8 label)
 * @property {() => boolean} onContext a pair's last step: the chart edits the second curve
 * @property {() => boolean} curvePending a curve edit is on its way
 * @property {() => boolean} placing a `place` is on its way (the chart waits for its points)
 * @property {<E extends SurfaceEdit>(edit: E) => E} curveEdit `edit` for the curve the chart edits now
 * @property {() => string[]} problems what stops a plain submit now
 * @property {(step: number) => void} goStep
 * @property {() => void} focusRow focus the row of inst.focusSeg
 * @property {(content: SurfaceContent) => string[]} segmentColors each segment's colour
 * @property {() => Element | null} activeElement the focused element of the surface's root node
 */

/**
 * What the key handlers of the parts are told of a key (annotation_surface.js's onDocKey).
 * @typedef {object} SurfaceKey
 * @property {HTMLElement | null} target the element the key was typed in
 * @property {boolean} inside the key was typed inside the surface
 * @property {boolean} pageLevel typed on the surface or the page itself, not on another control
 * @property {boolean} onPoint typed on a chart point
 */

/**
 * A protocol's own panel beside the annotation parts (a context pair's follow-up and change:
 * surface_pair.js). A protocol with a panel of its own gives one with this shape.
 * @typedef {object} SurfacePanel
 * @property {HTMLElement} section its element, placed above the axis rows
 * @property {() => boolean} shown whether the step drawn shows it
 * @property {() => void} render draw it (only while shown)
 * @property {() => void} hide take what it shows off the screen
 * @property {(e: KeyboardEvent, key: SurfaceKey) => boolean} onKey whether it took the key
 * @property {() => string} keyHint the keys it takes, for the footer ("" for none)
 * @property {() => HTMLElement | null} confirmLine its line in the submit confirmation
 */

/** @type {(n: number, one: string, many: string) => string} */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/**
 * The keys that choose an axis, as "1–8" (the axes' digits, first to last).
 * @param {ReadonlyArray<{ digit?: unknown }>} axes
 * @returns {string}
 */
function axisKeysOf(axes) {
  const digits = axes.map((a) => String(a.digit || ""));
  return digits.length > 1 ? `${digits[0]}–${digits[digits.length - 1]}` : digits.join("");
}

/**
 * The surface's configuration for `view` (a missing field reads as none: no step shows a part
 * the view does not name).
 * @param {Partial<SurfaceView> | null | undefined} view
 * @returns {SurfaceConfig}
 */
function surfaceConfigOf(view) {
  const v = view || {};
  const parts = /** @type {Record<string, unknown>} */ (v.part_steps && typeof v.part_steps === "object" ? v.part_steps : {});
  /** @type {(name: string) => number} */
  const stepOf = (name) => wholeOr(parts[name], -1);
  const defaults = /** @type {Record<string, unknown>} */ (v.duration_defaults && typeof v.duration_defaults === "object" ? v.duration_defaults : {});
  return {
    ...surfaceRulesOf(v),  // n, xMax, min/maxPoints, steps, axis names, flag codes, parameters, units
    tokens: Array.isArray(v.tokens) ? v.tokens.map(String) : [],
    spaces: Array.isArray(v.spaces) ? v.spaces : [],
    axes: Array.isArray(v.axes) ? v.axes.filter((a) => a && typeof a.name === "string") : [],
    flags: Array.isArray(v.flags) ? v.flags.filter((f) => f && typeof f.code === "string") : [],
    single: v.layout === "single" && v.pair !== true,  // a pair is always shown step by step
    readOnly: !!v.read_only,
    conflict: v.read_only_reason === "conflict",
    confirm: !!v.confirm_submit,
    quota: !!v.quota_reached,
    segmentStep: stepOf("segments"),
    axisStep: stepOf("axes"),
    curveStep: stepOf("curve"),
    noticeLevels: Array.isArray(v.notice_levels) ? v.notice_levels.filter((x) => typeof x === "string") : [],
    durationDefaults: { peak: String(defaults.peak ?? ""), halfGone: String(defaults.half_gone ?? "") },
  };
}
