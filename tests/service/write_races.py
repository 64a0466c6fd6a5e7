"""Two writers interleaved at the worst moment, with no thread and no sleep.

:func:`before_the_write_locks` runs another writer's whole unit of work (on a second
:class:`~db.engine.Database`: another app server, or a job's worker) at the last moment one
database handle's next write can still be overtaken:

* SQLite: just before that write's ``BEGIN IMMEDIATE`` (as :meth:`Database.write` opens) — the
  write lock is taken there and held to the end, so nothing can come between what the write
  reads and what it writes;
* PostgreSQL: just before that write's first statement that takes a row lock (``UPDATE``,
  ``DELETE``, ``INSERT``, ``SELECT … FOR UPDATE``) — a plain ``SELECT`` earlier in the same
  transaction locks nothing, and under READ COMMITTED what it read may be changed and committed
  by another transaction before the ``UPDATE`` that relies on it.

A check-then-write is correct only if it survives both.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from sqlalchemy import event

from db.engine import Database, make_engine

#: statements that take a row lock on PostgreSQL (their first word), besides SELECT … FOR UPDATE
_LOCKING = ("UPDATE", "DELETE", "INSERT")


def second_handle(db: Database) -> Database:
    """Another handle on ``db``'s database, with its own connections (dispose it after)."""
    return Database(make_engine(db.engine.url.render_as_string(hide_password=False)))


@contextmanager
def before_the_write_locks(db: Database, other_writer: Callable[[], object]) -> Iterator[list[bool]]:
    """Within the block, run ``other_writer()`` once, at the moment described in the module
    docstring of ``db``'s first write that comes. Yields a list that holds True once it ran."""
    ran: list[bool] = []

    def run_once() -> None:
        if not ran:
            ran.append(True)
            other_writer()

    if db.is_sqlite:
        # db.write() takes the write lock as it opens (BEGIN IMMEDIATE): run the other first
        real_write = db.write

        @contextmanager
        def write_after_the_other() -> Iterator[object]:
            run_once()
            with real_write() as session:
                yield session

        db.write = write_after_the_other  # type: ignore[method-assign]
        try:
            yield ran
        finally:
            del db.write  # the method again
        return

    def before_statement(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        text = statement.lstrip().upper()
        if text.startswith(_LOCKING) or "FOR UPDATE" in text:
            run_once()

    event.listen(db.engine, "before_cursor_execute", before_statement)
    try:
        yield ran
    finally:
        event.remove(db.engine, "before_cursor_execute", before_statement)
