"""Steps the browser flow tests share: sign in, open a page from the sidebar, wait for a state.

Streamlit draws a run's elements one by one and keeps the previous run's elements on screen
(marked stale) until the run ends, so an element that appears early in a run does not mean the
rest of the page is there yet. Wait for what the next step acts on, or for the app to be idle
(:func:`wait_for_idle`) where the next step acts on something that has no actionability of its
own (a position on a canvas).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.corpus import demo_projects
from db.engine import Database


APP_ROOT = '[data-testid="stApp"]'
#: Where the component harnesses (harness_components.py, harness_surface.py) print their state
#: as JSON after every run.
HARNESS_STATE = '[data-testid="stCode"] code'


def wait_for_idle(page, timeout: float = 30_000) -> None:
    """Wait until no script run is under way: the app root's ``data-test-script-state`` is
    ``notRunning`` (Streamlit's own end-to-end tests wait on it; stale elements are gone then).

    Call it after the outcome of the last action is on screen: right after a click the
    rerun may not have been requested yet."""
    expect(page.locator(APP_ROOT)).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=timeout)


def session_cookie_value(page) -> str | None:
    """The sign-in cookie the browser holds now (``chronocept_session``), or None."""
    for cookie in page.context.cookies():
        if cookie["name"] == "chronocept_session":
            return cookie["value"]
    return None


def sign_in(page, base_url: str, username: str, password: str) -> None:
    """Sign in at the app's root and wait for the annotator's landing page *and* for the browser
    to hold the new sign-in cookie: the page draws My queue before the cookie component has run,
    so a reload or ``page.goto`` right after the heading showed could open the sign-in form."""
    before = session_cookie_value(page)
    page.goto(base_url)
    # A freshly started server imports the app on its first run: ~3 s on an idle machine, over
    # 15 s (the default action timeout) with the CPU busy. Wait for the form like for a page.
    expect(page.get_by_role("textbox", name="Username")).to_be_editable(timeout=60_000)
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    wait_until(lambda: session_cookie_value(page) not in (None, before), timeout=30.0,
               what="the browser to hold the new sign-in cookie")


def open_annotate(page) -> None:
    """Open Annotate from the sidebar and ask for work: the page shows the open draft, or a
    "Start the next sample" button (opening it hands nothing out) that this presses."""
    page.get_by_role("link", name="Annotate").click()
    # My queue has a "Start the next sample" button too: wait until Annotate's run is drawn
    expect(page).to_have_url(re.compile(r"/workbench(\?|$)"), timeout=30_000)
    wait_for_idle(page)
    start = page.get_by_role("button", name="Start the next sample")
    surface = page.locator('[data-testid="surface"]')
    expect(surface.or_(start).first).to_be_visible(timeout=30_000)
    if start.is_visible():
        start.click()
    expect(surface.first).to_be_visible(timeout=30_000)


def open_page(page, title: str) -> None:
    """Click the sidebar link ``title`` and wait for the page's heading (never a page URL: a
    fresh server's first request for one shows the sign-in notice)."""
    page.get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title)).to_be_visible(timeout=30_000)


def address(url: str) -> tuple[str, dict[str, str]]:
    """A page's URL as (the URL without its query string, the query's parameters). A signed-in
    page's URL also names the open project (``project=<id>``), before or after the page's own
    parameters."""
    parts = urlsplit(url)
    return (f"{parts.scheme}://{parts.netloc}{parts.path}",
            dict(parse_qsl(parts.query, keep_blank_values=True)))


def wait_until(predicate, timeout: float = 20.0, what: str = "condition"):
    """Poll ``predicate`` (e.g. a database query) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def read_state(page) -> dict | None:
    """A harness app's state (:data:`HARNESS_STATE`), or None while a rerun replaces it."""
    try:
        return json.loads(page.locator(HARNESS_STATE).inner_text(timeout=2_000))
    except Exception:  # mid-rerun: the block is being replaced
        return None


def wait_for_state(page, predicate: Callable[[dict], bool], timeout: float = 30.0) -> dict:
    """Poll the harness state until ``predicate`` holds; fail with the last state otherwise."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = read_state(page)
        if state is not None and predicate(state):
            return state
        time.sleep(0.1)
    raise AssertionError(f"state never matched; last state: {state}")


def whole_page_shot(page, path, settle_ms: int = 300) -> None:
    """A screenshot of the whole page at ``path``: Streamlit scrolls inside its main area, so
    the window is made tall enough for everything first (and restored after)."""
    size = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stMainBlockContainer\"]')].map(e => e.scrollHeight), 800)")
    page.set_viewport_size({"width": size["width"], "height": int(height) + 120})
    page.wait_for_timeout(settle_ms)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


# --- a demo project with a lead and two annotators, for the review and feedback flows -----------

#: Two curves' points: the workbench's example, and the same shape much later.
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
FAR_POINTS = ((50.6, 0.77), (40.6, 0.41), (58.6, 0.41), (30.9, 0.19), (65.9, 0.2))
# "The 8:15 train to Leeds | is delayed by ten minutes | because of a signal fault near Wakefield."
LEEDS, BECAUSE = 5, 10


def demo_team(url: str, annotators: tuple[str, ...] = ("ann1", "ann2")):
    """A database at ``url`` with the first admin, lead ``lead1`` (password ``lead1-password``),
    the demo project and the annotators (password ``<name>-password``). Returns
    ``(db, lead, project, {name: actor})``; the caller disposes of ``db``."""
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    project = demo_projects.load_demo_project(db, lead)
    users = {}
    for name in annotators:
        accounts.create_user(db, admin, name, f"{name}-password", "annotator")
        users[name] = accounts.authenticate(db, name, f"{name}-password")
    return db, lead, project, users
