"""Shared fixtures: a fresh database per test on SQLite and on the real PostgreSQL server.

PostgreSQL comes from CHRONOCEPT_TEST_POSTGRES_URL (default: the server at 127.0.0.1:5432,
user postgres, trust auth). Each test gets its own database, dropped afterwards. The Postgres
variants fail — they are not skipped — when the server is unreachable, unless
CHRONOCEPT_SKIP_POSTGRES=1 is set on a machine without one.
"""

from __future__ import annotations

import os

# One OpenMP / BLAS thread per test process, set before numpy, scipy or scikit-learn load their
# thread pools: the suite already runs one process per core, and a pool of one thread per core
# in each busy-waits at every barrier for threads the other processes hold the cores for (on 2
# busy cores the calibration test's gradient boosting took 120 s of CPU, not 5). The servers
# and workers the tests start inherit it. Set a variable beforehand to choose otherwise.
for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from annotation.services.accounts import accounts
from annotation.services.authz import Actor
from db import config as app_config
from db.engine import Database

REPO_ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get(
    "CHRONOCEPT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def settings_read_afresh():
    """Each test starts as a new process would: the deployment's settings (db.config) are read
    from the environment at their first use in the test (a test that changes a variable after
    that first use loads them again, as a restarted server would)."""
    app_config.reset()
    yield
    app_config.reset()


def _pg_database(name: str) -> str:
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    return f"{base}/{name}"


def _create_pg_database(admin, name: str, template: str | None = None) -> None:
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))


def _drop_pg_database(admin, name: str) -> None:
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def postgres_url():
    """A fresh, empty PostgreSQL database for one test; dropped afterwards."""
    if os.environ.get("CHRONOCEPT_SKIP_POSTGRES") == "1":
        pytest.skip("CHRONOCEPT_SKIP_POSTGRES=1")
    name = f"chronocept_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    _create_pg_database(admin, name)
    try:
        yield _pg_database(name)
    finally:
        _drop_pg_database(admin, name)
        admin.dispose()


# Migrated templates, one per test process: a test's database is a copy of one (SQLite: the
# file; PostgreSQL: CREATE DATABASE … TEMPLATE), not a walk through every migration (~0.1 s
# SQLite, ~0.2 s PostgreSQL, for ~1,100 tests). The migrations themselves are walked by
# tests/service/test_migrations.py.

@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A migrated, empty SQLite database file to copy (its WAL folded in)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    Database.connect(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def migrated_sqlite_url(template: Path, folder: Path, name: str = "test.db") -> str:
    """A copy of the migrated template as ``folder/name``; its URL."""
    target = folder / name
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def postgres_template():
    """A migrated, empty PostgreSQL database of this test process, to copy; dropped at the end."""
    name = f"chronocept_template_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    _create_pg_database(admin, name)
    Database.connect(_pg_database(name)).dispose()
    try:
        yield name
    finally:
        _drop_pg_database(admin, name)
        admin.dispose()


@pytest.fixture
def migrated_postgres_url(request):
    """A fresh PostgreSQL database at the newest schema (a copy of the template); dropped afterwards."""
    if os.environ.get("CHRONOCEPT_SKIP_POSTGRES") == "1":
        pytest.skip("CHRONOCEPT_SKIP_POSTGRES=1")
    template = request.getfixturevalue("postgres_template")
    name = f"chronocept_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    _create_pg_database(admin, name, template)
    try:
        yield _pg_database(name)
    finally:
        _drop_pg_database(admin, name)
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path) -> Database:
    """A migrated, empty database: once on SQLite, once on PostgreSQL."""
    if request.param == "sqlite":
        url = migrated_sqlite_url(request.getfixturevalue("sqlite_template"), tmp_path)
    else:
        url = request.getfixturevalue("migrated_postgres_url")
    database = Database.connect(url)
    yield database
    database.dispose()


@pytest.fixture
def sqlite_db(tmp_path, sqlite_template) -> Database:
    database = Database.connect(migrated_sqlite_url(sqlite_template, tmp_path))
    yield database
    database.dispose()


@pytest.fixture
def admin(db) -> Actor:
    return accounts.create_first_admin(db, "admin", "admin-password")


@pytest.fixture
def make_user(db, admin):
    """Factory: create a user with a role and return them signed in (password: NAME-password)."""

    def _make(username: str, role: str = "annotator") -> Actor:
        accounts.create_user(db, admin, username, f"{username}-password", role)
        return accounts.authenticate(db, username, f"{username}-password")

    return _make
