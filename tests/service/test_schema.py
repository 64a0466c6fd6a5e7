"""Migrations: fresh databases get the whole schema, re-running is harmless, and the Alembic
history matches the ORM models (no change left un-migrated)."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from db import config as app_config
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


def test_upgrade_from_0002_keeps_existing_rows(tmp_path, request, monkeypatch):
    """A database created before the review tables gets them without losing or breaking rows."""
    monkeypatch.setenv("CHRONOCEPT_BACKUP_DIR", str(tmp_path / "backups"))
    app_config.load()  # read again, as a restarted process would
    from sqlalchemy import text

    from db.engine import make_engine

    for url in (f"sqlite:///{tmp_path / 'old.db'}", request.getfixturevalue("postgres_url")):
        engine = make_engine(url)
        upgrade_schema(engine, target="0002")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO projects (id, name, description, settings, created_at) "
                              "VALUES (1, 'P', '', '{}', CURRENT_TIMESTAMP)"))
            conn.execute(text("INSERT INTO samples (project_id, external_id, benchmark, parent_text, "
                              "n_tokens, status, n_assigned, source, created_at) VALUES "
                              "(1, 'S-1', 1, 'A text.', 3, 'active', 0, '', CURRENT_TIMESTAMP)"))
            conn.execute(text("INSERT INTO users (id, username, display_name, password_hash, role, "
                              "is_active, created_at, password_changed_at) VALUES "
                              "(1, 'a', 'a', 'x', 'annotator', true, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
            for sid, (xi, status) in enumerate([(50.0, "submitted"), (70.0, "submitted"), (90.0, "draft")], 1):
                conn.execute(text(
                    "INSERT INTO samples (id, project_id, external_id, benchmark, parent_text, n_tokens, "
                    "status, n_assigned, source, created_at) VALUES "
                    f"({sid + 1}, 1, 'T-{sid}', 1, 'Another text.', 3, 'active', 1, '', CURRENT_TIMESTAMP)"))
                conn.execute(text(
                    "INSERT INTO annotations (sample_id, annotator_id, status, version, step, boundaries, "
                    "segment_axes, points, xi, omega, alpha, params_source, flags, note, "
                    "guidelines_version, seconds_spent, created_at, updated_at) VALUES "
                    f"({sid + 1}, 1, '{status}', 1, 2, '[0]', '[\"main\"]', '[]', {xi}, 10.0, 1.0, "
                    "'fit', '[]', '', '1.0', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
        upgrade_schema(engine)
        with engine.connect() as conn:
            stats = conn.execute(text("SELECT n, sum_xi, sumsq_xi, sum_alpha FROM parameter_stats")).one()
            assert tuple(stats) == (2, 120.0, 50.0**2 + 70.0**2, 2.0)  # the draft is not counted
            assert conn.execute(text("SELECT external_id, is_warmup FROM samples WHERE id = 1")).all() == [("S-1", False)]
            assert conn.execute(text("SELECT count(*) FROM review_items")).scalar() == 0
        engine.dispose()
