"""Who is running against a database: the app and the CLI announce themselves; a restore checks.

Replacing a database under a running app server corrupts it or loses work, so ``chronocept
restore`` refuses while anyone holds the database, and a server starting during a restore waits
for it to end. The announcement is a *shared* lock held for the life of the process; a restore
takes the same lock *exclusively*, without waiting.

* **SQLite:** ``flock`` on ``<database file>.lock`` beside the database. The kernel releases it
  when the holder exits, however it exits (a crash leaves no stale lock to clean up).
* **PostgreSQL:** a session-level advisory lock (shared) on a connection of its own in that
  database (advisory locks are per database, so other databases on the server are unaffected).
  A server restart ends that session and its lock, so a keeper thread checks the connection
  every 15 s and takes the lock again on a new one. A restore also refuses while any other
  client session is connected to the database (an app server of an older version, ``psql``).

Before a process opens an SQLite file it settles a restore that was killed half-way
(:func:`settle_interrupted_restore`, :mod:`db.sqlite_replace`): holding the lock exclusively, so
never while a restore runs. That happens once per start, where the file's engine is made
(:func:`db.engine.make_engine`); :func:`announce`, which comes after it, settles again only a
restore killed in between (its marker is there once the shared lock is held).

A lock file on a network file system shared by several machines is only as good as that file
system's ``flock``; several app servers belong on PostgreSQL anyway (an SQLite file cannot be
shared between machines).
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from db import sqlite_replace
from db.durable import make_folder_durably

#: the advisory lock key (any constant bigint): "ChrRun"
PG_PRESENCE_KEY = 0x436872_52756E
#: how long a starting app waits for a restore in progress before giving up
WAIT_FOR_RESTORE_S = 120.0
KEEPER_INTERVAL_S = 15.0
APPLICATION_NAME = "chronocept"


class DatabaseInUse(Exception):
    """The database is held by a running app or command (one-line reason)."""


def lock_file(database: str) -> Path:
    """The lock file of an SQLite database file: ``<file>.lock`` beside it."""
    path = Path(database).resolve()
    return path.with_name(path.name + ".lock")


def sqlite_file(url: URL) -> str | None:
    """The file of an SQLite URL, or None where there is no file to lock (in memory, URI form)."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return database


RESTORING = "a restore of this database is in progress; try again when it has finished"


