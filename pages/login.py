"""Sign in with username and password (failed attempts are rate-limited by the service)."""

import streamlit as st

from annotation.services import accounts
from annotation.services.errors import ServiceError
from pages.session import get_database, sign_in

st.title("Chronocept Studio")
st.caption("Temporal-validity annotation: segments, axes and validity curves.")

with st.form("login.form", clear_on_submit=False):
    username = st.text_input("Username", key="login.username", autocomplete="username")
    password = st.text_input("Password", type="password", key="login.password",
                             autocomplete="current-password")
    submitted = st.form_submit_button("Sign in", type="primary")

if submitted:
    try:
        actor = accounts.authenticate(get_database(), username, password)
    except ServiceError as exc:
        st.error(str(exc))
    else:
        sign_in(actor)
        st.rerun()
