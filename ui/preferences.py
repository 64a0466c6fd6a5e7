"""The single-screen layout switch, shared by the workbench and the Account page.

The choice is a per-user preference in the database (:mod:`annotation.services.preferences`),
so it follows the annotator to every browser; the toggle is only its view.
"""

from __future__ import annotations

import streamlit as st

from annotation.services import preferences
from annotation.services.authz import Actor
from annotation.services.errors import ServiceError
from db.engine import Database
from ui.display import plain

LAYOUT_LABEL = "Single-screen layout"
LAYOUT_HELP = ("All three steps (segmentation, axis labels, validity curve) on one screen, for "
               "experienced annotators. Off: one step at a time.")


def _store_layout(db: Database, actor: Actor, widget_key: str, error_key: str) -> None:
    """Toggle callback: store the choice; a refusal or a busy database is kept to be shown."""
    layout = "single" if st.session_state.get(widget_key) else "steps"
    try:
        preferences.set_preferences(db, actor, workbench_layout=layout)
    except ServiceError as exc:
        st.session_state[error_key] = str(exc)


def layout_toggle(db: Database, actor: Actor, current: str, *, key: str) -> None:
    """Draw the toggle showing ``current`` ("steps" or "single"); a change is stored at once."""
    error_key = f"{key}.error"
    st.session_state[key] = current == "single"  # the stored choice, not a stale widget value
    st.toggle(LAYOUT_LABEL, key=key, help=LAYOUT_HELP, on_change=_store_layout,
              args=(db, actor, key, error_key))
    failed = st.session_state.pop(error_key, None)
    if failed:
        st.error(plain(failed))
