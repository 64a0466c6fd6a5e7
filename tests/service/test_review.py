"""Settling complete samples, the review queue and each adjudication decision (SQLite + PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from annotation.review.lead_edit import LeadEdit
from annotation.services.workbench import queue
from annotation.services.review import resolving, review
from annotation.services.errors import InvalidInput, PermissionDenied, StaleVersion
from db.models import Annotation, ReviewDay, ReviewItem, Sample
from service_helpers import annotate, complete_content, count, gold_rows, open_items
import workbench_writes

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
SPLIT_A = dict(boundaries=(0, 4), segment_axes=("static", "main"))
SPLIT_B = dict(boundaries=(0, 6), segment_axes=("static", "main"))


@pytest.fixture
def pair(db, make_user):
    return make_user("ann_a"), make_user("ann_b")


def test_agreeing_pair_becomes_gold_at_the_second_submit(db, pair, make_project):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    assert gold_rows(db) == [] and open_items(db) == []  # one annotation: not complete yet
    annotate(db, b, pid, **SPLIT_A)
    [gold] = gold_rows(db)
    assert gold.source == "auto" and gold.boundaries == [0, 4]
    assert gold.segment_axes == [["static"], ["main"]]
    assert open_items(db) == []


def test_different_boundaries_open_a_review_item_and_no_gold(db, pair, make_project):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B)
    assert gold_rows(db) == []
    [item] = open_items(db)
    assert "segmentation_mismatch" in item.reasons
    assert item.details[0]["code"] == "segmentation_mismatch"


def test_axes_that_differ_on_a_segment_open_a_review_item_and_no_gold(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, boundaries=(0, 4), segment_axes=("static", "generic"))  # same boundaries
    assert gold_rows(db) == []
    [item] = open_items(db)
    assert item.reasons == ["axes_differ"]
    assert item.details[0]["detail"] == "tokens 5–14 would carry two axes: Main (ann_a) and Generic (ann_b)"
    case = review.open_case(db, lead, item.id)
    assert case.proposal.segment_axes == (("static",), ("main", "generic"))
    with pytest.raises(InvalidInput, match="two axes"):  # Accept refused: the lead chooses
        review.decide(db, lead, item.id, "accept_auto", confidence=3, error_type="guideline_gap")
    assert gold_rows(db) == [] and len(open_items(db)) == 1
    review.decide(db, lead, item.id, "take_version", annotation_id=case.versions[1].annotation_id,
                  confidence=3, error_type="guideline_gap")
    [gold] = gold_rows(db)
    assert gold.segment_axes == [["static"], ["generic"]]


def test_an_annotator_flag_reaches_the_queue(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_A, flags=("not_present_tense",))
    rows = review.review_queue(db, lead, pid)
    assert [r.reasons for r in rows] == [("not_present_tense",)]
    assert rows[0].annotators == ("ann_a", "ann_b")
    assert review.review_queue(db, lead, pid, reason="segmentation_mismatch") == []
    assert len(review.review_queue(db, lead, pid, annotator="ann_b")) == 1


def test_an_annotator_flag_is_listed_once_with_who_raised_it(db, pair, make_project, lead):
    """ann_b alone flags a sample that is complete at that submit: the flag reaches the item once
    (its reason and its detail), naming ann_b only — not once for the flag and again for the
    complete sample's flags."""
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B, flags=("not_present_tense",))
    [item] = open_items(db)
    assert item.reasons[0] == "not_present_tense" and "segmentation_mismatch" in item.reasons
    assert len(set(item.reasons)) == len(item.reasons)
    assert [d["code"] for d in item.details] == item.reasons
    case = review.open_case(db, lead, item.id)
    [flag] = [d for d in case.details if d["code"] == "not_present_tense"]
    names = {v.annotation_id: v.annotator for v in case.versions}
    assert [names[i] for i in flag["annotation_ids"]] == ["ann_b"]
    # an item stored with the flag twice (before each reason was listed once) shows it once
    with db.write() as s:
        stored = s.get(ReviewItem, item.id)
        stored.details = [*stored.details, flag]
    assert [d["code"] for d in review.open_case(db, lead, item.id).details] == item.reasons


