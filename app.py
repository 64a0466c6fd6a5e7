"""Chronocept Studio — entry point: page config, sign-in, and the pages the user's role allows."""

import streamlit as st

st.set_page_config(page_title="Chronocept Studio", page_icon=":material/hourglass_top:", layout="wide")

from annotation.services import accounts  # noqa: E402
from db.engine import BUSY_MESSAGE, is_transient  # noqa: E402
from pages.session import current_actor, get_database, project_picker, sign_in, sign_out  # noqa: E402


def _navigation() -> st.navigation:
    db = get_database()
    actor = current_actor()
    if actor is not None:
        # A role change or deactivation by an admin applies at the user's next click.
        actor = accounts.refresh_actor(db, actor)
        if actor is None:
            sign_out()
        else:
            sign_in(actor)
    if actor is None:
        if accounts.needs_first_admin(db):
            return st.navigation([st.Page("pages/first_run.py", title="Welcome", icon=":material/waving_hand:")])
        return st.navigation([st.Page("pages/login.py", title="Sign in", icon=":material/key:")])

    work = [
        st.Page("pages/queue.py", title="My queue", icon=":material/list_alt:", default=True),
        st.Page("pages/workbench.py", title="Annotate", icon=":material/edit_note:"),
        st.Page("pages/guidelines.py", title="Guidelines", icon=":material/menu_book:"),
    ]
    sections = {"Annotation": work}
    if actor.has_role("lead"):
        sections["Back office"] = [
            st.Page("pages/projects.py", title="Projects & texts", icon=":material/folder_open:"),
            st.Page("pages/duplicates.py", title="De-duplication", icon=":material/content_copy:"),
            st.Page("pages/review.py", title="Review", icon=":material/rate_review:"),
            st.Page("pages/agreement.py", title="Agreement", icon=":material/insights:"),
            st.Page("pages/warmup.py", title="Warm-up & qualification", icon=":material/school:"),
            st.Page("pages/annotators.py", title="Annotators", icon=":material/groups:"),
            st.Page("pages/export.py", title="Export dataset", icon=":material/ios_share:"),
            st.Page("pages/statistics.py", title="Dataset statistics", icon=":material/bar_chart:"),
            st.Page("pages/training.py", title="Baseline training", icon=":material/model_training:"),
        ]
    admin = [st.Page("pages/account.py", title="My account", icon=":material/person:")]
    if actor.has_role("admin"):
        admin.insert(0, st.Page("pages/users.py", title="Users", icon=":material/admin_panel_settings:"))
    sections["Account"] = admin

    with st.sidebar:
        st.markdown(f"**{actor.display_name or actor.username}** · {actor.role}")
        project_picker(actor)
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
