"""The signed-in browser session: database handle, acting user, chosen project, error display.

Only identities live in ``st.session_state`` (who is signed in, which project is open); all work
lives in the database, so several app servers can share one PostgreSQL database.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from annotation.services import projects
from annotation.services.authz import Actor
from annotation.services.errors import ServiceError
from db.engine import Database
from db.upgrade import SchemaUpgrade
from ui.display import plain

ACTOR_KEY = "auth.actor"
PROJECT_KEY = "auth.project_id"
#: why the last session was signed out (shown once by the sign-in page)
SIGNED_OUT_KEY = "auth.signed_out_reason"


#: What the start-up upgrade of this server process did (None until the database is opened).
_schema_upgrade: SchemaUpgrade | None = None


@st.cache_resource(show_spinner="Opening the database…")
def get_database() -> Database:
    """One engine per server process, migrated to the newest schema on first use (an existing
    database is backed up first; :func:`schema_upgrade` says where). Raises
    :class:`SchemaUpgradeError` (one line, nothing changed) when the upgrade is refused."""
    global _schema_upgrade
    db, _schema_upgrade = Database.connect_upgraded()
    # a large text import whose process died (heartbeat stale) is rolled back or finished now
    # rather than at the next import into its project; live imports on other servers are left alone
    projects.recover_interrupted_imports(db)
    return db


def schema_upgrade() -> SchemaUpgrade | None:
    """What this server process's start-up upgrade did, once :func:`get_database` has run."""
    return _schema_upgrade


def current_actor() -> Actor | None:
    return st.session_state.get(ACTOR_KEY)


def sign_in(actor: Actor) -> None:
    st.session_state[ACTOR_KEY] = actor


def sign_out(reason: str | None = None) -> None:
    """Forget everything this browser session held; ``reason`` is shown on the sign-in page."""
    st.session_state.clear()
    if reason:
        st.session_state[SIGNED_OUT_KEY] = reason


def pop_sign_out_reason() -> str | None:
    """Why this session was signed out, once (None when the visitor signed out themself)."""
    return st.session_state.pop(SIGNED_OUT_KEY, None)


def client_address() -> str | None:
    """The browser's IP address as the server sees it; None when unknown (localhost, AppTest,
    where Streamlit has no client and answers with a stand-in object)."""
    try:
        address = st.context.ip_address
    except Exception:  # noqa: BLE001 — the throttle treats an unknown address as one address
        return None
    return address if isinstance(address, str) and address else None


def require_actor(role: str = "annotator") -> Actor:
    """The signed-in actor, or stop the page with a message if they lack ``role``."""
    actor = current_actor()
    if actor is None:
        # Only reachable when Streamlit runs a page file without app.py (the first request a
        # freshly started server gets for a page URL); app.py shows the sign-in form.
        st.warning("Please sign in.")
        st.markdown("[Go to the sign-in page](/)")
        st.stop()
    if not actor.has_role(role):
        st.error(f"This page needs the {role} role.")
        st.stop()
    return actor


def current_project(actor: Actor) -> projects.ProjectInfo | None:
    """The project chosen in the sidebar (the only one when there is one), or None."""
    db = get_database()
    with service_errors():
        available = projects.list_projects(db, actor)
    if not available:
        return None
    chosen = st.session_state.get(PROJECT_KEY)
    by_id = {p.id: p for p in available}
    if chosen not in by_id:
        chosen = available[0].id
        st.session_state[PROJECT_KEY] = chosen
    return by_id[chosen]


def project_picker(actor: Actor) -> None:
    """Sidebar selector of the current project (shown when there is more than one)."""
    db = get_database()
    try:
        available = projects.list_projects(db, actor)
    except ServiceError:
        return
    if len(available) > 1:
        ids = [p.id for p in available]
        names = {p.id: p.name for p in available}
        current = st.session_state.get(PROJECT_KEY, ids[0])
        st.sidebar.selectbox(
            "Project", ids, index=ids.index(current) if current in ids else 0,
            format_func=names.__getitem__, key="auth.project_picker",
            on_change=lambda: st.session_state.__setitem__(PROJECT_KEY, st.session_state["auth.project_picker"]),
        )


@contextmanager
def service_errors() -> Iterator[None]:
    """Show a :class:`ServiceError` as a message and stop the page — never a traceback."""
    try:
        yield
    except ServiceError as exc:
        st.error(plain(exc))  # messages quote names, ids and file lines
        st.stop()


def toast_next_run(key: str, message: str) -> None:
    """Remember a confirmation to show as a toast on the next run (after ``st.rerun``); plain
    text, shown literally."""
    st.session_state[key] = message


def show_pending_toast(key: str) -> None:
    """Show (once) the confirmation :func:`toast_next_run` left under ``key``."""
    message = st.session_state.pop(key, None)
    if message:
        st.toast(plain(message), icon=":material/check_circle:")  # messages name samples, people, paths


def lead_page(title: str, *, flash_key: str | None = None,
              no_project: str = "There is no project yet.") -> tuple[Actor, Database, projects.ProjectInfo]:
    """The common head of a back-office page: the lead (or stop), the database, the title, the
    chosen project (or a message and stop), and a pending confirmation toast."""
    actor = require_actor("lead")
    db = get_database()
    project = current_project(actor)
    st.title(title)
    if project is None:
        st.info(no_project)
        st.stop()
    if flash_key:
        show_pending_toast(flash_key)
    return actor, db, project
