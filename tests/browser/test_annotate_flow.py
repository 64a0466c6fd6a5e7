"""A person annotates one sample end to end in Chromium, and the database holds exactly that.

They sign in, segment the text by clicking between words, label both segments, place three
points on the curve chart, see the fitted curve, and submit. A second test opens the same
draft in two tabs and checks that the older tab cannot overwrite the newer work.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.curves import fit_curve
from annotation.segmentation import token_texts
from annotation.services import accounts, projects
from db.engine import Database
from tests.browser.flow_steps import sign_in, wait_until
from db.models import Annotation, Sample

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SHOTS = REPO_ROOT / "screenshots"
EDITOR = '[data-testid="token-boundaries"][data-disabled="false"]'
PLOT = '[data-testid="curve-plot"]'
X_MAX = 200.0


@pytest.fixture
def seeded(tmp_path):
    """A SQLite database with an admin, annotator 'ann1' and the demo project."""
    url = f"sqlite:///{tmp_path / 'e2e.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "ann1", "ann1-password", "annotator")
    project = projects.load_demo_project(db, admin)
    yield url, db, project
    db.dispose()


def open_workbench(page) -> None:
    page.get_by_role("button", name="Start the next sample").click()
    expect(page.get_by_role("heading", name="Sample B1-0001")).to_be_visible(timeout=30_000)
    page.locator(f"{EDITOR} [data-gap='1']").wait_for()


def stored(db: Database, username: str = "ann1") -> list[Annotation]:
    with db.read() as s:
        return list(s.scalars(select(Annotation).join(Sample).order_by(Annotation.id)))


def click_chart(page, x: float, y: float) -> None:
    box = page.locator(PLOT).bounding_box()
    page.mouse.click(box["x"] + x / X_MAX * box["width"], box["y"] + (1 - y) * box["height"])


def test_annotator_segments_labels_draws_and_submits(page, run_streamlit, seeded):
    url, db, project = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "ann1", "ann1-password")
    open_workbench(page)

    with db.read() as s:
        sample = s.scalar(select(Sample).where(Sample.external_id == "B1-0001"))
    tokens = token_texts(sample.parent_text)
    split = tokens.index("because")  # "… delayed by ten minutes | because of a signal fault …"

    # Step 1: one click between two words makes two segments; the draft is saved at once.
    page.locator(f"{EDITOR} [data-gap='{split}']").click()
    wait_until(lambda: stored(db) and stored(db)[0].boundaries == [0, split], what="boundary saved")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "e2e-step1.png"), full_page=True)

    # Step 2 via the keyboard shortcut Alt+→.
    page.keyboard.press("Alt+ArrowRight")
    expect(page.get_by_role("radiogroup", name="Axis of segment 2")).to_be_visible(timeout=20_000)
    page.get_by_role("radiogroup", name="Axis of segment 1").get_by_role("radio", name="Main").click()
    wait_until(lambda: stored(db)[0].segment_axes == ["main", None], what="first axis saved")
    page.get_by_role("radiogroup", name="Axis of segment 2").get_by_role("radio", name="Static").click()
    wait_until(lambda: stored(db)[0].segment_axes == ["main", "static"], what="second axis saved")
    page.screenshot(path=str(SHOTS / "e2e-step2.png"), full_page=True)

    # Step 3: three clicks on the chart, the fitted curve and its summary appear.
    page.get_by_role("button", name="3. Validity curve").click()
    page.locator(PLOT).wait_for(timeout=20_000)
    for i, (x, y) in enumerate([(40.0, 0.5), (58.0, 1.0), (85.0, 0.3)], start=1):
        click_chart(page, x, y)
        wait_until(lambda n=i: len(stored(db)[0].points) == n, what=f"point {i} saved")
    expect(page.get_by_text("Peaks after", exact=False)).to_be_visible(timeout=20_000)
    page.screenshot(path=str(SHOTS / "e2e-step3.png"), full_page=True)

    page.get_by_role("button", name="Submit").last.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible(timeout=20_000)
    dialog.get_by_role("button", name="Submit").click()
    wait_until(lambda: stored(db)[0].status == "submitted", what="submission")
    # the workbench moves on to the next sample
    expect(page.get_by_role("heading", name="Sample B1-0002")).to_be_visible(timeout=30_000)

    rows = [a for a in stored(db) if a.status == "submitted"]
    assert len(rows) == 1
    a = rows[0]
    assert a.boundaries == [0, split]
    assert a.segment_axes == ["main", "static"]
    assert len(a.points) == 3
    for (x, y), (ex, ey) in zip(a.points, [(40.0, 0.5), (58.0, 1.0), (85.0, 0.3)]):
        assert abs(x - ex) < 1.0 and abs(y - ey) < 0.02
    expected = fit_curve(a.points)
    assert a.xi == pytest.approx(expected.xi, rel=1e-6)
    assert a.omega == pytest.approx(expected.omega, rel=1e-6)
    assert a.alpha == pytest.approx(expected.alpha, rel=1e-6, abs=1e-9)
    assert a.submitted_at is not None and a.seconds_spent > 0
    assert a.guidelines_version == "1.0"


def test_an_older_tab_cannot_overwrite_newer_work(chromium_browser, run_streamlit, seeded):
    url, db, _ = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    tabs = []
    for _ in range(2):
        context = chromium_browser.new_context(viewport={"width": 1100, "height": 1200})
        context.set_default_timeout(15_000)
        tabs.append(context.new_page())
    first, second = tabs
    try:
        sign_in(first, base, "ann1", "ann1-password")
        open_workbench(first)
        sign_in(second, base, "ann1", "ann1-password")
        second.get_by_role("button", name="Continue where I left off").click()
        second.locator(f"{EDITOR} [data-gap='1']").wait_for(timeout=30_000)

        first.locator(f"{EDITOR} [data-gap='3']").click()
        wait_until(lambda: stored(db)[0].boundaries == [0, 3], what="first tab's save")
        second.locator(f"{EDITOR} [data-gap='5']").click()
        expect(second.get_by_text("saved from another tab", exact=False)).to_be_visible(timeout=20_000)
        assert stored(db)[0].boundaries == [0, 3]  # the newer work stands

        second.get_by_role("button", name="Load the newer version").click()
        expect(second.get_by_text("2 segments")).to_be_visible(timeout=20_000)
    finally:
        for tab in tabs:
            tab.context.close()
