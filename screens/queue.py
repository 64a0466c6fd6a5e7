"""My queue: today's progress against the quota, my warm-up progress and figures against gold
(in a project with a warm-up set), the next sample, and my own past work."""

import pandas as pd
import streamlit as st

from annotation.flag_reasons import flag_label
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.quality.qualification import CURVE_BY_ICC
from annotation.services.quality import gold_checks, qualification
from annotation.services.workbench import queue
from annotation.wording import counted
from ui.display import plain
from ui.session import current_project, get_database, require_actor, service_errors
from ui.tables import show_table

WORKBENCH = "screens/workbench.py"
OPEN_KEY = "workbench.open_annotation_id"
ASK_KEY = "workbench.ask_next"  # the annotator asked for a sample (screens/workbench.py)

actor = require_actor()
db = get_database()
project = current_project(actor)
st.title("My queue")
if project is None:
    st.info("There is no project yet. A lead creates one under **Projects & texts**.")
    st.stop()

with service_errors():
    status = queue.queue_status(db, actor, project.id)
    remaining = queue.pool_size(db, actor, project.id)
    history = queue.my_history(db, actor, project.id)
    mine = qualification.my_qualification(db, actor, project.id)

st.caption(f"Project **{plain(project.name)}** · {counted(project.n_samples, 'text')} · "
           f"{counted(project.settings.annotators_per_sample, 'annotator')} per text")
# No pool counter here: a gold check takes no slot, so a count of open slots that did not move
# at a hand-out would tell the annotator it was a check. ``remaining`` only decides the button.
c1, c2, c3 = st.columns(3)
c1.metric("Submitted today", f"{status.submitted_today} / {status.daily_quota}")
c2.metric("Submitted in total", status.submitted_total)
c3.metric("In progress", status.in_progress)
st.progress(min(1.0, status.submitted_today / status.daily_quota),
            text=f"Daily quota: {status.submitted_today} of {status.daily_quota}")


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


if mine.has_set and (mine.in_warmup or mine.n_done):
    f = mine.figures
    with st.container(border=True):
        st.markdown("#### Warm-up" if mine.in_warmup else "#### My warm-up figures")
        if mine.in_warmup:
            st.caption("Before production samples you annotate the warm-up set: texts a lead has "
                       "annotated (the gold). You start production when, over the whole set, your "
                       "figures against gold pass all three targets — or when a lead admits you.")
        st.progress(min(1.0, mine.n_done / mine.n_total) if mine.n_total else 0.0,
                    text=f"Warm-up: {mine.n_done} of {mine.n_total} submitted")
        w1, w2, w3 = st.columns(3)
        if f.curve_rule == CURVE_BY_ICC:
            w1.metric("Curve (ICC)", mine.verdicts["curve"].shown,
                      help="Intraclass correlation ICC(1,1) of your ξ, ω, α with the gold's; the "
                           "smallest of the three counts: " + ", ".join(
                               f"{PARAMETER_SYMBOLS[p]} {_figure(f.icc.get(p))}" for p in PARAMETERS))
        else:
            w1.metric("Curve (largest W1 to the gold)", mine.verdicts["curve"].shown,
                      help="How far your curve lies from the gold's on the sample where it lies "
                           "furthest, in log-time units of the axis (0 is identical).")
        w1.caption(mine.verdicts["curve"].text)
        w2.metric("Axis labels (Jaccard)", mine.verdicts["jaccard"].shown,
                  help="Overlap of your (word, axis) labels with the gold's: 1 is identical.")
        w2.caption(mine.verdicts["jaccard"].text)
        w3.metric("Segmentation (Pk)", mine.verdicts["pk"].shown,
                  help="How often a window of words is split differently from the gold: 0 is identical.")
        w3.caption(mine.verdicts["pk"].text)
        if not mine.in_warmup:
            st.success(f"You are admitted to production ({mine.standing}).", icon=":material/verified:")
        elif mine.standing == qualification.REVOKED and mine.remaining == 0:
            st.info("A lead sent you back to warm-up; they will add warm-up samples or admit you "
                    "again.", icon=":material/hourglass_top:")
        elif mine.remaining == 0:
            st.info("You have finished the warm-up set. Your figures do not pass every target yet; "
                    "a lead will look at them with you.", icon=":material/hourglass_top:")

if mine.in_warmup:
    remaining = mine.remaining  # warm-up samples come first; production waits

if status.paused and not mine.in_warmup:  # by the gold checks, until a lead lifts it
    st.warning(gold_checks.PAUSED_MESSAGE, icon=":material/pause_circle:")
elif status.quota_reached:
    st.success(f"You reached today's quota of {counted(status.daily_quota, 'submission')} — thank you! "
               "Drafts stay saved; new submissions open tomorrow.")
elif status.in_progress:
    if st.button("Continue where I left off", type="primary", icon=":material/play_arrow:", key="queue.continue"):
        st.session_state.pop(OPEN_KEY, None)
        st.switch_page(WORKBENCH)
elif remaining:
    if st.button("Start the next sample", type="primary", icon=":material/play_arrow:", key="queue.start"):
        st.session_state.pop(OPEN_KEY, None)
        st.session_state[ASK_KEY] = True
        st.switch_page(WORKBENCH)
elif not mine.in_warmup:
    st.info("Nothing left to annotate in this project for you right now.")



#: what the history shows where a value is missing (a draft's submission time, no flags) —
#: never Python's "None"
MISSING = "—"


def _when(moment) -> str:  # type: ignore[no-untyped-def]
    """A stored UTC time in the project's quota time zone ("2026-11-24 09:15 CET"), or "—"."""
    if moment is None:
        return MISSING
    return moment.astimezone(project.settings.timezone).strftime("%Y-%m-%d %H:%M %Z")


st.subheader("My annotations")
st.caption("Your samples are numbered in the order you got them.")
if not history:
    st.caption("None yet.")
else:
    # the annotator's own sample number, never the external id (a gold check's would break the
    # sequence of ids: queue.sample_numbers)
    table = pd.DataFrame([{
        "id": h.annotation_id,
        "sample": f"#{h.number}",
        "benchmark": h.benchmark,
        "status": h.status,
        "flags": ", ".join(flag_label(f) for f in h.flags) or MISSING,
        "minutes": round(h.seconds_spent / 60, 1),
        "submitted": _when(h.submitted_at),
        "last change": _when(h.updated_at),
    } for h in history])
    event = show_table(table, hide_index=True, width="stretch", on_select="rerun",
                       selection_mode="single-row", key="queue.history",
                       column_config={"id": None})
    rows = event.selection.rows if event and event.selection else []
    if rows:
        chosen = int(table.iloc[rows[0]]["id"])
        if st.button(f"Open {plain(table.iloc[rows[0]]['sample'])}", key="queue.open"):
            st.session_state[OPEN_KEY] = chosen
            st.switch_page(WORKBENCH)
