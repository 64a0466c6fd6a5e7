"""No secret on any command line: a job started through the README's GPU-host launcher (with a
stand-in ``ssh`` that does what ssh does with its command: run it through a shell, standard input
passed on) and by the app's own local worker never shows the database password in any
``/proc/PID/cmdline`` — which every user of the machine can read (``ps``) — of any process it
starts: the launcher's shell, the ssh stand-in, the remote shell and the worker itself.

PostgreSQL only: its server here trusts local connections, so a URL carrying a password still
reaches the database and the real worker runs the job with it (a SQLite URL has no password)."""

from __future__ import annotations

import os
import re
import shlex
import sys
import threading
import time
from pathlib import Path

import pytest

from annotation.services.export import exports
from annotation.services.jobs import jobs
from annotation.services.errors import InvalidInput
from db import config as app_config
from db.models import Job
from gold_data import gold_project
from service_helpers import count

ROOT = Path(__file__).resolve().parents[2]
SECRET = "S3cretPW-never-on-argv"
QUICK = {"models": ["mean"], "encoder": "hashing", "ablations": ["none"]}

FAKE_SSH = """#!/bin/sh
# ssh HOST COMMAND: sshd runs COMMAND through the user's shell on the host; stdin passes through
shift
/bin/sh -c "$*"
"""


@pytest.fixture
def export(db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=45)  # benchmark 1: 30 samples, test split 3 (the least training takes)
    rec = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3, include_agreement=False)
    # the URL the app hands its workers carries a password (the server trusts us and ignores it)
    url = db.engine.url.set(password=SECRET).render_as_string(hide_password=False)
    monkeypatch.setattr(jobs, "_database_url", lambda db: url)
    return pid, rec.id


def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[3])  # state ppid pgrp session


class ProcessWatch:
    """Every (pid, cmdline, environ) seen in one session while a job runs. The launcher starts in
    a session of its own (``start_new_session``), which every process it starts inherits."""

    def __init__(self, session: int):
        self.session = session
        self.seen: dict[tuple[int, bytes], bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or _session_of(int(entry.name)) != self.session:
                    continue
                try:
                    cmdline = (entry / "cmdline").read_bytes()
                    environ = (entry / "environ").read_bytes()
                except OSError:
                    continue
                if cmdline:
                    self.seen[(int(entry.name), cmdline)] = environ
            time.sleep(0.005)

    def stop(self) -> list[tuple[str, bytes]]:
        """(command line with spaces for NULs, environment) of every process seen."""
        self._stop.set()
        self._thread.join()
        return [(cmd.replace(b"\0", b" ").decode(errors="replace"), env)
                for (_, cmd), env in self.seen.items()]


def _run_and_watch(db, lead, export, launcher: str):
    pid, export_id = export
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, launcher=launcher)
    watch = ProcessWatch(jobs._children[-1].pid)
    status = jobs.wait_for(db, job.id, 180)
    seen = watch.stop()
    assert status == "succeeded", jobs.get_job(db, lead, job.id).log
    return seen, job


@pytest.mark.parametrize("db", ["postgres"], indirect=True)
def test_the_readme_gpu_launcher_puts_no_password_on_any_command_line(db, lead, export, tmp_path,
                                                                        monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"export CHRONOCEPT_JOB_LAUNCHER='(.*)'", readme).group(1)
    assert "ssh gpu1" in line
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ssh").write_text(FAKE_SSH)
    (bin_dir / "ssh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    runs = tmp_path / "shared runs"
    local_line = (line.replace("cd /srv/chronocept", f"cd {shlex.quote(str(ROOT))}")
                  .replace("/shared/runs", shlex.quote(str(runs)))
                  .replace(".venv/bin/chronocept run-job", f"{shlex.quote(sys.executable)} -m cli run-job"))

    seen, job = _run_and_watch(db, lead, export, local_line)

    cmdlines = [cmd for cmd, _ in seen]
    leaked = [c for c in cmdlines if SECRET in c]
    assert leaked == [], f"the password is on a command line: {leaked}"
    # the watch saw the whole chain, and the URL did reach the worker (so the scan is not vacuous)
    assert any(c.startswith("/bin/sh -c ssh gpu1") for c in cmdlines), cmdlines
    assert any(c.startswith("/bin/sh ") and str(bin_dir / "ssh") in c for c in cmdlines), cmdlines
    workers = [env for cmd, env in seen if cmd.startswith(sys.executable) and "run-job" in cmd]
    assert workers and all(SECRET.encode() in env for env in workers)
    assert Path(job.run_dir, "metrics.json").is_file()


@pytest.mark.parametrize("db", ["postgres"], indirect=True)
def test_the_local_worker_puts_no_password_on_any_command_line(db, lead, export):
    seen, _ = _run_and_watch(db, lead, export, "")
    cmdlines = [cmd for cmd, _ in seen]
    assert any("run-job" in c for c in cmdlines), cmdlines
    assert [c for c in cmdlines if SECRET in c] == []


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_launcher_naming_the_url_placeholder_is_refused(db, lead, export):
    pid, export_id = export
    with pytest.raises(InvalidInput, match=r"names \{database_url\}.*password on a command line"):
        jobs.launch_training(db, lead, pid, export_id, QUICK,
                             launcher='printf "%s\\n" {database_url} | ssh gpu1 "run {job_id}"')
    with pytest.raises(InvalidInput, match="unknown placeholder or stray brace"):
        jobs.launch_training(db, lead, pid, export_id, QUICK, launcher="ssh gpu1 run {jobid}")
    assert count(db, Job) == 0
