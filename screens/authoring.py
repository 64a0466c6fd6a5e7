"""Annotator: Write follow-ups — the second task of a context-pairs project.

The page shows a target statement with its settled curve and asks for three follow-ups: one
that should decrease how long the target stays valid, one that should keep it, one that should
increase it, each with the author's curve of the target given it — entered as two durations,
as the workbench's "Enter durations instead" (:mod:`annotation.pairs.authoring`). Each
follow-up's chart draws the settled curve and the author's, and says the change they make in
words, live; a curve that does not say what the author intends is warned about, never blocked
(the blind annotators' settled change measures it, on the Annotators page).

The target shown stays pinned (``authoring.target``) until it is saved, so a target handed to
someone else meanwhile does not swap the texts being typed. Saving is the Save button's
callback, bound to the target it was drawn for: a stale tab's click is refused in one line
(:func:`annotation.services.corpus.authoring.save_follow_ups`). Keys are ``authoring.*``.
"""

from __future__ import annotations

import streamlit as st

from annotation.text_limits import MAX_TEXT_CHARS
from annotation.pairs.authoring import (
    INTENT_VERBS,
    Curve,
    FollowUpDraft,
    curve_from_durations,
    default_durations,
    read_intent,
)
from annotation.protocols import protocol_of
from annotation.services.corpus import authoring
from annotation.services.errors import ServiceError
from annotation.timeaxis import parse_duration
from annotation.wording import counted
from annotation.workbench.elicitation import curve_feedback
from ui.curve_figures import curves_figure
from ui.display import plain
from ui.session import (
    current_project,
    get_database,
    require_actor,
    service_errors,
    show_pending_toast,
    toast_next_run,
)

K_TARGET = "authoring.target"  # (project id, target key) shown until saved
K_FLASH = "authoring.flash"
K_ERROR = "authoring.error"
SETTLED_COLOR, AUTHOR_COLOR = "#9aa0a6", "#3B6FB6"


def _key(what: str, intent: str, target_sample_id: int) -> str:
    """A widget's key: per target, so the next target starts with empty boxes."""
    return f"authoring.{what}.{intent}.{target_sample_id}"


def _curve_of(intent: str, target_sample_id: int) -> tuple[Curve | None, str]:
    """The author's curve for one follow-up from its two typed durations, or None and why not."""
    peak = st.session_state.get(_key("peak", intent, target_sample_id), "")
    half = st.session_state.get(_key("half", intent, target_sample_id), "")
    try:
        return curve_from_durations(parse_duration(peak), parse_duration(half)), ""
    except ValueError as exc:
        return None, str(exc)


def _forget(target_sample_id: int) -> None:
    for intent in INTENT_VERBS:
        for what in ("text", "peak", "half"):
            st.session_state.pop(_key(what, intent, target_sample_id), None)


def _save(project_id: int, target_key: str, target_sample_id: int) -> None:
    """The Save button's callback (runs before the page, for the target the button was drawn
    with)."""
    drafts = [FollowUpDraft(intent, st.session_state.get(_key("text", intent, target_sample_id), ""),
                            _curve_of(intent, target_sample_id)[0]) for intent in INTENT_VERBS]
    try:
        authoring.save_follow_ups(db, actor, project_id, target_key, drafts)
    except ServiceError as exc:
        st.session_state[K_ERROR] = str(exc)
        return
    _forget(target_sample_id)
    st.session_state.pop(K_TARGET, None)
    toast_next_run(K_FLASH, "Your three follow-ups are saved. Other annotators annotate them without "
                            "knowing what you intended. Here is the next target.")


def _chart(settled: Curve, mine: Curve | None, key: str) -> None:
    st.plotly_chart(curves_figure([("settled curve of the target alone", settled, SETTLED_COLOR, "dot"),
                                   ("your curve given this follow-up", mine, AUTHOR_COLOR, "solid")],
                                  height=240, x_title="time from the target's moment"), key=key)


actor = require_actor()
db = get_database()
project = current_project(actor)
st.title("Write follow-ups")
if project is None:
    st.info("There is no project yet. A lead creates one under **Projects & texts**.")
    st.stop()
if not protocol_of(project.settings).authored_samples:
    st.info(plain(f"Writing follow-ups belongs to context-pairs projects; {project.name} has single texts."),
            icon=":material/info:")
    st.stop()
show_pending_toast(K_FLASH)
error = st.session_state.pop(K_ERROR, None)
if error:
    st.error(plain(error))

pinned = st.session_state.get(K_TARGET)
task = None
with service_errors():
    if pinned and pinned[0] == project.id:
        task = authoring.authoring_task(db, actor, project.id, pinned[1])
    if task is None:
        task = authoring.authoring_task(db, actor, project.id)
if task is None:
    st.session_state.pop(K_TARGET, None)
    st.info("No target to write for: a target needs a settled curve, and you have written for every "
            "settled one. Come back when more targets are settled.", icon=":material/hourglass_empty:")
    st.stop()
st.session_state[K_TARGET] = (project.id, task.target_key)
sid = task.target_sample_id

st.caption(f"Project **{plain(project.name)}** · write three follow-ups for this target: one that should "
           "make it valid for a shorter time, one that should leave that as it is, one that should make "
           "it valid for longer. Other annotators then draw the target given each follow-up, without "
           "knowing what you intended.")
with st.container(border=True):
    st.caption("The target")
    st.text(task.target_text)
    lines = curve_feedback(*task.settled_curve).lines
    st.caption(plain("Its settled curve: " + "; ".join(lines[:-1]) + "."))
    if task.authored_so_far:
        st.caption(f"Others have written {counted(task.authored_so_far, 'follow-up')} for it so far.")

peak_default, half_default = default_durations(task.settled_curve)
for number, (intent, verb) in enumerate(INTENT_VERBS.items(), 1):
    with st.container(border=True, key=f"authoring-box-{intent}"):  # CSS class st-key-authoring-box-…
        st.markdown(f"**{number}. A follow-up that should {verb.upper()} how long the target stays valid**")
        st.text_area("Follow-up", key=_key("text", intent, sid), max_chars=MAX_TEXT_CHARS, height=80,
                     placeholder="What happens next, in one or two sentences.")
        left, right = st.columns(2)
        left.text_input("Given it, the target is most valid at", value=peak_default,
                        key=_key("peak", intent, sid), help="A duration from the target's moment, e.g. '2 days'.")
        right.text_input("and half of that validity is gone by", value=half_default,
                         key=_key("half", intent, sid), help="A later duration, e.g. '3 weeks'.")
        curve, problem = _curve_of(intent, sid)
        _chart(task.settled_curve, curve, key=f"authoring.chart.{intent}.{sid}")
        if curve is None:
            st.warning(plain(problem or "Give the two durations to draw your curve."), icon=":material/edit:")
            continue
        reading = read_intent(task.settled_curve, curve, intent, task.change_factor)
        st.caption(plain(reading.reading.words))
        if reading.warning:
            st.warning(plain(reading.warning + " You can still save it."), icon=":material/warning:")

st.button("Save the three follow-ups", type="primary", key="authoring.save", icon=":material/save:",
          on_click=_save, args=(project.id, task.target_key, sid))
