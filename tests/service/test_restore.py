"""``chronocept restore FILE``: a backup put back safely on SQLite and PostgreSQL (db.restore).

* after a crash that left a ``-wal`` beside the database, copying the backup over the file (the
  README's old advice) gives a damaged or wrong database; the command gives the backup, checked,
  and keeps the crashed database (with what the ``-wal`` held) aside;
* a round trip on both databases: what was there at the backup comes back, tables a later
  change added are gone, and the database kept aside restores the later state in turn;
* refused, with one line, while the app runs against the database (a real ``app.py`` run in
  another process), and allowed once it has stopped;
* a bad file (missing, not a backup, damaged, cut short, another database's kind) is refused with
  one line and the database is left as it was.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.pool import NullPool

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from db import presence
from db.engine import ENV_VAR, Database
from db.models import Sample, User
from service_helpers import text_records

ROOT = Path(__file__).resolve().parents[2]


def chronocept(url: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The command as a real process (``python -m cli``: this checkout's code)."""
    env = {**os.environ, ENV_VAR: url,
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          env=env, timeout=180, cwd=cwd or ROOT)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chronocept: "), done.stderr
    return lines[0]


def snapshot(url: str) -> tuple[list[tuple], int]:
    """The users (name, display name) and the number of samples."""
    db = Database.connect(url, upgrade=False)
    try:
        with db.read() as s:
            users = [tuple(r) for r in s.execute(select(User.username, User.display_name).order_by(User.id))]
            samples = len(s.scalars(select(Sample.id)).all())
        return users, samples
    finally:
        db.dispose()


def populate(db: Database, n_users: int = 3, n_texts: int = 5) -> None:
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    for i in range(n_users):
        accounts.create_user(db, admin, f"user{i}", "password-123", "annotator")
    lead = accounts.create_user(db, admin, "lead", "password-123", "lead")
    actor = accounts.authenticate(db, lead.username, "password-123")
    project = projects.create_project(db, actor, "Restored project")
    text_imports.import_texts(db, actor, project.id, text_records(n_texts))


# --- SQLite after a crash ------------------------------------------------------------------------

