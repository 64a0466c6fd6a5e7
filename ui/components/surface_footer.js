// @ts-check
/* The annotation surface's steps and footer: the step tabs above (the view's steps, those an
   annotator may go to), the message line (the surface's own message and the server's notices),
   and the footer with Back / Next, what a submit still needs, "Saving…"/"Saved", the keys, Flag
   and Submit. Made by createSurfaceFooter(ctx, submit) (annotation_surface.js; the context's type
   is in surface_config.js); the flag panel and the confirmation of surface_submit.js are anchored
   to the footer, which stays on screen. Put in front of the surface's module at import
   (ui/components/sources.py), after dom_helpers.js. What each control shows is worked out by pure
   functions (stepTabs, savedLine, footerState, messageItems), unit-tested with `node --test`
   (tests/js/surface_footer.test.js). All text is set with textContent. */

/** No acknowledgement for this long (ms): the status line says so. */
const STALL_MS = 5000;

/**
 * The step tabs: one per step of the view, shown from the first step an annotator may go to,
 * numbered from there; a step is done when its part is (the segmentation always is, the axis
 * step when every segment has an axis, a curve step when it has its points; ✓ on a done step
 * other than the segmentation and the current one).
 * @param {SurfaceConfig} c
 * @param {SurfaceContent} content
 * @param {number} step the step drawn
 * @returns {{ name: string, hidden: boolean, current: boolean, done: boolean, check: string, num: string }[]}
 */
function stepTabs(c, content, step) {
  /** @type {(i: number) => boolean} */
  const done = (i) => (i === c.segmentStep ? true : i === c.axisStep ? content.segment_axes.every(Boolean)
    : i === c.curveStep ? content.points.length >= c.minPoints : i === c.contextStep ? content.context_points.length >= c.minPoints : false);
  return c.steps.map((name, i) => ({
    name, hidden: i < c.firstStep, current: i === step, done: done(i) && i !== step,
    check: done(i) && i !== c.segmentStep ? "✓" : "", num: String(i + 1 - c.firstStep),
  }));
}

/**
 * The "Saving…"/"Saved" line: its class and words.
 * @param {SurfaceConfig} c
 * @param {{ pending: number, stalled: boolean, submitting: boolean }} s
 * @returns {{ cls: string, text: string }}
 */
function savedLine(c, s) {
  const cls = "as-saved" + (s.pending ? (s.stalled ? " stalled" : " saving") : " ok");
  const text = c.conflict ? "Not saved: newer work in another tab" : c.readOnly ? "Submitted" : s.submitting ? "Submitting…"
    : s.pending ? (s.stalled ? "Not saved yet — retrying…" : "Saving…") : "Saved";
  return { cls, text };
}

/**
 * What the footer's Submit and status show: whether Submit is enabled, its words and title,
 * what a submit still needs (or that it is ready), and the keys.
 * @param {SurfaceConfig} c
 * @param {{ problems: string[], misses: string | null, submitting: boolean, rowsShown: boolean, panelKeys: string[] }} s
 * @returns {{ submitDisabled: boolean, submitText: string, submitTitle: string, missing: string, ready: boolean, keys: string }}
 */
function footerState(c, s) {
  const unflagged = s.problems;
  const keys = [];
  if (s.rowsShown && !c.readOnly) keys.push(`${axisKeysOf(c.axes)} axis`, "Tab/↑↓ segment");
  keys.push(...s.panelKeys.filter(Boolean));
  if (!c.single) keys.push("Alt+←/→ step");
  if (!c.readOnly) keys.push(c.confirm ? "Enter submit (then Enter to confirm)" : "Enter submit");
  return {
    submitDisabled: c.readOnly || c.quota || s.submitting || unflagged.length > 0,
    submitText: s.submitting ? "Submitting…" : "Submit",
    submitTitle: c.quota ? "You reached today's quota" : unflagged.length ? unflagged.join(" ") : "Submit (Enter or Alt+Enter)",
    missing: c.readOnly ? "" : c.quota ? "Daily quota reached — saved as a draft."
      : unflagged.length ? "To submit: " + unflagged.join(" ")
      : s.misses ? "Ready to submit — the hand-tuned curve misses your points: you will be asked to confirm." : "Ready to submit.",
    ready: !c.readOnly && !c.quota && !unflagged.length,
    keys: keys.join(" · "),
  };
}

