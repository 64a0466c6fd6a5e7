"""Put a backup back in place of the database (``chronocept restore FILE``), safely.

Copying a backup over an SQLite file is not a restore: after a crash the database's ``-wal``
holds committed pages that SQLite replays into whatever file it finds under that name at the
next open — the backup — and the result is "database disk image is malformed". So a restore,
on either database:

1. refuses while an app server or another ``chronocept`` command runs against the database
   (:mod:`db.presence`), and holds it so none starts meanwhile;
2. checks the backup before touching anything: SQLite — copied through the backup API into a
   temporary file beside the database, ``PRAGMA integrity_check`` and ``foreign_key_check``
   clean, an Alembic revision this version knows; PostgreSQL — ``pg_restore --list`` reads it as
   a ``pg_dump -Fc`` archive holding ``alembic_version``;
3. keeps a copy of the current database in the backup folder (SQLite: through the backup API,
   so what its ``-wal`` holds is in it, complete before it has its name; PostgreSQL:
   ``pg_dump -Fc``);
4. puts the backup in place — SQLite: the checked copy renamed over the database file, its
   ``-wal``/``-shm`` removed first so that nothing of the old database is replayed into it, by
   :mod:`db.sqlite_replace`, whose intent marker lets a restore killed at any instruction leave
   the old database or the new one, the next start finishing or undoing it; PostgreSQL: every
   table of the schema dropped and the archive loaded in one transaction, so a failure or a kill
   leaves the database as it was;
5. verifies the result: the same checks again and, table by table, the row counts of the backup.

The schema stays at the backup's revision; the app (or any command) upgrades it at its next
start, backing it up first. Passwords reach ``pg_dump``, ``pg_restore`` and ``psql`` as
``PGPASSWORD``, never on a command line.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from db import sqlite_replace
from db.backup import BackupError, backup_under_stamped_name, copy_sqlite_file, why_failed
from db.config import backup_folder_of
from db.durable import make_folder_durably
from db.presence import held_exclusively
from db.upgrade import migration_scripts

SQLITE_MAGIC = sqlite_replace.SQLITE_MAGIC
PG_MAGIC = b"PGDMP"


class RestoreError(Exception):
    """The restore was refused or failed (one-line reason); what the reason says is kept."""


@dataclass(frozen=True)
class Restored:
    """What a restore did: the backup's schema revision, its rows per table, where the previous
    database was kept (None: there was none)."""

    revision: str
    rows: dict[str, int] = field(default_factory=dict)
    kept_aside: Path | None = None

    def describe(self, source: Path) -> str:
        kept = f"; the previous database is kept at {self.kept_aside}" if self.kept_aside else ""
        return (f"restored {source} ({sum(self.rows.values())} rows in {len(self.rows)} tables, "
                f"schema {self.revision}; checked){kept}")


def _known_revision(revision: str | None, source: Path) -> str:
    from alembic.util import CommandError

    if not revision:
        raise RestoreError(f"{source} is not a Chronocept backup (it has no schema revision)")
    try:
        migration_scripts().get_revision(revision)
    except CommandError:
        raise RestoreError(f"{source} is at schema revision {revision}, which this version of "
                           "Chronocept does not know (was it written by a newer version?)") from None
    return revision


def restore_database(url: str | URL, source: Path, backups: Path | None = None) -> Restored:
    """Restore the database at ``url`` from ``source`` (see the module docstring), keeping the
    current one in ``backups`` (default: where upgrade backups go, :func:`db.config.backup_folder_of`).
    Raises :class:`RestoreError` or :class:`db.presence.DatabaseInUse` (one line)."""
    url = make_url(url) if isinstance(url, str) else url
    source = Path(source)
    if not source.is_file():
        raise RestoreError(f"{source}: no such file")
    backend = url.get_backend_name()
    if backups is None:
        backups = backup_folder_of(url.database if backend == "sqlite" else None)
    if backend == "sqlite":
        return _restore_sqlite(url, source, backups)
    if backend == "postgresql":
        return _restore_postgres(url, source, backups)
    raise RestoreError(f"restore is not supported for {backend}")


# --------------------------------------------------------------------------------------- SQLite


def _sqlite_checked(path: Path, source: Path) -> tuple[str, dict[str, int]]:
    """Integrity, foreign keys, revision and rows per table of the SQLite file at ``path``."""
    con = sqlite3.connect(path)
    try:
        problems = [row[0] for row in con.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            lines = [line for p in problems for line in p.splitlines() if not line.startswith("***")]
            first = lines[0] if lines else "failed"
            raise RestoreError(f"{source} is damaged (integrity check: {first}; {len(lines)} problem(s))")
        if con.execute("PRAGMA foreign_key_check").fetchone() is not None:
            raise RestoreError(f"{source} has rows pointing at missing rows (foreign key check)")
        tables = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        if "alembic_version" not in tables:
            raise RestoreError(f"{source} is not a Chronocept backup (it has no schema revision)")
        revision = _known_revision((con.execute("SELECT version_num FROM alembic_version").fetchone()
                                    or [None])[0], source)
        rows = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in sorted(tables)}
        return revision, rows
    except sqlite3.DatabaseError as exc:
        raise RestoreError(f"{source} is damaged or not a database ({exc})") from None
    finally:
        con.close()


def _copy_sqlite(source: Path, copy: Path) -> None:
    """``source`` into ``copy``, one self-contained file, flushed; ``source`` only read."""
    with source.open("rb") as f:
        if f.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise RestoreError(f"{source} is not an SQLite database (make one with: chronocept backup FILE)")
    try:
        copy_sqlite_file(source, copy, read_only=True)
    except sqlite3.DatabaseError as exc:
        raise RestoreError(f"{source} is damaged or not a database ({exc})") from None


def _restore_sqlite(url: URL, source: Path, backups: Path) -> Restored:
    target = Path(url.database or "").resolve()
    with held_exclusively(url):
        # a restore killed earlier is finished first (a missing database is what a restore mends)
        sqlite_replace.settle(target, refuse_missing=False)
        copy = sqlite_replace.new_copy_path(target)
        try:
            try:
                make_folder_durably(target.parent)
                _copy_sqlite(source, copy)
                if target.exists():  # the restored file is as private as the one it replaces
                    os.chmod(copy, target.stat().st_mode & 0o777)
            except OSError as exc:
                raise RestoreError(f"the backup could not be copied beside the database, in {target.parent} "
                                   f"({why_failed(exc)}); nothing was changed") from None
            revision, rows = _sqlite_checked(copy, source)
            try:
                aside = sqlite_replace.keep_copy(target, backups) if target.exists() else None
            except (OSError, sqlite3.Error) as exc:
                raise RestoreError(f"not restoring without a copy of the current database: it could not "
                                   f"be written to {backups} ({why_failed(exc)}); nothing was changed") from None
        except BaseException:
            sqlite_replace.remove_copy(copy)
            raise
        try:
            sqlite_replace.replace_database_file(target, copy, aside)
        except OSError as exc:
            raise RestoreError(f"the backup could not be put in place ({exc}); the next start of the "
                               "app or of any command finishes the restore") from None
        after_revision, after_rows = _sqlite_checked(target, target)
        if (after_revision, after_rows) != (revision, rows):
            raise RestoreError(f"the restored database differs from {source}; the previous one is "
                               f"kept at {aside}")
        return Restored(revision, rows, aside)


# ----------------------------------------------------------------------------------- PostgreSQL

#: dropped in the restore's transaction before the archive is loaded: the archive recreates
#: what it holds, and a table a later migration added must not survive next to an older schema
_DROP_PUBLIC = """DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') LOOP
    EXECUTE format('DROP %s IF EXISTS public.%I CASCADE',
                   CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                                  WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE'
                                  ELSE 'TABLE' END, r.relname);
  END LOOP;
  FOR r IN SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
           WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') LOOP
    EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', r.typname);
  END LOOP;
