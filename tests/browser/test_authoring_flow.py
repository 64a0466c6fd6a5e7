"""An author writes three follow-ups for a target and saves them — in Chromium.

ann1 opens Write follow-ups in a context-pairs project whose two targets have a settled curve.
For each of the three boxes the test reads the change the screen names ("should DECREASE …"),
writes a follow-up that says which, and gives durations whose curve says it (the warning that
the curve says something else goes away). After Save the database holds exactly three authored
pairs of the first target, each with the intent its box named, and the page shows the next
target.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.services.accounts import accounts
from authoring_data import pairs_project, target_text
from db.engine import Database
from db.models import SamplePair
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, wait_until

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[2] / "screenshots"

#: The durations that make the author's curve say each change against the seeded settled curve
#: (peak ≈ 1.5 weeks, half gone by ≈ 4 weeks); "keep" keeps the durations the page starts with.
DURATIONS = {"DECREASE": ("1 day", "3 days"), "KEEP": None, "INCREASE": ("6 months", "2 years")}
LABEL_OF = {"DECREASE": "decreased", "KEEP": "neutral", "INCREASE": "increased"}


@pytest.fixture
def pairs_db(tmp_path):
    url = f"sqlite:///{tmp_path / 'authoring.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    accounts.create_user(db, admin, "ann1", "ann1-password", "annotator")
    pairs_project(db, accounts.authenticate(db, "lead1", "lead1-password"), targets=2)
    yield url, db
    db.dispose()


def _commit(field, value: str) -> None:
    """Type ``value`` and leave the field, which sends it (Streamlit reruns), then wait."""
    field.fill(value)
    field.press("Tab")


def test_an_author_writes_three_follow_ups_and_saves_them(page, run_streamlit, pairs_db):
    url, db = pairs_db
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "ann1", "ann1-password")
    open_page(page, "Write follow-ups")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(target_text(0), exact=True)).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    written: dict[str, str] = {}
    for intent in ("decreased", "neutral", "increased"):
        box = page.locator(f".st-key-authoring-box-{intent}")
        heading = box.get_by_text(re.compile(r"A follow-up that should (\w+) how long")).inner_text()
        verb = re.search(r"should (\w+) how long", heading).group(1)
        text = f"A follow-up written to {verb.lower()} it: the owner posted news number {len(written) + 1}."
        written[text] = LABEL_OF[verb]
        _commit(box.locator("textarea"), text)
        wait_for_idle(page)
        if DURATIONS[verb]:
            peak, half = DURATIONS[verb]
            _commit(box.get_by_role("textbox", name="Given it, the target is most valid at"), peak)
            wait_for_idle(page)
            _commit(box.get_by_role("textbox", name="and half of that validity is gone by"), half)
            wait_for_idle(page)
        expect(box.get_by_text(f": {LABEL_OF[verb]}.", exact=False)).to_be_visible()
        expect(box.get_by_text("Your curve says", exact=False)).to_have_count(0)
        expect(box.locator(".stPlotlyChart .scatterlayer .trace")).to_have_count(2)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "authoring.png"), full_page=True)
    page.get_by_role("button", name="Save the three follow-ups").click()
    expect(page.get_by_text("three follow-ups are saved", exact=False)).to_be_visible(timeout=30_000)
    expect(main.get_by_text(target_text(1), exact=True)).to_be_visible(timeout=30_000)

    def authored():
        with db.read() as s:
            return s.execute(select(SamplePair.target_key, SamplePair.follow_up, SamplePair.intended_change)
                             .where(SamplePair.authored_by.is_not(None))).all()
    rows = wait_until(authored, what="the authored pairs")
    assert sorted((key, text, label) for key, text, label in rows) == \
        sorted(("T-0", text, label) for text, label in written.items())
    assert sorted(written.values()) == ["decreased", "increased", "neutral"]
