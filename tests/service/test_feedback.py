"""Feedback to annotators: their settled production work against gold, blind to the other
annotator (SQLite + PostgreSQL)."""

from __future__ import annotations

import math

import pytest
from sqlalchemy import select

from annotation.review.lead_edit import LeadEdit
from annotation.services.accounts import accounts
from annotation.services.quality import feedback, qualification
from annotation.services.workbench import queue
from annotation.services.review import review, warmup_set
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from db.models import Annotation, Sample
from service_helpers import GOOD_POINTS, annotate, complete_content
import workbench_writes

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
MINE = dict(boundaries=(0, 4), segment_axes=("static", "main"))
# The other annotator's distinctive work: another split, other axes, a far curve, a note.
THEIRS = dict(boundaries=(0, 9), segment_axes=("opinion", "negation"),
              points=tuple((x + 37.3, y) for x, y in GOOD_POINTS), note="zq-other-annotators-note")
OTHER_NAME = "zq_other"


@pytest.fixture
def people(make_user):
    return make_user("ann"), make_user(OTHER_NAME)


def other_values(db, other) -> list[str]:
    """Text forms of everything distinctive of the other annotator's annotations (those that
    differ from mine: S-001 and S-002)."""
    with db.read() as s:
        rows = list(s.scalars(select(Annotation).where(Annotation.annotator_id == other.user_id)))
    rows = [a for a in rows if a.boundaries == list(THEIRS["boundaries"])]
    assert len(rows) == 2
    values = [OTHER_NAME, "zq-other-annotators-note"]
    for a in rows:
        values += [repr(a.xi), repr(a.omega), repr(a.alpha), repr(a.scale), repr(a.rmse), f"annotation_id={a.id}"]
    return values


def everything(page, trend) -> str:
    return repr(page) + repr(trend)


