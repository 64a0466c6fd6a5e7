"""A lead works through Review's "Model disagrees" list — in Chromium.

The database holds a gold project (``tests.gold_data``) and a finished gold audit whose rows are
written directly (the audit's computation is the training domain's, tested on its own): G-002 is
the most suspicious, then G-005, G-000, G-007. The lead opens the list, then clicks the entries'
"Open its review case" buttons one after another at 100 ms intervals (the fast-use rule for a
control that chooses what an action applies to): every sample clicked gets its review case, and
the case on screen is the last one clicked, named in its heading. Screenshot:
``screenshots/model_disagrees.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.services.accounts import accounts
from db.engine import Database
from db.models import Job, ModelPrediction, ReviewItem, Sample, utcnow
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, whole_page_shot
from tests.gold_data import gold_project
from tests.model_results import kept

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SHOTS = REPO_ROOT / "screenshots"
SCORES = {"G-002": 9.5, "G-005": 7.25, "G-000": 4.0, "G-007": 2.5, "G-001": 0.5}


@pytest.fixture
def seeded(tmp_path):
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    pid = gold_project(db, lead, 8, "Gold")
    with db.write() as s:
        ids = dict(s.execute(select(Sample.external_id, Sample.id).where(Sample.project_id == pid)).all())
        job = Job(project_id=pid, kind="audit", config={"run_job_id": 1, "members": 5, "folds": 5},
                  status="succeeded", finished_at=utcnow(), result=kept("beats", len(SCORES)))
        s.add(job)
        s.flush()
        for ext, score in SCORES.items():
            s.add(ModelPrediction(job_id=job.id, sample_id=ids[ext], xi=70.0, omega=9.0, alpha=1.5,
                                  spread_w1=1.0, half_gone_minutes=900.0, half_gone_low=400.0,
                                  half_gone_high=2000.0, gold_w1=score, score=score))
        job_id = job.id
    yield url, ids, job_id
    db.dispose()


def test_a_lead_opens_model_disagrees_cases_fast(page, run_streamlit, seeded):
    url, ids, job_id = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Review")
    page.get_by_text("Model disagrees · 5 gold samples of 5 audited", exact=False).click()
    entries = [page.get_by_text(f"{rank}. {ext}", exact=False) for rank, ext in enumerate(SCORES, 1)]
    for entry in entries:
        expect(entry.first).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    whole_page_shot(page, SHOTS / "model_disagrees.png")
    expect(page.get_by_test_id("stException")).to_have_count(0)

    clicked = ["G-005", "G-000", "G-002"]
    for ext in clicked:
        page.locator(f".st-key-review-model-open-{job_id}-{ids[ext]} button").click(timeout=15_000)
        page.wait_for_timeout(100)
    # the case on screen is the last one clicked, and each clicked sample has its review case
    expect(page.get_by_role("heading", name="Sample G-002")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    with _db(url) as db, db.read() as s:
        opened = {ext for ext, reasons in s.execute(
            select(Sample.external_id, ReviewItem.reasons).join(ReviewItem, ReviewItem.sample_id == Sample.id)
            .where(ReviewItem.status == "open")).all() if "model_disagrees" in reasons}
    assert opened == set(clicked)  # each clicked sample, and no other
    expect(page.get_by_test_id("stException")).to_have_count(0)


class _db:
    """A short-lived connection to the test's database (closed on leaving the block)."""

    def __init__(self, url: str):
        self.db = Database.connect(url)

    def __enter__(self) -> Database:
        return self.db

    def __exit__(self, *exc) -> None:
        self.db.dispose()
