"""Sign-in that survives a reload (issue 10, item 6), through the whole app in AppTest.

AppTest has no browser and so no cookies: ``ui.session.handshake_cookie`` (what the browser sent
when the tab connected) is replaced by a function returning the token a test chooses; everything
after that — resuming, refusing, clearing, deep links — is the app's own code. The cookie itself
is written and read by Chromium in ``tests/browser/test_sign_in_flow.py``.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update
from streamlit.testing.v1 import AppTest

import ui.session
from annotation.services.accounts import accounts, sessions
from db import config as app_config
from db.models import UserSession, utcnow
from page_helpers import (APP_PATH, PASSWORD, TIMEOUT, infos, nav_titles, registered_url_paths, run, shown,
                          titles)
from streamlit_internals import ask_for_path
from ui.session import ACTOR_KEY, COOKIE_KEY, NO_RESUME_KEY, SESSION_TOKEN_KEY

SIGN_IN = "FormSubmitter:login.form-Sign in"


class Browser:
    """The cookie jar of one browser as the app sees it: ``token`` is sent with every new tab;
    ``asked`` counts how often the app looked."""

    def __init__(self) -> None:
        self.token: str | None = None
        self.asked = 0

    def __call__(self) -> str | None:
        self.asked += 1
        return self.token


@pytest.fixture
def browser(monkeypatch) -> Browser:
    jar = Browser()
    monkeypatch.setattr(ui.session, "handshake_cookie", jar)
    return jar


def new_tab(page_path: str | None = None) -> AppTest:
    """A fresh tab: empty session state, optionally opened at ``page_path`` (a URL path)."""
    at = AppTest.from_file(APP_PATH, default_timeout=TIMEOUT)
    if page_path is not None:
        ask_for_path(at, page_path)  # what a deep link's first request asks for
    return at


def sign_in_form(at: AppTest, username: str, password: str = PASSWORD) -> AppTest:
    at.text_input(key="login.username").input(username)
    at.text_input(key="login.password").input(password)
    at.button(key=SIGN_IN).click()
    return run(at)


def warnings(at: AppTest) -> list[str]:
    return [shown(w.value) for w in at.warning]


def row(db, token: str) -> UserSession | None:
    with db.read() as s:
        return s.scalar(select(UserSession).where(UserSession.token_hash == sessions.token_hash(token)))


def test_signing_in_starts_a_session_and_asks_the_browser_to_keep_it(browser, db, make_user):
    make_user("ann")
    at = sign_in_form(run(new_tab()), "ann")
    assert titles(at) == ["My queue"]
    token = at.session_state[SESSION_TOKEN_KEY]
    assert row(db, token).revoked_at is None
    wanted = at.session_state[COOKIE_KEY]
    assert (wanted["action"], wanted["token"]) == ("set", token)
    assert timedelta(hours=11, minutes=59) < wanted["expires_at"] - utcnow() <= timedelta(hours=12)


def test_a_new_tab_with_the_cookie_is_signed_in(browser, db, make_user):
    ann = make_user("ann")
    browser.token = sessions.start_session(db, ann).token
    at = run(new_tab())
    assert titles(at) == ["My queue"]
    assert at.session_state[ACTOR_KEY].username == "ann"
    assert at.session_state[SESSION_TOKEN_KEY] == browser.token
    # the cookie is already in the browser: nothing to write
    assert COOKIE_KEY not in at.session_state
    # later runs use the tab's own token, the cookie is not read again
    asked = browser.asked
    run(at)
    assert browser.asked == asked


@pytest.mark.parametrize(("spoil", "message"), [
    ("revoke", "You signed out of this browser; please sign in again."),
    ("expire", "Your sign-in expired; please sign in again."),
    ("unknown", "Your sign-in has ended; please sign in again."),
    ("deactivate", "Your account is no longer active. Ask an administrator."),
    ("reset", "Your password was changed; please sign in again."),
])
def test_a_cookie_that_no_longer_signs_in_is_dropped_with_a_reason(browser, db, admin, make_user, spoil, message):
    ann = make_user("ann")
    token = sessions.start_session(db, ann).token
    if spoil == "revoke":
        sessions.end_session(db, token)
    elif spoil == "expire":
        with db.write() as s:
            s.execute(update(UserSession).values(expires_at=utcnow() - timedelta(seconds=1)))
    elif spoil == "unknown":
        token = "a" * 43
    elif spoil == "deactivate":
        accounts.set_active(db, admin, ann.user_id, False)
    else:
        accounts.reset_password(db, admin, ann.user_id, "reset-by-admin")
    browser.token = token
    at = run(new_tab())
    assert titles(at) == ["Chronocept Studio"]
    assert nav_titles(at) == ["Sign in"]
    assert warnings(at) == [message]
    assert ACTOR_KEY not in at.session_state
    assert at.session_state[COOKIE_KEY] == {"action": "clear", "token": token}
    # the refused cookie is not tried again in this tab (the reason is shown once)
    asked = browser.asked
    run(at)
    assert browser.asked == asked and not at.warning


def test_sign_out_revokes_the_session_and_the_cookie_no_longer_signs_in(browser, db, make_user):
    make_user("ann")
    at = sign_in_form(run(new_tab()), "ann")
    token = at.session_state[SESSION_TOKEN_KEY]
    at.sidebar.button(key="auth.sign_out").click()
    run(at)
    assert titles(at) == ["Chronocept Studio"] and ACTOR_KEY not in at.session_state
    assert not at.warning  # signing out oneself needs no explanation
    assert row(db, token).revoked_reason == "signed_out"
    assert at.session_state[COOKIE_KEY] == {"action": "clear", "token": token}
    assert at.session_state[NO_RESUME_KEY] is True
    # a new tab that still sends the old cookie (the clear never reached the browser)
    browser.token = token
    other = run(new_tab())
    assert titles(other) == ["Chronocept Studio"]
    assert warnings(other) == ["You signed out of this browser; please sign in again."]


def test_sign_out_in_one_tab_signs_the_other_tab_out_at_its_next_click(browser, db, make_user):
    ann = make_user("ann")
    browser.token = sessions.start_session(db, ann).token
    first, second = run(new_tab()), run(new_tab())
    assert titles(first) == titles(second) == ["My queue"]
    first.sidebar.button(key="auth.sign_out").click()
    run(first)
    run(second)
    assert ACTOR_KEY not in second.session_state
    assert warnings(second) == ["You signed out of this browser; please sign in again."]


@pytest.mark.parametrize(("role", "path", "title"), [
    ("lead", "review", "Review"),
    ("lead", "warmup", "Warm-up & qualification"),
    ("annotator", "warmup", None),  # a lead's page: the annotator lands on the queue (below)
    ("admin", "users", "Users"),
    ("annotator", "account", "My account"),
])
def test_a_deep_link_opens_its_page_after_sign_in(browser, make_user, role, path, title):
    make_user("someone", role)
    at = run(new_tab(path))
    assert titles(at) == ["Chronocept Studio"]  # the sign-in form, under the page's URL
    if title:
        assert infos(at) == [f"Sign in to open {title}."]
    assert nav_titles(at) == ["Sign in"]
    sign_in_form(at, "someone")
    assert titles(at) == [title or "My queue"]


def test_a_deep_link_to_the_default_page_is_the_plain_sign_in(browser, make_user):
    make_user("ann")
    at = run(new_tab("queue"))
    assert titles(at) == ["Chronocept Studio"] and not at.info
    assert titles(sign_in_form(at, "ann")) == ["My queue"]


def test_a_deep_link_the_role_does_not_allow_says_so_and_shows_the_queue(browser, make_user):
    make_user("ann")
    at = sign_in_form(run(new_tab("review")), "ann")
    assert titles(at) == ["My queue"]
    assert warnings(at) == ["The page “Review” needs the lead role; you are signed in as "
                            "annotator. Here is My queue instead."]
    assert "Review" not in nav_titles(at)
    # the message is shown once: the browser is on the queue now (AppTest keeps asking for the
    # URL it was given, so say where the switch went, as the browser's next request would)
    ask_for_path(at, "queue")
    run(at)
    assert titles(at) == ["My queue"] and not at.warning


def test_a_signed_in_deep_link_through_the_cookie(browser, db, make_user):
    lead = make_user("lead1", "lead")
    browser.token = sessions.start_session(db, lead).token
    assert titles(run(new_tab("review"))) == ["Review"]
    ann = make_user("ann")
    browser.token = sessions.start_session(db, ann).token
    at = run(new_tab("users"))
    assert titles(at) == ["My queue"]
    assert warnings(at) == ["The page “Users” needs the admin role; you are signed in as "
                            "annotator. Here is My queue instead."]


def test_every_page_path_is_answered_signed_out_and_signed_in(browser, db, make_user):
    """No URL of the app meets Streamlit's "Page not found" (it follows an unregistered path)."""
    from ui.navigation import PAGES

    paths = {spec.url_path for spec in PAGES}
    at = run(new_tab())
    assert paths <= registered_url_paths(at)
    browser.token = sessions.start_session(db, make_user("ann")).token
    at = run(new_tab())
    registered = registered_url_paths(at)
    # every page's own path, /queue included (it met "Page not found" while My queue was the
    # default page, which Streamlit serves only at /); / is a hidden page that opens My queue
    assert paths <= registered and "" in registered
    ask_for_path(at, "queue")
    at = run(at)
    assert titles(at) == ["My queue"] and not at.exception
    # the Annotate page keeps its URL path
    assert next(s.url_path for s in PAGES if s.title == "Annotate") == "workbench"


