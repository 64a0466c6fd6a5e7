"""Settling many samples at once (annotation.services.review.resolving): the same outcome as settling
each sample on its own, in short write transactions of a few statements each, and a sample that
changes while its chunk is decided is never written from the stale reading."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import select

import workbench_writes
from annotation.services.workbench import queue
from annotation.services.review import resolving, settling
from annotation.services.lookup import project_settings
from db.engine import Database
from db.models import GoldAnnotation, Project, ReviewItem, Sample
from service_helpers import GOOD_POINTS, complete_content
from test_write_locks import LockWatch

FAR = tuple((x + 40.0, y) for x, y in GOOD_POINTS)  # a curve ≈ 40 units later: flagged


def _annotated_pairs(db, make_user, make_project, n: int) -> int:
    """A project (k = 3 while annotating, so nothing settles) whose first ``n`` samples two
    annotators submitted — alike, far apart, split differently, or flagged — then k = 2 set
    directly, as a project migrated from another tool would be: every sample waits to be settled."""
    pid = make_project(n, annotators_per_sample=3)
    a, b = make_user("ann_a"), make_user("ann_b")
    for i in range(n):
        for who, content in ((a, complete_content()), (b, [
                complete_content(), complete_content(points=FAR),
                complete_content(boundaries=(0, 4), segment_axes=("main", "static")),
                complete_content(flags=("multiple_peaks",))][i % 4])):
            item = queue.next_item(db, who, pid)
            workbench_writes.submit(db, who, item.annotation_id, item.version, content)
    with db.write() as s:
        p = s.get(Project, pid)
        p.settings = {**p.settings, "annotators_per_sample": 2}
    return pid


def _outcome(db, pid) -> tuple[list, list]:
    with db.read() as s:
        gold = sorted((g.sample_id, tuple(g.boundaries), round(g.xi, 9), g.source) for g in s.scalars(
            select(GoldAnnotation).join(Sample, Sample.id == GoldAnnotation.sample_id)
            .where(Sample.project_id == pid)))
        items = sorted((i.sample_id, tuple(i.reasons), len(i.details)) for i in s.scalars(
            select(ReviewItem).join(Sample, Sample.id == ReviewItem.sample_id)
            .where(Sample.project_id == pid, ReviewItem.status == "open")))
    return gold, items


def test_resolving_in_chunks_equals_settling_each_sample(db, lead, make_user, make_project, tmp_path,
                                                         monkeypatch):
    if not db.is_sqlite:
        pytest.skip("the reference is a copy of the SQLite file")
    pid = _annotated_pairs(db, make_user, make_project, 12)
    copy = tmp_path / "reference.db"
    with sqlite3.connect(db.engine.url.database) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)  # the WAL's pages included
    reference = Database.connect(f"sqlite:///{copy}")
    with reference.write() as s:  # the reference: every sample settled on its own
        settings = project_settings(s, pid)
        ids = resolving.complete_samples(reference, pid, 2)
        for sid in ids:
            settling.settle(s, s.get(Sample, sid), settings)
    reference.dispose()
    monkeypatch.setattr(resolving, "CHUNK", 5)
    summary = resolving.resolve_project(db, lead, pid)
    assert (summary.gold, summary.flagged, summary.pending) == (3, 6, 3)
    assert _outcome(db, pid) == _outcome(Database.connect(f"sqlite:///{copy}"), pid)


def test_resolving_writes_each_chunk_in_a_few_statements(db, lead, make_user, make_project, monkeypatch):
    pid = _annotated_pairs(db, make_user, make_project, 12)
    monkeypatch.setattr(resolving, "CHUNK", 4)
    watch = LockWatch(db.engine)
    try:
        resolving.resolve_project(db, lead, pid)
    finally:
        watch.close()
    chunks = [t for t in watch.transactions if "INSERT" in t or "UPDATE" in t]
    assert len(chunks) >= 3  # 12 samples in chunks of 4, then the audit event
    # per chunk: the samples, annotations, gold and items as they are now; then the bulk writes
    assert max(len(t) for t in watch.transactions) <= 8, watch.transactions


def test_a_sample_changed_while_its_chunk_is_decided_is_decided_again(db, lead, make_user, make_project,
                                                                     monkeypatch):
    pid = _annotated_pairs(db, make_user, make_project, 4)
    with db.read() as s:
        first = s.scalar(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id))
    real = resolving._decide
    calls = {"n": 0}

    def decide_while_a_lead_decides(samples, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:  # a lead settles the first sample after the chunk was read
            with db.write() as s:
                s.add(GoldAnnotation(sample_id=first, boundaries=[0], segment_axes=[["main"]], xi=1.0,
                                     omega=2.0, alpha=0.0, source="edited", decided_by=lead.user_id))
        return real(samples, *args, **kwargs)

    monkeypatch.setattr(resolving, "_decide", decide_while_a_lead_decides)
    summary = resolving.resolve_project(db, lead, pid)
    assert calls["n"] == 2  # the changed sample was read and decided again
    with db.read() as s:
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == first))
    assert (gold.source, gold.xi) == ("edited", 1.0)  # the lead's decision stands
    assert summary.gold + summary.flagged + summary.pending == 4


def test_resolve_needs_a_lead(db, make_user, make_project):
    from annotation.services.errors import PermissionDenied

    pid = make_project(2)
    with pytest.raises(PermissionDenied):
        resolving.resolve_project(db, make_user("ann"), pid)


def test_recheck_reopens_automatic_gold_under_new_thresholds(db, lead, make_user, make_project):
    pid = _annotated_pairs(db, make_user, make_project, 8)
    with db.write() as s:  # no curve-distance or deviation flag while resolving: far curves become gold
        p = s.get(Project, pid)  # (16 annotations: the fixed deviation thresholds decide, not σ)
        p.settings = {**p.settings, "flag_w1_max": 200.0, "flag_xi_max": 400.0, "flag_omega_max": 200.0,
                      "flag_alpha_max": 40.0}
    first = resolving.resolve_project(db, lead, pid)
    with db.write() as s:  # the threshold back to 12 units, set directly: the recheck decides
        p = s.get(Project, pid)
        p.settings = {**p.settings, "flag_w1_max": 12.0}
    again = resolving.resolve_project(db, lead, pid, recheck=True)
    gold, items = _outcome(db, pid)
    far = [sid for sid, reasons, _ in items if "curve_distance" in reasons]
    assert len(far) == 2 and not {sid for sid, *_ in gold} & set(far)
    # what changed: two gold samples flagged; the rest stays as it was
    assert (again.gold, again.flagged) == (0, 2)
    assert (again.settled, again.pending) == (first.gold - 2, first.flagged + first.pending)


def test_settling_shared_by_processes_equals_settling_in_one(db, lead, make_user, make_project, tmp_path,
                                                            monkeypatch):
    """From PARALLEL_MIN_SAMPLES on, each process settles a part on its own connection: the
    outcome is the one a single process reaches (here from 12 samples in 4 parts of 3)."""
    if not db.is_sqlite:
        pytest.skip("the single-process reference is a copy of the SQLite file")
    pid = _annotated_pairs(db, make_user, make_project, 12)
    copy = tmp_path / "one-process.db"
    with sqlite3.connect(db.engine.url.database) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    alone = Database.connect(f"sqlite:///{copy}")
    single = resolving.resolve_project(alone, lead, pid)
    monkeypatch.setattr(resolving, "PARALLEL_MIN_SAMPLES", 4)
    seen = []
    shared = resolving.resolve_project(db, lead, pid, progress=lambda done, total: seen.append((done, total)))
    assert shared == single and _outcome(db, pid) == _outcome(alone, pid)
    assert seen[-1] == (12, 12) and len(seen) >= 2  # progress as the parts finish
    alone.dispose()


def _settled_rows(db, pid) -> tuple[list, list]:
    """The project's review items and gold, every column: what a run that changes nothing keeps."""
    with db.read() as s:
        items = list(s.execute(
            select(ReviewItem.__table__).join(Sample, Sample.id == ReviewItem.sample_id)
            .where(Sample.project_id == pid).order_by(ReviewItem.id)))
        gold = list(s.execute(
            select(GoldAnnotation.__table__).join(Sample, Sample.id == GoldAnnotation.sample_id)
            .where(Sample.project_id == pid).order_by(GoldAnnotation.id)))
    return items, gold


