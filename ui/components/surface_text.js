// @ts-check
/* The annotation surface's text part: the tokens, coloured by segment, with the gaps between
   them that split and join segments (the segmentation step), the axis legend and the segment
   tools. Made by createSurfaceText(ctx) (annotation_surface.js; the context's type is in
   surface_config.js); put in front of the surface's module at import (ui/components/sources.py),
   after dom_helpers.js, text_gaps.js, segment_tints.js and text_paragraphs.js. The arithmetic
   (which gap a press reaches, the classes a token or gap gets) is pure and unit-tested with
   `node --test` (tests/js/surface_text.test.js). All text is set with textContent. */

// segments without an axis: three axis-free tints, so that a split or a join can keep every
// other segment's tint and still give neighbours different ones (segment_tints.js)
const NEUTRAL_TINTS = ["#7c8799", "#c2a36e", "#6f6459"];

/**
 * Which gap a press on a token reaches, from its distances to the token's left and right
 * edges: the gap before it within 4 px of a space (3 px for a gap between a word and the
 * punctuation after it, which is 1 px wide), the gap after it within 4 px (7 px into a word
 * before punctuation); the nearer edge when both are in reach. `before`/`after`: whether that
 * gap exists and is "tight" (no space) or "spaced".
 * @param {number} dl
 * @param {number} dr
 * @param {"tight" | "spaced" | null} before
 * @param {"tight" | "spaced" | null} after
 * @returns {"before" | "after" | null}
 */
function gapInReach(dl, dr, before, after) {
  const inBefore = !!before && dl <= (before === "tight" ? 3 : 4);
  const inAfter = !!after && dr <= (after === "tight" ? 7 : 4);
  if (inBefore && (!inAfter || dl <= dr)) return "before";
  return inAfter ? "after" : null;
}

/**
 * The classes of a token: its tint, where its segment starts and ends, whether its segment is
 * the one being labelled.
 * @param {string} tint
 * @param {boolean} start
 * @param {boolean} end
 * @param {boolean} highlighted
 * @returns {string}
 */
function tokenClasses(tint, start, end, highlighted) {
  return "as-tok " + tint + (start ? " seg-start" : "") + (end ? " seg-end" : "") + (highlighted ? " hl" : "");
}

/**
 * The classes of the gap before a token: its tint, tight (no space), a segment start or not,
 * active (it can be toggled), highlighted (inside the segment being labelled).
 * @param {string} tint
 * @param {boolean} spaced
 * @param {boolean} start
 * @param {boolean} editable
 * @param {boolean} highlighted
 * @returns {string}
 */
function gapClasses(tint, spaced, start, editable, highlighted) {
  return "as-gap " + tint + (spaced ? "" : " tight") + (start ? " boundary" : " inside") + (editable ? " active" : "")
    + (!start && highlighted ? " hl" : "");
}

/**
 * The height a paragraph of tokens `from` … `to`−1 is given until it is first drawn: its
 * characters over `perLine` characters a line, 2.15 em a line (CSS contain-intrinsic-size).
 * @param {ReadonlyArray<string>} tokens
 * @param {ReadonlyArray<boolean>} spaces
 * @param {number} from
 * @param {number} to
 * @param {number} perLine
 * @returns {string}
 */
function paragraphHeight(tokens, spaces, from, to, perLine) {
  let chars = 0;
  for (let k = from; k < to; k++) chars += String(tokens[k]).length + (spaces[k] ? 1 : 0) + 1;
  return `auto ${(Math.ceil(chars / perLine) * 2.15).toFixed(2)}em`;
}

/**
 * The text is built once per sample (a span per word, token and gap) and afterwards only
 * updated where a render changes it: a boundary click on a 2,500-token text rebuilt ~10,000
 * elements (220–390 ms on 840 tokens); now it rewrites the classes, tints and pills that
 * changed. A TextDom holds the elements and what each last showed.
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

/**
 * The text part of a surface.
 * @typedef {object} SurfaceText
 * @property {HTMLElement} section the text, the legend and the segment tools
 * @property {HTMLStyleElement} tintStyle the tints' rules (the surface puts it in its root)
 * @property {(content: SurfaceContent) => string[]} colors each segment's colour
 * @property {(show: { segments: boolean, compact: boolean }) => void} render
 * @property {() => void} renderText
 */

