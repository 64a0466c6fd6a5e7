"""The worker side of a background job: progress, log lines and a heartbeat written back to the
job row every few seconds (:class:`JobReporter`), and whether a lead asked to cancel."""

from __future__ import annotations

import threading
import traceback

from db.engine import Database
from db.models import Job, utcnow

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
                return
            job.progress = min(max(fraction, job.progress), 1.0)
            job.message = message if not job.cancel_requested else "Cancelling…"
            if lines:
                job.log = log_tail((job.log + "\n" if job.log else "") + "\n".join(lines))
            job.heartbeat_at = utcnow()
            self.cancel = bool(job.cancel_requested)
