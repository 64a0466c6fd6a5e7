// @ts-check
/* The annotation surface's axis part: a row per segment with its axis buttons (the axis step),
   the axes' key questions beside them, and the keys that label (1–8, the view's digits) and move
   between segments (Tab/Shift+Tab, ↑/↓; Delete clears). Made by createSurfaceAxes(ctx)
   (annotation_surface.js; the context's type is in surface_config.js); put in front of the
   surface's module at import (ui/components/sources.py), after dom_helpers.js. segmentText and
   axisKeyAction are pure and unit-tested with `node --test` (tests/js/surface_axes.test.js).
   All text is set with textContent. */

/**
 * The text of the segment of tokens `start` … `end`−1, spaced as the text is.
 * @param {ReadonlyArray<string>} tokens
 * @param {ReadonlyArray<boolean>} spaces
 * @param {number} start
 * @param {number} end
 * @returns {string}
 */
function segmentText(tokens, spaces, start, end) {
  let text = "";
  for (let i = start; i < end; i++) text += tokens[i] + (i < end - 1 && spaces[i] ? " " : "");
  return text;
}

/**
 * What a key does to the axis rows, or null when it is not theirs: label the focused segment
 * with an axis (its digit), clear it (Delete/Backspace on a row), move to the next or previous
 * segment (↓/↑ anywhere on the page, Tab/Shift+Tab in a row). `on`: what the key was typed on
 * (`inRow`: inside a row of the surface, `isRow`: the row itself) and whether the surface is
 * read-only.
 * @param {string} key
 * @param {boolean} shift
 * @param {ReadonlyArray<SurfaceAxis>} axes
 * @param {{ inRow: boolean, isRow: boolean, pageLevel: boolean, onPoint: boolean, readOnly: boolean }} on
 * @returns {{ axis: string } | { clear: true } | { move: number, tab: boolean } | null}
 */
function axisKeyAction(key, shift, axes, on) {
  const keyAxis = axes.find((a) => String(a.digit) === key);
  if (keyAxis && !on.readOnly && on.pageLevel) return { axis: keyAxis.name };
  if ((key === "ArrowDown" || key === "ArrowUp") && on.pageLevel && !on.onPoint) return { move: key === "ArrowDown" ? 1 : -1, tab: false };
  if (key === "Tab" && on.inRow) return { move: shift ? -1 : 1, tab: true };
  if ((key === "Delete" || key === "Backspace") && on.isRow && !on.readOnly) return { clear: true };
  return null;
}

/**
 * The axis part of a surface.
 * @typedef {object} SurfaceAxes
 * @property {HTMLElement} section the key questions and the rows
 * @property {(showRows: boolean) => void} render
 * @property {() => void} focusRow focus the row of inst.focusSeg
 * @property {(e: KeyboardEvent, key: SurfaceKey) => boolean} onKey whether it took the key
 */

/**
 * @param {SurfaceContext} ctx
 * @returns {SurfaceAxes}
 */
function createSurfaceAxes(ctx) {
  const { inst } = ctx;
  const rowsBox = h("div", { class: "as-rows", role: "list", "aria-label": "Segments and their axes" });
  // the axes' key questions on screen beside the axis buttons, in a <details> the annotator can
  // fold away; drawn from the view's axes
  const questionsList = h("div", { class: "as-questions-list" });
  const questions = h("details", { class: "as-questions", "data-testid": "key-questions", open: true },
    h("summary", { text: "Key questions" }), questionsList);
  const section = h("section", { class: "as-rowsec" }, questions, rowsBox);

  /**
   * @param {number} segment
   * @param {string | null} axis
   */
  function setAxis(segment, axis) {
    if (segment < 0 || segment >= inst.local.content.segment_axes.length) return;
    ctx.push({ kind: "axis", segment, axis });
  }
  function focusRow() {
    const row = /** @type {HTMLElement | null} */ (rowsBox.querySelector(`[data-segment="${inst.focusSeg}"]`));
    for (const r of /** @type {NodeListOf<HTMLElement>} */ (rowsBox.querySelectorAll("[data-segment]"))) {
      const on = r === row;
      r.classList.toggle("focused", on);
      r.tabIndex = on ? 0 : -1;
    }
    if (row) row.focus({ preventScroll: false });
    ctx.renderText();  // the text highlights the focused segment and keeps it in view (incremental)
  }
  /**
   * Focus the segment `delta` rows away; false when there is none.
   * @param {number} delta
   */
  function moveSeg(delta) {
    const j = inst.focusSeg + delta;
    if (j < 0 || j >= inst.local.content.boundaries.length) return false;
    inst.focusSeg = j;
    focusRow();
    return true;
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
      ctx.render();
    }
    focusRow();
  }
  // on the press, not the click: a server answer between the two redraws the rows
  rowsBox.addEventListener("pointerdown", (e) => {
    if (e.button === 0 && !e.altKey && !e.ctrlKey && !e.metaKey) onRowActivate(e);
  });
  rowsBox.addEventListener("click", (e) => {
    if (e.detail === 0) onRowActivate(e);  // Enter/Space on a focused button; pointer presses are done
  });
  rowsBox.addEventListener("focusin", (e) => {
    const row = closestFrom(e.target, "[data-segment]");
    if (!row) return;
    const j = Number(row.getAttribute("data-segment"));
    if (j === inst.focusSeg) return;
    inst.focusSeg = j;
    for (const r of rowsBox.querySelectorAll("[data-segment]")) r.classList.toggle("focused", r === row);
    ctx.renderText();
  });

  function renderQuestions() {
    const c = ctx.cfg();
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
  function renderRows() {
    const c = ctx.cfg(), content = inst.local.content;
    const active = ctx.activeElement();
    const hadFocus = active && rowsBox.contains(active);
    rowsBox.replaceChildren();
    const starts = content.boundaries;
    const colors = ctx.segmentColors(content);
    const keys = axisKeysOf(c.axes).replace("–", " to ");
    starts.forEach((st, j) => {
      const text = segmentText(c.tokens, c.spaces, st, j + 1 < starts.length ? starts[j + 1] : c.n);
      const focused = j === inst.focusSeg;
      const row = h("div", { class: "as-row" + (focused ? " focused" : "") + (content.segment_axes[j] ? " done" : ""), role: "listitem",
        "data-segment": j, tabindex: focused ? "0" : "-1", "aria-label": `Segment ${j + 1}: press ${keys} to choose its axis` });
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

  return {
    section, focusRow,
    render(showRows) {
      section.hidden = !showRows;
      renderQuestions();
      if (showRows) renderRows();
    },
    onKey(e, key) {
      if (!ctx.rowsShown()) return false;
      const t = key.target;
      const inRow = key.inside && !!(t && t.closest && t.closest("[data-segment]"));
      const isRow = key.inside && !!(t && t.getAttribute && t.getAttribute("data-segment") !== null);
      const action = axisKeyAction(e.key, e.shiftKey, ctx.cfg().axes, { inRow, isRow, pageLevel: key.pageLevel,
        onPoint: key.onPoint, readOnly: ctx.cfg().readOnly });
      if (!action) return false;
      if ("axis" in action) {
        stopKey(e);
        if (!e.repeat) setAxis(inst.focusSeg, action.axis);
      } else if ("clear" in action) {
        stopKey(e); setAxis(inst.focusSeg, null);
      } else if (action.tab) {
        if (moveSeg(action.move)) stopKey(e);
      } else {
        stopKey(e); moveSeg(action.move);
      }
      return true;
    },
  };
}
