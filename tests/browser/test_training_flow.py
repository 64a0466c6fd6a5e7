"""A lead launches baseline training and watches it finish without touching the page — in Chromium.

The job's worker is a real process started by the app; the page's live view (an ``st.fragment``
that refreshes itself) must move from queued/running to "Succeeded" and bring up the results
table while the test only waits. The fast hashing encoder and two quick models keep it short.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.export import exports
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in
from tests.gold_data import gold_project

pytestmark = pytest.mark.browser


@pytest.fixture
def exported(tmp_path):
    url = f"sqlite:///{tmp_path / 'training.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    project_id = gold_project(db, admin, 45, "Gold")  # benchmark 1: 30 samples, test split 3
    exports.export_dataset(db, admin, project_id, tmp_path / "export", seed=4, include_agreement=False)
    yield url
    db.dispose()


def test_training_runs_in_the_background_and_the_page_follows_it(page, run_streamlit, exported, tmp_path):
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": exported,
                                        "CHRONOCEPT_RUNS_DIR": str(tmp_path / "runs")})
    sign_in(page, base, "admin", "admin-password")
    open_page(page, "Baseline training")

    # two quick models instead of the five defaults, and the hashing encoder
    models = page.get_by_role("combobox", name="Models")
    for label in ("SVR", "XGBoost", "Feed-forward network", "Bi-LSTM"):
        page.get_by_role("button", name=f"Remove {label}").click()
    models.click()
    page.get_by_role("option", name="Mean (reference)").click()
    page.keyboard.press("Escape")
    page.get_by_role("combobox", name="Text encoder").click()
    page.get_by_role("option", name="Hashing (fast, for trials)").click()
    page.get_by_role("button", name="Launch training").click()
    expect(page.get_by_text("Training job 1 launched.")).to_be_visible(timeout=30_000)

    # nothing is clicked from here on: the live view refreshes itself until the job is done
    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=120_000)
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Predicted against gold")).to_be_visible()
    page.screenshot(path=str(tmp_path / "training.png"), full_page=True)
