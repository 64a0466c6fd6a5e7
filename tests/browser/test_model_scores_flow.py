"""A lead scores a model built elsewhere on the Training page and finds it on the export's
leaderboard beside the baselines of a training run — in Chromium."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services.accounts import accounts
from annotation.services.export import exports
from annotation.services.jobs import jobs
from db import config as app_config
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle
from tests.gold_data import gold_project

pytestmark = pytest.mark.browser

NAME = "Our model <i>v2</i> *"   # HTML and Markdown: shown as typed


@pytest.fixture
def trained(tmp_path, monkeypatch):
    """A lead, an export of 45 gold texts (benchmark 1: test split 3) and a finished training job."""
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()
    url = f"sqlite:///{tmp_path / 'scores.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    project_id = gold_project(db, lead, 45, "Gold")
    export = exports.export_dataset(db, lead, project_id, tmp_path / "export", seed=4, include_agreement=False)
    job = jobs.launch_training(db, lead, project_id, export.id, {
        "models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}, start=False)
    assert jobs.run_job(db, job.id) == "succeeded"
    yield url, export.id, tmp_path / "export"
    db.dispose()


def _predictions(folder: Path) -> bytes:
    rows = [json.loads(line) for line in (folder / "benchmark_1" / "test.json").read_text().splitlines()]
    lines = ["_id,xi,omega,alpha"] + [
        f"{r['_id']},{r['target_values']['location'] + 0.5},{r['target_values']['scale']},"
        f"{r['target_values']['skewness']}" for r in rows]
    return ("\n".join(lines) + "\n").encode()


def test_a_lead_scores_predictions_and_sees_them_on_the_leaderboard(page, run_streamlit, trained, tmp_path):
    url, _, folder = trained
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url,
                                        "CHRONOCEPT_RUNS_DIR": str(tmp_path / "runs")})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Baseline training")
    expect(page.get_by_role("heading", name="Score predictions")).to_be_visible(timeout=30_000)
    # the grid is a canvas: what it shows is read from its CSV download below
    board = page.get_by_test_id("stDataFrame").last   # the run's results, then the leaderboard
    expect(page.get_by_role("button", name="Download the leaderboard (CSV)")).to_be_visible(timeout=30_000)
    expect(board).to_be_visible()   # the baselines are there before any upload

    page.get_by_role("textbox", name="Name of the model").fill(NAME)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": "ours.csv", "mimeType": "text/csv", "buffer": _predictions(folder)})
    expect(page.get_by_text("ours.csv")).to_be_visible(timeout=20_000)
    page.get_by_role("button", name="Score", exact=True).click()
    expect(page.get_by_text(f"Scored “{NAME}” on 3 test samples: MSE ", exact=False)).to_be_visible(timeout=60_000)
    wait_for_idle(page)
    expect(board).to_be_visible()
    page.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)

    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download the leaderboard (CSV)").click()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    assert [(r["model"], r["kind"], r["by"]) for r in rows][0] == (NAME, "submitted", "lead1")
    # the run's models and the split's trivial references (issue 33), each with W1, unranked on 3 samples
    assert sorted(r["model"] for r in rows[1:]) == ["Linear regression (job 1)", "Mean (reference) (job 1)",
                                                   "Reference: per-axis mean", "Reference: training mean curve"]
    assert rows[0]["Mean W1"].startswith("0.5") and all(r["Mean W1"] != "—" for r in rows)
    assert {r["rank"] for r in rows} == {"—"}
    assert len(list((folder / "scores").glob("*.json"))) == 1
    expect(page.get_by_test_id("stException")).to_have_count(0)
