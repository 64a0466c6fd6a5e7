"""Background training jobs: launch, worker, progress, cancel, crashes and dead workers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import select

import annotation.training as training
from annotation.services.export import exports
from annotation.services.jobs import job_reporter, jobs
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from annotation.training import TARGET_KEYS
from db import config as app_config
from db.models import Job, utcnow
from gold_data import gold_project
from gone_processes import pid_of_no_process
from service_helpers import count

QUICK = {"models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}


@pytest.fixture
def export(db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=45)  # benchmark 1: 30 samples, test split 3 (the least training takes)
    rec = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3, include_agreement=False)
    return pid, rec.id


def test_a_queued_job_runs_in_the_worker_and_keeps_its_results(db, lead, export):
    pid, export_id = export
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    assert (job.status, job.progress, job.export_id) == ("queued", 0.0, export_id)
    assert job.run_dir.endswith(f"job-{job.id}") and job.config["encoder"] == "hashing"
    assert jobs.run_job(db, job.id) == "succeeded"
    done = jobs.get_job(db, lead, job.id)
    assert (done.status, done.progress) == ("succeeded", 1.0)
    assert done.started_at and done.finished_at and done.pid == os.getpid()
    assert {r["model"] for r in done.result["rows"]} == {"mean", "linear"}
    assert set(done.result["predictions"]) == {"mean__none", "linear__none"}
    series = done.prediction_series()
    assert {(p.model, p.ablation) for p in series} == {("mean", "none"), ("linear", "none")}
    assert all(p.rows and f"{TARGET_KEYS[0]}_gold" in p.rows[0] for p in series)
    assert "linear" in done.log
    assert os.path.isfile(os.path.join(done.run_dir, "metrics.json"))
    with pytest.raises(InvalidInput, match="not queued"):  # a second worker cannot take it again
        jobs.run_job(db, job.id)
    assert [j.id for j in jobs.list_jobs(db, lead, pid)] == [job.id]


def test_bad_launches_store_nothing(db, lead, export, make_user, tmp_path):
    pid, export_id = export
    with pytest.raises(InvalidInput, match="not valid"):
        jobs.launch_training(db, lead, pid, export_id, {**QUICK, "models": ["gpt"]}, start=False)
    with pytest.raises(NotFound):
        jobs.launch_training(db, lead, pid, 999, QUICK, start=False)
    with pytest.raises(PermissionDenied):
        jobs.launch_training(db, make_user("ann1"), pid, export_id, QUICK, start=False)
    import shutil

    shutil.rmtree(tmp_path / "export")
    with pytest.raises(InvalidInput, match="no longer on this server"):
        jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    assert count(db, Job) == 0


def test_an_export_too_small_to_score_a_model_is_refused_with_the_minimum(db, lead, tmp_path, monkeypatch):
    """A job on an export with 1 or 2 test samples used to be launched: on 1 it failed, on 2 it
    'succeeded' with R² = −2·10²⁸ for every model. The launch is refused, naming the splits."""
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=12, name="Tiny")  # benchmark 1: 8 samples
    rec = exports.export_dataset(db, lead, pid, tmp_path / "tiny", seed=3, include_agreement=False)
    assert rec.split_sizes[1] == {"train": 6, "validation": 1, "test": 1}
    with pytest.raises(InvalidInput, match=(
            rf"^Export {rec.id} is too small to train on benchmark 1: validation 1, test 1 "
            r"sample\(s\); training needs at least 3 in each of train, validation and test")):
        jobs.launch_training(db, lead, pid, rec.id, QUICK, start=False)
    with pytest.raises(InvalidInput, match="benchmark 2: validation 1, test 0 sample"):
        jobs.launch_training(db, lead, pid, rec.id, {**QUICK, "benchmark": 2}, start=False)
    assert count(db, Job) == 0


def test_cancel_a_queued_job_and_a_running_one(db, lead, export, monkeypatch):
    pid, export_id = export
    queued = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    assert jobs.cancel_job(db, lead, queued.id).status == "cancelled"
    with pytest.raises(InvalidInput):
        jobs.run_job(db, queued.id)

    def endless(export_dir, run_dir, config, *, progress, log, should_stop, cache_dir):
        while True:
            progress(0.3, "training forever")
            log("epoch")
            if should_stop():
                raise training.TrainingCancelled("stopped")
            time.sleep(0.01)

    monkeypatch.setattr(training, "run_training", endless)
    monkeypatch.setattr(job_reporter, "FLUSH_EVERY_S", 0.05)
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(jobs.run_job(db, job.id)))
    worker.start()
    deadline = time.monotonic() + 20
    while jobs.get_job(db, lead, job.id).progress < 0.3 and time.monotonic() < deadline:
        time.sleep(0.05)
    running = jobs.get_job(db, lead, job.id)
    assert running.status == "running" and running.message == "training forever"
    jobs.cancel_job(db, lead, job.id)
    worker.join(timeout=20)
    assert outcome == ["cancelled"]
    assert jobs.get_job(db, lead, job.id).status == "cancelled"


def test_a_crash_is_a_failed_job_with_its_traceback(db, lead, export, monkeypatch):
    pid, export_id = export

    def crash(*args, **kwargs):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(training, "run_training", crash)
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    assert jobs.run_job(db, job.id) == "failed"
    failed = jobs.get_job(db, lead, job.id)
    assert failed.message == "RuntimeError: CUDA out of memory"
    assert "Traceback" in failed.log and "CUDA out of memory" in failed.log


def test_dead_and_lost_workers_are_marked_failed(db, lead, export):
    pid, export_id = export
    dead_pid = pid_of_no_process()
    running = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    lost = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    silent = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    with db.write() as s:
        s.get(Job, running.id).status = "running"
        s.get(Job, running.id).pid = dead_pid
        s.get(Job, running.id).host = socket.gethostname()
        s.get(Job, running.id).heartbeat_at = utcnow()
        s.get(Job, lost.id).created_at = utcnow() - timedelta(minutes=10)
        s.get(Job, silent.id).status = "running"
        s.get(Job, silent.id).host = "gpu-host-far-away"
        s.get(Job, silent.id).heartbeat_at = utcnow() - timedelta(minutes=10)
    by_id = {j.id: j for j in jobs.list_jobs(db, lead, pid)}
    assert by_id[running.id].status == "failed"
    assert by_id[running.id].message.startswith(f"{jobs.WORKER_GONE}: its process (pid {dead_pid} ")
    assert by_id[lost.id].status == "failed" and "No worker started" in by_id[lost.id].message
    assert by_id[silent.id].status == "failed"
    assert by_id[silent.id].message.startswith(f"{jobs.WORKER_GONE}: it has been silent since")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_worker_process_runs_locally_and_through_a_launcher(db, lead, export):
    pid, export_id = export
    local = jobs.launch_training(db, lead, pid, export_id, QUICK)
    launcher = f"{sys.executable} -m cli run-job {{job_id}}"
    remote = jobs.launch_training(db, lead, pid, export_id, QUICK, launcher=launcher)
    assert remote.launcher == launcher
    assert jobs.wait_for(db, local.id, 120) == "succeeded", jobs.get_job(db, lead, local.id).log
    assert jobs.wait_for(db, remote.id, 120) == "succeeded", jobs.get_job(db, lead, remote.id).log
    with db.read() as s:
        pids = set(s.scalars(select(Job.pid)))
    assert os.getpid() not in pids  # both ran in processes of their own


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_job_outlives_the_app_process_that_launched_it(db, lead, export, tmp_path):
    """The 'app' here is a short-lived Python process that launches a job and is killed at once;
    the worker, in a session of its own, goes on and finishes the job."""
    pid, export_id = export
    url = db.engine.url.render_as_string(hide_password=False)
    script = (
        "import os, sys\n"
        "from db.engine import Database\n"
        "from annotation.services.accounts import accounts\n"
        "from annotation.services.jobs import jobs\n"
        f"db = Database.connect({url!r})\n"
        "lead = accounts.actor_for_script(db, 'lead1')\n"
        f"job = jobs.launch_training(db, lead, {pid}, {export_id}, {QUICK!r})\n"
        "print(job.id, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"  # the app dies without any clean-up
    )
    app = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "CHRONOCEPT_RUNS_DIR": os.environ["CHRONOCEPT_RUNS_DIR"]})
    assert app.returncode == -9, app.stderr
    job_id = int(app.stdout.split()[0])
    assert jobs.wait_for(db, job_id, 120) == "succeeded", jobs.get_job(db, lead, job_id).log


# --- the launcher command line ------------------------------------------------------------------

#: a database URL that a shell would split or expand if it were not quoted
AWKWARD_URL = "postgresql+psycopg://lead:p a$s&'w\"d@db.example:5432/chrono?sslmode=require&application_name=a b"

RECORDER = """#!{python}
import json, os, sys
out = os.environ["RECORD_TO"]
with open(out + ".part", "w") as f:
    json.dump({{"argv": sys.argv[1:], "url": os.environ.get("CHRONOCEPT_DATABASE_URL"),
               "stdin": sys.stdin.readline(),
               "runs": os.environ.get("CHRONOCEPT_RUNS_DIR"), "cwd": os.getcwd()}}, f)
