"""Concurrent annotators on one database (SPEC section 10, reliability): 16 annotators at once
lose and duplicate no submission, never exceed k annotators per sample, and a second tab cannot
overwrite or double-submit. Runs on a SQLite file and on PostgreSQL (the ``db`` fixture)."""

from __future__ import annotations

import threading
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select, update

from annotation.services.workbench import queue
from annotation.services.errors import AlreadySubmitted, StaleVersion
from db.models import Annotation, Assignment, AuditEvent, Sample
from service_helpers import complete_content, count
import workbench_writes

N_WORKERS = 16


def _run_workers(db, actors, project_id: int, rounds: int):
    """Each actor in its own thread: ``rounds`` × (next_item → save_draft → submit).

    Returns (successful submits as (annotation_id, sample_id, user_id), unexpected errors).
    """
    barrier = threading.Barrier(len(actors))
    successes: list[tuple[int, int, int]] = []
    errors: list[str] = []
    lock = threading.Lock()

    def work(actor):
        barrier.wait()  # start together to maximise contention
        for _ in range(rounds):
            try:
                item = queue.next_item(db, actor, project_id)
                if item is None:
                    return
                saved = workbench_writes.save_draft(db, actor, item.annotation_id, item.version,
                                              complete_content(note=f"by {actor.username}"), step=2,
                                              seconds_delta=3)
                done = workbench_writes.submit(db, actor, saved.annotation_id, saved.version,
                                         complete_content(note=f"by {actor.username}"), seconds_delta=2)
                assert done.status == "submitted" and done.sample_id == item.sample_id
                with lock:
                    successes.append((done.annotation_id, done.sample_id, actor.user_id))
            except Exception:  # noqa: BLE001 - every failure is a test failure, collected
                with lock:
                    errors.append(f"{actor.username}: {traceback.format_exc()}")
                return

    with ThreadPoolExecutor(max_workers=len(actors)) as pool:
        list(pool.map(work, actors))
    return successes, errors


def _check_invariants(db, project_id: int, successes, k: int) -> None:
    with db.read() as s:
        submitted = s.execute(
            select(Annotation.id, Annotation.sample_id, Annotation.annotator_id, Annotation.version)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted")).all()
        all_annotations = s.execute(
            select(Annotation.sample_id, Annotation.annotator_id)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id)).all()
        assignments = s.execute(
            select(Assignment.sample_id, Assignment.user_id, Assignment.slot)
            .join(Sample, Sample.id == Assignment.sample_id)
            .where(Sample.project_id == project_id)).all()
        n_assigned = dict(s.execute(select(Sample.id, Sample.n_assigned)
                                    .where(Sample.project_id == project_id)).all())

    # every reported success is in the database exactly once, and nothing else is
    assert len(successes) == len(set(successes))
    assert sorted((a, smp, u) for a, smp, u, _ in submitted) == sorted(successes)
    assert len(submitted) == len(successes)
    # each submitted annotation was written exactly twice: one draft save, one submit
    assert {v for *_, v in submitted} == {3}
    # no (sample, annotator) pair twice, in annotations or in assignments
    pairs = Counter((smp, u) for smp, u in all_annotations)
    assert max(pairs.values()) == 1
    asg_pairs = Counter((smp, u) for smp, u, _ in assignments)
    assert max(asg_pairs.values()) == 1
    # at most k annotators per sample, and the counter agrees with the assignment rows
    per_sample = Counter(smp for _, smp, _, _ in submitted)
    assert max(per_sample.values()) <= k
    assert max(n_assigned.values()) <= k
    by_sample = Counter(smp for smp, _, _ in assignments)
    for sample_id, n in n_assigned.items():
        assert by_sample.get(sample_id, 0) == n, sample_id
    # slots per sample are 1..n without gaps or repeats
    slots: dict[int, list[int]] = {}
    for smp, _, slot in assignments:
        slots.setdefault(smp, []).append(slot)
    for smp, got in slots.items():
        assert sorted(got) == list(range(1, len(got) + 1)), (smp, got)


