"""Sign in with username and password (failed attempts are throttled by the service, per client
address and username; see annotation.services.accounts)."""

import streamlit as st

from annotation.services import accounts
from annotation.services.errors import ServiceError
from ui.session import client_address, get_database, pop_sign_out_reason, sign_in

st.title("Chronocept Studio")
st.caption("Temporal-validity annotation: segments, axes and validity curves.")
reason = pop_sign_out_reason()
if reason:
    st.warning(reason, icon=":material/logout:")

with st.form("login.form", clear_on_submit=False):
    username = st.text_input("Username", key="login.username", autocomplete="username")
    password = st.text_input("Password", type="password", key="login.password",
                             autocomplete="current-password")
    submitted = st.form_submit_button("Sign in", type="primary")

if submitted:
    try:
        actor = accounts.authenticate(get_database(), username, password, address=client_address())
    except ServiceError as exc:
        st.error(str(exc))
    else:
        sign_in(actor)
        st.rerun()