def test_resolving_again_plain_or_rechecked_changes_nothing_and_says_so(db, lead, make_user, make_project):
    """A recheck under the thresholds the flags were raised with finds the same flags: the
    items stay as they are (no sample moves from "awaiting a lead" to "flagged" and back), the
    gold is not written again, and every run reports no gold and no flag."""
    pid = _annotated_pairs(db, make_user, make_project, 8)
    first = resolving.resolve_project(db, lead, pid)
    assert (first.gold, first.flagged, first.pending, first.settled) == (2, 4, 2, 0)
    left = _settled_rows(db, pid)
    for recheck in (True, True, False, True):
        again = resolving.resolve_project(db, lead, pid, recheck=recheck)
        assert again == resolving.SettleSummary(gold=0, flagged=0, pending=6, incomplete=0, settled=2), recheck
        assert _settled_rows(db, pid) == left, recheck


def test_a_recheck_replaces_an_items_automatic_flags_in_place(db, lead, make_user, make_project):
    """New thresholds that flag a sample for other reasons change its item's reasons; the item
    (its id, since when it waits) stays, and a second recheck changes nothing."""
    pid = _annotated_pairs(db, make_user, make_project, 4)
    resolving.resolve_project(db, lead, pid)
    before = {i.sample_id: i for i in _settled_rows(db, pid)[0] if "curve_distance" in i.reasons}
    assert len(before) == 1
    with db.write() as s:  # curves 40 units apart are no longer "far apart"; they still deviate
        p = s.get(Project, pid)
        p.settings = {**p.settings, "flag_w1_max": 200.0}
    rechecked = resolving.resolve_project(db, lead, pid, recheck=True)
    assert (rechecked.gold, rechecked.flagged) == (0, 1)
    after = {i.sample_id: i for i in _settled_rows(db, pid)[0] if i.sample_id in before}
    for sid, item in after.items():
        assert (item.id, item.opened_at) == (before[sid].id, before[sid].opened_at)
        assert "curve_distance" not in item.reasons and item.reasons
    assert resolving.resolve_project(db, lead, pid, recheck=True).flagged == 0