/**
 * @param {SurfaceContext} ctx
 * @returns {SurfaceText}
 */
function createSurfaceText(ctx) {
  const { inst } = ctx;
  const textBox = h("div", { class: "as-text", "data-testid": "surface-text", role: "group" });
  const legend = h("div", { class: "as-legend", "aria-label": "Axis colours" });
  const segTools = h("div", { class: "as-segtools" });
  const segCount = h("span", { class: "as-muted" });
  const resetBtn = h("button", { type: "button", class: "as-btn as-small", "data-command": "reset-segments", text: "Back to one segment" });
  resetBtn.addEventListener("click", () => ctx.push({ kind: "reset_segments" }));
  segTools.append(h("span", { class: "as-muted", text: "Click between two words to split or join segments (Enter/Space on a focused gap)." }), segCount, resetBtn);
  const section = h("section", { class: "as-textsec" }, textBox, legend, segTools);

  /** @type {TextDom | null} */
  let textDom = null;
  /** @type {Map<number, number>} */
  let tintOf = new Map();  // the neutral tint of each unlabelled segment, by its first token (segment_tints.js)
  /* A segment's tint is a class with a rule of its own (one per colour), not an inline style
     per token: elements with the same classes share their computed style, and restyling the
     ~1,000 tokens a split repaints cost ~40 µs each with inline styles. */
  const tintStyle = h("style");
  /** @type {Map<string, string>} */
  const tintClass = new Map();
  /** @param {string} color a checked #hex (safeColor) or one of NEUTRAL_TINTS */
  function tintClassOf(color) {
    let cls = tintClass.get(color);
    if (!cls) {
      cls = "as-tint" + tintClass.size;
      tintClass.set(color, cls);
      tintStyle.textContent += `.${cls} { --seg-bg: color-mix(in srgb, ${color} 22%, transparent); --seg-line: ${color}; }\n`;
    }
    return cls;
  }
  /** @type {(name: string | null) => SurfaceAxis | null} */
  const axisOf = (name) => ctx.cfg().axes.find((a) => a.name === name) || null;
  /**
   * The colour of each segment: its axis's, or a neutral tint.
   * @param {SurfaceContent} content
   * @returns {string[]}
   */
  function colors(content) {
    const axes = content.segment_axes.map((a) => (a ? axisOf(a) : null));
    const { tints, kept } = assignTints(tintOf, content.boundaries, axes.map(Boolean), ctx.cfg().n);
    tintOf = kept;
    return axes.map((axis, j) => (axis ? safeColor(axis.color, "#888") : NEUTRAL_TINTS[tints[j]]));
  }

  // ---------- listeners
  // A pointer edit acts on the press, not on the click: every server answer redraws the text,
  // and a press that began on the old element and ended on the new one gets no click event at
  // all (an annotator's press lasts ~100 ms, often across an answer).
  /**
   * The gap pressed: the gap itself, or the one a press on a token reaches (gapInReach).
   * @param {PointerEvent} e
   * @returns {HTMLElement | null}
   */
  function gapAtPress(e) {
    const at = closestFrom(e.target, "[data-gap], [data-token]");
    if (!at || at.hasAttribute("data-gap")) return at;
    if (!textDom) return null;
    const i = Number(at.getAttribute("data-token")), r = at.getBoundingClientRect();
    const before = textDom.gaps[i] || null, after = textDom.gaps[i + 1] || null;
    /** @type {(gap: HTMLElement | null) => "tight" | "spaced" | null} */
    const kind = (gap) => (gap ? (gap.classList.contains("tight") ? "tight" : "spaced") : null);
    const side = gapInReach(e.clientX - r.left, r.right - e.clientX, kind(before), kind(after));
    return side === "before" ? before : side === "after" ? after : null;
  }
  /* The gap a press toggled: the mousedown after it starts no text selection (placing the caret
     in a 2,500-token text cost Chromium 7–11 ms of every boundary click) and focuses the gap. */
  /** @type {HTMLElement | null} */
  let pressedGap = null;
  textBox.addEventListener("pointerdown", (e) => {
    pressedGap = null;
    if (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const gapEl = gapAtPress(e);
    if (!gapEl || !gapEl.classList.contains("active")) return;
    pressedGap = gapEl;
    ctx.push({ kind: "boundary", gap: Number(gapEl.getAttribute("data-gap")) });
  });
  textBox.addEventListener("mousedown", (e) => {
    const gapEl = pressedGap;
    pressedGap = null;
    if (!gapEl || e.button !== 0) return;
    e.preventDefault();
    // focusVisible (no focus ring for a mouse press) is newer than TypeScript's FocusOptions
    if (gapEl.isConnected) gapEl.focus(/** @type {FocusOptions} */ ({ preventScroll: true, focusVisible: false }));
  });
  textBox.addEventListener("keydown", (e) => {
    const gapEl = closestFrom(e.target, "[data-gap]");
    if (!gapEl || !gapEl.classList.contains("active") || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault(); e.stopPropagation();
      if (!e.repeat) ctx.push({ kind: "boundary", gap: Number(gapEl.getAttribute("data-gap")) });
      return;
    }
    moveGapFocus(e, [...textBox.querySelectorAll(".as-gap.active")], gapEl);  // text_gaps.js
  });

  // ---------- drawing
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
        box = h("div", { class: "as-para" });
        box.style.containIntrinsicSize = paragraphHeight(c.tokens, c.spaces, i, end, perLine);
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
  /**
   * The gap's attributes for a segment start or not, editable or not.
   * @param {HTMLSpanElement} gap
   * @param {boolean} start
   * @param {boolean} editable
   * @param {string} token the token after it
   */
  function setGapState(gap, start, editable, token) {
    gap.setAttribute("data-boundary", start ? "true" : "false");
    if (editable) {
      gap.setAttribute("role", "button");
      gap.tabIndex = 0;
      gap.removeAttribute("aria-hidden");
      gap.setAttribute("aria-pressed", start ? "true" : "false");
      gap.setAttribute("aria-label", (start ? "Join the segments before “" : "Start a segment at “") + token + "”");
      gap.title = start ? "Join segments here" : "Split the segment here";
    } else {
      for (const a of ["role", "tabindex", "aria-pressed", "aria-label", "title"]) gap.removeAttribute(a);
      gap.setAttribute("aria-hidden", "true");
    }
  }
  function renderText() {
    const c = ctx.cfg(), content = inst.local.content;
    const editable = (c.single || inst.local.step === c.segmentStep) && !ctx.locked();
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
    const segColors = colors(content);
    const highlight = ctx.rowsShown() ? inst.focusSeg : -1;
    let seg = -1;
    for (let i = 0; i < c.n; i++) {
      if (startSet.has(i)) seg += 1;
      const j = Math.max(seg, 0), color = segColors[j];
      const start = startSet.has(i), end = i === c.n - 1 || startSet.has(i + 1);
      const tint = tintClassOf(color);
      const tokCls = tokenClasses(tint, start, end, j === highlight);
      if (dom.tokCls[i] !== tokCls) { dom.toks[i].className = tokCls; dom.tokCls[i] = tokCls; }
      const gap = dom.gaps[i];
      if (gap) {
        const gapCls = gapClasses(tint, !!c.spaces[i - 1], start, editable, j === highlight);
        if (dom.gapCls[i] !== gapCls) { gap.className = gapCls; dom.gapCls[i] = gapCls; }
        const state = (start ? "b" : "i") + (editable ? "e" : "");
        if (dom.gapState[i] !== state) { setGapState(gap, start, editable, c.tokens[i]); dom.gapState[i] = state; }
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
   * @param {HTMLElement | undefined} item
   */
  function keepInView(box, item) {
    if (!item || box.scrollHeight <= box.clientHeight) return;
    const b = box.getBoundingClientRect(), r = item.getBoundingClientRect();
    if (r.top < b.top) box.scrollTop -= b.top - r.top + 4;
    else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom + 4;
  }
  function renderLegend() {
    const c = ctx.cfg(), used = new Set(inst.local.content.segment_axes.filter(Boolean));
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
    resetBtn.disabled = n === 1 || ctx.locked();
  }

  return {
    section, tintStyle, colors, renderText,
    render(show) {
      const c = ctx.cfg();
      segTools.hidden = !show.segments || c.readOnly;
      section.classList.toggle("compact", show.compact);
      legend.hidden = !c.segmented;
      textBox.classList.toggle("unsegmented", !c.segmented);
      renderText();
      renderLegend();
      if (show.segments) renderSegTools();
    },
  };
}
