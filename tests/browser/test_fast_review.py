"""Used fast: a lead decides review cases and an annotator picks feedback rows the way a practised
person does — clicks and keys 100 ms apart, never waiting for the app in between — in Chromium.

In Streamlit an event that arrives while a rerun is in flight must not be lost: every outcome is
read from the database (or, for the read-only Feedback page, from what the page finally shows),
never from the page's say-so.

1. Review: three flagged samples. The lead accepts the pooled resolution of B1-0001 with
   confidence 2, "Guideline gap" and a typed note; then takes ann2's version of B1-0002 with
   confidence 5, "Annotator error" and a note, with a double-click on the take button. Each
   gold row and item holds exactly what was chosen and typed; the double-click decides once (one
   audit event), shows no error, and leaves B1-0003 open and undecided.
2. Feedback: three settled samples; ann1 clicks rows of the table 100 ms apart, and the page ends
   on the last row clicked — its heading, its lead's note and how it was settled, nothing of
   another row's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotation.services.accounts import accounts
from annotation.services.quality import feedback
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.review import review
from db.models import AuditEvent, ReviewItem
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, wait_until
from tests.browser.gates import held_calls
from tests.browser.test_adjudication_flow import open_review, seed

pytestmark = pytest.mark.browser

PACE_MS = 100      # between two actions of a practised person
TYPING_MS = 30     # between two keys
POOLED_NOTE = "Both curves are plausible; the guideline says nothing about signal faults."
TAKEN_NOTE = "The train and its delay are two clauses: split after “Leeds”, as ann2 did."


@pytest.fixture
def three_flagged(tmp_path):
    url, db, lead, rows = seed(tmp_path, 3)
    yield url, db, lead, rows
    db.dispose()


def radio(page, group: str, name: str):
    return page.get_by_role("radiogroup", name=group).get_by_role("radio", name=name, exact=True)


def decide_fast(page, decision: str, button: str, confidence: str, error_type: str, note: str,
                double: bool = False) -> None:
    """Choose ``decision``; once its button is there (one cannot click what is not drawn), the
    confidence, the error type, the typed note and the button, PACE_MS apart, no other wait."""
    # Streamlit draws a case in stages: the heading comes long before the decisions on a busy CPU
    choice = radio(page, "Decision", decision)
    expect(choice).to_be_visible(timeout=60_000)
    choice.click()
    do = page.get_by_role("button", name=button)
    expect(do).to_be_visible(timeout=60_000)
    radio(page, "Your confidence", confidence).click()
    page.wait_for_timeout(PACE_MS)
    radio(page, "Error type", error_type).click()
    page.wait_for_timeout(PACE_MS)
    box = page.get_by_role("textbox", name="Note")
    box.click()
    box.press_sequentially(note, delay=TYPING_MS)
    page.wait_for_timeout(PACE_MS)
    if double:
        do.dblclick()
    else:
        do.click()


def no_error_on(page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    alerts = page.locator('[data-testid="stAlertContentError"], [data-testid="stAlertContentInfo"]')
    assert alerts.count() == 0, alerts.all_inner_texts()


def assert_decided(db, lead, row, source: str, decision: str, confidence: int, error_type: str,
                   note: str) -> None:
    """The database holds exactly what the lead chose and typed for ``row``'s case."""
    gold = review.gold_of(db, lead, row.sample_id)
    assert (gold.source, gold.confidence, gold.error_type) == (source, confidence, error_type)
    with db.read() as s:
        item = s.get(ReviewItem, row.item_id)
        assert (item.status, item.decision, item.confidence, item.error_type, item.note) == (
            "closed", decision, confidence, error_type, note)


