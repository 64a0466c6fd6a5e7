"""Users (admin): list, create, duplicate names, change role, reset password, deactivate, and
the protection of the last active administrator."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.services.accounts import accounts
from annotation.services.errors import AuthenticationFailed
from page_helpers import PASSWORD
from db.models import User
from page_helpers import errors, run, titles, toasts

CREATE = "FormSubmitter:users.create-Create user"


@pytest.fixture
def open_users(make_app, admin):
    def _open():
        at = run(make_app(admin))
        at.switch_page("screens/users.py")
        return run(at)

    return _open


def _user(db, username: str) -> User | None:
    with db.read() as s:
        return s.scalar(select(User).where(User.username == username))


def _create(at, username: str, role: str = "annotator", password: str = "initial-pw", display: str = ""):
    at.text_input(key="users.new_username").input(username)
    at.text_input(key="users.new_display").input(display)
    at.selectbox(key="users.new_role").set_value(role)
    at.text_input(key="users.new_password").input(password)
    at.button(key=CREATE).click()
    return run(at)


def _choose(at, username: str):
    at.selectbox(key="users.chosen").set_value(username)
    return run(at)


def test_table_lists_users(open_users, db, admin):
    accounts.create_user(db, admin, "zoe", PASSWORD, "lead", "Zoe Z")
    accounts.create_user(db, admin, "bob", PASSWORD, "annotator")
    at = open_users()
    assert titles(at) == ["Users"]
    table = at.dataframe[0].value
    assert list(table["username"]) == ["admin", "bob", "zoe"]
    assert list(table["name"]) == ["Ada Admin", "bob", "Zoe Z"]
    assert list(table["role"]) == ["admin", "annotator", "lead"]
    assert list(table["active"]) == [True, True, True]
    assert at.selectbox(key="users.chosen").options == ["admin", "bob", "zoe"]


def test_create_user(open_users, db):
    at = _create(open_users(), "newbie", role="lead", display="New Bie")
    assert not errors(at)
    user = _user(db, "newbie")
    assert (user.role, user.display_name, user.is_active) == ("lead", "New Bie", True)
    assert accounts.authenticate(db, "newbie", "initial-pw").role == "lead"
    assert "newbie" in list(at.dataframe[0].value["username"])
    assert toasts(at) == ["Created newbie"]  # drawn before st.rerun, it was never seen


def test_duplicate_username_is_refused(open_users, db, admin):
    accounts.create_user(db, admin, "bob", PASSWORD, "annotator")
    at = _create(open_users(), "bob", role="lead")
    assert errors(at) == ["The username 'bob' is taken."]
    assert _user(db, "bob").role == "annotator"


def test_short_initial_password_is_refused(open_users, db):
    at = _create(open_users(), "newbie", password="short")
    assert errors(at) == [f"A password needs at least {accounts.MIN_PASSWORD_LENGTH} characters."]
    assert _user(db, "newbie") is None


def test_change_role(open_users, db, admin):
    bob = accounts.create_user(db, admin, "bob", PASSWORD, "annotator")
    at = _choose(open_users(), "bob")
    assert at.button(key="users.set_role").disabled  # same role: nothing to change
    at.selectbox(key=f"users.role.{bob.id}").set_value("lead")
    run(at)
    assert not at.button(key="users.set_role").disabled
    at.button(key="users.set_role").click()
    run(at)
    assert not errors(at)
    assert _user(db, "bob").role == "lead"
    table = at.dataframe[0].value
    assert table.loc[table["username"] == "bob", "role"].item() == "lead"
    assert toasts(at) == ["bob is now lead"]


def test_reset_password(open_users, db, admin):
    bob = accounts.create_user(db, admin, "bob", PASSWORD, "annotator")
    at = _choose(open_users(), "bob")
    at.text_input(key=f"users.pw.{bob.id}").input("brand-new-pw")
    at.button(key="users.reset").click()
    run(at)
    assert not errors(at)
    assert accounts.authenticate(db, "bob", "brand-new-pw").username == "bob"


def test_deactivate_and_reactivate(open_users, db, admin):
    accounts.create_user(db, admin, "bob", PASSWORD, "annotator")
    at = _choose(open_users(), "bob")
    assert at.button(key="users.toggle_active").label == "Deactivate"
    at.button(key="users.toggle_active").click()
    run(at)
    assert not errors(at)
    assert _user(db, "bob").is_active is False
    assert at.button(key="users.toggle_active").label == "Reactivate"
    assert "Status: **deactivated**" in [m.value for m in at.markdown]
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "bob", PASSWORD)

    at.button(key="users.toggle_active").click()
    run(at)
    assert _user(db, "bob").is_active is True
    assert accounts.authenticate(db, "bob", PASSWORD).username == "bob"


def test_last_admin_cannot_be_deactivated_or_demoted(open_users, db, admin):
    at = _choose(open_users(), "admin")
    at.button(key="users.toggle_active").click()
    run(at)
    assert errors(at) == ["This is the last active administrator and cannot be deactivated."]
    assert _user(db, "admin").is_active is True

    at.selectbox(key=f"users.role.{admin.user_id}").set_value("lead")
    run(at)
    at.button(key="users.set_role").click()
    run(at)
    assert errors(at) == ["This is the last active administrator; make someone else admin first."]
    assert _user(db, "admin").role == "admin"


def test_lead_does_not_get_the_users_page(make_app, make_user):
    at = run(make_app(make_user("lead1", "lead")))
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("screens/users.py")


def test_display_name_longer_than_its_column_is_refused(open_users, db):
    at = _create(open_users(), "newbie", display="x" * 129)
    assert errors(at) == ["The display name can be at most 128 characters (yours has 129)."]
    assert _user(db, "newbie") is None