CRASH = textwrap.dedent("""
    import os, signal, sqlite3, sys
    con = sqlite3.connect(sys.argv[1], isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    # work after the backup that reaches the database file (a checkpoint) ...
    con.execute("CREATE TABLE crash_notes (id INTEGER PRIMARY KEY, body TEXT)")
    con.executemany("INSERT INTO crash_notes (body) VALUES (?)", [("x" * 200,)] * 3000)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # ... then committed work still in the -wal when the process dies
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("BEGIN")
    con.executemany("INSERT INTO crash_notes (body) VALUES (?)", [("y" * 200,)] * 100)
    con.execute("UPDATE users SET display_name = display_name || ' (after the backup)'")
    con.execute("COMMIT")
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _crashed_copy(crashed: Path, into: Path) -> Path:
    into.mkdir()
    for extra in ("", "-wal", "-shm"):
        shutil.copy2(f"{crashed}{extra}", f"{into / crashed.name}{extra}")
    return into / crashed.name


def _intact_as(path: Path, expected) -> bool:
    try:
        con = sqlite3.connect(path)
        try:
            ok = con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            users = con.execute("SELECT username, display_name FROM users ORDER BY id").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return False
    return ok and users == expected


def test_restore_after_a_crash_that_left_a_wal(tmp_path):
    crashed = tmp_path / "crashed" / "chronocept.db"
    crashed.parent.mkdir()
    url = f"sqlite:///{crashed}"
    db = Database.connect(url)
    populate(db)
    db.dispose()
    backup = tmp_path / "nightly.db"
    assert chronocept(url, "backup", str(backup)).returncode == 0
    at_backup = snapshot(url)
    died = subprocess.run([sys.executable, "-c", CRASH, str(crashed)], capture_output=True)
    assert died.returncode == -signal.SIGKILL
    assert Path(f"{crashed}-wal").stat().st_size > 0  # the crash left committed pages there

    # the README's old advice: copy the backup over the file. SQLite replays the -wal into it.
    old_way = _crashed_copy(crashed, tmp_path / "old-way")
    shutil.copyfile(backup, old_way)
    assert not _intact_as(old_way, at_backup[0])

    # the command: the backup, checked, and nothing of the -wal replayed into it
    new_way = _crashed_copy(crashed, tmp_path / "new-way")
    new_url = f"sqlite:///{new_way}"
    done = chronocept(new_url, "restore", str(backup))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"restored {backup} (") and "checked" in done.stdout
    assert _intact_as(new_way, at_backup[0])
    assert not Path(f"{new_way}-wal").exists() and not Path(f"{new_way}-shm").exists()
    assert snapshot(new_url) == at_backup
    # the crashed database is kept, whole: the -wal's committed work folded into one file
    kept = Path(done.stdout.split("the previous database is kept at ")[1].strip())
    assert kept.parent == new_way.parent / "backups" and kept.name.endswith("-before-restore.db")
    con = sqlite3.connect(kept)
    assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert con.execute("SELECT count(*) FROM crash_notes").fetchone() == (3100,)
    assert con.execute("SELECT display_name FROM users WHERE username = 'admin'").fetchone() == (
        "admin (after the backup)",)
    con.close()
    # and the restored database serves the app again
    again = Database.connect(new_url)
    assert again.engine.dialect.name == "sqlite"
    again.dispose()


# --- round trip on both databases ---------------------------------------------------------------


def _url(db: Database) -> str:
    return db.engine.url.render_as_string(hide_password=False)


def test_round_trip(db, tmp_path):
    url = _url(db)
    populate(db)
    backup = tmp_path / ("nightly.db" if db.is_sqlite else "nightly.dump")
    assert chronocept(url, "backup", str(backup)).returncode == 0
    at_backup = snapshot(url)
    admin = accounts.actor_for_script(db)
    accounts.create_user(db, admin, "latecomer", "password-123", "annotator")
    with db.write() as s:  # what a later version's migration might add
        s.execute(text("CREATE TABLE added_later (id INTEGER PRIMARY KEY)"))
    later = snapshot(url)
    assert later != at_backup
    db.dispose()  # the test's own connections: the app is stopped

    done = chronocept(url, "restore", str(backup), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert snapshot(url) == at_backup
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as conn:
        assert "added_later" not in conn.dialect.get_table_names(conn)
    engine.dispose()

    # the database kept aside is a backup too: restoring it brings the later state back
    kept = done.stdout.split("the previous database is kept at ")[1].strip()
    done = chronocept(url, "restore", kept, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert snapshot(url) == later


# --- refused while the app runs ---------------------------------------------------------------

APP = textwrap.dedent("""
    import sys
    from streamlit.testing.v1 import AppTest
    app = AppTest.from_file(sys.argv[1], default_timeout=120)
    app.run()
    assert not app.exception, app.exception
    print("running", flush=True)
    sys.stdin.read()  # until the test closes it
""")


def test_restore_is_refused_while_the_app_runs(db, tmp_path):
    url = _url(db)
    populate(db)
    backup = tmp_path / ("nightly.db" if db.is_sqlite else "nightly.dump")
    assert chronocept(url, "backup", str(backup)).returncode == 0
    admin = accounts.actor_for_script(db)
    accounts.create_user(db, admin, "latecomer", "password-123", "annotator")
    db.dispose()
    current = snapshot(url)

    env = {**os.environ, ENV_VAR: url, "PYTHONPATH": str(ROOT)}
    app = subprocess.Popen([sys.executable, "-c", APP, str(ROOT / "app.py")], cwd=ROOT, env=env,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert app.stdout.readline().strip() == "running", app.stderr.read()
        line = one_line_error(chronocept(url, "restore", str(backup), cwd=tmp_path))
        assert line == ("chronocept: the app (or another chronocept command) is running against "
                        "this database; stop it first")
        assert snapshot(url) == current
    finally:
        app.stdin.close()
        app.wait(timeout=60)
    done = chronocept(url, "restore", str(backup), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "latecomer" not in {u for u, _ in snapshot(url)[0]}


def test_an_app_starting_during_a_restore_waits_for_it(db):
    url = _url(db)
    db.dispose()
    with presence.held_exclusively(url):
        with pytest.raises(presence.DatabaseInUse, match="a restore of this database is in progress"):
            presence.announce(url, wait_s=0.5)
    held = presence.announce(url, wait_s=0.5)
    with pytest.raises(presence.DatabaseInUse, match="is running against this database"):
        with presence.held_exclusively(url):
            pass
    held.release()


# --- bad files ----------------------------------------------------------------------------------


def test_a_bad_file_is_refused_with_one_line_and_nothing_changes(db, tmp_path):
    url = _url(db)
    populate(db)
    good = tmp_path / "good.backup"
    assert chronocept(url, "backup", str(good)).returncode == 0
    db.dispose()
    before = snapshot(url)
    data = good.read_bytes()
    other = tmp_path / "other-kind.backup"
    if db.is_sqlite:  # a PostgreSQL archive's signature on SQLite, and the other way round
        other.write_bytes(b"PGDMP" + b"\0" * 200)
    else:
        other.write_bytes(b"SQLite format 3\x00" + b"\0" * 200)
    stranger = tmp_path / "stranger.db"  # a database, but not a Chronocept one
    sqlite3.connect(stranger).execute("CREATE TABLE t (x)").connection.close()
    cut = tmp_path / "cut-short.backup"  # SQLite: the page table intact; PostgreSQL: its data cut off
    cut.write_bytes(data[: len(data) // 2] if db.is_sqlite else data[:-300])
    cases = {
        tmp_path / "missing.backup": "no such file",
        tmp_path / "notes.txt": "is not a",
        other: "is not a",
        cut: "damaged" if db.is_sqlite else "rolled back, the database is unchanged",
    }
    (tmp_path / "notes.txt").write_text("not a backup\n")
    if db.is_sqlite:
        cases[stranger] = "is not a Chronocept backup"
    for path, reason in cases.items():
        line = one_line_error(chronocept(url, "restore", str(path), cwd=tmp_path))
        assert reason in line, (path.name, line)
        assert snapshot(url) == before, path.name
