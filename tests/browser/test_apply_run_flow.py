"""A lead applies a finished training run to the project — in Chromium.

A gold project, its export and a finished quick training run (hashing encoder) are made before
the app starts. On the Training page the lead chooses the run, asks for a gold audit with two
members and three folds; the audit's worker is a real process started by the app and the page's
live view, below the run's controls (the Run box stays on the run), follows it to "Succeeded" and
says what it did. On Review the "Model disagrees" list is
there; the lead opens the first entry's case and its heading names the sample the list named.
Screenshots: ``screenshots/training_apply.png``, ``screenshots/review_model_disagrees.png``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.export import exports
from annotation.services.jobs import jobs
from db import config as app_config
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, whole_page_shot
from tests.gold_data import gold_project

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"
QUICK = {"models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}


@pytest.fixture
def trained(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'apply.db'}"
    runs = tmp_path / "runs"
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(runs))
    app_config.load()
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    pid = gold_project(db, admin, 90, "Gold", learnable=True)   # a model of the words beats the mean curve
    rec = exports.export_dataset(db, admin, pid, tmp_path / "export", seed=4, include_agreement=False)
    run = jobs.launch_training(db, admin, pid, rec.id, QUICK, start=False)
    assert jobs.run_job(db, run.id) == "succeeded"
    yield url, runs, run.id
    db.dispose()


def test_a_lead_audits_the_gold_with_a_run_and_opens_what_the_model_disagrees_with(page, run_streamlit, trained):
    url, runs, run_id = trained
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url, "CHRONOCEPT_RUNS_DIR": str(runs)})
    sign_in(page, base, "admin", "admin-password")
    open_page(page, "Baseline training")
    expect(page.get_by_text("Apply this run to the project", exact=False)).to_be_visible(timeout=30_000)
    page.get_by_role("spinbutton", name="Ensemble members").fill("2")
    page.get_by_role("spinbutton", name="Audit folds").fill("3")
    page.get_by_role("button", name="Audit the gold").click()
    # the page follows the job it launched below the run's controls; the Run box stays on the run,
    # so Predict every sample is still at hand
    expect(page.get_by_text(f"Gold audit with run {run_id}", exact=False).first).to_be_visible(timeout=30_000)
    expect(page.get_by_role("button", name="Predict every sample")).to_be_visible()
    # the live view follows the worker process to the end; nothing is clicked meanwhile
    expect(page.get_by_text(re.compile(r"Audited \d+ gold samples in 3 folds with 2 members")).first
           ).to_be_visible(timeout=180_000)
    expect(page.get_by_text("The most suspicious are on the Review page", exact=False)).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    whole_page_shot(page, SHOTS / "training_apply.png")
    expect(page.get_by_test_id("stException")).to_have_count(0)

    open_page(page, "Review")
    header = page.get_by_text(re.compile(r"Model disagrees · 10 gold samples of \d+ audited"))
    header.click()
    first = page.get_by_text(re.compile(r"^1\. G-\d{3} · W1")).first
    expect(first).to_be_visible(timeout=30_000)
    named = re.match(r"1\. (G-\d{3})", first.inner_text()).group(1)
    page.get_by_role("button", name=re.compile("Open its (open )?review case")).first.click()
    expect(page.get_by_role("heading", name=f"Sample {named}")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    whole_page_shot(page, SHOTS / "review_model_disagrees.png")
    expect(page.get_by_test_id("stException")).to_have_count(0)
