"""Queue service: assignment (k annotators per sample), drafts with version checks, submit,
quota per calendar day, blindness between annotators, audit (SPEC sections 3, 5, 10)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select, update

from annotation.curves import fit_curve
from annotation.content import AnnotationContent
from annotation.services.projects import projects
from annotation.services.workbench import queue, submission, workbench_events
from annotation.services.errors import (
    AlreadySubmitted,
    InvalidInput,
    NotFound,
    QuotaReached,
    StaleVersion,
)
from annotation.settings import NEWEST_GUIDELINES, ProjectSettings
from db.models import Annotation, Assignment, AuditEvent, Sample
from service_helpers import GOOD_POINTS, complete_content, count
import workbench_writes


def _row(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)


def _sample(db, sample_id: int) -> Sample:
    with db.read() as s:
        return s.get(Sample, sample_id)


def _snapshot(db, annotation_id: int) -> dict:
    a = _row(db, annotation_id)
    return {c.name: getattr(a, c.name) for c in Annotation.__table__.columns}


def _finish(db, actor, project_id: int, content: AnnotationContent | None = None):
    """next_item → submit; returns the submitted WorkItem."""
    item = queue.next_item(db, actor, project_id)
    assert item is not None
    return workbench_writes.submit(db, actor, item.annotation_id, item.version, content or complete_content())


# --- next_item -------------------------------------------------------------------------------


def test_next_item_assigns_and_returns_the_same_draft_until_submitted(db, make_user, make_project):
    pid = make_project(5)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    assert item is not None
    assert (item.status, item.version, item.step, item.project_id) == ("draft", 1, 0, pid)
    assert item.content == AnnotationContent()
    assert item.guidelines_version == NEWEST_GUIDELINES
    assert item.n_tokens > 0 and item.parent_text
    assert count(db, Assignment) == 1 and count(db, Annotation) == 1
    assert _sample(db, item.sample_id).n_assigned == 1
    with db.read() as s:
        asg = s.scalars(select(Assignment)).one()
    assert (asg.sample_id, asg.user_id, asg.slot) == (item.sample_id, ann.user_id, 1)

    for _ in range(3):
        again = queue.next_item(db, ann, pid)
        assert again.annotation_id == item.annotation_id
    saved = workbench_writes.save_draft(db, ann, item.annotation_id, 1, complete_content(), step=2)
    again = queue.next_item(db, ann, pid)
    assert (again.annotation_id, again.version) == (item.annotation_id, saved.version)
    assert count(db, Assignment) == 1 and count(db, Annotation) == 1

    workbench_writes.submit(db, ann, item.annotation_id, saved.version, complete_content())
    nxt = queue.next_item(db, ann, pid)
    assert nxt.annotation_id != item.annotation_id
    assert nxt.sample_id != item.sample_id
    assert count(db, Assignment) == 2


def test_k2_two_annotators_share_a_sample_and_a_third_gets_another(db, make_user, make_project):
    pid = make_project(5)  # default k = 2
    a, b, c = make_user("ann_a"), make_user("ann_b"), make_user("ann_c")
    ia, ib, ic = (queue.next_item(db, u, pid) for u in (a, b, c))
    assert ia.sample_id == ib.sample_id
    assert ic.sample_id != ia.sample_id
    assert ia.annotation_id != ib.annotation_id
    assert _sample(db, ia.sample_id).n_assigned == 2
    assert _sample(db, ic.sample_id).n_assigned == 1
    with db.read() as s:
        slots = sorted(s.scalars(select(Assignment.slot).where(Assignment.sample_id == ia.sample_id)))
    assert slots == [1, 2]


def test_k_is_read_from_the_project_settings(db, make_user, make_project):
    pid = make_project(3, annotators_per_sample=3)
    users = [make_user(f"u{i}") for i in range(4)]
    items = [queue.next_item(db, u, pid) for u in users]
    assert len({i.sample_id for i in items[:3]}) == 1
    assert items[3].sample_id != items[0].sample_id
    assert _sample(db, items[0].sample_id).n_assigned == 3


def test_pool_runs_dry_and_n_assigned_never_exceeds_k(db, make_user, make_project):
    pid = make_project(3)  # 3 samples × k=2 = 6 slots
    users = [make_user(f"u{i}") for i in range(4)]
    done = 0
    for _round in range(3):
        for u in users:
            item = queue.next_item(db, u, pid)
            if item is None:
                continue
            workbench_writes.submit(db, u, item.annotation_id, item.version, complete_content())
            done += 1
    assert done == 6
    assert all(queue.next_item(db, u, pid) is None for u in users)
    assert queue.pool_size(db, users[0], pid) == 0
    with db.read() as s:
        assert all(x.n_assigned == 2 for x in s.scalars(select(Sample)))
    assert count(db, Annotation, Annotation.status == "submitted") == 6


def test_an_annotator_never_gets_the_same_sample_twice(db, make_user, make_project):
    pid = make_project(4, annotators_per_sample=3)
    ann = make_user("ann")
    seen = []
    while (item := queue.next_item(db, ann, pid)) is not None:
        seen.append(item.sample_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert len(seen) == 4 and len(set(seen)) == 4
    assert queue.pool_size(db, ann, pid) == 4 * 3 - 4


def test_discarded_sample_is_not_handed_out(db, make_user, make_project):
    pid = make_project(2)
    with db.write() as s:
        first = s.scalars(select(Sample).order_by(Sample.id)).first()
        first.status = "discarded"
        first_id = first.id
    item = queue.next_item(db, make_user("ann"), pid)
    assert item.sample_id != first_id


def test_next_item_on_missing_project(db, make_user):
    with pytest.raises(NotFound):
        queue.next_item(db, make_user("ann"), 999)


def test_drafts_are_per_project(db, make_user, make_project):
    p1, p2 = make_project(2), make_project(2)
    ann = make_user("ann")
    i1 = queue.next_item(db, ann, p1)
    i2 = queue.next_item(db, ann, p2)
    assert i1.project_id == p1 and i2.project_id == p2
    assert i1.annotation_id != i2.annotation_id


# --- save_draft ------------------------------------------------------------------------------


def test_save_draft_increments_version_and_stores_content(db, make_user, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    n = item.n_tokens
    c1 = AnnotationContent(boundaries=(0, 2), segment_axes=("main", None))
    s1 = workbench_writes.save_draft(db, ann, item.annotation_id, 1, c1, step=1, seconds_delta=12.5)
    assert (s1.version, s1.step, s1.status) == (2, 1, "draft")
    assert s1.content.boundaries == (0, 2) and s1.content.segment_axes == ("main", None)
    assert s1.seconds_spent == pytest.approx(12.5)

    c2 = AnnotationContent(boundaries=(0, 2, n - 1), segment_axes=("main", "static", None),
                           points=((30.0, 1.0), (20.0, 0.4)), note="thinking")
    s2 = workbench_writes.save_draft(db, ann, item.annotation_id, 2, c2, step=2, seconds_delta=5)
    assert s2.version == 3
    stored = queue.open_item(db, ann, item.annotation_id)
    assert stored.content == c2
    assert stored.version == 3 and stored.seconds_spent == pytest.approx(17.5)
    assert stored.updated_at >= item.updated_at
    # a step outside the three is refused with a message, the stored step stays
    for wrong in (9, -3):
        out = workbench_writes.apply(db, ann, item.annotation_id, stored.version, c2, step=wrong)
        assert out.item.step == 2 and f"there is no step {wrong}" in out.refused[0].message
        stored = out.item


def test_stale_version_is_refused_and_newer_content_kept(db, make_user, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    tab1 = workbench_writes.save_draft(db, ann, item.annotation_id, 1,
                                 AnnotationContent(boundaries=(0, 1), segment_axes=("main", "opinion")), step=1)
    before = _snapshot(db, item.annotation_id)
    # tab 2 still holds version 1
    old_tab = AnnotationContent(boundaries=(0,), segment_axes=("generic",))
    with pytest.raises(StaleVersion):
        workbench_writes.save_draft(db, ann, item.annotation_id, 1, old_tab, step=1)
    with pytest.raises(StaleVersion):
        workbench_writes.submit(db, ann, item.annotation_id, 1, complete_content())
    assert _snapshot(db, item.annotation_id) == before
    assert queue.open_item(db, ann, item.annotation_id).content == tab1.content
    # a version from the future is stale too
    with pytest.raises(StaleVersion):
        workbench_writes.save_draft(db, ann, item.annotation_id, 7, old_tab, step=1)
    assert _snapshot(db, item.annotation_id) == before


@pytest.mark.parametrize("edit,fragment", [
    ({"kind": "boundary", "gap": 999}, "no gap before token 999"),       # past the end
    ({"kind": "boundary", "gap": 0}, "no gap before token 0"),           # before the first token
    ({"kind": "axis", "segment": 1, "axis": "main"}, "no segment 2"),    # one axis too many
    ({"kind": "axis", "segment": 0, "axis": "temporal"}, "unknown axis"),
    ({"kind": "flag", "flags": ["because"], "note": ""}, "unknown flag"),
    ({"kind": "point", "action": "move", "index": 3, "x": 1.0, "y": 1.0}, "no point 4"),
])
def test_edits_that_would_break_the_draft_are_refused_and_change_nothing(db, make_user, make_project,
                                                                         edit, fragment):
    """The workbench sends edits, never a whole content: an edit that would make the draft
    malformed is refused with a message (acknowledged, so the surface moves on) and the stored
    content stays as it was."""
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    out = workbench_events.apply_events(db, ann, item.annotation_id, "c1", item.version,
                                        [{"seq": 1, **edit}])
    assert out.last_seq == 1 and len(out.refused) == 1 and fragment in out.refused[0].message
    assert queue.open_item(db, ann, item.annotation_id).content == item.content


def test_six_points_are_refused_at_the_sixth(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    six = AnnotationContent(points=tuple((float(x), 0.5) for x in range(10, 70, 10)))
    out = workbench_writes.apply(db, ann, item.annotation_id, 1, six)
    assert [r.message for r in out.refused] == ["Not applied: at most 5 points can be placed; remove one first."]
    assert len(out.item.content.points) == 5


def test_boundary_at_last_token_is_fine_but_one_past_is_not(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    n = item.n_tokens
    ok = AnnotationContent(boundaries=(0, n - 1), segment_axes=("main", "static"))
    saved = workbench_writes.save_draft(db, ann, item.annotation_id, 1, ok, step=0)
    out = workbench_events.apply_events(db, ann, item.annotation_id, "c1", saved.version,
                                        [{"seq": 1, "kind": "boundary", "gap": n}])
    assert "no gap before token" in out.refused[0].message
    assert _row(db, item.annotation_id).status == "draft"
    assert _row(db, item.annotation_id).boundaries == [0, n - 1]


# --- submit ----------------------------------------------------------------------------------


def test_submit_stores_parameters_fitted_from_the_points(db, make_user, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    # the client sends made-up parameters: the server refits from the points
    sent = complete_content(xi=1.0, omega=2.0, alpha=3.0, scale=4.0, rmse=0.0)
    done = workbench_writes.submit(db, ann, item.annotation_id, 1, sent, seconds_delta=40)
    fit = fit_curve(GOOD_POINTS)
    row = _row(db, item.annotation_id)
    assert row.status == "submitted" and done.status == "submitted" and done.is_submitted
    assert row.version == 2 and row.step == 2
    assert row.submitted_at is not None
    assert abs(row.submitted_at - datetime.now(timezone.utc)) < timedelta(minutes=1)
    for name in ("xi", "omega", "alpha", "scale", "rmse"):
        assert getattr(row, name) == pytest.approx(getattr(fit, name), rel=1e-9, abs=1e-12), name
    assert row.params_source == "fit"
    assert row.boundaries == [0] and row.segment_axes == ["main"]
    assert [tuple(p) for p in row.points] == [tuple(p) for p in GOOD_POINTS]
    assert row.seconds_spent == pytest.approx(40)
    assert done.content.xi == pytest.approx(fit.xi)


def test_submit_with_manual_parameters_keeps_them_and_recomputes_scale_and_rmse(db, make_user, make_project):
    from annotation.curves import fit_scale_for

    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    sent = complete_content(xi=28.0, omega=9.0, alpha=-1.0, scale=123.0, rmse=0.0, params_source="manual")
    workbench_writes.submit(db, ann, item.annotation_id, 1, sent)
    row = _row(db, item.annotation_id)
    scale, rmse = fit_scale_for(GOOD_POINTS, 28.0, 9.0, -1.0)
    assert (row.xi, row.omega, row.alpha, row.params_source) == (28.0, 9.0, -1.0, "manual")
    assert row.scale == pytest.approx(scale) and row.rmse == pytest.approx(rmse)
    assert row.scale != 123.0


@pytest.mark.parametrize("params", [dict(xi=1e308, omega=9.0, alpha=-1.0), dict(xi=28.0, omega=0.001, alpha=-1.0),
                                    dict(xi=28.0, omega=9.0, alpha=19999.0)])
def test_submit_refuses_hand_tuned_parameters_the_fit_could_not_make(db, make_user, make_project, params):
    """The page's inputs stop at the fit's bounds, but the server decides: a hand-tuned curve
    outside them is refused with the reason and never stored (it would poison σ); the curve
    stays the points' fit."""
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    sent = complete_content(**params, params_source="manual")
    out = workbench_writes.apply(db, ann, item.annotation_id, 1, sent)
    assert [r.message for r in out.refused if "outside the fit's range" in r.message]
    row = _row(db, item.annotation_id)
    assert row.status == "draft" and row.params_source == "fit"
    assert row.xi == pytest.approx(fit_curve(GOOD_POINTS).xi)


