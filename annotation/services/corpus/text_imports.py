"""Importing texts into a project's annotation pool: the two-phase import engine.

A large import is written in batches of hidden rows (each a short write transaction, so
annotators' calls interleave with it), then published in one short step; an import whose process
died is cleaned up or finished by the next one (:func:`recover_interrupted_imports`). What an
import adds is planned first (:mod:`annotation.services.corpus.import_plans`). Project records and
settings are :mod:`annotation.services.projects.projects`, which re-exports :func:`import_texts` and
:func:`import_text_file` as the project's way in.

An import's writer is dead when its process (the process id and where it means one process,
recorded with its batch) is gone, or when its heartbeat is older than :data:`STALE_IMPORT_S` —
the only sign for a process elsewhere (another app server sharing the database, another
container), where that process id means nothing (:func:`writer_is_gone`). The next import into
the project (or naming the project a dead import was creating) rolls the dead one back, or
finishes it past its commit point, and goes on in the same call. Each write of the import or of
its recovery holds the batch and touches that batch's own rows only
(:mod:`annotation.services.corpus.import_batches`), so two processes recovering one dead import never
touch the next import's rows, nor publish or roll back a batch the other already finished.

A project that an import creates is hidden from every listing of projects until that import is
published (:func:`annotation.services.projects.projects.list_projects`): people never see it empty or
half-filled, and an import that dies takes it with it when rolled back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.segmentation import tokenize
from annotation.services import audit
from annotation.services.review import resolving
from annotation.services.corpus import staged_annotations
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.corpus.import_batches import (
    IMPORTING, PUBLISHED, PUBLISHING, ROLLED_BACK_MEANWHILE, RUNNING, STALE_IMPORT_S, count_hidden,
    hidden_ids, hold_batch, this_writer, writer_is_gone,
)
from annotation.services.lookup import project_row, project_settings
from annotation.services.text_limits import check_length
from annotation.services.number_limits import checks_numbers
from annotation.services.projects.projects import add_project, project_name
from annotation.corpus.text_import import ImportFileError, TextRecord, check_file_size, parse_texts
from annotation.services.corpus.import_plans import TEXTS, ImportKind, Plan, check_protocol, plan_import
from annotation.settings import ProjectSettings
from annotation.wording import NOTHING_IMPORTED, refusal
from db.engine import Database
from db.models import ImportBatch, ParameterStats, Project, Sample, SamplePair, utcnow


@dataclass(frozen=True)
class ImportSummary:
    added: int
    already_present: int
    benchmark_counts: dict[int, int]
    project_id: int = 0
    #: context pairs: how many targets the added pairs belong to (0 for texts)
    targets: int = 0


IMPORT_BATCH_ROWS = 2000
#: Pause between two batches on SQLite, so that writers waiting in SQLite's busy handler
#: (which polls at most every 100 ms) get the lock before the import's next batch.
IMPORT_PAUSE_S = 0.1

def _insert_samples(s: Session, rows: list[dict[str, Any]], companions: dict[str, dict[str, Any]]) -> None:
    """Insert sample rows and, in the same transaction, the rows stored beside them."""
    if not companions:
        s.execute(insert(Sample), rows)
        return
    table = Sample.__table__
    made = s.execute(insert(table).returning(table.c.id, table.c.external_id), rows).all()
    s.execute(insert(SamplePair.__table__),
              [{"sample_id": sid, **companions[ext]} for sid, ext in made if ext in companions])


@checks_numbers
def import_texts(db: Database, actor: Actor, project_id: int | None, records: Sequence[TextRecord],
                 source: str = "", *, new_project: str | None = None) -> ImportSummary:
    """Lead: add texts to a project's pool, all or nothing (see
    :func:`annotation.services.corpus.import_plans.plan_rows` for ids and re-imports).

    Texts are tokenised before any transaction opens. Up to :data:`IMPORT_BATCH_ROWS` records
    are written in one transaction. A larger import never holds the database (SQLite's write
    lock) for long: :func:`_import_in_batches` writes it in batches of that many rows, hidden
    from the queue, and publishes them at the end; a failure removes every row it wrote.
    With ``new_project`` (and no ``project_id``) the project of that name is created as part of
    the same import, so a refused import leaves no empty project behind (an import that died
    while creating a project of that name is rolled back first); the summary's
    ``project_id`` names the project either way. A context-pairs project takes pairs
    (:mod:`annotation.services.corpus.pair_imports`), not texts.
    """
    check_import_text(records, source)
    return run_import(db, actor, project_id, records, source, new_project, TEXTS)


def run_import(db: Database, actor: Actor, project_id: int | None, records: Sequence[Any], source: str,
               new_project: str | None, kind: ImportKind) -> ImportSummary:
    """The import engine behind :func:`import_texts` and the pairs import (records checked)."""
    if new_project is not None:
        new_project = project_name(new_project)
    for _attempt in range(2):
        try:
            return _import_texts(db, actor, project_id, records, source, new_project, kind)
        except IntegrityError:
            if new_project is None:
                raise
            creating = _project_being_created(db, new_project)
            if creating is None:
                break  # a project of that name exists
            if not recover_interrupted_imports(db, creating):
                raise InvalidInput(_BUSY_IMPORT) from None  # its import is still being written
    raise InvalidInput(f"A project called {new_project!r} already exists.")


def _project_being_created(db: Database, name: str) -> int | None:
    """The project called ``name`` while the import creating it is unfinished, or None."""
    with db.read() as s:
        return s.scalar(select(Project.id).join(ImportBatch, ImportBatch.open_project_id == Project.id)
                        .where(Project.name == name, ImportBatch.creates_project.is_(True)))


def recover_import_creating(db: Database, name: str) -> bool:
    """Clean up a dead import that was creating the project called ``name``
    (:func:`recover_interrupted_imports`), so that project is gone (rolled back with it) or
    listed (finished). False when no import is creating it, or when its writer lives."""
    creating = _project_being_created(db, name)
    return creating is not None and recover_interrupted_imports(db, creating) > 0


def check_import_text(records: Sequence[TextRecord], source: str) -> None:
    """Refuse an import whose source (the file's name, stored with each row and the batch) or a
    text's id does not fit its column; a parsed file meets the id rule already, records made
    another way (a script) are held to it here."""
    for column in (Sample.source, ImportBatch.source):
        check_length(source, column, "file name")
    for r in records:
        try:
            check_length(r.external_id or "", Sample.external_id, "id")
        except InvalidInput as exc:
            raise InvalidInput(refusal(f"line {r.line}: {exc}", NOTHING_IMPORTED)) from None


def _summary(plan: Plan, project_id: int) -> ImportSummary:
    targets = len({c["target_key"] for c in plan.companions.values()})
    return ImportSummary(len(plan.rows), plan.present, plan.counts, project_id, targets)


def _import_texts(db: Database, actor: Actor, project_id: int | None, records: Sequence[Any],
                  source: str, new_project: str | None, kind: ImportKind = TEXTS) -> ImportSummary:
    if new_project is None:
        with db.read() as s:
            authorize(s, actor, Policy.CORPUS_IMPORT)
            project_row(s, project_id)
    n_tokens = [len(tokenize(r.text)) for r in records]
    if len(records) > IMPORT_BATCH_ROWS:
        return _import_in_batches(db, actor, project_id, records, n_tokens, source, new_project, kind)
    for _attempt in range(2):
        with db.write() as s:
            authorize(s, actor, Policy.CORPUS_IMPORT)
            if new_project is not None:
                project_id = add_project(s, actor, new_project, settings=kind.new_settings).id
            open_batch = s.scalar(select(ImportBatch.id).where(ImportBatch.open_project_id == project_id))
            if open_batch is None:
                plan = plan_import(s, project_id, records, n_tokens, source, kind)
                if plan.rows:
                    _insert_samples(s, plan.rows, plan.companions)
                audit.record(s, actor.user_id, kind.action, "project", project_id,
                             source=source, added=len(plan.rows), already_present=plan.present)
                return _summary(plan, project_id)
        if not _cleaned_up(db, project_id):
            break
    raise InvalidInput(_BUSY_IMPORT)


def _cleaned_up(db: Database, project_id: int) -> bool:
    """Whether a dead import into the project was cleaned up, so the import may try again;
    :class:`NotFound` when that took the project with it (the dead import was creating it)."""
    if not recover_interrupted_imports(db, project_id):
        return False
    with db.read() as s:
        project_row(s, project_id)
    return True


_BUSY_IMPORT = refusal("Another import into this project is still being written; try again when it has "
                       "finished", NOTHING_IMPORTED)


def _import_in_batches(db: Database, actor: Actor, project_id: int | None,
                       records: Sequence[Any], n_tokens: Sequence[int], source: str,
                       new_project: str | None = None, kind: ImportKind = TEXTS) -> ImportSummary:
    """One logical, all-or-nothing import written in short transactions.

    1. claim the project's import slot (an ``import_batches`` row; one unfinished import per
       project), cleaning up one that died;
    2. plan the rows against the project's texts (refusals raise here, nothing written);
    3. insert them in batches of :data:`IMPORT_BATCH_ROWS` with status ``importing`` — out of the
       queue and every listing — moving the heartbeat with each batch (a pair's row beside its
       sample, in the same transaction);
    4. mark the batch ``publishing`` with the audit record: the commit point (the project's
       protocol is checked again there: it cannot have changed under the import; nor can a
       recovery that took the import for dead have deleted any of its rows);
    5. flip the rows to ``active`` in batches and close the batch.
    Any failure before 4 deletes the rows written and the batch row, and the project when the
    import created it (``new_project``, in step 1): the database is as before;
    a process that dies is cleaned up by the next import into the project
    (:func:`recover_interrupted_imports`): rolled back before 4, finished after it. The batch
    row names the process writing it (:func:`import_batches.this_writer`), so that import can
    tell at once when that process is gone.
    """
    batch_id, project_id = claim_import(db, actor, project_id, source, new_project, kind.new_settings)
    try:
        with db.read() as s:
            plan = plan_import(s, project_id, records, n_tokens, source, kind)
        for start in range(0, len(plan.rows), IMPORT_BATCH_ROWS):
            _write_hidden_batch(db, batch_id, project_id, plan.rows[start:start + IMPORT_BATCH_ROWS],
                                plan.companions)
        with db.write() as s:  # the commit point
            check_protocol(s, project_id, kind)
            # every row written is still there: a recovery that took this import for dead may
            # have deleted some before this write held the batch
            if not hold_batch(s, batch_id, RUNNING, project_id) or count_hidden(s, batch_id) != len(plan.rows):
                raise InvalidInput(ROLLED_BACK_MEANWHILE)
            s.execute(update(ImportBatch).where(ImportBatch.id == batch_id)
                      .values(status=PUBLISHING, added=len(plan.rows)))
            audit.record(s, actor.user_id, kind.action, "project", project_id,
                         source=source, added=len(plan.rows), already_present=plan.present,
                         import_batch=batch_id)
    except BaseException:
        try:
            discard_import(db, batch_id, project_id)
        except Exception:  # noqa: BLE001 - the original error matters; the next import cleans up
            pass
        raise
    _publish_import(db, batch_id, project_id)
    return _summary(plan, project_id)


def claim_import(db: Database, actor: Actor, project_id: int | None, source: str,
                 new_project: str | None, settings: ProjectSettings | None = None) -> tuple[int, int]:
    """The import's batch row (and, with ``new_project``, its new project with ``settings``):
    (batch id, project id)."""
    for _attempt in range(2):
        try:
            with db.write() as s:
                authorize(s, actor, Policy.CORPUS_IMPORT)
                if new_project is not None:
                    project_id = add_project(s, actor, new_project, settings=settings).id
                now = utcnow()
                batch = ImportBatch(project_id=project_id, open_project_id=project_id,
                                    status=RUNNING, source=source, added=0,
                                    creates_project=new_project is not None,
                                    created_by=actor.user_id, started_at=now, heartbeat_at=now,
                                    **this_writer())
                s.add(batch)
                s.flush()
                return batch.id, project_id
        except IntegrityError:
            if new_project is not None:
                raise  # the new project's name is taken (import_texts says so)
            if not _cleaned_up(db, project_id):
                break  # another import into the project is still being written
    raise InvalidInput(_BUSY_IMPORT)


def _pause_between_batches(db: Database) -> None:
    if db.is_sqlite:
        time.sleep(IMPORT_PAUSE_S)


def _write_hidden_batch(db: Database, batch_id: int, project_id: int, rows: list[dict[str, Any]],
                        companions: dict[str, dict[str, Any]] | None = None) -> None:
    """Write one batch of the import's hidden rows, each naming the batch; refused (nothing
    written) when the batch is no longer this import's to write."""
    with db.write() as s:
        if not hold_batch(s, batch_id, RUNNING, project_id):
            raise InvalidInput(ROLLED_BACK_MEANWHILE)
        _insert_samples(s, [{**r, "status": IMPORTING, "import_batch_id": batch_id} for r in rows],
                        companions or {})
    _pause_between_batches(db)


