"""The signed-in browser session: database handle, acting user, chosen project, error display.

Only identities live in ``st.session_state`` (who is signed in, which project is open); all work
lives in the database, so several app servers can share one PostgreSQL database.

Signing in starts a server-side session (:mod:`annotation.services.accounts.sessions`) whose token the
browser keeps in the ``chronocept_session`` cookie (:mod:`ui.components.session_cookie` writes
it). A reload or a new tab is a new Streamlit session with empty state: :func:`signed_in_actor`
finds the token in the cookie the browser sent when the tab connected and resumes the session.
Every run re-checks the token, so a sign-out in another tab, a password change, a deactivation
or an expiry signs this tab out at its next click, with the reason shown on the sign-in page.

The open project is in the URL as ``?project=<id>`` on every page and stored as the user's last
project, so a reload, a new tab or a bookmark opens the same one (:func:`_open_project`).
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from annotation.leftovers import remove_abandoned_figure_folders
from annotation.services.quality import gold_checks
from annotation.services.accounts import preferences, sessions
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.authz import Actor
from annotation.services.policy import Action, Policy, allows
from annotation.services.errors import AuthenticationFailed, ServiceError
from db.engine import Database, is_transient
from db.models import utcnow
from db.upgrade import SchemaUpgrade
from ui.components.session_cookie import COOKIE_NAME, session_cookie
from ui.display import plain

ACTOR_KEY = "auth.actor"
PROJECT_KEY = "auth.project_id"
#: the URL's query parameter naming the open project, on every page (a reload keeps it)
PROJECT_PARAM = "project"
#: the sidebar's project selectbox
PROJECT_PICKER_KEY = "auth.project_picker"
#: the user's last project as stored in their preferences (read once per browser session)
LAST_PROJECT_KEY = "auth.last_project"
#: why the last session was signed out (shown once by the sign-in page)
SIGNED_OUT_KEY = "auth.signed_out_reason"
#: the token of this tab's server-side session (the same value as the browser's cookie)
SESSION_TOKEN_KEY = "auth.session_token"
#: what this tab must make the browser do with its cookie: {"action": "set"|"clear", "token",
#: "expires_at"} — drawn on every run until replaced (see :func:`sync_cookie`)
COOKIE_KEY = "auth.cookie"
#: set when this tab signed out or its cookie was refused: the cookie the browser sent when the
#: tab connected (``st.context.cookies`` never changes within a tab) is not tried again
NO_RESUME_KEY = "auth.no_resume"
#: a one-time message for the page about to run (e.g. a deep link the role does not allow)
PAGE_NOTICE_KEY = "auth.page_notice"


#: What the start-up upgrade of this server process did (None until the database is opened).
_schema_upgrade: SchemaUpgrade | None = None


@st.cache_resource(show_spinner="Opening the database…")
def get_database() -> Database:
    """One engine per server process, migrated to the newest schema on first use (an existing
    database is backed up first; :func:`schema_upgrade` says where). Raises
    :class:`SchemaUpgradeError` (one line, nothing changed) when the upgrade is refused."""
    global _schema_upgrade
    # announced for the server's life: `chronocept restore` refuses while it runs (db.presence)
    db, _schema_upgrade = Database.connect_upgraded(announce=True)
    # a large text import whose process died (heartbeat stale) is rolled back or finished now
    # rather than at the next import into its project; live imports on other servers are left alone
    text_imports.recover_interrupted_imports(db)
    # an export killed in its figures step left its folder in the system temp folder
    remove_abandoned_figure_folders(tempfile.gettempdir())
    return db


def schema_upgrade() -> SchemaUpgrade | None:
    """What this server process's start-up upgrade did, once :func:`get_database` has run."""
    return _schema_upgrade


def current_actor() -> Actor | None:
    return st.session_state.get(ACTOR_KEY)


def handshake_cookie() -> str | None:
    """The session token the browser sent in its cookie when this tab connected, or None.

    ``st.context.cookies`` holds the cookies of the websocket's HTTP handshake: a cookie written
    later in this tab is seen only after a reload or in a new tab (this tab keeps its token in
    ``st.session_state`` meanwhile). AppTest has no cookies; its tests replace this function."""
    try:
        value = st.context.cookies.get(COOKIE_NAME)
    except Exception:  # noqa: BLE001 — no client (bare mode): no cookie
        return None
    return value if isinstance(value, str) and value else None


def _user_agent() -> str:
    try:
        value = st.context.headers.get("User-Agent")
    except Exception:  # noqa: BLE001 — no client (bare mode)
        return ""
    return value if isinstance(value, str) else ""