def test_own_feedback_newest_first_blind_to_the_other_with_the_leads_note(db, people, make_project, lead):
    pid = make_project(3)
    me, other = people
    annotate(db, me, pid, **MINE)            # S-000: both agree → automatic gold
    annotate(db, other, pid, **MINE)
    annotate(db, me, pid, **MINE)            # S-001: the lead takes the other's version
    annotate(db, other, pid, **THEIRS)
    annotate(db, me, pid, **MINE)            # S-002: the lead edits the gold
    annotate(db, other, pid, **THEIRS)
    items = {r.external_id: r for r in review.review_queue(db, lead, pid)}
    assert set(items) == {"S-001", "S-002"}
    case = review.open_case(db, lead, items["S-001"].item_id)
    theirs = next(v for v in case.versions if v.annotator == OTHER_NAME)
    review.decide(db, lead, items["S-001"].item_id, "take_version", annotation_id=theirs.annotation_id,
                  note="Read the *second* clause <b>again</b>", confidence=4, error_type="annotator_error")
    edit = LeadEdit(14, (0, 4, 9), (("static",), ("main",), ("opinion",)), 40.0, 9.0, 0.5)
    review.decide(db, lead, items["S-002"].item_id, "edit", edit=edit, note="", confidence=3,
                  error_type="ambiguous_text")

    page = feedback.feedback_page(db, me, pid)
    trend = feedback.feedback_trend(db, me, pid)
    assert [i.external_id for i in page.items] == ["S-002", "S-001", "S-000"]  # newest gold first
    assert page.total == 3 and page.n_pages == 1 and page.first == 1
    edited, taken, auto = page.items

    # the automatic gold equals my version
    assert auto.score.w1 == pytest.approx(0.0, abs=1e-9) and auto.score.jaccard == 1.0 and auto.score.pk == 0.0
    assert auto.difference.identical and auto.curve_words == "your curve and the gold curve coincide"
    assert auto.how_settled.startswith("Settled automatically") and auto.lead_notes == ()
    assert auto.mine.boundaries == (0, 4) and auto.mine.segment_axes == ("static", "main")

    # the taken gold is shown as the gold, never as the other's version; the note as written
    assert taken.how_settled == "A lead chose the gold"
    assert [n.text for n in taken.lead_notes] == ["Read the *second* clause <b>again</b>"]
    assert taken.gold.boundaries == (0, 9)
    assert taken.difference.only_mine == (4,) and taken.difference.only_gold == (9,)
    assert taken.score.w1 > 30 and "later than yours" in taken.curve_words

    # the edited gold: one boundary more than mine, another axis on the last segment (one per
    # segment: a gold segment with two axes is shown too, see tests/unit/test_gold_feedback.py)
    assert edited.gold.segment_axes == (("static",), ("main",), ("opinion",))
    assert edited.difference.only_gold == (9,) and edited.difference.shared == (4,)
    assert [(d.start, d.end, d.mine, d.gold) for d in edited.difference.axes] == [(9, 14, "main", ("opinion",))]
    assert edited.how_settled == "A lead set the gold by hand" and edited.lead_notes == ()

    # blindness: nothing distinctive of the other annotator anywhere — the gold excepted (the
    # taken gold holds their boundaries and curve, so the curve values are checked without it)
    shown = everything(page, trend)
    for value in (OTHER_NAME, "zq-other-annotators-note"):
        assert value not in shown
    assert "negation" in repr(taken.gold) and "negation" not in repr([edited, auto, trend])
    theirs_values = other_values(db, other)
    without_taken_gold = repr([edited, auto]) + repr([taken.mine, taken.lead_notes, taken.difference,
                                                     taken.how_settled, taken.my_note]) + repr(trend)
    for value in theirs_values:
        assert value not in without_taken_gold, value
    with db.read() as s:
        other_ids = set(s.scalars(select(Annotation.id).where(Annotation.annotator_id == other.user_id)))
    assert not {i.annotation_id for i in page.items} & other_ids

    # the trend: all three this week, means over the three samples
    assert trend.n_samples == 3 and len(trend.weeks) == 1 and trend.weeks[0].n == 3
    assert trend.overall.jaccard == pytest.approx((1.0 + taken.score.jaccard + edited.score.jaccard) / 3)
    assert trend.w1_max == 12.0 and trend.jaccard_min == 0.75 and trend.pk_max == 0.15

    # the other annotator sees their own feedback, and not mine
    theirs_page = feedback.feedback_page(db, other, pid)
    assert [i.external_id for i in theirs_page.items] == ["S-002", "S-001", "S-000"]
    assert theirs_page.items[1].how_settled == "A lead took your version as the gold"
    assert "'ann'" not in repr(theirs_page)
    assert {i.annotation_id for i in theirs_page.items} == other_ids


def test_pages_of_feedback(db, people, make_project):
    pid = make_project(5)
    me, other = people
    for _ in range(5):
        annotate(db, me, pid, **MINE)
        annotate(db, other, pid, **MINE)
    first = feedback.feedback_page(db, me, pid, page=1, per_page=2)
    second = feedback.feedback_page(db, me, pid, page=2, per_page=2)
    last = feedback.feedback_page(db, me, pid, page=9, per_page=2)  # past the end: the last page
    assert (first.total, first.n_pages) == (5, 3)
    assert [i.external_id for i in first.items] == ["S-004", "S-003"]
    assert [i.external_id for i in second.items] == ["S-002", "S-001"] and second.first == 3
    assert last.page == 3 and [i.external_id for i in last.items] == ["S-000"]
    with pytest.raises(InvalidInput):
        feedback.feedback_page(db, me, pid, page=0)
    with pytest.raises(InvalidInput):
        feedback.feedback_page(db, me, pid, per_page=0)


def test_unsettled_drafts_and_other_projects_are_left_out(db, people, make_project):
    pid = make_project(2)
    elsewhere = make_project(1)
    me, other = people
    annotate(db, me, pid, **MINE)           # S-000: the other has not submitted: no gold yet
    queue.next_item(db, me, pid)            # S-001: my draft
    annotate(db, me, elsewhere, **MINE)
    annotate(db, other, elsewhere, **MINE)  # gold in the other project
    assert feedback.feedback_page(db, me, pid).items == ()
    assert feedback.feedback_trend(db, me, pid).n_samples == 0
    assert feedback.feedback_page(db, me, elsewhere).total == 1
    with pytest.raises(NotFound):
        feedback.feedback_page(db, me, 999)


