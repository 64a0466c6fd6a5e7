// @ts-check
/* The annotation surface's submit part: what stops a plain submit, the submit itself, the
   confirmation (when the project asks for one, or a hand-tuned curve misses the points) and the
   flag panel (submit as flagged, with a reason and a note). Made by createSurfaceSubmit(ctx)
   (annotation_surface.js; the context's type is in surface_config.js); its elements are anchored
   to the footer (surface_footer.js). Put in front of the surface's module at import
   (ui/components/sources.py), after dom_helpers.js and surface_state.js. submitProblems and
   handTunedMisses are pure and unit-tested with `node --test` (tests/js/surface_submit.test.js).
   All text is set with textContent. */

/**
 * What stops a plain (unflagged) Submit: the server's list while nothing is pending, else the
 * same rules applied to the local content (unflaggedSubmitProblems, surface_state.js; the server
 * checks again on submit). A plain Submit drops a flag chosen earlier, so the flag does not
 * excuse anything here. While a curve edit is on its way the parameters are not checked;
 * otherwise the fit's own reason, when the server gave one ("Points 2 and 5 are both peaks…"),
 * is said as the chart's panel says it: one message for one problem.
 * @param {Partial<SurfaceView>} view
 * @param {SurfaceContent} content
 * @param {ReadonlyArray<SurfaceEditData>} pending
 * @param {SurfaceRules} rules
 * @returns {string[]}
 */
function submitProblems(view, content, pending, rules) {
  if (!pending.length && !content.flags.length) return Array.isArray(view.problems) ? view.problems.map(String) : [];
  const why = (view.fit || {}).message, whyContext = (view.context_fit || {}).message;
  const curvePending = pending.some((e) => rules.curveEdits.includes(e.kind));
  return unflaggedSubmitProblems(content, rules, { curvePending, fitMessage: why ? String(why) : null,
    contextFitMessage: whyContext ? String(whyContext) : null });
}

/**
 * The server's word that the hand-tuned curve misses the points, while nothing is pending (the
 * view is then the draft as it stands), without its "Curve: "; else null. A submit sent before
 * the view caught up is refused by the server with the same words, and the next Enter asks.
 * @param {Partial<SurfaceView>} view
 * @param {number} pendingCount
 * @returns {string | null}
 */
function handTunedMisses(view, pendingCount) {
  return !pendingCount && view.hand_tuned_misses ? String(view.hand_tuned_misses).replace(/^Curve: /, "") : null;
}

/**
 * The submit part of a surface.
 * @typedef {object} SurfaceSubmit
 * @property {HTMLElement} flagPanel
 * @property {HTMLElement} confirmDialog
 * @property {HTMLElement} confirmBox the backdrop behind the confirmation
 * @property {() => void} requestSubmit a plain submit: refused with what it still needs, or confirmed first, or sent
 * @property {() => void} toggleFlag open or close the flag panel
 * @property {() => string | null} misses handTunedMisses of the view drawn
 * @property {(e: KeyboardEvent) => boolean} onKey the confirmation's and the flag panel's keys
 *   while one is open (whether it took the key: no other key acts meanwhile)
 * @property {(panels: ReadonlyArray<SurfacePanel>) => void} render
 */

/**
 * @param {SurfaceContext} ctx
 * @returns {SurfaceSubmit}
 */
