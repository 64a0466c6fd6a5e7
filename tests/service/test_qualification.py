"""Warm-up and qualification (SPEC section 5) on SQLite and PostgreSQL: routing, isolation of
warm-up samples from production, figures against gold, automatic and lead admission, roles."""

from __future__ import annotations

import pytest
import segeval
from sqlalchemy import select

from annotation.quality.qualification import Thresholds
from annotation.services.quality import agreement, qualification
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.review import resolving, review, warmup_set
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from db.models import (
    Annotation,
    AuditEvent,
    GoldAnnotation,
    ParameterStats,
    Qualification,
    ReviewItem,
    Sample,
)
from service_helpers import complete_content, count
import workbench_writes

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
GOLD_SPLIT = dict(boundaries=(0, 4), segment_axes=("static", "main"))
#: The gold curves of the three warm-up samples S-002, S-003, S-004 (ξ, ω, α).
GOLD_CURVES = {"S-002": (30.0, 8.0, 0.5), "S-003": (50.0, 10.0, 1.0), "S-004": (70.0, 12.0, 1.5)}
WARMUP_IDS = tuple(GOLD_CURVES)


def manual(xi, omega, alpha, **split):
    """A complete annotation whose parameters were tuned by hand (submit keeps them)."""
    return complete_content(**(split or GOLD_SPLIT), xi=xi, omega=omega, alpha=alpha,
                            params_source="manual")


def sample_id(db, pid, external_id) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == external_id))


@pytest.fixture
def warm_project(db, lead, make_project):
    """Six texts, k = 2; S-002…S-004 are the warm-up set with gold (not the oldest samples,
    so handing them first is the routing, not the id order)."""
    pid = make_project(6)
    assert warmup_set.mark_warmup(db, lead, pid, list(WARMUP_IDS)) == list(WARMUP_IDS)
    for ext, (xi, omega, alpha) in GOLD_CURVES.items():
        warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, ext), boundaries=GOLD_SPLIT["boundaries"],
                                   segment_axes=GOLD_SPLIT["segment_axes"], xi=xi, omega=omega, alpha=alpha)
    return pid


def do_warmup(db, user, pid, contents):
    """Submit the user's warm-up samples in order with ``contents[external_id]``."""
    seen = []
    for _ in contents:
        item = queue.next_item(db, user, pid)
        assert item is not None and item.is_warmup, item
        workbench_writes.submit(db, user, item.annotation_id, item.version, contents[item.external_id])
        seen.append(item.external_id)
    return seen


def perfect(ext):
    return manual(*GOLD_CURVES[ext])


def status_of(db, pid, user) -> str | None:
    with db.read() as s:
        return s.scalar(select(Qualification.status).where(Qualification.project_id == pid,
                                                           Qualification.user_id == user.user_id))


# --- routing -------------------------------------------------------------------------------------


def test_a_new_annotator_gets_the_warmup_set_first_then_production(db, make_user, warm_project):
    pid = warm_project
    ann = make_user("ann")
    assert qualification.my_qualification(db, ann, pid).in_warmup
    seen = do_warmup(db, ann, pid, {e: perfect(e) for e in WARMUP_IDS})
    assert seen == list(WARMUP_IDS)
    assert status_of(db, pid, ann) == "admitted"  # perfect copy: admitted at the last one
    item = queue.next_item(db, ann, pid)
    assert (item.external_id, item.is_warmup) == ("S-000", False)


