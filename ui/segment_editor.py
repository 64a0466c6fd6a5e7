"""The segment editor the Review page (edit a resolution) and the Warm-up page (make gold) share.

The edit lives in ``st.session_state[state_key]`` as a dict with at least ``boundaries``,
``axes`` (one tuple of axis names per segment: a resolution may keep several) and ``xi``,
``omega``, ``alpha``. The callbacks below change that dict; :func:`segment_axes_editor` draws
the text with its clickable gaps and one axis choice per segment.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from annotation.axes import AXIS_NAMES
from annotation.segmentation import (
    Segmentation,
    SegmentationError,
    remap_segment_axes,
    segment_texts,
    spaces_after,
    token_texts,
)
from ui.components import token_boundary_editor
from ui.display import axis_color, axis_label, plain


def multi_axis_label(axes: tuple[str, ...]) -> str:
    """"Main + Static" for a segment carrying several axes, "—" for none."""
    return " + ".join(axis_label(a) for a in axes) if axes else "—"


def toggle_boundary(gap: int, *, n_tokens: int, state_key: str) -> None:
    """Add or remove the boundary at ``gap``; the segments keep their axes where they survive."""
    state = st.session_state[state_key]
    old = Segmentation.from_boundaries(state["boundaries"], n_tokens)
    try:
        new = old.toggle(gap)
    except SegmentationError:
        return
    axes = remap_segment_axes(old, state["axes"], new)
    st.session_state[state_key] = {**state, "boundaries": new.boundaries, "axes": tuple(tuple(a) for a in axes)}


def choose_segment_axes(start: int, end: int, widget_key: str, state_key: str, n_tokens: int) -> None:
    """Take the axes of the segment spanning tokens ``start``–``end`` from its multiselect (stored
    in the fixed axis order).

    The segment is named by its span, never by its place in the list: after a boundary click the
    browser goes on reporting the boxes of segments that no longer exist until a run ends
    normally (Streamlit's frontend forgets widgets only then), and Streamlit still calls such a
    box's ``on_change`` with the arguments of the run that drew it. By position, a vanished
    segment's box wrote its axes over the segment that took its place in the list."""
    state = st.session_state.get(state_key)
    if state is None:  # the edit was dropped (saved, or back to the proposal) meanwhile
        return
    spans = Segmentation.from_boundaries(state["boundaries"], n_tokens).spans
    if (start, end) not in spans:
        return  # a gone segment's box: nothing of the current edit is its to change
    axes = list(state["axes"])
    chosen = set(st.session_state.get(widget_key) or ())
    axes[spans.index((start, end))] = tuple(a for a in AXIS_NAMES if a in chosen)
    st.session_state[state_key] = {**state, "axes": tuple(axes)}


def set_parameter(name: str, widget_key: str, state_key: str, **also: Any) -> None:
    """Take a typed ξ, ω or α from its number input (and set ``also`` in the same edit)."""
    value = st.session_state.get(widget_key)
    state = st.session_state.get(state_key)
    if value is not None and state is not None:
        st.session_state[state_key] = {**state, name: float(value), **also}


def segment_axes_editor(parent_text: str, n_tokens: int, state_key: str, *, text_key: str,
                        axes_key_prefix: str) -> Segmentation:
    """Draw the text (click a gap to toggle a boundary) and one axis choice per segment for the
    edit under ``state_key``; returns its current segmentation."""
    edit = st.session_state[state_key]
    seg = Segmentation.from_boundaries(edit["boundaries"], n_tokens)
    token_boundary_editor(token_texts(parent_text), spaces_after(parent_text), list(seg.boundaries),
                          segment_colors=[axis_color(a[0] if a else None) for a in edit["axes"]],
                          segment_labels=[multi_axis_label(a) for a in edit["axes"]],
                          key=text_key, on_change=partial(toggle_boundary, n_tokens=n_tokens, state_key=state_key))
    for j, text in enumerate(segment_texts(parent_text, seg)):
        start, end = seg.spans[j]
        widget_key = f"{axes_key_prefix}.{start}.{end - start}"
        # Write the box only when the edit holds other axes than it (a new segment, back to the
        # proposal): a value written here reaches the browser as "show this value" and replaces
        # whatever the lead chose in the box since this run began.
        shown = st.session_state.get(widget_key)
        if shown is None or set(shown) != set(edit["axes"][j]):
            st.session_state[widget_key] = list(edit["axes"][j])
        left, right = st.columns([3, 2], vertical_alignment="center")
        left.markdown(f"**{j + 1}.** {plain(text)}")
        right.multiselect(f"Axes of segment {j + 1}", AXIS_NAMES, format_func=axis_label,
                          key=widget_key, on_change=choose_segment_axes,
                          args=(start, end, widget_key, state_key, n_tokens),
                          label_visibility="collapsed", placeholder="Choose an axis")
    return seg