CLOSE = [(27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2)]


def _shifted(by: float) -> list[tuple[float, float]]:
    """CLOSE moved ``by`` units later: the same curve with ξ larger by ``by``."""
    return [(x + by, y) for x, y in CLOSE]


def test_on_a_thin_project_a_parameter_beyond_the_fixed_threshold_is_flagged(db, make_user, make_project):
    pid = make_project(6)
    users = [make_user(f"u{i}") for i in range(2)]
    for _ in range(4):  # four agreeing samples: 10 annotations in all, too few for σ
        for u in users:
            annotate(db, u, pid, points=CLOSE)
    annotate(db, users[0], pid, points=CLOSE)
    annotate(db, users[1], pid, points=_shifted(90))
    [item] = open_items(db)
    assert "xi_deviation" in item.reasons
    [detail] = [d for d in item.details if d["code"] == "xi_deviation"]
    assert "> 12.00 (fixed threshold: σ needs ≥ 30 submitted annotations, 10 so far)" in detail["detail"]


def test_from_30_annotations_the_project_sigma_decides(db, make_user, make_project):
    """15 agreeing samples at ξ + 0, 2, …, 28 (30 annotations, σ_ξ ≈ 8.8): a pair 15 apart is
    within 2σ — no flag, where the fixed threshold (12) would flag — and a pair 40 apart is
    flagged by the σ rule, which its detail says. (W1 is off here: it would flag both.)"""
    pid = make_project(17, flag_w1_max=200.0)
    users = [make_user(f"u{i}") for i in range(2)]
    for i in range(15):
        for u in users:
            annotate(db, u, pid, points=_shifted(2 * i))
    annotate(db, users[0], pid, points=_shifted(14))
    annotate(db, users[1], pid, points=_shifted(29))
    assert [(i.reasons, i.details) for i in open_items(db)] == []
    annotate(db, users[0], pid, points=_shifted(14))
    annotate(db, users[1], pid, points=_shifted(54))
    [item] = open_items(db)
    assert item.reasons == ["xi_deviation"]
    assert "> 2·σ = " in item.details[0]["detail"] and "over 34 annotations)" in item.details[0]["detail"]


def test_accept_edit_take_and_history(db, pair, make_project, lead):
    pid = make_project(3)
    a, b = pair
    for _ in range(3):
        annotate(db, a, pid, **SPLIT_A)
        annotate(db, b, pid, **SPLIT_B)
    items = review.review_queue(db, lead, pid)
    assert len(items) == 3

    case = review.open_case(db, lead, items[0].item_id)
    assert [v.annotator for v in case.versions] == ["ann_a", "ann_b"]
    assert case.proposal.boundaries == (0, 4, 6)  # union
    # the proposal shows both axes where the annotators differ; the gold keeps one per segment
    assert case.proposal.segment_axes == (("static",), ("main", "static"), ("main",))
    with pytest.raises(InvalidInput, match=r"^Not stored: tokens 5–6 carry two axes \(Main, Static\); the gold "
                                           r"keeps one axis per segment"):
        review.decide(db, lead, items[0].item_id, "accept_auto", confidence=4, error_type="ambiguous_text", note="fine")
    assert review.gold_of(db, lead, items[0].sample_id) is None and len(review.review_queue(db, lead, pid)) == 3
    chosen = LeadEdit.from_proposal(case.proposal, 14).with_segment_axes(4, 6, ["main"])
    review.decide(db, lead, items[0].item_id, "edit", confidence=4, error_type="ambiguous_text", edit=chosen, note="fine")
    gold = review.gold_of(db, lead, items[0].sample_id)
    assert gold.source == "edited" and gold.boundaries == (0, 4, 6)
    assert gold.segment_axes == (("static",), ("main",), ("main",))

    edited = LeadEdit(14, (0, 5), (("static",), ("main", "opinion")), 60.0, 9.0, 0.5)
    with pytest.raises(InvalidInput, match="two axes"):  # an edit obeys the same rule
        review.decide(db, lead, items[1].item_id, "edit", confidence=4, error_type="ambiguous_text", edit=edited)
    edited = edited.with_segment_axes(5, 14, ["opinion"])
    review.decide(db, lead, items[1].item_id, "edit", confidence=4, error_type="ambiguous_text", edit=edited, note="my call")
    gold = review.gold_of(db, lead, items[1].sample_id)
    assert (gold.source, gold.boundaries, gold.xi) == ("edited", (0, 5), 60.0)

    case = review.open_case(db, lead, items[2].item_id)
    take = case.versions[1]
    review.decide(db, lead, items[2].item_id, "take_version", confidence=4, error_type="ambiguous_text", annotation_id=take.annotation_id)
    gold = review.gold_of(db, lead, items[2].sample_id)
    assert gold.source == "annotator" and gold.boundaries == (0, 6)
    assert gold.xi == pytest.approx(take.content.xi)

    history = review.sample_history(db, lead, items[0].sample_id)
    assert [h["what"] for h in history] == ["review opened", "edit"]
    assert history[1]["who"] == "lead1" and history[1]["why"] == "fine"
    assert review.review_queue(db, lead, pid) == []
    with pytest.raises(StaleVersion):  # decided already
        review.decide(db, lead, items[0].item_id, "accept_auto", confidence=4, error_type="ambiguous_text")


