"""Chronocept Studio — entry point: page config, sign-in, and the pages the user's role allows."""

import streamlit as st

st.set_page_config(page_title="Chronocept Studio", page_icon=":material/hourglass_top:", layout="wide")

from annotation.services.accounts import accounts  # noqa: E402
from annotation.services.policy import Policy, allows  # noqa: E402
from ui.display import plain  # noqa: E402
from db.config import ConfigError, config, models_offline  # noqa: E402
from db.engine import BUSY_MESSAGE, is_transient  # noqa: E402
from db.presence import DatabaseInUse  # noqa: E402
from db.sqlite_replace import DatabaseMissing  # noqa: E402
from db.upgrade import SchemaUpgradeError  # noqa: E402
from ui.navigation import first_run_navigation, signed_in_navigation, signed_out_navigation  # noqa: E402
from ui.session import (  # noqa: E402
    get_database, project_picker, schema_upgrade, show_page_notice, signed_in_actor, sign_out,
    sync_cookie,
)

UPGRADE_NOTICE_KEY = "app.upgrade_notice_dismissed"

models_offline()  # De-duplication loads the bundled SBERT model: never a download


def _open_database():  # type: ignore[no-untyped-def]
    """The database, or a one-line message and a stop when the configuration has a bad value
    or the database's upgrade was refused."""
    try:
        config()  # the settings, read once per server process (db.config); a bad value stops here
    except ConfigError as exc:
        st.error(f"The app's configuration has a bad value, so it cannot start: {plain(exc)}")
        st.stop()
    try:
        return get_database()
    except SchemaUpgradeError as exc:
        st.error("The database could not be upgraded, so the app cannot start. Nothing was changed.")
        st.text(str(exc))
        st.stop()
    except DatabaseInUse:
        st.error("The database is being restored from a backup; reload the page when that has finished.")
        st.stop()
    except DatabaseMissing as exc:  # never a new, empty database where a restore left the data
        st.error(f"The app cannot start: {plain(exc)}")
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
    # This tab's session, or the one of the cookie the browser sent (a reload, a new tab, a
    # bookmark). The token is checked on every run: a sign-out elsewhere, a password change, a
    # deactivation, a demotion or an expiry signs this tab out, the reason on the sign-in page.
    actor = signed_in_actor(db)
    if actor is None:
        if accounts.needs_first_admin(db):
            return first_run_navigation()
        return signed_out_navigation()

    with st.sidebar:
        st.markdown(f"**{plain(actor.display_name or actor.username)}** · {actor.role}")
        project_picker(actor)
        if allows(actor, Policy.UPGRADE_NOTICE):
            _upgrade_notice()
        if st.button("Sign out", icon=":material/logout:", key="auth.sign_out"):
            sign_out(revoke=True)  # the session ends in the database: the cookie is worthless
            st.rerun()
        sync_cookie()
    navigation = signed_in_navigation(actor)
    if navigation.url_path:  # not the hidden page at `/`, which only switches to My queue
        show_page_notice()
    return navigation


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
