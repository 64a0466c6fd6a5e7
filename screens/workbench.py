"""Annotate: one sample at a time in the annotation surface, the browser component that owns the
annotation in progress.

Why it is built this way: every edit used to be a Streamlit rerun, and clicks that arrived while
a rerun was in flight were lost. Now the surface applies each edit locally at once and sends the
server its ordered queue of not-yet-acknowledged edits; :func:`_on_events` (the component's
trigger callback, run before the script body) replays them through
:func:`annotation.services.workbench.workbench_events.apply_events` — one transaction, version-checked,
idempotent by sequence number — and keeps the outcome. The surface is then drawn from what is stored
(:func:`ui.workbench_view.build_view`), so what the annotator sees after the server answers is
exactly what is stored.

The surface lives in an ``st.fragment`` together with the header: an edit reruns only the
fragment (no sign-in refresh, no sidebar), and a submit draws the next sample, its header and
the new quota in the same fragment run — one round trip.

The annotation shown is kept in the URL (``?annotation=<id>``): a reload or a bookmark opens the
same sample at the step stored with its draft.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, replace
from functools import partial

import pandas as pd
import streamlit as st

from annotation.curves import CurveFitError, compare_distributions
from ui.protocols import views_of
from annotation.wording import counted
from annotation.services.quality import gold_checks
from annotation.services.accounts import preferences
from annotation.services.projects import projects
from annotation.services.workbench import queue, workbench_events
from annotation.services.policy import Policy, allows
from annotation.services.errors import AlreadySubmitted, ServiceError, StaleVersion, failure_message
from ui.components.annotation_surface import annotation_surface
from ui.display import plain
from ui.guidelines_view import show_guidelines
from ui.preferences import layout_toggle
from ui.session import PROJECT_KEY, current_project, get_database, require_actor, service_errors
from ui.tables import show_table
from ui.workbench_view import Notice, SessionFacts, build_view

#: Set by My queue ("Open" in the history) to show one of the annotator's annotations.
OPEN_KEY = "workbench.open_annotation_id"
#: Set by My queue's "Start the next sample": the annotator asked for work. Opening Annotate
#: otherwise shows their open draft, or a button that asks: opening a page assigns nothing.
ASK_KEY = "workbench.ask_next"
#: How long the answer to a request for work ("Nothing left", the quota) stays on the page over
#: full runs; later, the page asks the queue afresh (texts may have been imported meanwhile).
ANSWER_HOLD_S = 60.0
#: The URL query parameter naming the annotation shown (reload, bookmark, deep link).
QUERY_PARAM = "annotation"
#: Largest id the URL may name (a 32-bit integer column on PostgreSQL; larger is no annotation).
MAX_ID = 2**31 - 1
#: Session-state keys of this screen.
K_STATE, K_LAYOUT, K_TOAST = "wb.state", "wb.layout", "wb.toast"
#: The ``?annotation=`` value this screen last wrote: the URL asks for something only when it
#: differs (a reload, a bookmark, a link), not when it still names the sample just submitted.
K_URL = "wb.url"
#: The sidebar's project selectbox (ui.session.project_picker): dropped when a deep link opens
#: an annotation of another project, so that the picker shows that project on the next run.
PROJECT_PICKER_KEY = "auth.project_picker"

actor = require_actor()
db = get_database()
project = current_project(actor)
if project is None:
    st.info("There is no project yet.")
    st.stop()


@dataclass(frozen=True)
class Loaded:
    """The workbench's state in this browser session (one object, replaced as a whole).

    ``item`` is the annotation as stored after the last batch (None: nothing left to annotate);
    ``client`` the id this tab's surface numbers its edits under for this sample (new for each
    sample loaded); ``acked`` the last seq the server applied for it; ``conflict`` the message
    of a refused takeover (another tab saved newer work) — edits wait until the annotator loads
    the newer version; ``clock`` when the last batch was applied (time spent).
    """

    project_id: int
    item: queue.WorkItem | None
    client: str
    status: queue.QueueStatus | None
    acked: int = 0
    notices: tuple[Notice, ...] = ()
    fit_message: str | None = None
    fit_about: tuple | None = None  # the points and parameters ``fit_message`` was said of
    conflict: str | None = None
    clock: float = 0.0
    #: whether the annotator asked for a sample (False: the page was opened, nothing handed out)
    asked: bool = True


def _fresh(item: queue.WorkItem | None, *, notices: tuple[Notice, ...] = (),
           asked: bool = True) -> Loaded:
    """State for a sample just loaded: a new client id, nothing acknowledged yet."""
    status = queue.queue_status(db, actor, project.id) if item is not None else None
    return Loaded(project.id, item, secrets.token_hex(8), status, notices=notices,
                  clock=time.monotonic(), asked=asked)


def _fit_key(item: queue.WorkItem) -> tuple:
    c = item.content
    return (c.points, c.xi, c.omega, c.alpha, c.params_source, c.context_points, c.context_xi,
            c.context_omega, c.context_alpha, c.context_params_source, item.step)


# --- loading (full runs only) ------------------------------------------------------------------

def _requested_id() -> tuple[int | None, str | None]:
    """The annotation asked for by My queue or the URL, and the raw URL value when it is not a
    number (shown back to the annotator)."""
    opened = st.session_state.pop(OPEN_KEY, None)
    if opened is not None:
        return int(opened), None
    raw = st.query_params.get(QUERY_PARAM)
    if raw is None or raw == st.session_state.get(K_URL):
        return None, None  # nothing asked, or what this screen wrote itself
    state: Loaded | None = st.session_state.get(K_STATE)
    if state is not None and state.item is not None and str(state.item.annotation_id) == raw:
        return None, None  # already the one shown
    if raw.isascii() and raw.isdigit() and int(raw) <= MAX_ID:
        return int(raw), None
    return None, raw


def _open_requested(annotation_id: int) -> Loaded | None:
    """Load one of the actor's annotations (None with a message when it is not theirs)."""
    try:
        item = queue.open_item(db, actor, annotation_id)
    except ServiceError as exc:
        st.warning(plain(exc), icon=":material/info:")
        return None
    if item.project_id != project.id:
        visible = {p.id for p in projects.list_projects(db, actor)}
        if item.project_id not in visible:
            st.warning("That annotation belongs to a project you cannot open.", icon=":material/info:")
            return None
        # switch the session to the annotation's project, so header, quota and sidebar agree
        st.session_state[PROJECT_KEY] = item.project_id
        st.session_state.pop(PROJECT_PICKER_KEY, None)
        st.session_state.pop(K_STATE, None)
        st.session_state[OPEN_KEY] = annotation_id
        st.rerun()
    return _fresh(item)


