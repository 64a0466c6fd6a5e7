"""A third annotator where it pays — in Chromium.

The demo project has the third-annotator setting on. ann1 and ann2 annotate B1-0001 with curves
far apart (through the services): no review item opens, the sample waits for one more
annotator. ann3 signs in, opens Annotate and gets that sample — its text on the workbench, a
fresh draft of their own. ann1 asking for work never gets it back. Then ann3's answer decides:
when it agrees with one of the two the sample settles into gold and Review stays empty; when it
disagrees with both the lead's Review shows the case with all three annotators' versions.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

import workbench_writes
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.review import review
from annotation.content import AnnotationContent
from db.models import Annotation, Sample
from tests.browser.flow_steps import (
    BECAUSE, FAR_POINTS, POINTS, demo_team, open_annotate, sign_in, wait_for_idle, wait_until,
)

pytestmark = pytest.mark.browser

#: A curve far from both POINTS and FAR_POINTS (≈ 60 log-time units later than POINTS).
FARTHEST = tuple((x + 60.0, y) for x, y in POINTS)
SPLIT = dict(boundaries=(0, BECAUSE), segment_axes=("main", "static"))


@pytest.fixture
def escalated(tmp_path):
    """B1-0001 annotated by ann1 and ann2 far apart, the setting on: handed to a third."""
    url = f"sqlite:///{tmp_path / 'third.db'}"
    db, lead, project, users = demo_team(url, ("ann1", "ann2", "ann3"))
    projects.update_settings(db, lead, project.id, third_annotator=True)
    for name, points in (("ann1", POINTS), ("ann2", FAR_POINTS)):
        item = queue.next_item(db, users[name], project.id)
        assert item.external_id == "B1-0001"
        workbench_writes.submit(db, users[name], item.annotation_id, item.version,
                                AnnotationContent(points=points, **SPLIT))
    assert review.review_queue(db, lead, project.id) == []
    with db.read() as s:
        smp = s.scalars(select(Sample).where(Sample.project_id == project.id,
                                             Sample.external_id == "B1-0001")).one()
        assert smp.extra_annotators == 1
    yield url, db, lead, project, users, smp.id
    db.dispose()


def third_annotates(page, base, db, users, project, sample_id):
    """ann3 signs in and opens Annotate: the workbench shows B1-0001, their own draft."""
    sign_in(page, base, "ann3", "ann3-password")
    open_annotate(page)
    # B1-0001's words on the surface (each word is one token there)
    for word in ("Leeds", "Wakefield"):
        expect(page.locator('[data-testid="surface"]').get_by_text(word, exact=True).first).to_be_visible(
            timeout=30_000)
    draft = wait_until(lambda: db.run_read(lambda s: s.scalars(
        select(Annotation).where(Annotation.annotator_id == users["ann3"].user_id)).first()),
        what="ann3's draft")
    assert draft.sample_id == sample_id and draft.status == "draft" and not draft.points
    # the first two are never handed it again: ann1's next sample is another text
    assert queue.next_item(db, users["ann1"], project.id).sample_id != sample_id
    return draft


def open_review(page, base):
    page.context.clear_cookies()
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, base, "lead1", "lead1-password")
    page.get_by_role("link", name="Review").click()


def test_a_third_annotator_settles_what_two_disagreed_on(page, run_streamlit, escalated):
    url, db, lead, project, users, sample_id = escalated
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    draft = third_annotates(page, base, db, users, project, sample_id)
    workbench_writes.submit(db, users["ann3"], draft.id, draft.version,
                            AnnotationContent(points=tuple((x + 1.0, y) for x, y in POINTS), **SPLIT))
    gold = review.gold_of(db, lead, sample_id)
    assert gold is not None and gold.source == "auto"
    open_review(page, base)
    expect(page.get_by_text("Nothing to review in this project right now.")).to_be_visible(timeout=30_000)


def test_three_who_disagree_reach_the_lead_with_three_versions(page, run_streamlit, escalated):
    url, db, lead, project, users, sample_id = escalated
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    draft = third_annotates(page, base, db, users, project, sample_id)
    workbench_writes.submit(db, users["ann3"], draft.id, draft.version,
                            AnnotationContent(points=FARTHEST, **SPLIT))
    assert review.gold_of(db, lead, sample_id) is None
    open_review(page, base)
    expect(page.get_by_role("heading", name="Sample B1-0001")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("3 annotations", exact=False).first).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Curves far apart", exact=False).first).to_be_visible()
    wait_for_idle(page)
    page.get_by_role("radiogroup", name="Decision").get_by_role("radio", name="Take a version").click()
    for name in ("ann1", "ann2", "ann3"):
        expect(page.get_by_role("button", name=f"Take {name}'s version of B1-0001")).to_be_visible(timeout=30_000)
