"""Annotating a context pair through the workbench's one write path
(workbench_events.apply_events), on SQLite and PostgreSQL: a pair opens at its curve with its
follow-up and nothing else of the pair, both curves are edited, the change is overridden, a
submit without the second curve is refused with the reason, and the submit stores both curves
and the override."""

from __future__ import annotations

import dataclasses

import pytest

from annotation.services.workbench import queue, workbench_events
from annotation.services.workbench.queue import WorkItem
from db.models import Annotation
from annotation.content import AnnotationContent
from pair_data import pairs_from_texts
from service_helpers import GOOD_POINTS, text_records
import workbench_writes

CLIENT = "feedc0de00000001"
SECOND = tuple((round(x + 12.0, 2), y) for x, y in GOOD_POINTS)  # the same shape, later


def _pairs_project(db, lead, n: int = 3, **settings) -> int:
    """A pairs project whose samples are pairs; each carries reference labels and an author's
    intent that annotators must never be given."""
    return pairs_from_texts(
        db, lead, f"Pairs {len(settings)}-{n}", text_records(n),
        lambda smp: f"Follow-up of sample {smp.id}: they moved it to <b>Friday</b>.", settings=settings,
        reference_alone=5, reference_given=8, reference_change="increased", intended_change="decreased")


def _apply(db, ann, item: WorkItem, events, start: int = 1):
    numbered = [{"seq": start + i, **e} for i, e in enumerate(events)]
    return workbench_events.apply_events(db, ann, item.annotation_id, CLIENT, item.version, numbered)


def _points(points, curve=None) -> list[dict]:
    extra = {"curve": curve} if curve else {}
    return [{"kind": "point", "action": "add", "x": x, "y": y, **extra} for x, y in points]


def test_a_pair_opens_at_its_curve_with_its_follow_up_and_nothing_else(db, make_user, make_project, lead):
    pid = _pairs_project(db, lead)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    assert item.step == 2  # segment_targets off: straight to the curve
    assert item.follow_up.startswith(f"Follow-up of sample {item.sample_id}")
    values = [str(v) for v in dataclasses.asdict(item).values()]
    assert not any(v in ("increased", "decreased") for v in values)  # no reference, no intent
    assert {f.name for f in dataclasses.fields(WorkItem)}.isdisjoint(
        {"reference_change", "reference_alone", "reference_given", "intended_change", "authored_by"})
    assert queue.open_item(db, ann, item.annotation_id).follow_up == item.follow_up


def test_a_segmented_pairs_project_starts_at_the_segmentation(db, make_user, make_project, lead):
    pid = _pairs_project(db, lead, segment_targets=True)
    item = queue.next_item(db, make_user("ann"), pid)
    assert item.step == 0 and item.follow_up


def test_a_pair_is_annotated_end_to_end_both_curves_and_an_override(db, make_user, make_project, lead):
    pid = _pairs_project(db, lead)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    # the target alone, then a submit: refused, the second curve is missing
    out = _apply(db, ann, item, [*_points(GOOD_POINTS), {"kind": "submit", "flagged": False}])
    assert not out.submitted
    assert out.submit_problems == ("Given the follow-up: place 3 to 5 points (now 0).",
                                   "Given the follow-up: confirm the change the curves give, or choose another.")
    assert out.item.content.has_parameters and out.item.content.context_points == ()
    # the follow-up step copies the first curve; its points are moved, a change is overridden
    moves = [{"kind": "point", "action": "move", "index": i, "x": x, "y": y, "curve": "context"}
             for i, (x, y) in enumerate(SECOND)]
    out = _apply(db, ann, item, [{"kind": "step", "step": 3}, *moves,
                                 {"kind": "change", "change": "decreased"},
                                 {"kind": "submit", "flagged": False}], start=out.last_seq + 1)
    assert out.submitted and out.refused == () and out.submit_problems == ()
    row = _get(db, item.annotation_id)
    assert row.status == "submitted" and row.change == "decreased"
    assert [tuple(p) for p in row.points] == list(GOOD_POINTS)
    assert [tuple(p) for p in row.context_points] == list(SECOND)
    assert None not in (row.xi, row.context_xi) and row.context_xi > row.xi
    # the next pair comes in the same round trip, with its own follow-up
    assert out.next_item is not None and out.next_item.sample_id != item.sample_id
    assert out.next_item.follow_up.startswith(f"Follow-up of sample {out.next_item.sample_id}")
    assert out.next_item.step == 2


def test_a_flagged_pair_may_be_submitted_without_its_second_curve(db, make_user, make_project, lead):
    pid = _pairs_project(db, lead)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    out = _apply(db, ann, item, [{"kind": "flag", "flags": ["not_present_tense"], "note": ""},
                                 {"kind": "submit", "flagged": True}])
    assert out.submitted, out.submit_problems


@pytest.mark.parametrize("event, fragment", [
    ({"kind": "change", "change": "longer"}, "the change must be one of"),
    ({"kind": "step", "step": 1}, "the steps are numbered 2 to 3"),
    ({"kind": "refit", "curve": "follow_up"}, "unknown curve"),
])
def test_impossible_pair_edits_are_refused_and_stored_as_acknowledged(db, make_user, make_project, lead,
                                                                      event, fragment):
    pid = _pairs_project(db, lead, n=1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    out = _apply(db, ann, item, [event])
    assert out.last_seq == 1 and len(out.refused) == 1 and fragment in out.refused[0].message
    assert out.item.content == item.content and out.item.step == 2


def test_a_single_text_project_refuses_pair_edits(db, make_user, make_project, lead):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    assert item.follow_up is None and item.step == 0
    out = _apply(db, ann, item, [{"kind": "change", "change": "neutral"},
                                 {"kind": "point", "action": "add", "x": 20.0, "y": 0.5, "curve": "context"},
                                 {"kind": "step", "step": 3}])
    assert [r.seq for r in out.refused] == [1, 2, 3]
    assert "no follow-up" in out.refused[0].message and "numbered 0 to 2" in out.refused[2].message
    assert out.item.content == item.content


def test_a_script_submits_a_whole_pair_through_the_same_edits(db, make_user, make_project, lead):
    # workbench_writes (tests, benchmarks) turns a content into the surface's edits, the
    # second curve and the change included
    pid = _pairs_project(db, lead)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    content = AnnotationContent(points=GOOD_POINTS, context_points=SECOND, change="neutral")
    stored = workbench_writes.submit(db, ann, item.annotation_id, item.version, content)
    c = stored.content
    assert stored.status == "submitted" and c.change == "neutral"
    assert c.points == GOOD_POINTS and c.context_points == SECOND
    assert c.has_parameters and c.has_context_parameters


def _get(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)
