"""An annotation import holds no lock while it reads, and only short ones while it writes: a bad
line is refused before any write, the records are staged and published a chunk per write
transaction, a crash before the commit point leaves nothing visible and one after it is finished
by the next import, a pair the queue handed out meanwhile is left out, and a large file read in
several processes gives what one process gives."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotation.corpus.interchange import InterchangeError
from annotation.services.corpus import annotation_import, staged_annotations, text_imports
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.errors import InvalidInput
from annotation.services.corpus.import_batches import ROLLED_BACK_MEANWHILE
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from db.models import Annotation, Assignment, GoldAnnotation, ImportBatch, ReviewItem, Sample, StagedAnnotation
from test_write_locks import LockWatch

N_TEXTS = 30


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Imported")
    text_imports.import_texts(db, lead, p.id, [TextRecord(f"Shop {i} on Elm Street is closed this week.", 1,
                                                      f"S-{i:03d}", i + 1) for i in range(N_TEXTS)])
    return p


def records(n_per_annotator: int = N_TEXTS, names=("old_a", "old_b"), points: bool = False) -> list[dict]:
    out = []
    for name in names:
        for i in range(n_per_annotator):
            r = {"sample_id": f"S-{i:03d}", "annotator": name, "boundaries": [0, 4],
                 "segment_axes": ["main", "static"], "flags": [], "note": "",
                 "submitted_at": f"2026-11-20T10:{i % 60:02d}:00Z"}
            if points:
                r["points"] = [[60, 0.5], [76, 1.0], [96, 0.4]]
            else:
                r.update(xi=50.0 + (i % 3), omega=9.0, alpha=0.5)
            out.append(r)
    return out


def payload(rows) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


def counts(db):
    with db.read() as s:
        return tuple(s.scalar(select(func.count()).select_from(t)) for t in
                     (Annotation, Assignment, StagedAnnotation, ImportBatch, GoldAnnotation, ReviewItem))


def test_a_bad_last_line_is_refused_before_any_write(db, lead, project):
    rows = records()
    rows[-1] = {**rows[-1], "boundaries": [0, 99]}
    before = counts(db)
    watch = LockWatch(db.engine)
    try:
        with pytest.raises(InvalidInput, match=f"line {len(rows)}: .*Nothing was imported"):
            annotation_import.import_annotations(db, lead, project.id, payload(rows), "old.jsonl")
    finally:
        watch.close()
    assert watch.transactions == [] and counts(db) == before


def test_records_are_staged_and_published_a_chunk_per_short_write(db, lead, project, monkeypatch):
    monkeypatch.setattr(staged_annotations, "STAGE_ROWS", 16)
    monkeypatch.setattr(staged_annotations, "PUBLISH_ROWS", 16)
    watch = LockWatch(db.engine)
    try:
        summary = annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    finally:
        watch.close()
    assert (summary.added, summary.new_accounts, summary.left_out) == (2 * N_TEXTS, ("old_a", "old_b"), 0)
    writes = watch.transactions
    assert len(writes) >= 2 * N_TEXTS // 16 * 2  # staged in 4 chunks, published in 4
    assert max(len(t) for t in writes) <= 10, writes
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(StagedAnnotation)) == 0
        assert set(s.scalars(select(Sample.n_assigned).where(Sample.project_id == project.id))) == {2}
        slots = sorted(s.scalars(select(Assignment.slot)))
        settled = (s.scalar(select(func.count()).select_from(GoldAnnotation))
                   + s.scalar(select(func.count()).select_from(ReviewItem)))
    assert slots == [1, 2] * N_TEXTS or sorted(slots) == sorted([1, 2] * N_TEXTS)
    assert settled == N_TEXTS  # every complete sample flagged or resolved, once


def test_a_crash_before_the_commit_point_leaves_nothing_and_the_next_import_cleans_up(
        db, lead, project, monkeypatch):
    before = counts(db)
    monkeypatch.setattr(text_imports, "discard_import", lambda *a, **k: None)  # the process died
    real_stage = staged_annotations.stage

    def stage_then_die(*args, **kwargs):
        real_stage(*args, **kwargs)
        raise RuntimeError("killed")

    monkeypatch.setattr(staged_annotations, "stage", stage_then_die)
    with pytest.raises(RuntimeError):
        annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    monkeypatch.undo()
    annotations, assignments, staged, batches, *_ = counts(db)
    assert (annotations, assignments, staged, batches) == (before[0], before[1], 2 * N_TEXTS, before[3] + 1)
    assert queue.pool_size(db, lead, project.id) == 2 * N_TEXTS  # nothing of it is visible
    text_imports.recover_interrupted_imports(db, project.id, stale_after_s=0)
    assert counts(db)[:4] == before[:4]
    done = annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    assert done.added == 2 * N_TEXTS


def test_an_import_rolled_back_under_it_by_another_process_says_so_and_leaves_nothing(
        db, lead, project, monkeypatch):
    """Another process takes the import for dead (its heartbeat late) and rolls it back once
    its rows are staged: the commit point refuses in one line, and nothing of it is left."""
    before = counts(db)
    other = Database.connect(db.engine.url.render_as_string(hide_password=False))
    real_stage = staged_annotations.stage

    def stage_then_rolled_back(db_, batch_id, rows):
        real_stage(db_, batch_id, rows)
        text_imports.discard_import(other, batch_id, project.id)

    monkeypatch.setattr(staged_annotations, "stage", stage_then_rolled_back)
    try:
        with pytest.raises(InvalidInput) as refused:
            annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    finally:
        other.dispose()
    assert str(refused.value) == ROLLED_BACK_MEANWHILE
    assert counts(db) == before


def test_a_crash_after_the_commit_point_is_published_by_the_recovery(db, lead, project, monkeypatch):
    monkeypatch.setattr(staged_annotations, "publish", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("killed")))
    with pytest.raises(RuntimeError):
        annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    monkeypatch.undo()
    assert counts(db)[2] == 2 * N_TEXTS  # staged, past the commit point: accounts exist
    text_imports.recover_interrupted_imports(db, project.id, stale_after_s=0)
    annotations, _, staged, *_rest = counts(db)
    assert (annotations, staged) == (2 * N_TEXTS, 0)
    with db.read() as s:
        settled = (s.scalar(select(func.count()).select_from(GoldAnnotation))
                   + s.scalar(select(func.count()).select_from(ReviewItem)))
    assert settled == N_TEXTS


def test_a_sample_handed_to_its_annotator_meanwhile_keeps_that_draft(db, lead, make_user, project, monkeypatch):
    ann = make_user("old_a")  # an existing account named in the file
    real_stage = staged_annotations.stage
    handed = {}

    def stage_while_working(*args, **kwargs):
        real_stage(*args, **kwargs)
        handed["item"] = queue.next_item(db, ann, project.id)  # the queue hands old_a S-000

    monkeypatch.setattr(staged_annotations, "stage", stage_while_working)
    summary = annotation_import.import_annotations(db, lead, project.id, payload(records()), "old.jsonl")
    assert summary.left_out == 1 and summary.added == 2 * N_TEXTS - 1
    with db.read() as s:
        mine = s.get(Annotation, handed["item"].annotation_id)
    assert mine.status == "draft"  # the annotator's own draft is untouched


def test_a_large_file_read_in_processes_gives_what_one_process_gives(monkeypatch):
    """Reading only (no database): once, not once per backend."""
    data = payload(records(points=True))
    n_tokens = {f"S-{i:03d}": 10 for i in range(N_TEXTS)}
    from datetime import datetime, timezone

    now = datetime(2026, 11, 26, tzinfo=timezone.utc)
    one = annotation_import.read_file(data, n_tokens, now)
    monkeypatch.setattr(annotation_import, "PARALLEL_MIN_FITS", 10)
    many = annotation_import.read_file(data, n_tokens, now)
    assert many == one and len(one) == 2 * N_TEXTS
    bad = records(points=True)
    bad[45] = {**bad[45], "annotator": "Old_A"}  # looks like old_a (line 1): the cross-record check
    bad[50] = {**bad[50], "boundaries": [0, 99]}
    with pytest.raises(InterchangeError, match="line 46: annotator 'Old_A' looks like 'old_a'"):
        annotation_import.read_file(payload(bad), n_tokens, now)
    bad[45] = records(points=True)[45]
    with pytest.raises(InterchangeError, match="line 51: Segmentation"):
        annotation_import.read_file(payload(bad), n_tokens, now)
