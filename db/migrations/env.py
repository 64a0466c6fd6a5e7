"""Alembic environment: runs on the connection handed over by db.engine.upgrade_schema,
or on CHRONOCEPT_DATABASE_URL when invoked as `alembic` from the command line."""

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

    engine = make_engine()
    with engine.begin() as conn:
        _run(conn)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
