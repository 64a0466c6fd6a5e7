"""The PostgreSQL schema-upgrade lock, from a test's side: hold it, and count who waits for it.

Tests of app servers starting together hold :data:`db.upgrade.PG_UPGRADE_LOCK` while the servers
open the database, so that every server's upgrade is under way — waiting for the lock — before
any of them may go on: their upgrades then really happen at the same moment, on every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from db.upgrade import PG_UPGRADE_LOCK


def waiting_for_upgrade_lock(conn: sa.Connection) -> int:
    """Sessions of this database waiting for the upgrade lock (a bigint advisory lock shows in
    ``pg_locks`` as classid = its high 32 bits, objid = its low 32 bits, objsubid = 1)."""
    return conn.scalar(sa.text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND classid::bigint = :hi AND objid::bigint = :lo AND objsubid = 1"),
        {"hi": PG_UPGRADE_LOCK >> 32, "lo": PG_UPGRADE_LOCK & 0xFFFF_FFFF})


@contextmanager
def upgrade_lock_held(url: str) -> Iterator[Callable[..., None]]:
    """Hold the upgrade lock of the database at ``url`` (a session lock on a connection of its
    own) for the block; yields ``wait_for(n, timeout=60, alive=None)``, which returns once ``n``
    sessions wait for the lock (``alive()`` may raise meanwhile, e.g. when a process died)."""
    engine = sa.create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": PG_UPGRADE_LOCK})

            def wait_for(n: int, timeout: float = 60.0, alive: Callable[[], None] | None = None) -> None:
                deadline = time.monotonic() + timeout
                while (waiting := waiting_for_upgrade_lock(conn)) < n:
                    if alive is not None:
                        alive()
                    assert time.monotonic() < deadline, (
                        f"{waiting} of {n} never all waited for the upgrade lock in {timeout:.0f} s")
                    time.sleep(0.05)

            yield wait_for
            # the session ends with the connection, and its lock with it
    finally:
        engine.dispose()
