"""Every page's URL path, typed into the address bar by each role, in Chromium (issue 22, item 3).

``/queue`` popped Streamlit's "Page not found … Running the app's main page." for every signed-in
user (My queue was the default page, which Streamlit serves only at ``/``), and the dialog locked
the page until closed. Here an annotator, a lead and an admin each sign in and open every path
of ``ui.navigation.PAGES`` by URL: a page the role has opens with its heading; one it lacks says
so and shows My queue; no path meets "Page not found"; ``/`` opens My queue at ``/queue``
(``?project=<id>`` naming the open project, as on every page).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.corpus import demo_projects
from db.engine import Database
from tests.browser.flow_steps import sign_in, wait_for_idle
from ui.navigation import PAGES

pytestmark = pytest.mark.browser

ROLES = {"ann1": "annotator", "lead1": "lead", "admin": "admin"}
RANK = {"annotator": 0, "lead": 1, "admin": 2}
#: headings that are not the page's title: the workbench is headed by the sample it opened
HEADINGS = {"workbench": re.compile(r"^(Annotate|Sample #\d+)$")}


@pytest.fixture(scope="module")
def app(tmp_path_factory, run_streamlit_module):
    url = f"sqlite:///{tmp_path_factory.mktemp('paths') / 'paths.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    for username, role in ROLES.items():
        if username != "admin":
            accounts.create_user(db, admin, username, f"{username}-password", role)
    demo_projects.load_demo_project(db, admin)
    base = run_streamlit_module("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    yield base
    db.dispose()


def queue_url(app: str) -> re.Pattern[str]:
    """My queue's URL: its own path, and the open project (the demo project)."""
    return re.compile(rf"^{re.escape(app)}/queue\?project=\d+$")


@pytest.mark.parametrize("username", list(ROLES))
def test_every_path_opens_its_page_or_says_why_not(page, app, username):
    role = ROLES[username]
    sign_in(page, app, username, f"{username}-password")
    expect(page).to_have_url(queue_url(app))  # / opened My queue at its own path
    for spec in PAGES:
        page.goto(f"{app}/{spec.url_path}")
        allowed = RANK[role] >= RANK[spec.role]
        heading = HEADINGS.get(spec.url_path, spec.title) if allowed else "My queue"
        expect(page.get_by_role("heading", name=heading, exact=True).first).to_be_visible(timeout=30_000)
        wait_for_idle(page)
        if not allowed:
            expect(page.get_by_text(f"The page “{spec.title}” needs the {spec.role} role")).to_be_visible()
        expect(page.get_by_text("Page not found")).to_have_count(0)
        expect(page.get_by_role("dialog")).to_have_count(0)
        expect(page.get_by_test_id("stException")).to_have_count(0)
    page.goto(app)
    expect(page.get_by_role("heading", name="My queue", exact=True)).to_be_visible(timeout=30_000)
    expect(page).to_have_url(queue_url(app))
    expect(page.get_by_text("Page not found")).to_have_count(0)
