"""Schema upgrades that keep every row, with a backup of an existing database first.

SQLite cannot alter most of a table in place, so Alembic's batch mode rebuilds it: create a new
table, copy the rows, drop the old one, rename. With ``PRAGMA foreign_keys=ON`` the drop deletes
every child row through ``ON DELETE CASCADE`` (an upgrade to 0003 once emptied
``annotations`` and ``assignments`` that way). So on SQLite every upgrade runs

1. with foreign keys turned off on the connection *before* its transaction begins (the pragma is
   a no-op inside a transaction),
2. in one ``BEGIN IMMEDIATE`` transaction (all revisions or none),
3. followed by ``PRAGMA foreign_key_check`` before the commit: any row left pointing at a missing
   row aborts the upgrade and rolls everything back,

and foreign keys are turned back on for that pooled connection afterwards. On PostgreSQL the
upgrade is one transaction too (DDL is transactional there), serialised between app servers by
an advisory lock (:data:`PG_UPGRADE_LOCK`): several servers starting at once on one database
take it in turn, and each reads the revision again once it holds the lock, so one upgrades (and
backs up) and the others find the schema already at the target. Without the lock two of them
would both create ``alembic_version`` (a unique violation on ``pg_type``), deadlock on the same
tables, or both back up the database (``tests/service/test_simultaneous_upgrade.py``).

Before an existing database (one with an ``alembic_version`` older than the target) is upgraded,
it is backed up: SQLite with the online backup API into ``<database folder>/backups/``,
PostgreSQL with ``pg_dump --format=custom`` into ``CHRONOCEPT_BACKUP_DIR`` (default
``./data/backups``; the variable applies to SQLite too when set). Without ``pg_dump`` the upgrade
is refused unless ``CHRONOCEPT_UPGRADE_WITHOUT_BACKUP=1`` is set. A fresh, empty database and a
database already at the target are never backed up.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from sqlalchemy import Connection, Engine, text

from db.backup import BackupError, backup_under_stamped_name, remove_abandoned_backups
from db.config import NO_BACKUP_ENV, backup_folder_of, config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: One constant key for pg_advisory_xact_lock: app servers (and commands) starting together on
#: one PostgreSQL database upgrade it one at a time; the others wait, then find it at the target.
PG_UPGRADE_LOCK = 0x43_68_72_6F_6E_6F  # "Chrono"


class SchemaUpgradeError(Exception):
    """The schema could not be upgraded; nothing was changed (one-line reason)."""


@dataclass(frozen=True)
class SchemaUpgrade:
    """What an upgrade did: revisions before and after, and where the backup went."""

    from_revision: str | None  # None: the database was empty
    to_revision: str
    backup_path: Path | None = None
    backup_skipped: str | None = None  # why there is no backup although one was due (opt-out)

    @property
    def upgraded(self) -> bool:
        return self.from_revision != self.to_revision

    def describe(self) -> str | None:
        """One line for the user about an upgrade of an existing database, or None."""
        if not self.upgraded or self.from_revision is None:
            return None
        line = f"database upgraded from schema {self.from_revision} to {self.to_revision}"
        if self.backup_path is not None:
            return f"{line}; backup of the old database: {self.backup_path}"
        return f"{line}; no backup was taken ({self.backup_skipped or 'not requested'})"


def alembic_config():  # type: ignore[no-untyped-def]
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


@lru_cache(maxsize=1)
def migration_scripts():  # type: ignore[no-untyped-def]
    """The migrations (Alembic's ScriptDirectory), read once per process: reading them was most
    of an up-to-date start's own time (and of a restore's checks), and they do not change while
    a process runs."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