def _load() -> None:
    """Decide which sample this run shows (full runs only: the fragment never changes it but
    through its own callbacks)."""
    requested, bad = _requested_id()
    with service_errors():
        if bad is not None:
            st.warning(f"“{plain(bad)}” does not name an annotation.", icon=":material/info:")
        loaded = _open_requested(requested) if requested is not None else None
        state: Loaded | None = st.session_state.get(K_STATE)
        asked = st.session_state.pop(ASK_KEY, False)
        if loaded is None and (asked or requested is not None or bad is not None or state is None
                               or state.project_id != project.id
                               or state.item is None and (not state.asked
                                                          or time.monotonic() - state.clock > ANSWER_HOLD_S)):
            # the open draft, or (when the annotator asked for work) a new hand-out
            loaded = (_fresh(queue.next_item(db, actor, project.id)) if asked else
                      _fresh(queue.open_draft_item(db, actor, project.id), asked=False))
        if loaded is not None:
            st.session_state[K_STATE] = loaded
        st.session_state[K_LAYOUT] = preferences.get_preferences(db, actor).workbench_layout


_load()


# --- callbacks (run before the fragment body) ---------------------------------------------------

def _on_events(annotation_id: int, batch: dict) -> None:
    """The surface's trigger callback: apply its queue of edits and keep the outcome.

    Batches of a sample or client no longer loaded (a late re-send after the next sample
    appeared or after "Load the newer version") are dropped: the new surface starts afresh.
    Errors become notices on the surface, never a traceback.
    """
    state: Loaded | None = st.session_state.get(K_STATE)
    if (state is None or state.item is None or state.item.annotation_id != annotation_id
            or batch.get("client") != state.client or state.conflict is not None):
        return
    now = time.monotonic()
    try:
        outcome = workbench_events.apply_events(db, actor, annotation_id, batch["client"],
                                                batch["base_version"], batch["events"],
                                                seconds_delta=now - state.clock)
    except (StaleVersion, AlreadySubmitted) as exc:
        # what happened and the way on ("Load the newer version"), nothing else
        st.session_state[K_STATE] = replace(state, conflict=str(exc), fit_message=None,
                                            notices=(Notice("warning", str(exc)),))
        return
    except Exception as exc:  # noqa: BLE001 — service errors and a busy database become notices
        message = failure_message(exc)
        if message is None:
            raise
        st.session_state[K_STATE] = replace(state, notices=(Notice("error", message),))
        return
    notices = tuple(Notice("warning", r.message) for r in outcome.refused)
    notices += tuple(Notice("error", p) for p in outcome.submit_problems)
    if outcome.submitted:
        done = f"Submitted {_sample_title(state.item)}"
        st.session_state[K_TOAST] = done
        try:
            # the service hands out the next sample in the submit's round trip; None means
            # none left or that hand-out failed, so ask once more (the submit is stored)
            following = outcome.next_item or queue.next_item(db, actor, project.id)
            st.session_state[K_STATE] = _fresh(following,
                                               notices=(Notice("success", done),) + notices)
        except Exception as exc:  # noqa: BLE001 — the submit is stored; the quota read failed
            message = failure_message(exc)
            if message is None:
                raise
            st.session_state[K_STATE] = replace(
                _fresh(None), notices=(Notice("success", done), Notice("error", message)))
        return
    fit_message, fit_about = state.fit_message, state.fit_about
    if outcome.fit_message is not None or _fit_key(outcome.item) != state.fit_about:
        fit_message, fit_about = outcome.fit_message, _fit_key(outcome.item)
    st.session_state[K_STATE] = replace(state, item=outcome.item, acked=outcome.last_seq,
                                        notices=notices, fit_message=fit_message,
                                        fit_about=fit_about, clock=now)


