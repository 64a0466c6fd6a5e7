"""The sign-in form, shared by the sign-in page and by every page's stand-in while signed out.

A signed-out visitor who opens a deep link (``/review``, ``/workbench?annotation=12``) gets this
form under that very URL (``ui.navigation`` registers a hidden stand-in per page), so that the
run after a successful sign-in opens the page asked for, query string and all, and Streamlit never
shows its "Page not found" dialog. Failed attempts are throttled by the service, per client
address and username (see :mod:`annotation.services.accounts.accounts`).
"""

from __future__ import annotations

import streamlit as st

from annotation.services.accounts import accounts
from annotation.services.errors import ServiceError
from ui.display import plain
from ui.session import client_address, get_database, pop_sign_out_reason, sign_in, sync_cookie

#: pixels: two short fields, a button and a line of message need no more on a wide screen
FORM_WIDTH = 560


def sign_in_form(target: str | None = None, default_title: str | None = None) -> None:
    """Draw the form; on success start the session and rerun (the same URL: the page asked for,
    or the default page). ``target`` is the title of the page the URL asked for, if any; it is
    named above the form unless it is the default page (``default_title``), where a visitor who
    signed out lands too)."""
    st.title("Chronocept Studio")
    st.caption("Temporal-validity annotation: segments, axes and validity curves.")
    with st.container(width=FORM_WIDTH):  # messages as wide as the form they belong to
        reason = pop_sign_out_reason()
        if reason:
            st.warning(reason, icon=":material/logout:")
        if target and target != default_title:
            st.info(f"Sign in to open {plain(target)}.", icon=":material/link:")

        with st.form("login.form", clear_on_submit=False):
            username = st.text_input("Username", key="login.username", autocomplete="username")
            password = st.text_input("Password", type="password", key="login.password",
                                     autocomplete="current-password")
            submitted = st.form_submit_button("Sign in", type="primary")

        if submitted:
            try:
                actor = accounts.authenticate(get_database(), username, password,
                                              address=client_address())
                sign_in(actor)
            except ServiceError as exc:
                st.error(plain(exc))
            else:
                st.rerun()
    sync_cookie()  # drops a cookie that no longer signs in (after a sign-out or a refusal)
