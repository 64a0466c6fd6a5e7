"""A predict job whose worker is killed (SIGKILL) while it stores its predictions: no partial set
is ever read, the earlier complete predictions stay current, and the job is listed failed by the
service and by ``chronocept jobs`` without anyone opening it — on SQLite and PostgreSQL. The
listing that marks it failed deletes its rows afterwards, a chunk per write; one killed in the
middle of that leaves only rows nobody reads, which the next listing removes.

The worker runs in a forked process of this test (``jobs.run_job``, as ``chronocept run-job``
runs it) with the model's computation replaced by fixed rows: what is under test is the store
and the publication, not the ensemble. It stops for good after its first chunk of rows and tells
the test, which kills it there.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from datetime import timedelta

import pytest
from sqlalchemy import event, func, insert, select, update

from annotation.services.workbench import hand_out_order
from annotation.services.jobs import job_reporter, jobs
from annotation.services.model import model_jobs, model_loop
from db.engine import Database, make_engine
from db.models import DatasetExport, Job, ModelPrediction, Sample, utcnow
from model_results import kept
from service_helpers import run_cli

N_SAMPLES = 120  # three chunks of 50


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch, tmp_path):
    monkeypatch.setattr(model_jobs, "WRITE_CHUNK", 50)
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))

    def fixed_rows(db, job, reporter):
        """Every active sample predicted with a spread that names the job."""
        with db.read() as s:
            ids = list(s.scalars(select(Sample.id).where(Sample.project_id == job["project_id"],
                                                         Sample.status == "active").order_by(Sample.id)))
        rows = [{"job_id": job["id"], "sample_id": sid, "xi": 50.0 + job["id"], "omega": 8.0, "alpha": 0.0,
                 "spread_w1": float(job["id"]), "half_gone_minutes": 100.0, "half_gone_low": 50.0,
                 "half_gone_high": 200.0, "gold_w1": None, "score": None, "expected_miss": 1.0} for sid in ids]
        return rows, f"Predicted {len(rows)} samples.", kept("beats", len(rows))

    monkeypatch.setattr(model_jobs, "_compute", fixed_rows)


def _training_run(db, pid: int, lead, tmp_path) -> int:
    (tmp_path / "run" / "models" / "linear__none").mkdir(parents=True)
    with db.write() as s:
        export = DatasetExport(project_id=pid, created_by=lead.user_id, path=str(tmp_path / "export"), base=1.1,
                               seed=1, licence="cc-by-4.0", settings={}, splits={}, counts={}, status="complete")
        s.add(export)
        s.flush()
        run = Job(project_id=pid, kind="training", export_id=export.id, config={"benchmark": 1},
                  status="succeeded", run_dir=str(tmp_path / "run"))
        s.add(run)
        s.flush()
        return run.id


def _store_one_chunk_then_wait(url: str, job_id: int, conn) -> None:
    """The worker: the first chunk of rows stored, then stopped for good."""
    real = model_jobs._store

    def store(db, rows):
        real(db, rows[:model_jobs.WRITE_CHUNK])
        conn.send("one chunk stored")
        conn.recv()  # never answered: the test kills this process here

    model_jobs._store = store
    jobs.run_job(Database(make_engine(url)), job_id)


def _rows_of(db, job_id: int) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(ModelPrediction).where(ModelPrediction.job_id == job_id))


def test_a_predict_job_killed_while_storing_leaves_no_partial_set_and_is_listed_failed(
        db, admin, lead, make_user, make_project, tmp_path):
    url = db.engine.url.render_as_string(hide_password=False)
    pid = make_project(N_SAMPLES, hand_out_order="uncertain")
    run_id = _training_run(db, pid, lead, tmp_path)
    earlier = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    assert jobs.run_job(db, earlier.id) == "succeeded"
    later = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    with db.read() as s:
        first_sample = s.scalar(select(func.min(Sample.id)).where(Sample.project_id == pid))

    fork = multiprocessing.get_context("fork")
    ours, theirs = fork.Pipe()
    worker = fork.Process(target=_store_one_chunk_then_wait, args=(url, later.id, theirs), daemon=True)
    worker.start()
    try:
        assert ours.poll(120), "the worker never stored its first chunk"
        ours.recv()
        # mid-store: the job runs, its rows are written but nobody reads them
        assert jobs.get_job(db, lead, later.id).status == "running"
        assert model_loop.model_curve(db, lead, first_sample).job_id == earlier.id
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
    assert worker.exitcode == -signal.SIGKILL

    code, listing, err = run_cli(db, "jobs")
    assert code == 0, err

    by_id = {line.split()[0]: line for line in listing.splitlines()}
    assert f"failed: {jobs.WORKER_GONE}: its process (pid {worker.pid} " in by_id[str(later.id)]
    assert "succeeded" in by_id[str(earlier.id)]
    listed = {j.id: j for j in jobs.list_jobs(db, lead, pid)}
    assert listed[later.id].status == "failed" and listed[later.id].message.startswith(jobs.WORKER_GONE)
    # none of the killed job's rows is left; the earlier complete set is intact and current
    assert _rows_of(db, later.id) == 0
    assert _rows_of(db, earlier.id) == N_SAMPLES
    curve = model_loop.model_curve(db, lead, first_sample)
    assert (curve.job_id, curve.xi) == (earlier.id, 50.0 + earlier.id)
    with db.read() as s:
        assert model_loop.latest_job(s, pid, model_jobs.PREDICT).id == earlier.id
        assert len(hand_out_order.uncertain_candidates(s, make_user("ann").user_id, pid, 2, exclude_warmup=False,
                                                       limit=N_SAMPLES)) == N_SAMPLES


def test_a_job_found_dead_while_it_still_writes_keeps_no_rows(db, lead, make_project, tmp_path, monkeypatch):
    """A worker declared dead (its heartbeat stale) that was only slow cannot publish afterwards:
    its late success is refused and the rows it went on writing go."""
    pid = make_project(10)
    run_id = _training_run(db, pid, lead, tmp_path)
    job = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    real = model_jobs._store

    def store_after_being_declared_dead(db_, rows):
        jobs.finish_job(db, job.id, "failed", f"{jobs.WORKER_GONE}: it has been silent since 09:00:00 UTC.",
                        only_if=("running",))
        real(db_, rows)

    monkeypatch.setattr(model_jobs, "_store", store_after_being_declared_dead)
    assert jobs.run_job(db, job.id) == "failed"
    assert _rows_of(db, job.id) == 0
    assert jobs.get_job(db, lead, job.id).message.startswith(jobs.WORKER_GONE)


# --- a dead job's rows go after its failure, a chunk per write ---------------------------------------


def _silent_job_with_rows(db, lead, pid: int, run_id: int) -> int:
    """A predict job whose worker stored a row for every sample, then fell silent ten minutes ago
    on another host (found dead by the next listing)."""
    job = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    silent_since = utcnow() - timedelta(minutes=10)
    with db.write() as s:
        s.execute(update(Job).where(Job.id == job.id).values(status="running", host="gpu-host-far-away", pid=1,
                                                             started_at=silent_since, heartbeat_at=silent_since))
        ids = s.scalars(select(Sample.id).where(Sample.project_id == pid)).all()
        s.execute(insert(ModelPrediction.__table__), [
            {"job_id": job.id, "sample_id": sid, "xi": 1.0, "omega": 8.0, "alpha": 0.0, "spread_w1": 1.0,
             "half_gone_minutes": 100.0, "half_gone_low": 50.0, "half_gone_high": 200.0} for sid in ids])
    return job.id


def _write_transactions(db, call) -> list[list[tuple[str, int]]]:
    """The write transactions ``call()`` commits: each the (first three words, rows) of its statements."""
    open_: dict[int, list[tuple[str, int]]] = {}
    done: list[list[tuple[str, int]]] = []

    def begin(conn):  # noqa: ANN001
        open_[id(conn)] = []

    def statement(conn, cursor, text, parameters, context, executemany):  # noqa: ANN001
        open_.setdefault(id(conn), []).append((" ".join(text.split()[:3]).upper(), cursor.rowcount))

    def commit(conn):  # noqa: ANN001
        done.append(open_.pop(id(conn), []))

    hooks = (("begin", begin), ("after_cursor_execute", statement), ("commit", commit))
    for name, fn in hooks:
        event.listen(db.engine, name, fn)
    try:
        call()
    finally:
        for name, fn in hooks:
            event.remove(db.engine, name, fn)
    return done


def test_the_write_that_fails_a_dead_job_deletes_none_of_its_rows(db, lead, make_project, tmp_path, monkeypatch):
    """The failure is one short statement; the rows go after it, no write deleting more than a chunk
    (deleting a predict job's 100k rows in one write held SQLite's write lock for seconds)."""
    monkeypatch.setattr(job_reporter, "DISCARD_CHUNK", 50)
    pid = make_project(N_SAMPLES)
    job = _silent_job_with_rows(db, lead, pid, _training_run(db, pid, lead, tmp_path))

    writes = _write_transactions(db, lambda: jobs.list_jobs(db, lead, pid))

    failing = [w for w in writes if any(stmt.startswith("UPDATE JOBS SET") for stmt, _ in w)]
    assert len(failing) == 1 and not any(stmt.startswith("DELETE") for stmt, _ in failing[0]), failing
    deletes = [rows for w in writes for stmt, rows in w if stmt.startswith("DELETE FROM MODEL_PREDICTIONS")]
    assert deletes == [50, 50, N_SAMPLES - 100]
    assert all(len(w) == 1 for w in writes if any(stmt.startswith("DELETE") for stmt, _ in w))
    assert _rows_of(db, job) == 0 and jobs.get_job(db, lead, job).status == "failed"


def _list_jobs_killed_after_one_chunk(url: str, lead, pid: int) -> None:
    """Another app server's listing, killed once it has deleted one chunk of a dead job's rows."""
    real = job_reporter._discard_chunk

    def discard_then_die(db, job_id):
        real(db, job_id)
        os.kill(os.getpid(), signal.SIGKILL)

    job_reporter._discard_chunk = discard_then_die
    jobs.list_jobs(Database(make_engine(url)), lead, pid)


def test_a_listing_killed_while_it_discards_leaves_rows_nobody_reads_and_the_next_removes_them(
        db, lead, make_project, tmp_path, monkeypatch):
    monkeypatch.setattr(job_reporter, "DISCARD_CHUNK", 50)
    pid = make_project(N_SAMPLES, hand_out_order="uncertain")
    run_id = _training_run(db, pid, lead, tmp_path)
    earlier = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    assert jobs.run_job(db, earlier.id) == "succeeded"
    dead = _silent_job_with_rows(db, lead, pid, run_id)
    with db.read() as s:
        first_sample = s.scalar(select(func.min(Sample.id)).where(Sample.project_id == pid))

    listing = multiprocessing.get_context("fork").Process(
        target=_list_jobs_killed_after_one_chunk, args=(db.engine.url.render_as_string(hide_password=False), lead, pid),
        daemon=True)
    listing.start()
    listing.join(120)
    assert listing.exitcode == -signal.SIGKILL  # killed after its first chunk

    # the failure was written before any row went: what is left is a failed job's, read by nobody
    with db.read() as s:
        assert s.get(Job, dead).status == "failed"
        assert model_loop.latest_job(s, pid, model_jobs.PREDICT).id == earlier.id
    assert _rows_of(db, dead) == N_SAMPLES - 50
    assert model_loop.model_curve(db, lead, first_sample).job_id == earlier.id

    jobs.list_jobs(db, lead, pid)  # the next listing sweeps them
    assert _rows_of(db, dead) == 0 and _rows_of(db, earlier.id) == N_SAMPLES