def _load_newer() -> None:
    """"Load the newer version": the stored draft, under a new client id (the surface resets
    and takes over from the stored version)."""
    state: Loaded = st.session_state[K_STATE]
    try:
        st.session_state[K_STATE] = _fresh(queue.open_item(db, actor, state.item.annotation_id))
    except Exception as exc:  # noqa: BLE001
        message = failure_message(exc)
        if message is None:
            raise
        st.session_state[K_STATE] = replace(state, notices=(Notice("error", message),))


def _next_sample() -> None:
    """Leave a read-only view (or the end of the pool) for the next sample."""
    try:
        st.session_state[K_STATE] = _fresh(queue.next_item(db, actor, project.id))
    except Exception as exc:  # noqa: BLE001
        message = failure_message(exc)
        if message is None:
            raise
        state: Loaded = st.session_state[K_STATE]
        st.session_state[K_STATE] = replace(state, notices=(Notice("error", message),))


# --- drawing -------------------------------------------------------------------------------------

K_NUMBERS = "wb.sample_numbers"  # annotation id -> the annotator's own sample number


def _sample_number(item: queue.WorkItem) -> int:
    """The annotator's own number of the sample (1, 2, … in hand-out order), read once per
    annotation. Annotators never see a sample's external id here: production goes out in id
    order and a gold check is a warm-up sample, so its id would tell it apart."""
    numbers: dict[int, int] = st.session_state.setdefault(K_NUMBERS, {})
    if item.annotation_id not in numbers:
        with service_errors():
            numbers.update(queue.sample_numbers(db, actor, item.project_id, [item.annotation_id]))
    return numbers.get(item.annotation_id, 0)


def _sample_title(item: queue.WorkItem) -> str:
    return f"your sample #{_sample_number(item)}"


def _header(item: queue.WorkItem, status: queue.QueueStatus | None) -> None:
    """One row: the sample and its versions, the quota, the guidelines, the layout switch."""
    head, quota_col, guide_col, layout_col = st.columns([4, 1.6, 1.5, 2.2], vertical_alignment="center")
    head.markdown(f"### Sample #{_sample_number(item)}")
    # leads and admins see the external id too (they see the warm-up set anyway)
    lead_id = f"{plain(item.external_id)} · " if allows(actor, Policy.SEE_EXTERNAL_IDS) else ""
    head.caption(f"{lead_id}Benchmark {item.benchmark} · {plain(project.name)} · guidelines "
                 f"v{plain(item.guidelines_version)}")
    if status is not None:
        quota_col.metric("Submitted today", f"{status.submitted_today} / {status.daily_quota}")
    with guide_col.popover("Guidelines", icon=":material/menu_book:", width="stretch"):
        show_guidelines(item.guidelines_version, height=520)  # as on the Guidelines page
    if views_of(project.settings).layout_caption:
        # a pair is shown step by step: the follow-up stays out of sight until the target's
        # own curve is drawn (one screen of every step would show it at once)
        layout_col.caption(views_of(project.settings).layout_caption)
    else:
        with layout_col:
            layout_toggle(db, actor, key="wb.layout_toggle", state_key=K_LAYOUT)
    if item.is_warmup:
        st.info("Warm-up sample: a lead has annotated this text, and your annotation is compared "
                "with theirs. Your figures are on **My queue**.", icon=":material/school:")
    if item.returned_note and not item.is_submitted:
        st.warning(f"A lead sent this sample back to you: {plain(item.returned_note)}",
                   icon=":material/undo:")