os.replace(out + ".part", out)
"""


def _recorded(path, seconds: float = 60.0) -> dict:
    import json

    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, "the launcher never ran the recorder"
        time.sleep(0.1)
    return json.loads(path.read_text())


@pytest.fixture
def recorder(tmp_path, monkeypatch):
    script = tmp_path / "bin dir" / "record-worker"
    script.parent.mkdir()
    script.write_text(RECORDER.format(python=sys.executable))
    script.chmod(0o755)
    out = tmp_path / "recorded.json"
    monkeypatch.setenv("RECORD_TO", str(out))
    monkeypatch.setattr(jobs, "_database_url", lambda db: AWKWARD_URL)
    return script, out


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_launcher_values_reach_the_worker_intact(db, lead, export, recorder, tmp_path, monkeypatch):
    """Each placeholder arrives as one argument, whatever it holds (&, ?, spaces, quotes, $);
    the database URL arrives as one line on standard input and in the environment, never as an
    argument."""
    import shlex

    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs & more"))
    app_config.load()  # read again, as a restarted process would
    script, out = recorder
    pid, export_id = export
    launcher = f"{shlex.quote(str(script))} {{run_dir}} {{job_id}}"
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, launcher=launcher)
    got = _recorded(out)
    assert got["argv"] == [job.run_dir, str(job.id)]
    assert got["stdin"] == AWKWARD_URL + "\n" and got["url"] == AWKWARD_URL
    assert job.run_dir == str(tmp_path / "runs & more" / f"job-{job.id}")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_readme_ssh_launcher_passes_the_url_intact(db, lead, export, recorder, tmp_path):
    """The README's example, with ``ssh gpu1`` played by ``sh -c`` (what ssh does with its
    command: hand it to the remote user's shell) and the worker by a recorder."""
    import re
    import shlex
    from pathlib import Path

    script, out = recorder
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    line = re.search(r"export CHRONOCEPT_JOB_LAUNCHER='(.*)'", readme).group(1)
    assert "ssh gpu1" in line and "{database_url}" not in line
    remote = tmp_path / "srv chronocept"
    remote.mkdir()
    local_line = (line.replace("ssh gpu1", "sh -c")
                  .replace("cd /srv/chronocept", f"cd {shlex.quote(str(remote))}")
                  .replace(".venv/bin/chronocept run-job", shlex.quote(str(script))))
    pid, export_id = export
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, launcher=local_line)
    got = _recorded(out)
    assert got["url"] == AWKWARD_URL and got["stdin"] == ""  # the shell's `read` took the line
    assert got["argv"] == [str(job.id)] and got["runs"] == "/shared/runs" and got["cwd"] == str(remote)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("bad, message", [
    ({"benchmark": 3}, "benchmark must be 1 .* or 2"),
    ({"seed": -1}, "seed must be an integer from 0"),
    ({"max_epochs": -3}, "max_epochs must be a positive integer"),
    ({"max_epochs": 10**12}, "max_epochs must be a positive integer up to 10000, got 1000000000000"),
    ({"patience": 10**12}, "patience must be a positive integer up to 10000"),
    ({"batch_size": 10**12}, "batch_size must be a positive integer up to 4096"),
    ({"torch_threads": 10**6}, "torch_threads must be an integer from 0 up to 256, got 1000000"),
])
def test_impossible_training_settings_are_refused_with_a_message(db, lead, export, bad, message):
    pid, export_id = export
    with pytest.raises(InvalidInput, match=f"The training settings are not valid: {message}"):
        jobs.launch_training(db, lead, pid, export_id, {**QUICK, **bad}, start=False)
    assert count(db, Job) == 0
