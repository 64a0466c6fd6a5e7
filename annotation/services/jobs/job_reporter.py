"""The worker side of a background job: progress, log lines and a heartbeat written back to the
job row every few seconds (:class:`JobReporter`), whether a lead asked to cancel, and the
outcome (:func:`run_reported`, :func:`finish_job`).

The rows a job stores beside its row (a model job's ``model_predictions``, written in chunks
under the job's id) are its result: readers take them only from a job that succeeded
(:func:`annotation.services.model.model_loop.latest_job`), so the one ``UPDATE`` that marks the job
succeeded publishes all of them at once, and until then the previous job's stay current.

An outcome is one conditional ``UPDATE``: written only while the job is still in the state its
writer saw — running, for the worker; as judged (status and heartbeat), for the dead-worker
detection of an app server (:mod:`annotation.services.jobs.job_liveness`). A check read first and an
``UPDATE`` after it would both pass when the two race on PostgreSQL (READ COMMITTED); the
condition in the ``UPDATE`` lets exactly one outcome be written, and the other changes nothing.

A job that ends any other way than succeeded loses its rows after its outcome is written, in
chunks of :data:`DISCARD_CHUNK`, each its own short write (:func:`discard_rows`): a predict job
holds a row per sample, and deleting 100k of them in the write of the outcome held SQLite's
write lock for seconds. No reader takes a failed job's rows, so they need not go at once; what a
kill in the middle leaves — or a worker found dead goes on writing — is removed by the next
listing of the project's jobs (:func:`sweep_discarded_rows`).
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from datetime import datetime

from sqlalchemy import delete, exists, select, update

from annotation.services.errors import InvalidInput
from db.engine import Database
from db.models import Job, ModelPrediction, utcnow

#: how often a worker writes progress, log and heartbeat (seconds)
FLUSH_EVERY_S = 2.0
#: lines of log a job row keeps
LOG_TAIL_LINES = 200
#: rows of a finished job deleted per write: as many as a model job inserts per write
#: (``model_jobs.WRITE_CHUNK``), a few milliseconds of the write lock each
DISCARD_CHUNK = 2_000
#: on SQLite, the pause between two chunks: the deleting process would take the write lock
#: again at once, before a writer of another process, asking every couple of milliseconds
#: (``db.engine.begin_immediate``), sees it free
DISCARD_PAUSE_S = 0.005
#: the outcomes whose rows nobody reads
DISCARDED = ("failed", "cancelled")
#: :func:`finish_job`'s ``heartbeat`` when the outcome does not depend on it
ANY_HEARTBEAT: Any = object()


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of ``text``."""
    return "\n".join(text.splitlines()[-lines:])


class JobReporter:
    """Collects progress and log lines in memory; a thread writes them, with a heartbeat, to the
    job row every :data:`FLUSH_EVERY_S` seconds and reads back whether a cancel was asked."""

    def __init__(self, db: Database, job_id: int):
        self.db, self.job_id = db, job_id
        self.lock = threading.Lock()
        self.fraction, self.message = 0.0, "Starting…"
        self.lines: list[str] = []
        self.cancel = False
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=f"job-{job_id}-flush", daemon=True)

    def progress(self, fraction: float, message: str) -> None:
        with self.lock:
            self.fraction, self.message = float(fraction), message

    def log(self, line: str) -> None:
        with self.lock:
            self.lines.append(line)

    def should_stop(self) -> bool:
        return self.cancel

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=10)
        self.flush()

    def _loop(self) -> None:
        while not self.stop_event.wait(FLUSH_EVERY_S):
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - a failed write must not kill the training
                traceback.print_exc()

    def flush(self) -> None:
        with self.lock:
            fraction, message, lines = self.fraction, self.message, self.lines
            self.lines = []
        with self.db.write() as s:
            # locked as read (PostgreSQL), so that an outcome written meanwhile is not overwritten
            job = s.get(Job, self.job_id, with_for_update=True)
            if job.status != "running":
                self.cancel = True  # finished meanwhile (found dead): the work stops at its next check
                return
            job.progress = min(max(fraction, job.progress), 1.0)
            job.message = message if not job.cancel_requested else "Cancelling…"
            if lines:
                job.log = log_tail((job.log + "\n" if job.log else "") + "\n".join(lines))
            job.heartbeat_at = utcnow()
            self.cancel = bool(job.cancel_requested)


