
const INSTANCES = new WeakMap();

function inkFor(hex) {
  // dark or white text for a solid colour (WCAG relative luminance)
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

function segmentStyle(el, color) {
  el.style.setProperty("--seg-bg", `color-mix(in srgb, ${color} 20%, transparent)`);
  el.style.setProperty("--seg-line", `color-mix(in srgb, ${color} 75%, transparent)`);
}

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

function createInstance(parentElement) {
  const root = document.createElement("div");
  root.className = "tb-root";
  root.setAttribute("data-testid", "token-boundaries");
  const text = document.createElement("div");
  text.className = "tb-text";
  text.setAttribute("role", "group");
  root.appendChild(text);
  parentElement.appendChild(root);

  const inst = { root, text, data: null, generation: 0 };
  inst.queue = createEventQueue(() => inst.render());

  function toggle(gapEl) {
    if (!inst.data || inst.data.disabled) return;
    const gap = Number(gapEl.getAttribute("data-gap"));
    if (!Number.isInteger(gap)) return;
    inst.queue.push({ gap });
  }
  function onClick(e) {
    const gapEl = e.target.closest && e.target.closest("[data-gap]");
    if (gapEl && root.contains(gapEl)) toggle(gapEl);
  }
  function onKeyDown(e) {
    const gapEl = e.target.closest && e.target.closest("[data-gap]");
    if (!gapEl || !root.contains(gapEl) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " " || e.key === "Spacebar") {
      e.preventDefault();
      e.stopPropagation();
      if (!e.repeat) toggle(gapEl);
      return;
    }
    moveGapFocus(e, [...root.querySelectorAll(".tb-gap.active")], gapEl);  // text_gaps.js
  }
  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKeyDown);

  inst.render = () => {
    const data = inst.data;
    if (!data) return;
    const tokens = Array.isArray(data.tokens) ? data.tokens.map(String) : [];
    const spaces = Array.isArray(data.spaces_after) ? data.spaces_after : [];
    const colors = Array.isArray(data.colors) ? data.colors : [];
    const labels = Array.isArray(data.labels) ? data.labels : null;
    const disabled = !!data.disabled;
    const n = tokens.length;

    // keep keyboard focus on the same gap across redraws
    const rootNode = root.getRootNode();
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

    const { starts, pendingGaps } = displayedBoundaries({ ...data, tokens }, disabled ? [] : inst.queue.pending);
    const startSet = new Set(starts);
    const segOf = new Array(n);
    let seg = -1;
    for (let i = 0; i < n; i++) { if (startSet.has(i)) seg += 1; segOf[i] = seg; }
    const colorOf = (j) => String(colors.length ? colors[j % colors.length] : "#3b82f6");

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
      const again = root.querySelector(`[data-gap="${focusGap}"]`);
      if (again && again.tabIndex === 0) again.focus({ preventScroll: true });
    }
  };

  inst.destroy = () => {
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKeyDown);
    inst.queue.dispose();
    root.remove();
  };
  return inst;
}

export default function (component) {
  return mountQueued(component, INSTANCES, createInstance);  // event_queue.js
}