def sign_in(actor: Actor) -> None:
    """Start a server-side session for ``actor``, who has just proved their password (sign-in,
    first admin, own password change), keep it in this tab and have the browser store its cookie.
    Raises :class:`ServiceError` (shown by the caller) when the session cannot start."""
    new = sessions.start_session(get_database(), actor, user_agent=_user_agent())
    st.session_state[ACTOR_KEY] = new.actor
    st.session_state[SESSION_TOKEN_KEY] = new.token
    st.session_state[COOKIE_KEY] = {"action": "set", "token": new.token, "expires_at": new.expires_at}
    st.session_state.pop(SIGNED_OUT_KEY, None)


def signed_in_actor(db: Database) -> Actor | None:
    """Who is signed in for this run: this tab's session, else (a reload, a new tab, a bookmark)
    the session of the cookie the browser sent, as the database has the user now. A token that
    no longer signs in (expired, revoked, account deactivated…) signs this tab out, asks the
    browser to drop the cookie, and leaves the reason for the sign-in page. A database that stays
    busy raises (the app shows its busy message; nobody is signed out for it)."""
    token = st.session_state.get(SESSION_TOKEN_KEY)
    if token is None and not st.session_state.get(NO_RESUME_KEY):
        token = handshake_cookie()
    if token is None:
        st.session_state.pop(ACTOR_KEY, None)
        return None
    try:
        actor = sessions.resume_session(db, token)
    except AuthenticationFailed as exc:
        sign_out(reason=str(exc), token=token)
        return None
    st.session_state[ACTOR_KEY] = actor
    st.session_state[SESSION_TOKEN_KEY] = token
    return actor


def sign_out(reason: str | None = None, *, token: str | None = None, revoke: bool = False) -> None:
    """Forget everything this browser session held and have the browser drop the cookie of
    ``token`` (default: this tab's session). ``revoke`` ends the session in the database too (the
    Sign out button), so the cookie no longer signs in anywhere. ``reason`` is shown on the
    sign-in page."""
    token = token or st.session_state.get(SESSION_TOKEN_KEY)
    if revoke and token:
        sessions.end_session(get_database(), token)
    st.session_state.clear()
    st.session_state[NO_RESUME_KEY] = True
    if token:
        st.session_state[COOKIE_KEY] = {"action": "clear", "token": token}
    if reason:
        st.session_state[SIGNED_OUT_KEY] = reason


def sync_cookie() -> None:
    """Draw the cookie component with what this tab's browser must hold (nothing visible; a
    no-op in the browser once done). Called on every run — in the sidebar when signed in, at the
    foot of the sign-in page otherwise — so a run cut short by a quick click cannot lose it."""
    wanted = st.session_state.get(COOKIE_KEY)
    if not wanted:
        return
    if wanted["action"] == "set":
        left = int((wanted["expires_at"] - utcnow()).total_seconds())
        if left <= 0:
            return
        # whole minutes: the component's data changes at most once a minute, not every run
        session_cookie("set", wanted["token"], max_age_s=max(60, left - left % 60))
    else:
        session_cookie("clear", wanted["token"])


def show_page_notice() -> None:
    """Show, once, a notice left for the page about to run (plain text, shown literally)."""
    notice = st.session_state.pop(PAGE_NOTICE_KEY, None)
    if notice:
        st.warning(plain(notice), icon=":material/block:")


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


def require_actor(action: Action = Policy.ANNOTATE) -> Actor:
    """The signed-in actor, or stop the page with a message if their role may not take
    ``action`` (the services' policy)."""
    actor = current_actor()
    if actor is None:
        # Only reachable when Streamlit runs a page file without app.py (the first request a
        # freshly started server gets for a page URL); app.py shows the sign-in form.
        st.warning("Please sign in.")
        st.markdown("[Go to the sign-in page](/)")
        st.stop()
    if not allows(actor, action):
        st.error(f"This page needs the {action.role} role.")
        st.stop()
    return actor


def current_project(actor: Actor) -> projects.ProjectInfo | None:
    """The project this run works in (see :func:`_open_project`), or None when there is none."""
    with service_errors():
        available = projects.list_projects(get_database(), actor)
    return _open_project(actor, available)


def project_picker(actor: Actor) -> None:
    """Sidebar selector of the current project (shown when there is more than one). Runs before
    every page, so the project is settled (and in the URL) before the page reads it."""
    try:
        available = projects.list_projects(get_database(), actor)
    except ServiceError:
        return
    project = _open_project(actor, available)
    if project is None or len(available) < 2:
        return
    names = {p.id: p.name for p in available}
    if st.session_state.get(PROJECT_PICKER_KEY) != project.id:
        # the project chosen elsewhere (the URL, a new project, a deep link of the workbench)
        st.session_state[PROJECT_PICKER_KEY] = project.id
    st.sidebar.selectbox("Project", list(names), format_func=names.__getitem__, key=PROJECT_PICKER_KEY,
                         on_change=_picked)