def discard_import(db: Database, batch_id: int, project_id: int) -> None:
    """Delete an unfinished import's hidden rows (in batches), its batch row, and its project when
    the import created it (nothing else can be in it: the project was never shown with texts).
    Each step holds the batch still ``running``: one already rolled back, or past its commit
    point, by another process is left as it is."""
    while True:
        with db.write() as s:
            if not hold_batch(s, batch_id, RUNNING, project_id):
                return
            ids = hidden_ids(s, batch_id, IMPORT_BATCH_ROWS)
            if not ids:
                creates_project = s.scalar(select(ImportBatch.creates_project)
                                           .where(ImportBatch.id == batch_id))
                s.execute(delete(ImportBatch).where(ImportBatch.id == batch_id))
                if creates_project:
                    s.execute(delete(ParameterStats).where(ParameterStats.project_id == project_id))
                    s.execute(delete(Project).where(Project.id == project_id))
                return
            # a pair's row goes with its sample (the foreign key cascades; said here too, so
            # nothing depends on SQLite's foreign keys being on)
            s.execute(delete(SamplePair).where(SamplePair.sample_id.in_(ids)))
            s.execute(delete(Sample).where(Sample.import_batch_id == batch_id, Sample.status == IMPORTING,
                                           Sample.id <= ids[-1]))
        _pause_between_batches(db)