def test_warmup_samples_are_left_out(db, people, make_project, lead):
    pid = make_project(3)
    me, other = people
    warmup_set.mark_warmup(db, lead, pid, ["S-000"])
    with db.read() as s:
        sid = s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == "S-000"))
    warmup_set.set_warmup_gold(db, lead, sid, boundaries=(0, 4), segment_axes=("static", "main"),
                               xi=30.0, omega=8.0, alpha=0.5)
    item = annotate(db, me, pid, **MINE)
    assert item.external_id == "S-000"     # my warm-up sample, scored against its gold
    # my curve is within the project's W1 of the gold's: the rule admitted me
    assert qualification.my_qualification(db, me, pid).standing == qualification.PASSED
    qualification.admit(db, lead, pid, other.user_id, note="fine")
    annotate(db, me, pid, **MINE)
    annotate(db, other, pid, **MINE)
    page = feedback.feedback_page(db, me, pid)
    assert [i.external_id for i in page.items] == ["S-001"]
    assert feedback.feedback_trend(db, me, pid).n_samples == 1


def test_a_flagged_annotation_without_a_curve(db, people, make_project, lead):
    pid = make_project(1)
    me, other = people
    item = queue.next_item(db, me, pid)
    workbench_writes.submit(db, me, item.annotation_id, item.version,
                      complete_content(points=(), flags=("other",), note="no idea", **MINE))
    annotate(db, other, pid, **MINE)
    [row] = review.review_queue(db, lead, pid)
    review.decide(db, lead, row.item_id, "accept_auto", note="see the guidelines, 3.2", confidence=5,
                  error_type="guideline_gap")
    [mine] = feedback.feedback_page(db, me, pid).items
    assert math.isnan(mine.score.w1) and mine.curve_words == "you drew no curve"
    assert mine.my_note == "no idea" and [n.text for n in mine.lead_notes] == ["see the guidelines, 3.2"]
    assert mine.lead_notes[0].what == "accepted the automatic resolution"
    trend = feedback.feedback_trend(db, me, pid)
    assert trend.overall.w1 is None and trend.overall.jaccard == 1.0


def test_an_inactive_account_gets_nothing(db, people, make_project, admin):
    pid = make_project(1)
    me, _ = people
    accounts.set_active(db, admin, me.user_id, False)
    with pytest.raises(PermissionDenied):
        feedback.feedback_page(db, me, pid)
    with pytest.raises(PermissionDenied):
        feedback.feedback_trend(db, me, pid)


def test_notes_written_before_annotators_could_read_them_stay_with_the_lead(db, people, make_project, lead):
    """A decision stored before notes were shared (no confidence recorded) keeps its note from
    the annotators — it may name the other annotator; a pooled decision's note is labelled."""
    from db.models import GoldAnnotation, ReviewItem
    pid = make_project(2)
    me, other = people
    annotate(db, me, pid, **MINE)
    annotate(db, other, pid, **THEIRS)
    # the second: my segments and axes, their far curve (the pooled gold keeps one axis per segment)
    annotate(db, me, pid, **MINE)
    annotate(db, other, pid, **{**THEIRS, **MINE})
    first, second = review.review_queue(db, lead, pid)
    case = review.open_case(db, lead, first.item_id)
    theirs = next(v for v in case.versions if v.annotator == OTHER_NAME)
    review.decide(db, lead, first.item_id, "take_version", annotation_id=theirs.annotation_id,
                  note=f"took {OTHER_NAME}'s: ann misread the tense", confidence=4, error_type="annotator_error")
    review.decide(db, lead, second.item_id, "accept_pooled", note="both curves are plausible",
                  confidence=3, error_type="ambiguous_text")
    with db.write() as s:  # the first decision as an older version stored it: no confidence
        item = s.get(ReviewItem, first.item_id)
        item.confidence, item.error_type = None, ""
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == item.sample_id))
        gold.confidence, gold.error_type = None, ""
    page = feedback.feedback_page(db, me, pid)
    notes = {i.external_id: [(n.what, n.text) for n in i.lead_notes] for i in page.items}
    assert notes[first.external_id] == []
    assert notes[second.external_id] == [("pooled the curves", "both curves are plausible")]
    assert OTHER_NAME not in repr(page)
