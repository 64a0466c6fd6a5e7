"""First run on an empty database: the form that creates the administrator and optionally
loads the demo projects (short texts; everyday statements with follow-ups, for context pairs). ``screens/first_run.py`` draws it at ``/``; ``ui.navigation`` also draws
it under every page's path, so a deep link on an empty database meets no "Page not found" and,
once the administrator exists, opens the page it named."""

from __future__ import annotations

import streamlit as st

from annotation.services.accounts import accounts
from annotation.services.corpus import demo_projects
from annotation.services.errors import ServiceError
from ui.display import plain
from ui.session import get_database, sign_in


def first_run_form() -> None:
    """The Welcome page: create the administrator (signed in at once), demo projects optional."""
    st.title("Welcome to Chronocept Studio")
    st.markdown(
        "This database has no users yet. Create the **administrator** account — it can create the "
        "other accounts (annotators, leads) and projects. Keep the password safe: there is no "
        "e-mail reset; another admin, or `chronocept create-user` on the server, can help later."
    )

    with st.form("first_run.form"):
        username = st.text_input("Administrator username", value="admin", key="first_run.username")
        display_name = st.text_input("Display name (optional)", key="first_run.display_name")
        password = st.text_input("Password (at least 8 characters)", type="password", key="first_run.password")
        repeat = st.text_input("Repeat the password", type="password", key="first_run.repeat")
        demo = st.checkbox("Load the demo project (50 short texts to try the workbench)", value=True,
                           key="first_run.demo")
        demo_pairs = st.checkbox("Also load the demo pairs project (10 everyday statements with three "
                                 "follow-ups each, to try context pairs)", value=False,
                                 key="first_run.demo_pairs")
        submitted = st.form_submit_button("Create administrator", type="primary")

    if submitted:
        if password != repeat:
            st.error("The two passwords differ.")
        else:
            db = get_database()
            try:
                actor = accounts.create_first_admin(db, username, password, display_name)
                if demo:
                    demo_projects.load_demo_project(db, actor)
                if demo_pairs:
                    demo_projects.load_demo_pairs_project(db, actor)
                sign_in(actor)  # a session and its cookie, as after any sign-in
            except ServiceError as exc:
                st.error(plain(exc))
            else:
                st.rerun()