def _picked() -> None:
    st.session_state[PROJECT_KEY] = st.session_state[PROJECT_PICKER_KEY]


def _open_project(actor: Actor, available: list[projects.ProjectInfo]) -> projects.ProjectInfo | None:
    """Settle which of ``available`` this run works in, and keep the choice in the URL
    (``?project=<id>``) and as the user's last project.

    A new session (a reload, a new tab, a link) opens the URL's project, else the user's last
    project, else the first; a ``?project=`` that names no available project leaves a one-line
    notice. Later runs keep the session's project and only correct the URL: a rerun the browser
    asked for right after a switch can still carry the previous ``?project=`` (checked in
    Chromium), which must not switch back. Only the ``project`` parameter is written: the pages'
    own parameters (the workbench's ``annotation``) stay."""
    if not available:
        return None
    by_id = {p.id: p for p in available}
    chosen = st.session_state.get(PROJECT_KEY)
    asked = st.query_params.get(PROJECT_PARAM)
    if asked is not None and chosen is None:
        asked_id = int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 19 else None
        if asked_id in by_id:
            chosen = asked_id
        else:
            chosen = _last_project(actor, by_id)
            shown = asked if len(asked) <= 40 else asked[:39] + "…"
            st.session_state[PAGE_NOTICE_KEY] = (f"The link names project “{shown}”, which does not exist "
                                                 f"or is not open to you; here is {by_id[chosen].name}.")
    elif chosen not in by_id:
        chosen = _last_project(actor, by_id)
    st.session_state[PROJECT_KEY] = chosen
    if asked != str(chosen):
        st.query_params[PROJECT_PARAM] = str(chosen)
    _remember_project(actor, chosen)
    return by_id[chosen]


def _stored_last_project(actor: Actor) -> int | None:
    """The user's last project as stored, read once per browser session."""
    if LAST_PROJECT_KEY not in st.session_state:
        try:
            stored = preferences.get_preferences(get_database(), actor).last_project_id
        except ServiceError:
            stored = None
        st.session_state[LAST_PROJECT_KEY] = stored
    return st.session_state[LAST_PROJECT_KEY]


def _last_project(actor: Actor, by_id: dict[int, projects.ProjectInfo]) -> int:
    """The user's last project when it is still there, else the first (oldest) project."""
    stored = _stored_last_project(actor)
    return stored if stored in by_id else next(iter(by_id))


def _remember_project(actor: Actor, project_id: int) -> None:
    """Store ``project_id`` as the user's last project, when it changed. Remembering is a
    convenience: a refusal or a busy database leaves it for a later run, never stops a page."""
    if _stored_last_project(actor) == project_id:
        return
    try:
        preferences.set_preferences(get_database(), actor, last_project_id=project_id)
    except ServiceError:
        return
    except Exception as exc:  # noqa: BLE001 - only a database that stays busy is let pass
        if not is_transient(exc):
            raise
        return
    st.session_state[LAST_PROJECT_KEY] = project_id


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
              no_project: str = "There is no project yet.",
              pause_notice: bool = True) -> tuple[Actor, Database, projects.ProjectInfo]:
    """The common head of a back-office page: the lead (or stop), the database, the title, the
    chosen project (or a message and stop), a pending confirmation toast, and (unless the page
    lists them itself) who is paused by gold checks."""
    actor = require_actor(Policy.BACK_OFFICE)
    db = get_database()
    project = current_project(actor)
    st.title(title)
    if project is None:
        st.info(no_project)
        st.stop()
    if flash_key:
        show_pending_toast(flash_key)
    if pause_notice:
        _paused_notice(actor, db, project.id)
    return actor, db, project


def _paused_notice(actor: Actor, db: Database, project_id: int) -> None:
    """Tell the lead, on every back-office page, who is paused by gold checks (the Annotators
    page lists them with the lift button)."""
    try:
        paused = gold_checks.paused_annotators(db, actor, project_id)
    except ServiceError:
        return  # the page's own calls report a database problem in their words
    if paused:
        names = ", ".join(paused)
        st.warning(plain(f"Paused by gold checks: {names}. Their recent accuracy against samples "
                         f"with a known answer fell below the project's target; see Annotators "
                         f"to talk it through and lift the pause."), icon=":material/pause_circle:")
