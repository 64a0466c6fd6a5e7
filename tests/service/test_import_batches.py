"""Large text imports hold the database only briefly (issue 9 item 6).

A 189,000-text import used to be one transaction: SQLite's write lock was held ~40 s and
annotators' calls failed with "database is locked". Now a large import is written in batches of
at most ``IMPORT_BATCH_ROWS`` rows per transaction, hidden from the queue until a last step
publishes it; any failure, or a process that died, leaves the database as it was.
"""

from __future__ import annotations

import threading
import time
import traceback
from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.corpus import text_imports
from annotation.services.errors import InvalidInput
from annotation.corpus.text_import import TextRecord
from db.models import Base, ImportBatch, Sample, utcnow
from service_helpers import complete_content, count, text_records
import workbench_writes


def snapshot(db) -> dict[str, list[tuple]]:
    """Every row of every table, in primary-key order."""
    out = {}
    with db.read() as s:
        for table in Base.metadata.sorted_tables:
            out[table.name] = [tuple(r) for r in s.execute(
                select(table).order_by(*table.primary_key.columns)).all()]
    return out


def big_records(n: int, prefix: str = "L") -> list[TextRecord]:
    return [TextRecord(f"Import text {prefix}{i}: the ferry to island {i} runs every hour this summer.",
                       1, None, i + 1) for i in range(n)]


class WriteProbe:
    """Per committed transaction: how many ``samples`` rows it wrote, and how long it was open
    (on SQLite a write holds the lock from BEGIN IMMEDIATE).

    SQLite serialises writers, so the change in the row counts between BEGIN and COMMIT is the
    transaction's own. PostgreSQL (read committed) would also see other transactions' commits in
    those counts, so there the rows the transaction itself wrote are counted (``xmin`` is its id)."""

    def __init__(self, engine):
        self.engine = engine
        self.lock = threading.Lock()
        self.commits: list[tuple[int, int, float]] = []  # (|Δ rows|, |Δ active|, seconds)
        self._begun: dict[int, tuple[int, int, float]] = {}
        event.listen(engine, "begin", self._on_begin)
        event.listen(engine, "commit", self._on_commit)

    @staticmethod
    def _query(conn, sql: str) -> tuple:
        cur = conn.connection.dbapi_connection.cursor()
        cur.execute(sql)
        row = cur.fetchone()
        cur.close()
        return row

    def _counts(self, conn) -> tuple[int, int]:
        if conn.dialect.name == "postgresql":
            return 0, 0
        total, active = self._query(
            conn, "SELECT count(*), sum(CASE WHEN status = 'active' THEN 1 ELSE 0 END) FROM samples")
        return int(total), int(active or 0)

    def _on_begin(self, conn):
        self._begun[id(conn)] = (*self._counts(conn), time.perf_counter())

    def _on_commit(self, conn):
        begun = self._begun.pop(id(conn), None)
        if begun is None:
            return
        if conn.dialect.name == "postgresql":
            (written,) = self._query(conn, "SELECT count(*) FROM samples "
                                           "WHERE xmin::text::bigint = txid_current() % 4294967296")
            change = (int(written), int(written))
        else:
            total, active = self._counts(conn)
            change = (abs(total - begun[0]), abs(active - begun[1]))
        with self.lock:
            self.commits.append((*change, time.perf_counter() - begun[2]))

    def close(self):
        event.remove(self.engine, "begin", self._on_begin)
        event.remove(self.engine, "commit", self._on_commit)


def test_large_import_runs_beside_annotators_in_short_transactions(db, make_user, make_project, lead,
                                                                    capsys):
    n_texts = 20_000
    pid = make_project(40, annotators_per_sample=2, daily_quota=1000)
    annotators = [make_user(f"ann{i}") for i in range(2)]
    before = count(db, Sample, Sample.project_id == pid)

    probe = WriteProbe(db.engine)
    done = threading.Event()
    failures: list[str] = []
    calls = [0]

    def annotate(actor):
        while not done.is_set():
            try:
                item = queue.next_item(db, actor, pid)
                if item is None:
                    return
                saved = workbench_writes.save_draft(db, actor, item.annotation_id, item.version,
                                              complete_content(), step=2)
                workbench_writes.submit(db, actor, saved.annotation_id, saved.version, complete_content())
                calls[0] += 3
            except Exception:  # noqa: BLE001 - every failure of an annotator call is collected
                failures.append(traceback.format_exc())
                return

    workers = [threading.Thread(target=annotate, args=(a,)) for a in annotators]
    for w in workers:
        w.start()
    try:
        summary = text_imports.import_texts(db, lead, pid, big_records(n_texts), source="big.txt")
    finally:
        done.set()
        for w in workers:
            w.join()
        probe.close()

    assert failures == []
    assert summary.added == n_texts
    assert count(db, Sample, Sample.project_id == pid) == before + n_texts
    assert count(db, Sample, Sample.status == "importing") == 0
    assert count(db, ImportBatch, ImportBatch.status == "published", ImportBatch.open_project_id.is_(None)) == 1
    # no write transaction added, removed or published more than one batch of rows
    biggest_rows = max(max(d_rows, d_active) for d_rows, d_active, _ in probe.commits)
    assert biggest_rows <= text_imports.IMPORT_BATCH_ROWS
    longest = max(sec for *_, sec in probe.commits)
    with capsys.disabled():
        print(f"\n[{db.engine.dialect.name}] {n_texts} texts: {len(probe.commits)} write transactions, "
              f"at most {biggest_rows} sample rows each, longest open {longest * 1000:.0f} ms; "
              f"{calls[0]} annotator calls during the import, 0 failed")


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 50)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)


