"""Token boundary editor: the text as tokens, segments coloured, a click between two tokens
toggles a segment boundary (Streamlit custom component v2; its code is ``token_boundaries.js`` /
``.css`` beside this file, after the shared ``instance_cleanup.js``, ``delivery.js`` and
``text_gaps.js``; no build step).

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
    DELIVERY_JS,
    TRIGGER,
    acknowledgement,
    first_new_event,
    make_callback,
)
from ui.components.sources import TEXT_GAPS_JS, component_source

#: Default segment colours when the page gives none, cycled. Drawn as a light tint with a
#: stronger underline, so they stay legible on light and dark themes alike.
DEFAULT_SEGMENT_COLORS = ("#3b82f6", "#ec4899", "#10b981")

_CSS = component_source("token_boundaries.css")
_JS = DELIVERY_JS + TEXT_GAPS_JS + component_source("token_boundaries.js")

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
        **acknowledgement(key),  # {"client", "acked"}: see ui.components.events
    }
    result = _COMPONENT(
        key=key,
        data=data,
        on_events_change=make_callback(key, parse, on_change),
    )
    if on_change is not None or disabled:
        return None
    return first_new_event(key, result.get(TRIGGER), parse)
