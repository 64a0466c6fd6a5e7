"""Engine, sessions and schema upgrade.

The database is named by ``CHRONOCEPT_DATABASE_URL``; without it, a SQLite file
``./data/chronocept.db`` is created on first use. SQLite runs in WAL mode with foreign keys on,
a busy timeout, and write transactions that take the write lock up front (``BEGIN IMMEDIATE``),
so concurrent annotators queue instead of failing with "database is locked" half-way through.

Transient failures — SQLite "database is locked"/"busy", PostgreSQL serialization failures and
deadlocks (SQLSTATE 40001/40P01), and pool time-outs — are retried with bounded exponential
back-off and jitter where a retry is safe (:meth:`Database.run_write` re-runs a whole unit of
work; :meth:`Database.write`/:meth:`Database.read` retry only opening the transaction, before the
body runs). When retries are exhausted the caller gets :class:`DatabaseBusy` (the service layer
registers its own subclass, a ``ServiceError``), whose message is fit to show a user.
"""

from __future__ import annotations

import gc
import json
import random
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

from sqlalchemy import Engine, create_engine, event, exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from db.config import DATABASE_URL_ENV, DEFAULT_SQLITE_PATH, config
from db.durable import make_folder_durably
from db.presence import announce as announce_presence, settle_interrupted_restore, sqlite_file

T = TypeVar("T")

ENV_VAR = DATABASE_URL_ENV  # the variable naming the database (db.config reads it)
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

#: Connections one app server may hold at once. SPEC §10 promises 16 concurrent annotators per
#: server; each Streamlit session runs one script (one service call, one connection) at a time,
#: plus leads, fragments that refresh on their own and background threads. 20 kept open cover
#: that with room; overflow absorbs bursts. On PostgreSQL 20 + 10 per server keeps three app
#: servers (90) under the server's default ``max_connections`` of 100.
POOL_SIZE = 20
PG_MAX_OVERFLOW = 10
SQLITE_MAX_OVERFLOW = 20
#: Seconds a checkout waits for a free connection before the (retried) pool time-out.
POOL_TIMEOUT_S = 10.0
#: Seconds SQLite itself waits for the write lock before reporting "database is locked"; the
#: retry policy below then tries again, so a user waits at most about attempts × this.
SQLITE_BUSY_TIMEOUT_S = 10.0

BUSY_MESSAGE = ("The database is busy; your work is saved up to the last change. "
                "Try again in a moment.")


