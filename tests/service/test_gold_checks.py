"""Ongoing gold checks (issue 12 item 6) on SQLite and PostgreSQL: hand-out at the configured
share, indistinguishable from production for the annotator, scored on submit, never in k,
flags, σ, settling, agreement or the export; the pause, its lift by a lead, roles, double lift."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from sqlalchemy import func, select

from annotation.curves.distance import curve_distance
from annotation.quality.gold_checks import handout_seed, is_check_handout
from annotation.services.quality import agreement, gold_checks, qualification
from annotation.services.export import exports
from annotation.services.workbench import queue
from annotation.services.review import resolving, settling, warmup_set
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied, StaleVersion
from db.models import (
    Annotation,
    Assignment,
    AuditEvent,
    GoldAnnotation,
    GoldCheck,
    GoldCheckPause,
    ParameterStats,
    ReviewItem,
    Sample,
)
from service_helpers import complete_content, count
import workbench_writes

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
SPLIT = dict(boundaries=(0, 4), segment_axes=("static", "main"))
GOLD = (30.0, 8.0, 0.5)


def manual(xi, omega, alpha, **overrides):
    """A complete annotation with hand-tuned parameters (submit keeps them) and the gold split."""
    return complete_content(**{**SPLIT, **overrides}, xi=xi, omega=omega, alpha=alpha,
                            params_source="manual")


EXACT = manual(*GOLD)
FAR = manual(90.0, 8.0, 0.5)  # W1 60 log-time units from the gold: fails


@pytest.fixture
def checked_project(db, lead, make_project):
    """Factory: ``n`` texts, the newest ``n_warm`` of them the warm-up set with gold ``GOLD``."""

    def _make(n: int, n_warm: int, **settings) -> tuple[int, list[str]]:
        pid = make_project(n, **settings)
        warm = [f"S-{i:03d}" for i in range(n - n_warm, n)]
        warmup_set.mark_warmup(db, lead, pid, warm)
        for ext in warm:
            warmup_set.set_warmup_gold(db, lead, _sample_id(db, pid, ext), **SPLIT, xi=GOLD[0],
                                       omega=GOLD[1], alpha=GOLD[2])
        return pid, warm

    return _make


def _sample_id(db, pid, ext) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == ext))


def admitted(db, lead, make_user, pid, name):
    user = make_user(name)
    qualification.admit(db, lead, pid, user.user_id, "experienced annotator")
    return user


def is_check(db, annotation_id) -> bool:
    with db.read() as s:
        return bool(s.get(Annotation, annotation_id).is_gold_check)


def work(db, user, pid, n, check_content=EXACT, production_content=None):
    """Take and submit ``n`` hand-outs; returns [(item, was a check)] in order."""
    done = []
    for _ in range(n):
        item = queue.next_item(db, user, pid)
        assert item is not None
        check = is_check(db, item.annotation_id)
        content = check_content if check else (production_content or complete_content())
        workbench_writes.submit(db, user, item.annotation_id, item.version, content)
        done.append((item, check))
    return done


def test_checks_come_at_the_configured_share_and_look_like_production(db, lead, make_user, checked_project):
    pid, warm = checked_project(40, 8, gold_check_share=0.25)
    ann = admitted(db, lead, make_user, pid, "ann")
    done = work(db, ann, pid, 20)
    picks = [n for n, (_, check) in enumerate(done, 1) if check]
    # the seeded schedule: exactly one check in each block of ⌈1 / 0.25⌉ = 4 hand-outs
    assert picks == [n for n in range(1, 21) if is_check_handout(n, 0.25, handout_seed(pid, ann.user_id))]
    assert len(picks) == 5 and [(n - 1) // 4 for n in picks] == [0, 1, 2, 3, 4]
    checks = [item for item, check in done if check]
    assert [c.external_id for c in checks] == warm[:5]  # the oldest material they never had
    # the annotator's data carries nothing that tells a check apart
    assert all(not item.is_warmup and item.returned_note == "" for item, _ in done)
    assert {f.name for f in dataclasses.fields(queue.WorkItem)}.isdisjoint({"is_gold_check", "gold_check"})
    opened = queue.open_item(db, ann, checks[0].annotation_id)
    assert not opened.is_warmup and opened.is_submitted
    history = queue.my_history(db, ann, pid)
    assert len(history) == 20 and {type(h) for h in history} == {queue.HistoryRow}
    assert {f.name for f in dataclasses.fields(queue.HistoryRow)}.isdisjoint({"is_gold_check", "gold_check", "is_warmup"})
    status = queue.queue_status(db, ann, pid)
    assert (status.submitted_today, status.submitted_total, status.paused) == (20, 20, False)  # checks count
    mine = qualification.my_qualification(db, ann, pid)
    assert mine.n_done == 0  # not warm-up work
    with db.read() as s:  # no slot taken: k and n_assigned untouched
        for c in checks:
            assert s.get(Sample, c.sample_id).n_assigned == 0
            assert s.scalar(select(Assignment.slot).where(Assignment.sample_id == c.sample_id)) == 0
        assert s.scalar(select(Annotation.is_gold_check).where(Annotation.id == done[0][0].annotation_id)) is (1 in picks)


def test_no_checks_when_the_share_is_zero_or_the_material_is_used_up(db, lead, make_user, checked_project):
    pid, _ = checked_project(12, 2)
    ann = admitted(db, lead, make_user, pid, "ann")
    assert not any(check for _, check in work(db, ann, pid, 6))
    pid2, warm = checked_project(14, 2, gold_check_share=0.5)
    bob = admitted(db, lead, make_user, pid2, "bob")
    done = work(db, bob, pid2, 10)
    assert [item.external_id for item, check in done if check] == warm  # then production only
    assert len(done) == 10


def test_a_check_is_scored_against_gold_on_submit(db, lead, make_user, checked_project):
    pid, _ = checked_project(10, 4, gold_check_share=0.5)
    ann = admitted(db, lead, make_user, pid, "ann")
    shifted = manual(38.0, 8.0, 0.5, boundaries=(0,), segment_axes=("main",))
    work(db, ann, pid, 4, check_content=shifted)
    with db.read() as s:
        rows = list(s.scalars(select(GoldCheck).where(GoldCheck.user_id == ann.user_id).order_by(GoldCheck.id)))
    assert len(rows) == 2
    # one segment labelled main against static (4 tokens) + main (10 tokens): 10 pairs agree,
    # 14 + 14 − 10 in the union: J = 10 / 18
    w1 = curve_distance((38.0, 8.0, 0.5), GOLD).w1
    for row in rows:
        assert row.w1 == pytest.approx(w1, abs=1e-9) and w1 < 12.0
        assert row.jaccard == pytest.approx(10 / 18)
        assert row.pk is not None and row.pk > 0.15
        assert row.passed is False  # J below 0.75 and Pk above 0.15
    overview = gold_checks.gold_check_overview(db, lead, pid)
    assert [c.annotator for c in overview.checks] == ["ann", "ann"]
    assert overview.annotators[0].n_checks == 2 and overview.annotators[0].window_share is None  # window 10


def test_checks_stay_out_of_k_flags_sigma_settling_agreement_and_export(db, lead, make_user, checked_project, tmp_path):
    pid, warm = checked_project(16, 6, gold_check_share=0.5)
    ann1, ann2 = (admitted(db, lead, make_user, pid, n) for n in ("ann1", "ann2"))
    flagged_check = complete_content(**SPLIT, flags=("not_present_tense",))
    for _ in range(8):  # both get the same checks and the same production samples
        work(db, ann1, pid, 1)
        work(db, ann2, pid, 1, check_content=flagged_check)
    with db.read() as s:
        check_ids = set(s.scalars(select(Annotation.sample_id).where(Annotation.is_gold_check.is_(True))))
        prod = s.scalar(select(ParameterStats).where(ParameterStats.project_id == pid))
        n_prod = count(db, Annotation, Annotation.is_gold_check.is_(False), Annotation.status == "submitted")
        assert len(check_ids) >= 2 and n_prod >= 6
        # two submitted checks per check sample, yet nothing settled, flagged or counted there
        assert prod.n == n_prod  # σ's running sums: production only
        assert settling._sums_from_annotations(s, pid)[0] == n_prod
        assert not list(s.scalars(select(ReviewItem).where(ReviewItem.sample_id.in_(check_ids))))
        assert {g.source for g in s.scalars(select(GoldAnnotation).where(
            GoldAnnotation.sample_id.in_(check_ids)))} == {"warmup"}
    summary = resolving.resolve_project(db, lead, pid, recheck=True)
    assert summary.gold + summary.flagged + summary.pending + summary.incomplete + summary.settled == n_prod // 2
    assert count(db, ReviewItem, ReviewItem.sample_id.in_(check_ids)) == 0
    scope = agreement.project_agreement(db, lead, pid)
    check_exts = {e for e in warm if _sample_id(db, pid, e) in check_ids}
    assert scope.report.n_samples == n_prod // 2
    assert not {smp.sample_id for smp in scope.samples} & check_exts
    rec = exports.export_dataset(db, lead, pid, tmp_path / "out", seed=1)
    assert rec.n_annotations == n_prod
    exported = [json.loads(line) for f in (tmp_path / "out" / "annotations").glob("*.json")
                for line in f.read_text().splitlines() if line.strip()]
    assert len(exported) == n_prod and all(r["sample_id"] for r in exported)
    assert not {r["sample_id"] for r in exported} & check_exts


def _pause_rows(db, pid, user):
    with db.read() as s:
        return list(s.scalars(select(GoldCheckPause).where(GoldCheckPause.project_id == pid,
                                                           GoldCheckPause.user_id == user.user_id)
                              .order_by(GoldCheckPause.id)))


def test_failing_checks_pause_the_annotator_until_a_lead_lifts_it(db, lead, make_user, checked_project):
    pid, _ = checked_project(20, 8, gold_check_share=0.5, gold_check_window=2, gold_check_min_pass=0.6)
    ann = admitted(db, lead, make_user, pid, "ann")
    checks = 0
    while not queue.queue_status(db, ann, pid).paused:
        (_, check), = work(db, ann, pid, 1, check_content=FAR)
        checks += check
        assert checks <= 2
    assert checks == 2
    (pause,) = _pause_rows(db, pid, ann)
    assert pause.lifted_at is None and pause.figures["share"] == 0.0 and pause.figures["window"] == 2
    with db.read() as s:
        assert s.scalar(select(AuditEvent).where(AuditEvent.action == "gold_check_pause",
                                                 AuditEvent.entity_id == str(pause.id))) is not None
    assert queue.next_item(db, ann, pid) is None  # no production work while paused
    overview = gold_checks.gold_check_overview(db, lead, pid)
    assert [(p.annotator, p.pause_id) for p in overview.pauses] == [("ann", pause.id)]
    # roles, a missing note, an unknown pause: refused, nothing changed
    with pytest.raises(PermissionDenied):
        gold_checks.lift_pause(db, ann, pause.id, "I lift my own pause")
    with pytest.raises(PermissionDenied):
        gold_checks.gold_check_overview(db, ann, pid)
    with pytest.raises(InvalidInput):
        gold_checks.lift_pause(db, lead, pause.id, "  ")
    with pytest.raises(NotFound):
        gold_checks.lift_pause(db, lead, pause.id + 99, "why")
    assert _pause_rows(db, pid, ann)[0].lifted_at is None
    gold_checks.lift_pause(db, lead, pause.id, "Went through the guidelines together.")
    lifted = _pause_rows(db, pid, ann)[0]
    assert lifted.lifted_by == lead.user_id and lifted.lift_note == "Went through the guidelines together."
    with pytest.raises(StaleVersion, match="already lifted by lead1"):  # a stale tab's second lift
        gold_checks.lift_pause(db, lead, pause.id, "again")
    assert _pause_rows(db, pid, ann)[0].lift_note == lifted.lift_note
    assert not queue.queue_status(db, ann, pid).paused
    # the window restarts: one more failed check is not a full window, so no new pause
    checks = 0
    while checks < 1:
        (_, check), = work(db, ann, pid, 1, check_content=FAR)
        checks += check
    assert len(_pause_rows(db, pid, ann)) == 1 and not queue.queue_status(db, ann, pid).paused
    assert gold_checks.gold_check_overview(db, lead, pid).annotators[0].n_since_lift == 1


def test_a_paused_annotator_cannot_submit_production_work(db, lead, make_user, checked_project):
    pid, _ = checked_project(10, 2, gold_check_share=0.5)
    ann = admitted(db, lead, make_user, pid, "ann")
    item = queue.next_item(db, ann, pid)
    with db.write() as s:  # paused meanwhile (another tab's check)
        s.add(GoldCheckPause(project_id=pid, user_id=ann.user_id, figures={}, lift_note=""))
    with pytest.raises(InvalidInput, match="paused"):
        workbench_writes.submit(db, ann, item.annotation_id, item.version,
                          EXACT if is_check(db, item.annotation_id) else complete_content())
    assert queue.open_item(db, ann, item.annotation_id).status == "draft"
    assert queue.next_item(db, ann, pid) is None


def test_checks_pass_when_close_to_gold(db, lead, make_user, checked_project):
    pid, _ = checked_project(12, 4, gold_check_share=0.5, gold_check_window=2)
    ann = admitted(db, lead, make_user, pid, "ann")
    work(db, ann, pid, 8)
    with db.read() as s:
        rows = list(s.scalars(select(GoldCheck).where(GoldCheck.user_id == ann.user_id)))
    assert len(rows) == 4
    assert all(r.passed and r.w1 == pytest.approx(0.0, abs=1e-9) and r.jaccard == 1.0 and r.pk == 0.0
               for r in rows)
    assert not _pause_rows(db, pid, ann)
    person = gold_checks.gold_check_overview(db, lead, pid).annotators[0]
    assert person.window_share == 1.0 and person.pause is None
    assert not math.isnan(person.window_share)


def test_a_check_submitted_through_the_workbench_events_is_scored_like_any_submit(db, lead, make_user, checked_project):
    from annotation.services.workbench import workbench_events

    pid, _ = checked_project(10, 4, gold_check_share=0.5)
    ann = admitted(db, lead, make_user, pid, "ann")
    item = queue.next_item(db, ann, pid)
    while not is_check(db, item.annotation_id):
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
        item = queue.next_item(db, ann, pid)
    points = [{"kind": "point", "action": "add", "x": x, "y": y} for x, y in complete_content().points]
    events = [{"kind": "boundary", "gap": 4}, {"kind": "axis", "segment": 0, "axis": "static"},
              {"kind": "axis", "segment": 1, "axis": "main"}, *points, {"kind": "step", "step": 2},
              {"kind": "submit", "flagged": False}]
    out = workbench_events.apply_events(db, ann, item.annotation_id, "c0ffee0123456789", item.version,
                                        [{"seq": i, **e} for i, e in enumerate(events, 1)])
    assert out.submitted and not out.item.is_warmup
    with db.read() as s:
        row = s.scalar(select(GoldCheck).where(GoldCheck.annotation_id == item.annotation_id))
        assert row.jaccard == 1.0 and row.pk == 0.0 and row.w1 is not None
        n_prod = count(db, Annotation, Annotation.is_gold_check.is_(False), Annotation.status == "submitted")
        assert (s.scalar(select(ParameterStats.n)) or 0) == n_prod  # the check is not in σ's sums


def test_the_dashboard_counts_checks_apart_from_production(db, lead, make_user, checked_project):
    from annotation.services.quality import dashboard

    pid, _ = checked_project(12, 4, gold_check_share=0.5)
    ann1, ann2 = (admitted(db, lead, make_user, pid, n) for n in ("ann1", "ann2"))
    for _ in range(6):
        work(db, ann1, pid, 1)
        work(db, ann2, pid, 1)
    n_checks = count(db, Annotation, Annotation.is_gold_check.is_(True))
    summary = dashboard.annotator_dashboard(db, lead, pid).summary.set_index("annotator")
    assert int(summary["warmup"].sum()) == n_checks > 0
    # complete samples: the production ones only (check samples have two submissions too)
    with db.read() as s:
        prod_done = {sid for sid, in s.execute(select(Annotation.sample_id).where(
            Annotation.is_gold_check.is_(False), Annotation.status == "submitted"))}
    assert int(summary.loc["ann1", "complete_samples"]) <= len(prod_done)


# --- review fixes: re-admission after checks, a flagged check, slots of a paused annotator ---------

def test_a_revoked_annotator_who_had_checks_can_complete_the_warm_up_again(db, lead, make_user, checked_project):
    """Samples a user had as gold checks are never offered to them as warm-up, so they leave
    that user's warm-up total: doing every warm-up sample offered completes the set."""
    pid, warm = checked_project(40, 8, gold_check_share=0.25)
    ann = admitted(db, lead, make_user, pid, "ann")
    done = work(db, ann, pid, 8)
    assert sum(check for _, check in done) == 2
    qualification.revoke(db, lead, pid, ann.user_id, "let us look at your curves again")
    added = ["S-030", "S-031"]  # the lead adds two samples to the warm-up set
    warmup_set.mark_warmup(db, lead, pid, added)
    for ext in added:
        warmup_set.set_warmup_gold(db, lead, _sample_id(db, pid, ext), **SPLIT, xi=GOLD[0],
                                   omega=GOLD[1], alpha=GOLD[2])
    offered = 0
    while (item := queue.next_item(db, ann, pid)) is not None and item.is_warmup:
        assert not is_check(db, item.annotation_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, EXACT)
        offered += 1
        assert offered <= 10
    assert offered == 8  # the 10 samples of the set less the 2 they had as checks
    mine = qualification.my_qualification(db, ann, pid)
    assert (mine.n_done, mine.n_total, mine.remaining) == (8, 8, 0)
    assert mine.figures.complete  # the rule can judge them again …
    # … and admits an exact copy of the gold (every gold curve alike: the curve rule, W1 0)
    assert mine.standing == qualification.PASSED and item is not None and not item.is_warmup
    board = qualification.qualification_board(db, lead, pid)
    (row,) = [r for r in board.rows if r.user_id == ann.user_id]
    assert (row.figures.n_done, row.figures.n_total, board.n_total) == (8, 8, 10)


