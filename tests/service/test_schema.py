"""Migrations: fresh databases get the whole schema, re-running is harmless, and the Alembic
history matches the ORM models (no change left un-migrated)."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from db.engine import Database, upgrade_schema
from db.models import Base


def test_schema_matches_models_and_upgrade_is_idempotent(db):
    upgrade_schema(db.engine)  # a second upgrade changes nothing
    tables = set(inspect(db.engine).get_table_names())
    assert set(Base.metadata.tables) <= tables
    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": False}),
                                Base.metadata)
    assert diff == []


def test_sqlite_runs_in_wal_with_foreign_keys(sqlite_db: Database):
    with sqlite_db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