@st.cache_data(max_entries=256, show_spinner=False)
def _comparison(points: tuple[tuple[float, float], ...]) -> dict[str, float] | str:
    """Fit error of other distribution families to the points (cached: a few hundred fits)."""
    try:
        return compare_distributions(points)
    except CurveFitError as exc:
        return str(exc)


def _compare(item: queue.WorkItem) -> None:
    """"Compare with other distributions", computed only when asked (it takes a while)."""
    with st.expander("Compare with other distributions", icon=":material/compare:"):
        if not st.toggle("Compare the points with other curve families", key="wb.compare"):
            return
        found = _comparison(tuple(item.content.points))
        if isinstance(found, str):
            st.caption(found)
            return
        show_table(pd.DataFrame([{"distribution": k.replace("_", "-"), "RMSE": v}
                                 for k, v in sorted(found.items(), key=lambda kv: kv[1])]),
                   hide_index=True)


def _nothing_left(state: Loaded) -> None:
    if QUERY_PARAM in st.query_params:
        del st.query_params[QUERY_PARAM]
    st.session_state.pop(K_URL, None)
    for notice in state.notices:
        (st.error if notice.level == "error" else st.caption)(plain(notice.text))
    st.title("Annotate")
    with service_errors():
        status = queue.queue_status(db, actor, project.id)
    if status.paused:  # by the gold checks, until a lead lifts it
        st.warning(gold_checks.PAUSED_MESSAGE, icon=":material/pause_circle:")
    elif status.quota_reached:  # nothing is handed out past it
        st.success(f"You reached today's quota of {counted(status.daily_quota, 'submission')} — thank "
                   "you! New samples open tomorrow.", icon=":material/task_alt:")
    elif not state.asked:  # the page was opened: nothing is handed out until asked
        st.caption(f"{counted(status.submitted_today, 'submission')} today of {status.daily_quota}. "
                   "A sample is yours from the moment you start it.")
        st.button("Start the next sample", on_click=_next_sample, type="primary",
                  icon=":material/play_arrow:", key="wb.start")
    else:
        st.success("Nothing left to annotate in this project for you right now. 🎉")
        st.button("Look again", on_click=_next_sample, icon=":material/refresh:", key="wb.look_again",
                  help="New texts may have been imported, or a sample sent back to you.")
    st.page_link("screens/queue.py", label="Back to my queue", icon=":material/list:")


@st.fragment
def _workbench() -> None:
    """The header and the surface: an edit or a submit reruns only this."""
    toast = st.session_state.pop(K_TOAST, None)
    if toast:
        st.toast(plain(toast), icon=":material/check_circle:")  # names a sample
    state: Loaded = st.session_state[K_STATE]
    item = state.item
    if item is None:
        _nothing_left(state)
        return
    st.query_params[QUERY_PARAM] = st.session_state[K_URL] = str(item.annotation_id)
    status = state.status
    _header(item, status)
    quota_reached = bool(status and status.quota_reached) and not item.is_submitted
    notices = state.notices
    if state.conflict is not None:
        notices = state.notices  # the conflict alone: no quota or submitted line beside it
    elif quota_reached:
        notices += (Notice("info", f"You reached today's quota of {status.daily_quota}. "
                                   "Your work is saved as a draft."),)
    if item.is_submitted and item.submitted_at is not None and state.conflict is None:
        notices += (Notice("info", f"Submitted {item.submitted_at:%Y-%m-%d %H:%M} UTC — submitted "
                                   "work cannot be changed (a lead can reopen it)."),)
    facts = SessionFacts(
        client=state.client, acked=state.acked, layout=st.session_state[K_LAYOUT],
        confirm_submit=project.settings.confirm_submit, quota_reached=quota_reached,
        project_name=project.name, sample_number=_sample_number(item), notices=notices,
        fit_message=state.fit_message if state.fit_about == _fit_key(item) else None,
        read_only=item.is_submitted or state.conflict is not None,
        conflict=state.conflict is not None and not item.is_submitted, settings=project.settings)
    view = build_view(item, facts)
    annotation_surface(view, key=f"wb.surface.{item.annotation_id}",
                       on_events=partial(_on_events, item.annotation_id))
    if state.conflict is not None:
        st.button("Load the newer version", on_click=_load_newer, type="primary", key="wb.reload")
    if item.is_submitted:
        st.button("Next sample", on_click=_next_sample, type="primary", key="wb.next_after_view")
    if not item.is_submitted:
        # Always there, whatever the step or the points: an element that appeared under the
        # surface when the server stored the first point (or the step) moved the page, and
        # with it the chart, between an annotator's aim and their next click.
        _compare(item)


_workbench()