def test_a_check_draft_left_open_at_a_revoke_waits_and_is_never_warm_up(db, lead, make_user, checked_project):
    pid, warm = checked_project(40, 8, gold_check_share=0.5)
    ann = admitted(db, lead, make_user, pid, "ann")
    while not is_check(db, (item := queue.next_item(db, ann, pid)).annotation_id):
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    check_draft = item
    qualification.revoke(db, lead, pid, ann.user_id, "back to warm-up")
    offered = queue.next_item(db, ann, pid)
    # the warm-up sample comes with its badge; the check's draft waits (like production drafts)
    assert offered.annotation_id != check_draft.annotation_id
    assert offered.is_warmup and not is_check(db, offered.annotation_id)
    mine = qualification.my_qualification(db, ann, pid)
    assert mine.n_total == len(warm) - 1  # the check's sample is not offered as warm-up
    qualification.admit(db, lead, pid, ann.user_id, "fine after all")
    back = queue.next_item(db, ann, pid)  # admitted again: the check's draft, as production work
    assert back.annotation_id == check_draft.annotation_id and not back.is_warmup


def test_a_flagged_check_is_kept_unjudged_with_its_flag_and_note(db, lead, make_user, checked_project):
    """A check the annotator flags (a text that cannot be annotated normally) is not a failure:
    stored with passed None, out of the window (no pause), its flags and note shown to the lead."""
    pid, _ = checked_project(20, 8, gold_check_share=0.5, gold_check_window=2, gold_check_min_pass=0.6)
    ann = admitted(db, lead, make_user, pid, "ann")
    garbled = complete_content(boundaries=(0,), segment_axes=(None,), points=(), xi=None, omega=None,
                               alpha=None, flags=("other",), note="The text is cut off mid-sentence.")
    n_checks = 0
    while n_checks < 3:
        (_, check), = work(db, ann, pid, 1, check_content=garbled)
        n_checks += check
    assert not queue.queue_status(db, ann, pid).paused  # three flagged checks: no pause
    with db.read() as s:
        rows = list(s.scalars(select(GoldCheck).where(GoldCheck.user_id == ann.user_id)))
    assert len(rows) == 3 and all(r.passed is None for r in rows)
    overview = gold_checks.gold_check_overview(db, lead, pid)
    assert [(c.flags, c.note, c.passed) for c in overview.checks] == [
        (("other",), "The text is cut off mid-sentence.", None)] * 3
    (standing,) = overview.annotators
    assert (standing.n_checks, standing.n_since_lift, standing.window_share) == (3, 0, None)