@contextmanager
def migration_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection inside the one transaction an upgrade runs in (see the module docstring).

    Commits when the block ends without error and, on SQLite, ``PRAGMA foreign_key_check``
    finds nothing; otherwise rolls back and raises.
    """
    with engine.connect() as conn:
        if conn.dialect.name != "sqlite":
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_UPGRADE_LOCK})
                yield conn
            return
        raw = conn.connection.driver_connection
        if raw.in_transaction:  # pragma: no cover - a fresh checkout is never inside one
            raise SchemaUpgradeError("cannot upgrade: the SQLite connection is already in a transaction")
        raw.execute("PRAGMA foreign_keys=OFF")
        try:
            if raw.execute("PRAGMA foreign_keys").fetchone()[0] != 0:
                raise SchemaUpgradeError("cannot upgrade: SQLite refused to turn foreign keys off")
            with conn.execution_options(sqlite_begin="IMMEDIATE").begin():
                if not raw.in_transaction:
                    # an engine without db.engine's begin listener: issue the BEGIN ourselves
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                _refuse_broken_references(conn, "the database already has")
                yield conn
                _refuse_broken_references(conn, "the upgrade would leave")
        finally:
            try:
                raw.execute("PRAGMA foreign_keys=ON")
                restored = raw.execute("PRAGMA foreign_keys").fetchone()[0] == 1
            except Exception:  # noqa: BLE001 - the connection is unusable; drop it below
                restored = False
            if not restored:
                conn.invalidate()  # never hand a connection without foreign keys back to the pool


def _refuse_broken_references(conn: Connection, what: str) -> None:
    violations = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
    if violations:
        table, rowid, parent = violations[0][:3]
        raise SchemaUpgradeError(
            f"{what} {len(violations)} row(s) pointing at missing rows (first: {table} row {rowid} "
            f"-> {parent}); the upgrade was rolled back and nothing was changed")


def upgrade_schema(engine: Engine, target: str = "head", *, backup: bool = True) -> SchemaUpgrade:
    """Upgrade the schema to ``target`` (default: the newest revision), keeping every row.

    Backs an existing, older database up first (unless ``backup`` is False) and returns what
    it did. Raises :class:`SchemaUpgradeError` with a one-line reason, nothing changed, when the
    upgrade or the backup it needs fails.
    """
    from alembic import command
    from alembic.migration import MigrationContext
    from alembic.util import CommandError

    cfg = alembic_config()
    script = migration_scripts()
    try:
        wanted = script.get_current_head() if target == "head" else script.get_revision(target).revision
    except CommandError as exc:
        raise SchemaUpgradeError(f"unknown schema revision {target!r}: {exc}") from None
    # an SQLite file was settled when its engine was made (db.engine.make_engine)
    with engine.connect() as conn:  # the usual start-up: already at the target, nothing to lock
        current = MigrationContext.configure(conn).get_current_revision()
    # a backup killed at an earlier start left its temporary file: gone once its writer is
    remove_abandoned_backups(backup_folder(engine))
    if current == wanted:
        return SchemaUpgrade(current, wanted)
    try:
        with migration_transaction(engine) as conn:
            # read again under the lock: another app server may have upgraded meanwhile
            current = MigrationContext.configure(conn).get_current_revision()
            if current == wanted:
                return SchemaUpgrade(current, wanted)
            if current is not None:
                try:
                    script.get_revision(current)
                except CommandError:
                    raise SchemaUpgradeError(
                        f"the database is at schema revision {current}, which this version of "
                        "Chronocept does not know (was it written by a newer version?)") from None
            backup_path, skipped = None, None
            if current is not None and backup:
                backup_path, skipped = _backup_before_upgrade(engine, current, wanted)
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, wanted)
    except SchemaUpgradeError:
        raise
    except CommandError as exc:
        raise SchemaUpgradeError(f"schema upgrade failed: {exc}") from None
    return SchemaUpgrade(current, wanted, backup_path, skipped)


def backup_folder(engine: Engine) -> Path:
    """Where upgrade backups go: ``CHRONOCEPT_BACKUP_DIR`` when set; otherwise next to a SQLite
    file (``<folder>/backups``) or ``./data/backups`` for PostgreSQL."""
    return backup_folder_of(engine.url.database if engine.dialect.name == "sqlite" else None)


def _backup_before_upgrade(engine: Engine, current: str, wanted: str) -> tuple[Path | None, str | None]:
    """Back the database up; (path, None), or (None, reason) when the opt-out lets the upgrade
    go on without one."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and (not url.database or url.database == ":memory:"):
        return None, "an in-memory database cannot be backed up"
    try:
        target = backup_under_stamped_name(engine, backup_folder(engine), f"before-{current}-to-{wanted}")
    except (BackupError, OSError) as exc:
        reason = str(exc) if isinstance(exc, BackupError) else f"{type(exc).__name__}: {exc}"
        if config().upgrade_without_backup:
            return None, reason
        raise SchemaUpgradeError(
            f"not upgrading the database from schema {current} to {wanted} without a backup: "
            f"{reason} (set {NO_BACKUP_ENV}=1 to upgrade without one)") from None
    return target, None