def test_send_back_returns_drafts_with_the_note_and_resubmission_settles(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B)
    [row] = review.review_queue(db, lead, pid)
    with pytest.raises(InvalidInput, match="note"):
        review.decide(db, lead, row.item_id, "send_back", confidence=4, error_type="ambiguous_text")
    review.decide(db, lead, row.item_id, "send_back", confidence=4, error_type="ambiguous_text", note="Split after 'street 0'.")
    with db.read() as s:
        anns = list(s.scalars(select(Annotation)))
    assert {x.status for x in anns} == {"draft"} and {x.returned_note for x in anns} == {"Split after 'street 0'."}
    assert all(x.submitted_at is None for x in anns)
    # each annotator finds the returned sample first in their queue and resubmits in agreement
    for user in (a, b):
        item = queue.next_item(db, user, pid)
        assert item.sample_id == row.sample_id
        workbench_writes.submit(db, user, item.annotation_id, item.version, complete_content(**SPLIT_A))
    [gold] = gold_rows(db)
    assert gold.source == "auto"


def test_discard_needs_a_reason_and_withdraws_the_sample(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B)
    [row] = review.review_queue(db, lead, pid)
    with pytest.raises(InvalidInput):
        review.decide(db, lead, row.item_id, "discard", confidence=4, error_type="ambiguous_text", note="  ")
    review.decide(db, lead, row.item_id, "discard", confidence=4, error_type="ambiguous_text", note="duplicate text")
    with db.read() as s:
        assert s.get(Sample, row.sample_id).status == "discarded"
    assert gold_rows(db) == []


def test_annotators_cannot_review(db, pair, make_project):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B)
    with pytest.raises(PermissionDenied):
        review.review_queue(db, a, pid)
    with db.read() as s:
        item_id = s.scalar(select(ReviewItem.id))
    for call in (lambda: review.open_case(db, a, item_id),
                 lambda: review.decide(db, a, item_id, "accept_auto", confidence=4, error_type="ambiguous_text"),
                 lambda: resolving.resolve_project(db, a, pid)):
        with pytest.raises(PermissionDenied):
            call()


def test_daily_review_sample_is_drawn_once_for_finished_days(db, make_user, make_project, lead):
    pid = make_project(10)
    users = [make_user("x1"), make_user("x2")]
    for _ in range(10):
        for u in users:
            annotate(db, u, pid)  # all agree: auto gold, nothing flagged
    assert open_items(db) == []
    with db.write() as s:  # pretend the work was done yesterday
        for a in s.scalars(select(Annotation)):
            a.submitted_at = a.submitted_at - timedelta(days=1)
    rows = review.review_queue(db, lead, pid)
    assert len(rows) == 2 and all(r.reasons == ("daily_review",) for r in rows)  # 10% of 20
    assert len(review.review_queue(db, lead, pid)) == 2  # drawn once, not again
    assert count(db, ReviewDay) == 1