def test_seconds_accumulate_and_idle_time_is_capped(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    cap = submission.IDLE_CAP_SECONDS
    v = workbench_writes.save_draft(db, ann, item.annotation_id, 1, AnnotationContent(), step=0,
                              seconds_delta=30).version
    v = workbench_writes.save_draft(db, ann, item.annotation_id, v, AnnotationContent(), step=0,
                              seconds_delta=cap * 20).version  # lunch break
    v = workbench_writes.save_draft(db, ann, item.annotation_id, v, AnnotationContent(), step=0,
                              seconds_delta=-50).version  # clock skew
    v = workbench_writes.save_draft(db, ann, item.annotation_id, v, AnnotationContent(), step=0,
                              seconds_delta=float("nan")).version
    assert _row(db, item.annotation_id).seconds_spent == pytest.approx(30 + cap)
    workbench_writes.submit(db, ann, item.annotation_id, v, complete_content(), seconds_delta=cap + 1)
    assert _row(db, item.annotation_id).seconds_spent == pytest.approx(30 + 2 * cap)


def test_double_submit_is_refused_and_changes_nothing(db, make_user, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    workbench_writes.submit(db, ann, item.annotation_id, 1, complete_content(), seconds_delta=10)
    before = _snapshot(db, item.annotation_id)
    other = complete_content(segment_axes=("generic",), points=((40, 1.0), (30, 0.5), (55, 0.5)))
    with pytest.raises(AlreadySubmitted):
        workbench_writes.submit(db, ann, item.annotation_id, 1, other, seconds_delta=10)
    with pytest.raises(AlreadySubmitted):
        workbench_writes.submit(db, ann, item.annotation_id, 2, other, seconds_delta=10)  # current version
    with pytest.raises(AlreadySubmitted):
        workbench_writes.save_draft(db, ann, item.annotation_id, 2, other, step=1)
    with pytest.raises(AlreadySubmitted):
        workbench_writes.save_draft(db, ann, item.annotation_id, 1, other, step=1)
    assert _snapshot(db, item.annotation_id) == before
    assert _snapshot(db, item.annotation_id)["version"] == 2
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 1
    # the submitted annotation can still be opened read-only
    assert queue.open_item(db, ann, item.annotation_id).is_submitted


@pytest.mark.parametrize("content,expected", [
    (AnnotationContent(), ["axis", "Curve"]),
    (complete_content(segment_axes=(None,)), ["segment 1 still needs an axis"]),
    (complete_content(points=GOOD_POINTS[:2]), ["3 to 5 points"]),
    (AnnotationContent(boundaries=(0, 1, 2), segment_axes=("main", None, None)),
     ["segments 2 and 3 still need", "points"]),
])
def test_incomplete_unflagged_submit_lists_problems_and_keeps_the_edits(
        db, make_user, make_project, content, expected):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    with pytest.raises(InvalidInput) as exc:
        workbench_writes.submit(db, ann, item.annotation_id, 1, content)
    for fragment in expected:
        assert fragment in str(exc.value)
    row = _row(db, item.annotation_id)
    assert row.status == "draft" and row.submitted_at is None
    assert (tuple(row.boundaries), tuple(row.segment_axes)) == (content.boundaries, content.segment_axes)
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 0


def test_unfittable_points_refuse_an_unflagged_submit(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    two_peaks = ((10.0, 1.0), (30.0, 0.1), (50.0, 1.0))
    with pytest.raises(InvalidInput, match="peak"):
        workbench_writes.submit(db, ann, item.annotation_id, 1, complete_content(points=two_peaks))
    assert _row(db, item.annotation_id).status == "draft"
    # flagged as needing more than one peak, the same points may be submitted
    flagged = complete_content(points=two_peaks, flags=("multiple_peaks",))
    done = workbench_writes.submit(db, ann, item.annotation_id, _row(db, item.annotation_id).version, flagged)
    assert done.status == "submitted" and done.content.flags == ("multiple_peaks",)


def test_flagged_submit_with_incomplete_curve_is_accepted(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    content = AnnotationContent(points=((30.0, 1.0),), flags=("not_present_tense",))
    done = workbench_writes.submit(db, ann, item.annotation_id, 1, content)
    row = _row(db, item.annotation_id)
    assert row.status == "submitted" and row.flags == ["not_present_tense"]
    assert row.xi is None and done.content.segment_axes == (None,)


def test_flag_other_needs_a_note(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    with pytest.raises(InvalidInput, match="note"):
        workbench_writes.submit(db, ann, item.annotation_id, 1, AnnotationContent(flags=("other",)))
    with pytest.raises(InvalidInput, match="note"):
        workbench_writes.submit(db, ann, item.annotation_id, _row(db, item.annotation_id).version,
                                AnnotationContent(flags=("other",), note="   "))
    assert _row(db, item.annotation_id).status == "draft"
    done = workbench_writes.submit(db, ann, item.annotation_id, _row(db, item.annotation_id).version,
                                   AnnotationContent(flags=("other",), note="The text is in Latin."))
    assert done.status == "submitted" and _row(db, item.annotation_id).note == "The text is in Latin."


def test_submit_on_withdrawn_sample_is_refused(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    with db.write() as s:
        s.execute(update(Sample).values(status="discarded"))
    with pytest.raises(InvalidInput, match="withdrawn"):
        workbench_writes.submit(db, ann, item.annotation_id, 1, complete_content())
    assert _row(db, item.annotation_id).status == "draft"


# --- quota -----------------------------------------------------------------------------------


def test_quota_reached_keeps_the_draft_a_draft(db, make_user, make_project, lead):
    pid = make_project(5)
    projects.update_settings(db, lead, pid, daily_quota=3)
    ann = make_user("ann")
    _finish(db, ann, pid)
    _finish(db, ann, pid)
    third = queue.next_item(db, ann, pid)  # handed out below the quota …
    projects.update_settings(db, lead, pid, daily_quota=2)  # … which the lead then lowers
    status = queue.queue_status(db, ann, pid)
    assert (status.submitted_today, status.daily_quota, status.quota_reached) == (2, 2, True)
    assert queue.next_item(db, ann, pid).annotation_id == third.annotation_id  # the open draft still opens
    third = workbench_writes.save_draft(db, ann, third.annotation_id, third.version, complete_content(), step=2)
    with pytest.raises(QuotaReached, match="2"):
        workbench_writes.submit(db, ann, third.annotation_id, third.version, complete_content())
    row = _row(db, third.annotation_id)
    assert row.status == "draft" and row.submitted_at is None and row.xi == third.content.xi
    assert count(db, Annotation, Annotation.status == "submitted") == 2
    # someone else's quota is their own
    bob = make_user("bob")
    assert _finish(db, bob, pid).status == "submitted"
    # raising the quota lets the draft through
    projects.update_settings(db, lead, pid, daily_quota=3)
    assert workbench_writes.submit(db, ann, third.annotation_id, row.version, complete_content()).is_submitted


def test_quota_counts_only_todays_submissions(db, make_user, make_project, lead):
    pid = make_project(4)
    projects.update_settings(db, lead, pid, daily_quota=2)
    ann = make_user("ann")
    first = _finish(db, ann, pid)
    item = queue.next_item(db, ann, pid)
    projects.update_settings(db, lead, pid, daily_quota=1)
    with pytest.raises(QuotaReached):
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    # the first submission was two days ago: today's quota is free again
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.id == first.annotation_id)
                  .values(submitted_at=datetime.now(timezone.utc) - timedelta(days=2)))
    assert queue.queue_status(db, ann, pid).submitted_today == 0
    version = _row(db, item.annotation_id).version  # the refused submit stored its edits
    assert workbench_writes.submit(db, ann, item.annotation_id, version, complete_content()).is_submitted
    assert queue.queue_status(db, ann, pid).submitted_today == 1
    assert queue.queue_status(db, ann, pid).submitted_total == 2


def test_nothing_new_is_handed_out_past_the_quota(db, make_user, make_project, lead):
    """At 10 of 10 a new sample (#11) was still handed out. At the quota next_item hands out
    nothing — no assignment, no draft — and the queue status says why; tomorrow it does again."""
    pid = make_project(6, daily_quota=2)
    ann = make_user("ann")
    done = [_finish(db, ann, pid), _finish(db, ann, pid)]
    before = (count(db, Assignment), count(db, Annotation))
    assert queue.next_item(db, ann, pid) is None
    assert (count(db, Assignment), count(db, Annotation)) == before
    assert queue.queue_status(db, ann, pid).quota_reached and queue.pool_size(db, ann, pid) > 0
    with db.write() as s:  # the submissions were yesterday: today's quota is free again
        s.execute(update(Annotation).where(Annotation.id.in_([d.annotation_id for d in done]))
                  .values(submitted_at=datetime.now(timezone.utc) - timedelta(days=1)))
    assert queue.next_item(db, ann, pid) is not None


def test_quota_is_per_project(db, make_user, make_project, lead):
    p1 = make_project(3, daily_quota=1)
    p2 = make_project(3, daily_quota=1)
    ann = make_user("ann")
    _finish(db, ann, p1)
    assert _finish(db, ann, p2).is_submitted


def test_day_bounds_in_a_zone_east_of_utc():
    tokyo = ProjectSettings(quota_timezone="Asia/Tokyo")  # UTC+9, no DST
    now = datetime(2026, 5, 1, 20, 0, tzinfo=timezone.utc)  # already 2 May in Tokyo
    start, end = queue.day_bounds(now, tokyo)
    assert start == datetime(2026, 5, 1, 15, 0, tzinfo=timezone.utc)
    assert end == datetime(2026, 5, 2, 15, 0, tzinfo=timezone.utc)
    assert start <= now < end
    # one minute earlier in Tokyo terms it was still 1 May there
    start2, _ = queue.day_bounds(datetime(2026, 5, 1, 14, 59, tzinfo=timezone.utc), tokyo)
    assert start2 == datetime(2026, 4, 30, 15, 0, tzinfo=timezone.utc)


def test_day_bounds_in_a_zone_west_of_utc_across_dst():
    ny = ProjectSettings(quota_timezone="America/New_York")
    # 10 March 2024: clocks go forward at 02:00, the day has 23 hours
    now = datetime(2024, 3, 10, 12, 0, tzinfo=timezone.utc)
    start, end = queue.day_bounds(now, ny)
    assert start == datetime(2024, 3, 10, 5, 0, tzinfo=timezone.utc)
    assert end == datetime(2024, 3, 11, 4, 0, tzinfo=timezone.utc)
    assert end.astimezone(timezone.utc) - start.astimezone(timezone.utc) == timedelta(hours=23)
    # 03:30 UTC on 10 March is still the evening of 9 March in New York
    start, end = queue.day_bounds(datetime(2024, 3, 10, 3, 30, tzinfo=timezone.utc), ny)
    assert start == datetime(2024, 3, 9, 5, 0, tzinfo=timezone.utc)
    assert end == datetime(2024, 3, 10, 5, 0, tzinfo=timezone.utc)
    # a local time as input gives the same bounds
    local_now = datetime(2024, 3, 10, 8, 0, tzinfo=ZoneInfo("America/New_York"))
    assert queue.day_bounds(local_now, ny) == queue.day_bounds(now, ny)


def test_day_bounds_utc_default():
    start, end = queue.day_bounds(datetime(2026, 1, 1, 23, 59, tzinfo=timezone.utc), ProjectSettings())
    assert (start, end) == (datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(2026, 1, 2, tzinfo=timezone.utc))


def test_quota_day_follows_the_configured_zone(db, make_user, make_project, lead):
    """A submission made before local midnight does not count against the next local day."""
    pid = make_project(3, daily_quota=1, quota_timezone="Pacific/Kiritimati")  # UTC+14
    ann = make_user("ann")
    first = _finish(db, ann, pid)
    zone = ZoneInfo("Pacific/Kiritimati")
    start, _ = queue.day_bounds(datetime.now(timezone.utc), ProjectSettings(quota_timezone="Pacific/Kiritimati"))
    # move the first submission to one minute before today's local midnight in that zone
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.id == first.annotation_id)
                  .values(submitted_at=start - timedelta(minutes=1)))
    assert start.astimezone(zone).hour == 0
    assert queue.queue_status(db, ann, pid).submitted_today == 0
    assert _finish(db, ann, pid).is_submitted
    # and that one fills today's quota: nothing more is handed out today
    assert queue.queue_status(db, ann, pid).quota_reached and queue.next_item(db, ann, pid) is None


# --- blindness -------------------------------------------------------------------------------


def test_annotator_cannot_reach_anothers_annotation(db, make_user, make_project):
    pid = make_project(2)
    a, b = make_user("ann_a"), make_user("ann_b")
    ia = queue.next_item(db, a, pid)
    ib = queue.next_item(db, b, pid)
    assert ia.sample_id == ib.sample_id  # same text, separate annotations
    workbench_writes.save_draft(db, a, ia.annotation_id, 1, complete_content(note="A's secret"), step=2)
    before = _snapshot(db, ia.annotation_id)

    with pytest.raises(NotFound) as missing:
        queue.open_item(db, b, 10_000_000)
    calls = [
        lambda: queue.open_item(db, b, ia.annotation_id),
        lambda: workbench_writes.save_draft(db, b, ia.annotation_id, 2, complete_content(), step=1),
        lambda: workbench_writes.submit(db, b, ia.annotation_id, 2, complete_content()),
    ]
    for call in calls:
        with pytest.raises(NotFound) as exc:
            call()
        assert str(exc.value) == str(missing.value)  # no hint that the id exists
        assert "secret" not in str(exc.value)
    with pytest.raises(NotFound) as exc:
        workbench_events.apply_events(db, b, ia.annotation_id, "c1", 2, [{"seq": 1, "kind": "step", "step": 1}])
    assert str(exc.value) == str(missing.value)
    with pytest.raises(NotFound) as exc:
        workbench_events.apply_events(db, b, 10_000_000, "c1", 1, [{"seq": 1, "kind": "step", "step": 1}])
    assert str(exc.value) == str(missing.value)
    assert _snapshot(db, ia.annotation_id) == before

    # B's own draft is unaffected by A's note, and B sees only B's work
    assert queue.open_item(db, b, ib.annotation_id).content.note == ""
    workbench_writes.submit(db, a, ia.annotation_id, 2, complete_content())
    hist_a = queue.my_history(db, a, pid)
    hist_b = queue.my_history(db, b, pid)
    assert [h.annotation_id for h in hist_a] == [ia.annotation_id]
    assert [h.annotation_id for h in hist_b] == [ib.annotation_id]
    assert hist_a[0].status == "submitted" and hist_b[0].status == "draft"
    # even a submitted annotation of A stays hidden from B
    with pytest.raises(NotFound):
        queue.open_item(db, b, ia.annotation_id)


def test_lead_is_blind_in_the_queue_too(db, make_user, make_project, lead):
    """The queue is the annotator's view for every role: a lead annotating is blind as well."""
    pid = make_project(1)
    ann = make_user("ann")
    ia = queue.next_item(db, ann, pid)
    with pytest.raises(NotFound):
        queue.open_item(db, lead, ia.annotation_id)


def test_my_history_lists_own_rows_newest_first(db, make_user, make_project):
    pid = make_project(4)
    ann, other = make_user("ann"), make_user("other")
    first = _finish(db, ann, pid, complete_content(flags=("no_main_timeline",)))
    second = _finish(db, ann, pid)
    draft = queue.next_item(db, ann, pid)
    _finish(db, other, pid)
    hist = queue.my_history(db, ann, pid)
    assert [h.annotation_id for h in hist] == [draft.annotation_id, second.annotation_id,
                                               first.annotation_id]
    assert [h.status for h in hist] == ["draft", "submitted", "submitted"]
    assert hist[2].flags == ("no_main_timeline",)
    assert len(queue.my_history(db, ann, pid, limit=2)) == 2
    status = queue.queue_status(db, ann, pid)
    assert (status.submitted_total, status.in_progress, status.submitted_today) == (2, 1, 2)


# --- audit -----------------------------------------------------------------------------------


def test_assign_and_submit_are_audited(db, make_user, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    queue.next_item(db, ann, pid)  # handing back the same draft is no new assignment
    with db.read() as s:
        assigns = list(s.scalars(select(AuditEvent).where(AuditEvent.action == "assign")))
    assert len(assigns) == 1
    assert (assigns[0].actor_id, assigns[0].entity, assigns[0].entity_id) == (
        ann.user_id, "sample", str(item.sample_id))
    assert assigns[0].detail == {"slot": 1}

    workbench_writes.submit(db, ann, item.annotation_id, 1, complete_content(flags=("multiple_peaks",)))
    with db.read() as s:
        subs = list(s.scalars(select(AuditEvent).where(AuditEvent.action == "submit")))
    assert len(subs) == 1
    ev = subs[0]
    assert (ev.actor_id, ev.entity, ev.entity_id) == (ann.user_id, "annotation", str(item.annotation_id))
    assert ev.detail == {"sample": item.external_id, "flags": ["multiple_peaks"]}
    assert ev.at is not None


def test_failed_submit_leaves_no_audit_event(db, make_user, make_project, lead):
    pid = make_project(2, daily_quota=2)
    ann = make_user("ann")
    _finish(db, ann, pid)
    item = queue.next_item(db, ann, pid)
    projects.update_settings(db, lead, pid, daily_quota=1)
    with pytest.raises(QuotaReached):
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    with pytest.raises(InvalidInput):
        workbench_writes.submit(db, ann, item.annotation_id, _row(db, item.annotation_id).version,
                                AnnotationContent())
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 1


def test_flagged_submit_never_stores_parameters_the_points_do_not_support(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    content = AnnotationContent(points=((30.0, 1.0),), xi=50.0, omega=9.0, alpha=1.0, scale=3.0,
                                rmse=0.0, flags=("multiple_peaks",))
    workbench_writes.submit(db, ann, item.annotation_id, 1, content)
    row = _row(db, item.annotation_id)
    assert (row.xi, row.omega, row.alpha, row.scale, row.rmse) == (None, None, None, None, None)


def test_unflagged_submit_names_the_fit_problem_with_the_other_problems(db, make_user, make_project):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    two_peaks = ((10.0, 1.0), (30.0, 0.1), (50.0, 1.0))
    content = AnnotationContent(boundaries=(0,), segment_axes=(None,), points=two_peaks)
    with pytest.raises(InvalidInput) as err:
        workbench_writes.submit(db, ann, item.annotation_id, 1, content)
    message = str(err.value)
    assert "Axis labels" in message and "both peaks" in message
    assert "do not define a curve" not in message
