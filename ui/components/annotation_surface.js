// @ts-check
/* The annotation surface (see annotation_surface.py for the protocol and the view, CONTRACT.md
 * for what crosses the boundary).
 *
 * One mounted instance per parentElement (kept in a WeakMap): Streamlit calls the default
 * export again with new data after every run, and the instance must survive that with its
 * queue of not-yet-acknowledged events. All user text is set with textContent.
 *
 * This module holds the instance: the view's configuration, the delivery of the edits, the step,
 * the keys on the document and the order in which the parts draw. The parts are made with a
 * context (SurfaceContext, surface_config.js) and speak to each other only through it: the text
 * (surface_text.js), the axis rows (surface_axes.js), the chart (surface_chart.js, its pointer
 * shared with the curve canvas in point_drag.js), a protocol's panel (a context pair's:
 * surface_pair.js), the submit (surface_submit.js) and the steps and footer (surface_footer.js).
 *
 * Put in front of this module at import (ui/components/sources.py): instance_cleanup.js,
 * delivery.js (the numbered queue, its sending and re-sending: every component's protocol),
 * dom_helpers.js, curve_points.js, point_drag.js, chart_grid.js, text_gaps.js, edit_queue.js (how an edit joins
 * the queue), surface_state.js (what an edit changes: the view's and content's types are there
 * too), segment_tints.js, text_paragraphs.js, surface_config.js and the parts. */

// The instance last showing each sample/client ("annotation|client"): when Streamlit mounts
// the surface anew (a new parentElement) for the same sample and client, the new instance takes
// over its queue and numbering. Starting again from view.acked would lose the events still
// pending and, when the view was older than the server, reuse sequence numbers the server
// already applied (it would then skip the new edits as re-sends).
/** @type {Map<string, SurfaceInstance>} */
const BY_CLIENT = new Map();
const BY_CLIENT_MAX = 32;

/** @type {WeakMap<HTMLElement | ShadowRoot, SurfaceInstance>} */
const INSTANCES = new WeakMap();
let MOUNTS = 0;  // instances created on this page (data-mount: a remount shows as a new number)

/**
 * What Streamlit (custom components v2) hands the default export on every run.
 * @typedef {object} ComponentArgs
 * @property {HTMLElement | ShadowRoot} parentElement where the component draws (a shadow root: isolate_styles)
 * @property {unknown} data the view
 * @property {(name: string, value: unknown) => void} setTriggerValue sends a trigger value to Python
 */

/** @type {(v: unknown, d: number) => number} */
const int = (v, d) => wholeOr(v, d);

/**
 * A new surface drawn into `parentElement` (render, receive and the rest are set at the end).
 * @param {HTMLElement | ShadowRoot} parentElement
 * @returns {SurfaceInstance}
 */
