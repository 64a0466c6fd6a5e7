"""Sign-in that survives a reload, in Chromium (issue 10, item 6).

The app writes the ``chronocept_session`` cookie from the page (``ui.components.session_cookie``)
and reads it back when a tab connects. These tests click through the real thing: a reload and a
new tab stay signed in; a deep link while signed out opens its page after sign-in (no "Page not
found"); sign-out revokes the token, so the old cookie value no longer signs in even when put back
by hand; a password change signs the other browsers out; on an empty database a deep link meets the
Welcome form and, once the administrator exists, opens its page. One server serves the module
(the empty-database test starts its own); each test uses its own account, so the tests do not
depend on their order.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import demo_projects
from annotation.services.workbench import queue
from db.engine import Database
from tests.browser.flow_steps import address, open_page, sign_in, wait_for_idle, wait_until

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SHOTS = REPO_ROOT / "screenshots"
COOKIE = "chronocept_session"
USERS = {"lead1": "lead", "lead2": "lead", "ann1": "annotator", "ann2": "annotator",
         "ann3": "annotator", "ann4": "annotator", "ann5": "annotator"}


@pytest.fixture(scope="module")
def app(tmp_path_factory, run_streamlit_module):
    """(base URL, database): an admin, the accounts in USERS (password NAME-password), the demo
    project."""
    url = f"sqlite:///{tmp_path_factory.mktemp('signin') / 'e2e.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    for username, role in USERS.items():
        accounts.create_user(db, admin, username, f"{username}-password", role)
    demo_projects.load_demo_project(db, admin)
    base = run_streamlit_module("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    yield base, db
    db.dispose()


def session_cookie(context) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)


def wait_for_cookie(context, present: bool = True) -> dict | None:
    """The cookie once the page's component has written it (or removed it)."""
    if present:
        return wait_until(lambda: session_cookie(context), what="the session cookie")
    wait_until(lambda: session_cookie(context) is None, what="the cookie to be cleared")
    return None


def fill_sign_in(page, username: str) -> None:
    expect(page.get_by_role("textbox", name="Username")).to_be_editable(timeout=60_000)
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(f"{username}-password")
    page.get_by_role("button", name="Sign in").click()


def expect_sign_in_page(page) -> None:
    expect(page.get_by_role("textbox", name="Username")).to_be_editable(timeout=30_000)
    wait_for_idle(page)
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)