def test_sixteen_annotators_at_once_lose_and_duplicate_nothing(db, make_user, make_project):
    k, rounds = 2, 6
    pid = make_project(60, annotators_per_sample=k, daily_quota=1000)
    actors = [make_user(f"worker{i:02d}") for i in range(N_WORKERS)]

    successes, errors = _run_workers(db, actors, pid, rounds)

    assert errors == []
    # 16 × 6 = 96 annotations fit in 60 × 2 = 120 slots: every round of every worker succeeds
    assert len(successes) == N_WORKERS * rounds
    _check_invariants(db, pid, successes, k)
    assert count(db, AuditEvent, AuditEvent.action == "submit") == N_WORKERS * rounds
    assert count(db, AuditEvent, AuditEvent.action == "assign") == N_WORKERS * rounds
    # what is left is exactly the untouched part of the pool
    assert queue.pool_size(db, actors[0], pid) == 60 * k - N_WORKERS * rounds


def test_sixteen_annotators_drain_a_small_pool_without_overfilling(db, make_user, make_project):
    k, n_samples = 2, 20
    pid = make_project(n_samples, annotators_per_sample=k, daily_quota=1000)
    actors = [make_user(f"worker{i:02d}") for i in range(N_WORKERS)]

    successes, errors = _run_workers(db, actors, pid, rounds=6)  # wants 96, only 40 slots

    assert errors == []
    assert len(successes) == n_samples * k
    _check_invariants(db, pid, successes, k)
    with db.read() as s:
        assert set(s.scalars(select(Sample.n_assigned).where(Sample.project_id == pid))) == {k}
    assert all(queue.next_item(db, a, pid) is None for a in actors)


def _race(n: int, fn):
    """Run ``fn(i)`` in ``n`` threads released together; returns results or exceptions."""
    barrier = threading.Barrier(n)
    out: list[object] = [None] * n

    def run(i):
        barrier.wait()
        try:
            out[i] = fn(i)
        except Exception as exc:  # noqa: BLE001 - the caller inspects them
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return out


@pytest.mark.parametrize("attempt", range(3))
def test_two_tabs_submitting_the_same_annotation_at_once(db, make_user, make_project, attempt):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    contents = [complete_content(note="tab one"), complete_content(note="tab two")]

    results = _race(2, lambda i: workbench_writes.submit(db, ann, item.annotation_id, item.version,
                                                   contents[i], seconds_delta=10))

    ok = [r for r in results if not isinstance(r, Exception)]
    failed = [r for r in results if isinstance(r, Exception)]
    assert len(ok) == 1, results
    assert len(failed) == 1 and isinstance(failed[0], (AlreadySubmitted, StaleVersion)), results
    with db.read() as s:
        row = s.get(Annotation, item.annotation_id)
    assert row.status == "submitted" and row.version == item.version + 1
    assert row.note == ok[0].content.note  # the stored work is the winner's
    assert row.seconds_spent == pytest.approx(10)  # counted once
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 1


@pytest.mark.parametrize("attempt", range(3))
def test_two_tabs_saving_the_same_version_at_once(db, make_user, make_project, attempt):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    contents = [complete_content(note="tab one"), complete_content(note="tab two")]

    results = _race(2, lambda i: workbench_writes.save_draft(db, ann, item.annotation_id, item.version,
                                                       contents[i], step=1))

    ok = [r for r in results if not isinstance(r, Exception)]
    assert len(ok) == 1, results
    assert isinstance([r for r in results if isinstance(r, Exception)][0], StaleVersion)
    with db.read() as s:
        row = s.get(Annotation, item.annotation_id)
    assert row.version == item.version + 1 and row.note == ok[0].content.note


@pytest.mark.parametrize("k", [2, 1])
def test_same_user_in_two_tabs_gets_one_draft(db, make_user, make_project, k):
    pid = make_project(4, annotators_per_sample=k)
    ann = make_user("ann")
    for _round in range(3):
        results = _race(2, lambda i: queue.next_item(db, ann, pid))
        assert not any(isinstance(r, Exception) for r in results), results
        assert results[0].annotation_id == results[1].annotation_id
        assert results[0].sample_id == results[1].sample_id
        with db.read() as s:
            drafts = s.scalar(select(func.count()).select_from(Annotation)
                              .where(Annotation.annotator_id == ann.user_id, Annotation.status == "draft"))
            assert drafts == 1
            n_assigned = s.get(Sample, results[0].sample_id).n_assigned
        assert n_assigned == 1
        assert count(db, Assignment, Assignment.user_id == ann.user_id) == _round + 1
        workbench_writes.submit(db, ann, results[0].annotation_id, results[0].version, complete_content())
    # no sample was reserved for this user by a losing tab
    with db.read() as s:
        assert s.scalar(select(func.sum(Sample.n_assigned)).where(Sample.project_id == pid)) == 3