END $$;
"""
_COPY_START = re.compile(r'^COPY public\.("?)([^" (]+)\1 .* FROM stdin;$')


def _pg_tools() -> tuple[str, str]:
    found = [shutil.which(name) for name in ("pg_restore", "psql")]
    if None in found:
        raise RestoreError("pg_restore and psql are needed; install the PostgreSQL client tools")
    return found[0], found[1]  # type: ignore[return-value]


def _pg_env_and_target(url: URL) -> tuple[dict[str, str], str]:
    """The tools' environment (``PGPASSWORD``) and the URL without its password for argv."""
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    bare = URL.create("postgresql", username=url.username, host=url.host, port=url.port,
                      database=url.database, query=url.query)
    return env, bare.render_as_string(hide_password=False)


def _last_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return re.sub(r"^pg_restore: (error: )?", "", lines[-1]) if lines else "no message"


def _check_archive(pg_restore: str, source: Path) -> None:
    with source.open("rb") as f:
        if f.read(len(PG_MAGIC)) != PG_MAGIC:
            raise RestoreError(f"{source} is not a pg_dump custom-format archive "
                               "(make one with: chronocept backup FILE)")
    listed = subprocess.run([pg_restore, "--list", str(source)], capture_output=True, text=True)
    if listed.returncode != 0:
        raise RestoreError(f"{source} cannot be read by pg_restore: {_last_line(listed.stderr)}")
    if not re.search(r"TABLE DATA public alembic_version ", listed.stdout):
        raise RestoreError(f"{source} is not a Chronocept backup (it has no schema revision)")


