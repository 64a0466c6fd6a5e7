"""A third annotator where it pays (the ``third_annotator`` setting), on SQLite and PostgreSQL:
a flagged sample is handed to one more annotator instead of to Review, never to one of its first
annotators, once; with three it settles when a pair agrees, and only three-way disagreement
reaches a lead."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select

from annotation.services.quality import gold_checks
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.review import resolving, settling
from annotation.services.lookup import project_settings
from db.models import Annotation, Assignment, Sample
from service_helpers import GOOD_POINTS, annotate, gold_rows, open_items

FAR = tuple((x + 40.0, y) for x, y in GOOD_POINTS)  # a curve ≈ 40 units later: flagged
FARTHER = tuple((x + 80.0, y) for x, y in GOOD_POINTS)  # far from both
NEAR = tuple((x + 1.0, y) for x, y in GOOD_POINTS)  # agrees with GOOD_POINTS
SPLIT = dict(boundaries=(0, 4), segment_axes=("main", "static"))


def _sample(db, pid) -> Sample:
    with db.read() as s:
        return s.scalars(select(Sample).where(Sample.project_id == pid)).one()


def _sample_ids(db, pid) -> list[int]:
    with db.read() as s:
        return list(s.scalars(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id)))


def _escalated(db, make_user, make_project, split: bool = True, **settings):
    """A one-text project with the third annotator on; ann and bob submit curves far apart
    (``split``: bob also splits the text, with another axis on its second part)."""
    pid = make_project(1, third_annotator=True, **settings)
    a, b = make_user("ann"), make_user("bob")
    annotate(db, a, pid)
    annotate(db, b, pid, points=FAR, **(SPLIT if split else {}))
    return pid, a, b


def test_a_flagged_sample_goes_to_a_third_annotator_not_to_review(db, make_user, make_project):
    pid, a, b = _escalated(db, make_user, make_project)
    smp = _sample(db, pid)
    assert smp.extra_annotators == 1 and smp.n_assigned == 2
    assert open_items(db) == [] and gold_rows(db) == []
    # the first two never get it again; a third user does, blind (their own fresh draft)
    assert queue.next_item(db, a, pid) is None and queue.next_item(db, b, pid) is None
    assert queue.pool_size(db, a, pid) == 1
    item = queue.next_item(db, make_user("cat"), pid)
    assert item is not None and item.sample_id == smp.id
    assert item.content.points == () and item.status == "draft"
    assert _sample(db, pid).n_assigned == 3
    # the slot is taken: nobody else, and the pool is empty
    assert queue.next_item(db, make_user("dan"), pid) is None
    assert queue.pool_size(db, a, pid) == 0


def test_with_the_setting_off_a_flagged_sample_goes_to_review(db, make_user, make_project):
    pid = make_project(1)
    annotate(db, make_user("ann"), pid)
    annotate(db, make_user("bob"), pid, points=FAR)
    assert _sample(db, pid).extra_annotators == 0
    assert len(open_items(db)) == 1
    assert queue.next_item(db, make_user("cat"), pid) is None


@pytest.mark.parametrize("order", ["import", "random", "uncertain"])
def test_every_hand_out_order_offers_the_extra_slot(db, make_user, make_project, order):
    pid, _, _ = _escalated(db, make_user, make_project, hand_out_order=order)
    assert queue.next_item(db, make_user("cat"), pid).sample_id == _sample(db, pid).id


def test_three_settle_when_two_agree(db, make_user, make_project):
    pid, a, b = _escalated(db, make_user, make_project)
    annotate(db, make_user("cat"), pid, points=NEAR)
    assert open_items(db) == []
    gold, = gold_rows(db)
    with db.read() as s:
        subs = s.scalars(select(Annotation).where(Annotation.status == "submitted")).all()
    assert len(subs) == 3
    # the curve pools all three (equal weights); segmentation and axes are the agreeing pair's
    assert gold.xi == pytest.approx(sum(x.xi for x in subs) / 3)
    assert gold.omega == pytest.approx(sum(x.omega for x in subs) / 3)
    assert list(gold.boundaries) == [0] and list(gold.segment_axes) == [["main"]]
    assert gold.source == "auto" and gold.pooling == "equal" and len(gold.pool_weights) == 3
    # never asked again: a further submit or resolve keeps it settled
    assert queue.next_item(db, make_user("dan"), pid) is None


def test_three_who_disagree_reach_review_with_every_flag(db, make_user, make_project):
    pid, a, b = _escalated(db, make_user, make_project)
    annotate(db, make_user("cat"), pid, points=FARTHER)
    assert gold_rows(db) == []
    item, = open_items(db)
    assert "curve_distance" in item.reasons
    with db.read() as s:
        ids = set(s.scalars(select(Annotation.id).where(Annotation.status == "submitted")))
    named = {i for d in item.details for i in d["annotation_ids"]}
    assert named == ids  # the worst pairs among all three are named
    assert _sample(db, pid).extra_annotators == 1


def test_a_wide_gold_asks_a_third_annotator(db, make_user, make_project):
    pid = make_project(1)
    annotate(db, make_user("ann"), pid)
    annotate(db, make_user("bob"), pid, points=NEAR)
    assert len(gold_rows(db)) == 1  # agreed: settled from two
    projects.update_settings(db, make_user("boss", "lead"), pid, third_annotator=True,
                             third_annotator_sd_max=8.0)
    with db.write() as s:
        smp = s.get(Sample, _sample(db, pid).id)
        settings = project_settings(s, pid)
        assert settling.settle(s, smp, settings, gold_sd=6.0) == "gold"
        assert settling.settle(s, smp, settings, gold_sd=12.0) == "more"
    assert gold_rows(db) == [] and _sample(db, pid).extra_annotators == 1
    assert queue.next_item(db, make_user("cat"), pid) is not None


def test_an_annotators_own_flag_still_goes_to_the_lead_at_once(db, make_user, make_project):
    pid = make_project(1, third_annotator=True)
    annotate(db, make_user("ann"), pid, flags=("not_present_tense",), note="past tense")
    assert [i.reasons for i in open_items(db)] == [["not_present_tense"]]
    annotate(db, make_user("bob"), pid, points=FAR)
    item, = open_items(db)
    assert item.reasons[0] == "not_present_tense" and "curve_distance" in item.reasons
    assert _sample(db, pid).extra_annotators == 0
    assert queue.next_item(db, make_user("cat"), pid) is None


def test_the_quota_stops_a_third_hand_out(db, make_user, make_project):
    pid = make_project(2, third_annotator=True, daily_quota=1)
    a, b, cat = make_user("ann"), make_user("bob"), make_user("cat")
    annotate(db, a, pid)  # sample 1
    annotate(db, b, pid, points=FAR)  # sample 1 escalated
    third = annotate(db, cat, pid)  # cat's one submit of the day: sample 1's third slot (the oldest)
    assert third.sample_id == _sample_ids(db, pid)[0] and len(gold_rows(db)) == 1
    assert queue.queue_status(db, cat, pid).quota_reached
    assert queue.next_item(db, cat, pid) is None  # sample 2 is open, the quota is not


def test_a_released_user_may_be_the_third_but_the_first_two_never(db, make_user, make_project):
    pid = make_project(1, third_annotator=True)
    rex = make_user("rex")
    held = queue.next_item(db, rex, pid)  # rex takes the sample, then his empty draft is released
    with db.write() as s:
        assert gold_checks.release_empty_drafts(s, pid, rex.user_id) == (1, 0)
    a, b = make_user("ann"), make_user("bob")
    annotate(db, a, pid)
    annotate(db, b, pid, points=FAR)
    assert queue.next_item(db, a, pid) is None and queue.next_item(db, b, pid) is None
    again = queue.next_item(db, rex, pid)  # he never wrote or saw anything of it
    assert again.sample_id == held.sample_id and again.annotation_id != held.annotation_id
    with db.read() as s:
        holders = s.scalars(select(Assignment.user_id).where(Assignment.sample_id == held.sample_id)).all()
    assert sorted(holders) == sorted([a.user_id, b.user_id, rex.user_id])


def test_a_race_for_the_third_slot_assigns_one_annotator(db, make_user, make_project):
    pid, _, _ = _escalated(db, make_user, make_project)
    racers = [make_user(f"racer{i}") for i in range(6)]
    barrier = threading.Barrier(len(racers))

    def ask(actor):
        barrier.wait()
        return queue.next_item(db, actor, pid)

    with ThreadPoolExecutor(max_workers=len(racers)) as pool:
        got = [x for x in pool.map(ask, racers) if x is not None]
    assert len(got) == 1
    smp = _sample(db, pid)
    assert smp.n_assigned == 3
    with db.read() as s:
        assert len(s.scalars(select(Assignment).where(Assignment.sample_id == smp.id)).all()) == 3


def test_turning_the_setting_on_sends_flagged_samples_to_a_third_annotator(db, make_user, make_project, lead):
    pid = make_project(1)
    annotate(db, make_user("ann"), pid)
    annotate(db, make_user("bob"), pid, points=FAR)
    assert len(open_items(db)) == 1
    projects.update_settings(db, lead, pid, third_annotator=True)  # rechecks settling
    assert open_items(db) == [] and _sample(db, pid).extra_annotators == 1
    summary = resolving.resolve_project(db, lead, pid)
    assert (summary.more, summary.flagged, summary.gold) == (0, 0, 0)  # asked once: nothing new


def test_turning_it_off_settles_a_sample_whose_third_never_came(db, make_user, make_project, lead):
    pid, _, _ = _escalated(db, make_user, make_project)
    projects.update_settings(db, lead, pid, third_annotator=False)
    assert len(open_items(db)) == 1 and _sample(db, pid).extra_annotators == 0
    assert queue.next_item(db, make_user("cat"), pid) is None


LOOSE = dict(flag_w1_max=200.0, flag_xi_max=400.0, flag_omega_max=200.0, flag_pk_max=1.0, flag_alpha_max=40.0)


def test_looser_thresholds_settle_a_waiting_sample_from_its_two(db, make_user, make_project, lead):
    pid, _, _ = _escalated(db, make_user, make_project, split=False)
    projects.update_settings(db, lead, pid, **LOOSE)
    assert len(gold_rows(db)) == 1 and open_items(db) == []
    assert _sample(db, pid).extra_annotators == 0  # the slot, never handed out, is given up
    assert queue.next_item(db, make_user("cat"), pid) is None


def test_a_sample_still_flagged_keeps_waiting_for_its_third(db, make_user, make_project, lead):
    pid, _, _ = _escalated(db, make_user, make_project)
    projects.update_settings(db, lead, pid, **LOOSE)
    # still split differently (segmentation mismatch): waiting for the third
    assert _sample(db, pid).extra_annotators == 1 and gold_rows(db) == [] and open_items(db) == []
    assert queue.next_item(db, make_user("cat"), pid) is not None


def test_a_held_extra_slot_is_not_given_up(db, make_user, make_project, lead):
    pid, _, _ = _escalated(db, make_user, make_project)
    item = queue.next_item(db, make_user("cat"), pid)
    projects.update_settings(db, lead, pid, third_annotator=False)
    assert _sample(db, pid).extra_annotators == 1 and open_items(db) == []  # cat's answer awaited
    assert gold_rows(db) == [] and item.sample_id == _sample(db, pid).id
    assert queue.next_item(db, make_user("dan"), pid) is None