def test_an_admitted_annotator_never_gets_a_warmup_sample(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    qualification.admit(db, lead, pid, ann.user_id, note="experienced annotator")
    got = []
    while (item := queue.next_item(db, ann, pid)) is not None:
        got.append(item.external_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert got == ["S-000", "S-001", "S-005"]


def test_warmup_samples_are_not_subject_to_k(db, make_user, warm_project):
    pid = warm_project  # k = 2
    users = [make_user(f"u{i}") for i in range(3)]
    firsts = [queue.next_item(db, u, pid) for u in users]
    assert {i.external_id for i in firsts} == {"S-002"}
    with db.read() as s:
        assert s.get(Sample, firsts[0].sample_id).n_assigned == 3


def test_in_warmup_after_the_set_nothing_until_admitted(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    do_warmup(db, ann, pid, {e: manual(40.0, 9.0, 0.0, boundaries=(0,), segment_axes=("opinion",))
                             for e in WARMUP_IDS})
    assert status_of(db, pid, ann) == "warmup"
    assert queue.next_item(db, ann, pid) is None
    mine = qualification.my_qualification(db, ann, pid)
    assert (mine.n_done, mine.n_total, mine.remaining, mine.in_warmup) == (3, 3, 0, True)
    qualification.admit(db, lead, pid, ann.user_id, note="close enough, discussed the axes")
    assert queue.next_item(db, ann, pid).external_id == "S-000"


def test_a_lead_who_annotates_does_the_warmup_too(db, lead, warm_project):
    item = queue.next_item(db, lead, warm_project)
    assert item.is_warmup and item.external_id == "S-002"


def test_marked_samples_without_gold_go_to_nobody(db, make_user, lead, make_project):
    pid = make_project(3)
    warmup_set.mark_warmup(db, lead, pid, ["S-000"])  # no gold: no warm-up set yet
    ann = make_user("ann")
    assert not qualification.my_qualification(db, ann, pid).in_warmup
    got = []
    while (item := queue.next_item(db, ann, pid)) is not None:
        got.append(item.external_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert got == ["S-001", "S-002"]
    assert queue.pool_size(db, ann, pid) == 2  # S-001 and S-002 need one more annotator each


def test_without_a_warmup_set_everyone_is_admitted_implicitly(db, make_user, lead, make_project):
    pid = make_project(2)
    ann = make_user("ann")
    mine = qualification.my_qualification(db, ann, pid)
    assert (mine.has_set, mine.in_warmup, mine.standing) == (False, False, qualification.IMPLICIT)
    assert queue.next_item(db, ann, pid).external_id == "S-000"
    assert count(db, Qualification) == 0  # nothing written for projects without warm-up


def test_pool_size_leaves_warmup_samples_out(db, make_user, warm_project):
    ann = make_user("ann")
    assert queue.pool_size(db, ann, warm_project) == 3 * 2  # S-000, S-001, S-005 with k = 2


# --- isolation from production ------------------------------------------------------------------


def test_warmup_submissions_never_settle_flag_or_count(db, make_user, lead, warm_project):
    pid = warm_project
    a, b = make_user("ann_a"), make_user("ann_b")
    do_warmup(db, a, pid, {e: perfect(e) for e in WARMUP_IDS})
    # b disagrees with a everywhere: would be flagged if these were production samples
    do_warmup(db, b, pid, {e: manual(90.0, 30.0, -3.0, boundaries=(0, 7), segment_axes=("main", "opinion"))
                           for e in WARMUP_IDS})
    assert count(db, ReviewItem) == 0
    with db.read() as s:
        assert {g.source for g in s.scalars(select(GoldAnnotation))} == {"warmup"}
        assert s.get(ParameterStats, pid).n == 0
    assert resolving.resolve_project(db, lead, pid).gold == 0
    assert review.review_queue(db, lead, pid) == []
    assert agreement.project_agreement(db, lead, pid).report.n_samples == 0
    with db.read() as s:
        assert {g.source for g in s.scalars(select(GoldAnnotation))} == {"warmup"}


# --- figures ------------------------------------------------------------------------------------


def test_perfect_copy_of_gold_scores_perfectly_and_is_admitted_by_the_rule(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    do_warmup(db, ann, pid, {e: perfect(e) for e in WARMUP_IDS[:2]})
    assert status_of(db, pid, ann) == "warmup"  # figures pass, but the set is not finished
    do_warmup(db, ann, pid, {WARMUP_IDS[2]: perfect(WARMUP_IDS[2])})
    mine = qualification.my_qualification(db, ann, pid)
    f = mine.figures
    assert f.icc == {"xi": pytest.approx(1.0), "omega": pytest.approx(1.0), "alpha": pytest.approx(1.0)}
    assert (f.jaccard, f.pk, f.n_done, f.n_total) == (1.0, 0.0, 3, 3)
    assert all(mine.checks.values()) and not mine.in_warmup
    assert mine.standing == qualification.PASSED
    with db.read() as s:
        [event] = s.scalars(select(AuditEvent).where(AuditEvent.action == "qualification_admit_rule"))
        assert event.actor_id is None and event.detail["user"] == ann.user_id
        assert event.detail["figures"]["jaccard"] == 1.0
        row = s.scalar(select(Qualification))
        assert row.figures["icc_min"] == pytest.approx(1.0) and not row.overridden


def test_poor_warmup_figures_match_hand_computed_values_and_do_not_admit(db, make_user, warm_project):
    pid = warm_project
    ann = make_user("ann")
    # ξ: (30, 50, 80) vs gold (30, 50, 70); ω: (12, 10, 8) vs (8, 10, 12); α as gold.
    mine = {"S-002": (30.0, 12.0, 0.5), "S-003": (50.0, 10.0, 1.0), "S-004": (80.0, 8.0, 1.5)}
    do_warmup(db, ann, pid, {e: manual(*mine[e], boundaries=(0,), segment_axes=("main",)) for e in WARMUP_IDS})
    f = qualification.my_qualification(db, ann, pid).figures
    # ICC(1,1) = (MSB − MSW) / (MSB + MSW) for two raters.
    # ξ: row means 30, 50, 75, grand mean 310/6: MSB = 9150/9, MSW = 50/3 → 9000/9300.
    assert f.icc["xi"] == pytest.approx(9000 / 9300)
    # ω: every row mean is 10, so MSB = 0 and the ICC is −1.
    assert f.icc["omega"] == pytest.approx(-1.0)
    assert f.icc["alpha"] == pytest.approx(1.0)
    assert f.icc_min == pytest.approx(-1.0)
    # one segment "main" vs gold static(4 tokens) | main(10): 10 shared pairs of 14 + 14 − 10.
    assert f.jaccard == pytest.approx(10 / 18)
    pk = float((segeval.pk((14,), (4, 10)) + segeval.pk((4, 10), (14,))) / 2)
    assert f.pk == pytest.approx(pk)
    assert status_of(db, pid, ann) == "warmup"
    board = qualification.qualification_board(db, make_user("lead2", "lead"), pid)
    [row] = [r for r in board.rows if r.username == "ann"]
    assert row.standing == qualification.IN_WARMUP
    # three warm-up samples are too few for the ICC to judge: the curve rule does, and these
    # curves lie at most W1 7.4 from the gold (S-004), within the project's 12.0
    assert row.figures.curve_rule == "w1" and row.figures.w1_max == pytest.approx(7.3766, abs=1e-3)
    assert row.checks == {"curve": True, "jaccard": False, "pk": pk < 0.15}
    assert "ICC not used: 3 warm-up samples with a curve (it needs ≥ 30)" in row.verdicts["curve"].text
    assert (row.figures.n_done, board.n_total) == (3, 3)


def test_changing_gold_rechecks_and_can_admit(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    contents = {e: perfect(e) for e in WARMUP_IDS}
    contents["S-004"] = manual(70.0, 12.0, 1.5, boundaries=(0, 4), segment_axes=("static", "opinion"))
    do_warmup(db, ann, pid, contents)
    f = qualification.my_qualification(db, ann, pid).figures
    # S-004: 4 of 14 tokens agree → 4 / (14 + 14 − 4); the mean is below 0.75
    assert f.jaccard == pytest.approx((1 + 1 + 4 / 24) / 3)
    assert status_of(db, pid, ann) == "warmup"
    # the lead decides both axes belong to the second segment: the annotator's "opinion" counts
    warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, "S-004"), boundaries=(0, 4),
                               segment_axes=("static", ["main", "opinion"]), xi=70.0, omega=12.0, alpha=1.5)
    f = qualification.my_qualification(db, ann, pid).figures
    # gold pairs 4 + 2·10 = 24, all 14 of the annotator's among them
    assert f.jaccard == pytest.approx((1 + 1 + 14 / 24) / 3)
    # the mean (0.861) would pass, but a mean over 3 samples is withheld (it needs 10): every
    # sample is judged, and S-004's 14/24 = 0.583 does not pass on its own
    assert f.by_each_sample("jaccard") and f.jaccard_lowest == pytest.approx(14 / 24)
    assert status_of(db, pid, ann) == "warmup"
    # the lead decides the second segment is an opinion: the annotator agrees on every sample
    warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, "S-004"), boundaries=(0, 4),
                               segment_axes=("static", "opinion"), xi=70.0, omega=12.0, alpha=1.5)
    assert qualification.my_qualification(db, ann, pid).figures.jaccard_lowest == 1.0
    assert status_of(db, pid, ann) == "admitted"  # the re-check admitted by the rule


def test_thresholds_come_from_the_settings(db, make_user, lead, warm_project):
    pid = warm_project
    projects.update_settings(db, lead, pid, qualify_jaccard_min=0.5, qualify_icc_min=0.0, qualify_pk_max=0.6)
    ann = make_user("ann")
    mine = {"S-002": (30.0, 8.0, 0.5), "S-003": (52.0, 10.0, 1.0), "S-004": (69.0, 12.5, 1.4)}
    do_warmup(db, ann, pid, {e: manual(*mine[e], boundaries=(0,), segment_axes=("main",)) for e in WARMUP_IDS})
    assert status_of(db, pid, ann) == "admitted"
    assert qualification.my_qualification(db, ann, pid).thresholds == Thresholds(0.0, 0.5, 0.6)


# --- the lead's decisions -------------------------------------------------------------------------


def test_override_admit_and_revoke_need_a_note_and_are_audited(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    with pytest.raises(InvalidInput, match="note"):
        qualification.admit(db, lead, pid, ann.user_id, note="  ")
    assert qualification.admit(db, lead, pid, ann.user_id, note="trained elsewhere") == "admitted"
    with pytest.raises(InvalidInput, match="already admitted"):
        qualification.admit(db, lead, pid, ann.user_id, note="again")
    board = qualification.qualification_board(db, lead, pid)
    [row] = [r for r in board.rows if r.username == "ann"]
    assert (row.standing, row.decided_by, row.note) == (qualification.ADMITTED_BY_LEAD, "lead1", "trained elsewhere")

    assert qualification.revoke(db, lead, pid, ann.user_id, note="drifted on Static vs Generic") == "warmup"
    with pytest.raises(InvalidInput, match="nothing to revoke"):
        qualification.revoke(db, lead, pid, ann.user_id, note="again")
    assert queue.next_item(db, ann, pid).is_warmup  # back to warm-up
    history = qualification.decision_history(db, lead, pid, ann.user_id)
    assert [(h["what"], h["who"], h["note"]) for h in history] == [
        ("qualification_admit", "lead1", "trained elsewhere"),
        ("qualification_revoke", "lead1", "drifted on Static vs Generic"),
    ]
    [row] = [r for r in qualification.qualification_board(db, lead, pid).rows if r.username == "ann"]
    assert row.standing == qualification.REVOKED


def test_a_revoked_annotator_is_not_readmitted_by_a_recheck_but_by_new_warmup_work(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    do_warmup(db, ann, pid, {e: perfect(e) for e in WARMUP_IDS})
    qualification.revoke(db, lead, pid, ann.user_id, note="check again after the guideline change")
    qualification.recheck(db, lead, pid)
    assert status_of(db, pid, ann) == "warmup"
    assert queue.next_item(db, ann, pid) is None
    # the lead adds a warm-up sample; doing it well hands the decision back to the rule
    warmup_set.mark_warmup(db, lead, pid, ["S-005"])
    warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, "S-005"), boundaries=(0, 4),
                               segment_axes=("static", "main"), xi=40.0, omega=9.0, alpha=0.0)
    item = queue.next_item(db, ann, pid)
    assert item.external_id == "S-005"
    workbench_writes.submit(db, ann, item.annotation_id, item.version, manual(40.0, 9.0, 0.0))
    assert status_of(db, pid, ann) == "admitted"


def test_roles_annotators_cannot_run_lead_functions(db, make_user, warm_project):
    pid = warm_project
    ann = make_user("ann")
    sid = sample_id(db, pid, "S-002")
    calls = [
        lambda: warmup_set.mark_warmup(db, ann, pid, ["S-000"]),
        lambda: warmup_set.pick_warmup(db, ann, pid, 1),
        lambda: warmup_set.unmark_warmup(db, ann, pid, ["S-002"]),
        lambda: warmup_set.set_warmup_gold(db, ann, sid, boundaries=(0,), segment_axes=("main",),
                                           xi=1.0, omega=1.0, alpha=0.0),
        lambda: warmup_set.warmup_samples(db, ann, pid),
        lambda: qualification.qualification_board(db, ann, pid),
        lambda: qualification.admit(db, ann, pid, ann.user_id, note="me"),
        lambda: qualification.revoke(db, ann, pid, ann.user_id, note="me"),
        lambda: qualification.recheck(db, ann, pid),
        lambda: qualification.decision_history(db, ann, pid, ann.user_id),
    ]
    for call in calls:
        with pytest.raises(PermissionDenied):
            call()
    assert status_of(db, pid, ann) is None


# --- the warm-up set ------------------------------------------------------------------------------


def test_pick_warmup_takes_untouched_samples_reproducibly(db, make_user, lead, make_project):
    pid = make_project(20, warmup_size=5)
    ann = make_user("ann")
    queue.next_item(db, ann, pid)  # S-000 is started: never picked
    picked = warmup_set.pick_warmup(db, lead, pid, seed=7)
    assert len(picked) == 5 and "S-000" not in picked
    pid2 = make_project(20, warmup_size=5)
    queue.next_item(db, ann, pid2)
    assert warmup_set.pick_warmup(db, lead, pid2, seed=7) == picked
    with pytest.raises(InvalidInput, match="already has 5"):
        warmup_set.pick_warmup(db, lead, pid)
    more = warmup_set.pick_warmup(db, lead, pid, 2, seed=1)
    assert len(more) == 2 and not set(more) & set(picked)
    listed = [w.external_id for w in warmup_set.warmup_samples(db, lead, pid)]
    assert listed == sorted([*picked, *more])
    assert all(w.gold is None for w in warmup_set.warmup_samples(db, lead, pid))


def test_marking_is_all_or_nothing_and_refuses_started_samples(db, make_user, lead, make_project):
    pid = make_project(3)
    ann = make_user("ann")
    queue.next_item(db, ann, pid)  # S-000 started
    with pytest.raises(InvalidInput, match="nobody has started"):
        warmup_set.mark_warmup(db, lead, pid, ["S-001", "S-000"])
    with pytest.raises(InvalidInput, match="No sample S-404"):
        warmup_set.mark_warmup(db, lead, pid, ["S-001", "S-404"])
    assert warmup_set.warmup_samples(db, lead, pid) == []
    with pytest.raises(InvalidInput, match="not in the warm-up set"):
        warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, "S-001"), boundaries=(0,),
                                   segment_axes=("main",), xi=1.0, omega=1.0, alpha=0.0)


