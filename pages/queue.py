"""My queue: today's progress against the quota, the next sample, and my own past work."""

import pandas as pd
import streamlit as st

from annotation.flags import flag_label
from annotation.services import queue
from pages.session import current_project, get_database, require_actor, service_errors

WORKBENCH = "pages/workbench.py"
OPEN_KEY = "workbench.open_annotation_id"

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

st.caption(f"Project **{project.name}** · {project.n_samples} texts · "
           f"{project.settings.annotators_per_sample} annotators per text")
c1, c2, c3, c4 = st.columns(4)
c1.metric("Submitted today", f"{status.submitted_today} / {status.daily_quota}")
c2.metric("Submitted in total", status.submitted_total)
c3.metric("In progress", status.in_progress)
c4.metric("Open slots in the pool", remaining)
st.progress(min(1.0, status.submitted_today / status.daily_quota),
            text=f"Daily quota: {status.submitted_today} of {status.daily_quota}")

if status.quota_reached:
    st.success(f"You reached today's quota of {status.daily_quota} submissions — thank you! "
               "Drafts stay saved; new submissions open tomorrow.")
elif status.in_progress:
    if st.button("Continue where I left off", type="primary", icon=":material/play_arrow:", key="queue.continue"):
        st.session_state.pop(OPEN_KEY, None)
        st.switch_page(WORKBENCH)
elif remaining:
    if st.button("Start the next sample", type="primary", icon=":material/play_arrow:", key="queue.start"):
        st.session_state.pop(OPEN_KEY, None)
        st.switch_page(WORKBENCH)
else:
    st.info("Nothing left to annotate in this project for you right now.")

st.subheader("My annotations")
if not history:
    st.caption("None yet.")
else:
    table = pd.DataFrame([{
        "id": h.annotation_id,
        "sample": h.external_id,
        "benchmark": h.benchmark,
        "status": h.status,
        "flags": ", ".join(flag_label(f) for f in h.flags),
        "minutes": round(h.seconds_spent / 60, 1),
        "submitted": h.submitted_at,
        "last change": h.updated_at,
    } for h in history])
    event = st.dataframe(table, hide_index=True, width="stretch", on_select="rerun",
                         selection_mode="single-row", key="queue.history",
                         column_config={"id": None})
    rows = event.selection.rows if event and event.selection else []
    if rows:
        chosen = int(table.iloc[rows[0]]["id"])
        if st.button(f"Open {table.iloc[rows[0]]['sample']}", key="queue.open"):
            st.session_state[OPEN_KEY] = chosen
            st.switch_page(WORKBENCH)
