"""Alembic environment: runs on the connection handed over by db.upgrade.upgrade_schema, or on
CHRONOCEPT_DATABASE_URL when invoked as `alembic` from the command line.

On SQLite a migration must run with foreign keys off (batch mode rebuilds tables, and dropping
the old table with foreign keys on cascades into every child row), inside one transaction that
ends with ``PRAGMA foreign_key_check``: db.upgrade.migration_transaction sets that up, and a
SQLite connection with foreign keys on is refused here.
"""

from alembic import context

from db.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    from db.engine import make_engine
    from db.upgrade import migration_transaction

    engine = make_engine()
    try:
        with migration_transaction(engine) as conn:
            _run(conn)
    finally:
        engine.dispose()


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    is_sqlite = connection.dialect.name == "sqlite"
    if is_sqlite and connection.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError(
            "SQLite migrations must run with foreign keys off (a table rebuild would cascade "
            "into its child rows): use db.upgrade.upgrade_schema or migration_transaction")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=is_sqlite,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