def test_gold_is_validated(db, lead, warm_project):
    sid = sample_id(db, warm_project, "S-002")
    bad = [
        dict(boundaries=(0, 40), segment_axes=("main", "main"), xi=1.0, omega=1.0, alpha=0.0),
        dict(boundaries=(0, 4), segment_axes=("main", []), xi=1.0, omega=1.0, alpha=0.0),
        dict(boundaries=(0,), segment_axes=("nonsense",), xi=1.0, omega=1.0, alpha=0.0),
        dict(boundaries=(0,), segment_axes=("main",), xi=1.0, omega=0.0, alpha=0.0),
        dict(boundaries=(0,), segment_axes=("main",), xi=None, omega=1.0, alpha=0.0),
    ]
    for values in bad:
        with pytest.raises(InvalidInput):
            warmup_set.set_warmup_gold(db, lead, sid, **values)
    with pytest.raises(NotFound):
        warmup_set.set_warmup_gold(db, lead, 10_000, boundaries=(0,), segment_axes=("main",),
                                   xi=1.0, omega=1.0, alpha=0.0)
    [w] = [w for w in warmup_set.warmup_samples(db, lead, warm_project) if w.sample_id == sid]
    assert w.gold.segment_axes == (("static",), ("main",)) and w.gold_by == "lead1"


