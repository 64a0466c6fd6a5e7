"""Annotate one sample in three steps: segmentation, axis labels, validity curve.

Every edit goes through a callback that calls a pure function of ``annotation.editing``; the
draft is saved to the database at the start of the next run whenever it changed, with the
version check that stops a second tab from overwriting newer work.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from annotation import editing
from annotation.axes import AXES, AXIS_NAMES
from annotation.curves import MAX_POINTS, CurveFitError, compare_distributions, describe_curve
from annotation.flags import ANNOTATOR_FLAGS, flag_label, flag_needs_note
from annotation.guidelines import current_guidelines
from annotation.protocol import STEPS, submission_problems
from annotation.segmentation import Segmentation, segment_texts, spaces_after, token_texts
from annotation.services import queue
from annotation.services.errors import ServiceError, StaleVersion
from annotation.timeaxis import X_MAX, tick_positions
from ui.components import curve_canvas, token_boundary_editor
from ui.display import PARAM_RANGES, axis_color, axis_label, curve_polyline, plain
from ui.session import current_project, get_database, require_actor, service_errors

OPEN_KEY = "workbench.open_annotation_id"
K_ITEM, K_CONTENT, K_STEP = "wb.item", "wb.content", "wb.step"
K_SAVED, K_CLOCK, K_FIT_MSG, K_CONFLICT = "wb.saved", "wb.clock", "wb.fit_message", "wb.conflict"

actor = require_actor()
db = get_database()
project = current_project(actor)
if project is None:
    st.info("There is no project yet.")
    st.stop()


# --- loading ---------------------------------------------------------------------------------

def _load(item: queue.WorkItem) -> None:
    for k in [k for k in st.session_state if isinstance(k, str) and k.startswith("wb.w.")]:
        del st.session_state[k]
    st.session_state[K_ITEM] = item
    st.session_state[K_CONTENT] = item.content
    st.session_state[K_STEP] = item.step
    st.session_state[K_SAVED] = (item.content, item.step)
    st.session_state[K_CLOCK] = time.monotonic()
    st.session_state[K_FIT_MSG] = None
    st.session_state[K_CONFLICT] = None


def _reload_current() -> None:
    item = st.session_state[K_ITEM]
    try:
        _load(queue.open_item(db, actor, item.annotation_id))
    except ServiceError as exc:
        st.session_state[K_CONFLICT] = str(exc)


requested = st.session_state.pop(OPEN_KEY, None)
with service_errors():
    if requested is not None:
        _load(queue.open_item(db, actor, int(requested)))
    elif st.session_state.get(K_ITEM) is None or st.session_state[K_ITEM].project_id != project.id:
        nxt = queue.next_item(db, actor, project.id)
        if nxt is None:
            st.title("Annotate")
            st.success("Nothing left to annotate in this project for you right now. 🎉")
            st.page_link("screens/queue.py", label="Back to my queue", icon=":material/list:")
            st.stop()
        _load(nxt)

item: queue.WorkItem = st.session_state[K_ITEM]
aid = item.annotation_id
tokens = token_texts(item.parent_text)
spaces = spaces_after(item.parent_text)


def _content():
    return st.session_state[K_CONTENT]


def _set_content(content) -> None:  # type: ignore[no-untyped-def]
    st.session_state[K_CONTENT] = content


# --- callbacks: every edit, applied before the page is drawn -----------------------------------

def _on_gap(gap: int) -> None:
    _set_content(editing.toggle_boundary(_content(), item.n_tokens, gap))


def _on_reset_segments() -> None:
    _set_content(editing.reset_segmentation(_content()))


def _on_axis(index: int, widget_key: str) -> None:
    _set_content(editing.set_segment_axis(_content(), index, st.session_state.get(widget_key)))


def _on_curve(event: dict) -> None:
    content, message = editing.edit_points(_content(), event)
    _set_content(content)
    st.session_state[K_FIT_MSG] = message


def _on_params() -> None:
    c = _content()
    values = [st.session_state.get(f"wb.w.{aid}.{p}") for p in ("xi", "omega", "alpha")]
    if None in values:
        return
    content, message = editing.set_parameters(c, *values)
    _set_content(content)
    st.session_state[K_FIT_MSG] = message


def _on_refit() -> None:
    content, message = editing.refit(_content())
    _set_content(content)
    st.session_state[K_FIT_MSG] = message


def _go(step: int) -> None:
    st.session_state[K_STEP] = max(0, min(len(STEPS) - 1, step))


# --- autosave (the callbacks above already ran) ------------------------------------------------

def _autosave() -> None:
    if item.is_submitted or st.session_state.get(K_CONFLICT):
        return
    current = (_content(), st.session_state[K_STEP])
    if current == st.session_state[K_SAVED]:
        return
    now = time.monotonic()
    try:
        saved = queue.save_draft(db, actor, aid, st.session_state[K_ITEM].version, current[0],
                                 step=current[1], seconds_delta=now - st.session_state[K_CLOCK])
    except StaleVersion as exc:
        st.session_state[K_CONFLICT] = str(exc)
        return
    except ServiceError as exc:
        st.error(plain(exc))
        return
    st.session_state[K_ITEM] = saved
    st.session_state[K_SAVED] = current
    st.session_state[K_CLOCK] = now


_autosave()
item = st.session_state[K_ITEM]
content = _content()
step = st.session_state[K_STEP]
segmentation = Segmentation.from_boundaries(content.boundaries, item.n_tokens)
seg_texts = segment_texts(item.parent_text, segmentation)

# --- header ------------------------------------------------------------------------------------

with service_errors():
    status = queue.queue_status(db, actor, project.id)
head, quota_col, guide_col = st.columns([6, 2, 2], vertical_alignment="center")
head.markdown(f"### Sample {plain(item.external_id)}")
head.caption(f"Benchmark {item.benchmark} · {plain(project.name)} · guidelines v{item.guidelines_version}")
quota_col.metric("Submitted today", f"{status.submitted_today} / {status.daily_quota}")
with guide_col.popover("Guidelines", icon=":material/menu_book:", width="stretch"):
    guide = current_guidelines()
    st.caption(f"Version {guide.version} — also on the Guidelines page")
    with st.container(height=520):
        st.markdown(guide.text)

if item.is_warmup:
    st.info("Warm-up sample: a lead has annotated this text, and your annotation is compared with "
            "theirs. Your figures are on **My queue**.", icon=":material/school:")

if item.returned_note and not item.is_submitted:
    st.warning(f"A lead sent this sample back to you: {plain(item.returned_note)}", icon=":material/undo:")

if st.session_state.get(K_CONFLICT):
    st.error(plain(st.session_state[K_CONFLICT]))
    st.button("Load the newer version", on_click=_reload_current, type="primary", key="wb.reload")
    st.stop()


# --- read-only view of a submitted annotation ---------------------------------------------------

def _draw_readonly() -> None:
    st.info(f"Submitted {item.submitted_at:%Y-%m-%d %H:%M} UTC — submitted work cannot be changed "
            "(a lead can reopen it).")
    token_boundary_editor(tokens, spaces, list(content.boundaries),
                          segment_colors=[axis_color(a) for a in content.segment_axes],
                          segment_labels=[axis_label(a) for a in content.segment_axes],
                          key=f"wb.w.{aid}.ro_seg", disabled=True)
    if content.flags:
        st.warning("Flagged: " + ", ".join(flag_label(f) for f in content.flags)
                   + (f" — {plain(content.note)}" if content.note else ""))
    curve_canvas(list(content.points), curve=curve_polyline(content.xi, content.omega, content.alpha),
                 ticks=tick_positions(), x_max=X_MAX, key=f"wb.w.{aid}.ro_curve", disabled=True)
    if content.has_parameters:
        st.caption(f"ξ = {content.xi:.2f} · ω = {content.omega:.2f} · α = {content.alpha:.2f} · "
                   f"RMSE {content.rmse:.3f}")
    if st.button("Next sample", type="primary", key="wb.next_after_view"):
        st.session_state[K_ITEM] = None
        st.rerun()


if item.is_submitted:
    _draw_readonly()
    st.stop()

# --- step bar ----------------------------------------------------------------------------------

step_cols = st.columns(len(STEPS))
for i, name in enumerate(STEPS):
    step_cols[i].button(f"{i + 1}. {name}", key=f"wb.stepbar.{i}", width="stretch",
                        type="primary" if i == step else "secondary", on_click=_go, args=(i,))


# --- step 1: segmentation ----------------------------------------------------------------------

def _draw_segmentation() -> None:
    st.caption("Click between two words to add or remove a segment boundary. One temporal idea "
               "per segment; keep markers such as “next week” inside the segment they modify.")
    token_boundary_editor(tokens, spaces, list(content.boundaries), key=f"wb.w.{aid}.seg",
                          on_change=_on_gap)
    left, right = st.columns([3, 1], vertical_alignment="center")
    n = segmentation.n_segments
    left.caption(f"{n} segment{'s' if n != 1 else ''}")
    right.button("Back to one segment", on_click=_on_reset_segments, key="wb.reset_segments",
                 disabled=n == 1, width="stretch")


# --- step 2: axis labels -----------------------------------------------------------------------

def _draw_axes() -> None:
    token_boundary_editor(tokens, spaces, list(content.boundaries),
                          segment_colors=[axis_color(a) for a in content.segment_axes],
                          segment_labels=[axis_label(a) for a in content.segment_axes],
                          key=f"wb.w.{aid}.seg_ro", disabled=True)
    with st.expander("Key questions for the eight axes", icon=":material/help:"):
        st.table(pd.DataFrame([{"axis": a.label, "key question": a.key_question,
                                "what belongs there": a.definition} for a in AXES]))
    help_text = "\n".join(f"- **{a.label}**: {a.key_question}" for a in AXES)
    for j, text in enumerate(seg_texts):
        widget_key = f"wb.w.{aid}.axis.{segmentation.boundaries[j]}.{segmentation.masses[j]}"
        st.session_state[widget_key] = content.segment_axes[j]
        st.markdown(f"**Segment {j + 1}** — {plain(text)}")
        st.segmented_control(
            f"Axis of segment {j + 1}", AXIS_NAMES, format_func=axis_label, key=widget_key,
            on_change=_on_axis, args=(j, widget_key), help=help_text, label_visibility="collapsed",
        )


# --- step 3: validity curve --------------------------------------------------------------------

def _draw_curve() -> None:
    st.caption(f"Click the chart to place 3–{MAX_POINTS} points: one at the peak, two at about half "
               "validity, two where validity has faded. Drag a point to move it; double-click or "
               "right-click it to remove it.")
    chart, summary = st.columns([3, 1])
    with chart:
        curve_canvas(list(content.points), curve=curve_polyline(content.xi, content.omega, content.alpha),
                     ticks=tick_positions(), x_max=X_MAX, max_points=MAX_POINTS,
                     key=f"wb.w.{aid}.curve", on_change=_on_curve)
    with summary:
        message = st.session_state.get(K_FIT_MSG)
        if message:
            st.warning(message)
        if content.has_parameters:
            try:
                st.success(describe_curve(content.xi, content.omega, content.alpha,
                                          project.settings.log_base).capitalize())
            except CurveFitError as exc:
                st.warning(str(exc))
            st.markdown(f"ξ **{content.xi:.2f}** · ω **{content.omega:.2f}** · α **{content.alpha:.2f}**")
            st.caption(f"Fit error (RMSE): {content.rmse:.3f}"
                       + (" · parameters tuned by hand" if content.params_source == "manual" else ""))
        elif not message:
            st.info("No curve yet: place at least 3 points.")
    if content.has_parameters:
        with st.expander("Fine-tune the parameters", icon=":material/tune:"):
            c1, c2, c3, c4 = st.columns(4, vertical_alignment="bottom")
            for col, (name, (label, lo, hi)) in zip((c1, c2, c3), PARAM_RANGES.items()):
                key = f"wb.w.{aid}.{name}"
                st.session_state[key] = float(round(getattr(content, name), 2))
                col.number_input(label, min_value=lo, max_value=hi, step=0.5, format="%.2f", key=key,
                                 on_change=_on_params)
            c4.button("Back to the fitted curve", on_click=_on_refit, key="wb.refit",
                      disabled=content.params_source != "manual", width="stretch")
        with st.expander("Compare with other distributions", icon=":material/compare:"):
            try:
                rmses = compare_distributions(content.points)
            except CurveFitError as exc:
                st.caption(str(exc))
            else:
                st.dataframe(pd.DataFrame([{"distribution": k.replace("_", "-"), "RMSE": v}
                                           for k, v in sorted(rmses.items(), key=lambda kv: kv[1])]),
                             hide_index=True)


[_draw_segmentation, _draw_axes, _draw_curve][step]()


# --- footer: navigation, flag, submit --------------------------------------------------------------

@st.dialog("Submit this annotation?")
def _confirm_submit(flagged: bool) -> None:
    current = st.session_state[K_CONTENT]
    problems = submission_problems(current, item.n_tokens)
    if problems:
        for p in problems:
            st.error(p)
        return
    if flagged:
        st.write("Flagged: " + ", ".join(flag_label(f) for f in current.flags))
    else:
        st.write(f"{len(current.boundaries)} segments: "
                 + ", ".join(axis_label(a) for a in current.segment_axes))
        st.write(describe_curve(current.xi, current.omega, current.alpha, project.settings.log_base))
    st.caption("After submitting you cannot change this annotation.")
    if st.button("Submit", type="primary", key="wb.confirm_submit", shortcut="Enter"):
        try:
            queue.submit(db, actor, aid, st.session_state[K_ITEM].version, current,
                         seconds_delta=time.monotonic() - st.session_state[K_CLOCK])
        except ServiceError as exc:
            st.error(plain(exc))
            return
        st.session_state[K_ITEM] = None
        st.toast(f"Submitted {plain(item.external_id)}", icon=":material/check_circle:")
        st.rerun()


st.divider()
back, nxt, flag_col, submit_col = st.columns([1, 1, 1, 1.4])
back.button("Back", icon=":material/arrow_back:", on_click=_go, args=(step - 1,), disabled=step == 0,
            key="wb.back", shortcut="Alt+Left", width="stretch")
nxt.button("Next", icon=":material/arrow_forward:", on_click=_go, args=(step + 1,),
           disabled=step == len(STEPS) - 1, key="wb.next", shortcut="Alt+Right", width="stretch")
with flag_col.popover("Flag", icon=":material/flag:", width="stretch"):
    reason = st.radio("Why can this sample not be annotated normally?",
                      [f.code for f in ANNOTATOR_FLAGS], format_func=flag_label, key=f"wb.w.{aid}.flag")
    note = st.text_area("Note for the lead", key=f"wb.w.{aid}.flag_note", max_chars=2000,
                        placeholder="Required for 'Other'", height=90)
    if st.button("Submit as flagged", key="wb.flag_submit", type="primary"):
        if flag_needs_note(reason) and not note.strip():
            st.error("Please explain 'Other' in the note.")
        else:
            _set_content(editing.set_flags(_content(), [reason], note))
            _confirm_submit(True)
problems = submission_problems(content, item.n_tokens)
if submit_col.button("Submit", icon=":material/send:", type="primary", key="wb.submit",
                     shortcut="Alt+Enter", width="stretch",
                     disabled=status.quota_reached,
                     help="Submit the finished annotation" if not problems else " ".join(problems)):
    if content.flags:  # a flag chosen earlier and not submitted does not ride along
        _set_content(editing.set_flags(content, [], ""))
    _confirm_submit(False)
if status.quota_reached:
    st.info(f"You reached today's quota of {status.daily_quota}. Your work is saved as a draft.")
st.caption("Shortcuts: Alt+→ next step · Alt+← previous step · Alt+Enter submit. "
           f"Draft saved automatically · {item.seconds_spent / 60:.1f} min on this sample.")
