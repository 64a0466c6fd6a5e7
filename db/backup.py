"""Consistent online backups of the database.

A backup is written to a hidden temporary file beside its target, flushed to the disk, and
renamed into place when complete (:mod:`db.durable`): the target is never a half file, and an
existing one is replaced only when asked to. A process killed meanwhile leaves that file behind;
its name says who wrote it (``.backup-<host>-<pid>-<random>``), so
:func:`remove_abandoned_backups` — run at every start and before every backup into the same
folder — removes it once that process is gone, or after an hour untouched when the writer cannot
be checked (another host on a shared disk, an older name).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

from sqlalchemy import Engine
from sqlalchemy.engine import URL

from db.durable import flush_file, flush_folder, make_folder_durably, rename_without_replacing
from db.processes import process_is_alive


class BackupError(Exception):
    """The backup could not be written (one-line reason)."""


class BackupExists(BackupError):
    """The target exists and was not to be replaced; it is left as it was."""


#: a temporary backup untouched this long is abandoned whoever wrote it (a live pg_dump or
#: backup-API copy keeps writing to it, so its modification time stays fresh)
ABANDONED_AFTER_S = 3600.0
_TEMPORARY = re.compile(r"\.backup-(?:(?P<host>.+)-(?P<pid>\d+)-)?[a-z0-9_]{8}")


def temporary_prefix() -> str:
    return f".backup-{socket.gethostname()}-{os.getpid()}-"


def remove_abandoned_backups(folder: Path, *, now: float | None = None,
                             max_age: float = ABANDONED_AFTER_S) -> list[Path]:
    """Remove the temporary files of killed backups in ``folder``; return them. Only files named
    as :func:`backup_database` names them, owned by this user, and either written by a process
    of this host that is gone or untouched for ``max_age`` seconds."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for path in entries:
        match = _TEMPORARY.fullmatch(path.name)
        if match is None or path.is_symlink() or not path.is_file():
            continue
        try:
            info = path.stat()
        except OSError:
            continue
        if info.st_uid != os.getuid():
            continue
        pid = int(match["pid"]) if match["pid"] else None
        writer_gone = (match["host"] == socket.gethostname() and pid is not None
                       and pid != os.getpid() and not process_is_alive(pid))
        if writer_gone or now - info.st_mtime > max_age:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def stamped_names(folder: Path, stem: str, why: str, suffix: str) -> Iterator[Path]:
    """The names of a copy kept in ``folder`` — ``<stem>-<UTC time>-<why><suffix>``, then with
    ``-2``, ``-3``… after the time — for the caller to take the first that is free (and only where
    it is: :func:`db.durable.rename_without_replacing`, ``backup_database(overwrite=False)``).

    >>> names = stamped_names(Path("backups"), "chronocept", "before-restore", ".db")
    >>> first, second = next(names).name, next(names).name
    >>> first.startswith("chronocept-20") and first.endswith("Z-before-restore.db")
    True
    >>> second == first.replace("Z-before", "Z-2-before")
    True
    """
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    yield folder / f"{stem}-{stamp}-{why}{suffix}"
    n = 2
    while True:
        yield folder / f"{stem}-{stamp}-{n}-{why}{suffix}"
        n += 1


def _source(database: str | Path, read_only: bool) -> sqlite3.Connection:
    if not read_only:
        return sqlite3.connect(database)
    con = sqlite3.connect(f"{Path(database).resolve().as_uri()}?mode=ro", uri=True)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return con
    except sqlite3.OperationalError:  # a WAL-mode file without its -shm opens read-write only
        con.close()
        return sqlite3.connect(database)


def copy_sqlite_file(database: str | Path, target: Path, *, read_only: bool = False) -> None:
    """``database`` through SQLite's online backup API (consistent while others write, with what
    its ``-wal`` holds) into ``target``: one self-contained file, flushed to the disk.
    ``read_only``: ``database`` is opened read-only where SQLite can (a backup being restored is
    never changed by being read)."""
    src = _source(database, read_only)
    try:
        dst = sqlite3.connect(target)
        try:
            dst.execute("PRAGMA synchronous=OFF")  # one flush of the finished file below does
            src.backup(dst)
            # one self-contained file: opening the copy must not need (or create) -wal/-shm
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    finally:
        src.close()
    flush_file(target)