def test_a_lead_decides_cases_fast(page, run_streamlit, three_flagged):
    url, db, lead, (first, second, third) = three_flagged
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    open_review(page, base)
    expect(page.get_by_role("heading", name="Sample B1-0001")).to_be_visible(timeout=30_000)

    decide_fast(page, "Accept pooled", "Accept the pooled resolution", "2", "Guideline gap", POOLED_NOTE)
    expect(page.get_by_role("heading", name="Sample B1-0002")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    assert_decided(db, lead, first, "pooled", "accept_pooled", 2, "guideline_gap", POOLED_NOTE)
    # the next case starts from its own default decision, with nothing chosen for it: its annotators
    # share a boundary and agree on the axes, so Accept (not the Accept pooled chosen before)
    expect(radio(page, "Decision", "Accept")).to_be_checked()
    expect(page.get_by_role("button", name="Accept the automatic resolution of B1-0002")).to_be_visible()
    expect(page.get_by_role("radiogroup", name="Your confidence").get_by_role("radio", checked=True)).to_have_count(0)

    # the next case, the same way, with a double-click on the take button
    decide_fast(page, "Take a version", "Take ann2's version", "5", "Annotator error", TAKEN_NOTE, double=True)
    expect(page.get_by_role("heading", name="Sample B1-0003")).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    page.wait_for_timeout(500)  # a second decision, had the double-click made one, would be here by now
    wait_for_idle(page)
    assert_decided(db, lead, second, "annotator", "take_version", 5, "annotator_error", TAKEN_NOTE)
    with db.read() as s:
        decisions = s.scalars(select(AuditEvent.action).where(
            AuditEvent.entity == "sample", AuditEvent.action.startswith("review_"),
            AuditEvent.entity_id.in_([str(second.sample_id), str(third.sample_id)]))).all()
        assert decisions == ["review_take_version"]
        assert s.get(ReviewItem, third.item_id).status == "open"
        assert s.scalar(select(func.count()).select_from(AuditEvent).where(
            AuditEvent.action.startswith("review_"))) == 2
    no_error_on(page)


UNANSWERED = "The page changed under your click; nothing was done."


def test_a_decision_clicked_while_the_next_case_opens_is_said_to_do_nothing(page, run_streamlit, three_flagged,
                                                                             tmp_path):
    """Next, and while the page redraws (the server is held in the middle of that run, after the
    lead's request took effect) "Accept … B1-0001", still on screen, 100 ms later: the lead is
    told the click did nothing, and nothing is stored."""
    url, db, lead, rows = three_flagged
    gate = tmp_path / "open_case.gate"
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url, "CHRONOCEPT_TEST_GATES":
                                        f"annotation.services.review.review:open_case={gate}"},
                         preload="tests.browser.gates")
    open_review(page, base)
    expect(page.get_by_role("heading", name="Sample B1-0001")).to_be_visible(timeout=30_000)
    # it opens on Accept: the annotators share a boundary and agree on the axes
    expect(radio(page, "Decision", "Accept")).to_be_checked(timeout=60_000)
    accept = page.get_by_role("button", name="Accept the automatic resolution of B1-0001")
    expect(accept).to_be_visible(timeout=60_000)
    for group, choice in (("Your confidence", "3"), ("Error type", "Ambiguous text")):
        radio(page, group, choice).click()
    wait_for_idle(page)
    gate.touch()
    page.get_by_role("button", name="Next", exact=True).click()
    wait_until(lambda: held_calls(gate) >= 1, what="the server held in the middle of its run")
    page.wait_for_timeout(PACE_MS)
    accept.click()
    # its own run has started (and run its callbacks) when it is held too; then both go on
    wait_until(lambda: held_calls(gate) >= 2, what="the click reaching the server")
    gate.unlink()
    expect(page.get_by_text(UNANSWERED)).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(AuditEvent).where(
            AuditEvent.action.startswith("review_"))) == 0
        assert [s.get(ReviewItem, r.item_id).status for r in rows] == ["open"] * 3
    no_error_on(page)


# --- Feedback: rows chosen fast -------------------------------------------------------------------

@pytest.fixture
def three_settled(tmp_path):
    """ann1's three samples, each settled by the lead a different way with its own note; returns
    the url and, per row of ann1's Feedback table (newest gold first), the sample number, note
    and how it was settled."""
    url, db, lead, rows = seed(tmp_path, 3)
    how = (("take_version", "ann1"), ("take_version", "ann2"), ("accept_pooled", None))
    for row, (decision, whose) in zip(rows, how):
        case = review.open_case(db, lead, row.item_id)
        taken = next((v.annotation_id for v in case.versions if v.annotator == whose), None)
        review.decide(db, lead, row.item_id, decision, annotation_id=taken, confidence=4,
                      error_type="other", note=f"Lead's note on {row.external_id}.")
    ann1 = accounts.authenticate(db, "ann1", "ann1-password")
    project = projects.list_projects(db, ann1)[0]
    items = feedback.feedback_page(db, ann1, project.id).items
    numbers = queue.sample_numbers(db, ann1, project.id, [i.annotation_id for i in items])
    shown = [(f"#{numbers[i.annotation_id]}", i.lead_notes[-1].text, i.how_settled) for i in items]
    assert len({s for s in shown}) == 3 and len({s[2] for s in shown}) >= 2
    yield url, shown
    db.dispose()


def test_an_annotator_chooses_feedback_rows_fast(page, run_streamlit, three_settled):
    url, shown = three_settled
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, base, "ann1", "ann1-password")
    open_page(page, "Feedback")
    expect(page.get_by_role("heading", name=f"Sample {shown[0][0]}")).to_be_visible(timeout=30_000)
    table = page.locator('.st-key-feedback-table-1 [data-testid="stDataFrame"]')
    expect(table.locator('[data-testid="data-grid-canvas"]')).to_be_visible(timeout=30_000)
    wait_for_idle(page)  # the grid is a canvas: clicks go by position, the table must be in place
    box = table.bounding_box()
    main = page.locator('[data-testid="stMain"]')
    text = main.locator('[data-testid="stMarkdownContainer"]')  # not the grid's (virtual) cells

    for rows in ((2, 1, 0, 2, 1), (0, 2, 1, 0, 2, 0)):
        for i, r in enumerate(rows):
            if i:
                page.wait_for_timeout(PACE_MS)
            page.mouse.click(box["x"] + 18, box["y"] + 35 + 35 * r + 17)
        number, note, how = shown[rows[-1]]
        heading = main.get_by_role("heading", name=f"Sample {number}", exact=True)
        expect(heading).to_be_visible(timeout=30_000)
        page.wait_for_timeout(PACE_MS)
        wait_for_idle(page)
        # the last choice, whole: its heading, note and how it was settled, nothing of the others
        expect(main.get_by_role("heading", name="Sample #")).to_have_count(1)
        expect(heading).to_be_visible()
        expect(text.get_by_text(note, exact=True)).to_be_visible()
        expect(main.get_by_text(how, exact=False).first).to_be_visible()
        for other_number, other_note, _ in shown:
            if other_number != number:
                expect(text.get_by_text(other_note, exact=True)).to_have_count(0)
        expect(page.get_by_test_id("stException")).to_have_count(0)
