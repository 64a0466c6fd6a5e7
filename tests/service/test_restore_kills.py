"""A restore killed at any instruction leaves the old database or the new one, whole, and the next
start finishes or undoes it — never an empty database where one was (db.sqlite_replace).

* SQLite, every instruction: a forked child (everything already imported, so each try is cheap)
  restores with a line tracer on the restore's code in ``db/`` and SIGKILLs itself at its k-th
  line; for every k up to the run that finishes, the parent then starts as the app and every
  command do (:meth:`Database.connect_upgraded`) and checks that the database is exactly the old
  or exactly the new one (every row of every table), that the copy kept aside is exactly the
  old one, that settling the file again changes nothing, and that nothing is left behind;
* PostgreSQL, every line of the load (the only step that changes the database): the same
  checks — the load is one transaction that a kill rolls back;
* the command line as the issue reported it: ``chronocept restore`` killed the instant
  ``backups/*-before-restore.db`` appears, then the next command finds the database;
* killed once the new file has the database's name, with the old database's ``-wal`` back beside
  it (a power cut that undid its removal): the next start replays nothing of it into the new file;
* the state an older version's killed restore left (the database file moved away): every start
  refuses in one line naming where the data is, and creates nothing; a restore of that file mends it;
* but a database file removed on purpose after a restore that completed (every restore keeps a
  copy) starts afresh, as does a new deployment whose file has the same name in a shared backup
  folder;
* a start settles the file once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

import cli
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from db import config as app_config, presence, restore as restore_module, sqlite_replace
from db.backup import backup_database
from db.engine import ENV_VAR, Database, make_engine
from db.restore import restore_database
from db.sqlite_replace import DatabaseMissing, marker_path
from kill_points import killed_after_event, killed_at_line
from service_helpers import text_records

ROOT = Path(__file__).resolve().parents[2]
#: the restore's code: the kill points of the SQLite test are every line event in these files
TRACED = frozenset(str(ROOT / "db" / name) for name in
                   ("restore.py", "sqlite_replace.py", "backup.py", "durable.py", "presence.py"))


def _populated(url: str, extra_users: int) -> None:
    db = Database.connect(url)
    try:
        admin = accounts.create_first_admin(db, "admin", "admin-password")
        accounts.create_user(db, admin, "lead", "password-123", "lead")
        lead = accounts.actor_for_script(db, "lead")
        project = projects.create_project(db, lead, "Restored project")
        text_imports.import_texts(db, lead, project.id, text_records(4))
        for i in range(extra_users):
            accounts.create_user(db, admin, f"user{i}", "password-123", "annotator")
    finally:
        db.dispose()


def _start(url: str) -> None:
    """What the app and every command do first."""
    db, _ = Database.connect_upgraded(url, announce=True)
    db.dispose()


def _sqlite_rows(path: Path) -> dict[str, list[tuple]]:
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {t: sorted(con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        con.close()


def _listing(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _two_backups(tmp_path: Path) -> tuple[dict[str, Path], dict[str, dict]]:
    """Two backups, ``a`` and ``b``, that differ in their rows; and their rows."""
    sources = {}
    for name, extra_users in (("a", 0), ("b", 3)):
        scratch = f"sqlite:///{tmp_path / name}.db"
        _populated(scratch, extra_users)
        sources[name] = tmp_path / f"{name}.backup"
        backup_database(make_engine(scratch), sources[name])
    rows = {name: _sqlite_rows(path) for name, path in sources.items()}
    assert rows["a"] != rows["b"]
    return sources, rows


@pytest.fixture
def in_memory(tmp_path) -> Iterator[Path]:
    """A folder in memory (tmpfs) where the machine has one, else ``tmp_path``: the walk below
    kills processes, it cuts no power, and a flush to a disk was a third of a restore's time
    (flushed or not, the same lines run: every one is a kill point all the same)."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="chronocept-kills-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_sqlite_restore_killed_at_every_instruction_leaves_the_old_or_the_new_database(in_memory):
    folder = in_memory / "live"
    folder.mkdir()
    target = folder / "chronocept.db"
    url = f"sqlite:///{target}"
    sources, rows = _two_backups(in_memory)
    restore_database(url, sources["a"])  # into a new file: nothing to keep aside
    _start(url)  # the database in WAL mode, as the app leaves it
    current = "a"

    tries = 0
    killed = True
    while killed:
        tries += 1
        other = "b" if current == "a" else "a"
        killed = killed_at_line(tries, TRACED, lambda: restore_database(url, sources[other]))
        _start(url)
        now = _sqlite_rows(target)
        assert now in (rows[current], rows[other]), f"killed at line event {tries}: neither database"
        assert killed or now == rows[other]  # not killed: restored
        kept = list((folder / "backups").glob("*"))
        # a copy kept aside is the database as it was, whole; nothing else is in the backup folder
        assert [p.name.endswith("-before-restore.db") for p in kept] == [True] * len(kept), (tries, kept)
        assert all(_sqlite_rows(p) == rows[current] for p in kept), tries
        # nothing else is left beside the database, and settling it again (what a second start
        # does to the files before it opens one) changes nothing
        assert {p.name for p in folder.iterdir()} <= {"chronocept.db", "chronocept.db.lock", "backups"}, tries
        before = _listing(folder)
        presence.settle_interrupted_restore(target, wait_s=0)
        assert _listing(folder) == before and _sqlite_rows(target) == now, tries
        if kept:
            shutil.rmtree(folder / "backups")
        current = "a" if now == rows["a"] else "b"
    assert tries > 50  # the tracer saw the restore's code: every line of it was a kill point
    print(f"{tries - 1} kill points")


