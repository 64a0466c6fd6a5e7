// @ts-check
/* The token boundary editor: the text as tokens, segments coloured, a gap between two tokens
   toggles a boundary (see token_boundaries.py for the DOM). One instance per parentElement, kept
   in INSTANCES; its toggles reach Python through delivery.js (put in front of this module with
   instance_cleanup.js and text_gaps.js). */

/**
 * "Toggle the boundary at gap `gap`", numbered by delivery.js.
 * @typedef {{ seq: number, gap: number }} GapToggle
 */
/**
 * The data token_boundaries.py sends (and the acknowledgement beside it, see delivery.js).
 * @typedef {object} TokenData
 * @property {string[]} [tokens]
 * @property {boolean[]} [spaces_after]
 * @property {number[]} [boundaries] segment starts
 * @property {string[]} [colors] one CSS colour per segment
 * @property {string[] | null} [labels] one label per segment, or none
 * @property {boolean} [disabled]
 */
/**
 * One mounted editor.
 * @typedef {object} TokenEditorInstance
 * @property {HTMLDivElement} root
 * @property {HTMLDivElement} text
 * @property {Record<string, unknown>} data the data of the latest call (a TokenData)
 * @property {number} generation
 * @property {Delivery<GapToggle>} delivery
 * @property {() => void} render
 * @property {() => void} destroy
 */

/** @type {WeakMap<HTMLElement, TokenEditorInstance>} */
const INSTANCES = new WeakMap();

/**
 * Dark or white text for a solid colour (WCAG relative luminance).
 * @param {unknown} hex
 * @returns {string}
 */
function inkFor(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(String(hex || "").trim());
  if (!m) return "#ffffff";
  const n = parseInt(m[1], 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  });
  const lum = 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  return lum > 0.45 ? "#1f2430" : "#ffffff";
}

/**
 * @param {HTMLElement} el
 * @param {string} color
 */
function segmentStyle(el, color) {
  el.style.setProperty("--seg-bg", `color-mix(in srgb, ${color} 20%, transparent)`);
  el.style.setProperty("--seg-line", `color-mix(in srgb, ${color} 75%, transparent)`);
}

/**
 * The segment starts drawn, Python's with the toggles still on their way applied, and the gaps
 * those toggles touch (drawn dimmed).
 * @param {{ tokens: string[], boundaries?: number[] }} data
 * @param {ReadonlyArray<{ gap: number }>} pending
 * @returns {{ starts: number[], pendingGaps: Set<number> }}
 */
function displayedBoundaries(data, pending) {
  const n = data.tokens.length;
  const set = new Set((data.boundaries || []).filter((b) => b > 0 && b < n));
  const pendingGaps = new Set();
  for (const action of pending) {
    const g = action.gap;
    if (!(g > 0 && g < n)) continue;
    if (set.has(g)) set.delete(g); else set.add(g);
    pendingGaps.add(g);
  }
  return { starts: [0, ...[...set].sort((a, b) => a - b)], pendingGaps };
}

/**
 * @param {HTMLElement} parentElement
 * @returns {TokenEditorInstance}
 */
