"""Background jobs: baseline training launched from the back office, run in its own process.

A lead launches a job: a row in ``jobs`` (status ``queued``), then a worker process —
``chronocept run-job ID`` — started either as a child of the app (default; it gets its own
session, so it survives page reloads and app restarts) or through a configured *launcher
command* that sends it to another machine (``CHRONOCEPT_JOB_LAUNCHER``, e.g. an ``ssh`` line to
the team's GPU host; placeholders ``{job_id}`` and ``{run_dir}``, see :func:`launcher_argv`;
the database URL arrives on the launcher's standard input, never on a command line). The worker
claims the row (``running``), trains (``annotation.training.run_training``) and writes its
progress, a log tail and a heartbeat back every couple of seconds; it ends ``succeeded``,
``failed`` (with the error and log) or ``cancelled`` (the lead asked; the worker checks between
steps). A job whose worker died without a word is found by its silence: a worker whose
process is gone (on this host: a process id means nothing on another), or any worker whose
heartbeat stopped, is marked failed ("the worker stopped without finishing") with its log — by
every listing of jobs (the Training page, ``chronocept jobs``), so nobody has to open it
(:mod:`annotation.services.jobs.job_liveness`). The rows a job wrote (``model_predictions``)
count only once it succeeds and go when it does not
(:func:`annotation.services.jobs.job_reporter.finish_job`).

What runs a claimed job depends on its kind: :data:`RUNNERS`, where training's runner is this
module's and the model jobs (``predict``, ``audit``) register theirs when
:mod:`annotation.services.model.model_jobs` is imported — it imports this module, never the reverse.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import select, update

from annotation.services import audit
from annotation.services.jobs import job_liveness
from annotation.services.jobs.job_reporter import JobReporter, finish_job, run_reported, sweep_discarded_rows
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.number_limits import checks_numbers
from annotation.training.predictions import (
    MAX_PREDICTIONS,
    PredictionSeries,
    prediction_series,
    stored_result,
)
from db.config import DATABASE_URL_ENV, LAUNCHER_ENV, config
from db.engine import Database
from db.models import DatasetExport, Job, User, utcnow

TRAINING = "training"
FINISHED = ("succeeded", "failed", "cancelled")
#: the start of the message of a job whose worker died
WORKER_GONE = job_liveness.WORKER_GONE

_children: list[subprocess.Popen] = []  # local workers, polled so none stays a zombie

#: runs a claimed job of its kind to its end and returns its final status (``run_reported``)
Runner = Callable[[Database, int], str]
#: the runner of each kind of job, filled by :func:`register_runner` (module docstring)
RUNNERS: dict[str, Runner] = {}


def register_runner(kind: str, runner: Runner) -> None:
    """Make ``runner`` run the jobs of ``kind`` (a module's own kinds, registered as it loads)."""
    RUNNERS[kind] = runner


def runs_root() -> Path:
    """Where run folders go (``CHRONOCEPT_RUNS_DIR``, default ``./data/runs``)."""
    return config().runs_dir.resolve()


def launcher_command() -> str:
    """The configured launcher command line (``CHRONOCEPT_JOB_LAUNCHER``), "" for local workers."""
    return config().job_launcher


@dataclass(frozen=True)
class JobInfo:
    id: int
    project_id: int
    kind: str
    export_id: int | None
    config: dict[str, Any]
    status: str
    progress: float
    message: str
    log: str
    result: dict[str, Any]
    run_dir: str
    launcher: str
    pid: int | None
    host: str
    cancel_requested: bool
    created_by: str
    created_at: datetime
    started_at: datetime | None
    heartbeat_at: datetime | None
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def prediction_series(self) -> list[PredictionSeries]:
        """The test predictions kept in the result, one series per (model, ablation)."""
        return prediction_series(self.result.get("predictions") or {})

    @property
    def seconds(self) -> float | None:
        if self.started_at is None:
            return None
        end = self.finished_at or utcnow()
        return (end - self.started_at).total_seconds()


def _info(job: Job, username: str | None) -> JobInfo:
    return JobInfo(job.id, job.project_id, job.kind, job.export_id, dict(job.config or {}), job.status,
                   job.progress, job.message, job.log, dict(job.result or {}), job.run_dir, job.launcher,
                   job.pid, job.host, job.cancel_requested, username or "—", job.created_at,
                   job.started_at, job.heartbeat_at, job.finished_at)


def _database_url(db: Database) -> str:
    return db.engine.url.render_as_string(hide_password=False)


@checks_numbers
def launch_training(db: Database, actor: Actor, project_id: int, export_id: int,
                    config: dict[str, Any], *, launcher: str | None = None, start: bool = True) -> JobInfo:
    """Lead: queue a training job on a complete export and start its worker.

    ``config`` is a :class:`annotation.training.TrainingConfig` as a dict; it is checked here,
    so a bad one is refused before anything is stored. ``launcher`` (default: the
    ``CHRONOCEPT_JOB_LAUNCHER`` setting) is a command line that starts the worker elsewhere;
    without one the worker is a local process. ``start=False`` only queues (tests).
    """
    from annotation.training import TrainingConfig, TrainingInputError

    try:
        checked = TrainingConfig.from_dict(config)
    except (TrainingInputError, TypeError, ValueError) as exc:
        raise InvalidInput(f"The training settings are not valid: {exc}") from None
    launcher = launcher_command() if launcher is None else launcher.strip()
    if launcher:
        check_launcher(launcher)
    with db.write() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        export = s.get(DatasetExport, export_id)
        if export is None or export.project_id != project_id:
            raise NotFound(f"There is no export {export_id} in this project.")
        if export.status != "complete":
            raise InvalidInput(f"Export {export_id} is not complete ({export.status}).")
        short = _too_few_samples(export, checked.benchmark)
        if short:
            raise InvalidInput(short)
        if not launcher and not Path(export.path, "export.json").is_file():
            raise InvalidInput(f"The folder of export {export_id} ({export.path}) is no longer on this "
                               "server; repeat the export first.")
        job = Job(project_id=project_id, kind=TRAINING, export_id=export_id, config=checked.to_dict(),
                  status="queued", launcher=launcher, created_by=actor.user_id,
                  message="Waiting for the worker to start…")
        s.add(job)
        s.flush()
        job.run_dir = str(runs_root() / f"job-{job.id}")
        audit.record(s, actor.user_id, "launch_job", "job", job.id, kind=TRAINING, export=export_id,
                     models=list(checked.models), device=checked.device, launcher=bool(launcher))
        job_id = job.id
    if start:
        start_worker_or_fail(db, job_id, launcher)
    return get_job(db, actor, job_id)


def start_worker_or_fail(db: Database, job_id: int, launcher: str) -> None:
    """Start a queued job's worker; a worker that cannot be started fails the job, saying why."""
    try:
        _start_worker(db, job_id, launcher)
    except (OSError, ValueError, KeyError) as exc:
        finish_job(db, job_id, "failed", f"The worker could not be started: {exc}")


def _too_few_samples(export: DatasetExport, benchmark: int) -> str | None:
    """Why ``export`` cannot train on ``benchmark`` (a split under the minimum), or None."""
    from annotation.export import BENCHMARK_CONFIGS, TVCP_CONFIG
    from annotation.training import MIN_SAMPLES_PER_SPLIT, SPLITS

    if sum((export.counts or {}).get(TVCP_CONFIG, {}).values()):
        return (f"Export {export.id} is a context-pairs (tvcp) export: the baselines train on the "
                "benchmark configurations of a single-texts export. Score change-label predictions "
                "for it under Score predictions instead.")
    sizes = (export.counts or {}).get(BENCHMARK_CONFIGS[benchmark], {})
    short = [f"{split} {int(sizes.get(split, 0))}" for split in SPLITS
             if int(sizes.get(split, 0)) < MIN_SAMPLES_PER_SPLIT]
    if not short:
        return None
    return (f"Export {export.id} is too small to train on benchmark {benchmark}: {', '.join(short)} "
            f"sample(s); training needs at least {MIN_SAMPLES_PER_SPLIT} in each of train, validation and "
            "test (R² and Spearman ρ on fewer mean nothing). Export more gold first.")


#: the placeholder older launchers used; the URL it put on the command line carries the password
_URL_PLACEHOLDER = "{database_url}"


def check_launcher(launcher: str) -> None:
    """Refuse a launcher command line that cannot be started, with a one-line reason.

    ``{database_url}`` is refused: whatever it became would be on the command line of
    ``/bin/sh -c`` (and of every process the line starts) for the whole job, where any user of
    the machine reads it (``ps``, ``/proc/PID/cmdline``) — and the URL may carry the database
    password. The launcher reads the URL from its standard input instead.
    """
    if _URL_PLACEHOLDER in launcher:
        raise InvalidInput(
            f"The job launcher ({LAUNCHER_ENV}) names {_URL_PLACEHOLDER}, which would put the "
            "database password on a command line; read the URL from standard input instead "
            "(see the README's GPU host example).")
    try:
        launcher_argv(launcher, 0, "run-dir")
    except (KeyError, IndexError, ValueError) as exc:
        raise InvalidInput(f"The job launcher ({LAUNCHER_ENV}) cannot be used: "
                           f"unknown placeholder or stray brace ({exc}).") from None


def launcher_argv(launcher: str, job_id: int, run_dir: Path | str) -> list[str]:
    """The process to start for a launcher command line: ``/bin/sh -c LINE``.

    The line is a shell command line (pipes, ``&&``, redirections work as in a terminal). Each
    placeholder — ``{job_id}``, ``{run_dir}`` — is replaced by its value quoted for that shell
    (``shlex.quote``), so it arrives as one word whatever it holds. Braces meant for the shell
    are written doubled (``{{ }}``). Raises KeyError/ValueError for an unknown placeholder or a
    stray brace.

    The database URL is never a placeholder: :func:`_start_worker` writes it as one line on the
    launcher's standard input (and sets ``CHRONOCEPT_DATABASE_URL`` in its environment), so it
    appears on no command line; ``ssh`` passes its standard input on to the remote command, which
    reads the line (the README's example)."""
    line = launcher.format(job_id=shlex.quote(str(job_id)), run_dir=shlex.quote(str(run_dir)))
    return ["/bin/sh", "-c", line]


def _start_worker(db: Database, job_id: int, launcher: str) -> None:
    run_dir = runs_root() / f"job-{job_id}"
    run_dir.mkdir(parents=True, exist_ok=True)
    url = _database_url(db)
    if launcher:
        argv = launcher_argv(launcher, job_id, run_dir)
    else:
        argv = [sys.executable, "-m", "cli", "run-job", str(job_id)]
    # the environment, unlike argv, is readable only by this user (/proc/PID/environ is 0400)
    env = {**os.environ, DATABASE_URL_ENV: url}
    with open(run_dir / "worker.log", "ab") as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.PIPE if launcher else subprocess.DEVNULL,
                                 env=env, start_new_session=True)
    _children.append(child)
    if launcher:
        # one line, then end of input; a launcher that never reads it is fine (a pipe's buffer
        # holds far more than a URL), one that already exited is too
        try:
            child.stdin.write(url.encode() + b"\n")
        except BrokenPipeError:
            pass
        finally:
            try:
                child.stdin.close()
            except BrokenPipeError:
                pass


