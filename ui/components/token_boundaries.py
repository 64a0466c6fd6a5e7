"""Token boundary editor: the text as tokens, segments coloured, a click between two tokens
toggles a segment boundary (Streamlit custom component v2, inline HTML/CSS/JS).

Python stays the source of truth: the component draws ``boundaries`` and reports "toggle the
boundary at gap *i*"; the page applies the toggle to its own state and draws again. Delivery is
exactly-once (see :mod:`ui.components.events`); while a toggle is on its way the component
shows it already, dimmed.

DOM for tests (inside the component's shadow root; Playwright CSS selectors pierce it):

* ``[data-testid="token-boundaries"]`` the root; ``data-disabled="true"`` when read-only;
* ``[data-token="i"]`` token *i* (``data-segment="j"``: its segment);
* ``[data-gap="i"]`` the gap between token *i-1* and token *i* (``1 <= i < n``), a focusable
  ``role="button"`` (Enter or Space toggles, Left/Right move between gaps) with
  ``aria-pressed``/``data-boundary="true"`` when a boundary is there;
* ``[data-segment-label="j"]`` the label of segment *j* when labels are given.

User text is only ever set with ``textContent``; nothing is parsed as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import streamlit as st

from ui.components.events import (
    EVENT_QUEUE_JS,
    TRIGGER,
    acknowledged_ids,
    first_new_action,
    make_callback,
)

#: Default segment colours when the page gives none, cycled. Drawn as a light tint with a
#: stronger underline, so they stay legible on light and dark themes alike.
DEFAULT_SEGMENT_COLORS = ("#3b82f6", "#ec4899", "#10b981")

_CSS = r"""
:host { display: block; }
.tb-root {
  font-family: var(--st-font, "Source Sans Pro", system-ui, sans-serif);
  color: var(--st-text-color, #31333f);
  --tb-accent: var(--st-primary-color, #ff4b4b);
}
.tb-text {
  font-size: 1.15rem;
  line-height: 2.5;
  padding: 0.15rem 0.1rem;
  overflow-wrap: anywhere;
}
.tb-word { white-space: nowrap; }
.tb-tok, .tb-gap, .tb-label {
  display: inline-block;
  vertical-align: middle;
  height: 1.75em;
  line-height: 1.75em;
}
.tb-tok {
  padding: 0;
  background: var(--seg-bg);
  box-shadow: inset 0 -2px 0 var(--seg-line);
}
.tb-tok.seg-start { border-top-left-radius: 7px; border-bottom-left-radius: 7px; padding-left: 0.22em; }
.tb-tok.seg-end { border-top-right-radius: 7px; border-bottom-right-radius: 7px; padding-right: 0.22em; }
.tb-gap {
  position: relative;
  width: 0.32em;
  outline: none;
}
.tb-gap.tight { width: 1px; }
.tb-gap.boundary { width: 0.6em; }
.tb-gap.tight.boundary { width: 9px; }
.tb-gap.inside {
  background: var(--seg-bg);
  box-shadow: inset 0 -2px 0 var(--seg-line);
}
.tb-gap.active { cursor: pointer; }
/* a wider, invisible hit area than the drawn gap */
.tb-gap.active::before {
  content: "";
  position: absolute;
  top: 0; bottom: 0; left: -4px; right: -4px;
  z-index: 1;
}
.tb-gap.tight.active::before { left: -6px; right: -6px; }
.tb-bar {
  position: absolute;
  left: 50%;
  top: 0.05em; bottom: 0.05em;
  width: 3px;
  margin-left: -1.5px;
  border-radius: 2px;
  background: transparent;
  pointer-events: none;
}
.tb-gap.boundary .tb-bar { background: var(--st-text-color, #31333f); top: -0.1em; bottom: -0.1em; }
.tb-gap.active:hover .tb-bar, .tb-gap.active:focus-visible .tb-bar {
  background: var(--tb-accent);
  opacity: 0.75;
}
.tb-gap.active.boundary:hover .tb-bar { opacity: 1; }
.tb-gap.active:hover { background: color-mix(in srgb, var(--tb-accent) 16%, transparent); }
.tb-gap.active:focus-visible {
  box-shadow: 0 0 0 2px var(--tb-accent);
  border-radius: 3px;
}
.tb-gap.pending .tb-bar { opacity: 0.45; }
.tb-label {
  height: 1.45em;
  line-height: 1.45em;
  margin: 0 0.3em 0 0.1em;
  padding: 0 0.5em;
  border-radius: 999px;
  font-size: 0.62em;
  font-weight: 700;
  letter-spacing: 0.05em;
  text-transform: uppercase;
  background: var(--seg-solid);
  color: var(--seg-ink);
  user-select: none;
}
.tb-root.disabled .tb-text { opacity: 0.85; }
.tb-empty { color: var(--st-gray-color, #808495); font-style: italic; }
"""

_JS = (
    EVENT_QUEUE_JS
    + r"""
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
    const gaps = [...root.querySelectorAll(".tb-gap.active")];
    const at = gaps.indexOf(gapEl);
    let next = null;
    if (e.key === "ArrowRight") next = gaps[at + 1];
    else if (e.key === "ArrowLeft") next = gaps[at - 1];
    else if (e.key === "Home") next = gaps[0];
    else if (e.key === "End") next = gaps[gaps.length - 1];
    else return;
    e.preventDefault();
    e.stopPropagation();
    if (next) next.focus();
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
  const { parentElement, data, setTriggerValue } = component;
  let inst = INSTANCES.get(parentElement);
  if (!inst) {
    inst = createInstance(parentElement);
    INSTANCES.set(parentElement, inst);
  }
  // Streamlit calls this function again (same parentElement, without running the previous
  // cleanup) whenever `data` changes: update the one instance instead of stacking listeners.
  inst.queue.send = setTriggerValue;
  inst.data = data && typeof data === "object" ? data : {};
  inst.queue.acknowledge(inst.data.ack);
  inst.render();
  return instanceCleanup(inst, ++inst.generation, parentElement, INSTANCES);
}
"""
)

_COMPONENT = st.components.v2.component(
    "chronocept_token_boundaries", css=_CSS, js=_JS, isolate_styles=True
)


_CSS_COLOR = re.compile(
    r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(?:rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)"
)


def css_color(value: object, fallback: str) -> str:
    """``value`` when it is a plain CSS colour (hex, name, rgb()/hsl()), else ``fallback``.

    Colours end up in inline style properties; anything else (None, "", a stray ``;``) is
    replaced rather than passed on.
    """
    if isinstance(value, str) and _CSS_COLOR.fullmatch(value.strip()):
        return value.strip()
    return fallback


def _normalized_boundaries(boundaries: Sequence[int], n_tokens: int) -> list[int]:
    """Sorted, unique segment starts inside the text, always starting with 0."""
    inside = {int(b) for b in boundaries if 0 < int(b) < n_tokens}
    return [0, *sorted(inside)]


def token_boundary_editor(
    tokens: list[str],
    spaces_after: list[bool],
    boundaries: list[int],
    *,
    segment_colors: list[str] | None = None,
    segment_labels: list[str] | None = None,
    key: str,
    disabled: bool = False,
    on_change: Callable[[int], None] | None = None,
) -> int | None:
    """Draw the text with its segments and let the annotator toggle boundaries.

    Parameters
    ----------
    tokens, spaces_after
        The tokens of the text and, for each, whether a space follows it (the output of the
        project's tokenizer). Both lists have the same length.
    boundaries
        Token indices where segments start (0 is implied; out-of-range entries are ignored).
    segment_colors
        One CSS hex colour per segment (cycled if shorter); default: a 3-colour palette.
        Colours are drawn as a light tint with an underline in the colour.
    segment_labels
        Optional short label per segment (e.g. the axis name), shown as a pill before it.
    key
        Streamlit key of this instance (required: the delivered-event bookkeeping uses it).
    disabled
        Read-only: boundaries are shown but no gap can be clicked or focused.
    on_change
        Optional ``callback(gap)``, run once per toggle *before* the script body (the page
        updates its boundaries there and this very run draws them). When given, the function
        returns None.

    Returns
    -------
    int | None
        ``i`` (``1 <= i < len(tokens)``) once, in the run after the annotator clicked the gap
        between token ``i-1`` and ``i`` — "toggle the boundary at ``i``" — when no
        ``on_change`` is given; None otherwise. Apply it and ``st.rerun()`` to redraw.
    """
    if len(spaces_after) != len(tokens):
        raise ValueError(
            f"spaces_after has {len(spaces_after)} entries for {len(tokens)} tokens"
        )
    n_tokens = len(tokens)
    starts = _normalized_boundaries(boundaries, n_tokens) if n_tokens else [0]
    palette = list(segment_colors) if segment_colors else list(DEFAULT_SEGMENT_COLORS)
    colors = [
        css_color(palette[j % len(palette)], DEFAULT_SEGMENT_COLORS[j % len(DEFAULT_SEGMENT_COLORS)])
        for j in range(len(starts))
    ]
    labels = (
        [str(segment_labels[j]) if j < len(segment_labels) else "" for j in range(len(starts))]
        if segment_labels is not None
        else None
    )

    def parse(action: dict) -> int | None:
        gap = action.get("gap")
        if isinstance(gap, bool) or not isinstance(gap, int) or not 0 < gap < n_tokens:
            return None
        return gap

    data = {
        "tokens": [str(t) for t in tokens],
        "spaces_after": [bool(s) for s in spaces_after],
        "boundaries": starts,
        "colors": colors,
        "labels": labels,
        "disabled": bool(disabled),
        "ack": acknowledged_ids(key),
    }
    result = _COMPONENT(
        key=key,
        data=data,
        on_events_change=make_callback(key, parse, on_change),
    )
    if on_change is not None or disabled:
        return None
    return first_new_action(key, result.get(TRIGGER), parse)