def test_many_tabs_of_one_user_and_other_annotators_at_once(db, make_user, make_project):
    """Four tabs of one user racing eight other annotators: still one draft for that user."""
    pid = make_project(10)
    ann = make_user("ann")
    others = [make_user(f"o{i}") for i in range(8)]
    callers = [ann] * 4 + others
    results = _race(len(callers), lambda i: queue.next_item(db, callers[i], pid))
    assert not any(isinstance(r, Exception) for r in results), results
    assert len({r.annotation_id for r in results[:4]}) == 1
    assert count(db, Assignment, Assignment.user_id == ann.user_id) == 1
    with db.read() as s:
        assert max(s.scalars(select(Sample.n_assigned))) <= 2


# --- pool sizing and transient-error retries (issue 9 item 6) ---------------------------------

#: SPEC §10: 16 annotators per app server, plus leads and fragments refreshing on their own
N_AT_ONCE = 24


def test_the_pool_serves_sixteen_annotators_and_fragments_at_once(db):
    """24 threads each hold a connection at the same moment. The old SQLite pool (SQLAlchemy's
    default 5 + 10) made the 16th wait 30 s for "QueuePool limit … reached"."""
    barrier = threading.Barrier(N_AT_ONCE, timeout=15)
    problems: list[str] = []

    def hold(_i):
        try:
            with db.read() as s:
                s.execute(select(func.count()).select_from(Sample)).scalar()
                barrier.wait()  # every thread holds its connection here at once
        except Exception as exc:  # noqa: BLE001 - collected as a failure
            problems.append(repr(exc))

    with ThreadPoolExecutor(max_workers=N_AT_ONCE) as pool:
        list(pool.map(hold, range(N_AT_ONCE)))
    assert problems == []