def test_resolving_never_stores_a_segment_with_two_axes(db, lead, make_user, make_project):
    """The CLI's ``resolve`` (resolve_project) settles by the same rule as a submit: where the
    annotators' axes differ on a segment, the sample goes to a lead instead of into gold."""
    pid = make_project(2, annotators_per_sample=3)
    a, b = make_user("ann_a"), make_user("ann_b")
    for i in range(2):
        for who, content in ((a, complete_content(boundaries=(0, 4), segment_axes=("static", "main"))),
                             (b, complete_content(boundaries=(0, 4), segment_axes=("static", ["main", "generic"][i])))):
            item = queue.next_item(db, who, pid)
            workbench_writes.submit(db, who, item.annotation_id, item.version, content)
    with db.write() as s:
        p = s.get(Project, pid)
        p.settings = {**p.settings, "annotators_per_sample": 2}
    summary = resolving.resolve_project(db, lead, pid)
    assert (summary.gold, summary.flagged) == (1, 1)
    gold, items = _outcome(db, pid)
    assert [g[1] for g in gold] == [(0, 4)]
    (_sid, reasons, _n), = items
    assert reasons == ("axes_differ",)
    with db.read() as s:
        assert all(len(axes) == 1 for g in s.scalars(select(GoldAnnotation)) for axes in g.segment_axes)
        detail, = s.scalars(select(ReviewItem)).one().details
    assert detail["detail"] == "tokens 5–14 would carry two axes: Main (ann_a) and Generic (ann_b)"
    assert detail["value"] == 1.0 and len(detail["annotation_ids"]) == 2