# --- PostgreSQL -----------------------------------------------------------------------------------


def _pg_rows(url: str) -> dict[str, list[tuple]]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            tables = conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                       "ORDER BY tablename")).scalars().all()
            return {t: sorted((tuple(r) for r in conn.execute(text(f'SELECT * FROM public."{t}"'))), key=repr)
                    for t in tables}
    finally:
        engine.dispose()


def _without_orphans(url: str) -> None:
    """Wait until the killed restore's psql has seen the end of its input and gone (its session
    then rolls back, or commits when COMMIT had reached it), so the next try starts from one state."""
    # autocommit: a transaction reads pg_stat_activity once and keeps what it read
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for _ in range(600):
                others = conn.execute(text(
                    "SELECT application_name, state, wait_event, left(query, 60) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND backend_type = 'client backend'")).all()
                if not others:
                    return
                conn.execute(text("SELECT pg_sleep(0.05)"))
    finally:
        engine.dispose()
    raise AssertionError(f"a killed restore's psql is still connected after 30 s: {others}")


@pytest.mark.postgres
def test_a_postgres_restore_killed_during_its_load_leaves_the_old_or_the_new_database(
        migrated_postgres_url, tmp_path, monkeypatch):
    url = migrated_postgres_url
    monkeypatch.setenv("CHRONOCEPT_BACKUP_DIR", str(tmp_path / "backups"))
    app_config.reset()
    sources, rows = {}, {}
    _populated(url, 0)
    for name, extra in (("a", None), ("b", "late")):
        if extra:
            db = Database.connect(url)
            accounts.create_user(db, accounts.actor_for_script(db), extra, "password-123", "annotator")
            db.dispose()
        sources[name] = tmp_path / f"{name}.dump"
        backup_database(make_engine(url), sources[name])
        rows[name] = _pg_rows(url)

    loading = restore_module._load_archive.__code__
    events = {}  # line events of the load of each archive (a few per line of it)

    def count(frame, event, _arg):  # type: ignore[no-untyped-def]
        events[name] += event == "line"
        return count

    tracer = sys.gettrace()
    sys.settrace(lambda frame, _e, _a: count if frame.f_code is loading else None)
    try:
        for name in ("b", "a"):
            events[name] = 0
            restore_database(url, sources[name])
    finally:
        sys.settrace(tracer)
    current = "a"
    assert min(events.values()) > 200
    # spread over the stream (the transaction open, the old tables dropped, rows half loaded),
    # and every one of the last events: COMMIT written, psql's input closed, its exit awaited
    kill_points = [lambda n, i=i: max(1, n * i // 5) for i in range(5)] + \
                  [lambda n, back=back: n - back for back in range(6, -1, -1)]
    outcomes = set()
    for kill_point in kill_points:
        other = "b" if current == "a" else "a"
        k = kill_point(events[other])
        assert killed_at_line(k, TRACED, lambda: restore_database(url, sources[other]),
                              lambda frame: frame.f_code is loading)
        _without_orphans(url)
        _start(url)
        now = _pg_rows(url)
        assert now in (rows[current], rows[other]), f"killed at line event {k} of the load: neither database"
        assert all(p.name.endswith("-before-restore.dump") for p in (tmp_path / "backups").iterdir()), k
        outcomes.add("old" if now == rows[current] else "new")
        current = "a" if now == rows["a"] else "b"
    assert outcomes == {"old", "new"}  # killed before COMMIT reached psql, and after


# --- the command line, as reported ---------------------------------------------------------------


def _chronocept(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _users(target: Path) -> list[str]:
    con = sqlite3.connect(target)
    try:
        return [r[0] for r in con.execute("SELECT username FROM users ORDER BY id")]
    finally:
        con.close()


def _named_kept_copy(event: str, args: tuple) -> bool:
    """The event that gives ``backups/*-before-restore.db`` its name (a rename or a link)."""
    return event in ("os.rename", "os.link") and str(args[1]).endswith("-before-restore.db")


def _no_process() -> int:
    """A process id that no process has, nor can have while the test runs: above the kernel's
    largest (a reaped child's id may be given to another process meanwhile)."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def test_chronocept_restore_killed_the_instant_the_kept_copy_appears_loses_nothing(tmp_path, monkeypatch, capsys):
    target = tmp_path / "data" / "chronocept.db"
    url = f"sqlite:///{target}"
    monkeypatch.setenv(ENV_VAR, url)
    _populated(url, 0)
    backup = tmp_path / "full.backup"
    assert _chronocept(capsys, "backup", str(backup))[0] == 0
    at_backup = _users(target)
    db = Database.connect(url)
    accounts.create_user(db, accounts.actor_for_script(db), "latecomer", "password-123", "annotator")
    db.dispose()
    before = _users(target)

    assert killed_after_event(_named_kept_copy, lambda: cli.main(["restore", str(backup)])) == -signal.SIGKILL
    assert list((target.parent / "backups").glob("*-before-restore.db"))  # it was killed there
    code, out, err = _chronocept(capsys, "exports")  # the next command finds the team's work
    assert (code, out, err) == (0, "no exports yet\n", "")
    assert _users(target) in (before, at_backup)
    assert sorted(p.name for p in target.parent.iterdir()) == ["backups", "chronocept.db", "chronocept.db.lock"]


def test_a_database_an_older_restore_moved_away_is_never_replaced_by_an_empty_one(tmp_path, monkeypatch, capsys):
    """What a restore of an older version left when killed between moving the database aside and
    putting the backup in place: no database file, the data in the backup folder (with its -wal)
    and a copy of the backup beside where the database was."""
    target = tmp_path / "chronocept.db"
    url = f"sqlite:///{target}"
    monkeypatch.setenv(ENV_VAR, url)
    _populated(url, 2)
    backup = tmp_path / "full.backup"
    assert _chronocept(capsys, "backup", str(backup))[0] == 0
    before = _users(target)
    (tmp_path / "backups").mkdir()
    kept = tmp_path / "backups" / "chronocept-20261124T091500Z-before-restore.db"
    for extra in ("", "-wal", "-shm"):
        if Path(f"{target}{extra}").exists():
            os.rename(f"{target}{extra}", f"{kept}{extra}")
    shutil.copyfile(backup, tmp_path / f".restore-{_no_process()}-0a1b2c3d.db")  # its process is gone
    listing = sorted(p.name for p in tmp_path.iterdir())

    code, out, err = _chronocept(capsys, "exports")
    assert code == 1 and out == ""
    assert err == (f"chronocept: the database file {target} is missing, but an interrupted restore left its "
                   f"data in {kept} (and 1 other file(s)); put it back with: chronocept restore {kept} — no "
                   "new, empty database is made in its place (to start one, move those files away)\n")
    with pytest.raises(DatabaseMissing):
        Database.connect(url)
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({*listing, "chronocept.db.lock"})

    code, out, err = _chronocept(capsys, "restore", str(kept))
    assert code == 0, err
    assert _users(target) == before
    assert _chronocept(capsys, "exports")[:2] == (0, "no exports yet\n")
    assert not list(tmp_path.glob(".restore-*"))  # swept once the database is back


def test_a_start_waits_for_a_running_restore_but_not_for_running_processes(tmp_path):
    target = tmp_path / "chronocept.db"
    url = f"sqlite:///{target}"
    Database.connect(url).dispose()
    with presence.held_exclusively(url):  # a restore between its marker and its end
        marker_path(target).write_text("{}")
        with pytest.raises(presence.DatabaseInUse, match="a restore of this database is in progress"):
            presence.settle_interrupted_restore(target, wait_s=0.2)
    marker_path(target).unlink()

    target.unlink()  # gone while a process runs, and an older version's restore moved it aside
    held = presence.announce(url, wait_s=0)
    try:
        kept = tmp_path / "backups" / "chronocept-20261124T091500Z-before-restore.db"
        kept.parent.mkdir()
        kept.write_bytes(b"")
        (tmp_path / f".restore-{_no_process()}-0a1b2c3d.db").write_bytes(b"")
        with pytest.raises(DatabaseMissing, match=f"left its data in {kept}"):
            presence.settle_interrupted_restore(target, wait_s=30)  # at once: no restore runs
    finally:
        held.release()


def test_a_start_settles_the_file_once(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'chronocept.db'}"
    _start(url)
    looked = []
    needs_settling = sqlite_replace.needs_settling
    monkeypatch.setattr(sqlite_replace, "needs_settling", lambda path: looked.append(path) or needs_settling(path))
    _start(url)
    assert len(looked) == 1


def test_a_database_removed_after_a_completed_restore_starts_afresh(tmp_path, monkeypatch):
    """Every restore keeps a copy of the database it replaced: that copy is no sign of a restore
    cut short. A file removed on purpose afterwards gives a new, empty database, as its owner
    expects; so does a new deployment's first start, its file named alike, the backup folder shared."""
    monkeypatch.setenv(app_config.BACKUP_DIR_ENV, str(tmp_path / "shared-backups"))
    target = tmp_path / "team" / "c.db"
    url = f"sqlite:///{target}"
    _populated(url, 1)
    backup = tmp_path / "c.backup"
    backup_database(make_engine(url), backup)
    assert "restored" in restore_database(url, backup).describe(backup)
    kept = list((tmp_path / "shared-backups").iterdir())
    assert [p.name.endswith("-before-restore.db") for p in kept] == [True]
    for extra in ("", "-wal", "-shm", "-journal"):
        Path(f"{target}{extra}").unlink(missing_ok=True)

    _start(url)
    assert _users(target) == []
    elsewhere = tmp_path / "new-team" / "c.db"
    _start(f"sqlite:///{elsewhere}")
    assert _users(elsewhere) == []
    assert list((tmp_path / "shared-backups").iterdir()) == kept


def _renamed_over(target: Path):
    return lambda event, args: event == "os.rename" and str(args[1]) == str(target)


def test_a_restore_killed_with_the_new_file_in_place_replays_nothing_of_the_old_one(tmp_path):
    target = tmp_path / "live" / "chronocept.db"
    url = f"sqlite:///{target}"
    sources, rows = _two_backups(tmp_path)
    restore_database(url, sources["a"])
    # committed work in the old database's -wal: what a power cut that undid its removal leaves
    con = sqlite3.connect(target, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("CREATE TABLE old_notes (body TEXT)")
    con.executemany("INSERT INTO old_notes VALUES (?)", [("x" * 200,)] * 200)
    stale = Path(f"{target}-wal").read_bytes()
    con.close()
    assert stale

    assert killed_after_event(_renamed_over(target), lambda: restore_database(url, sources["b"])) == -signal.SIGKILL
    assert marker_path(target).exists() and _sqlite_rows(target) == rows["b"]  # killed before step 6
    Path(f"{target}-wal").write_bytes(stale)
    _start(url)
    assert _sqlite_rows(target) == rows["b"]
    con = sqlite3.connect(target)
    assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    con.close()
