"""Sign in: wrong and right passwords, the rate limit, and which pages each role gets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select
from streamlit.testing.v1 import AppTest

from annotation.services.accounts import accounts
from page_helpers import APP_PATH, PASSWORD, TIMEOUT
from db.models import LoginAttempt
from page_helpers import errors, markdown_text, nav_titles, run, titles
from streamlit_internals import ask_for_path
from ui.session import ACTOR_KEY

SIGN_IN = "FormSubmitter:login.form-Sign in"
WRONG = "Wrong username or password, or the account is inactive."
ANNOTATOR_PAGES = ["My queue", "Annotate", "Write follow-ups", "Feedback", "Guidelines", "My account"]


def _sign_in(at: AppTest, username: str, password: str) -> AppTest:
    at.text_input(key="login.username").input(username)
    at.text_input(key="login.password").input(password)
    at.button(key=SIGN_IN).click()
    return run(at)


def test_login_page_when_users_exist(make_app, admin):
    at = run(make_app())
    assert titles(at) == ["Chronocept Studio"]
    assert nav_titles(at) == ["Sign in"]
    assert at.text_input(key="login.password").proto.type == at.text_input(key="login.password").proto.PASSWORD


def test_wrong_password_shows_an_error_and_does_not_sign_in(make_app, admin, db):
    at = _sign_in(run(make_app()), "admin", "not-the-password")
    assert errors(at) == [WRONG]
    assert ACTOR_KEY not in at.session_state
    assert nav_titles(at) == ["Sign in"]
    with db.read() as s:
        assert list(s.scalars(select(LoginAttempt.succeeded))) == [False]


def test_unknown_user_gets_the_same_message(make_app, admin):
    at = _sign_in(run(make_app()), "nobody", PASSWORD)
    assert errors(at) == [WRONG]
    assert ACTOR_KEY not in at.session_state


@pytest.mark.parametrize(("role", "pages"), [
    ("annotator", ANNOTATOR_PAGES),
    ("lead", ["My queue", "Annotate", "Write follow-ups", "Feedback", "Guidelines", "Projects & texts", "De-duplication", "Review", "Agreement", "Warm-up & qualification", "Annotators", "Export dataset", "Dataset statistics", "Baseline training", "My account"]),
    ("admin", ["My queue", "Annotate", "Write follow-ups", "Feedback", "Guidelines", "Projects & texts", "De-duplication", "Review", "Agreement", "Warm-up & qualification", "Annotators", "Export dataset", "Dataset statistics", "Baseline training", "Users", "My account"]),
])
def test_right_password_signs_in_with_the_role_pages(make_app, admin, db, role, pages):
    if role != "admin":
        accounts.create_user(db, admin, "someone", PASSWORD, role, "Some One")
    username = "someone" if role != "admin" else "admin"
    at = _sign_in(run(make_app()), username, PASSWORD)
    assert not errors(at)
    actor = at.session_state[ACTOR_KEY]
    assert (actor.username, actor.role) == (username, role)
    assert nav_titles(at) == pages
    assert titles(at) == ["My queue"]
    assert f"· {role}" in markdown_text(at.sidebar)
    assert at.sidebar.button(key="auth.sign_out")


def test_rate_limit_after_five_failures(make_app, admin):
    at = run(make_app())
    for _ in range(accounts.MAX_FAILURES):
        _sign_in(at, "admin", "bad-password")
        assert errors(at) == [WRONG]
    # even the right password is refused now (the back-off: 30 s after the latest failure; the
    # clock ticks between runs, so the figure may be a little under 30)
    _sign_in(at, "admin", PASSWORD)
    assert len(errors(at)) == 1
    assert re.fullmatch(r"Too many sign-in attempts from here\. Try again in \d+ seconds?\.", errors(at)[0])
    assert ACTOR_KEY not in at.session_state


def test_the_page_passes_the_client_address_to_the_throttle(make_app, admin, monkeypatch):
    seen = []
    real = accounts.authenticate

    def spy(db, username, password, **kwargs):
        seen.append(kwargs.get("address", "missing"))
        return real(db, username, password, **kwargs)

    monkeypatch.setattr(accounts, "authenticate", spy)
    _sign_in(run(make_app()), "admin", PASSWORD)
    assert seen == [None]  # AppTest has no client address: the throttle's "unknown" address


def test_a_password_reset_signs_an_open_session_out(make_app, admin, make_user, db):
    ann = make_user("ann")
    at = run(make_app(ann))
    assert titles(at) == ["My queue"]
    accounts.reset_password(db, admin, ann.user_id, "reset-by-admin")
    run(at)
    assert ACTOR_KEY not in at.session_state
    assert nav_titles(at) == ["Sign in"]
    assert [w.value for w in at.warning] == ["Your password was changed; please sign in again."]
    # the message is shown once; the new password signs in again
    _sign_in(at, "ann", "reset-by-admin")
    assert titles(at) == ["My queue"]
    assert not at.warning


def test_a_deactivated_user_is_signed_out_with_a_reason(make_app, admin, make_user, db):
    ann = make_user("ann")
    at = run(make_app(ann))
    accounts.set_active(db, admin, ann.user_id, False)
    run(at)
    assert ACTOR_KEY not in at.session_state
    assert [w.value for w in at.warning] == ["Your account is no longer active. Ask an administrator."]


def test_changing_my_own_password_keeps_this_session_and_ends_the_other(make_app, make_user, db):
    ann = make_user("ann")
    this_tab, other_tab = run(make_app(ann)), run(make_app(accounts.authenticate(db, "ann", PASSWORD)))
    this_tab.switch_page("screens/account.py")
    run(this_tab)
    this_tab.text_input(key="account.old").input(PASSWORD)
    this_tab.text_input(key="account.new").input("new-password-1")
    this_tab.text_input(key="account.repeat").input("new-password-1")
    this_tab.button(key="FormSubmitter:account.password-Change password").click()
    run(this_tab)
    assert [m.value for m in this_tab.success] == ["Password changed."]
    run(this_tab)
    assert this_tab.session_state[ACTOR_KEY].username == "ann"
    assert titles(this_tab) == ["My account"]
    run(other_tab)
    assert ACTOR_KEY not in other_tab.session_state
    assert [w.value for w in other_tab.warning] == ["Your password was changed; please sign in again."]


def test_sign_out_returns_to_the_login_page(make_app, admin):
    at = _sign_in(run(make_app()), "admin", PASSWORD)
    assert titles(at) == ["My queue"]
    at.sidebar.button(key="auth.sign_out").click()
    run(at)
    assert ACTOR_KEY not in at.session_state
    assert titles(at) == ["Chronocept Studio"]
    assert nav_titles(at) == ["Sign in"]


def test_annotator_does_not_get_back_office_pages(make_app, make_user):
    at = run(make_app(make_user("ann")))
    assert nav_titles(at) == ANNOTATOR_PAGES
    for page in ("screens/projects.py", "screens/users.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(page)
    # a request for those pages anyway (the page hash a tab that had them open would send)
    # falls back to the default page, never their content
    for url_path in ("users", "projects"):
        ask_for_path(at, url_path)
        run(at)
        assert titles(at) == ["My queue"]
        assert "Users" not in titles(at) and "Projects & texts" not in titles(at)


@pytest.mark.parametrize(("page", "role", "title"), [
    ("screens/projects.py", "lead", "Projects & texts"),
    ("screens/users.py", "admin", "Users"),
])
def test_back_office_page_itself_refuses_an_annotator(db_url, make_user, page, role, title):
    """Defence in depth: run the page script on its own (no app.py menu) as an annotator."""
    at = AppTest.from_file(str(Path(APP_PATH).parent / page), default_timeout=TIMEOUT)
    at.session_state[ACTOR_KEY] = make_user("ann")
    run(at)
    assert errors(at) == [f"This page needs the {role} role."]
    assert title not in titles(at)
    assert not at.dataframe and not at.button


def test_lead_pages_refuse_a_signed_out_visitor(db_url, admin):
    at = AppTest.from_file(str(Path(APP_PATH).parent / "screens/projects.py"), default_timeout=TIMEOUT)
    run(at)
    assert [w.value for w in at.warning] == ["Please sign in."]
    assert not titles(at)
