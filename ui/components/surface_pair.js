// @ts-check
/* A context pair's panel on the annotation surface's last step: the follow-up (read-only, set
   apart, its text set with textContent, never parsed) and the change the two curves say — the
   server's reading of the stored curves (ui/pair_view.change_reading), dimmed while a curve edit
   is on its way — with the annotator's choice: as derived ("derived" confirms it) or a label of
   their own, which is recorded as an override. Keys 0… choose (0 as derived, then the labels).

   Self-contained: the surface makes it with createPairPanel(ctx) and speaks to it only through
   the SurfacePanel shape (surface_config.js), so another protocol's panel can stand beside it.
   Put in front of the surface's module at import (ui/components/sources.py), after
   dom_helpers.js. What it shows is worked out by pure functions (pairReading, pairChoice,
   pairPanelState), unit-tested with `node --test` (tests/js/surface_pair.test.js). */

/**
 * The server's reading of the stored curves (view.pair_panel.reading), or null.
 * @param {Partial<SurfaceView>} view
 * @returns {Partial<SurfaceChangeReading> | null}
 */
function pairReading(view) {
  const pair = view.pair_panel;
  const reading = pair && typeof pair === "object" ? pair.reading : null;
  return reading && typeof reading === "object" ? reading : null;
}

/**
 * The change an option sends: a label that is the server's derived one (with no curve edit on
 * its way, so the reading is the stored curves') confirms it; anything else is what it says.
 * @param {string} option
 * @param {Partial<SurfaceChangeReading> | null} reading
 * @param {string} confirm the option that confirms the derived label (rules.changeConfirm)
 * @param {boolean} curvePending
 * @returns {string}
 */
function pairChoice(option, reading, confirm, curvePending) {
  return option !== confirm && reading && reading.label === option && !curvePending ? confirm : option;
}

/**
 * One choice button of the change: its option, key digit, label and title, whether it is the
 * one chosen and whether it is the label the curves derive.
 * @typedef {{ option: string, digit: string, label: string, title: string, on: boolean, derived: boolean }} PairOption
 */

/**
 * What the pair panel shows for a view and the local content: the follow-up, the change in
 * words (with the annotator's override and what to do, when nothing is chosen yet), the
 * duration classes and the choice buttons. The panel keeps its height whatever it says: the
 * words and classes take two lines each (CSS), "updating" is a tint, and the buttons' labels are
 * fixed (the derived one is marked by its style), so the chart below never moves.
 * @param {Partial<SurfaceView>} view
 * @param {SurfaceContent} content
 * @param {SurfaceRules} rules
 * @returns {{ followUp: string, words: string, classes: string, options: PairOption[] }}
 */
function pairPanelState(view, content, rules) {
  const pair = /** @type {Partial<SurfacePair>} */ (view.pair_panel && typeof view.pair_panel === "object" ? view.pair_panel : {});
  const reading = pairReading(view);
  const confirm = rules.changeConfirm;
  const own = content.change && content.change !== confirm ? content.change : "";
  const last = rules.changeOptions.length - 1;
  const words = (reading ? String(reading.words || "") : "Draw both curves to see the change they say.")
    + (own && reading && own !== reading.label ? ` Your label: ${own}, not the curves' — it goes to review.` : "")
    + (!content.change && last > 0 ? ` Confirm it (0) or choose another (1${last > 1 ? "–" + last : ""}).` : "");
  const classes = reading && reading.alone_class && reading.given_class
    ? `Duration class (TVCP): alone “${String(reading.alone_class.name)}” → given the follow-up “${String(reading.given_class.name)}”.`
    : "\u00a0";
  const options = rules.changeOptions.map((option, i) => {
    const isConfirm = option === confirm;
    const derived = !isConfirm && !!reading && reading.label === option;
    return {
      option, digit: String(i), on: content.change === option, derived,
      label: isConfirm ? "As derived" : option,
      title: isConfirm ? "Confirm the change the two curves say" + (reading ? ` (${String(reading.label)})` : "")
        : derived ? `${option}: what the two curves say` : `Override: the change is ${option} (recorded and reviewed)`,
    };
  });
  return { followUp: typeof pair.follow_up === "string" ? pair.follow_up : "", words, classes, options };
}