/**
 * The message line's items: the surface's own message, then the view's notices not dismissed
 * (a level the view does not know reads as "info"), then "Submitted" on a submitted annotation.
 * @param {SurfaceConfig} c
 * @param {Partial<SurfaceView>} view
 * @param {LocalMessage | null} message
 * @param {ReadonlySet<string>} dismissed
 * @returns {{ level: string, text: string, local?: boolean, key?: string, fixed?: boolean }[]}
 */
function messageItems(c, view, message, dismissed) {
  const items = [];
  if (message) items.push({ level: message.level, text: message.text, local: true });
  const version = wholeOr(view.version, 0);
  for (const n of Array.isArray(view.notices) ? view.notices : []) {
    if (!n || typeof n.text !== "string") continue;
    const level = c.noticeLevels.includes(n.level) ? n.level : "info";
    const key = `${version}|${level}|${n.text}`;
    if (!dismissed.has(key)) items.push({ level, text: n.text, key });
  }
  if (c.readOnly && !c.conflict) items.push({ level: "info", text: "Submitted — this annotation can no longer be changed.", fixed: true });
  return items;
}

/**
 * The steps and the footer of a surface.
 * @typedef {object} SurfaceFooter
 * @property {HTMLElement} stepbar
 * @property {HTMLElement} messageBox
 * @property {HTMLElement} footer
 * @property {(panels: ReadonlyArray<SurfacePanel>) => void} render
 * @property {() => void} renderStatus the "Saving…"/"Saved" line and the root's data-acked, data-pending
 */

/**
 * @param {SurfaceContext} ctx
 * @param {SurfaceSubmit} submit
 * @returns {SurfaceFooter}
 */