def _seed_production_draft(db, pid, user, ext, **content) -> int:
    """An open production draft of ``user`` on ``ext`` holding a slot (as the queue makes one)."""
    from db.models import utcnow

    with db.write() as s:
        smp = s.scalar(select(Sample).where(Sample.project_id == pid, Sample.external_id == ext))
        smp.n_assigned += 1
        s.add(Assignment(sample_id=smp.id, user_id=user.user_id, slot=smp.n_assigned, assigned_at=utcnow()))
        a = Annotation(sample_id=smp.id, annotator_id=user.user_id, status="draft", version=1, step=0,
                       boundaries=[0], segment_axes=[None], points=[], flags=[], note="",
                       guidelines_version="1.0", seconds_spent=30.0, created_at=utcnow(),
                       updated_at=utcnow())
        for key, value in content.items():
            setattr(a, key, value)
        s.add(a)
        s.flush()
        return a.id


def test_a_pause_gives_back_the_slots_of_empty_drafts_and_keeps_typed_work(db, lead, make_user, checked_project):
    pid, _ = checked_project(40, 8, gold_check_share=0.5, gold_check_window=2, gold_check_min_pass=0.6)
    ann = admitted(db, lead, make_user, pid, "ann")
    failed = 0
    while failed < 2:
        item = queue.next_item(db, ann, pid)
        check = is_check(db, item.annotation_id)
        if check and failed == 1:  # the failing check that pauses: ann holds two open drafts
            empty = _seed_production_draft(db, pid, ann, "S-020")
            typed = _seed_production_draft(db, pid, ann, "S-021", step=1, boundaries=[0, 3],
                                           segment_axes=["static", None])
        workbench_writes.submit(db, ann, item.annotation_id, item.version, FAR if check else complete_content())
        failed += check
    assert queue.queue_status(db, ann, pid).paused
    with db.read() as s:
        assert s.get(Annotation, empty) is None  # nothing typed: released
        assert s.scalar(select(Sample.n_assigned).where(Sample.project_id == pid, Sample.external_id == "S-020")) == 0
        assert s.scalar(select(func.count()).select_from(Assignment).join(Sample, Sample.id == Assignment.sample_id)
                        .where(Sample.external_id == "S-020", Sample.project_id == pid)) == 0
        kept = s.get(Annotation, typed)  # typed work: kept, with its slot
        assert kept.status == "draft" and kept.boundaries == [0, 3]
        assert s.scalar(select(Sample.n_assigned).where(Sample.project_id == pid, Sample.external_id == "S-021")) == 1
        assert s.scalar(select(AuditEvent).where(AuditEvent.action == "release_slot")) is not None
    (pause,) = _pause_rows(db, pid, ann)
    assert (pause.figures["released_drafts"], pause.figures["kept_drafts"]) == (1, 1)