def test_gold_whose_curve_was_never_chosen_is_refused_and_nothing_changes(db, lead, warm_project):
    """The gold editor once stored the default curve (ξ 60, ω 10, α 0) when only 2 of 3 clicked
    points had registered. An edit whose curve is only the starting point is refused in one line."""
    from annotation.review.lead_edit import LeadEdit

    sid = sample_id(db, warm_project, "S-002")
    [before] = [w for w in warmup_set.warmup_samples(db, lead, warm_project) if w.sample_id == sid]
    edit = LeadEdit.blank(14).toggled(4).with_segment_axes(0, 4, ["static"]).with_segment_axes(4, 14, ["main"])
    for x, y in ((27.6, 0.77), (21.6, 0.41)):  # two of the three points
        edit = edit.with_point_event({"action": "add", "x": x, "y": y})
    with pytest.raises(InvalidInput, match="^Gold not stored. The curve is not set yet: 2 points are placed"):
        warmup_set.set_warmup_gold(db, lead, sid, edit)
    with pytest.raises(InvalidInput, match="place 3–5 points on the chart or type"):
        warmup_set.set_warmup_gold(db, lead, sid, LeadEdit.blank(14).with_segment_axes(0, 14, ["main"]))
    [after] = [w for w in warmup_set.warmup_samples(db, lead, warm_project) if w.sample_id == sid]
    assert (after.gold.xi, after.gold.omega, after.gold.alpha) == (before.gold.xi, before.gold.omega,
                                                                   before.gold.alpha) == GOLD_CURVES["S-002"]
    edit = edit.with_point_event({"action": "add", "x": 31.6, "y": 0.41})  # the third point: a curve
    stored = warmup_set.set_warmup_gold(db, lead, sid, edit)
    assert stored.xi == pytest.approx(edit.xi) and edit.xi != 60.0