def test_password_change_renews_this_tabs_session_and_ends_the_others(browser, db, make_user):
    ann = make_user("ann")
    other_browser = sessions.start_session(db, ann).token
    at = sign_in_form(run(new_tab("account")), "ann")
    assert titles(at) == ["My account"]
    before = at.session_state[SESSION_TOKEN_KEY]
    at.text_input(key="account.old").input(PASSWORD)
    at.text_input(key="account.new").input("new-password-1")
    at.text_input(key="account.repeat").input("new-password-1")
    at.button(key="FormSubmitter:account.password-Change password").click()
    run(at)
    assert [m.value for m in at.success] == ["Password changed."]
    after = at.session_state[SESSION_TOKEN_KEY]
    assert after != before
    assert at.session_state[COOKIE_KEY]["token"] == after
    assert row(db, before).revoked_reason == "password_changed"
    assert row(db, other_browser).revoked_reason == "password_changed"
    run(at)
    assert titles(at) == ["My account"]  # this tab stays signed in
    browser.token = after
    assert titles(run(new_tab())) == ["My queue"]  # and so does a reload with the new cookie
    browser.token = other_browser
    assert warnings(run(new_tab())) == ["Your password was changed; please sign in again."]


def test_admin_deactivation_on_the_users_page_revokes_the_sessions(browser, db, admin, make_app, make_user):
    ann = make_user("ann")
    token = sessions.start_session(db, ann).token
    at = run(make_app(admin))
    at.switch_page("screens/users.py")
    run(at)
    at.selectbox(key="users.chosen").set_value("ann")
    run(at)
    at.button(key="users.toggle_active").click()
    run(at)
    assert row(db, token).revoked_reason == "deactivated"


