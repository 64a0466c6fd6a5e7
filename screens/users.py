"""Admin: create users, change roles, reset passwords, deactivate accounts."""

import pandas as pd
import streamlit as st

from annotation.services.accounts import accounts
from annotation.services.authz import ROLES
from annotation.services.policy import Policy
from ui.display import plain
from ui.session import get_database, require_actor, service_errors, show_pending_toast, toast_next_run
from ui.tables import show_table

actor = require_actor(Policy.USERS_MANAGE)
db = get_database()
st.title("Users")
K_FLASH = "users.flash"  # a confirmation for the run after st.rerun (a toast just before it is lost)
show_pending_toast(K_FLASH)

with service_errors():
    users = accounts.list_users(db, actor)

show_table(pd.DataFrame([{"username": u.username, "name": u.display_name, "role": u.role,
                          "active": u.is_active, "created": u.created_at} for u in users]),
           hide_index=True, width="stretch", key="users.table", download="users.csv")

with st.form("users.create", clear_on_submit=True):
    st.markdown("**New user**")
    c1, c2, c3, c4 = st.columns(4)
    username = c1.text_input("Username", key="users.new_username")
    display = c2.text_input("Display name", key="users.new_display")
    role = c3.selectbox("Role", ROLES, key="users.new_role")
    password = c4.text_input("Initial password", type="password", key="users.new_password")
    if st.form_submit_button("Create user", type="primary"):
        with service_errors():
            created = accounts.create_user(db, actor, username, password, role, display)
        toast_next_run(K_FLASH, f"Created {created.username}")
        st.rerun()

st.markdown("**Change a user**")
by_name = {u.username: u for u in users}
chosen = st.selectbox("User", list(by_name), key="users.chosen")
if chosen:
    target = by_name[chosen]
    c1, c2, c3 = st.columns(3)
    with c1:
        new_role = st.selectbox("Role", ROLES, index=ROLES.index(target.role), key=f"users.role.{target.id}")
        if st.button("Change role", key="users.set_role", disabled=new_role == target.role):
            with service_errors():
                accounts.set_role(db, actor, target.id, new_role)
            toast_next_run(K_FLASH, f"{target.username} is now {new_role}")
            st.rerun()
    with c2:
        new_pw = st.text_input("New password", type="password", key=f"users.pw.{target.id}")
        if st.button("Reset password", key="users.reset"):
            with service_errors():
                accounts.reset_password(db, actor, target.id, new_pw)
            st.toast(f"Password of {plain(target.username)} reset")
    with c3:
        st.write("Status: **active**" if target.is_active else "Status: **deactivated**")
        label = "Deactivate" if target.is_active else "Reactivate"
        if st.button(label, key="users.toggle_active"):
            with service_errors():
                accounts.set_active(db, actor, target.id, not target.is_active)
            toast_next_run(K_FLASH, f"{target.username}: {label.lower()}d")
            st.rerun()