def _open_lock(database: str) -> int:
    path = lock_file(database)
    make_folder_durably(path.parent)  # the database's folder: the file made in it must survive
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def _locked(fd: int, mode: int) -> bool:
    """Take the flock ``mode`` on ``fd`` without waiting: False when another holder stands in the way."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        raise


def settle_interrupted_restore(database: str | Path, *, wait_s: float = WAIT_FOR_RESTORE_S) -> None:
    """Before anything opens the SQLite file ``database``: finish or undo a restore of it that was
    killed, and sweep what killed restores left (:func:`db.sqlite_replace.settle`), holding the
    database exclusively. Waits while a restore runs (then :class:`DatabaseInUse`); raises
    :class:`db.sqlite_replace.DatabaseMissing` when an older version's killed restore moved the
    file away. Costs a stat and a folder listing when there is nothing to do."""
    path = Path(database).resolve()
    if not sqlite_replace.needs_settling(path):
        return
    deadline = time.monotonic() + wait_s
    while True:
        fd = _open_lock(str(path))
        try:
            if _locked(fd, fcntl.LOCK_EX):
                sqlite_replace.settle(path)
                return
            if _locked(fd, fcntl.LOCK_SH) and not sqlite_replace.interrupted(path):
                # no restore runs: the holders are running processes, which settled it before
                # they started (the copies they could not sweep wait for a later start)
                sqlite_replace.refuse_if_moved_away(path)
                return
        finally:
            os.close(fd)
        if time.monotonic() > deadline:  # a restore runs (it holds the database exclusively)
            raise DatabaseInUse(RESTORING)
        time.sleep(0.05)


class Presence:
    """A held announcement; :meth:`release` ends it (process exit does too)."""

    def release(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _FilePresence(Presence):
    def __init__(self, fd: int):
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


class _PostgresPresence(Presence):
    def __init__(self, url: URL, wait_s: float):
        self._engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT",
                                     connect_args={"application_name": APPLICATION_NAME})
        self._conn = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._take(wait_s)
        self._keeper = threading.Thread(target=self._keep, name="chronocept-presence", daemon=True)
        self._keeper.start()

    def _take(self, wait_s: float) -> None:
        conn = self._engine.connect()
        try:
            conn.execute(text(f"SET lock_timeout = {int(wait_s * 1000)}"))
            conn.execute(text("SELECT pg_advisory_lock_shared(:k)"), {"k": PG_PRESENCE_KEY})
        except DBAPIError as exc:
            conn.close()
            if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_not_available
                raise DatabaseInUse(RESTORING) from None
            raise
        self._conn = conn

    def _keep(self) -> None:
        while not self._stop.wait(KEEPER_INTERVAL_S):
            with self._lock:
                if self._stop.is_set():
                    return
                try:
                    self._conn.execute(text("SELECT 1"))
                    continue
                except Exception:  # noqa: BLE001 - the session is gone, and its lock with it
                    self._conn.invalidate()
                try:
                    self._take(wait_s=1.0)
                except Exception:  # noqa: BLE001 - server still down, or a restore: next round
                    pass

    def release(self) -> None:
        self._stop.set()
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()  # the session ends, and its advisory lock with it
                except Exception:  # noqa: BLE001 - already gone
                    pass
                self._conn = None
        self._engine.dispose()


def announce(url: str | URL, *, wait_s: float = WAIT_FOR_RESTORE_S) -> Presence | None:
    """Announce that this process runs against the database at ``url``, for its whole life
    (or until :meth:`Presence.release`). Waits up to ``wait_s`` while a restore holds the
    database, then raises :class:`DatabaseInUse`. None for a database without a file to lock.
    An SQLite file was settled when its engine was made (:func:`db.engine.make_engine`, which
    comes first); a restore killed since is settled here."""
    url = make_url(url) if isinstance(url, str) else url
    if url.get_backend_name() == "postgresql":
        return _PostgresPresence(url, wait_s)
    database = sqlite_file(url)
    if database is None:
        return None
    deadline = time.monotonic() + wait_s
    while True:
        fd = _open_lock(database)
        try:
            while not _locked(fd, fcntl.LOCK_SH):
                if time.monotonic() > deadline:
                    raise DatabaseInUse(RESTORING)
                time.sleep(0.2)
        except BaseException:
            os.close(fd)
            raise
        if not sqlite_replace.interrupted(Path(database).resolve()):
            return _FilePresence(fd)
        os.close(fd)  # a restore was killed after the file was settled: settle it, then hold it
        settle_interrupted_restore(database, wait_s=max(0.0, deadline - time.monotonic()))


IN_USE = ("the app (or another chronocept command) is running against this database; stop it "
          "first")


@contextmanager
def held_exclusively(url: str | URL) -> Iterator[None]:
    """Hold the database for a restore: raise :class:`DatabaseInUse` at once while anyone has
    announced themselves (or, on PostgreSQL, any other session is connected); meanwhile a
    starting app waits."""
    url = make_url(url) if isinstance(url, str) else url
    if url.get_backend_name() == "postgresql":
        with _pg_exclusive(url):
            yield
        return
    database = sqlite_file(url)
    if database is None:
        raise DatabaseInUse("only a database file can be restored (not an in-memory database)")
    fd = _open_lock(database)
    try:
        if not _locked(fd, fcntl.LOCK_EX):
            raise DatabaseInUse(IN_USE)
        yield
    finally:
        os.close(fd)


@contextmanager
def _pg_exclusive(url: URL) -> Iterator[None]:
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT",
                           connect_args={"application_name": f"{APPLICATION_NAME} restore"})
    try:
        with engine.connect() as conn:
            if not conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), {"k": PG_PRESENCE_KEY}):
                raise DatabaseInUse(IN_USE)
            others = conn.execute(text(
                "SELECT coalesce(nullif(application_name, ''), 'unnamed') FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND backend_type = 'client backend'")).scalars().all()
            if others:
                names = ", ".join(sorted(set(others)))
                raise DatabaseInUse(f"{len(others)} other session(s) are connected to this database "
                                    f"({names}); stop the app servers and close them first")
            yield  # the session's lock ends with the connection
    finally:
        engine.dispose()
