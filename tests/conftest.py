"""Shared fixtures: a fresh database per test on SQLite and on the real PostgreSQL server.

PostgreSQL comes from CHRONOCEPT_TEST_POSTGRES_URL (default: the server at 127.0.0.1:5432,
user postgres, trust auth). Each test gets its own database, dropped afterwards. The Postgres
variants fail — they are not skipped — when the server is unreachable, unless
CHRONOCEPT_SKIP_POSTGRES=1 is set on a machine without one.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from annotation.services import accounts
from annotation.services.authz import Actor
from db.engine import Database

REPO_ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get(
    "CHRONOCEPT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _pg_database(name: str) -> str:
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    return f"{base}/{name}"


@pytest.fixture
def postgres_url():
    """A fresh, empty PostgreSQL database for one test; dropped afterwards."""
    if os.environ.get("CHRONOCEPT_SKIP_POSTGRES") == "1":
        pytest.skip("CHRONOCEPT_SKIP_POSTGRES=1")
    name = f"chronocept_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield _pg_database(name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path) -> Database:
    """A migrated, empty database: once on SQLite, once on PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'test.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    database = Database.connect(url)
    yield database
    database.dispose()


@pytest.fixture
def sqlite_db(tmp_path) -> Database:
    database = Database.connect(f"sqlite:///{tmp_path / 'test.db'}")
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
