// @ts-check
/* The annotation surface (see annotation_surface.py for the protocol and the view, CONTRACT.md
 * for what crosses the boundary).
 *
 * One mounted instance per parentElement (kept in a WeakMap): Streamlit calls the default
 * export again with new data after every run, and the instance must survive that with its
 * queue of not-yet-acknowledged events. All user text is set with textContent.
 *
 * Put in front of this module at import (ui/components/sources.py): instance_cleanup.js,
 * delivery.js (the numbered queue, its sending and re-sending: every component's protocol),
 * curve_points.js (the chart's point rules and drawing steps), text_gaps.js (keys between
 * gaps), edit_queue.js (how an edit joins the queue), surface_state.js (what an edit changes:
 * the view's and content's types are there too), segment_tints.js and text_paragraphs.js. */

// ------------------------------------------------------------------ delivery: constants
// (the queue itself is delivery.js's; the surface's part is the section "delivery" in
// createInstance)

// The instance last showing each sample/client ("annotation|client"): when Streamlit mounts
// the surface anew (a new parentElement) for the same sample and client, the new instance takes
// over its queue and numbering. Starting again from view.acked would lose the events still
// pending and, when the view was older than the server, reuse sequence numbers the server
// already applied (it would then skip the new edits as re-sends).
/** @type {Map<string, SurfaceInstance>} */
const BY_CLIENT = new Map();
const BY_CLIENT_MAX = 32;
const STALL_MS = 5000;          // no acknowledgement for this long: say so

// ------------------------------------------------------------------ drawing: constants

/** @type {WeakMap<HTMLElement | ShadowRoot, SurfaceInstance>} */
const INSTANCES = new WeakMap();
const SVG = "http://www.w3.org/2000/svg";
const STEP_COUNT = 4;            // step tabs made: text, segment rows, chart, a pair's second chart (the view's steps say which are shown)
const MARGIN = { left: 50, right: 14, top: 12, bottom: 46 };
const Y_GRID = [0, 0.25, 0.5, 0.75, 1];
const CURVE_KINDS = new Set(["point", "params", "refit", "place"]);
// the steps' names, the limits, the units and the note's length come with the view
// (ui/workbench_view.surface_rules): surfaceRulesOf in surface_state.js reads them
// segments without an axis: three axis-free tints, so that a split or a join can keep every
// other segment's tint and still give neighbours different ones (segmentColors)
const NEUTRAL = ["#7c8799", "#c2a36e", "#6f6459"];
let clipCounter = 0;
let MOUNTS = 0;  // instances created on this page (data-mount: a remount shows as a new number)

// ------------------------------------------------------------------ types

/**
 * What Streamlit (custom components v2) hands the default export on every run.
 * @typedef {object} ComponentArgs
 * @property {HTMLElement | ShadowRoot} parentElement where the component draws (a shadow root: isolate_styles)
 * @property {unknown} data the view
 * @property {(name: string, value: unknown) => void} setTriggerValue sends a trigger value to Python
 */

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
 * `curve: "context"` (curveEdit).
 */

/**
 * What the surface reads of the view, once per view (cfg): the rules (surface_state.js) and
 * the rest of what it draws with.
 * @typedef {SurfaceRules & { tokens: string[], spaces: boolean[], axes: SurfaceAxis[],
 *   flags: SurfaceFlagReason[], single: boolean, readOnly: boolean, conflict: boolean,
 *   confirm: boolean, quota: boolean }} SurfaceConfig
 */

/**
 * A message of the surface's own on the message line: "missing" (what a submit still needs,
 * refreshed after every edit), "input" (a value typed in a panel), "quota".
 * @typedef {{ kind: "missing" | "input" | "quota", level: SurfaceNotice["level"], text: string }} LocalMessage
 */

/**
 * A point being dragged: which, by which pointer, from where, and where it is now.
 * @typedef {{ index: number, pointerId: number, x0: number, y0: number, moved: boolean,
 *   circle: SVGElement, pos: [number, number] | null }} PointDrag
 */

/**
 * One mounted surface.
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
 * @property {boolean} tuneOpen
 * @property {boolean} [tuneFilled] the parameter inputs show the current values
 * @property {boolean} placeOpen
 * @property {LocalMessage | null} message
 * @property {Set<string>} dismissed the notices closed ("version|level|text")
 * @property {number} chartWidth
 * @property {PointDrag | null} drag
 * @property {boolean} needsChart a render came during a drag: draw the chart after it
 * @property {number | null} focusPoint the point to keep focused across redraws
 * @property {ChartGeometry | null} geom
 * @property {boolean} [fresh] a new sample was received: focus its first row once drawn
 * @property {() => void} render
 * @property {(view: SurfaceView) => void} receive
 * @property {() => void} afterReceive
 * @property {HTMLElement} root
 * @property {() => void} destroy
 */

// ------------------------------------------------------------------ small helpers

/**
 * A new HTML element with attributes (`class`, `text` for its textContent; null, undefined
 * and false are left out, true is an empty attribute) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = String(v);
    else if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}
/**
 * A new SVG element with attributes, appended to `parent` when given.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name
 * @param {Record<string, unknown> | null} [attrs]
 * @param {Element} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
function s(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}
// finite, round2, clamp, applyPointAction and the other point helpers: curve_points.js
/** @type {(v: unknown, d: number) => number} */
const int = (v, d) => wholeOr(v, d);
/** @type {(n: number, one: string, many: string) => string} */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
/**
 * `c` when it is a #hex colour, else `fallback` (a colour is set in a style: never free text).
 * @param {unknown} c
 * @param {string} fallback
 */
function safeColor(c, fallback) {
  const v = String(c || "").trim();
  return /^#[0-9a-fA-F]{3,8}$/.test(v) ? v : fallback;
}
/**
 * Whether `t` takes typed text (a key typed there is not a shortcut).
 * @param {EventTarget | null} target
 */
function isTextField(target) {
  const t = /** @type {Partial<HTMLInputElement> | null} */ (target);
  if (!t || !t.tagName) return false;
  const tag = t.tagName.toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT" || t.isContentEditable) return true;
  if (tag !== "INPUT") return false;
  const type = String(t.type || "text").toLowerCase();
  return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"].includes(type);
}
/**
 * The element matching `selector` that `target` (an event's) is in or is, else null.
 * @param {EventTarget | null} target
 * @param {string} selector
 * @returns {HTMLElement | null}
 */
function closestFrom(target, selector) {
  const el = /** @type {Partial<Element> | null} */ (target);
  return el && el.closest ? /** @type {HTMLElement | null} */ (el.closest(selector)) : null;
}
/**
 * Whether `t` is a control a key activates (Enter on it is its own, not a submit).
 * @param {EventTarget | null} target
 */
function isActivatable(target) {
  const t = /** @type {Partial<Element> | null} */ (target);
  if (!t || !t.tagName) return false;
  const tag = t.tagName.toUpperCase();
  if (["BUTTON", "A", "SUMMARY", "INPUT"].includes(tag)) return true;
  const role = t.getAttribute && t.getAttribute("role");
  return ["button", "radio", "tab", "link", "slider", "option", "menuitem", "checkbox", "switch",
    "combobox", "listbox", "spinbutton", "treeitem", "gridcell"].includes(role);
}

// ------------------------------------------------------------------ the local model
// readSurfaceContent, applySurfaceEvent, replaySurfaceEvents, unflaggedSubmitProblems:
// surface_state.js (the rules of annotation.workbench.editing, applied before the server answers)

// ------------------------------------------------------------------ the instance

/**
 * A new surface drawn into `parentElement` (render, receive and the rest are set at the end).
 * @param {HTMLElement | ShadowRoot} parentElement
 * @returns {SurfaceInstance}
 */