def test_the_overview_has_the_lifts_the_trend_restarts_at(db, lead, make_user, checked_project):
    from ui.gold_check_trend import trend_frame

    pid, _ = checked_project(40, 8, gold_check_share=0.5, gold_check_window=2, gold_check_min_pass=0.6)
    ann = admitted(db, lead, make_user, pid, "ann")
    while not queue.queue_status(db, ann, pid).paused:
        work(db, ann, pid, 1, check_content=FAR)
    (pause,) = _pause_rows(db, pid, ann)
    gold_checks.lift_pause(db, lead, pause.id, "Talked it through.")
    n_checks = 0
    while n_checks < 1:  # one passed check after the lift
        (_, check), = work(db, ann, pid, 1, check_content=EXACT)
        n_checks += check
    overview = gold_checks.gold_check_overview(db, lead, pid)
    assert overview.lifts == {ann.user_id: (_pause_rows(db, pid, ann)[0].lifted_at,)}
    frame = trend_frame(overview.checks, 2, overview.lifts)
    # before the lift: two failures, 0 %; after it one check is not a full window (the rule's
    # own count), where a share over all checks would show 50 %
    assert [None if math.isnan(v) else v for v in frame["window_share"]] == [None, 0.0, None]
    assert list(trend_frame(overview.checks, 2)["window_share"])[-1] == 0.5  # without lifts
