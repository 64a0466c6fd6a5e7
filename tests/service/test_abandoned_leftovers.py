"""What a killed process leaves is swept at the next start — and only what is provably abandoned:
the writer's process is gone (named in the leftover: host and process id), or, when it cannot be
checked, nothing has touched it for an hour.

* an export killed in its figures step (the export's process and its figures process killed
  together) leaves ``chronocept-figures-*`` in the system temp folder;
* a pre-upgrade backup killed while copying leaves ``<backups>/.backup-*``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from db import config as app_config
from db.backup import remove_abandoned_backups
from db.engine import ENV_VAR, Database

ROOT = Path(__file__).resolve().parents[2]
HOST = socket.gethostname()


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def _killed_with_its_children(script: str, env: dict[str, str]) -> str:
    """Run ``script`` in a session of its own until it prints a line; then SIGKILL the whole
    session (as a container stop or the OOM killer would) and return that line."""
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        line = proc.stdout.readline().strip()
        assert line, proc.stderr.read()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return line


def _a_gone_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


# --- the figures folder of a killed export ----------------------------------------------------

FIGURES_STEP = textwrap.dedent("""
    from annotation.services.export import exports
    runner = exports.FiguresProcess()   # the figures step's first act: its folder and its process
    print(runner._folder, flush=True)
    import time; time.sleep(600)
""")


def test_a_killed_exports_figures_folder_is_swept_at_the_next_start(tmp_path):
    temp = tmp_path / "system temp"
    temp.mkdir()
    url = f"sqlite:///{tmp_path / 'app.db'}"
    Database.connect(url).dispose()
    left = Path(_killed_with_its_children(FIGURES_STEP, _env(TMPDIR=str(temp))))
    time.sleep(0.5)  # the figures process, killed too, cannot clean up after its parent
    assert left.parent == temp and left.is_dir()
    assert left.name.startswith(f"chronocept-figures-{HOST}-")

    # beside it: a live process's folder, another host's and an unrelated one stay; a folder of
    # the old naming (no owner) goes only once an hour has passed
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        live = temp / f"chronocept-figures-{HOST}-{sleeper.pid}-abcd1234"
        far = temp / "chronocept-figures-other-host-123-abcd1234"
        fresh_unnamed, old_unnamed = temp / "chronocept-figures-k2j4h5g6", temp / "chronocept-figures-zz99yy88"
        mine = temp / "chronocept-figures-of-a-user.txt"
        for folder in (live, far, fresh_unnamed, old_unnamed):
            folder.mkdir()
        mine.write_text("not ours to remove")
        _age(old_unnamed, 2 * 3600)

        started = subprocess.run([sys.executable, "-m", "cli", "agreement", "--json", "--summary"],
                                 cwd=ROOT, env=_env(TMPDIR=str(temp), **{ENV_VAR: url}),
                                 capture_output=True, text=True, timeout=120)
        assert "Traceback" not in started.stderr, started.stderr
        assert sorted(p.name for p in temp.iterdir()) == sorted(
            p.name for p in (live, far, fresh_unnamed, mine))
    finally:
        sleeper.kill()
        sleeper.wait()


# --- the temporary file of a killed pre-upgrade backup -------------------------------------------

BACKUP_STEP = textwrap.dedent("""
    import sqlite3, sys, time
    import db.backup
    from sqlalchemy import create_engine

    class SlowCopy:  # the backup API copy, caught in the middle
        def __init__(self, *args, **kwargs):
            self.con = sqlite3.connect(*args, **kwargs)
        def backup(self, target):
            print("copying", flush=True)
            time.sleep(600)
        def __getattr__(self, name):
            return getattr(self.con, name)

    class Shim:
        DatabaseError = sqlite3.DatabaseError
        connect = SlowCopy

    db.backup.sqlite3 = Shim
    db.backup.backup_database(create_engine(sys.argv[1]), __import__("pathlib").Path(sys.argv[2]))
""")


def test_a_killed_backups_temporary_file_is_swept_at_the_next_start(tmp_path):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    Database.connect(url).dispose()
    backups = tmp_path / "backups"
    target = backups / "app-before-0009-to-0010.db"
    proc_script = BACKUP_STEP.replace("sys.argv[1]", repr(url)).replace("sys.argv[2]", repr(str(target)))
    assert _killed_with_its_children(proc_script, _env()) == "copying"
    left = [p for p in backups.iterdir() if p.name.startswith(".backup-")]
    assert len(left) == 1 and left[0].name.startswith(f".backup-{HOST}-")

    Database.connect(url).dispose()  # the next start (app or command): the upgrade step sweeps
    assert list(backups.iterdir()) == []


def test_only_provably_abandoned_backup_files_are_removed(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        names = {
            "gone": f".backup-{HOST}-{_a_gone_pid()}-abcd1234",
            "live": f".backup-{HOST}-{sleeper.pid}-abcd1234",
            "this process": f".backup-{HOST}-{os.getpid()}-abcd1234",
            "other host": ".backup-gpu1.example-77-abcd1234",
            "other host, 2 h old": ".backup-gpu1.example-78-abcd1234",
            "unnamed": ".backup-qwer5678",
            "unnamed, 2 h old": ".backup-asdf5678",
            "not ours by name": ".backup-notes",
            "a finished backup": "app-20261124T091500Z-before-0003-to-0005.db",
        }
        for label, name in names.items():
            (tmp_path / name).write_text(label)
        _age(tmp_path / names["other host, 2 h old"], 2 * 3600)
        _age(tmp_path / names["unnamed, 2 h old"], 2 * 3600)
        removed = {p.name for p in remove_abandoned_backups(tmp_path)}
        assert removed == {names["gone"], names["other host, 2 h old"], names["unnamed, 2 h old"]}
        assert {p.name for p in tmp_path.iterdir()} == set(names.values()) - removed
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.postgres
def test_a_postgres_backup_killed_in_pg_dump_is_swept_too(postgres_url, tmp_path, monkeypatch):
    """The same through PostgreSQL's backup path: pg_dump (a stand-in that hangs) killed with
    the command that ran it; the next start sweeps ``CHRONOCEPT_BACKUP_DIR``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pg_dump").write_text("#!/bin/sh\necho dumping\nexec sleep 600\n")
    (bin_dir / "pg_dump").chmod(0o755)
    backups = tmp_path / "backups"
    Database.connect(postgres_url).dispose()
    script = textwrap.dedent(f"""
        import subprocess, sys
        from pathlib import Path
        from sqlalchemy import create_engine
        import db.backup
        real_run = subprocess.run
        def run(argv, **kw):
            print("dumping", flush=True)
            return real_run(argv, **kw)
        db.backup.subprocess.run = run
        db.backup.backup_database(create_engine({postgres_url!r}), Path({str(backups / 'x.dump')!r}))
    """)
    env = _env(PATH=f"{bin_dir}:{os.environ['PATH']}")
    assert _killed_with_its_children(script, env) == "dumping"
    assert len([p for p in backups.iterdir() if p.name.startswith(".backup-")]) == 1
    monkeypatch.setenv("CHRONOCEPT_BACKUP_DIR", str(backups))
    app_config.load()  # read again, as a restarted process would
    Database.connect(postgres_url).dispose()
    assert list(backups.iterdir()) == []
