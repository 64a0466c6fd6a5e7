"""The warm-up gold editor used fast, in Chromium (issue 22, item 8).

The gold editor once stored the default curve (ξ 60, ω 10, α 0) when only 2 of 3 quickly
clicked points had registered, and "Save gold" said nothing. Here a lead picks the axis, places
three points 100 ms apart and presses "Save the gold of S-000": either
every point had registered and the gold stored is the curve through them, or the save is
refused in one line ("a curve needs at least 3") and nothing is stored — never the default
curve. One more point placed unhurried, a second save then stores a fitted curve.

This test found the default curve still stored in about 1 run of 4 (the ξ/ω/α inputs, written
from the fit, sent their previous values with a later rerun and counted as typed); fixed in
``ui/segment_editor.parameter_inputs``. Under load (two busy loops) it then still failed 2 runs of 6
(neither message shown), for three causes, each fixed and each with a page test in
``tests/pages/test_page_warmup.py``: the Save button moved down as the fit's messages appeared
above it, so a press right after a point hit nothing (the messages are now below the buttons);
a replaced ξ/ω/α input's callback still ran with the browser's stale value and stored the default
(``segment_editor.set_parameter`` ignores an input of an older round); and a point's event could
reach the server after the Save pressed behind it, whose refusal the next run wiped (the refusal
is kept, with the time of the press, until the next Save or Start over). 6 of 6 runs pass beside
two busy loops since.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import warmup_set
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from db.models import GoldAnnotation, Sample
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle

pytestmark = pytest.mark.browser

X_MAX = 200.0
POINTS = ((40.0, 0.5), (58.0, 1.0), (85.0, 0.3))
DEFAULT = (60.0, 10.0, 0.0)


@pytest.fixture
def seeded(tmp_path):
    url = f"sqlite:///{tmp_path / 'gold.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    p = projects.create_project(db, lead, "Pilot")
    text_imports.import_texts(db, lead, p.id, [TextRecord(f"The shop on street {i} is closed this week.", 1,
                                                      f"S-{i:03d}", i + 1) for i in range(3)])
    warmup_set.mark_warmup(db, lead, p.id, ["S-000"])
    yield url, db
    db.dispose()


def _gold(db) -> GoldAnnotation | None:
    with db.read() as s:
        return s.scalar(select(GoldAnnotation).join(Sample, Sample.id == GoldAnnotation.sample_id)
                        .where(Sample.external_id == "S-000"))


def test_fast_clicks_then_save_never_store_the_default_curve(page, run_streamlit, seeded):
    url, db = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Warm-up & qualification")
    page.get_by_role("tab", name="Gold").click()
    save = page.get_by_role("button", name="Save the gold of S-000")
    expect(save).to_be_visible(timeout=30_000)
    page.locator("[data-testid=stMultiSelect]:visible").first.click()  # the Gold tab's (other tabs have theirs)
    page.get_by_role("option", name="Main").first.click()
    page.keyboard.press("Escape")
    wait_for_idle(page)

    plot = page.get_by_test_id("curve-plot")
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    for x, y in POINTS:
        page.mouse.click(box["x"] + x / X_MAX * box["width"], box["y"] + (1 - y) * box["height"])
        page.wait_for_timeout(100)
    save.click()
    refused = page.get_by_text("Gold not stored.", exact=False)
    stored = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Stored the gold of S-000")
    expect(refused.or_(stored).first).to_be_visible(timeout=30_000)  # the save's own outcome
    # the project's first gold takes the "no warm-up set yet" notice away: the Gold tab stays open
    expect(page.get_by_role("tab", name="Gold")).to_have_attribute("aria-selected", "true")
    gold = _gold(db)
    if gold is None:  # a click had not registered: refused in one line, nothing stored
        expect(refused).to_be_visible()
        expect(refused).to_contain_text("a curve needs at least 3")
        # place one more point, unhurried, and save again
        page.mouse.click(box["x"] + 120.0 / X_MAX * box["width"], box["y"] + (1 - 0.2) * box["height"])
        wait_for_idle(page)
        save.click()
        expect(stored).to_be_visible(timeout=30_000)
        gold = _gold(db)
    assert gold is not None
    assert (gold.xi, gold.omega, gold.alpha) != DEFAULT
    assert gold.segment_axes == [["main"]]
    expect(page.get_by_test_id("stException")).to_have_count(0)
