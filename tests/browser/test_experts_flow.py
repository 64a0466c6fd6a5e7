"""A lead opens Annotators on a project with seeds and reads "Annotators as experts" — the
calibration–information chart and the table with each annotator's seeds, figures and the rule —
in Chromium. Screenshots in the test's tmp dir: ``experts-chart.png``, ``experts-table.png`` and
``annotators.png`` (the whole page)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, whole_page_shot
from tests.gold_data import expert_project

pytestmark = pytest.mark.browser


@pytest.fixture
def seeded(tmp_path):
    """12 texts with a known outcome: ann_centred and ann_late annotate all 12 (ann_late's curves
    sit 25 log-time units late), ann_new five."""
    url = f"sqlite:///{tmp_path / 'experts.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    expert_project(db, accounts.authenticate(db, "lead1", "lead1-password"))
    yield url
    db.dispose()


def test_lead_reads_the_annotators_as_experts(page, run_streamlit, seeded, tmp_path):
    page.set_viewport_size({"width": 1440, "height": 900})
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": seeded})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Annotators")
    main = page.get_by_test_id("stMain")
    heading = main.get_by_role("heading", name="Annotators as experts")
    expect(heading).to_be_visible(timeout=30_000)
    expect(main.get_by_text("12 seed items, 12 with a known outcome", exact=False)).to_be_visible()
    expect(main.get_by_text("calibration against the panel, not against what happened", exact=False)).to_be_visible()
    chart = main.get_by_test_id("stPlotlyChart").last
    expect(chart.get_by_text("rejected below (5 %)")).to_be_visible(timeout=30_000)
    expect(chart.get_by_text("ann_centred")).to_be_visible()
    expect(chart.get_by_text("ann_late (calibration < 1e-6)")).to_be_visible()
    expect(chart.get_by_text("ann_new")).to_have_count(0)  # under 10 seeds: not drawn
    table = main.get_by_test_id("stDataFrame").last
    expect(table).to_be_visible()
    wait_for_idle(page)
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(tmp_path / "experts-chart.png"))
    table.screenshot(path=str(tmp_path / "experts-table.png"))
    whole_page_shot(page, tmp_path / "annotators.png")
    # the grid draws on a canvas; its accessible copy of the cells carries the text
    for text in ("ann_centred", "ann_new", "12 (12)", "5 (5)", "— needs ≥ 10 seeds (n = 5)"):
        expect(table).to_contain_text(text)
    expect(page.get_by_test_id("stException")).to_have_count(0)