def test_resolve_project_settles_imported_work_and_rechecks_thresholds(db, pair, make_project, lead):
    from annotation.services.projects import projects

    pid = make_project(2)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_A)
    assert len(gold_rows(db)) == 1
    summary = resolving.resolve_project(db, lead, pid)
    assert (summary.gold, summary.flagged, summary.settled) == (0, 0, 1)  # auto gold re-checked, stays gold
    projects.update_settings(db, lead, pid, flag_xi_max=0.1, flag_omega_max=0.1, flag_alpha_max=0.1)
    summary = resolving.resolve_project(db, lead, pid, recheck=True)
    assert summary.settled == 1  # identical parameters: |Δ| = 0 is never above a threshold


def test_tighter_thresholds_flag_auto_gold_and_looser_ones_release_it(db, pair, make_project, lead):
    from annotation.services.projects import projects

    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, boundaries=(0, 4), segment_axes=("static", "main"))
    annotate(db, b, pid, boundaries=(0, 4), segment_axes=("static", "main"),
             points=[(28.6, 0.77), (22.6, 0.41), (32.6, 0.41), (15.9, 0.19), (35.9, 0.2)])
    assert len(gold_rows(db)) == 1  # |Δξ| = 1 is within the fixed threshold (12): σ from 2 values is not used
    projects.update_settings(db, lead, pid, flag_sigma=0.1)  # nor is any multiple of it
    assert len(gold_rows(db)) == 1 and open_items(db) == []
    projects.update_settings(db, lead, pid, flag_xi_max=0.5)  # |Δξ| = 1 > 0.5 now
    assert gold_rows(db) == []
    [item] = open_items(db)
    assert "xi_deviation" in item.reasons
    projects.update_settings(db, lead, pid, flag_xi_max=12.0)
    assert open_items(db) == [] and len(gold_rows(db)) == 1


def test_an_annotator_flag_reaches_the_lead_before_the_second_annotation(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, **SPLIT_A, flags=("multiple_peaks",))
    [row] = review.review_queue(db, lead, pid)
    assert row.reasons == ("multiple_peaks",) and row.annotators == ("ann_a",)
    annotate(db, b, pid, **SPLIT_B)  # the complete sample adds what it shows to the same item
    [row] = review.review_queue(db, lead, pid)
    assert row.reasons[0] == "multiple_peaks" and "segmentation_mismatch" in row.reasons
    assert len(open_items(db)) == 1 and gold_rows(db) == []


def test_the_daily_review_sample_never_draws_a_sample_already_in_review(db, make_user, make_project, lead):
    """The daily 10 % drew a sample that was already in the review queue (flagged). Here 9 of
    10 samples are flagged: the day's sample (10 % of the 2 other submissions: 1) is drawn from
    the one that is not."""
    pid = make_project(10)
    users = [make_user("x1"), make_user("x2")]
    for i in range(10):
        for u in users:
            split = SPLIT_A if i == 9 or u is users[0] else SPLIT_B  # sample 10: agreement
            annotate(db, u, pid, **split)
    flagged = {i.sample_id: tuple(i.reasons) for i in open_items(db)}
    assert len(flagged) == 9
    with db.write() as s:  # yesterday's work
        for a in s.scalars(select(Annotation)):
            a.submitted_at = a.submitted_at - timedelta(days=1)
    rows = review.review_queue(db, lead, pid)
    [daily] = [r for r in rows if "daily_review" in r.reasons]
    assert daily.sample_id not in flagged and daily.reasons == ("daily_review",)
    assert {r.sample_id: r.reasons for r in rows if r.sample_id in flagged} == flagged
    with db.read() as s:
        [day] = s.scalars(select(ReviewDay))
    assert (day.n_submitted, day.n_sampled) == (20, 1)
