"""Several app servers starting at the same moment on one PostgreSQL database all upgrade it.

Each process below does what an app server (and every ``chronocept`` command) does when it opens
the database: announce itself (:mod:`db.presence`) and upgrade the schema
(``Database.connect_upgraded``). To be sure that their upgrades really are in flight at the same
moment, the test holds the upgrade lock (:data:`db.upgrade.PG_UPGRADE_LOCK`) itself until every
process waits on it, then lets go: they are released together. Every one must succeed, exactly
one upgrades (and, for an older database, backs it up), the others find the schema at head.

Without the lock the same start fails: two processes both create ``alembic_version`` (a unique
violation on ``pg_type``), deadlock on the same tables, or both back the database up — into the
same file name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

from db.engine import make_engine, upgrade_schema
from db.upgrade import alembic_config
from tests.upgrade_lock import upgrade_lock_held

pytestmark = pytest.mark.postgres

REPO_ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 3

#: one app server's start, as far as the database goes; prints what its upgrade did
CHILD = """
import json, sys
from db.engine import Database
db, done = Database.connect_upgraded(sys.argv[1], announce=True)
print(json.dumps({"from": done.from_revision, "to": done.to_revision,
                  "backup": None if done.backup_path is None else str(done.backup_path)}))
db.dispose()
"""


def _head() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _start_together(url: str, backup_dir: Path) -> list[dict]:
    """Start :data:`PROCESSES` app-server starts on ``url`` while this test holds the upgrade
    lock; once all of them wait for it, let go; return what each one's upgrade did."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "CHRONOCEPT_BACKUP_DIR": str(backup_dir)}
    env.pop("CHRONOCEPT_UPGRADE_WITHOUT_BACKUP", None)
    children: list[subprocess.Popen] = []

    def alive() -> None:
        ended = [c for c in children if c.poll() is not None]
        assert not ended, f"a process ended before waiting for the lock:\n{ended[0].stderr.read()[-3000:]}"

    try:
        with upgrade_lock_held(url) as wait_for:
            children = [subprocess.Popen([sys.executable, "-c", CHILD, url], cwd=REPO_ROOT, env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                        for _ in range(PROCESSES)]
            wait_for(PROCESSES, alive=alive)
        results = []  # the lock is let go: all of them go on at once
        for child in children:
            out, err = child.communicate(timeout=120)
            assert child.returncode == 0, f"an app server's start failed:\n{err[-3000:]}"
            results.append(json.loads(out.strip().splitlines()[-1]))
        return results
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


def _versions(url: str) -> list[str]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return list(conn.scalars(sa.text("SELECT version_num FROM alembic_version")))
    finally:
        engine.dispose()


def test_servers_starting_together_on_a_fresh_database_all_start(postgres_url, tmp_path):
    head = _head()
    results = _start_together(postgres_url, tmp_path / "backups")
    created = [r for r in results if r["from"] is None]
    assert len(created) == 1, results  # one created the schema ...
    assert all(r["from"] == head and r["to"] == head for r in results if r is not created[0]), results
    assert created[0]["to"] == head  # ... the others waited and found it done
    assert _versions(postgres_url) == [head]
    assert all(r["backup"] is None for r in results)  # a fresh database is never backed up
    assert not (tmp_path / "backups").exists() or not any((tmp_path / "backups").iterdir())


def test_servers_starting_together_on_an_older_database_back_it_up_once(postgres_url, tmp_path):
    head = _head()
    engine = make_engine(postgres_url)
    upgrade_schema(engine, target="0001")
    engine.dispose()
    backups = tmp_path / "backups"
    results = _start_together(postgres_url, backups)
    upgraded = [r for r in results if r["from"] == "0001"]
    assert len(upgraded) == 1, results
    assert all(r["from"] == head and r["backup"] is None for r in results if r is not upgraded[0]), results
    assert _versions(postgres_url) == [head]
    files = sorted(p.name for p in backups.iterdir())
    assert len(files) == 1 and Path(upgraded[0]["backup"]).name == files[0], files
    assert files[0].endswith(f"-before-0001-to-{head}.dump")