def _load_archive(pg_restore: str, psql: str, source: Path, env: dict[str, str], target: str) -> dict[str, int]:
    """Drop the schema's tables and load the archive in one psql transaction; the archive's rows
    per table, counted as they stream by.

    The transaction is written out here rather than with ``--single-transaction``: psql commits
    at the end of its input, and an archive whose data is cut short (its table of contents
    intact, so ``--list`` passed) ends pg_restore's output early — that must roll back."""
    rows: dict[str, int] = {}
    with tempfile.TemporaryFile("w+") as restore_err, tempfile.TemporaryFile("w+") as psql_err:
        dump = subprocess.Popen([pg_restore, "--no-owner", "--no-privileges", "--file", "-", str(source)],
                                stdout=subprocess.PIPE, stderr=restore_err, env=env, text=True)
        load = subprocess.Popen([psql, "--no-psqlrc", "--quiet", "--set", "ON_ERROR_STOP=1",
                                 "--dbname", target],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=psql_err,
                                env=env, text=True)
        table = None
        try:
            load.stdin.write("BEGIN;\n" + _DROP_PUBLIC)
            for line in dump.stdout:
                if table is not None:
                    if line == "\\.\n":
                        table = None
                    else:
                        rows[table] += 1
                else:
                    match = _COPY_START.match(line.rstrip("\n"))
                    if match:
                        table = match.group(2)
                        rows[table] = 0
                load.stdin.write(line)
            if dump.wait() == 0:
                load.stdin.write("COMMIT;\n")
                load.stdin.close()
            else:  # cut short, perhaps inside a COPY: end psql, and its session rolls back
                load.kill()
                load.wait()
                load.stdin.close()
        except BrokenPipeError:
            pass  # psql stopped at an error (and rolled back): its message says which
        dump.stdout.close()
        dump_rc, load_rc = dump.wait(), load.wait()
        if dump_rc != 0 or load_rc != 0:
            restore_err.seek(0)
            psql_err.seek(0)
            why = _last_line(restore_err.read()) if dump_rc != 0 else _last_line(psql_err.read())
            raise RestoreError(f"the restore failed and was rolled back, the database is unchanged: {why}")
    return rows


def _pg_contents(url: URL, source: Path) -> tuple[str, dict[str, int]]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            tables = conn.execute(text(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars().all()
            revision = conn.scalar(text("SELECT version_num FROM alembic_version")) \
                if "alembic_version" in tables else None
            rows = {t: conn.scalar(text(f'SELECT count(*) FROM public."{t}"')) for t in sorted(tables)}
    finally:
        engine.dispose()
    return _known_revision(revision, source), rows


def _restore_postgres(url: URL, source: Path, backups: Path) -> Restored:
    pg_restore, psql = _pg_tools()
    _check_archive(pg_restore, source)
    env, target = _pg_env_and_target(url)
    with held_exclusively(url):
        try:
            aside = backup_under_stamped_name(create_engine(url, poolclass=NullPool), backups, "before-restore")
        except BackupError as exc:
            raise RestoreError(f"not restoring without a copy of the current database: {exc}") from None
        expected = _load_archive(pg_restore, psql, source, env, target)
        revision, rows = _pg_contents(url, source)
        if any(rows.get(t) != n for t, n in expected.items()) or set(rows) != set(expected):
            raise RestoreError(f"the restored database differs from {source}; the previous one is "
                               f"kept at {aside}")
        return Restored(revision, rows, aside)