class DatabaseBusy(Exception):
    """The database stayed locked or the connection pool stayed full through every retry.

    Nothing of the failed unit of work was written. The service layer registers a subclass
    that is also its ``ServiceError`` (:func:`register_busy_error`), so pages show it as a message.
    """

    def __init__(self, message: str = BUSY_MESSAGE):
        super().__init__(message)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential back-off with jitter: attempt *n* (from 0) waits a random time in
    [d/2, d] with d = min(max_delay, base_delay · 2ⁿ) before the next try ("equal jitter")."""

    attempts: int = 4
    base_delay: float = 0.05
    max_delay: float = 2.0

    def delay(self, attempt: int) -> float:
        d = min(self.max_delay, self.base_delay * (2 ** attempt))
        return random.uniform(d / 2, d)


_SQLITE_TRANSIENT = ("database is locked", "database is busy", "database table is locked")
_PG_TRANSIENT_SQLSTATES = frozenset({"40001", "40P01"})  # serialization_failure, deadlock_detected


def is_transient(exc: BaseException) -> bool:
    """True for errors that a later retry of the same unit of work may not meet again."""
    if isinstance(exc, DatabaseBusy):
        return True
    if isinstance(exc, sa_exc.TimeoutError):  # QueuePool limit … reached, connection timed out
        return True
    if isinstance(exc, sa_exc.DBAPIError):
        if exc.connection_invalidated:
            # The server went away (restart, failover, an idle connection killed): SQLAlchemy
            # has dropped the pool's connections, and the transaction died with the old one,
            # so the unit of work re-runs on a new connection. This replaces a "ping" before
            # every transaction (pool_pre_ping), a round trip on every service call.
            return True
        orig = exc.orig
        sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        if sqlstate in _PG_TRANSIENT_SQLSTATES:
            return True
        if isinstance(exc, sa_exc.OperationalError):
            text = str(orig).lower()
            return any(t in text for t in _SQLITE_TRANSIENT)
    return False


def database_url() -> str:
    """The configured URL (:mod:`db.config`), or the default SQLite file (its folder is created)."""
    url = config().database_url
    if url:
        return url
    make_folder_durably(DEFAULT_SQLITE_PATH.parent)
    return f"sqlite:///{DEFAULT_SQLITE_PATH}"


def _configure_sqlite(engine: Engine, busy_timeout_s: float) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's begin event issue BEGIN itself (pysqlite's implicit BEGIN is deferred).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # type: ignore[no-untyped-def]
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode != "IMMEDIATE":
            conn.exec_driver_sql(f"BEGIN {mode}")
            return
        dbapi_conn = conn.connection.dbapi_connection
        try:
            if not begin_immediate(dbapi_conn, busy_timeout_s):
                # still locked at the deadline: once more through SQLAlchemy, which raises its
                # own OperationalError ("database is locked", a transient error the retries know)
                conn.exec_driver_sql("BEGIN IMMEDIATE")
        finally:
            dbapi_conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")


#: How often a writer waiting for SQLite's write lock asks again (seconds).
SQLITE_WRITER_POLL_S = 0.002


def begin_immediate(dbapi_conn: Any, timeout_s: float) -> bool:
    """``BEGIN IMMEDIATE``, asking again every :data:`SQLITE_WRITER_POLL_S` until the write lock
    is free (True) or ``timeout_s`` has passed or another error came (False: the caller's own
    BEGIN raises it, as SQLAlchemy's error). Leaves the connection's
    busy timeout at 0; the caller sets it back.

    Why not SQLite's own busy timeout: its handler sleeps 1, 2, 5, … then 100 ms between tries,
    so a writer that has waited a while sleeps through the gaps between another writer's
    transactions — an import's chunks, a burst of submits — and waits far longer than any one
    hold (measured: 532 ms behind an import whose longest hold was 110 ms). Asking every 2 ms
    (with jitter, so waiters do not ask in step) takes a free lock within milliseconds."""
    deadline = time.monotonic() + timeout_s
    dbapi_conn.execute("PRAGMA busy_timeout=0")
    while True:
        try:
            dbapi_conn.execute("BEGIN IMMEDIATE")
            return True
        except Exception as exc:  # noqa: BLE001 - only "locked"/"busy" is waited out
            if not any(t in str(exc).lower() for t in _SQLITE_TRANSIENT):
                return False  # the caller's BEGIN through SQLAlchemy raises it, wrapped
        if time.monotonic() >= deadline:
            return False
        time.sleep(SQLITE_WRITER_POLL_S * random.uniform(0.5, 1.5))


def make_engine(url: str | None = None, *, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S,
                pool_timeout_s: float = POOL_TIMEOUT_S) -> Engine:
    """Create an engine for ``url`` (default: :func:`database_url`), its pool sized for
    :data:`POOL_SIZE` concurrent service calls (SQLAlchemy 2 uses a QueuePool for SQLite files
    too, by default only 5 + 10, which 16 annotators and a fragment exhaust). An SQLite file
    is settled first (:func:`db.presence.settle_interrupted_restore`; it may raise
    :class:`db.sqlite_replace.DatabaseMissing` or :class:`db.presence.DatabaseInUse`)."""
    url = url or database_url()
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        db_path = sqlite_file(parsed)
        pool_args: dict[str, Any] = {}
        if db_path:
            # the one place a SQLite file's engine is made, and so the one place a restore
            # killed half-way is finished or undone before anything opens the file, once per
            # start (db.sqlite_replace; the upgrade uses this engine)
            settle_interrupted_restore(db_path)
            make_folder_durably(Path(db_path).parent)
            pool_args = dict(pool_size=POOL_SIZE, max_overflow=SQLITE_MAX_OVERFLOW,
                             pool_timeout=pool_timeout_s)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": busy_timeout_s},
                               **pool_args)
        _configure_sqlite(engine, busy_timeout_s)
        return engine
    engine = create_engine(url, pool_size=POOL_SIZE, max_overflow=PG_MAX_OVERFLOW,
                           pool_timeout=pool_timeout_s)
    _ping_idle_connections(engine)
    return engine


#: A pooled PostgreSQL connection unused for this long is pinged before it is handed out.
PING_AFTER_IDLE_S = 5.0


def _ping_idle_connections(engine: Engine) -> None:
    """Ping a pooled connection before use only when it has sat idle (SQLAlchemy's
    ``pool_pre_ping`` pings every time: a round trip on every service call). A dead connection
    found by the ping is replaced at checkout; one that died in the last few seconds of use is
    found by its first statement instead, and :meth:`Database.run_write` / ``run_read`` run
    the unit of work again (:func:`is_transient`: ``connection_invalidated``)."""

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_conn, record):  # type: ignore[no-untyped-def]
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_conn, record, _proxy):  # type: ignore[no-untyped-def]
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_conn)
        except Exception as exc:  # noqa: BLE001 - any failure means: not usable
            raise sa_exc.DisconnectionError("a pooled connection is no longer open") from exc
        if not alive:
            raise sa_exc.DisconnectionError("a pooled connection is no longer open")


def upgrade_schema(engine: Engine, target: str = "head", *, backup: bool = True):
    """Apply the Alembic migrations up to ``target`` (idempotent); called at start-up and by the
    CLI. Keeps every row (SQLite: foreign keys off, one transaction, ``foreign_key_check``) and
    backs an existing older database up first; returns a :class:`db.upgrade.SchemaUpgrade`
    (from, to, backup path). See :mod:`db.upgrade`."""
    from db.upgrade import upgrade_schema as _upgrade

    return _upgrade(engine, target, backup=backup)


_gc_lock = threading.Lock()
_gc_holders = 0
_gc_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block (reference counting still frees
    almost everything at once): a write transaction holds SQLite's write lock, or PostgreSQL row
    locks, and a full collection in a process holding a large import or report in memory takes
    100–250 ms — measured as most of the longest lock holds of an import of 200k annotations.
    Threads share the collector, so it comes back when the last write transaction of the
    process ends; a collection that was due runs then, with no lock held."""
    global _gc_holders, _gc_was_enabled
    with _gc_lock:
        if _gc_holders == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holders += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_enabled:
                gc.enable()


@contextmanager
def _nothing() -> Iterator[None]:
    yield


class Database:
    """Engine plus session factories; services take one of these.

    :meth:`read` gives a session for queries, :meth:`write` a transaction that commits on
    success and rolls back on any exception. On SQLite a write takes the write lock at BEGIN.
    Both retry opening the transaction (pool checkout, and on SQLite the lock wait at BEGIN
    IMMEDIATE) on transient errors, but never re-run their body: a transient error inside the
    body becomes :class:`DatabaseBusy`. :meth:`run_write` / :meth:`run_read` take the unit of
    work as a function and re-run all of it, so they retry transient errors anywhere.
    """

    #: what exhausted retries raise; the service layer registers its ServiceError subclass
    busy_error: type[DatabaseBusy] = DatabaseBusy

    def __init__(self, engine: Engine, retry: RetryPolicy | None = None):
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        self.retry = retry or RetryPolicy()
        write_engine = engine.execution_options(sqlite_begin="IMMEDIATE") if self.is_sqlite else engine
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine, expire_on_commit=False)
        #: this process's announcement that it runs against the database (db.presence), if any
        self.presence: Any = None

    @classmethod
    def connect(cls, url: str | None = None, *, upgrade: bool = True) -> "Database":
        if upgrade:
            return cls.connect_upgraded(url)[0]
        return cls(make_engine(url))

    @classmethod
    def connect_upgraded(cls, url: str | None = None, *, announce: bool = False) -> tuple["Database", Any]:
        """The database brought to the newest schema, with what the upgrade did (a
        :class:`db.upgrade.SchemaUpgrade`: from, to, backup path) for the caller to report.
        Raises ``SchemaUpgradeError`` (nothing changed) when the upgrade is refused.

        ``announce``: the app and the CLI say that they run against the database until
        :meth:`dispose` or their exit (:mod:`db.presence`: ``chronocept restore`` refuses
        meanwhile); taken once the engine is made (which settles an SQLite file, and opens
        nothing) and before the upgrade, so a start during a restore waits for its end."""
        url = url or database_url()
        db = cls(make_engine(url))
        try:
            db.presence = announce_presence(url) if announce else None
        except BaseException:
            db.dispose()
            raise
        try:
            done = upgrade_schema(db.engine)
        except BaseException:
            db.dispose()
            raise
        return db, done

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def _busy(self, cause: BaseException | None) -> DatabaseBusy:
        err = self.busy_error()
        err.__cause__ = cause
        return err

    def _open(self, factory: sessionmaker, retries: bool) -> Session:
        """A session whose transaction has begun (connection checked out, BEGIN issued)."""
        attempts = self.retry.attempts if retries else 1
        last: BaseException | None = None
        for attempt in range(attempts):
            session = factory()
            try:
                session.connection()  # checkout + BEGIN (IMMEDIATE on SQLite writes)
                return session
            except Exception as exc:  # noqa: BLE001 - re-raised unless transient
                session.close()
                if not is_transient(exc):
                    raise
                last = exc
            if attempt + 1 < attempts:
                time.sleep(self.retry.delay(attempt))
        if not retries:
            raise last  # type: ignore[misc]  # the caller's own retry loop decides
        raise self._busy(last)

    @contextmanager
    def _transaction(self, factory: sessionmaker, *, commit: bool, retries: bool) -> Iterator[Session]:
        with paused_gc() if factory is self._write else _nothing():
            session = self._open(factory, retries)
            try:
                yield session
                if commit:
                    session.commit()
            except BaseException as exc:
                session.rollback()
                if retries and is_transient(exc) and not isinstance(exc, DatabaseBusy):
                    # the body cannot be re-run from here: report, never a raw driver error
                    raise self._busy(exc) from exc
                raise
            finally:
                session.close()

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._transaction(self._read, commit=False, retries=True) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        with self._transaction(self._write, commit=True, retries=True) as session:
            yield session

    def _run(self, factory: sessionmaker, fn: Callable[[Session], T], commit: bool) -> T:
        last: BaseException | None = None
        for attempt in range(self.retry.attempts):
            try:
                with self._transaction(factory, commit=commit, retries=False) as session:
                    return fn(session)
            except Exception as exc:  # noqa: BLE001 - re-raised unless transient
                if not is_transient(exc):
                    raise
                last = exc
            if attempt + 1 < self.retry.attempts:
                time.sleep(self.retry.delay(attempt))
        raise self._busy(last)

    def run_write(self, fn: Callable[[Session], T]) -> T:
        """Run ``fn(session)`` in a write transaction and commit; on a transient error roll back
        and run all of ``fn`` again (bounded back-off), then :class:`DatabaseBusy`. ``fn`` must
        be safe to re-run: everything it does goes through the session (domain errors it raises
        pass through at once)."""
        return self._run(self._write, fn, commit=True)

    def run_read(self, fn: Callable[[Session], T]) -> T:
        """:meth:`run_write` for a read-only unit of work."""
        return self._run(self._read, fn, commit=False)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.presence is not None:
            self.presence.release()
            self.presence = None


def register_busy_error(cls: type[DatabaseBusy]) -> None:
    """Let exhausted retries raise ``cls`` (a subclass of :class:`DatabaseBusy`) — the service
    layer registers one that is also its ``ServiceError``, so pages and the CLI show it."""
    if not issubclass(cls, DatabaseBusy):
        raise TypeError(f"{cls!r} is not a DatabaseBusy")
    Database.busy_error = cls


def decode_json_texts(rows: Sequence[Any], columns: Sequence[str]) -> list[list[Any]]:
    """The JSON columns named ``columns`` of ``rows`` — selected as text under those labels, e.g.
    ``cast(Model.col, Text).label("col")`` — decoded in one ``json.loads`` call. Reading 100k
    rows, this is several times faster than the JSON type's value-by-value decoding (which was
    half the time of a large export)."""
    if not rows:
        return []
    return json.loads("[" + ",".join("[" + ",".join(getattr(r, c) for c in columns) + "]" for r in rows) + "]")