/**
 * The pair panel of a surface (a SurfacePanel).
 * @param {SurfaceContext} ctx
 * @returns {SurfacePanel}
 */
function createPairPanel(ctx) {
  const followText = h("div", { class: "as-follow-text", "data-testid": "follow-up-text" });
  const followBox = h("div", { class: "as-follow", "data-testid": "follow-up", role: "note", "aria-label": "Follow-up statement (read only)" },
    h("div", { class: "as-follow-title", text: "Follow-up (read only) — draw the target's validity given it" }), followText);
  const changeWords = h("div", { class: "as-change-words", "data-testid": "change-reading", "aria-live": "polite" });
  const changeClasses = h("div", { class: "as-muted", "data-testid": "change-classes" });
  const changeOptions = h("div", { class: "as-change-options", role: "radiogroup", "aria-label": "The change: as derived, or your own" });
  const changeBox = h("div", { class: "as-change", "data-testid": "change-panel" }, changeWords, changeClasses, changeOptions);
  const section = h("section", { class: "as-pairsec", "data-testid": "pair-panel", hidden: true }, followBox, changeBox);

  /**
   * The annotator's change (pairChoice: choosing the derived label is confirming it).
   * @param {string} option
   */
  function choose(option) {
    const c = ctx.cfg();
    if (ctx.locked() || !c.changeOptions.includes(option)) return;
    const change = pairChoice(option, pairReading(ctx.view()), c.changeConfirm, ctx.curvePending());
    if (change !== ctx.inst.local.content.change) ctx.push({ kind: "change", change });
  }

  return {
    section,
    shown: () => ctx.onContext(),
    hide() { if (followText.textContent) followText.textContent = ""; },
    render() {
      const c = ctx.cfg();
      const state = pairPanelState(ctx.view(), ctx.inst.local.content, c);
      if (followText.textContent !== state.followUp) followText.textContent = state.followUp;
      const stale = ctx.curvePending();
      changeBox.classList.toggle("stale", stale);
      changeWords.textContent = state.words;
      changeWords.title = stale ? "Updating: a curve edit is on its way to the server" : "";
      changeClasses.textContent = state.classes;
      const key = state.options.map((o) => o.option).join("|");
      if (changeOptions.dataset.key !== key) {  // the buttons are made once per set of choices
        changeOptions.dataset.key = key;
        changeOptions.replaceChildren(...state.options.map((o) => {
          const b = h("button", { type: "button", class: "as-opt as-change-opt", role: "radio", "data-change-option": o.option, tabindex: "-1" },
            h("kbd", { text: o.digit }), h("span", { class: "as-change-label" }));
          b.addEventListener("mousedown", (e) => { if (e.button === 0) e.preventDefault(); });
          b.addEventListener("click", () => choose(o.option));
          return b;
        }));
      }
      const buttons = /** @type {NodeListOf<HTMLButtonElement>} */ (changeOptions.querySelectorAll("[data-change-option]"));
      buttons.forEach((b, i) => {
        const o = state.options[i];
        b.classList.toggle("on", o.on);
        b.setAttribute("aria-checked", o.on ? "true" : "false");
        b.disabled = ctx.locked();
        b.classList.toggle("derived", o.derived);
        /** @type {HTMLElement} */ (b.querySelector(".as-change-label")).textContent = o.label;
        b.title = o.title;
      });
    },
    onKey(e, key) {
      const c = ctx.cfg();
      if (!ctx.onContext() || c.readOnly || !key.pageLevel || !/^[0-9]$/.test(e.key) || Number(e.key) >= c.changeOptions.length) return false;
      stopKey(e);  // 0 as derived, 1… the labels (the buttons show the digits)
      if (!e.repeat) choose(c.changeOptions[Number(e.key)]);
      return true;
    },
    keyHint() {
      const c = ctx.cfg();
      return ctx.onContext() && !c.readOnly && c.changeOptions.length ? `0–${c.changeOptions.length - 1} change` : "";
    },
    confirmLine() {
      if (!ctx.cfg().pair) return null;
      const reading = pairReading(ctx.view()), change = ctx.inst.local.content.change;
      return h("div", { "data-testid": "confirm-change", text: change
        ? `Change: ${change} (your override)` : `Change: ${reading ? String(reading.label) : "as the curves say"} (as derived)` });
    },
  };
}
