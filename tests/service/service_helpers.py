"""Plain helpers shared by the service tests (fixtures are in conftest.py)."""

from __future__ import annotations

import contextlib
import io

import pytest
from sqlalchemy import event, func, select

import cli

from annotation.content import AnnotationContent
from annotation.services.workbench import queue
from annotation.corpus.text_import import TextRecord
from db.engine import ENV_VAR
from db.models import GoldAnnotation, ReviewItem
import workbench_writes

#: Five points of a single-peaked curve (the example of SPEC section 11).
GOOD_POINTS: tuple[tuple[float, float], ...] = (
    (27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2),
)


def complete_content(points=GOOD_POINTS, **overrides) -> AnnotationContent:
    """An unflagged, complete annotation of a text: one segment labelled Main, five points."""
    values = dict(boundaries=(0,), segment_axes=("main",), points=tuple(points))
    values.update(overrides)
    return AnnotationContent(**values)


def text_records(n: int, prefix: str = "S") -> list[TextRecord]:
    """``n`` distinct single-sentence texts with ids ``<prefix>-000``…"""
    return [
        TextRecord(f"Sample number {i} says the shop on street {i} is closed this week.", 1,
                   f"{prefix}-{i:03d}", i + 1)
        for i in range(n)
    ]


def count(db, model, *where) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model).where(*where)) or 0


def statements_of(db, call) -> list[str]:
    """The SQL statements ``call()`` sends (BEGIN/COMMIT/ROLLBACK not counted): each is a round
    trip on PostgreSQL, so tests bound their number on the hot paths."""
    seen: list[str] = []

    def count_statement(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", count_statement)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", count_statement)
    return seen


def annotate(db, user, pid, **content):
    """``user`` takes their next sample and submits a complete annotation of it (``content``
    overrides :func:`complete_content`'s fields); returns the work item."""
    item = queue.next_item(db, user, pid)
    workbench_writes.submit(db, user, item.annotation_id, item.version, complete_content(**content))
    return item


def gold_rows(db) -> list[GoldAnnotation]:
    with db.read() as s:
        return list(s.scalars(select(GoldAnnotation)))


def open_items(db) -> list[ReviewItem]:
    with db.read() as s:
        return list(s.scalars(select(ReviewItem).where(ReviewItem.status == "open")))


def run_cli(db, *args: str) -> tuple[int, str, str]:
    """``chronocept ARGS`` on ``db`` (a Database, or the URL of a database), through
    :func:`cli.main` in this process (exit status, standard output, standard error); the database
    variable is set for the call only."""
    url = db if isinstance(db, str) else db.engine.url.render_as_string(hide_password=False)
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as env, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        env.setenv(ENV_VAR, url)
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def backup_replaced_only_with_overwrite(db, target) -> tuple[tuple[int, str, str], bytes]:  # type: ignore[no-untyped-def]
    """``chronocept backup TARGET`` on ``db`` writes it; after a new user joins, a second backup
    to the same file is refused in one line and leaves it as it was; returns what ``backup
    TARGET --overwrite`` then gives (exit status, stdout, stderr) and the first backup's bytes."""
    from annotation.services.accounts import accounts

    assert run_cli(db, "backup", str(target)) == (0, f"backup written to {target}\n", "")
    first = target.read_bytes()
    accounts.create_user(db, accounts.actor_for_script(db), "latecomer", "password-123", "annotator")
    assert run_cli(db, "backup", str(target)) == (
        1, "", f"chronocept: {target} already exists; add --overwrite to replace it\n")
    assert target.read_bytes() == first
    return run_cli(db, "backup", str(target), "--overwrite"), first