function createInstance(parentElement) {
  const root = document.createElement("div");
  root.className = "tb-root";
  root.setAttribute("data-testid", "token-boundaries");
  const text = document.createElement("div");
  text.className = "tb-text";
  text.setAttribute("role", "group");
  root.appendChild(text);
  parentElement.appendChild(root);

  /** @type {TokenEditorInstance} */
  const inst = {
    root, text, data: {}, generation: 0,
    /** @type {Delivery<GapToggle>} */
    delivery: createDelivery(),  // delivery.js
    render: () => {},
    destroy: () => {},
  };
  /** The data of the latest call, as token_boundaries.py sends it. */
  const tokenData = () => /** @type {TokenData} */ (inst.data);

  /** @param {Element} gapEl */
  function toggle(gapEl) {
    if (tokenData().disabled) return;
    const gap = Number(gapEl.getAttribute("data-gap"));
    if (!Number.isInteger(gap)) return;
    inst.delivery.push({ gap });
    inst.render();
  }
  /**
   * The gap element `target` is in, inside this editor, or null.
   * @param {EventTarget | null} target
   * @returns {HTMLElement | null}
   */
  function gapOf(target) {
    const t = /** @type {Element | null} */ (target);
    const gapEl = t && t.closest ? /** @type {HTMLElement | null} */ (t.closest("[data-gap]")) : null;
    return gapEl && root.contains(gapEl) ? gapEl : null;
  }
  /* A mouse or pen toggles on the press, not on the click: every answer from Python redraws
     the text, and a press that began on the old gap element and ended on its new copy gets no
     click event on the gap at all (an annotator's press lasts ~100 ms, often across an answer;
     Playwright's fast clicks on a loaded machine lost toggles the same way). The annotation
     surface acts on the press for the same reason. */
  /** The gap the last press toggled (its mousedown starts no text selection and focuses it). */
  /** @type {string | null} */
  let pressed = null;
  /** @param {PointerEvent} e */
  function onPress(e) {
    if (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const gapEl = gapOf(e.target);
    if (!gapEl || !gapEl.classList.contains("active")) return;
    pressed = gapEl.getAttribute("data-gap");
    toggle(gapEl);
  }
  /** @param {MouseEvent} e */
  function onMouseDown(e) {
    const gap = pressed;
    pressed = null;
    if (gap === null || e.button !== 0) return;
    e.preventDefault();
    const again = /** @type {HTMLElement | null} */ (root.querySelector(`[data-gap="${gap}"]`));
    // focusVisible (no focus ring for a mouse press) is newer than TypeScript's FocusOptions
    if (again) again.focus(/** @type {FocusOptions} */ ({ preventScroll: true, focusVisible: false }));
  }
  /** @param {KeyboardEvent} e */
  function onKeyDown(e) {
    const gapEl = gapOf(e.target);
    if (!gapEl || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " " || e.key === "Spacebar") {
      e.preventDefault();
      e.stopPropagation();
      if (!e.repeat) toggle(gapEl);
      return;
    }
    moveGapFocus(e, [...root.querySelectorAll(".tb-gap.active")], gapEl);  // text_gaps.js
  }
  root.addEventListener("pointerdown", onPress);
  root.addEventListener("mousedown", onMouseDown);
  root.addEventListener("keydown", onKeyDown);

  inst.render = () => {
    const data = tokenData();
    const tokens = Array.isArray(data.tokens) ? data.tokens.map(String) : [];
    const spaces = Array.isArray(data.spaces_after) ? data.spaces_after : [];
    const colors = Array.isArray(data.colors) ? data.colors : [];
    const labels = Array.isArray(data.labels) ? data.labels : null;
    const disabled = !!data.disabled;
    const n = tokens.length;

    // keep keyboard focus on the same gap across redraws
    const rootNode = /** @type {Document | ShadowRoot} */ (root.getRootNode());
    const focused = rootNode && rootNode.activeElement;
    const focusGap = focused && root.contains(focused) ? focused.getAttribute("data-gap") : null;

    root.classList.toggle("disabled", disabled);
    root.setAttribute("data-disabled", disabled ? "true" : "false");
    text.setAttribute("aria-label", disabled
      ? "Text segmentation (read-only)"
      : "Text segmentation: activate a gap between two words to split or join segments");
    text.replaceChildren();
    if (!n) {
      const empty = document.createElement("span");
      empty.className = "tb-empty";
      empty.textContent = "(no text)";
      text.appendChild(empty);
      return;
    }

    const { starts, pendingGaps } = displayedBoundaries({ ...data, tokens }, disabled ? [] : inst.delivery.pending());
    const startSet = new Set(starts);
    const segOf = new Array(n);
    let seg = -1;
    for (let i = 0; i < n; i++) { if (startSet.has(i)) seg += 1; segOf[i] = seg; }
    const colorOf = (/** @type {number} */ j) => String(colors.length ? colors[j % colors.length] : "#3b82f6");

    /** @type {HTMLSpanElement} */
    let word = null;
    for (let i = 0; i < n; i++) {
      const spaced = i > 0 && !!spaces[i - 1];
      if (i > 0) {
        const gap = document.createElement("span");
        const boundary = startSet.has(i);
        gap.className = "tb-gap" + (spaced ? "" : " tight") + (boundary ? " boundary" : " inside")
          + (disabled ? "" : " active") + (pendingGaps.has(i) ? " pending" : "");
        gap.setAttribute("data-gap", String(i));
        gap.setAttribute("data-boundary", boundary ? "true" : "false");
        if (!boundary) segmentStyle(gap, colorOf(segOf[i]));
        if (disabled) {
          gap.setAttribute("aria-hidden", "true");
        } else {
          gap.setAttribute("role", "button");
          gap.tabIndex = 0;
          gap.setAttribute("aria-pressed", boundary ? "true" : "false");
          gap.setAttribute("aria-label", (boundary ? "Remove segment boundary before " : "Start a segment at ") + "\u201c" + tokens[i] + "\u201d");
          gap.title = boundary ? "Join segments here" : "Split the segment here";
        }
        const bar = document.createElement("span");
        bar.className = "tb-bar";
        gap.appendChild(bar);
        if (spaced) text.appendChild(gap); else word.appendChild(gap);
      }
      if (i === 0 || spaced) {
        word = document.createElement("span");
        word.className = "tb-word";
        text.appendChild(word);
      }
      const j = segOf[i];
      if (startSet.has(i) && labels && labels[j] != null && String(labels[j]) !== "") {
        const label = document.createElement("span");
        label.className = "tb-label";
        label.setAttribute("data-segment-label", String(j));
        label.style.setProperty("--seg-solid", colorOf(j));
        label.style.setProperty("--seg-ink", inkFor(colorOf(j)));
        label.textContent = String(labels[j]);
        word.appendChild(label);
      }
      const tok = document.createElement("span");
      tok.className = "tb-tok" + (startSet.has(i) ? " seg-start" : "") + (i === n - 1 || startSet.has(i + 1) ? " seg-end" : "");
      tok.setAttribute("data-token", String(i));
      tok.setAttribute("data-segment", String(j));
      segmentStyle(tok, colorOf(j));
      tok.textContent = tokens[i];
      word.appendChild(tok);
    }
    if (focusGap !== null) {
      const again = /** @type {HTMLElement | null} */ (root.querySelector(`[data-gap="${focusGap}"]`));
      if (again && again.tabIndex === 0) again.focus({ preventScroll: true });
    }
  };

  inst.destroy = () => {
    root.removeEventListener("pointerdown", onPress);
    root.removeEventListener("mousedown", onMouseDown);
    root.removeEventListener("keydown", onKeyDown);
    inst.delivery.dispose();
    root.remove();
  };
  return inst;
}

/** @param {ComponentCall} component */
export default function (component) {
  return mountDelivering(component, INSTANCES, createInstance);  // delivery.js
}
