"""The project chosen in the sidebar survives F5, and an import lands where the page says — in
Chromium.

A lead chooses "Pilot 2" in the sidebar; the URL says ``?project=<id>``; a reload (a new
Streamlit session) still shows Pilot 2, and so does the Projects page reached through the
sidebar. A text file imported there lands in Pilot 2, the button having named it. Then the lead
switches the project four times, 100 ms apart, and clicks the import at once: the texts land in
the project the page names. A click on the button drawn for an earlier project (the run for the
new one under way) imports nothing, and the button then names the project in force.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotation.wording import counted
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import demo_projects
from db.engine import Database
from db.models import Sample
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle

pytestmark = pytest.mark.browser

FIRST = (b"The ferry to the island leaves every hour.\n"
         b"The library lends laptops for two weeks.\n")
STALE = b"The museum shop sells postcards of the old harbour.\n"
FAST = (b"The night bus stops at the station at midnight.\n"
        b"The pool is closed for cleaning this morning.\n"
        b"The market moves to the square in summer.\n")


@pytest.fixture
def seeded(tmp_path):
    """A SQLite file with an admin, lead ``lead1`` and three projects: the demo project (first),
    Pilot 2 and Pilot 3. Yields ``(url, db, {name: id})``."""
    url = f"sqlite:///{tmp_path / 'choice.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    ids = {p.name: p.id for p in (demo_projects.load_demo_project(db, lead),
                                  projects.create_project(db, lead, "Pilot 2"),
                                  projects.create_project(db, lead, "Pilot 3"))}
    yield url, db, ids
    db.dispose()


def counts(db: Database, texts: bytes) -> dict[int, int]:
    """How many of ``texts``' lines each project holds (projects holding none left out)."""
    lines = [line for line in texts.decode().split("\n") if line]
    with db.read() as s:
        return dict(s.execute(select(Sample.project_id, func.count()).where(Sample.parent_text.in_(lines))
                              .group_by(Sample.project_id)).all())


def picker(page):
    return page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name="Project")


def choose(page, name: str) -> None:
    picker(page).click()
    page.get_by_role("option", name=name, exact=True).click()


def url_project(page) -> int | None:
    found = re.search(r"[?&]project=(\d+)", page.url)
    return int(found.group(1)) if found else None


def expect_url_project(page, project_id: int) -> None:
    """Wait until the URL names ``project_id`` (``page.url`` alone is only updated while
    Playwright handles events: a plain polling loop would never see it change)."""
    expect(page).to_have_url(re.compile(rf"[?&]project={project_id}(&|$)"), timeout=20_000)


def upload(page, name: str, data: bytes, n: int) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": data})
    expect(page.get_by_text(f"Preview — {counted(n, 'text')}")).to_be_visible(timeout=20_000)


def import_button(page, n: int):
    """The import button of the run on screen (not a stale one of the run before)."""
    return page.locator('[data-testid="stMain"] .stButton:not([data-stale="true"]) button',
                        has_text=re.compile(rf"^Import {counted(n, 'text')} into "))


def test_the_project_survives_a_reload_and_the_import_lands_where_the_page_says(page, run_streamlit,
                                                                                 seeded):
    url, db, ids = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "lead1", "lead1-password")
    expect(picker(page)).to_have_value("Demo project")
    assert url_project(page) == ids["Demo project"]

    choose(page, "Pilot 2")
    expect_url_project(page, ids["Pilot 2"])
    wait_for_idle(page)

    page.reload()  # F5: a new Streamlit session
    expect(page.get_by_role("heading", name="My queue")).to_be_visible(timeout=30_000)
    expect(picker(page)).to_have_value("Pilot 2")
    assert url_project(page) == ids["Pilot 2"]

    open_page(page, "Projects & texts")
    expect(page.get_by_role("heading", name="Import texts into “Pilot 2”")).to_be_visible()
    expect(picker(page)).to_have_value("Pilot 2")
    expect_url_project(page, ids["Pilot 2"])  # after a page change too
    upload(page, "first.txt", FIRST, 2)
    expect(import_button(page, 2)).to_have_text("Import 2 texts into Pilot 2")
    import_button(page, 2).click()
    expect(page.get_by_text(re.compile(r"^Imported 2 texts into Pilot 2 "))).to_be_visible(timeout=20_000)
    assert counts(db, FIRST) == {ids["Pilot 2"]: 2}

    # a click on the button drawn for Pilot 2 right after choosing Pilot 3 imports nothing: the
    # browser sends it with the picker's new value (and, at times, the URL's old ?project=), and
    # no button of the run for Pilot 3 was clicked
    wait_for_idle(page)
    upload(page, "stale.txt", STALE, 1)
    wait_for_idle(page)
    drawn_before = import_button(page, 1).element_handle()
    choose(page, "Pilot 3")
    drawn_before.evaluate("button => button.click()")  # a no-op once the run has replaced it
    page.wait_for_timeout(2_000)
    wait_for_idle(page)
    assert counts(db, STALE) == {}
    expect(picker(page)).to_have_value("Pilot 3")
    expect(import_button(page, 1)).to_have_text("Import 1 text into Pilot 3")
    upload(page, "fast.txt", FAST, 3)

    # the picker, fast: four switches 100 ms apart, then the import at once
    for name in ("Demo project", "Pilot 2", "Demo project", "Pilot 3"):
        choose(page, name)
        page.wait_for_timeout(100)
    # while a run is under way the button of the run before (another project, another key) can
    # still be on screen beside the new one: click whichever comes first, as a hurried lead would
    page.locator('[data-testid="stMain"] button',
                 has_text=re.compile(r"^Import 3 texts into ")).first.click()
    try:  # (the click's run may not have started yet: wait for its outcome, not for idle)
        expect(page.get_by_text(re.compile(r"^Imported 3 texts into "))).to_be_visible(timeout=10_000)
    except AssertionError:
        # the click hit a button drawn for an earlier project: nothing imported, and the
        # button now names the project in force
        wait_for_idle(page)
        assert counts(db, FAST) == {}
        expect(import_button(page, 3)).to_have_text("Import 3 texts into Pilot 3")
        import_button(page, 3).click()
    expect(picker(page)).to_have_value("Pilot 3")
    expect(page.get_by_text(re.compile(r"^Imported 3 texts into Pilot 3 "))).to_be_visible(timeout=20_000)
    assert counts(db, FAST) == {ids["Pilot 3"]: 3}
    expect_url_project(page, ids["Pilot 3"])
    expect(page.get_by_role("heading", name="Import texts into “Pilot 3”")).to_be_visible()
