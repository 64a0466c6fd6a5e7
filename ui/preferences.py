"""The single-screen layout switch, shared by the workbench and the Account page.

The choice is a per-user preference in the database (:mod:`annotation.services.accounts.preferences`),
so it follows the annotator to every browser; the toggle is only its view.
"""

from __future__ import annotations

import streamlit as st

from annotation.services.accounts import preferences
from annotation.services.authz import Actor
from annotation.services.errors import ServiceError
from db.engine import Database
from ui.display import plain

LAYOUT_LABEL = "Single-screen layout"
LAYOUT_HELP = ("All three steps (segmentation, axis labels, validity curve) on one screen, for "
               "experienced annotators. Off: one step at a time.")


def _store_layout(db: Database, actor: Actor, widget_key: str, state_key: str) -> None:
    """Toggle callback: store the choice and make it the layout in force; a refusal or a busy
    database leaves the stored layout and is kept to be shown."""
    layout = "single" if st.session_state.get(widget_key) else "steps"
    try:
        stored = preferences.set_preferences(db, actor, workbench_layout=layout)
    except ServiceError as exc:
        st.session_state[f"{widget_key}.error"] = str(exc)
        return
    st.session_state[state_key] = stored.workbench_layout


def layout_toggle(db: Database, actor: Actor, *, key: str, state_key: str) -> str:
    """Draw the toggle for the layout held in ``st.session_state[state_key]`` ("steps" or
    "single", read from the database by the page); a change is stored at once and updates
    ``state_key`` before the page body runs. Returns the layout in force."""
    current = st.session_state[state_key]
    st.session_state[key] = current == "single"  # the stored choice, not a stale widget value
    st.toggle(LAYOUT_LABEL, key=key, help=LAYOUT_HELP, on_change=_store_layout,
              args=(db, actor, key, state_key))
    failed = st.session_state.pop(f"{key}.error", None)
    if failed:
        st.error(plain(failed))
    return current