def _put_in_place(tmp_path: Path, target: Path, overwrite: bool) -> None:
    """Name the complete file ``tmp_path`` ``target`` in one step: replacing what is there, or
    (``overwrite`` False) only where nothing is, so a file that appears meanwhile is not replaced
    either (:func:`db.durable.rename_without_replacing`)."""
    if overwrite:
        tmp_path.replace(target)
    else:
        try:
            rename_without_replacing(tmp_path, target)
        except FileExistsError:
            raise BackupExists(f"{target} already exists") from None
    flush_folder(target.parent)


def why_failed(exc: OSError | sqlite3.Error) -> str:
    """What went wrong, in a few words (an OSError's own words, without its errno and paths)."""
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)) or type(exc).__name__


def backup_database(engine: Engine, target: Path, *, overwrite: bool = True) -> None:
    """Write a consistent copy of the database to ``target``: a temporary file, flushed, then
    renamed, so ``target`` is never a half file. ``overwrite`` False: :class:`BackupExists` when
    ``target`` exists (it is left as it was).

    SQLite: the online backup API (consistent while the app keeps writing). PostgreSQL:
    ``pg_dump --format=custom`` (restore with ``pg_restore``); the URL's password reaches
    pg_dump as ``PGPASSWORD`` in its environment, not on its command line.
    """
    target = target.resolve()
    if target.is_dir():
        raise BackupError(f"{target} is a folder; name the backup file")
    if target.exists() and not overwrite:
        raise BackupExists(f"{target} already exists")
    try:
        make_folder_durably(target.parent)
        remove_abandoned_backups(target.parent)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=temporary_prefix(), delete=False) as tmp:
            tmp_path = Path(tmp.name)
        try:
            _write(engine.url, tmp_path)
            _put_in_place(tmp_path, target, overwrite)
        finally:
            tmp_path.unlink(missing_ok=True)
    except (OSError, sqlite3.Error) as exc:  # a full disk, a read-only or unplugged drive
        raise BackupError(f"the backup could not be written to {target}: {why_failed(exc)}") from None


def backup_under_stamped_name(engine: Engine, folder: Path, why: str) -> Path:
    """A backup of the database into ``folder`` under the first free name of
    :func:`stamped_names` (the SQLite file's stem and ``.db``, or the PostgreSQL database's name
    and ``.dump``); its path."""
    url = engine.url
    if url.get_backend_name() == "sqlite":
        stem, suffix = Path(url.database or "chronocept").stem, ".db"
    else:
        stem, suffix = url.database or "chronocept", ".dump"
    names = stamped_names(folder, stem, why, suffix)
    while True:
        target = next(names)
        try:
            backup_database(engine, target, overwrite=False)
            return target.resolve()
        except BackupExists:
            pass  # that name is taken: the next one


def _write(url: URL, tmp_path: Path) -> None:
    """The database's copy into ``tmp_path``, flushed to the disk."""
    if url.get_backend_name() == "sqlite":
        copy_sqlite_file(url.database, tmp_path)
    elif url.get_backend_name() == "postgresql":
        pg_dump = shutil.which("pg_dump")
        if pg_dump is None:
            raise BackupError("pg_dump is not installed; install the PostgreSQL client tools")
        # The password goes through the environment, never argv (argv is visible in `ps`).
        env = dict(os.environ)
        if url.password is not None:
            env["PGPASSWORD"] = str(url.password)
        no_password = URL.create("postgresql", username=url.username, host=url.host, port=url.port,
                                 database=url.database, query=url.query)
        done = subprocess.run(
            [pg_dump, "--format=custom", "--no-password", "--file", str(tmp_path),
             no_password.render_as_string(hide_password=False)],
            capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise BackupError("pg_dump failed: " + (done.stderr.strip().splitlines() or ["no message"])[-1])
        flush_file(tmp_path)
    else:
        raise BackupError(f"backup is not supported for {url.get_backend_name()}")
