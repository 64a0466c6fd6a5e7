"""Review's case controls used fast, in Chromium (issue 22, item 1).

A lead who chose B1-0009 in the Case box and pressed "Send back" sent back B1-0008: the box did
nothing (the queue table's selection callback put the old case back in the same rerun), and the
decision buttons did not say which case they decide. Here every control that selects a case —
the Case box (mouse and keyboard), a table row, Previous / Next, a ``?case=`` link — is used at
100 ms intervals, no wait in between; the page then shows the case the last control named, and
a decision made with the button that names that case lands on it and on no other.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from annotation.services.review import review
from tests.browser.flow_steps import wait_for_idle
from tests.browser.test_adjudication_flow import open_review, seed

pytestmark = pytest.mark.browser

PACE_MS = 100
ROW_HEIGHT = 35
SHOTS = Path(__file__).resolve().parents[2] / "screenshots"


@pytest.fixture
def five_flagged(tmp_path):
    url, db, lead, rows = seed(tmp_path, 5)
    yield url, db, lead, rows
    db.dispose()


def heading(page, external_id: str):
    return page.get_by_role("heading", name=f"Sample {external_id}", exact=True)


def choose_in_box(page, external_id: str) -> None:
    """Open the Case box and click the option; if the list closed before the option could be
    clicked, open it again, as a person would. A rerun still in flight from the controls pressed
    just before sets the box to the case it opens, which closes an open list (seen beside busy
    loops: the option kept being detached until Playwright's 15 s ran out). A click that landed
    is never repeated: only a click Playwright could not make is tried again."""
    for attempt in range(6):
        page.get_by_role("combobox", name="Case").click()
        try:
            page.get_by_role("option", name=external_id, exact=False).first.click(timeout=5_000)
            return
        except PlaywrightTimeout:
            if attempt == 5:
                raise


def choose_by_keys(page, external_id: str) -> None:
    box = page.get_by_role("combobox", name="Case")
    box.click()
    box.press_sequentially(external_id, delay=20)
    box.press("Enter")


def click_row(page, index: int) -> None:
    """The selection box of the queue table's row ``index`` (the grid is a canvas: by position)."""
    table = page.locator('.st-key-review-table [data-testid="stDataFrame"]')
    box = table.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT + index * ROW_HEIGHT + 17)


def step(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def decide_send_back(page, external_id: str, note: str) -> None:
    """Send the shown case back with the button that names it (PACE_MS between actions)."""
    page.get_by_role("radiogroup", name="Decision").get_by_role("radio", name="Send back").click()
    button = page.get_by_role("button", name=f"Send {external_id} back to the annotators")
    expect(button).to_be_visible(timeout=60_000)
    for group, choice in (("Your confidence", "3"), ("Error type", "Annotator error")):
        page.get_by_role("radiogroup", name=group).get_by_role("radio", name=choice, exact=True).click()
        page.wait_for_timeout(PACE_MS)
    page.get_by_role("textbox", name="Note").fill(note)
    page.wait_for_timeout(PACE_MS)
    button.click()


def open_ids(db, lead, project_id) -> list[str]:
    return [r.external_id for r in review.review_queue(db, lead, project_id)]


def test_every_case_control_used_fast_opens_its_case_and_the_decision_lands_there(page, run_streamlit, five_flagged):
    url, db, lead, rows = five_flagged
    pid = _project_of(db, rows[0].sample_id)
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    open_review(page, base)
    expect(heading(page, "B1-0001")).to_be_visible(timeout=30_000)
    expect(page.locator('.st-key-review-table [data-testid="data-grid-canvas"]')).to_be_visible(timeout=30_000)
    expect(page.get_by_role("combobox", name="Case")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    # at a lead's 1400 px, Previous and Next read whole (in a twelfth of the row each: "‹ P…")
    for name in ("Previous", "Next"):
        label = page.get_by_role("button", name=name, exact=True).locator('[data-testid="stMarkdownContainer"]')
        assert label.inner_text() == name
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{name} is cut"
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "review_case_controls.png"))

    # 1. the box alone (the defect): the case it names opens
    choose_in_box(page, "B1-0004")
    expect(heading(page, "B1-0004")).to_be_visible(timeout=30_000)
    wait_for_idle(page)

    # 2. every control, 100 ms apart, no wait for the page in between
    click_row(page, 1)                   # B1-0002
    page.wait_for_timeout(PACE_MS)
    step(page, "Next")                   # B1-0003, if the row click was seen first; else B1-0005
    page.wait_for_timeout(PACE_MS)
    choose_by_keys(page, "B1-0005")
    page.wait_for_timeout(PACE_MS)
    step(page, "Previous")
    page.wait_for_timeout(PACE_MS)
    choose_in_box(page, "B1-0003")       # the last control names B1-0003
    expect(heading(page, "B1-0003")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    expect(page.get_by_role("combobox", name="Case")).to_have_value(re.compile(r"^B1-0003 — "))
    decide_send_back(page, "B1-0003", "Read the cause clause again.")
    expect(page.get_by_text("B1-0003: sent back to the annotators")).to_be_visible(timeout=30_000)
    assert open_ids(db, lead, pid) == ["B1-0001", "B1-0002", "B1-0004", "B1-0005"]

    # 3. Next then the decision at once: the decision button names the case it decides, so the
    # click lands on what the lead saw named — never on a neighbour
    wait_for_idle(page)
    shown = page.get_by_role("heading", name="Sample B1-", exact=False).first.inner_text().split()[-1]
    step(page, "Next")
    page.wait_for_timeout(PACE_MS)
    expect(page.get_by_role("heading", name="Sample B1-", exact=False).first).not_to_have_text(
        f"Sample {shown}", timeout=30_000)
    wait_for_idle(page)
    now = page.get_by_role("heading", name="Sample B1-", exact=False).first.inner_text().split()[-1]
    decide_send_back(page, now, "And this one.")
    expect(page.get_by_text(f"{now}: sent back to the annotators")).to_be_visible(timeout=30_000)
    left = open_ids(db, lead, pid)
    assert now not in left and "B1-0003" not in left and len(left) == 3

    # 4. a link to a case opens it
    target = left[-1]
    page.goto(f"{base}/review?case={target}")
    expect(heading(page, target)).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    assert f"case={target}" in page.url
    expect(page.get_by_test_id("stException")).to_have_count(0)


def _project_of(db, sample_id: int) -> int:
    from db.models import Sample

    with db.read() as s:
        return s.get(Sample, sample_id).project_id