function createInstance(parentElement) {
  const inst = /** @type {SurfaceInstance} */ ({
    view: null, id: null, generation: 0, mount: ++MOUNTS, baseVersion: 0,
    local: { content: readSurfaceContent({}), step: 0 },
    focusSeg: 0, flagOpen: false, confirm: null, submittingSeq: null, message: null, dismissed: new Set(),
  });
  inst.delivery = createDelivery({  // delivery.js; reset to the view's client on the first view
    join: enqueueEdit,  // consecutive moves of one point fold into the last (edit_queue.js)
    extra: () => ({ base_version: inst.baseVersion }),
    onResend: () => footer.renderStatus(),
  });
  const root = h("div", { class: "as-root", "data-testid": "surface", tabindex: "-1" });

  // ---------- configuration from the view, read once per view (a render asks many times; a
  // 2,500-token text made each ask copy it)
  /** @returns {Partial<SurfaceView>} the view, or nothing before the first one */
  const viewOrEmpty = () => inst.view || {};
  /** @type {SurfaceView | null} */
  let cfgOf = null;
  /** @type {SurfaceConfig | null} */
  let cfgMemo = null;
  /** @returns {SurfaceConfig} */
  const cfg = () => {
    if (cfgMemo && cfgOf === inst.view) return cfgMemo;
    cfgOf = inst.view;
    return cfgMemo = surfaceConfigOf(inst.view);
  };
  const locked = () => cfg().readOnly || inst.submittingSeq !== null;
  const pendingKind = (/** @type {(kind: string) => boolean} */ test) => inst.delivery.pending().some((e) => test(e.kind));
  // a pair's last step edits its second curve (the target given the follow-up)
  const onContext = () => cfg().pair && inst.local.step === cfg().contextStep;

  /** @type {SurfaceContext} */
  const ctx = {
    inst, root, cfg, view: viewOrEmpty, push, render, locked, goStep,
    renderText: () => text.renderText(),
    renderStatus: () => footer.renderStatus(),
    rowsShown: () => cfg().single || inst.local.step === cfg().axisStep,
    onContext,
    curvePending: () => pendingKind((kind) => cfg().curveEdits.includes(kind)),
    placing: () => pendingKind((kind) => kind === "place"),
    curveEdit: (edit) => (onContext() ? { ...edit, curve: "context" } : edit),
    problems: () => submitProblems(viewOrEmpty(), inst.local.content, inst.delivery.pending(), cfg()),
    focusRow: () => axes.focusRow(),
    segmentColors: (content) => text.colors(content),
    activeElement: () => /** @type {Document | ShadowRoot} */ (root.getRootNode()).activeElement,
  };

  // ---------- the parts
  const text = createSurfaceText(ctx);
  const axes = createSurfaceAxes(ctx);
  const chart = createSurfaceChart(ctx);
  /** @type {SurfacePanel[]} a protocol's own panels (a context pair's follow-up and change) */
  const panels = [createPairPanel(ctx)];
  const submit = createSurfaceSubmit(ctx);
  const footer = createSurfaceFooter(ctx, submit);
  const body = h("div", { class: "as-body" }, text.section, ...panels.map((p) => p.section), axes.section, chart.section);
  root.append(footer.stepbar, body, footer.messageBox, footer.footer, submit.confirmBox, text.tintStyle);
  parentElement.appendChild(root);

  // ---------- the local state: the view's content with the pending edits (surface_state.js)
  function recompute() {
    const v = viewOrEmpty();
    inst.local = replaySurfaceEvents(v.content, v.step, inst.delivery.pending(), cfg());
    inst.focusSeg = clamp(inst.focusSeg, 0, Math.max(inst.local.content.boundaries.length - 1, 0));
  }
  function refreshMissingMessage() {
    const list = ctx.problems();
    inst.message = list.length ? { kind: "missing", level: "warning", text: "Not submitted yet — " + list.join(" ") } : null;
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
      inst.message = null; inst.dismissed = new Set();
      chart.reset();
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
    if (target === c.axisStep) {
      const labels = inst.local.content.segment_axes;
      const firstEmpty = labels.findIndex((a) => !a);
      inst.focusSeg = firstEmpty >= 0 ? firstEmpty : clamp(inst.focusSeg, 0, labels.length - 1);
      axes.focusRow();
    } else {
      const active = ctx.activeElement();
      if (active && root.contains(active) && !isTextField(active)) root.focus({ preventScroll: true });
    }
  }

  // ---------- keys (document, capture phase: no control can capture these)
  /** @param {KeyboardEvent} e */
  function onDocKey(e) {
    if (!root.isConnected || !inst.view) return;
    if (submit.onKey(e)) return;  // the confirmation or the flag panel is open
    if (e.altKey && !e.ctrlKey && !e.metaKey) {
      if (e.key === "ArrowRight") { stopKey(e); if (!e.repeat) goStep(inst.local.step + 1); }
      else if (e.key === "ArrowLeft") { stopKey(e); if (!e.repeat) goStep(inst.local.step - 1); }
      else if (e.key === "Enter") { stopKey(e); if (!e.repeat && !inst.flagOpen) submit.requestSubmit(); }
      return;
    }
    const path = e.composedPath ? e.composedPath() : [e.target];
    // the element the key was typed in (or the document or window: each check asks first)
    const t = /** @type {HTMLElement | null} */ (path[0]);
    if (e.ctrlKey || e.metaKey || isTextField(t)) return;
    const onPoint = !!(t && t.getAttribute && t.getAttribute("data-point") !== null);
    const inside = path.includes(root);
    // keys typed on the page itself (body, Streamlit's main container...) are ours too; keys
    // on another control (a button, a slider elsewhere on the page) are left to it
    /** @type {SurfaceKey} */
    const key = { target: t, inside, pageLevel: inside || !isActivatable(t), onPoint };
    if (panels.some((p) => p.onKey(e, key)) || axes.onKey(e, key)) return;
    if (e.key === "Enter" && (key.pageLevel || onPoint) && (!isActivatable(t) || onPoint)) {
      stopKey(e);
      if (!e.repeat) submit.requestSubmit();
    }
  }
  document.addEventListener("keydown", onDocKey, true);

  // ---------- drawing: the root's state, then each part (the order a render always takes)
  function render() {
    const v = inst.view;
    if (!v) return;
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
    const context = onContext();
    root.setAttribute("data-curve", context ? "context" : "target");
    const showRows = ctx.rowsShown(), showCurve = c.single || step === c.curveStep || context;
    // every section shown or hidden before any part draws (and reads the layout)
    axes.section.hidden = !showRows;
    chart.section.hidden = !showCurve;
    // the follow-up is drawn only on the pair's last step: before it, nothing of it is on screen
    for (const panel of panels) panel.section.hidden = !panel.shown();
    for (const panel of panels) if (panel.section.hidden) panel.hide(); else panel.render();
    text.render({ segments: c.single || step === c.segmentStep, compact: !c.single && step >= c.curveStep });
    axes.render(showRows);
    chart.render(showCurve);
    footer.render(panels);
    submit.render(panels);
  }
  inst.render = render;
  inst.receive = receive;
  inst.afterReceive = () => {
    if (inst.fresh) {
      inst.fresh = false;
      if (ctx.rowsShown() && !cfg().readOnly && !cfg().single) axes.focusRow();
    }
  };
  inst.root = root;
  inst.destroy = () => {
    document.removeEventListener("keydown", onDocKey, true);
    chart.dispose();
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