def _reap_children() -> None:
    for child in list(_children):
        if child.poll() is not None:
            _children.remove(child)


def _detect_dead(db: Database, project_id: int | None = None) -> None:
    """Mark jobs whose worker is gone as failed, and remove what failed jobs left of their rows."""
    _reap_children()
    job_liveness.fail_dead_workers(db, job_liveness.find_dead_workers(db, project_id))
    sweep_discarded_rows(db, project_id)


@checks_numbers
def list_jobs(db: Database, actor: Actor, project_id: int) -> list[JobInfo]:
    """Lead: the project's jobs, newest first (dead workers are detected on the way)."""
    with db.read() as s:
        authorize(s, actor, Policy.JOBS_RUN)
    _detect_dead(db, project_id)
    with db.read() as s:
        rows = s.execute(select(Job, User.username).outerjoin(User, User.id == Job.created_by)
                         .where(Job.project_id == project_id).order_by(Job.id.desc())).all()
        return [_info(job, name) for job, name in rows]


@checks_numbers
def get_job(db: Database, actor: Actor, job_id: int) -> JobInfo:
    with db.read() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        job = s.get(Job, job_id)
        if job is None:
            raise NotFound(f"There is no job {job_id}.")
        project_id = job.project_id
    _detect_dead(db, project_id)
    with db.read() as s:
        job = s.get(Job, job_id)
        who = s.get(User, job.created_by) if job.created_by else None
        return _info(job, who.username if who else None)