function createSurfaceFooter(ctx, submit) {
  const { inst, root } = ctx;
  const stepbar = h("div", { class: "as-stepbar", role: "tablist", "aria-label": "Steps" });
  const stepInfo = h("div", { class: "as-stepinfo" });
  stepbar.appendChild(stepInfo);
  /** @type {HTMLButtonElement[]} */
  let stepButtons = [];
  /** @type {string | null} */
  let stepsKey = null;
  const messageBox = h("div", { class: "as-message", "data-testid": "surface-message", "aria-live": "polite" });
  /** @type {(name: string, label: string, cls?: string) => HTMLButtonElement} */
  const cmd = (name, label, cls) => h("button", { type: "button", class: "as-btn " + (cls || ""), "data-command": name, text: label });
  const backBtn = cmd("back", "← Back"), nextBtn = cmd("next", "Next →");
  const flagBtn = cmd("flag", "⚑ Flag"), submitBtn = cmd("submit", "Submit", "as-primary");
  const statusMissing = h("div", { class: "as-missing", "data-testid": "surface-missing" });
  const statusKeys = h("div", { class: "as-keys" });
  const saved = h("span", { class: "as-saved", "data-testid": "surface-saved" });
  const footer = h("div", { class: "as-footer" }, backBtn, nextBtn,
    h("div", { class: "as-status" }, h("div", { class: "as-status-top" }, saved, statusMissing), statusKeys),
    flagBtn, submitBtn, submit.flagPanel, submit.confirmDialog);

  /** @param {MouseEvent} e */
  const noFocusSteal = (e) => { if (e.button === 0) e.preventDefault(); };
  for (const b of [backBtn, nextBtn, submitBtn, flagBtn]) b.addEventListener("mousedown", noFocusSteal);
  backBtn.addEventListener("click", () => ctx.goStep(inst.local.step - 1));
  nextBtn.addEventListener("click", () => ctx.goStep(inst.local.step + 1));
  submitBtn.addEventListener("click", submit.requestSubmit);
  flagBtn.addEventListener("click", submit.toggleFlag);

  /** The tabs, made again when the view's steps change (once per mount). */
  function makeStepButtons() {
    const c = ctx.cfg(), key = c.steps.join("\n");
    if (stepsKey === key) return;
    stepsKey = key;
    for (const b of stepButtons) b.remove();
    stepButtons = c.steps.map((name, i) => {
      const b = h("button", { type: "button", class: "as-step", role: "tab", "data-step-tab": i },
        h("span", { class: "as-step-num", text: String(i + 1) }), h("span", { class: "as-step-name", text: name }),
        h("span", { class: "as-step-check", "aria-hidden": "true" }));
      b.addEventListener("click", () => ctx.goStep(i));
      b.addEventListener("mousedown", noFocusSteal);
      stepbar.insertBefore(b, stepInfo);
      return b;
    });
  }
  function renderSteps() {
    makeStepButtons();
    const c = ctx.cfg();
    stepbar.hidden = c.single;
    stepTabs(c, inst.local.content, inst.local.step).forEach((tab, i) => {
      const b = stepButtons[i];
      b.hidden = tab.hidden;
      b.classList.toggle("current", tab.current);
      b.classList.toggle("done", tab.done);
      b.setAttribute("aria-selected", tab.current ? "true" : "false");
      b.tabIndex = -1;
      b.querySelector(".as-step-check").textContent = tab.check;
      b.querySelector(".as-step-num").textContent = tab.num;
    });
    stepInfo.textContent = c.single ? "" : "Alt+← / Alt+→ to change step";
  }
  function renderMessages() {
    messageBox.replaceChildren();
    const items = messageItems(ctx.cfg(), ctx.view(), inst.message, inst.dismissed);
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
    const pending = inst.delivery.pending().length;
    root.setAttribute("data-acked", String(inst.delivery.queue().acked));
    root.setAttribute("data-pending", String(pending));
    const line = savedLine(ctx.cfg(), { pending, stalled: !!pending && Date.now() - inst.delivery.lastProgress() > STALL_MS,
      submitting: inst.submittingSeq !== null });
    saved.className = line.cls;
    saved.textContent = line.text;
  }
  /** @param {ReadonlyArray<SurfacePanel>} panels */
  function renderFooter(panels) {
    const c = ctx.cfg(), step = inst.local.step;
    backBtn.disabled = c.single || step <= c.firstStep;
    nextBtn.disabled = c.single || step >= c.steps.length - 1;
    backBtn.hidden = nextBtn.hidden = c.single;
    backBtn.title = "Previous step (Alt+←)"; nextBtn.title = "Next step (Alt+→)";
    flagBtn.hidden = submitBtn.hidden = c.readOnly;
    flagBtn.disabled = ctx.locked();
    flagBtn.classList.toggle("on", inst.flagOpen);
    flagBtn.setAttribute("aria-expanded", inst.flagOpen ? "true" : "false");
    const s = footerState(c, { problems: ctx.problems(), misses: submit.misses(), submitting: inst.submittingSeq !== null,
      rowsShown: ctx.rowsShown(), panelKeys: panels.map((p) => p.keyHint()) });
    submitBtn.disabled = s.submitDisabled;
    submitBtn.textContent = s.submitText;
    submitBtn.title = s.submitTitle;
    statusMissing.textContent = s.missing;
    statusMissing.classList.toggle("ready", s.ready);
    statusMissing.title = s.missing;
    statusKeys.textContent = s.keys;
    renderStatus();
  }

  return {
    stepbar, messageBox, footer, renderStatus,
    render(panels) {
      renderSteps();
      renderMessages();
      renderFooter(panels);
    },
  };
}