def _transient(dialect: str) -> Exception:
    """A lock error as each driver reports it: SQLite's text, PostgreSQL's SQLSTATE 40P01."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    if dialect == "sqlite":
        return OperationalError("UPDATE", {}, sqlite3.OperationalError("database is locked"))

    class Deadlock(Exception):
        sqlstate = "40P01"

    return OperationalError("UPDATE", {}, Deadlock("deadlock detected"))


def test_run_write_retries_a_transient_error_by_rerunning_the_whole_unit(db, make_user, make_project):
    from db.engine import RetryPolicy

    db.retry = RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01)
    ann = make_user("ann")
    pid = make_project(3)
    calls = []

    def unit(s):
        calls.append(1)
        s.execute(update(Sample).where(Sample.project_id == pid).values(n_assigned=Sample.n_assigned + 1))
        if len(calls) < 3:
            raise _transient(db.engine.dialect.name)  # after a write: it must be rolled back
        return "done"

    assert db.run_write(unit) == "done"
    assert len(calls) == 3
    with db.read() as s:  # only the successful run's increment is there
        assert set(s.scalars(select(Sample.n_assigned).where(Sample.project_id == pid))) == {1}
    assert queue.queue_status(db, ann, pid).in_progress == 0


def test_run_write_gives_up_with_busy_and_writes_nothing(db, make_project):
    from annotation.services.errors import Busy, ServiceError
    from db.engine import BUSY_MESSAGE, RetryPolicy

    db.retry = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)
    pid = make_project(3)
    calls = []

    def unit(s):
        calls.append(1)
        s.execute(update(Sample).where(Sample.project_id == pid).values(n_assigned=5))
        raise _transient(db.engine.dialect.name)

    with pytest.raises(Busy) as raised:
        db.run_write(unit)
    assert isinstance(raised.value, ServiceError) and str(raised.value) == BUSY_MESSAGE
    assert len(calls) == 3
    with db.read() as s:
        assert set(s.scalars(select(Sample.n_assigned).where(Sample.project_id == pid))) == {0}


def test_run_write_does_not_retry_other_errors(db):
    calls = []

    def unit(_s):
        calls.append(1)
        raise StaleVersion("newer work elsewhere")

    with pytest.raises(StaleVersion):
        db.run_write(unit)
    assert calls == [1]


def test_a_transient_error_inside_a_write_block_is_reported_as_busy(db):
    """A ``with db.write()`` body cannot be re-run; its transient error becomes Busy."""
    from annotation.services.errors import Busy

    with pytest.raises(Busy):
        with db.write():
            raise _transient(db.engine.dialect.name)


def test_sqlite_lock_held_past_the_busy_timeout_is_retried(tmp_path):
    """A writer holding SQLite's lock longer than busy_timeout: the annotator's save is retried
    (not failed with "database is locked"); held past every retry it is Busy, nothing written."""
    import sqlite3

    from annotation.services.projects import projects
    from annotation.services.corpus import text_imports
    from annotation.services.errors import Busy
    from db.engine import Database, RetryPolicy, make_engine
    from service_helpers import text_records

    path = tmp_path / "locked.db"
    seed = Database.connect(f"sqlite:///{path}")
    from annotation.services.accounts import accounts
    admin = accounts.create_first_admin(seed, "admin", "pw-123456789", "Admin")
    accounts.create_user(seed, admin, "ann", "pw-123456789", "annotator")
    ann = accounts.authenticate(seed, "ann", "pw-123456789")
    pid = projects.create_project(seed, admin, "P").id
    text_imports.import_texts(seed, admin, pid, text_records(3))
    seed.dispose()

    db = Database(make_engine(f"sqlite:///{path}", busy_timeout_s=0.05),
                  retry=RetryPolicy(attempts=30, base_delay=0.02, max_delay=0.1))
    item = queue.next_item(db, ann, pid)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    released = threading.Event()

    def release_later():
        released.wait(0.5)
        holder.execute("COMMIT")

    t = threading.Thread(target=release_later)
    t.start()
    saved = workbench_writes.save_draft(db, ann, item.annotation_id, item.version, complete_content(), step=1)
    t.join()
    assert saved.version == item.version + 1

    db.retry = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(Busy):
            workbench_writes.save_draft(db, ann, item.annotation_id, saved.version, complete_content(), step=2)
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert queue.open_item(db, ann, item.annotation_id).version == saved.version
    db.dispose()


def _fill_pool_and_kill_its_connections(database, postgres_url, n=3):
    from sqlalchemy import create_engine, text

    sessions = [database._write() for _ in range(n)]
    for s in sessions:
        s.execute(text("SELECT 1"))
    for s in sessions:
        s.close()
    admin = create_engine(postgres_url.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        killed = conn.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": database.engine.url.database}).scalar()
    admin.dispose()
    assert killed >= n


@pytest.mark.postgres
def test_connections_the_server_dropped_are_replaced_without_an_error(postgres_url):
    """No ping before each transaction (a round trip per service call): when the server has
    dropped the pool's recently used connections (a restart, an administrator's kill), the next
    unit of work meets the dead connection and is run again on a new one; the caller sees no
    error."""
    from db.engine import Database
    from db.models import User

    database = Database.connect(postgres_url)
    try:
        assert database.engine.pool._pre_ping is False
        _fill_pool_and_kill_its_connections(database, postgres_url)
        runs = []

        def unit(s):
            runs.append(1)
            return s.scalar(select(func.count()).select_from(User))

        assert database.run_read(unit) == 0
        assert len(runs) == 2  # the first run met a dead connection, the second a new one
        assert database.run_write(unit) == 0 and len(runs) == 3
    finally:
        database.dispose()


@pytest.mark.postgres
def test_an_idle_pooled_connection_is_pinged_before_use(postgres_url, monkeypatch):
    """A connection idle longer than PING_AFTER_IDLE_S is pinged at checkout, so even a
    ``with db.read()`` block (which cannot be re-run) never meets a connection the server
    dropped while it sat in the pool."""
    from db import engine as engine_module
    from db.engine import Database
    from db.models import User

    monkeypatch.setattr(engine_module, "PING_AFTER_IDLE_S", 0.0)
    database = Database.connect(postgres_url)
    try:
        _fill_pool_and_kill_its_connections(database, postgres_url)
        with database.read() as s:
            assert s.scalar(select(func.count()).select_from(User)) == 0
    finally:
        database.dispose()
