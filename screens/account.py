"""My account: change my password; my workbench layout."""

import streamlit as st

from annotation.services.accounts import accounts, preferences
from ui.display import plain
from ui.preferences import layout_toggle
from ui.session import get_database, require_actor, service_errors, sign_in

#: "Password changed." survives the rerun that lets the sidebar write the new cookie
CHANGED_KEY = "account.password_changed"

actor = require_actor()
st.title("My account")
st.write(f"Signed in as **{plain(actor.username)}** ({actor.role}).")
if st.session_state.pop(CHANGED_KEY, False):
    st.success("Password changed.")
with st.form("account.password", clear_on_submit=True):
    old = st.text_input("Current password", type="password", key="account.old")
    new = st.text_input("New password (at least 8 characters)", type="password", key="account.new")
    repeat = st.text_input("Repeat the new password", type="password", key="account.repeat")
    if st.form_submit_button("Change password"):
        if new != repeat:
            st.error("The two new passwords differ.")
        else:
            with service_errors():
                # every session of the account is revoked (other browsers are signed out);
                # this browser signs in anew, and the rerun has the sidebar write its new cookie
                sign_in(accounts.change_own_password(get_database(), actor, old, new))
            st.session_state[CHANGED_KEY] = True
            st.rerun()

st.subheader("Workbench")
with service_errors():
    st.session_state["account.layout_value"] = preferences.get_preferences(get_database(), actor).workbench_layout
layout_toggle(get_database(), actor, key="account.layout", state_key="account.layout_value")
