"""Chronocept Studio — entry point: page config, sign-in, and the pages the user's role allows."""

import streamlit as st

st.set_page_config(page_title="Chronocept Studio", page_icon=":material/hourglass_top:", layout="wide")

from annotation.services import accounts  # noqa: E402
from annotation.services.errors import AuthenticationFailed  # noqa: E402
from ui.display import plain  # noqa: E402
from db.engine import BUSY_MESSAGE, is_transient  # noqa: E402
from db.upgrade import SchemaUpgradeError  # noqa: E402
from ui.session import (  # noqa: E402
    current_actor, get_database, project_picker, schema_upgrade, sign_in, sign_out,
)

UPGRADE_NOTICE_KEY = "app.upgrade_notice_dismissed"


def _open_database():  # type: ignore[no-untyped-def]
    """The database, or a one-line message and a stop when its upgrade was refused."""
    try:
        return get_database()
    except SchemaUpgradeError as exc:
        st.error("The database could not be upgraded, so the app cannot start. Nothing was changed.")
        st.text(str(exc))
        st.stop()


def _upgrade_notice() -> None:
    """Tell an admin, in the sidebar until dismissed, that start-up upgraded the database and
    where the backup of the old one is (shown literally: st.text / st.code, never markdown)."""
    done = schema_upgrade()
    if done is None or done.describe() is None or st.session_state.get(UPGRADE_NOTICE_KEY):
        return
    st.caption(f"The database was upgraded at start-up (schema {done.from_revision} to "
               f"{done.to_revision}).")
    if done.backup_path is not None:
        st.caption("Backup of the database before the upgrade:")
        st.code(str(done.backup_path), language=None)
    else:
        st.caption("No backup was taken:")
        st.text(done.backup_skipped or "")
    if st.button("Dismiss", key="app.upgrade_notice_dismiss"):
        st.session_state[UPGRADE_NOTICE_KEY] = True
        st.rerun()


def _navigation() -> st.navigation:
    db = _open_database()
    actor = current_actor()
    if actor is not None:
        # A role change applies at the user's next click; a deactivation or a password change
        # since this session signed in signs it out, saying why on the sign-in page.
        try:
            actor = accounts.refresh_actor(db, actor)
        except AuthenticationFailed as exc:  # not any service error: a busy database is no sign-out
            actor = None
            sign_out(reason=str(exc))
        else:
            sign_in(actor)
    if actor is None:
        if accounts.needs_first_admin(db):
            return st.navigation([st.Page("screens/first_run.py", title="Welcome", icon=":material/waving_hand:")])
        return st.navigation([st.Page("screens/login.py", title="Sign in", icon=":material/key:")])

    work = [
        st.Page("screens/queue.py", title="My queue", icon=":material/list_alt:", default=True),
        st.Page("screens/workbench.py", title="Annotate", icon=":material/edit_note:"),
        st.Page("screens/guidelines.py", title="Guidelines", icon=":material/menu_book:"),
    ]
    sections = {"Annotation": work}
    if actor.has_role("lead"):
        sections["Back office"] = [
            st.Page("screens/projects.py", title="Projects & texts", icon=":material/folder_open:"),
            st.Page("screens/duplicates.py", title="De-duplication", icon=":material/content_copy:"),
            st.Page("screens/review.py", title="Review", icon=":material/rate_review:"),
            st.Page("screens/agreement.py", title="Agreement", icon=":material/insights:"),
            st.Page("screens/warmup.py", title="Warm-up & qualification", icon=":material/school:"),
            st.Page("screens/annotators.py", title="Annotators", icon=":material/groups:"),
            st.Page("screens/export.py", title="Export dataset", icon=":material/ios_share:"),
            st.Page("screens/statistics.py", title="Dataset statistics", icon=":material/bar_chart:"),
            st.Page("screens/training.py", title="Baseline training", icon=":material/model_training:"),
        ]
    admin = [st.Page("screens/account.py", title="My account", icon=":material/person:")]
    if actor.has_role("admin"):
        admin.insert(0, st.Page("screens/users.py", title="Users", icon=":material/admin_panel_settings:"))
    sections["Account"] = admin

    with st.sidebar:
        st.markdown(f"**{plain(actor.display_name or actor.username)}** · {actor.role}")
        project_picker(actor)
        if actor.has_role("admin"):
            _upgrade_notice()
        if st.button("Sign out", icon=":material/logout:", key="auth.sign_out"):
            sign_out()
            st.rerun()
    return st.navigation(sections, expanded=True)


def _run_page() -> None:
    """Run the chosen page. A database that stays busy through every retry (a long import
    holding SQLite's write lock, a full connection pool, a deadlock) is shown as a message on
    any page — never a traceback — wherever the service call was made."""
    try:
        _navigation().run()
    except Exception as exc:  # noqa: BLE001 - only transient database errors are handled here
        if not is_transient(exc):
            raise
        st.error(BUSY_MESSAGE, icon=":material/hourglass_top:")


_run_page()