@checks_numbers
def cancel_job(db: Database, actor: Actor, job_id: int) -> JobInfo:
    """Lead: ask a job to stop. A queued job is cancelled at once; a running one stops at its
    next check (between epochs, grid points and models). Cancelling a finished job changes
    nothing."""
    with db.write() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        # locked as read (PostgreSQL): a worker claiming it meanwhile waits, rather than start a
        # job read as queued and marked cancelled here
        job = s.get(Job, job_id, with_for_update=True)
        if job is None:
            raise NotFound(f"There is no job {job_id}.")
        if job.status == "queued":
            job.status, job.message, job.finished_at = "cancelled", "Cancelled before it started.", utcnow()
            job.cancel_requested = True
        elif job.status == "running" and not job.cancel_requested:
            job.cancel_requested = True
            job.message = "Cancelling…"
        audit.record(s, actor.user_id, "cancel_job", "job", job.id, status=job.status)
    return get_job(db, actor, job_id)


# --------------------------------------------------------------------------- the worker side


@checks_numbers
def run_job(db: Database, job_id: int) -> str:
    """Worker: claim a queued job, run it, write the outcome. Returns the final status. Used by
    ``chronocept run-job`` (a local child process or a remote host's)."""
    with db.write() as s:
        claimed = s.execute(
            update(Job).where(Job.id == job_id, Job.status == "queued")
            .values(status="running", pid=os.getpid(), host=socket.gethostname(), started_at=utcnow(),
                    heartbeat_at=utcnow(), message="Starting…")).rowcount
        job = s.get(Job, job_id)
        if job is None:
            raise NotFound(f"There is no job {job_id}.")
        if not claimed:
            raise InvalidInput(f"Job {job_id} is {job.status}, not queued; nothing to run.")
        kind = job.kind
    runner = RUNNERS.get(kind)
    if runner is None:
        finish_job(db, job_id, "failed", f"This worker runs no {kind} jobs.", only_if=("running",))
        return "failed"
    return runner(db, job_id)


def _run_training(db: Database, job_id: int) -> str:
    """Worker: train the claimed training job on its export."""
    with db.read() as s:
        job = s.get(Job, job_id)
        export = s.get(DatasetExport, job.export_id)
        export_path, run_dir, config_data = export.path, job.run_dir, dict(job.config)
    from annotation.training import TrainingConfig, run_training

    def train(reporter: JobReporter) -> tuple[str, dict[str, Any]]:
        results = run_training(export_path, run_dir, TrainingConfig.from_dict(config_data),
                               progress=reporter.progress, log=reporter.log, should_stop=reporter.should_stop,
                               cache_dir=runs_root() / "embedding-cache")
        return (f"Finished in {results.total_seconds:.0f} s on {results.device}.",
                stored_result(results, MAX_PREDICTIONS))

    return run_reported(db, job_id, train)


register_runner(TRAINING, _run_training)


def wait_for(db: Database, job_id: int, timeout_s: float = 60.0) -> str:
    """Poll until the job has finished (tests and scripts); returns its status."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with db.read() as s:
            status = s.scalar(select(Job.status).where(Job.id == job_id))
        if status in FINISHED:
            return status
        time.sleep(0.2)
    return "timeout"
