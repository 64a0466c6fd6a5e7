"""Consistent online backups of the database."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import URL


class BackupError(Exception):
    """The backup could not be written (one-line reason)."""


def backup_database(engine: Engine, target: Path) -> None:
    """Write a consistent copy of the database to ``target`` (atomic: temp file, then rename).

    SQLite: the online backup API (consistent while the app keeps writing). PostgreSQL:
    ``pg_dump --format=custom`` (restore with ``pg_restore``); the URL's password reaches
    pg_dump as ``PGPASSWORD`` in its environment, not on its command line.
    """
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    url = engine.url
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".backup-", delete=False) as tmp:
        tmp_path = Path(tmp.name)
    try:
        if url.get_backend_name() == "sqlite":
            src = sqlite3.connect(url.database)
            dst = sqlite3.connect(tmp_path)
            try:
                src.backup(dst)
                # one self-contained file: opening the copy must not need (or create) -wal/-shm
                dst.execute("PRAGMA journal_mode=DELETE")
            finally:
                dst.close()
                src.close()
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
        else:
            raise BackupError(f"backup is not supported for {url.get_backend_name()}")
        tmp_path.replace(target)
    finally:
        tmp_path.unlink(missing_ok=True)
