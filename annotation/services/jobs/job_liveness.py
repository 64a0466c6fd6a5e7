"""Which background jobs' workers are dead, and marking those jobs failed.

A queued job no worker claimed within :data:`START_TIMEOUT_S` is lost. A running job's worker is
judged by the rule every writer is judged by (an export, an import, a leftover folder):
:func:`annotation.leftovers.writer_is_alive` — this host's process gone, or the heartbeat older
than :data:`HEARTBEAT_TIMEOUT_S` (all another app server can go by: a process id means nothing
on another host).

The judgement is one read (:func:`find_dead_workers`); each job is then marked failed only if
it is still as judged — same status, same heartbeat (:func:`fail_dead_workers`, one conditional
``UPDATE``). A worker that finished, or beat, since the judgement was read keeps its outcome,
and two app servers judging at once write one failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from annotation import leftovers
from annotation.services.jobs.job_reporter import finish_job
from db.engine import Database
from db.models import Job, utcnow

#: a running job silent for this long is taken for dead
HEARTBEAT_TIMEOUT_S = 90.0
#: a queued job no worker has claimed after this long is taken for lost
START_TIMEOUT_S = 180.0
#: the start of the message of a job whose worker died
WORKER_GONE = leftovers.WORKER_GONE.capitalize()


def _worker_log_tail(run_dir: str, lines: int = 30) -> str:
    try:
        text = Path(run_dir, "worker.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


@dataclass(frozen=True)
class DeadWorker:
    """A job judged dead, why, and what it was judged on — its status and heartbeat then — which
    the write that fails it requires unchanged (:func:`fail_dead_workers`)."""

    job_id: int
    reason: str
    status: str
    heartbeat_at: datetime | None
    run_dir: str


def _why_dead(job: Job, now: datetime) -> str | None:
    """Why the worker of a queued or running job is taken for dead, or None while it may live."""
    if job.status == "queued":
        if now - job.created_at > timedelta(seconds=START_TIMEOUT_S):
            return f"No worker started within {START_TIMEOUT_S:.0f} s."
        return None
    since = job.heartbeat_at or job.started_at or job.created_at
    writer = {"host": job.host, "pid": job.pid} if job.host and job.pid else None
    if leftovers.writer_is_alive(writer, since.timestamp(), now=now.timestamp(), max_age=HEARTBEAT_TIMEOUT_S):
        return None
    if now - since > timedelta(seconds=HEARTBEAT_TIMEOUT_S):
        return f"{WORKER_GONE}: it has been silent since {since:%H:%M:%S} UTC."
    return f"{WORKER_GONE}: its process (pid {job.pid} on {job.host}) is gone."


def find_dead_workers(db: Database, project_id: int | None = None) -> list[DeadWorker]:
    """The queued and running jobs whose worker is dead (module docstring); one read, no write."""
    now = utcnow()
    with db.read() as s:
        q = select(Job).where(Job.status.in_(("queued", "running")))
        if project_id is not None:
            q = q.where(Job.project_id == project_id)
        live = list(s.scalars(q))
    return [DeadWorker(job.id, reason, job.status, job.heartbeat_at, job.run_dir)
            for job in live if (reason := _why_dead(job, now))]


def fail_dead_workers(db: Database, dead: list[DeadWorker]) -> list[int]:
    """Mark the jobs judged dead failed, each only if still as judged: a worker that finished,
    or beat, since the judgement was read keeps its outcome. Returns the ids marked failed."""
    failed = []
    for job in dead:
        tail = _worker_log_tail(job.run_dir)  # read before the write, which is one statement
        if finish_job(db, job.job_id, "failed", job.reason, extra_log=tail, only_if=(job.status,),
                      heartbeat=job.heartbeat_at):
            failed.append(job.job_id)
    return failed