def expect_no_page_not_found(page) -> None:
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_reload_and_a_new_tab_keep_the_session(page, app):
    base, _db = app
    sign_in(page, base, "ann1", "ann1-password")
    cookie = wait_for_cookie(page.context)
    # the cookie as specified: whole site, same-site only, lifetime 12 h, readable by the page
    # (a Streamlit page cannot set HttpOnly), not Secure on plain http
    assert (cookie["path"], cookie["sameSite"], cookie["httpOnly"], cookie["secure"]) == (
        "/", "Strict", False, False)
    assert 12 * 3600 - 180 < cookie["expires"] - time.time() <= 12 * 3600
    page.get_by_role("link", name="Guidelines").click()
    expect(page.get_by_text("Guidelines version")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    page.reload()
    expect(page.get_by_text("Guidelines version")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    expect(page.get_by_role("textbox", name="Username")).to_have_count(0)

    tab = page.context.new_page()
    tab.goto(base)
    expect(tab.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    expect(tab.get_by_text("ann1 · annotator")).to_be_visible()
    tab.close()
    assert session_cookie(page.context)["value"] == cookie["value"]  # the same session


def first_project(db: Database) -> int:
    """The id of the first (the demo) project: what a user who never chose one opens."""
    return projects.list_projects(db, accounts.authenticate(db, "admin", "admin-password"))[0].id


def test_a_deep_link_while_signed_out_opens_review_after_sign_in(page, app):
    base, db = app
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{base}/review?from=mail")
    expect(page.get_by_text("Sign in to open Review.")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("textbox", name="Password")).to_be_editable()  # drawn, not a skeleton
    wait_for_idle(page)
    expect_no_page_not_found(page)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "sign_in_deep_link_1366x768.png"))
    fill_sign_in(page, "lead1")
    expect(page.get_by_role("heading", name="Review")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    expect_no_page_not_found(page)
    # the page and its query string, and the open project
    assert address(page.url) == (f"{base}/review", {"from": "mail", "project": str(first_project(db))})
    wait_for_cookie(page.context)
    page.reload()  # and a reload stays there
    expect(page.get_by_role("heading", name="Review")).to_be_visible(timeout=30_000)


def test_a_deep_link_keeps_the_annotate_pages_query_string(page, app):
    """A bookmark of one of the user's drafts keeps its query string through sign-in and opens
    that draft (an id that is not theirs is rightly replaced by their next sample, with a
    message — the workbench's page tests cover that — so the link names a real draft)."""
    base, db = app
    ann2 = accounts.authenticate(db, "ann2", "ann2-password")
    project = projects.list_projects(db, ann2)[0]
    aid = queue.next_item(db, ann2, project.id).annotation_id
    page.goto(f"{base}/workbench?annotation={aid}")
    expect(page.get_by_text("Sign in to open Annotate.")).to_be_visible(timeout=60_000)
    fill_sign_in(page, "ann2")
    expect(page.get_by_role("button", name="Sign out")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    expect_no_page_not_found(page)
    assert address(page.url) == (f"{base}/workbench", {"annotation": str(aid), "project": str(project.id)})
    expect(page.locator(f'[data-testid="surface"][data-annotation-id="{aid}"]')).to_be_visible(timeout=30_000)
    expect(page.get_by_role("link", name="Annotate")).to_have_attribute("aria-current", "page")


def test_a_deep_link_the_role_does_not_allow_lands_on_the_queue_with_a_message(page, app):
    base, db = app
    page.goto(f"{base}/review")
    fill_sign_in(page, "ann3")
    expect(page.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("The page “Review” needs the lead role; you are signed in as "
                            "annotator. Here is My queue instead.")).to_be_visible()
    wait_for_idle(page)
    expect_no_page_not_found(page)
    expect(page.get_by_role("heading", name="Review")).to_have_count(0)
    # My queue at its own path (was /, the default page)
    assert address(page.url) == (f"{base}/queue", {"project": str(first_project(db))})


def test_sign_out_revokes_the_old_cookie(page, app, chromium_browser):
    base, _db = app
    sign_in(page, base, "ann4", "ann4-password")
    old = wait_for_cookie(page.context)["value"]
    page.get_by_role("button", name="Sign out").click()
    expect_sign_in_page(page)
    wait_for_cookie(page.context, present=False)
    page.reload()
    expect_sign_in_page(page)

    # a fresh browser given the old cookie value by hand is not signed in, is told why, and the
    # app drops the worthless cookie
    other = chromium_browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        other.add_cookies([{"name": COOKIE, "value": old, "url": base, "sameSite": "Strict"}])
        stranger = other.new_page()
        stranger.goto(base)
        expect(stranger.get_by_text("You signed out of this browser; please sign in again.")
               ).to_be_visible(timeout=60_000)
        expect_sign_in_page(stranger)
        wait_for_cookie(other, present=False)
    finally:
        other.close()


def test_a_stale_tab_does_not_wipe_the_cookie_of_a_fresh_sign_in(page, app):
    """Tab 2 is signed out by tab 1's sign-out; tab 1 signs in again; tab 2's later runs must
    not clear the new cookie (the component clears only the token it was given)."""
    base, _db = app
    sign_in(page, base, "ann5", "ann5-password")
    wait_for_cookie(page.context)
    second = page.context.new_page()
    second.goto(base)
    expect(second.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Sign out").click()
    expect_sign_in_page(page)
    wait_for_cookie(page.context, present=False)
    fill_sign_in(page, "ann5")
    expect(page.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    fresh = wait_for_cookie(page.context)["value"]
    second.get_by_role("link", name="Guidelines").click()  # a click in the stale tab
    expect(second.get_by_text("You signed out of this browser; please sign in again.")
           ).to_be_visible(timeout=30_000)
    wait_for_idle(second)
    second.get_by_role("textbox", name="Username").fill("typing")  # more runs of the stale tab
    second.get_by_role("textbox", name="Password").fill("x")
    wait_for_idle(second)
    time.sleep(1.0)
    assert session_cookie(page.context)["value"] == fresh
    second.close()


def test_a_password_change_signs_the_other_browsers_out(page, app, chromium_browser):
    base, _db = app
    other = chromium_browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        elsewhere = other.new_page()
        sign_in(elsewhere, base, "lead2", "lead2-password")
        wait_for_cookie(other)
        sign_in(page, base, "lead2", "lead2-password")
        before = wait_for_cookie(page.context)["value"]

        open_page(page, "My account")
        page.get_by_label("Current password").fill("lead2-password")
        page.get_by_label("New password (at least 8 characters)").fill("lead2-new-password")
        page.get_by_label("Repeat the new password").fill("lead2-new-password")
        page.get_by_role("button", name="Change password").click()
        expect(page.get_by_text("Password changed.")).to_be_visible(timeout=30_000)
        # this browser got a new session (and cookie) and stays signed in across a reload
        renewed = wait_until(lambda: (c := session_cookie(page.context)) and c["value"] != before and c,
                             what="the renewed cookie")
        page.reload()
        expect(page.get_by_role("heading", name="My account")).to_be_visible(timeout=30_000)
        assert session_cookie(page.context)["value"] == renewed["value"]

        # the other browser is signed out, at its next click or reload, with the reason
        elsewhere.reload()
        expect(elsewhere.get_by_text("Your password was changed; please sign in again.")
               ).to_be_visible(timeout=30_000)
        expect_sign_in_page(elsewhere)
        wait_for_cookie(other, present=False)
    finally:
        other.close()


def test_a_deep_link_on_an_empty_database_shows_welcome_then_opens_its_page(page, tmp_path, run_streamlit):
    """First run: a bookmark of a page meets the Welcome form (not "Page not found"); once the
    administrator exists, the page it named opens."""
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{base}/users")
    expect(page.get_by_role("heading", name="Welcome to Chronocept Studio")).to_be_visible(timeout=60_000)
    wait_for_idle(page)
    expect_no_page_not_found(page)
    page.get_by_role("textbox", name="Password (at least 8 characters)").fill("first-admin-pw")
    page.get_by_role("textbox", name="Repeat the password").fill("first-admin-pw")
    page.get_by_role("button", name="Create administrator").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    expect_no_page_not_found(page)
    assert address(page.url) == (f"{base}/users", {"project": "1"})  # the demo project it loaded
    expect(page.get_by_role("heading", name="Users")).to_be_visible()
    db = Database.connect(url)
    try:
        assert [u.username for u in accounts.list_users(db, accounts.authenticate(db, "admin", "first-admin-pw"))] == ["admin"]
    finally:
        db.dispose()
