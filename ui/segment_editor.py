"""The segment editor the Review page (edit a resolution) and the Warm-up page (make gold) share.

The edit lives in ``st.session_state[state_key]`` as an :class:`annotation.review.lead_edit.LeadEdit`;
the callbacks below replace it with the edited one; :func:`segment_axes_editor` draws the text
with its clickable gaps and one axis choice per segment.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from annotation.axes import AXIS_NAMES
from annotation.review.lead_edit import LeadEdit
from annotation.segmentation import Segmentation, segment_texts, spaces_after, token_texts
from ui.components import token_boundary_editor
from ui.display import PARAM_RANGES, axis_color, axis_label, plain


def multi_axis_label(axes: tuple[str, ...]) -> str:
    """"Main + Static" for a segment carrying several axes, "—" for none."""
    return " + ".join(axis_label(a) for a in axes) if axes else "—"


def on_screen(state_key: str, slot: str | None) -> bool:
    """Whether the edit under ``state_key`` is the one the page showed last in ``slot`` (a key
    naming the editor's place on the page, written by the editors as they draw).

    A page that shows one of several edits in one place (a Sample or Case box) keeps each edit
    while another is shown, and the browser can report the widgets of the one shown before
    after the box changed: Streamlit, which dropped their state, calls their callbacks with
    those stale values (under load the gold editor lost a sample's axes to its boxes' callbacks
    while another sample was shown). A callback changes only the edit on screen."""
    return slot is None or st.session_state.get(slot) == state_key


def toggle_boundary(gap: int, *, n_tokens: int, state_key: str, slot: str | None = None) -> None:
    """Add or remove the boundary at ``gap``; the segments keep their axes where they survive."""
    if not on_screen(state_key, slot):
        return
    edit: LeadEdit = st.session_state[state_key]
    st.session_state[state_key] = edit.toggled(gap)


def choose_segment_axes(start: int, end: int, widget_key: str, state_key: str, n_tokens: int,
                        slot: str | None = None) -> None:
    """Take the axes of the segment spanning tokens ``start``–``end`` from its multiselect.

    The segment is named by its span, never by its place in the list: after a boundary click the
    browser goes on reporting the boxes of segments that no longer exist until a run ends
    normally (Streamlit's frontend forgets widgets only then), and Streamlit still calls such a
    box's ``on_change`` with the arguments of the run that drew it. By position, a vanished
    segment's box wrote its axes over the segment that took its place in the list."""
    edit: LeadEdit | None = st.session_state.get(state_key)
    if edit is None or not on_screen(state_key, slot):  # dropped meanwhile (saved, back to the
        return                                           # proposal), or not the one shown
    st.session_state[state_key] = edit.with_segment_axes(start, end, st.session_state.get(widget_key) or ())


def set_parameter(name: str, widget_key: str, state_key: str, round_key: str | None = None,
                  round_n: int = 0, slot: str | None = None) -> None:
    """Take a typed ξ, ω or α from its number input — only from an input shown now (of round
    ``round_n`` under ``round_key``). An input of an earlier round is one the page has replaced:
    the browser may still send its value with a later rerun, and Streamlit, which dropped its
    state when it left the page, reports that value as a change (the gold editor stored ξ 60,
    ω 10, α 0 after a Save pressed 0.1 s after the third chart click, 1 run in 8 under load)."""
    if (round_key is not None and st.session_state.get(round_key, 0) != round_n) or not on_screen(state_key, slot):
        return
    value = st.session_state.get(widget_key)
    edit: LeadEdit | None = st.session_state.get(state_key)
    if value is not None and edit is not None:
        st.session_state[state_key] = edit.with_parameter(name, value)


def segment_axes_editor(parent_text: str, n_tokens: int, state_key: str, *, text_key: str,
                        axes_key_prefix: str, slot: str | None = None) -> Segmentation:
    """Draw the text (click a gap to toggle a boundary) and one axis choice per segment for the
    edit under ``state_key``; returns its current segmentation. ``slot``: see :func:`on_screen`."""
    if slot is not None:
        st.session_state[slot] = state_key
    # The boxes are shown anew when the last run that drew them all drew another edit: their
    # values are then written, whatever their state holds. (The browser's report of boxes it had
    # before left their state holding the axes while the new boxes, given no value, showed none
    # and sent "no axes" back: under load a sample's gold lost its axes on the way back to it.)
    fresh = slot is not None and st.session_state.get(f"{slot}.drawn") != state_key
    edit: LeadEdit = st.session_state[state_key]
    seg = edit.segmentation
    token_boundary_editor(token_texts(parent_text), spaces_after(parent_text), list(seg.boundaries),
                          segment_colors=[axis_color(a[0] if a else None) for a in edit.segment_axes],
                          segment_labels=[multi_axis_label(a) for a in edit.segment_axes],
                          key=text_key, on_change=partial(toggle_boundary, n_tokens=n_tokens, state_key=state_key, slot=slot))
    for j, text in enumerate(segment_texts(parent_text, seg)):
        start, end = seg.spans[j]
        widget_key = f"{axes_key_prefix}.{start}.{end - start}"
        # Write the box only when the edit holds other axes than it (a new segment, back to the
        # proposal): a value written here reaches the browser as "show this value" and replaces
        # whatever the lead chose in the box since this run began.
        shown = st.session_state.get(widget_key)
        if fresh or shown is None or set(shown) != set(edit.segment_axes[j]):
            st.session_state[widget_key] = list(edit.segment_axes[j])
        left, right = st.columns([3, 2], vertical_alignment="center")
        left.markdown(f"**{j + 1}.** {plain(text)}")
        right.multiselect(f"Axes of segment {j + 1}", AXIS_NAMES, format_func=axis_label,
                          key=widget_key, on_change=choose_segment_axes,
                          args=(start, end, widget_key, state_key, n_tokens, slot),
                          label_visibility="collapsed", placeholder="Choose an axis")
    if slot is not None:
        st.session_state[f"{slot}.drawn"] = state_key
    return seg


def parameter_key(key_prefix: str, name: str) -> str:
    """The key of the ξ, ω or α input shown now (see :func:`parameter_inputs`)."""
    return f"{key_prefix}.{name}.{st.session_state.get(f'{key_prefix}.param_round', 0)}"


def parameter_inputs(state_key: str, key_prefix: str, slot: str | None = None) -> None:
    """ξ, ω and α of the edit under ``state_key`` as number inputs, each shown within its input
    range.

    When the values change elsewhere (a fit of the chart's points, back to the proposal) the
    inputs are new ones (keys ``<key_prefix>.<name>.<round>``), never a write into the old
    ones' state: the browser could send an old input's previous value with a later rerun, which
    then counted as typed — the gold editor stored ξ 60, ω 10, α 0 (the blank edit's values)
    after three quick chart clicks. An old input's stale value now matches its own state and
    changes nothing."""
    if slot is not None:
        st.session_state[slot] = state_key
    edit: LeadEdit = st.session_state[state_key]
    shown = {name: float(round(min(hi, max(lo, getattr(edit, name))), 2))
             for name, (_, lo, hi) in PARAM_RANGES.items()}
    round_key = f"{key_prefix}.param_round"
    n = st.session_state.get(round_key, 0)
    held = {name: st.session_state.get(f"{key_prefix}.{name}.{n}") for name in PARAM_RANGES}
    if any(value is not None and value != shown[name] for name, value in held.items()):
        n += 1
        st.session_state[round_key] = n
    for name, (label, lo, hi) in PARAM_RANGES.items():
        widget_key = f"{key_prefix}.{name}.{n}"
        st.number_input(label, min_value=lo, max_value=hi, value=shown[name], step=0.5, format="%.2f",
                        key=widget_key, on_change=set_parameter, args=(name, widget_key, state_key, round_key, n, slot))