def test_unmark_returns_untouched_samples_and_retires_annotated_ones(db, make_user, lead, warm_project):
    pid = warm_project
    ann = make_user("ann")
    do_warmup(db, ann, pid, {"S-002": perfect("S-002")})
    summary = warmup_set.unmark_warmup(db, lead, pid, ["S-002", "S-003"])
    assert (summary.returned, summary.retired) == (("S-003",), ("S-002",))
    with db.read() as s:
        s2 = s.get(Sample, sample_id(db, pid, "S-002"))
        s3 = s.get(Sample, sample_id(db, pid, "S-003"))
        assert (s2.status, s2.is_warmup) == ("discarded", True)
        assert (s3.status, s3.is_warmup) == ("active", False)
        assert s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == s3.id)) is None
    mine = qualification.my_qualification(db, ann, pid)
    assert (mine.n_done, mine.n_total) == (0, 1)  # only S-004 is left in the set
    assert [w.external_id for w in warmup_set.warmup_samples(db, lead, pid)] == ["S-004"]
    with db.read() as s:
        events = [e.action for e in s.scalars(select(AuditEvent).order_by(AuditEvent.id))]
    assert events.count("warmup_mark") == 1 and events.count("warmup_gold") == 3
    assert "warmup_unmark" in events


def test_the_annotator_only_sees_their_own_figures(db, make_user, warm_project):
    pid = warm_project
    a, b = make_user("ann_a"), make_user("ann_b")
    do_warmup(db, a, pid, {e: perfect(e) for e in WARMUP_IDS})
    mine = qualification.my_qualification(db, b, pid)
    assert (mine.n_done, mine.figures.jaccard, mine.in_warmup) == (0, None, True)


def test_warmup_annotations_are_the_annotators_own_in_the_queue_history(db, make_user, warm_project):
    pid = warm_project
    a = make_user("ann_a")
    do_warmup(db, a, pid, {"S-002": perfect("S-002")})
    with db.read() as s:
        [ann] = s.scalars(select(Annotation).where(Annotation.annotator_id == a.user_id))
        assert ann.status == "submitted" and ann.xi == 30.0
    assert [h.external_id for h in queue.my_history(db, a, pid)] == ["S-002"]
