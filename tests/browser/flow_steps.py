"""Steps the browser flow tests share: sign in, open a page from the sidebar, wait for a state."""

from __future__ import annotations

import time

from playwright.sync_api import expect


def sign_in(page, base_url: str, username: str, password: str) -> None:
    """Sign in at the app's root and wait for the annotator's landing page."""
    page.goto(base_url)
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)


def open_page(page, title: str) -> None:
    """Click the sidebar link ``title`` and wait for the page's heading (never a page URL: a
    fresh server's first request for one shows the sign-in notice)."""
    page.get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title)).to_be_visible(timeout=30_000)


def wait_until(predicate, timeout: float = 20.0, what: str = "condition"):
    """Poll ``predicate`` (e.g. a database query) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