def _fail_on_call(monkeypatch, name: str, n: int):
    """Make ``projects.<name>`` raise on its ``n``-th call (after the earlier calls wrote)."""
    real = getattr(text_imports, name)
    seen = [0]

    def wrapper(*args, **kwargs):
        seen[0] += 1
        if seen[0] == n:
            raise RuntimeError(f"injected failure in call {n} of {name}")
        return real(*args, **kwargs)

    monkeypatch.setattr(text_imports, name, wrapper)


def test_a_failure_in_the_middle_batch_leaves_the_database_exactly_as_before(
        db, make_project, lead, small_batches, monkeypatch):
    pid = make_project(10)
    before = snapshot(db)
    _fail_on_call(monkeypatch, "_write_hidden_batch", 3)  # of 5 batches
    with pytest.raises(RuntimeError, match="injected"):
        text_imports.import_texts(db, lead, pid, big_records(250))
    assert snapshot(db) == before


def test_a_refused_large_import_writes_nothing(db, make_project, lead, small_batches):
    pid = make_project(10)  # ids S-000 … S-009
    before = snapshot(db)
    records = big_records(200) + [TextRecord("A different text under an existing id.", 1, "S-003", 201)]
    with pytest.raises(InvalidInput, match="line 201"):
        text_imports.import_texts(db, lead, pid, records)
    assert snapshot(db) == before


def test_an_import_whose_process_died_stays_hidden_and_the_next_import_cleans_it_up(
        db, make_project, make_user, lead, small_batches, monkeypatch):
    pid = make_project(4, annotators_per_sample=1)
    ann = make_user("ann")
    # a "crash" after two batches: the process is gone before it can clean up
    monkeypatch.setattr(text_imports, "discard_import", lambda *a, **k: None)
    _fail_on_call(monkeypatch, "_write_hidden_batch", 3)
    with pytest.raises(RuntimeError):
        text_imports.import_texts(db, lead, pid, big_records(200))
    monkeypatch.undo()
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 50)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)
    assert count(db, Sample, Sample.status == "importing") == 100

    # the half-written rows are in no count and never handed out
    assert projects.get_project(db, lead, pid).n_samples == 4
    assert queue.pool_size(db, ann, pid) == 4
    handed = []
    while (item := queue.next_item(db, ann, pid)) is not None:
        handed.append(item.external_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert sorted(handed) == [f"S-{i:03d}" for i in range(4)]

    # while its heartbeat is fresh it may still be running: another import waits its turn
    with pytest.raises(InvalidInput, match="still being written"):
        text_imports.import_texts(db, lead, pid, big_records(60, prefix="M"))
    with pytest.raises(InvalidInput, match="still being written"):
        text_imports.import_texts(db, lead, pid, text_records(2, prefix="T"))

    # once the heartbeat is stale, the next import removes it and goes ahead
    with db.write() as s:
        s.execute(update(ImportBatch).values(heartbeat_at=utcnow() - timedelta(hours=1)))
    summary = text_imports.import_texts(db, lead, pid, big_records(60, prefix="M"))
    assert summary.added == 60
    assert count(db, Sample, Sample.status == "importing") == 0
    assert count(db, Sample, Sample.project_id == pid) == 4 + 60
    assert count(db, ImportBatch) == 1  # only the finished import's record


def test_an_import_that_died_after_its_commit_point_is_finished_not_lost(
        db, make_project, lead, small_batches, monkeypatch):
    pid = make_project(4)
    monkeypatch.setattr(text_imports, "_publish_import", lambda *a, **k: None)  # dies right after
    summary = text_imports.import_texts(db, lead, pid, big_records(120))
    monkeypatch.undo()
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 50)
    assert summary.added == 120
    assert count(db, Sample, Sample.status == "importing") == 120
    with db.write() as s:
        s.execute(update(ImportBatch).values(heartbeat_at=utcnow() - timedelta(hours=1)))
    assert text_imports.recover_interrupted_imports(db) == 1
    assert count(db, Sample, Sample.project_id == pid, Sample.status == "active") == 124
    assert count(db, ImportBatch, ImportBatch.open_project_id.is_not(None)) == 0
