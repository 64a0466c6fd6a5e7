"""Authoring follow-ups (annotation.services.corpus.authoring) on SQLite and PostgreSQL: the task
handed out, the three pair samples a save writes, the refusals that write nothing, a double
submit, the hand-out that never gives an author their own pairs, and the validation share."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from sqlalchemy import select

from annotation.pairs.authoring import FollowUpDraft
from annotation.quality.author_validation import MIN_SETTLED_PAIRS
from annotation.services.corpus import authoring
from annotation.services.workbench import queue
from annotation.services.errors import InvalidInput, PermissionDenied, ServiceError
from annotation.services.protocols.sample_pairs import follow_ups_of, pairs_of
from authoring_data import SETTLED, pairs_project, settle, target_text, three_drafts
from db.models import Annotation, AuditEvent, Sample, SamplePair
from service_helpers import count


@pytest.fixture
def pid(db, lead):
    return pairs_project(db, lead, targets=3, settled=2)


@pytest.fixture
def author(make_user):
    return make_user("author1")


def _samples(db):
    return count(db, Sample)


def test_the_task_is_a_settled_target_with_the_fewest_authored_follow_ups(db, pid, author, make_user):
    task = authoring.authoring_task(db, author, pid)
    assert (task.target_key, task.target_text, task.settled_curve) == ("T-0", target_text(0), SETTLED)
    assert task.change_factor == 1.5 and task.authored_so_far == 0
    # another author writes for T-0: T-1 now has fewer authored follow-ups
    other = make_user("author2")
    authoring.save_follow_ups(db, other, pid, "T-0", three_drafts())
    assert authoring.authoring_task(db, author, pid).target_key == "T-1"
    # the author keeps a task a page already shows, as long as it is open to them
    assert authoring.authoring_task(db, author, pid, "T-0").authored_so_far == 3
    assert authoring.authoring_task(db, author, pid, "T-2") is None  # not settled


def test_saving_writes_three_pair_samples_of_the_target(db, pid, author):
    task = authoring.authoring_task(db, author, pid)
    before = _samples(db)
    ids = authoring.save_follow_ups(db, author, pid, task.target_key, three_drafts())
    assert len(ids) == 3 and _samples(db) == before + 3
    with db.read() as s:
        facts = pairs_of(s, ids)
        rows = {smp.id: smp for smp in s.scalars(select(Sample).where(Sample.id.in_(ids)))}
        target = s.get(Sample, task.target_sample_id)
    assert [facts[i].intended_change for i in ids] == ["decreased", "neutral", "increased"]
    for i, draft in zip(ids, three_drafts()):
        assert facts[i].target_key == "T-0" and facts[i].follow_up == draft.text
        assert facts[i].authored_by == author.user_id and facts[i].authored_from == target.id
        assert facts[i].authored_curve == draft.curve
        smp = rows[i]
        assert (smp.project_id, smp.parent_text, smp.n_tokens, smp.benchmark, smp.status) == \
            (pid, target.parent_text, target.n_tokens, target.benchmark, "active")
        assert smp.external_id.startswith("authored-") and facts[i].intended_change not in smp.external_id
    assert len({rows[i].external_id for i in ids}) == 3
    with db.read() as s:
        assert s.scalars(select(SamplePair.authored_at).where(SamplePair.sample_id.in_(ids))).all()[0] is not None
    assert count(db, AuditEvent, AuditEvent.action == "author_follow_ups") == 1
    # the author's next task is another target
    assert authoring.authoring_task(db, author, pid).target_key == "T-1"


@pytest.mark.parametrize("change, message", [
    (lambda d: [replace(d[0], text="   ")] + d[1:], "The follow-up to decrease is empty."),
    (lambda d: [replace(d[0], text="x" * 5001)] + d[1:], "at most 5000 characters"),
    (lambda d: d[:2] + [replace(d[2], text=d[1].text.upper())], "are the same text"),
    (lambda d: d[:2] + [replace(d[2], curve=None)], "has no curve yet"),
    (lambda d: d[:2] + [replace(d[2], curve=(50.0, 0.001, 0.0))], "cannot be used"),
    (lambda d: d[:2], "exactly one follow-up for each change"),
])
def test_refusals_write_nothing(db, pid, author, change, message):
    before = _samples(db)
    with pytest.raises(InvalidInput, match=message):
        authoring.save_follow_ups(db, author, pid, "T-0", change(three_drafts()))
    assert _samples(db) == before and count(db, SamplePair, SamplePair.authored_by.is_not(None)) == 0


def test_refusals_of_the_user_the_project_and_the_target(db, lead, pid, author, make_project):
    single = make_project(2)
    before = _samples(db)
    with pytest.raises(InvalidInput, match="single texts"):
        authoring.save_follow_ups(db, author, single, "T-0", three_drafts())
    with pytest.raises(InvalidInput, match="single texts"):
        authoring.authoring_task(db, author, single)
    with pytest.raises(InvalidInput, match="no settled curve"):
        authoring.save_follow_ups(db, author, pid, "T-2", three_drafts())
    ghost = replace(author, user_id=999_999)
    with pytest.raises(PermissionDenied):
        authoring.save_follow_ups(db, ghost, pid, "T-0", three_drafts())
    assert _samples(db) == before


def test_a_double_submit_writes_three_samples_not_six(db, pid, author):
    before = _samples(db)
    authoring.save_follow_ups(db, author, pid, "T-0", three_drafts())
    with pytest.raises(InvalidInput, match="already written"):
        authoring.save_follow_ups(db, author, pid, "T-0", three_drafts("Other words. "))
    assert _samples(db) == before + 3


def test_two_tabs_saving_at_once_write_three_samples(db, pid, author):
    before = _samples(db)
    outcomes: list[object] = []
    start = threading.Barrier(2)

    def save(prefix: str) -> None:
        start.wait()
        try:
            outcomes.append(authoring.save_follow_ups(db, author, pid, "T-0", three_drafts(prefix)))
        except ServiceError as exc:
            outcomes.append(exc)

    tabs = [threading.Thread(target=save, args=(p,)) for p in ("", "Tab two. ")]
    for t in tabs:
        t.start()
    for t in tabs:
        t.join()
    assert sorted(type(o).__name__ for o in outcomes) == ["InvalidInput", "list"]
    assert _samples(db) == before + 3


def _finish(db, item) -> None:
    """Mark a handed-out draft submitted, so its annotator is handed the next sample (the pair
    workbench's own submit is tested with the workbench)."""
    with db.write() as s:
        a = s.get(Annotation, item.annotation_id)
        a.status, a.submitted_at = "submitted", a.updated_at


def _everything_handed_to(db, user, pid) -> list[int]:
    handed = []
    while (item := queue.next_item(db, user, pid)) is not None:
        handed.append(item.sample_id)
        _finish(db, item)
    return handed


def test_the_author_is_never_handed_their_own_pairs_and_another_annotator_is(db, lead, author, make_user):
    pid = pairs_project(db, lead, targets=1, k=2)
    ids = authoring.save_follow_ups(db, author, pid, "T-0", three_drafts())
    with db.read() as s:
        imported = s.scalar(select(Sample.id).where(Sample.external_id == "P-0"))
    assert _everything_handed_to(db, author, pid) == [imported]
    assert _everything_handed_to(db, make_user("annotator2"), pid) == [imported, *ids]


def _predict_widest_first(db, pid: int, widest: list[int]) -> None:
    """An applied model's predictions with ``widest`` the most uncertain samples of the project."""
    from db.models import Job, ModelPrediction, utcnow
    with db.write() as s:
        job = Job(project_id=pid, kind="predict", config={}, status="succeeded", started_at=utcnow(),
                  finished_at=utcnow())
        s.add(job)
        s.flush()
        for sid in s.scalars(select(Sample.id).where(Sample.project_id == pid)):
            s.add(ModelPrediction(job_id=job.id, sample_id=sid, xi=50.0, omega=8.0, alpha=0.0,
                                  spread_w1=9.0 if sid in widest else 1.0, half_gone_minutes=100.0,
                                  half_gone_low=50.0, half_gone_high=200.0))


@pytest.mark.parametrize("order", ["random", "uncertain"])
def test_no_hand_out_order_gives_an_author_their_own_pairs(db, lead, author, make_user, order):
    from annotation.services.projects import projects
    pid = pairs_project(db, lead, targets=1, k=2)
    projects.update_settings(db, lead, pid, hand_out_order=order)
    ids = authoring.save_follow_ups(db, author, pid, "T-0", three_drafts())
    if order == "uncertain":
        _predict_widest_first(db, pid, ids)
    assert len(_everything_handed_to(db, author, pid)) == 1
    assert set(ids) <= set(_everything_handed_to(db, make_user("annotator2"), pid))


def test_an_annotators_screen_reads_the_follow_up_never_the_intent(db, lead, author, make_user):
    pid = pairs_project(db, lead, targets=1, k=2)
    ids = authoring.save_follow_ups(db, author, pid, "T-0", three_drafts())
    other = make_user("annotator2")
    _finish(db, queue.next_item(db, other, pid))
    item = queue.next_item(db, other, pid)
    assert item.sample_id == ids[0]
    with db.read() as s:
        shown = follow_ups_of(s, [item.sample_id])
    assert shown == {ids[0]: three_drafts()[0].text}
    # nothing the annotator's work item carries names the intent
    assert "decreased" not in repr(item) and "intended" not in repr(item)


def test_validation_share_per_author(db, lead, make_user):
    pid = pairs_project(db, lead, targets=5, name="Validation")
    ann, bob = make_user("ann"), make_user("bob")
    written = [authoring.save_follow_ups(db, ann, pid, f"T-{i}", three_drafts(f"T{i}. ")) for i in range(4)]
    bob_ids = authoring.save_follow_ups(db, bob, pid, "T-0", three_drafts("Bob. "))
    ann_ids = [i for ids in written for i in ids]
    with db.read() as s:
        intents = {i: f.intended_change for i, f in pairs_of(s, ann_ids + bob_ids).items()}
    # ann: 12 written, 11 settled, 9 of them as intended; bob: 3 written, 2 settled
    for n, sample_id in enumerate(ann_ids[:11]):
        settle(db, sample_id, intents[sample_id] if n < 9 else "neutral" if intents[sample_id] != "neutral"
               else "increased")
    for sample_id in bob_ids[:2]:
        settle(db, sample_id, intents[sample_id])
    figures = {v.author: v for v in authoring.validation_by_author(db, lead, pid)}
    assert (figures["ann"].written, figures["ann"].settled, figures["ann"].matching) == (12, 11, 9)
    assert figures["ann"].share == pytest.approx(9 / 11)
    assert (figures["bob"].written, figures["bob"].settled, figures["bob"].share) == (3, 2, None)
    assert str(MIN_SETTLED_PAIRS) in figures["bob"].reason
    with pytest.raises(PermissionDenied):
        authoring.validation_by_author(db, ann, pid)


def test_an_authored_curve_must_fit(db, pid, author):
    drafts = three_drafts()
    drafts[2] = FollowUpDraft("increased", drafts[2].text, (float("nan"), 10.0, 0.0))
    with pytest.raises(InvalidInput, match="finite"):
        authoring.save_follow_ups(db, author, pid, "T-0", drafts)