def _publish_import(db: Database, batch_id: int, project_id: int) -> None:
    """Make a committed import's rows visible (in batches) and close the batch: its hidden
    texts, or the annotations it staged (then settled, as the import would have). Each step
    holds the batch still ``publishing``: one another process finished meanwhile is left as it
    is."""
    if db.run_read(lambda s: staged_annotations.has_staged(s, batch_id)):
        settings = db.run_read(lambda s: project_settings(s, project_id))
        touched, _, _ = staged_annotations.publish(db, batch_id, settings.guidelines_version)
        resolving.settle_samples(db, project_id, touched, settings)
    while True:
        with db.write() as s:
            if not hold_batch(s, batch_id, PUBLISHING, project_id):
                return
            ids = hidden_ids(s, batch_id, IMPORT_BATCH_ROWS)
            if not ids:
                s.execute(update(ImportBatch).where(ImportBatch.id == batch_id)
                          .values(status=PUBLISHED, open_project_id=None, finished_at=utcnow()))
                return
            s.execute(update(Sample).where(Sample.import_batch_id == batch_id, Sample.status == IMPORTING,
                                           Sample.id <= ids[-1])
                      .values(status="active").execution_options(synchronize_session=False))
        _pause_between_batches(db)


def recover_interrupted_imports(db: Database, project_id: int | None = None, *,
                                stale_after_s: float = STALE_IMPORT_S) -> int:
    """Clean up imports whose writer is dead (:func:`writer_is_gone`): one still writing is
    rolled back (its hidden rows deleted, and the project it was creating), one past its commit
    point is published. Returns how many were cleaned up (here, or meanwhile by another process
    doing the same). Safe to call at start-up; live imports are left alone."""
    now = utcnow()
    with db.read() as s:
        stmt = select(ImportBatch.id, ImportBatch.project_id, ImportBatch.status, ImportBatch.host,
                      ImportBatch.pid, ImportBatch.heartbeat_at).where(ImportBatch.open_project_id.is_not(None))
        if project_id is not None:
            stmt = stmt.where(ImportBatch.project_id == project_id)
        stale = [(b.id, b.project_id, b.status) for b in s.execute(stmt)
                 if writer_is_gone(b.host, b.pid, b.heartbeat_at, now, stale_after_s=stale_after_s)]
    for batch_id, pid, status in stale:
        if status == PUBLISHING:
            _publish_import(db, batch_id, pid)
        else:
            discard_import(db, batch_id, pid)
    return len(stale)


def check_text_file_size(filename: str, n_bytes: int) -> None:
    """Refuse a file of ``n_bytes`` too large to import, before it is read (the CLI asks with the
    file's size on disk): :class:`InvalidInput` in the import's words."""
    try:
        check_file_size(n_bytes)
    except ImportFileError as exc:
        raise InvalidInput(refusal(f"{filename}: {exc}", NOTHING_IMPORTED)) from None


@checks_numbers
def import_text_file(db: Database, actor: Actor, project_id: int | None, data: bytes, filename: str,
                     default_benchmark: int | None = None, *,
                     new_project: str | None = None) -> ImportSummary:
    """Parse and import an uploaded file; :class:`InvalidInput` names the line on bad files.
    ``new_project``: create the project of that name as part of the import (see :func:`import_texts`)."""
    check_import_text((), filename)  # before the parse: a long file takes a while to read
    try:
        records = parse_texts(data, filename, default_benchmark=default_benchmark)
    except ImportFileError as exc:
        raise InvalidInput(refusal(f"{filename}: {exc}", NOTHING_IMPORTED)) from None
    return import_texts(db, actor, project_id, records, source=filename, new_project=new_project)