function createSurfaceSubmit(ctx) {
  const { inst, root } = ctx;
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

  const misses = () => handTunedMisses(ctx.view(), inst.delivery.pending().length);
  function requestSubmit() {
    const c = ctx.cfg();
    if (!inst.view || c.readOnly || inst.submittingSeq !== null || inst.confirm) return;
    if (c.quota) {
      inst.message = { kind: "quota", level: "info", text: "You reached today's quota: your work is saved as a draft." };
      ctx.render(); return;
    }
    const list = ctx.problems();
    if (list.length) {
      inst.message = { kind: "missing", level: "warning", text: "Not submitted yet — " + list.join(" ") };
      ctx.render(); return;
    }
    inst.message = null;
    const missed = misses();
    if (missed) { openConfirm(false, missed); return; }  // whatever the project's confirm setting
    if (c.confirm) { openConfirm(false); return; }
    doSubmit(false);
  }
  /**
   * @param {boolean} flagged
   * @param {boolean} [acceptMisses] the annotator confirmed a hand-tuned curve that misses the points
   */
  function doSubmit(flagged, acceptMisses) {
    if (!flagged && inst.local.content.flags.length) ctx.push({ kind: "flag", flags: [], note: "" });
    /** @type {SurfaceEdit} */
    const event = { kind: "submit", flagged: !!flagged };
    if (acceptMisses) event.accept_misses = true;
    const sent = ctx.push(event);
    if (sent) inst.submittingSeq = sent.seq;
    inst.confirm = null; inst.flagOpen = false;
    ctx.render();
  }
  function confirmSubmit() {
    if (inst.confirm) doSubmit(inst.confirm.flagged, !!inst.confirm.misses);
  }
  /**
   * @param {boolean} flagged
   * @param {string | null} [missed] how the hand-tuned curve misses the points
   */
  function openConfirm(flagged, missed) {
    inst.confirm = { flagged, misses: missed || null };
    ctx.render();
    confirmOk.focus({ preventScroll: true });
  }
  function closeConfirm() {
    inst.confirm = null;
    ctx.render();
    root.focus({ preventScroll: true });
  }
  function submitFlagged() {
    const c = ctx.cfg();
    const chosen = /** @type {HTMLInputElement | null} */ (flagReasons.querySelector("input:checked"));
    const code = chosen ? chosen.value : null;
    const reason = c.flags.find((f) => f.code === code);
    if (!reason) { flagError.textContent = "Choose a reason."; return; }
    const note = flagNote.value;
    if (reason.needs_note && !note.trim()) { flagError.textContent = `Please explain “${reason.label}” in the note.`; flagNote.focus(); return; }
    flagError.textContent = "";
    ctx.push({ kind: "flag", flags: [code], note });
    if (c.confirm) { inst.flagOpen = false; openConfirm(true); } else doSubmit(true);
  }
  function toggleFlag() {
    if (ctx.locked()) return;
    inst.flagOpen = !inst.flagOpen;
    if (inst.flagOpen) {
      const content = inst.local.content;
      flagReasons.replaceChildren();
      ctx.cfg().flags.forEach((f, i) => {
        const input = h("input", { type: "radio", name: "flag-reason", value: f.code });
        input.checked = content.flags.length ? content.flags[0] === f.code : i === 0;
        flagReasons.appendChild(h("label", { class: "as-radio" }, input, h("span", { text: f.label })));
      });
      flagNote.value = content.note || "";
      flagError.textContent = "";
    }
    ctx.render();
    if (inst.flagOpen) { const first = /** @type {HTMLInputElement | null} */ (flagReasons.querySelector("input:checked")); if (first) first.focus({ preventScroll: true }); }
  }
  flagSubmit.addEventListener("click", submitFlagged);
  flagCancel.addEventListener("click", () => { inst.flagOpen = false; ctx.render(); });
  confirmOk.addEventListener("click", confirmSubmit);
  confirmCancel.addEventListener("click", closeConfirm);
  confirmBox.addEventListener("mousedown", (e) => { if (e.target === confirmBox) { e.preventDefault(); closeConfirm(); } });

  /** @param {ReadonlyArray<SurfacePanel>} panels */
  function renderConfirm(panels) {
    confirmBox.hidden = confirmDialog.hidden = !inst.confirm;
    root.classList.toggle("confirming", !!inst.confirm);
    if (!inst.confirm) return;
    const c = ctx.cfg(), content = inst.local.content;
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
      const names = content.segment_axes.map((a) => { const ax = c.axes.find((x) => x.name === a); return ax ? ax.label : "—"; });
      if (c.segmented) confirmBody.appendChild(h("div", { text: `${plural(content.boundaries.length, "segment", "segments")}: ${names.join(", ")}` }));
      for (const panel of panels) { const line = panel.confirmLine(); if (line) confirmBody.appendChild(line); }
      /** @type {Partial<SurfaceFit>} */
      const fit = ctx.view().fit || {};
      const summary = Array.isArray(fit.summary) ? fit.summary : [];
      const points = plural(content.points.length, "point", "points");
      confirmBody.appendChild(h("div", { text: ctx.curvePending() ? `${points}; the curve is fitted again on submit.`
        : (summary.length ? String(summary[0]) : points) }));
    }
    confirmBody.appendChild(h("div", { class: "as-muted", text: "After submitting you cannot change this annotation." }));
  }

  return {
    flagPanel, confirmDialog, confirmBox, requestSubmit, toggleFlag, misses,
    onKey(e) {
      if (inst.confirm) {
        if (e.key === "Enter" && !e.shiftKey) { stopKey(e); if (!e.repeat) confirmSubmit(); }
        else if (e.key === "Escape") { stopKey(e); closeConfirm(); }
        return true;  // Tab stays among the two buttons; nothing else acts
      }
      if (inst.flagOpen && !e.altKey) {
        if (e.key === "Escape") { stopKey(e); inst.flagOpen = false; ctx.render(); root.focus({ preventScroll: true }); }
        return true;
      }
      return false;
    },
    render(panels) {
      const c = ctx.cfg();
      if (c.noteMaxChars > 0) flagNote.maxLength = c.noteMaxChars; else flagNote.removeAttribute("maxlength");
      flagPanel.hidden = !inst.flagOpen;
      renderConfirm(panels);
    },
  };
}