function createInstance(parentElement) {
  const inst = /** @type {SurfaceInstance} */ ({
    view: null, id: null, generation: 0, mount: ++MOUNTS, baseVersion: 0,
    local: { content: readSurfaceContent({}), step: 0 },
    focusSeg: 0, flagOpen: false, confirm: null, submittingSeq: null,
    tuneOpen: false, placeOpen: false, message: null, dismissed: new Set(),
    chartWidth: 0, drag: null, needsChart: false, focusPoint: null, geom: null,
  });
  inst.delivery = createDelivery({  // delivery.js; reset to the view's client on the first view
    join: enqueueEdit,  // consecutive moves of one point fold into the last (edit_queue.js)
    extra: () => ({ base_version: inst.baseVersion }),
    onResend: () => renderStatus(),
  });

  // ---------- skeleton (persistent elements; sections are redrawn inside them)
  const root = h("div", { class: "as-root", "data-testid": "surface", tabindex: "-1" });
  const stepbar = h("div", { class: "as-stepbar", role: "tablist", "aria-label": "Steps" });
  const stepButtons = Array.from({ length: STEP_COUNT }, (_, i) => {
    const b = h("button", { type: "button", class: "as-step", role: "tab", "data-step-tab": i },
      h("span", { class: "as-step-num", text: String(i + 1) }), h("span", { class: "as-step-name" }),
      h("span", { class: "as-step-check", "aria-hidden": "true" }));
    b.addEventListener("click", () => goStep(i));
    stepbar.appendChild(b);
    return b;
  });
  const stepInfo = h("div", { class: "as-stepinfo" });
  stepbar.appendChild(stepInfo);

  const textBox = h("div", { class: "as-text", "data-testid": "surface-text", role: "group" });
  const legend = h("div", { class: "as-legend", "aria-label": "Axis colours" });
  const segTools = h("div", { class: "as-segtools" });
  const segCount = h("span", { class: "as-muted" });
  const resetBtn = h("button", { type: "button", class: "as-btn as-small", "data-command": "reset-segments", text: "Back to one segment" });
  resetBtn.addEventListener("click", () => push({ kind: "reset_segments" }));
  segTools.append(h("span", { class: "as-muted", text: "Click between two words to split or join segments (Enter/Space on a focused gap)." }), segCount, resetBtn);
  const textSection = h("section", { class: "as-textsec" }, textBox, legend, segTools);

  const rowsBox = h("div", { class: "as-rows", role: "list", "aria-label": "Segments and their axes" });
  // the axes' key questions on screen beside the axis buttons (they were tooltips only), in a
  // <details> the annotator can fold away; drawn from the view's axes
  const questionsList = h("div", { class: "as-questions-list" });
  const questions = h("details", { class: "as-questions", "data-testid": "key-questions", open: true },
    h("summary", { text: "Key questions" }), questionsList);
  const rowsSection = h("section", { class: "as-rowsec" }, questions, rowsBox);

  // chart + side panel
  const svg = s("svg", { role: "group", class: "as-svg" });
  const backdrop = s("g", {}, svg);
  const plot = s("rect", { class: "as-plot", "data-testid": "curve-plot", "pointer-events": "all",
    "data-x-min": 0, "data-y-min": 0, "data-y-max": 1 }, svg);
  const cross = s("g", { class: "as-cross", visibility: "hidden", "pointer-events": "none" }, svg);
  const crossV = s("line", {}, cross), crossH = s("line", {}, cross);
  const crossBox = s("rect", { rx: 5 }, cross), crossText = s("text", {}, cross);
  const crossParts = { cross, crossV, crossH, crossBox, crossText };
  const pointLayer = s("g", {}, svg);
  const clipId = "as-clip-" + (++clipCounter);
  const chartHint = h("div", { class: "as-hint", "data-testid": "curve-hint", "aria-live": "polite" });
  const chartBox = h("div", { class: "as-chart", "data-testid": "curve-canvas" });
  chartBox.appendChild(svg);
  chartBox.appendChild(chartHint);
  const side = h("div", { class: "as-side", "data-testid": "fit-summary" });
  const sideInfo = h("div", { class: "as-sideinfo" });
  // fine-tune parameters
  const tuneToggle = h("button", { type: "button", class: "as-link", "data-command": "tune", "aria-expanded": "false", text: "Fine-tune parameters" });
  /** @type {Map<string, HTMLInputElement>} */
  const tuneInputs = new Map();  // parameter name -> its input, drawn from the view's parameters
  const tuneRow = h("div", { class: "as-tune-row" });
  const tuneApply = h("button", { type: "button", class: "as-btn as-small", "data-command": "params", text: "Apply" });
  const tuneRefit = h("button", { type: "button", class: "as-btn as-small", "data-command": "refit", text: "Back to the fitted curve" });
  const tunePanel = h("div", { class: "as-panel", hidden: true }, tuneRow, h("div", { class: "as-panel-actions" }, tuneApply, tuneRefit));
  // durations
  const placeToggle = h("button", { type: "button", class: "as-link", "data-command": "durations", "aria-expanded": "false", text: "Enter durations instead" });
  // the units' options are drawn from the view's time_units (renderRuleControls)
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
  const curveSection = h("section", { class: "as-curvesec" }, chartBox, side);

  // a context pair's last step: the follow-up (read-only, set apart, literal text) and the
  // change the two curves say, with the annotator's choice (confirm it or override it)
  const followText = h("div", { class: "as-follow-text", "data-testid": "follow-up-text" });
  const followBox = h("div", { class: "as-follow", "data-testid": "follow-up", role: "note", "aria-label": "Follow-up statement (read only)" },
    h("div", { class: "as-follow-title", text: "Follow-up (read only) — draw the target's validity given it" }), followText);
  const changeWords = h("div", { class: "as-change-words", "data-testid": "change-reading", "aria-live": "polite" });
  const changeClasses = h("div", { class: "as-muted", "data-testid": "change-classes" });
  const changeOptions = h("div", { class: "as-change-options", role: "radiogroup", "aria-label": "The change: as derived, or your own" });
  const changeBox = h("div", { class: "as-change", "data-testid": "change-panel" }, changeWords, changeClasses, changeOptions);
  const pairSection = h("section", { class: "as-pairsec", "data-testid": "pair-panel", hidden: true }, followBox, changeBox);

  // message line: local message + the server's notices (non-blocking)
  const messageBox = h("div", { class: "as-message", "data-testid": "surface-message", "aria-live": "polite" });

  // flag panel and confirm (in-component, not Streamlit popovers)
  const flagPanel = h("div", { class: "as-flag", "data-testid": "surface-flag-panel", hidden: true, role: "dialog", "aria-label": "Flag this sample" });
  const flagReasons = h("div", { class: "as-flag-reasons", role: "radiogroup" });
  const flagNote = h("textarea", { rows: "2", name: "flag-note", placeholder: "Note for the lead" });  // maxlength: the view's
  const flagError = h("div", { class: "as-flag-error", role: "alert" });
  const flagSubmit = h("button", { type: "button", class: "as-btn as-primary", "data-command": "flag-submit", text: "Submit as flagged" });
  const flagCancel = h("button", { type: "button", class: "as-btn", "data-command": "flag-cancel", text: "Cancel" });
  flagPanel.append(h("div", { class: "as-flag-title", text: "Why can this sample not be annotated normally?" }),
    flagReasons, flagNote, flagError, h("div", { class: "as-panel-actions" }, flagSubmit, flagCancel));

  const confirmBox = h("div", { class: "as-confirm-backdrop", hidden: true });
  const confirmTitle = h("div", { class: "as-confirm-title" });
  const confirmBody = h("div", { class: "as-confirm-body" });
  const confirmOk = h("button", { type: "button", class: "as-btn as-primary", "data-command": "confirm", text: "Submit (Enter)" });
  const confirmCancel = h("button", { type: "button", class: "as-btn", "data-command": "cancel", text: "Cancel (Esc)" });
  const confirmDialog = h("div", { class: "as-confirm", "data-testid": "surface-confirm", role: "dialog", "aria-modal": "true", hidden: true },
    confirmTitle, confirmBody, h("div", { class: "as-panel-actions" }, confirmOk, confirmCancel));

  // footer
  /** @type {(name: string, label: string, cls?: string) => HTMLButtonElement} */
  const cmd = (name, label, cls) => h("button", { type: "button", class: "as-btn " + (cls || ""), "data-command": name, text: label });
  const backBtn = cmd("back", "← Back"), nextBtn = cmd("next", "Next →");
  const flagBtn = cmd("flag", "⚑ Flag"), submitBtn = cmd("submit", "Submit", "as-primary");
  const statusMissing = h("div", { class: "as-missing", "data-testid": "surface-missing" });
  const statusKeys = h("div", { class: "as-keys" });
  const saved = h("span", { class: "as-saved", "data-testid": "surface-saved" });
  const footer = h("div", { class: "as-footer" }, backBtn, nextBtn,
    h("div", { class: "as-status" }, h("div", { class: "as-status-top" }, saved, statusMissing), statusKeys),
    flagBtn, submitBtn);

  footer.append(flagPanel, confirmDialog);  // anchored to the footer, which stays on screen
  const body = h("div", { class: "as-body" }, textSection, pairSection, rowsSection, curveSection);
  root.append(stepbar, body, messageBox, footer, confirmBox);
  parentElement.appendChild(root);

  // ---------- configuration from the view
  /** @returns {Partial<SurfaceView>} the view, or nothing before the first one */
  const viewOrEmpty = () => inst.view || {};
  /** @returns {Element | null} the focused element of the surface's document or shadow root */
  const activeElement = () => /** @type {Document | ShadowRoot} */ (root.getRootNode()).activeElement;
  // read once per view (a render asks many times; a 2,500-token text made each ask copy it)
  /** @type {SurfaceView | null} */
  let cfgOf = null;
  /** @type {SurfaceConfig | null} */
  let cfgMemo = null;
  /** @returns {SurfaceConfig} */
  const cfg = () => {
    if (cfgMemo && cfgOf === inst.view) return cfgMemo;
    cfgOf = inst.view;
    const v = viewOrEmpty();
    const tokens = Array.isArray(v.tokens) ? v.tokens.map(String) : [];
    return cfgMemo = {
      ...surfaceRulesOf(v),  // n, xMax, min/maxPoints, steps, axis names, flag codes, parameters, units
      tokens,
      spaces: Array.isArray(v.spaces) ? v.spaces : [],
      axes: Array.isArray(v.axes) ? v.axes.filter((a) => a && typeof a.name === "string") : [],
      flags: Array.isArray(v.flags) ? v.flags.filter((f) => f && typeof f.code === "string") : [],
      single: v.layout === "single" && v.pair !== true,  // a pair is always shown step by step
      readOnly: !!v.read_only,
      conflict: v.read_only_reason === "conflict",
      confirm: !!v.confirm_submit,
      quota: !!v.quota_reached,
    };
  };
  /** @type {(name: string | null) => SurfaceAxis | null} */
  const axisOf = (name) => cfg().axes.find((a) => a.name === name) || null;
  /** @returns {string} the keys that choose an axis, as "1–8" (the view's digits) */
  const axisKeys = () => {
    const digits = cfg().axes.map((a) => String(a.digit || ""));
    return digits.length > 1 ? `${digits[0]}–${digits[digits.length - 1]}` : digits.join("");
  };
  const locked = () => cfg().readOnly || inst.submittingSeq !== null;
  const rowsShown = () => cfg().single || inst.local.step === 1;
  const curvePending = () => inst.delivery.pending().some((e) => CURVE_KINDS.has(e.kind));
  // a pair's last step edits its second curve (the target given the follow-up)
  const onContext = () => cfg().pair && inst.local.step === cfg().contextStep;
  /** @returns {SurfacePoint[]} the points of the curve the chart edits now */
  const activePoints = () => (onContext() ? inst.local.content.context_points : inst.local.content.points);
  /**
   * `edit` for the curve the chart edits now (a pair's second curve carries curve: "context").
   * @template {SurfaceEdit} E
   * @param {E} edit
   * @returns {E}
   */
  const curveEdit = (edit) => (onContext() ? { ...edit, curve: "context" } : edit);
  const placing = () => inst.delivery.pending().some((e) => e.kind === "place");

  // ---------- the local state: the view's content with the pending edits (surface_state.js)
  function recompute() {
    const v = viewOrEmpty();
    const state = replaySurfaceEvents(v.content, v.step, inst.delivery.pending(), cfg());
    inst.local = state;
    const nseg = state.content.boundaries.length;
    inst.focusSeg = clamp(inst.focusSeg, 0, Math.max(nseg - 1, 0));
  }

  // ====================================================================== delivery
  // The edits reach the server through delivery.js (CONTRACT.md, "Delivery (all components)"):
  // numbered per client from view.acked + 1, consecutive point moves folded (edit_queue.js's
  // enqueueEdit as the join), the whole queue sent as {client, base_version, events} after every
  // edit and re-sent with a growing wait until a view acknowledges it. What the surface adds:
  // the client and its numbering come from the view; a remount for the same sample and client
  // takes over the old instance's queue (BY_CLIENT); a view from a superseded run is skipped.
  /** @returns {number} the last seq the server acknowledged for this client */
  const acked = () => inst.delivery.queue().acked;
  /**
   * Number `edit`, queue it, send the queue and draw it; the numbered edit, or null (nothing
   * done) while the surface is locked (read-only, a submit on its way) or has no view.
   * @param {SurfaceEdit} edit
   * @returns {QueuedEdit | null}
   */
  function push(edit) {
    if (!inst.view || locked()) return null;
    const ev = inst.delivery.push(edit);
    inst.local = applySurfaceEvent(inst.local, ev, cfg());
    inst.focusSeg = clamp(inst.focusSeg, 0, Math.max(inst.local.content.boundaries.length - 1, 0));
    if (inst.message && inst.message.kind === "missing") refreshMissingMessage();
    render();
    return ev;
  }
  /**
   * A new view from the server: take its acknowledgement, drop what it acknowledged and draw
   * what it stores with the rest of the queue on top.
   * @param {SurfaceView} view
   */
  function receive(view) {
    const id = `${view.annotation_id}|${view.client}`;
    const viewAcked = Math.max(0, int(view.acked, 0));
    if (id !== inst.id) {  // a new sample (or a new client for it): start over
      inst.id = id;
      const prev = BY_CLIENT.get(id);
      const carried = prev && prev !== inst && prev.id === id ? prev : null;
      inst.delivery.reset(String(view.client || ""), viewAcked);
      inst.baseVersion = int(view.version, 0);
      if (carried) {  // a remount: carry on with its queue, numbering and starting version
        inst.delivery.takeOver(carried.delivery);  // the old instance stops sending
        inst.baseVersion = carried.baseVersion;
        carried.id = null;  // the old instance no longer speaks for this client
      }
      BY_CLIENT.delete(id);
      BY_CLIENT.set(id, inst);
      while (BY_CLIENT.size > BY_CLIENT_MAX) BY_CLIENT.delete(BY_CLIENT.keys().next().value);
      inst.focusSeg = 0; inst.flagOpen = false; inst.confirm = null; inst.submittingSeq = null;
      inst.tuneOpen = false; inst.placeOpen = false; inst.message = null; inst.dismissed = new Set();
      inst.focusPoint = null;
      if (carried) {
        inst.focusSeg = carried.focusSeg;  // the next digit labels the same segment
        if (carried.submittingSeq !== null && carried.submittingSeq > acked()) inst.submittingSeq = carried.submittingSeq;
      }
      // the newer of the two views: a remount can come with the data of a run older than the
      // one the old instance last drew (fast reruns finish out of order), and recomputing from
      // it would drop the edits acknowledged in between from what is shown (a step shown one
      // behind, so the next Alt+→ would store the wrong step)
      inst.view = carried && carried.view && int(carried.view.acked, 0) > viewAcked ? carried.view : view;
      recompute();
      inst.fresh = true;
      inst.delivery.send();  // what the old instance had not got acknowledged (when anything)
      return;
    }
    // A view that acknowledges less than an earlier one is from a superseded run (Streamlit's
    // fast reruns can let an older run finish late): drawing it would hide applied edits and
    // shift point indices under the annotator's next click, so it is skipped.
    if (viewAcked < acked()) return;
    inst.delivery.acknowledge(viewAcked);  // drops the edits up to it; the re-send timer
    inst.view = view;
    if (inst.submittingSeq !== null && acked() >= inst.submittingSeq) {
      inst.submittingSeq = null;  // the server answered the submit and this sample is still here
      if (view.read_only) inst.message = null;
    }
    recompute();
    if (inst.message && inst.message.kind === "missing") refreshMissingMessage();
  }
  // ====================================================================== end of delivery


  // ---------- commands
  /** @param {number} step */
  function goStep(step) {
    const c = cfg();
    if (c.single) return;
    const target = clamp(step, c.firstStep, Math.max(c.steps.length - 1, c.firstStep));
    if (target === inst.local.step) return;
    if (locked()) {
      if (!c.readOnly) return;
      inst.local = { ...inst.local, step: target };  // read-only: look around, nothing to save
      render();
    } else {
      push({ kind: "step", step: target });
    }
    if (target === 1) {
      const axes = inst.local.content.segment_axes;
      const firstEmpty = axes.findIndex((a) => !a);
      inst.focusSeg = firstEmpty >= 0 ? firstEmpty : clamp(inst.focusSeg, 0, axes.length - 1);
      focusRow();
    } else {
      const active = activeElement();
      if (active && root.contains(active) && !isTextField(active)) root.focus({ preventScroll: true });
    }
  }
  /**
   * @param {number} segment
   * @param {string | null} axis
   */
  function setAxis(segment, axis) {
    const c = inst.local.content;
    if (segment < 0 || segment >= c.segment_axes.length) return;
    push({ kind: "axis", segment, axis });
  }
  /* What stops a plain (unflagged) Submit: the server's list while nothing is pending, else
     the same rules applied to the local content (unflaggedSubmitProblems, surface_state.js; the
     server checks again on submit). A plain Submit drops a flag chosen earlier, so the flag
     does not excuse anything here. While a curve edit is on its way the parameters are not
     checked; otherwise the fit's own reason, when the server gave one ("Points 2 and 5 are both
     peaks…"), is said as the chart's panel says it: one message for one problem. */
  function problems() {
    const v = viewOrEmpty(), content = inst.local.content;
    if (!inst.delivery.pending().length && !content.flags.length) return Array.isArray(v.problems) ? v.problems.map(String) : [];
    const why = (v.fit || {}).message, whyContext = (v.context_fit || {}).message;
    return unflaggedSubmitProblems(content, cfg(), { curvePending: curvePending(), fitMessage: why ? String(why) : null,
      contextFitMessage: whyContext ? String(whyContext) : null });
  }
  function refreshMissingMessage() {
    const list = problems();
    inst.message = list.length ? { kind: "missing", level: "warning", text: "Not submitted yet — " + list.join(" ") } : null;
  }
  function requestSubmit() {
    const c = cfg();
    if (!inst.view || c.readOnly || inst.submittingSeq !== null || inst.confirm) return;
    if (c.quota) {
      inst.message = { kind: "quota", level: "info", text: "You reached today's quota: your work is saved as a draft." };
      render(); return;
    }
    const list = problems();
    if (list.length) {
      inst.message = { kind: "missing", level: "warning", text: "Not submitted yet — " + list.join(" ") };
      render(); return;
    }
    inst.message = null;
    const misses = handTunedMisses();
    if (misses) { openConfirm(false, misses); return; }  // whatever the project's confirm setting
    if (c.confirm) { openConfirm(false); return; }
    doSubmit(false);
  }
  /* The server's word that the hand-tuned curve misses the points, while nothing is pending
     (the view is then the draft as it stands); a submit sent before the view caught up is
     refused by the server with the same words, and the next Enter asks. */
  function handTunedMisses() {
    const v = viewOrEmpty();
    return !inst.delivery.pending().length && v.hand_tuned_misses ? String(v.hand_tuned_misses).replace(/^Curve: /, "") : null;
  }
  /**
   * @param {boolean} flagged
   * @param {boolean} [acceptMisses] the annotator confirmed a hand-tuned curve that misses the points
   */
  function doSubmit(flagged, acceptMisses) {
    if (!flagged && inst.local.content.flags.length) push({ kind: "flag", flags: [], note: "" });
    /** @type {SurfaceEdit} */
    const event = { kind: "submit", flagged: !!flagged };
    if (acceptMisses) event.accept_misses = true;
    const sent = push(event);
    if (sent) inst.submittingSeq = sent.seq;
    inst.confirm = null; inst.flagOpen = false;
    render();
  }
  function confirmSubmit() {
    if (inst.confirm) doSubmit(inst.confirm.flagged, !!inst.confirm.misses);
  }
  /**
   * @param {boolean} flagged
   * @param {string | null} [misses] how the hand-tuned curve misses the points
   */
  function openConfirm(flagged, misses) {
    inst.confirm = { flagged, misses: misses || null };
    render();
    confirmOk.focus({ preventScroll: true });
  }
  function closeConfirm() {
    inst.confirm = null;
    render();
    root.focus({ preventScroll: true });
  }
  function submitFlagged() {
    const c = cfg();
    const chosen = /** @type {HTMLInputElement | null} */ (flagReasons.querySelector("input:checked"));
    const code = chosen ? chosen.value : null;
    const reason = c.flags.find((f) => f.code === code);
    if (!reason) { flagError.textContent = "Choose a reason."; return; }
    const note = flagNote.value;
    if (reason.needs_note && !note.trim()) { flagError.textContent = `Please explain “${reason.label}” in the note.`; flagNote.focus(); return; }
    flagError.textContent = "";
    push({ kind: "flag", flags: [code], note });
    if (c.confirm) { inst.flagOpen = false; openConfirm(true); } else doSubmit(true);
  }
  function toggleFlag() {
    if (locked()) return;
    inst.flagOpen = !inst.flagOpen;
    if (inst.flagOpen) {
      const content = inst.local.content;
      flagReasons.replaceChildren();
      cfg().flags.forEach((f, i) => {
        const input = h("input", { type: "radio", name: "flag-reason", value: f.code });
        input.checked = content.flags.length ? content.flags[0] === f.code : i === 0;
        flagReasons.appendChild(h("label", { class: "as-radio" }, input, h("span", { text: f.label })));
      });
      flagNote.value = content.note || "";
      flagError.textContent = "";
    }
    render();
    if (inst.flagOpen) { const first = /** @type {HTMLInputElement | null} */ (flagReasons.querySelector("input:checked")); if (first) first.focus({ preventScroll: true }); }
  }

  // ---------- listeners: commands
  /** @param {MouseEvent} e */
  const noFocusSteal = (e) => { if (e.button === 0) e.preventDefault(); };
  for (const b of [backBtn, nextBtn, submitBtn, flagBtn, ...stepButtons]) b.addEventListener("mousedown", noFocusSteal);
  backBtn.addEventListener("click", () => goStep(inst.local.step - 1));
  nextBtn.addEventListener("click", () => goStep(inst.local.step + 1));
  submitBtn.addEventListener("click", requestSubmit);
  flagBtn.addEventListener("click", toggleFlag);
  flagSubmit.addEventListener("click", submitFlagged);
  flagCancel.addEventListener("click", () => { inst.flagOpen = false; render(); });
  confirmOk.addEventListener("click", confirmSubmit);
  confirmCancel.addEventListener("click", closeConfirm);
  confirmBox.addEventListener("mousedown", (e) => { if (e.target === confirmBox) { e.preventDefault(); closeConfirm(); } });
  tuneToggle.addEventListener("click", () => { inst.tuneOpen = !inst.tuneOpen; inst.tuneFilled = false; render(); });
  placeToggle.addEventListener("click", () => { inst.placeOpen = !inst.placeOpen; render(); if (inst.placeOpen) peakN.focus(); });
  function applyParams() {
    /** @type {Record<string, number>} */
    const vals = {};
    for (const { name, symbol, min: lo, max: hi } of cfg().parameters) {
      const input = tuneInputs.get(name);
      const v = Number(input ? input.value : "");
      if (!input || input.value === "" || !Number.isFinite(v) || v < lo || v > hi) {
        inst.message = { kind: "input", level: "warning", text: `${symbol} must be a number from ${lo} to ${hi}.` };
        render(); return;
      }
      vals[name] = v;
    }
    inst.message = null;
    push(curveEdit({ kind: "params", ...vals }));
  }
  tuneApply.addEventListener("click", applyParams);
  tuneRefit.addEventListener("click", () => push(curveEdit({ kind: "refit" })));
  tuneRow.addEventListener("keydown", (e) => { if (closestFrom(e.target, "input") && e.key === "Enter" && !e.altKey) { e.preventDefault(); applyParams(); } });
  function place() {
    const units = cfg().timeUnits;
    /** @type {(sel: HTMLSelectElement) => number} */
    const factor = (sel) => (units.find((u) => u.name === sel.value) || units[0] || { minutes: NaN }).minutes;
    const p = Number(peakN.value), q = Number(halfN.value);
    if (peakN.value === "" || halfN.value === "" || !(p > 0) || !(q > 0)) {
      inst.message = { kind: "input", level: "warning", text: "Enter two positive durations: when the validity peaks and when half of it is gone." };
      render(); return;
    }
    const peakMinutes = p * factor(peakU), halfMinutes = q * factor(halfU);
    if (!(halfMinutes > peakMinutes)) {
      inst.message = { kind: "input", level: "warning", text: "“Half gone by” must come after the peak." };
      render(); return;
    }
    inst.message = null;
    push(curveEdit({ kind: "place", peak_minutes: peakMinutes, half_gone_minutes: halfMinutes }));
  }
  placeBtn.addEventListener("click", place);
  for (const input of [peakN, halfN]) input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.altKey) { e.preventDefault(); place(); } });

  // ---------- listeners: text gaps
  // A pointer edit acts on the press, not on the click: every server answer redraws the text
  // and the rows, and a press that began on the old element and ended on the new one gets no
  // click event at all (an annotator's press lasts ~100 ms, often across an answer).
  // The gap pressed: the gap itself, or the one at the edge of the token pressed — within 4 px
  // of a space, and for a gap between a word and the punctuation after it (1 px wide) 7 px into
  // the word and 3 px into the punctuation; the nearer edge when both are in reach.
  /**
   * @param {PointerEvent} e
   * @returns {HTMLElement | null}
   */
  function gapAtPress(e) {
    const el = closestFrom(e.target, "[data-gap], [data-token]");
    if (!el || el.hasAttribute("data-gap")) return el;
    if (!textDom) return null;
    const i = Number(el.getAttribute("data-token")), r = el.getBoundingClientRect();
    const before = textDom.gaps[i] || null, after = textDom.gaps[i + 1] || null;
    const dl = e.clientX - r.left, dr = r.right - e.clientX;
    const inBefore = before && dl <= (before.classList.contains("tight") ? 3 : 4);
    const inAfter = after && dr <= (after.classList.contains("tight") ? 7 : 4);
    if (inBefore && (!inAfter || dl <= dr)) return before;
    return inAfter ? after : null;
  }
  /* The gap a press toggled: the mousedown after it starts no text selection (placing the caret
     in a 2,500-token text cost Chromium 7–11 ms of every boundary click) and focuses the gap. */
  /** @type {HTMLElement | null} */
  let pressedGap = null;
  /** @param {PointerEvent} e */
  function onTextPress(e) {
    pressedGap = null;
    if (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const gapEl = gapAtPress(e);
    if (!gapEl || !gapEl.classList.contains("active")) return;
    pressedGap = gapEl;
    push({ kind: "boundary", gap: Number(gapEl.getAttribute("data-gap")) });
  }
  /** @param {MouseEvent} e */
  function onTextMouseDown(e) {
    const gapEl = pressedGap;
    pressedGap = null;
    if (!gapEl || e.button !== 0) return;
    e.preventDefault();
    // focusVisible (no focus ring for a mouse press) is newer than TypeScript's FocusOptions
    if (gapEl.isConnected) gapEl.focus(/** @type {FocusOptions} */ ({ preventScroll: true, focusVisible: false }));
  }
  /** @param {KeyboardEvent} e */
  function onTextKey(e) {
    const gapEl = closestFrom(e.target, "[data-gap]");
    if (!gapEl || !gapEl.classList.contains("active") || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault(); e.stopPropagation();
      if (!e.repeat) push({ kind: "boundary", gap: Number(gapEl.getAttribute("data-gap")) });
      return;
    }
    moveGapFocus(e, [...textBox.querySelectorAll(".as-gap.active")], gapEl);  // text_gaps.js
  }
  textBox.addEventListener("pointerdown", onTextPress);
  textBox.addEventListener("mousedown", onTextMouseDown);
  textBox.addEventListener("keydown", onTextKey);

  // ---------- listeners: rows
  function focusRow() {
    const row = /** @type {HTMLElement | null} */ (rowsBox.querySelector(`[data-segment="${inst.focusSeg}"]`));
    for (const r of /** @type {NodeListOf<HTMLElement>} */ (rowsBox.querySelectorAll("[data-segment]"))) {
      const on = r === row;
      r.classList.toggle("focused", on);
      r.tabIndex = on ? 0 : -1;
    }
    if (row) row.focus({ preventScroll: false });
    renderText();  // the text highlights the focused segment and keeps it in view (incremental)
  }
  rowsBox.addEventListener("mousedown", (e) => {
    const btn = closestFrom(e.target, "[data-axis-option]");
    if (btn && e.button === 0) e.preventDefault();  // the row keeps the focus, not the button
  });
  /** @param {MouseEvent} e */
  function onRowActivate(e) {
    const row = closestFrom(e.target, "[data-segment]");
    if (!row) return;
    inst.focusSeg = Number(row.getAttribute("data-segment"));
    const btn = /** @type {HTMLButtonElement | null} */ (closestFrom(e.target, "[data-axis-option]"));
    if (btn && !btn.disabled) {
      const name = btn.getAttribute("data-axis-option");
      const current = inst.local.content.segment_axes[inst.focusSeg];
      setAxis(inst.focusSeg, current === name ? null : name);
    } else {
      render();
    }
    focusRow();
  }
  rowsBox.addEventListener("pointerdown", (e) => {  // on the press: see onTextPress
    if (e.button === 0 && !e.altKey && !e.ctrlKey && !e.metaKey) onRowActivate(e);
  });
  rowsBox.addEventListener("click", (e) => {
    if (e.detail === 0) onRowActivate(e);  // Enter/Space on a focused button; pointer presses are done
  });
  rowsBox.addEventListener("focusin", (e) => {
    const row = closestFrom(e.target, "[data-segment]");
    if (row) {
      const j = Number(row.getAttribute("data-segment"));
      if (j !== inst.focusSeg) {
        inst.focusSeg = j;
        for (const r of rowsBox.querySelectorAll("[data-segment]")) r.classList.toggle("focused", r === row);
        renderText();
      }
    }
  });

  // ---------- listeners: keyboard (document, capture phase: no control can capture these)
  /**
   * Focus the segment `delta` rows away; false when there is none.
   * @param {number} delta
   */
  function moveSeg(delta) {
    const n = inst.local.content.boundaries.length;
    const j = inst.focusSeg + delta;
    if (j < 0 || j >= n) return false;
    inst.focusSeg = j;
    focusRow();
    return true;
  }
  /** @param {Event} e */
  function stop(e) { e.preventDefault(); e.stopImmediatePropagation(); }
  /** @param {KeyboardEvent} e */
  function onDocKey(e) {
    if (!root.isConnected || !inst.view) return;
    const path = e.composedPath ? e.composedPath() : [e.target];
    // the element the key was typed in (or the document or window: each check asks first)
    const t = /** @type {HTMLElement | null} */ (path[0]);
    const inside = path.includes(root);
    const c = cfg();
    if (inst.confirm) {
      if (e.key === "Enter" && !e.shiftKey) { stop(e); if (!e.repeat) confirmSubmit(); }
      else if (e.key === "Escape") { stop(e); closeConfirm(); }
      else if (e.key === "Tab" && inside) { /* stays among the two buttons */ }
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey) {
      if (e.key === "ArrowRight") { stop(e); if (!e.repeat) goStep(inst.local.step + 1); }
      else if (e.key === "ArrowLeft") { stop(e); if (!e.repeat) goStep(inst.local.step - 1); }
      else if (e.key === "Enter") { stop(e); if (!e.repeat && !inst.flagOpen) requestSubmit(); }
      return;
    }
    if (inst.flagOpen) {
      if (e.key === "Escape") { stop(e); inst.flagOpen = false; render(); root.focus({ preventScroll: true }); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || isTextField(t)) return;
    const onPoint = t && t.getAttribute && t.getAttribute("data-point") !== null;
    // keys typed on the page itself (body, Streamlit's main container...) are ours too; keys
    // on another control (a button, a slider elsewhere on the page) are left to it
    const pageLevel = inside || !isActivatable(t);
    if (onContext() && !c.readOnly && pageLevel && /^[0-9]$/.test(e.key) && Number(e.key) < c.changeOptions.length) {
      stop(e);  // 0 as derived, 1… the labels (the change panel's buttons show the digits)
      if (!e.repeat) chooseChange(c.changeOptions[Number(e.key)]);
      return;
    }
    const keyAxis = c.axes.find((a) => String(a.digit) === e.key);  // the view's digit keys, 1–8
    if (keyAxis && rowsShown() && !c.readOnly && pageLevel) {
      stop(e);
      if (e.repeat) return;
      setAxis(inst.focusSeg, keyAxis.name);
      return;
    }
    if ((e.key === "ArrowDown" || e.key === "ArrowUp") && rowsShown() && pageLevel && !onPoint) {
      stop(e);
      moveSeg(e.key === "ArrowDown" ? 1 : -1);
      return;
    }
    if (e.key === "Tab" && rowsShown() && inside && t.closest && t.closest("[data-segment]")) {
      if (moveSeg(e.shiftKey ? -1 : 1)) stop(e);
      return;
    }
    if ((e.key === "Delete" || e.key === "Backspace") && rowsShown() && inside && t.getAttribute && t.getAttribute("data-segment") !== null && !c.readOnly) {
      stop(e); setAxis(inst.focusSeg, null); return;
    }
    if (e.key === "Enter" && (pageLevel || onPoint) && (!isActivatable(t) || onPoint)) {
      stop(e);
      if (!e.repeat) requestSubmit();
    }
  }
  document.addEventListener("keydown", onDocKey, true);

  // ---------- listeners: chart (as curve_canvas, on the local points)
  /** @type {(clientX: number, clientY: number) => [number, number]} */
  const toData = (clientX, clientY) => plotPosition(plot, cfg().xMax, clientX, clientY);
  /** @type {(target: EventTarget | null) => number | null} */
  const pointIndex = (target) => pointIndexIn(svg, target);
  const chartLocked = () => locked() || placing();
  /** @param {MouseEvent} e */
  function onPlotClick(e) {
    if (chartLocked() || e.button !== 0 || e.detail > 1) return;
    const c = cfg();
    if (activePoints().length >= c.maxPoints) { chartHint.animate([{ opacity: 0.35 }, { opacity: 1 }], { duration: 450 }); return; }
    const [x, y] = toData(e.clientX, e.clientY);
    push(curveEdit({ kind: "point", action: "add", x, y }));
  }
  /** @param {PointerEvent} e */
  function onPointerDown(e) {
    const i = pointIndex(e.target);
    if (i === null && e.target === plot) {
      e.preventDefault();
      const active = activeElement();
      if (active && pointIndex(active) !== null) /** @type {SVGElement} */ (active).blur();
      return;
    }
    if (i === null || chartLocked() || e.button !== 0) return;
    e.preventDefault();
    const circle = /** @type {SVGElement} */ (/** @type {Element} */ (e.target).closest("[data-point]"));
    circle.focus({ preventScroll: true });
    try { circle.setPointerCapture(e.pointerId); } catch (_) { /* synthetic events */ }
    inst.drag = { index: i, pointerId: e.pointerId, x0: e.clientX, y0: e.clientY, moved: false, circle, pos: null };
  }
  /** @param {PointerEvent} e */
  function onPointerMove(e) {
    const d = inst.drag;
    if (d && e.pointerId === d.pointerId) {
      if (!d.moved && Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 3) return;
      d.moved = true;
      d.circle.classList.add("dragging");
      d.pos = toData(e.clientX, e.clientY);
      movePoint(d.index, d.pos);
      showCross(d.pos);
      return;
    }
    if (e.target === plot && !chartLocked()) showCross(toData(e.clientX, e.clientY));
  }
  /**
   * @param {PointerEvent} e
   * @param {boolean} commit the drag ended on a release (not a cancel): send the move
   */
  function endDrag(e, commit) {
    const d = inst.drag;
    if (!d || e.pointerId !== d.pointerId) return;
    inst.drag = null;
    try { d.circle.releasePointerCapture(e.pointerId); } catch (_) { /* released */ }
    d.circle.classList.remove("dragging");
    hideCross();
    if (commit && d.moved && d.pos) {
      inst.focusPoint = d.index;
      push(curveEdit({ kind: "point", action: "move", index: d.index, x: d.pos[0], y: d.pos[1] }));
    } else if (inst.needsChart || d.moved) render();
  }
  /**
   * @param {number} i
   * @param {boolean} [keepFocus] focus the point that takes its place (Delete on a focused point)
   */
  function removePoint(i, keepFocus) {
    if (chartLocked()) return;
    inst.focusPoint = keepFocus ? i : null;
    push(curveEdit({ kind: "point", action: "remove", index: i }));
  }
  /** @param {KeyboardEvent} e */
  function onChartKey(e) {
    const i = pointIndex(e.target);
    if (i === null || chartLocked() || e.altKey || e.ctrlKey || e.metaKey) return;
    const pts = activePoints();
    if (i >= pts.length) return;
    const big = e.shiftKey;
    let [x, y] = pts[i];
    if (e.key === "ArrowLeft") x -= big ? 5 : 1;
    else if (e.key === "ArrowRight") x += big ? 5 : 1;
    else if (e.key === "ArrowUp") y += big ? 0.1 : 0.02;
    else if (e.key === "ArrowDown") y -= big ? 0.1 : 0.02;
    else if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); e.stopPropagation(); removePoint(i, true); return; }
    else return;
    e.preventDefault(); e.stopPropagation();
    inst.focusPoint = i;
    const xMax = cfg().xMax;
    push(curveEdit({ kind: "point", action: "move", index: i, x: round2(clamp(x, 0, xMax)), y: round2(clamp(y, 0, 1)) }));
  }
  plot.addEventListener("click", onPlotClick);
  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", (e) => endDrag(e, true));
  svg.addEventListener("pointercancel", (e) => endDrag(e, false));
  svg.addEventListener("pointerleave", () => { if (!inst.drag) hideCross(); });
  svg.addEventListener("dblclick", (e) => { const i = pointIndex(e.target); if (i !== null) { e.preventDefault(); removePoint(i); } });
  svg.addEventListener("contextmenu", (e) => { const i = pointIndex(e.target); if (i !== null) { e.preventDefault(); removePoint(i); } });
  svg.addEventListener("keydown", onChartKey);
  svg.addEventListener("focusin", (e) => { const i = pointIndex(e.target); if (i !== null) inst.focusPoint = i; });
  svg.addEventListener("focusout", (e) => { if (!e.relatedTarget || pointIndex(e.relatedTarget) === null) inst.focusPoint = null; });

  /** @type {(i: number, pos: [number, number]) => void} */
  const movePoint = (i, pos) => placePointAt(svg, inst.geom, i, pos);
  /** @type {(pos: [number, number]) => void} */
  const showCross = (pos) => showCrosshair(crossParts, inst.geom, pos);
  function hideCross() { cross.setAttribute("visibility", "hidden"); }

  const resize = new ResizeObserver(() => {
    const w = Math.floor(chartBox.clientWidth);
    if (w > 0 && Math.abs(w - inst.chartWidth) >= 1 && inst.view) renderChart();
  });
  resize.observe(chartBox);
  const onWindowResize = () => { if (inst.view) renderChart(); };
  window.addEventListener("resize", onWindowResize);

  // ------------------------------------------------------------------ drawing

  /** @type {Map<number, number>} */
  let tintOf = new Map();  // the neutral tint of each unlabelled segment, by its first token (segment_tints.js)
  /**
   * The colour of each segment: its axis's, or a neutral tint.
   * @param {SurfaceContent} content
   * @returns {string[]}
   */
  function segmentColors(content) {
    const axes = content.segment_axes.map((a) => (a ? axisOf(a) : null));
    const { tints, kept } = assignTints(tintOf, content.boundaries, axes.map(Boolean), cfg().n);
    tintOf = kept;
    return axes.map((axis, j) => (axis ? safeColor(axis.color, "#4C78A8") : NEUTRAL[tints[j]]));
  }

  /* The text is built once per sample (a span per word, token and gap) and afterwards only
     updated where a render changes it: a boundary click on a 2,500-token text rebuilt ~10,000
     elements (220–390 ms on 840 tokens); now it rewrites the classes, tints and pills that
     changed. ``textDom`` holds the elements and what each last showed. */
  /**
   * @typedef {object} TextDom
   * @property {string | null} key the text it was built for (tokens and spaces)
   * @property {SurfaceView | null} view the view it last drew
   * @property {(HTMLSpanElement | null)[]} gaps the gap before token i (none before token 0)
   * @property {HTMLSpanElement[]} toks
   * @property {(HTMLSpanElement | null)[]} pills the segment label before token i, where a segment starts
   * @property {HTMLSpanElement[]} words the word that holds token i
   * @property {string[]} gapCls
   * @property {string[]} tokCls
   * @property {string[]} gapState
   * @property {(string | null)[]} pillText
   * @property {(string | null)[]} pillColor
   * @property {number} [shownSeg] the segment last scrolled into view (-1: none)
   */
  /** @type {TextDom | null} */
  let textDom = null;
  /* A segment's tint is a class with a rule of its own (one per colour, in tintStyle), not an
     inline style per token: elements with the same classes share their computed style, and
     restyling the ~1,000 tokens a split repaints cost ~40 µs each with inline styles. */
  const tintStyle = h("style");
  root.appendChild(tintStyle);
  /** @type {Map<string, string>} */
  const tintClass = new Map();
  /** @param {string} color */
  function tintClassOf(color) {  // color: a checked #hex (safeColor) or one of NEUTRAL
    let cls = tintClass.get(color);
    if (!cls) {
      cls = "as-tint" + tintClass.size;
      tintClass.set(color, cls);
      tintStyle.textContent += `.${cls} { --seg-bg: color-mix(in srgb, ${color} 22%, transparent); --seg-line: ${color}; }\n`;
    }
    return cls;
  }
  /* A long text is drawn in paragraphs (text_paragraphs.js), each skipped by the browser while
     scrolled out of the box; until it is first drawn, a paragraph is sized by its characters. */
  /**
   * @param {SurfaceConfig} c
   * @returns {TextDom}
   */
  function buildText(c) {
    textBox.replaceChildren();
    /** @type {TextDom} */
    const dom = { key: null, view: null, gaps: new Array(c.n).fill(null), toks: new Array(c.n), pills: new Array(c.n).fill(null),
      words: new Array(c.n), gapCls: [], tokCls: [], gapState: [], pillText: [], pillColor: [] };
    const paraStarts = paragraphStarts(c.tokens, c.spaces);
    const several = paraStarts.length > 1;
    const em = parseFloat(getComputedStyle(textBox).fontSize) || 17;
    const perLine = Math.max(20, (textBox.clientWidth || 40 * em) / (0.6 * em));
    /** @type {HTMLSpanElement | null} */
    let word = null;
    /** @type {HTMLDivElement} */
    let box = textBox;
    let p = 0;
    for (let i = 0; i < c.n; i++) {
      const spaced = i > 0 && !!c.spaces[i - 1];
      if (several && paraStarts[p] === i) {
        const end = p + 1 < paraStarts.length ? paraStarts[p + 1] : c.n;
        let chars = 0;
        for (let k = i; k < end; k++) chars += String(c.tokens[k]).length + (c.spaces[k] ? 1 : 0) + 1;
        box = h("div", { class: "as-para" });
        box.style.containIntrinsicSize = `auto ${(Math.ceil(chars / perLine) * 2.15).toFixed(2)}em`;
        textBox.appendChild(box);
        p += 1;
      }
      if (i > 0) {
        const gap = h("span", { "data-gap": i });
        if (spaced) box.appendChild(gap); else word.appendChild(gap);
        dom.gaps[i] = gap;
      }
      if (i === 0 || spaced) { word = h("span", { class: "as-word" }); box.appendChild(word); }
      dom.words[i] = word;
      dom.toks[i] = h("span", { "data-token": i, text: c.tokens[i] });
      word.appendChild(dom.toks[i]);
    }
    return dom;
  }
  function renderText() {
    const c = cfg(), content = inst.local.content;
    const editable = (c.single || inst.local.step === 0) && !locked();
    textBox.classList.toggle("editable", editable);
    textBox.setAttribute("aria-label", editable ? "Text: activate a gap between two words to split or join segments" : "Text, coloured by segment");
    if (!c.n) { textDom = null; textBox.replaceChildren(h("span", { class: "as-muted", text: "(no text)" })); return; }
    if (!textDom || textDom.view !== inst.view) {  // a new view: the same text, or another one?
      const key = c.tokens.join("\u0001") + "\u0002" + c.spaces.map((x) => (x ? 1 : 0)).join("");
      if (!textDom || textDom.key !== key) { textDom = buildText(c); textDom.key = key; }
      textDom.view = inst.view;
    }
    const dom = textDom;
    const startSet = new Set(content.boundaries);
    const colors = segmentColors(content);
    const highlight = rowsShown() ? inst.focusSeg : -1;
    let seg = -1;
    for (let i = 0; i < c.n; i++) {
      if (startSet.has(i)) seg += 1;
      const j = Math.max(seg, 0), color = colors[j];
      const start = startSet.has(i), end = i === c.n - 1 || startSet.has(i + 1);
      const tint = tintClassOf(color);
      const tokCls = "as-tok " + tint + (start ? " seg-start" : "") + (end ? " seg-end" : "") + (j === highlight ? " hl" : "");
      if (dom.tokCls[i] !== tokCls) { dom.toks[i].className = tokCls; dom.tokCls[i] = tokCls; }
      const gap = dom.gaps[i];
      if (gap) {
        const spaced = !!c.spaces[i - 1];
        const gapCls = "as-gap " + tint + (spaced ? "" : " tight") + (start ? " boundary" : " inside") + (editable ? " active" : "")
          + (!start && j === highlight ? " hl" : "");
        if (dom.gapCls[i] !== gapCls) { gap.className = gapCls; dom.gapCls[i] = gapCls; }
        const state = (start ? "b" : "i") + (editable ? "e" : "");
        if (dom.gapState[i] !== state) {
          gap.setAttribute("data-boundary", start ? "true" : "false");
          if (editable) {
            gap.setAttribute("role", "button");
            gap.tabIndex = 0;
            gap.removeAttribute("aria-hidden");
            gap.setAttribute("aria-pressed", start ? "true" : "false");
            gap.setAttribute("aria-label", (start ? "Join the segments before “" : "Start a segment at “") + c.tokens[i] + "”");
            gap.title = start ? "Join segments here" : "Split the segment here";
          } else {
            for (const a of ["role", "tabindex", "aria-pressed", "aria-label", "title"]) gap.removeAttribute(a);
            gap.setAttribute("aria-hidden", "true");
          }
          dom.gapState[i] = state;
        }
      }
      if (start) {
        const axis = axisOf(content.segment_axes[j]);
        const text = String(j + 1) + (axis ? " " + axis.label : "");
        let pill = dom.pills[i];
        if (!pill) {
          pill = dom.pills[i] = h("span", { class: "as-pill" });
          dom.words[i].insertBefore(pill, dom.toks[i]);
          dom.pillText[i] = dom.pillColor[i] = null;
        }
        if (dom.pillText[i] !== text) { pill.textContent = text; pill.setAttribute("data-segment-label", String(j)); dom.pillText[i] = text; }
        if (dom.pillColor[i] !== color) { pill.style.setProperty("--seg-solid", color); dom.pillColor[i] = color; }
      } else if (dom.pills[i]) {
        dom.pills[i].remove();
        dom.pills[i] = null;
      }
    }
    // a long text scrolls inside its block: keep the segment being labelled in view
    if (highlight >= 0 && dom.shownSeg !== highlight && highlight < content.boundaries.length) {
      dom.shownSeg = highlight;
      keepInView(textBox, dom.toks[content.boundaries[highlight]]);
    } else if (highlight < 0) dom.shownSeg = -1;
  }
  /**
   * @param {HTMLElement} box
   * @param {HTMLElement | undefined} el
   */
  function keepInView(box, el) {
    if (!el || box.scrollHeight <= box.clientHeight) return;
    const b = box.getBoundingClientRect(), r = el.getBoundingClientRect();
    if (r.top < b.top) box.scrollTop -= b.top - r.top + 4;
    else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom + 4;
  }

  function renderQuestions() {
    const c = cfg();
    // open on the axis step, folded in the single layout (everything on one screen); the
    // annotator's own toggle holds until the layout changes
    if (questions.dataset.layout !== String(c.single)) {
      questions.dataset.layout = String(c.single);
      questions.open = !c.single;
    }
    const key = c.axes.map((a) => `${a.digit}|${a.label}|${a.key_question}`).join("\n");
    if (questionsList.dataset.key === key) return;  // drawn once per set of axes
    questionsList.dataset.key = key;
    questionsList.replaceChildren();
    for (const a of c.axes) {
      const item = h("div", { class: "as-question", "data-question": a.name },
        h("kbd", { text: String(a.digit || "") }), h("b", { text: String(a.label || a.name) }),
        h("span", { text: String(a.key_question || "") }));
      item.style.setProperty("--axis", safeColor(a.color, "#888"));
      questionsList.appendChild(item);
    }
  }

  function renderLegend() {
    const c = cfg(), used = new Set(inst.local.content.segment_axes.filter(Boolean));
    legend.replaceChildren();
    for (const a of c.axes) {
      const chip = h("span", { class: "as-legend-item" + (used.has(a.name) ? " used" : ""), title: String(a.key_question || "") },
        h("span", { class: "as-swatch" }), h("span", { class: "as-digit", text: String(a.digit || "") }), h("span", { text: String(a.label || a.name) }));
      chip.style.setProperty("--axis", safeColor(a.color, "#888"));
      legend.appendChild(chip);
    }
  }

  function renderSegTools() {
    const n = inst.local.content.boundaries.length;
    segCount.textContent = plural(n, "segment", "segments");
    resetBtn.disabled = n === 1 || locked();
  }

  function renderRows() {
    const c = cfg(), content = inst.local.content;
    const active = activeElement();
    const hadFocus = active && rowsBox.contains(active);
    rowsBox.replaceChildren();
    const starts = content.boundaries;
    const colors = segmentColors(content);
    starts.forEach((st, j) => {
      const end = j + 1 < starts.length ? starts[j + 1] : c.n;
      let text = "";
      for (let i = st; i < end; i++) text += c.tokens[i] + (i < end - 1 && c.spaces[i] ? " " : "");
      const focused = j === inst.focusSeg;
      const row = h("div", { class: "as-row" + (focused ? " focused" : "") + (content.segment_axes[j] ? " done" : ""), role: "listitem",
        "data-segment": j, tabindex: focused ? "0" : "-1",
        "aria-label": `Segment ${j + 1}: press ${axisKeys().replace("–", " to ")} to choose its axis` });
      row.style.setProperty("--seg-solid", colors[j]);
      const head = h("div", { class: "as-row-head" }, h("span", { class: "as-row-num", text: String(j + 1) }), h("span", { class: "as-row-text", text }));
      const opts = h("div", { class: "as-options", role: "radiogroup", "aria-label": `Axis of segment ${j + 1}` });
      for (const a of c.axes) {
        const on = content.segment_axes[j] === a.name;
        const b = h("button", { type: "button", class: "as-opt" + (on ? " on" : ""), "data-axis-option": a.name, role: "radio",
          "aria-checked": on ? "true" : "false", tabindex: "-1", title: `${a.label} (${a.digit}): ${a.key_question || ""}` },
          h("kbd", { text: String(a.digit || "") }), h("span", { text: String(a.label || a.name) }));
        b.style.setProperty("--axis", safeColor(a.color, "#888"));
        if (c.readOnly) b.disabled = true;
        opts.appendChild(b);
      }
      row.append(head, opts);
      rowsBox.appendChild(row);
    });
    if (hadFocus) { const row = /** @type {HTMLElement | null} */ (rowsBox.querySelector(`[data-segment="${inst.focusSeg}"]`)); if (row) row.focus({ preventScroll: true }); }
  }

  function chartHeight() {
    const c = cfg();
    if (c.single) return 300;
    return Math.round(clamp(window.innerHeight * 0.5 - 80, 220, 380));
  }

  function renderChart() {
    if (inst.drag) { inst.needsChart = true; return; }
    inst.needsChart = false;
    const v = viewOrEmpty();
    const c = cfg(), content = inst.local.content;
    const height = chartHeight();
    const width = Math.max(Math.floor(chartBox.clientWidth) || 560, 260);
    inst.chartWidth = width;
    root.style.setProperty("--as-chart-h", height + "px");
    const left = MARGIN.left, top = MARGIN.top;
    const w = width - MARGIN.left - MARGIN.right, h = height - MARGIN.top - MARGIN.bottom;
    /** @type {ChartGeometry} */
    const g = { left, top, w, h, sx: (x) => left + (x / c.xMax) * w, sy: (y) => top + (1 - y) * h };
    inst.geom = g;
    const context = onContext();
    const pts = context ? content.context_points : content.points;
    const disabled = chartLocked();
    const stale = curvePending();
    chartBox.classList.toggle("disabled", disabled);
    chartBox.classList.toggle("full", pts.length >= c.maxPoints);
    chartBox.setAttribute("data-points", JSON.stringify(pts));
    svg.setAttribute("width", String(width)); svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", `Validity curve chart with ${pts.length} of ${c.maxPoints} points`);
    backdrop.replaceChildren();
    const clip = s("clipPath", { id: clipId }, s("defs", {}, backdrop));
    s("rect", { x: g.left, y: g.top - 2, width: g.w, height: g.h + 4 }, clip);
    const grid = s("g", { class: "as-grid" }, backdrop), labels = s("g", {}, backdrop);
    for (const yv of Y_GRID) {
      const y = g.sy(yv);
      s("line", { x1: g.left, x2: g.left + g.w, y1: y, y2: y, class: yv === 0 ? "axis" : "" }, grid);
      s("text", { x: g.left - 7, y: y + 4, "text-anchor": "end", class: "as-tick" }, labels).textContent = Math.round(yv * 100) + "%";
    }
    const lastRight = [-Infinity, -Infinity];
    for (const tick of Array.isArray(v.ticks) ? v.ticks : []) {
      if (!Array.isArray(tick) || !finite(tick[0]) || tick[0] < 0 || tick[0] > c.xMax) continue;
      const x = g.sx(tick[0]);
      s("line", { x1: x, x2: x, y1: g.top, y2: g.top + g.h, class: tick[0] === 0 ? "axis" : "" }, grid);
      const text = String(tick[1] ?? "");
      const half = text.length * 3.3 + 4;
      const row = x - half >= lastRight[0] ? 0 : (x - half >= lastRight[1] ? 1 : -1);
      if (row < 0) continue;
      s("text", { x, y: g.top + g.h + 16 + row * 13, "text-anchor": "middle", class: "as-tick" }, labels).textContent = text;
      lastRight[row] = x + half;
    }
    s("text", { class: "as-axis-title", "text-anchor": "middle", transform: `translate(12 ${g.top + g.h / 2}) rotate(-90)` }, labels).textContent = "validity";
    s("text", { class: "as-axis-title", "text-anchor": "end", x: g.left + g.w, y: g.top + g.h + 42 }, labels).textContent = "time since publication (log scale) →";
    /** @type {(line: unknown) => [number, number][]} */
    const polyline = (line) => (Array.isArray(line) ? line.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) : []);
    if (context) {  // the target's own curve, drawn faintly behind the one given the follow-up
      const behind = polyline(v.curve);
      let d = "";
      for (const p of behind) d += (d ? "L" : "M") + g.sx(p[0]).toFixed(1) + "," + g.sy(clamp(p[1], -0.05, 1.05)).toFixed(1);
      if (behind.length > 1) s("path", { class: "as-curve-behind", d, "data-testid": "curve-alone", "clip-path": `url(#${clipId})` }, backdrop);
    }
    const curve = polyline(context ? v.context_curve : v.curve);
    if (curve.length > 1) {
      let d = "";
      for (const p of curve) d += (d ? "L" : "M") + g.sx(p[0]).toFixed(1) + "," + g.sy(clamp(p[1], -0.05, 1.05)).toFixed(1);
      const layer = s("g", { "clip-path": `url(#${clipId})`, class: stale ? "stale" : "" }, backdrop);
      const first = curve[0], last = curve[curve.length - 1];
      s("path", { class: "as-area", d: d + `L${g.sx(last[0]).toFixed(1)},${g.sy(0)}L${g.sx(first[0]).toFixed(1)},${g.sy(0)}Z` }, layer);
      s("path", { class: "as-curve", d, "data-testid": "curve-fit", "data-stale": stale ? "true" : "false" }, layer);
    }
    for (const [k, val] of Object.entries({ x: g.left, y: g.top, width: g.w, height: g.h, "data-x-max": c.xMax })) plot.setAttribute(k, String(val));
    crossV.setAttribute("y1", String(g.top)); crossV.setAttribute("y2", String(g.top + g.h));
    crossH.setAttribute("x1", String(g.left)); crossH.setAttribute("x2", String(g.left + g.w));

    const want = inst.focusPoint;
    while (pointLayer.children.length > 2 * pts.length) pointLayer.lastChild.remove();
    inst.focusPoint = want;
    pts.forEach((p, i) => {
      let circle = pointLayer.children[2 * i], num = pointLayer.children[2 * i + 1];
      if (!circle) {
        circle = s("circle", { r: 8, class: "as-point", "data-point": i }, pointLayer);
        num = s("text", { dy: "0.35em", "text-anchor": "middle", class: "as-num", "data-point-label": i }, pointLayer);
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
    if (inst.focusPoint !== null && !disabled) {
      const active = activeElement();
      if (!active || pointIndex(active) === null) {
        const target = pts.length ? pointLayer.children[2 * Math.min(inst.focusPoint, pts.length - 1)] : null;
        if (target) /** @type {SVGElement} */ (target).focus({ preventScroll: true }); else inst.focusPoint = null;
      }
    }
    if (c.readOnly) chartHint.textContent = "";
    else if (placing()) chartHint.textContent = "Placing the points from your durations…";
    else if (pts.length >= c.maxPoints) chartHint.textContent = `${c.maxPoints} points placed — drag a point to move it, double-click or Delete to remove it`;
    else chartHint.textContent = `Click to place a point (${pts.length} of ${c.maxPoints}; at least ${c.minPoints}) · drag to move · double-click to remove · arrow keys nudge`;
  }

  function renderSide() {
    const v = viewOrEmpty();
    const c = cfg(), content = inst.local.content;
    /** @type {Partial<SurfaceFit>} */
    const viewFit = onContext() ? v.context_fit : v.fit;
    const fit = viewFit && typeof viewFit === "object" ? viewFit : {};
    const stale = curvePending();
    sideInfo.replaceChildren();
    side.classList.toggle("stale", stale);
    if (stale) sideInfo.appendChild(h("div", { class: "as-updating", text: "Updating the curve…" }));
    if (fit.message) sideInfo.appendChild(h("div", { class: "as-fitmsg", "data-testid": "fit-message", text: String(fit.message) }));
    const summary = Array.isArray(fit.summary) ? fit.summary : [];
    if (summary.length) {
      const ul = h("ul", { class: "as-summary" });
      for (const line of summary) ul.appendChild(h("li", { text: String(line) }));
      sideInfo.appendChild(ul);
    }
    const p = fit.params && typeof fit.params === "object" ? fit.params : null;
    if (p) {
      /** @type {(x: unknown, d: number) => string} */
      const f = (x, d) => (finite(x) ? x.toFixed(d) : "–");
      const line = h("div", { class: "as-params", "data-testid": "fit-params" },
        h("span", { text: `ξ ${f(p.xi, 2)}` }), h("span", { text: `ω ${f(p.omega, 2)}` }), h("span", { text: `α ${f(p.alpha, 2)}` }),
        h("span", { text: `RMSE ${f(p.rmse, 3)}` }));
      if (p.source === "manual") line.appendChild(h("span", { class: "as-badge", text: "hand-tuned" }));
      sideInfo.appendChild(line);
    } else if (!fit.message && !summary.length) {
      sideInfo.appendChild(h("div", { class: "as-muted", text: `No curve yet: place at least ${c.minPoints} points.` }));
    }
    const residuals = Array.isArray(fit.residuals) ? fit.residuals : null;
    if (residuals && residuals.length) {
      const box = h("div", { class: "as-resid" }, h("span", { class: "as-muted", text: "Residual per point: " }));
      residuals.forEach((/** @type {unknown} */ r, /** @type {number} */ i) => box.appendChild(h("span", { class: "as-resid-item", text: `${i + 1}: ${finite(r) ? (r >= 0 ? "+" : "") + r.toFixed(2) : "–"}` })));
      sideInfo.appendChild(box);
    }
    const viewFeedback = onContext() ? v.context_feedback : v.feedback;
    const fb = viewFeedback && typeof viewFeedback === "object" ? viewFeedback : null;
    if (fb) {
      const lines = Array.isArray(fb.lines) ? fb.lines : [];
      if (lines.length) {
        const ul = h("ul", { class: "as-feedback", "data-testid": "feedback" });
        for (const line of lines) ul.appendChild(h("li", { text: String(line) }));
        sideInfo.appendChild(ul);
      }
      const left = Array.isArray(fb.left_after) ? fb.left_after.filter((r) => Array.isArray(r)) : [];
      if (left.length) {
        const grid = h("div", { class: "as-left", "data-testid": "left-after" }, h("div", { class: "as-left-title", text: "Validity left after" }));
        const cells = h("div", { class: "as-left-cells" });
        for (const [label, value] of left) cells.appendChild(h("div", { class: "as-left-cell" }, h("span", { class: "as-muted", text: String(label) }), h("b", { text: String(value) })));
        grid.appendChild(cells);
        sideInfo.appendChild(grid);
      }
    }
    // tools
    const ro = locked();
    tuneToggle.hidden = ro || !p; placeToggle.hidden = ro;
    tuneToggle.setAttribute("aria-expanded", inst.tuneOpen ? "true" : "false");
    placeToggle.setAttribute("aria-expanded", inst.placeOpen ? "true" : "false");
    tunePanel.hidden = ro || !p || !inst.tuneOpen;
    placePanel.hidden = ro || !inst.placeOpen;
    if (!tunePanel.hidden) {
      const shadowActive = activeElement();
      const editing = shadowActive && tunePanel.contains(shadowActive);
      if (!editing || !inst.tuneFilled) {
        const active = onContext() ? swappedCurves(content) : content;  // the curve the chart edits, as the first
        const src = /** @type {Record<string, unknown>} */ (active.params_source === "manual" && finite(active.xi) ? active : p);
        for (const [name, input] of tuneInputs) { const value = src[name]; if (finite(value)) input.value = String(round2(value)); }
        inst.tuneFilled = true;
      }
      tuneRefit.disabled = (onContext() ? content.context_params_source : content.params_source) !== "manual";
    }
  }

  /* A pair's last step: the follow-up (its text set with textContent, never parsed), the change
     the two curves say — the server's reading of the stored curves, marked as updating while a
     curve edit is on its way — and the annotator's choice: as derived (change "") or a label of
     their own, which is recorded as an override. */
  function renderPair() {
    const v = viewOrEmpty(), c = cfg(), content = inst.local.content;
    const pair = /** @type {Partial<SurfacePair>} */ (v.pair_panel && typeof v.pair_panel === "object" ? v.pair_panel : {});
    const follow = typeof pair.follow_up === "string" ? pair.follow_up : "";
    if (followText.textContent !== follow) followText.textContent = follow;
    const reading = derivedReading();
    const stale = curvePending();
    changeBox.classList.toggle("stale", stale);
    // the panel keeps its height whatever it says (CSS: two lines each), and "updating" is a
    // tint, not words: the chart below must not move between an annotator's aim and their click
    const own = content.change && content.change !== c.changeConfirm ? content.change : "";
    changeWords.textContent = (reading ? String(reading.words || "") : "Draw both curves to see the change they say.")
      + (own && reading && own !== reading.label ? ` Your label: ${own}, not the curves' — it goes to review.` : "")
      + (!content.change ? " Confirm it (0) or choose another (1–3)." : "");
    changeWords.title = stale ? "Updating: a curve edit is on its way to the server" : "";
    changeClasses.textContent = reading && reading.alone_class && reading.given_class
      ? `Duration class (TVCP): alone “${String(reading.alone_class.name)}” → given the follow-up “${String(reading.given_class.name)}”.` : "\u00a0";
    const labels = Array.isArray(pair.labels) ? pair.labels.map(String) : [];
    const key = labels.join("|") + "#" + c.changeOptions.join("|");
    if (changeOptions.dataset.key !== key) {
      changeOptions.dataset.key = key;
      changeOptions.replaceChildren();
      c.changeOptions.forEach((option, i) => {
        const b = h("button", { type: "button", class: "as-opt as-change-opt", role: "radio", "data-change-option": option, tabindex: "-1" },
          h("kbd", { text: String(i) }), h("span", { class: "as-change-label" }));
        b.addEventListener("mousedown", (e) => { if (e.button === 0) e.preventDefault(); });
        b.addEventListener("click", () => chooseChange(option));
        changeOptions.appendChild(b);
      });
    }
    for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (changeOptions.querySelectorAll("[data-change-option]"))) {
      const option = b.getAttribute("data-change-option") || "";
      const on = content.change === option;
      b.classList.toggle("on", on);
      b.setAttribute("aria-checked", on ? "true" : "false");
      b.disabled = locked();
      // fixed labels (a label that grew would re-wrap the row and move the chart); the derived
      // one is marked by its style
      const confirm = option === c.changeConfirm;
      const derived = !confirm && !!reading && reading.label === option;
      b.classList.toggle("derived", derived);
      /** @type {HTMLElement} */ (b.querySelector(".as-change-label")).textContent = confirm ? "As derived" : option;
      b.title = confirm ? "Confirm the change the two curves say" + (reading ? ` (${String(reading.label)})` : "")
        : derived ? `${option}: what the two curves say` : `Override: the change is ${option} (recorded and reviewed)`;
    }
  }
  /** @returns {Partial<SurfaceChangeReading> | null} the server's reading of the stored curves */
  function derivedReading() {
    const pair = viewOrEmpty().pair_panel;
    const reading = pair && typeof pair === "object" ? pair.reading : null;
    return reading && typeof reading === "object" ? reading : null;
  }
  /**
   * The annotator's change: "derived" confirms the label the curves give; a label is an
   * override — unless it is the derived label itself (the server's, with no curve edit on its
   * way), which is confirming it.
   * @param {string} option
   */
  function chooseChange(option) {
    if (locked() || !cfg().changeOptions.includes(option)) return;
    const reading = derivedReading();
    const confirm = cfg().changeConfirm;
    const change = option !== confirm && reading && reading.label === option && !curvePending() ? confirm : option;
    if (change === inst.local.content.change) return;
    push({ kind: "change", change });
  }

  function renderMessages() {
    const v = viewOrEmpty();
    messageBox.replaceChildren();
    const items = [];
    if (inst.message) items.push({ level: inst.message.level, text: inst.message.text, local: true });
    const version = int(v.version, 0);
    for (const n of Array.isArray(v.notices) ? v.notices : []) {
      if (!n || typeof n.text !== "string") continue;
      const level = ["error", "warning", "info", "success"].includes(n.level) ? n.level : "info";
      const key = `${version}|${level}|${n.text}`;
      if (!inst.dismissed.has(key)) items.push({ level, text: n.text, key });
    }
    if (cfg().readOnly && !cfg().conflict) items.push({ level: "info", text: "Submitted — this annotation can no longer be changed.", fixed: true });
    for (const it of items) {
      const close = h("button", { type: "button", class: "as-x", "aria-label": "Dismiss", title: "Dismiss", text: "×" });
      const row = h("div", { class: "as-note " + it.level, "data-level": it.level, role: it.level === "error" ? "alert" : "status" },
        h("span", { class: "as-note-text", text: it.text }), it.fixed ? null : close);
      close.addEventListener("click", () => {
        if (it.local) inst.message = null; else inst.dismissed.add(it.key);
        renderMessages();
      });
      messageBox.appendChild(row);
    }
    messageBox.hidden = !items.length;
  }

  function renderStatus() {
    const c = cfg();
    const pend = inst.delivery.pending().length;
    root.setAttribute("data-acked", String(acked()));
    root.setAttribute("data-pending", String(pend));
    const stalled = pend && Date.now() - inst.delivery.lastProgress() > STALL_MS;
    saved.className = "as-saved" + (pend ? (stalled ? " stalled" : " saving") : " ok");
    saved.textContent = c.conflict ? "Not saved: newer work in another tab" : c.readOnly ? "Submitted" : inst.submittingSeq !== null ? "Submitting…"
      : pend ? (stalled ? "Not saved yet — retrying…" : "Saving…") : "Saved";
  }

  function renderFooter() {
    const c = cfg(), step = inst.local.step;
    backBtn.disabled = c.single || step <= c.firstStep;
    nextBtn.disabled = c.single || step >= c.steps.length - 1;
    backBtn.hidden = nextBtn.hidden = c.single;
    backBtn.title = "Previous step (Alt+←)"; nextBtn.title = "Next step (Alt+→)";
    flagBtn.hidden = submitBtn.hidden = c.readOnly;
    flagBtn.disabled = locked();
    flagBtn.classList.toggle("on", inst.flagOpen);
    flagBtn.setAttribute("aria-expanded", inst.flagOpen ? "true" : "false");
    const unflagged = problems();
    submitBtn.disabled = c.readOnly || c.quota || inst.submittingSeq !== null || unflagged.length > 0;
    submitBtn.textContent = inst.submittingSeq !== null ? "Submitting…" : "Submit";
    submitBtn.title = c.quota ? "You reached today's quota" : unflagged.length ? unflagged.join(" ") : "Submit (Enter or Alt+Enter)";
    statusMissing.textContent = c.readOnly ? "" : c.quota ? "Daily quota reached — saved as a draft."
      : unflagged.length ? "To submit: " + unflagged.join(" ")
      : handTunedMisses() ? "Ready to submit — the hand-tuned curve misses your points: you will be asked to confirm." : "Ready to submit.";
    statusMissing.classList.toggle("ready", !c.readOnly && !c.quota && !unflagged.length);
    statusMissing.title = statusMissing.textContent;
    const keys = [];
    if (rowsShown() && !c.readOnly) keys.push(`${axisKeys()} axis`, "Tab/↑↓ segment");
    if (onContext() && !c.readOnly) keys.push(`0–${c.changeOptions.length - 1} change`);
    if (!c.single) keys.push("Alt+←/→ step");
    if (!c.readOnly) keys.push(c.confirm ? "Enter submit (then Enter to confirm)" : "Enter submit");
    statusKeys.textContent = keys.join(" · ");
    renderStatus();
  }

  function renderConfirm() {
    confirmBox.hidden = confirmDialog.hidden = !inst.confirm;
    root.classList.toggle("confirming", !!inst.confirm);
    if (!inst.confirm) return;
    const c = cfg(), content = inst.local.content;
    confirmTitle.textContent = inst.confirm.flagged ? "Submit this sample as flagged?"
      : inst.confirm.misses ? "Submit a hand-tuned curve that misses your points?" : "Submit this annotation?";
    confirmOk.textContent = inst.confirm.misses ? "Submit as tuned (Enter)" : "Submit (Enter)";
    confirmBody.replaceChildren();
    if (inst.confirm.misses) {
      confirmBody.appendChild(h("div", { "data-testid": "confirm-misses", text: inst.confirm.misses }));
      confirmBody.appendChild(h("div", { text: "It is stored with your parameters (hand-tuned), not refitted to the points. Cancel to adjust it." }));
    } else if (inst.confirm.flagged) {
      const labels = content.flags.map((code) => (c.flags.find((f) => f.code === code) || { label: code }).label);
      confirmBody.appendChild(h("div", { text: "Flagged: " + labels.join(", ") }));
      if (content.note) confirmBody.appendChild(h("div", { class: "as-muted", text: "Note: " + content.note }));
    } else {
      const n = content.boundaries.length;
      const names = content.segment_axes.map((a) => { const ax = axisOf(a); return ax ? ax.label : "—"; });
      if (c.segmented) confirmBody.appendChild(h("div", { text: `${plural(n, "segment", "segments")}: ${names.join(", ")}` }));
      if (c.pair) {
        const reading = derivedReading();
        confirmBody.appendChild(h("div", { "data-testid": "confirm-change", text: content.change
          ? `Change: ${content.change} (your override)` : `Change: ${reading ? String(reading.label) : "as the curves say"} (as derived)` }));
      }
      /** @type {Partial<SurfaceFit>} */
      const fit = viewOrEmpty().fit || {};
      const summary = Array.isArray(fit.summary) ? fit.summary : [];
      confirmBody.appendChild(h("div", { text: curvePending() ? `${plural(content.points.length, "point", "points")}; the curve is fitted again on submit.`
        : (summary.length ? String(summary[0]) : plural(content.points.length, "point", "points")) }));
    }
    confirmBody.appendChild(h("div", { class: "as-muted", text: "After submitting you cannot change this annotation." }));
  }

  /* The controls drawn from the view's names and limits (surface_rules on the server): the
     steps' names, the parameter inputs (ξ, ω, α with the fit's bounds), the duration units and
     the note's length. Each is drawn again only when what it shows changes (once per mount). */
  const ruleKeys = { steps: "", parameters: "", units: "" };
  function renderRuleControls() {
    const c = cfg();
    const stepsKey = c.steps.join("\n");
    if (ruleKeys.steps !== stepsKey) {
      ruleKeys.steps = stepsKey;
      stepButtons.forEach((b, i) => { b.querySelector(".as-step-name").textContent = c.steps[i] ?? ""; });
    }
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
      inst.tuneFilled = false;
    }
    const unitsKey = c.timeUnits.map((u) => u.name).join("\n");
    if (ruleKeys.units !== unitsKey) {
      ruleKeys.units = unitsKey;
      for (const [sel, preferred] of /** @type {[HTMLSelectElement, string][]} */ ([[peakU, "days"], [halfU, "weeks"]])) {
        const was = sel.value;
        sel.replaceChildren(...c.timeUnits.map((u) => h("option", { value: u.name, text: u.name })));
        const names = c.timeUnits.map((u) => u.name);
        sel.value = names.includes(was) ? was : names.includes(preferred) ? preferred : (names[0] ?? "");
      }
    }
    if (c.noteMaxChars > 0) flagNote.maxLength = c.noteMaxChars; else flagNote.removeAttribute("maxlength");
  }

  function render() {
    const v = inst.view;
    if (!v) return;
    renderRuleControls();
    const c = cfg(), step = inst.local.step;
    root.setAttribute("data-annotation-id", String(v.annotation_id ?? ""));
    root.setAttribute("data-client", String(v.client ?? ""));
    root.setAttribute("data-mount", String(inst.mount));
    root.setAttribute("data-step", String(step));
    root.setAttribute("data-layout", c.single ? "single" : "steps");
    root.setAttribute("data-version", String(int(v.version, 0)));
    root.setAttribute("data-read-only", c.readOnly ? "true" : "false");
    root.classList.toggle("single", c.single);
    root.classList.toggle("readonly", c.readOnly);
    root.classList.toggle("submitting", inst.submittingSeq !== null);
    const content = inst.local.content;
    const done = [true, content.segment_axes.every(Boolean), content.points.length >= c.minPoints,
      content.context_points.length >= c.minPoints];
    stepbar.hidden = c.single;
    stepButtons.forEach((b, i) => {
      // the steps of the view's protocol an annotator may go to (a pair that is not segmented
      // starts at its curve; a single text has no fourth step)
      b.hidden = i < c.firstStep || i >= c.steps.length;
      b.classList.toggle("current", i === step);
      b.classList.toggle("done", done[i] && i !== step);
      b.setAttribute("aria-selected", i === step ? "true" : "false");
      b.tabIndex = -1;
      b.querySelector(".as-step-check").textContent = done[i] && i !== 0 ? "✓" : "";
      b.querySelector(".as-step-num").textContent = String(i + 1 - c.firstStep);
    });
    stepInfo.textContent = c.single ? "" : "Alt+← / Alt+→ to change step";
    const context = onContext();
    const showSeg = c.single || step === 0, showRows = c.single || step === 1, showCurve = c.single || step === 2 || context;
    segTools.hidden = !showSeg || c.readOnly;
    rowsSection.hidden = !showRows;
    curveSection.hidden = !showCurve;
    textSection.classList.toggle("compact", !c.single && step >= 2);
    legend.hidden = !c.segmented;
    textBox.classList.toggle("unsegmented", !c.segmented);
    // the follow-up is drawn only on the pair's last step: before it, nothing of it is on screen
    pairSection.hidden = !context;
    root.setAttribute("data-curve", context ? "context" : "target");
    if (context) renderPair(); else if (followText.textContent) followText.textContent = "";
    renderText();
    renderLegend();
    renderQuestions();
    if (showSeg) renderSegTools();
    if (showRows) renderRows();
    if (showCurve) { renderChart(); renderSide(); }
    flagPanel.hidden = !inst.flagOpen;
    renderMessages();
    renderFooter();
    renderConfirm();
  }
  inst.render = render;
  inst.receive = receive;
  inst.afterReceive = () => {
    if (inst.fresh) {
      inst.fresh = false;
      if (rowsShown() && !cfg().readOnly && !cfg().single) focusRow();
    }
  };
  inst.root = root;
  inst.destroy = () => {
    document.removeEventListener("keydown", onDocKey, true);
    window.removeEventListener("resize", onWindowResize);
    resize.disconnect();
    inst.delivery.dispose();
    root.remove();
  };
  return inst;
}

/**
 * Streamlit calls this on every run with the newest view (custom components v2).
 * @param {ComponentArgs} component
 */
export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  let inst = INSTANCES.get(parentElement);
  if (!inst) {
    inst = createInstance(parentElement);
    INSTANCES.set(parentElement, inst);
  }
  // Called again (same parentElement, previous cleanup not run) whenever `data` changes.
  inst.delivery.setSend(setTriggerValue);
  if (data && typeof data === "object") {
    inst.receive(/** @type {SurfaceView} */ (data));
    inst.render();
    inst.afterReceive();
  }
  // the cleanup rule (a surface still on the page is kept): instanceCleanup, from
  // instance_cleanup.js, put in front of this module by annotation_surface.py
  return instanceCleanup(inst, ++inst.generation, parentElement, INSTANCES);
}
