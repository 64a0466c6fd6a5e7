"""The worker side of a background job: progress, log lines and a heartbeat written back to the
job row every few seconds (:class:`JobReporter`), whether a lead asked to cancel, and the
outcome (:func:`run_reported`, :func:`finish_job`).

The rows a job stores beside its row (a model job's ``model_predictions``, written in chunks
under the job's id) are its result: readers take them only from a job that succeeded
(:func:`annotation.services.model_loop.latest_job`), so the one ``UPDATE`` that marks the job
succeeded publishes all of them at once, and until then the previous job's stay current. That
``UPDATE`` happens only while the job is still running; a job that ends any other way — failed,
cancelled, its worker found dead — loses its rows in the same transaction, so none is left
half-written.
"""

from __future__ import annotations

import threading
import traceback
from typing import Any, Callable

from sqlalchemy import delete

from annotation.services.errors import InvalidInput
from db.engine import Database
from db.models import Job, ModelPrediction, utcnow

#: how often a worker writes progress, log and heartbeat (seconds)
FLUSH_EVERY_S = 2.0
#: lines of log a job row keeps
LOG_TAIL_LINES = 200


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
            job = s.get(Job, self.job_id)
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
               result: dict[str, Any] | None = None, only_if: tuple[str, ...] | None = None) -> bool:
    """Write a job's outcome, unless it is no longer in one of the ``only_if`` states (already
    finished: by its worker, a lead's cancel, or found dead); returns whether it was written. A
    job that ends other than ``succeeded`` loses the rows it stored (module docstring)."""
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or (only_if is not None and job.status not in only_if):
            return False
        job.status, job.message, job.finished_at = status, message, utcnow()
        if extra_log:
            job.log = log_tail((job.log + "\n" if job.log else "") + extra_log)
        if result is not None:
            job.result = result
        if status == "succeeded":
            job.progress = 1.0
        else:
            s.execute(delete(ModelPrediction).where(ModelPrediction.job_id == job_id))
        return True


def _discard_rows(db: Database, job_id: int) -> None:
    """Remove what a job stored after it had been marked finished (found dead while it was
    still writing: its outcome stands, its late rows go)."""
    with db.write() as s:
        s.execute(delete(ModelPrediction).where(ModelPrediction.job_id == job_id))


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
    _discard_rows(db, job_id)
    with db.read() as s:
        return s.get(Job, job_id).status
