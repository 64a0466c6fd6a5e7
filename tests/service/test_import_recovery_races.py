"""Two processes recovering one dead import, driven step by step in the racy order (no sleeps):
the late one never touches the next import's rows, and an import rolled back under a live writer
says so and leaves nothing — on SQLite and PostgreSQL, each process with its own Database.

Every recovery reads the dead imports first and acts on them in later transactions. B and C both
find import X dead; B rolls X back (or finishes it) and imports again (batch Y, being written);
C acts on X between two of Y's batches.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.corpus.text_import import TextRecord
from annotation.services.corpus import text_imports
from annotation.services.errors import InvalidInput
from db.engine import Database
from db.models import ImportBatch, Sample
from service_helpers import count


class Killed(BaseException):
    """The recovering process dies here (raised where a kill would stop it)."""


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 50)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)


@pytest.fixture
def other_process(db):
    """A second handle on the database, as another process (C) holds one."""
    other = Database.connect(db.engine.url.render_as_string(hide_password=False))
    yield other
    other.dispose()


def _records(prefix: str, n: int = 120) -> list[TextRecord]:  # three hidden batches: 50, 50, 20
    return [TextRecord(f"Import {prefix}{i}: the ferry to island {i} runs every hour.", 1, None, i + 1)
            for i in range(n)]


def _visible(db, pid: int) -> int:
    return count(db, Sample, Sample.project_id == pid, Sample.status == "active")


def _open_batch(db, pid: int) -> int:
    with db.read() as s:
        return s.scalar(select(ImportBatch.id).where(ImportBatch.open_project_id == pid))


def _dead_import(db, lead, pid: int, monkeypatch, *, past_commit_point: bool) -> int:
    """Import X, whose process died: after two hidden batches (100 rows), or right after its
    commit point (120 rows, ``publishing``). Returns its batch id."""
    with monkeypatch.context() as dying:
        if past_commit_point:
            dying.setattr(text_imports, "_publish_import", lambda *a, **k: None)
            text_imports.import_texts(db, lead, pid, _records("X"))
        else:
            dying.setattr(text_imports, "discard_import", lambda *a, **k: None)
            _after_hidden_batch(dying, 2, lambda: (_ for _ in ()).throw(Killed()))
            with pytest.raises(Killed):
                text_imports.import_texts(db, lead, pid, _records("X"))
    return _open_batch(db, pid)


def _after_hidden_batch(monkeypatch, n: int, step) -> None:
    """Run ``step()`` right after the import's ``n``-th hidden batch is committed."""
    real, written = text_imports._write_hidden_batch, [0]

    def write_then_step(*args, **kwargs):
        real(*args, **kwargs)
        written[0] += 1
        if written[0] == n:
            step()

    monkeypatch.setattr(text_imports, "_write_hidden_batch", write_then_step)


def test_a_late_rollback_of_a_dead_import_leaves_the_next_imports_rows_alone(
        db, lead, make_project, monkeypatch, other_process):
    pid = make_project(4)
    x = _dead_import(db, lead, pid, monkeypatch, past_commit_point=False)
    assert count(db, Sample, Sample.status == text_imports.IMPORTING) == 100
    text_imports.discard_import(db, x, pid)  # B rolls X back
    _after_hidden_batch(monkeypatch, 2, lambda: text_imports.discard_import(other_process, x, pid))  # C, late

    summary = text_imports.import_texts(db, lead, pid, _records("Y"))  # B's import, batch Y

    assert summary.added == 120
    assert _visible(db, pid) == 4 + 120  # all of Y: C deleted none of its hidden rows
    assert count(db, Sample, Sample.status == text_imports.IMPORTING) == 0
    assert _open_batch(db, pid) is None


def test_a_late_publishing_of_a_dead_import_shows_nothing_of_the_next_import(
        db, lead, make_project, monkeypatch, other_process):
    pid = make_project(4)
    x = _dead_import(db, lead, pid, monkeypatch, past_commit_point=True)
    text_imports._publish_import(db, x, pid)  # B finishes X
    assert _visible(db, pid) == 4 + 120
    seen = []

    def late_publishing():  # C, between two of Y's hidden batches
        text_imports._publish_import(other_process, x, pid)
        seen.append(_visible(db, pid))

    _after_hidden_batch(monkeypatch, 2, late_publishing)
    summary = text_imports.import_texts(db, lead, pid, _records("Y"))

    assert seen == [4 + 120]  # Y's rows stayed hidden until Y's own commit point
    assert summary.added == 120 and _visible(db, pid) == 4 + 240


def test_an_import_rolled_back_under_it_says_so_and_leaves_nothing(db, lead, make_project, monkeypatch,
                                                                    other_process):
    """C takes B's live import for dead (its heartbeat was late) and rolls it back between two of
    its batches: B's next batch is refused, in one line, and nothing of it is left."""
    pid = make_project(4)

    def taken_for_dead():
        text_imports.discard_import(other_process, _open_batch(db, pid), pid)

    _after_hidden_batch(monkeypatch, 2, taken_for_dead)

    with pytest.raises(InvalidInput) as refused:
        text_imports.import_texts(db, lead, pid, _records("Y"))

    assert str(refused.value) == text_imports.ROLLED_BACK_MEANWHILE
    assert count(db, Sample, Sample.project_id == pid) == 4
    assert count(db, ImportBatch, ImportBatch.open_project_id.is_not(None)) == 0


def test_an_import_whose_rows_a_killed_recovery_half_deleted_is_not_published(
        db, lead, make_project, monkeypatch, other_process):
    """C starts rolling back B's live import after its last batch and dies after one chunk: B's
    commit point finds rows missing and refuses, rather than publish part of the file."""
    pid = make_project(4)

    def half_rollback():
        with monkeypatch.context() as killed:
            killed.setattr(text_imports, "_pause_between_batches", lambda db: (_ for _ in ()).throw(Killed()))
            with pytest.raises(Killed):
                text_imports.discard_import(other_process, _open_batch(db, pid), pid)
        assert count(db, Sample, Sample.status == text_imports.IMPORTING) == 120 - 50

    _after_hidden_batch(monkeypatch, 3, half_rollback)
    with pytest.raises(InvalidInput) as refused:
        text_imports.import_texts(db, lead, pid, _records("Y"))

    assert str(refused.value) == text_imports.ROLLED_BACK_MEANWHILE
    assert count(db, Sample, Sample.project_id == pid) == 4
    assert count(db, ImportBatch, ImportBatch.open_project_id.is_not(None)) == 0