def finish_job(db: Database, job_id: int, status: str, message: str, *, extra_log: str = "",
               result: dict[str, Any] | None = None, only_if: tuple[str, ...] | None = None,
               heartbeat: datetime | None = ANY_HEARTBEAT) -> bool:
    """Write a job's outcome, unless it is no longer in one of the ``only_if`` states (already
    finished: by its worker, a lead's cancel, or found dead) or, where ``heartbeat`` is given, its
    heartbeat is no longer that one (it beat since it was judged dead); returns whether it was
    written. A job that ends other than ``succeeded`` then loses the rows it stored (module
    docstring)."""
    values: dict[str, Any] = {"status": status, "message": message, "finished_at": utcnow()}
    if result is not None:
        values["result"] = result
    if status == "succeeded":
        values["progress"] = 1.0
    still = [Job.id == job_id]
    if only_if is not None:
        still.append(Job.status.in_(only_if))
    if heartbeat is not ANY_HEARTBEAT:
        still.append(Job.heartbeat_at.is_(None) if heartbeat is None else Job.heartbeat_at == heartbeat)
    with db.write() as s:
        written = s.execute(update(Job).where(*still).values(**values)
                            .execution_options(synchronize_session=False)).rowcount == 1
        if written and extra_log:  # the row is this transaction's now: nobody else writes its log
            log = s.scalar(select(Job.log).where(Job.id == job_id))
            s.execute(update(Job).where(Job.id == job_id)
                      .values(log=log_tail((log + "\n" if log else "") + extra_log))
                      .execution_options(synchronize_session=False))
    if written and status != "succeeded":
        discard_rows(db, job_id)
    return written


def discard_rows(db: Database, job_id: int) -> int:
    """Delete the rows job ``job_id`` stored, :data:`DISCARD_CHUNK` per write; returns how many."""
    removed = 0
    while True:
        n = _discard_chunk(db, job_id)
        removed += n
        if n < DISCARD_CHUNK:
            return removed
        if db.is_sqlite:
            time.sleep(DISCARD_PAUSE_S)


def _discard_chunk(db: Database, job_id: int) -> int:
    with db.write() as s:
        chunk = (select(ModelPrediction.id).where(ModelPrediction.job_id == job_id)
                 .limit(DISCARD_CHUNK).scalar_subquery())
        return s.execute(delete(ModelPrediction).where(ModelPrediction.id.in_(chunk))
                         .execution_options(synchronize_session=False)).rowcount


def sweep_discarded_rows(db: Database, project_id: int | None = None) -> int:
    """Delete what is left of the rows of jobs (of ``project_id``, or all) that ended other than
    succeeded: a kill in the middle of :func:`discard_rows`, or a worker found dead that went on
    writing, leaves some. One read when there are none; returns how many went."""
    with db.read() as s:
        q = select(Job.id).where(Job.status.in_(DISCARDED), exists().where(ModelPrediction.job_id == Job.id))
        if project_id is not None:
            q = q.where(Job.project_id == project_id)
        left = list(s.scalars(q))
    return sum(discard_rows(db, job_id) for job_id in left)


def run_reported(db: Database, job_id: int, work: Callable[[JobReporter], tuple[str, dict[str, Any]]]) -> str:
    """Worker: run ``work(reporter)`` for a claimed job with its progress, log and cancel
    reported, and write the outcome while the job is still running: succeeded with work's
    (message, result), which publishes its rows; cancelled; failed with the one-line reason of a
    refused input, or with the traceback of any other error. Returns the job's final status."""
    from annotation.training import TrainingCancelled, TrainingInputError  # heavy: on use

    reporter = JobReporter(db, job_id)
    reporter.start()
    try:
        message, result = work(reporter)
    except TrainingCancelled:
        outcome: tuple[str, str, dict[str, Any]] = ("cancelled", "Cancelled by a lead.", {})
    except (TrainingInputError, InvalidInput) as exc:
        outcome = ("failed", str(exc), {"extra_log": f"ERROR: {exc}"})
    except Exception as exc:  # noqa: BLE001 - any crash is the job's failure, with its traceback
        outcome = ("failed", f"{type(exc).__name__}: {exc}", {"extra_log": traceback.format_exc()})
    else:
        outcome = ("succeeded", message, {"result": result})
    reporter.close()
    status, message, extra = outcome
    # written only while the job runs: one already marked finished (found dead) keeps its outcome
    if finish_job(db, job_id, status, message, only_if=("running",), **extra):
        return status
    discard_rows(db, job_id)  # what it stored after it was marked finished
    with db.read() as s:
        return s.get(Job, job_id).status