def test_the_first_admin_is_signed_in_with_a_session(browser, db_url, db):
    at = run(new_tab())
    assert titles(at) == ["Welcome to Chronocept Studio"]
    at.text_input(key="first_run.username").input("boss")
    at.text_input(key="first_run.password").input("long-password")
    at.text_input(key="first_run.repeat").input("long-password")
    at.checkbox(key="first_run.demo").set_value(False)
    at.button(key="FormSubmitter:first_run.form-Create administrator").click()
    run(at)
    assert titles(at) == ["My queue"]
    token = at.session_state[SESSION_TOKEN_KEY]
    assert row(db, token) is not None and at.session_state[COOKIE_KEY]["action"] == "set"


def test_a_bad_lifetime_setting_stops_the_app_at_start_with_one_line(browser, make_user, monkeypatch):
    make_user("ann")
    monkeypatch.setenv(sessions.LIFETIME_ENV, "forever")
    app_config.reset()  # a server started with it: the app reads its settings at start
    at = run(new_tab())
    assert ACTOR_KEY not in at.session_state
    assert [shown(e.value) for e in at.error] == [
        "The app's configuration has a bad value, so it cannot start: CHRONOCEPT_SESSION_HOURS must be a "
        "number of hours from 0.0833 to 720; it is 'forever'. Ask the administrator."]
    assert not at.text_input  # no sign-in form: nobody signs in with a lifetime nobody chose
    assert not at.exception
