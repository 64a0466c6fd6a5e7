"""The staging of an annotation import: rows hidden from every reader until they are published.

An import (``annotation.services.corpus.annotation_import``) stages its checked records here in short
write transactions (:func:`stage`), passes its commit point (its batch row says
``publishing``), then :func:`publish` copies them into ``annotations`` — with their
assignments, the samples' ``n_assigned`` and the project's running sums — a chunk per short
write transaction, deleting what it copied. A process that dies before the commit point leaves
only staged rows, discarded with their batch row; one that dies after it is finished by the
next import's recovery (``text_imports.recover_interrupted_imports``), which calls :func:`publish`
again. A pair (sample, annotator) that gained an annotation in the meantime — the annotator
was handed that sample while the import ran — keeps it: the staged record is left out and
counted. Each of these writes holds the import's batch first
(:func:`annotation.services.corpus.import_batches.hold_batch`): a batch rolled back or finished by
another process meanwhile is left as it is.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import timezone
from typing import Any, Sequence

from sqlalchemy import (
    Integer, and_, bindparam, column, delete, exists, func, insert, literal, select, update, values,
)
from sqlalchemy.orm import Session

from annotation.curves import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS
from annotation.parameters import PARAMETERS
from annotation.services.errors import InvalidInput
from annotation.services.corpus.import_batches import PUBLISHING, ROLLED_BACK_MEANWHILE, RUNNING, hold_batch
from annotation.services.review.settling import ensure_stats
from annotation.services.rows import CONTENT_COLUMNS, JSON_CONTENT_COLUMNS
from db.engine import Database
from db.queries import id_in
from db.types import UTCDateTime
from db.models import (
    Annotation,
    Assignment,
    ImportBatch,
    ParameterStats,
    Sample,
    StagedAnnotation,
    User,
    utcnow,
)

#: Rows per write transaction when staging and when publishing: each holds the write lock for
#: tens of milliseconds (SPEC §10: never over 250 ms).
STAGE_ROWS = 5000
PUBLISH_ROWS = 3000
#: PostgreSQL writes a chunk more slowly (3,000 rows held its locks 338 ms in
#: bench/import_resolve.py): smaller chunks there.
PUBLISH_ROWS_POSTGRES = 1500
#: Pause between two write transactions on SQLite, so that writers waiting in SQLite's busy
#: handler (which polls) get the lock between an import's chunks.
PAUSE_S = 0.05

_BOUNDS = {"xi": XI_BOUNDS, "omega": OMEGA_BOUNDS, "alpha": ALPHA_BOUNDS}


def _pause(db: Database) -> None:
    if db.is_sqlite:
        time.sleep(PAUSE_S)


def stage(db: Database, batch_id: int, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``rows`` (``staged_annotations`` columns, ``batch_id`` added) in chunks: on
    PostgreSQL by COPY (an INSERT of 200k rows took 7.5 s, mostly the client's conversion of
    each parameter), on SQLite by an INSERT of many rows."""
    for start in range(0, len(rows), STAGE_ROWS):
        chunk = rows[start:start + STAGE_ROWS]
        with db.write() as s:
            if not hold_batch(s, batch_id, RUNNING):
                raise InvalidInput(ROLLED_BACK_MEANWHILE)
            if db.is_sqlite:
                s.execute(insert(StagedAnnotation.__table__), [{**r, "batch_id": batch_id} for r in chunk])
            else:
                _copy(s, batch_id, chunk)
        _pause(db)


_JSON_COLUMNS = JSON_CONTENT_COLUMNS
_COPIED = ("sample_id", "annotator", *CONTENT_COLUMNS, "submitted_at")


def _copy(s: Session, batch_id: int, rows: Sequence[dict[str, Any]]) -> None:
    """PostgreSQL: ``rows`` into ``staged_annotations`` by COPY, in the session's transaction
    (JSON as its text, the time as naive UTC, as the column types store them)."""
    json_at = {_COPIED.index(c) for c in _JSON_COLUMNS}
    when_at = _COPIED.index("submitted_at")
    raw = s.connection().connection.driver_connection
    with raw.cursor() as cur, cur.copy(f"COPY {StagedAnnotation.__tablename__} (batch_id, {', '.join(_COPIED)}) "
                                       "FROM STDIN") as copy:
        for r in rows:
            values = [r.get(c) for c in _COPIED]
            for i in json_at:
                values[i] = json.dumps(values[i] if values[i] is not None else [])
            values[when_at] = values[when_at].astimezone(timezone.utc).replace(tzinfo=None)
            copy.write_row((batch_id, *values))


def _publish_chunk(s: Session, batch_id: int, guidelines_version: str) -> tuple[list[int], int, int] | None:
    """Publish the batch's next staged rows; (production samples touched, published, left
    out) or None when none are left, or when the batch is no longer being published (another
    process finished it)."""
    if not hold_batch(s, batch_id, PUBLISHING):
        return None
    rows_per_chunk = PUBLISH_ROWS if s.bind.dialect.name == "sqlite" else PUBLISH_ROWS_POSTGRES
    last = s.scalar(select(StagedAnnotation.id).where(StagedAnnotation.batch_id == batch_id)
                    .order_by(StagedAnnotation.id).offset(rows_per_chunk - 1).limit(1))
    in_chunk = [StagedAnnotation.batch_id == batch_id]
    if last is not None:
        in_chunk.append(StagedAnnotation.id <= last)
    taken = exists().where(Annotation.sample_id == StagedAnnotation.sample_id,
                           Annotation.annotator_id == User.id)
    rows = s.execute(select(StagedAnnotation.id, StagedAnnotation.sample_id, User.id.label("user_id"),
                            StagedAnnotation.submitted_at, taken.label("taken"), Sample.is_warmup,
                            Sample.n_assigned)
                     .join(User, User.username == StagedAnnotation.annotator)
                     .join(Sample, Sample.id == StagedAnnotation.sample_id)
                     .where(*in_chunk).order_by(StagedAnnotation.id)).all()
    if not rows:
        return None
    fresh = [r for r in rows if not r.taken]
    ids = [r.id for r in fresh]
    if ids:
        now = utcnow()
        # the staged row's content columns are copied as they are (CONTENT_COLUMNS: the same
        # names and types in both tables)
        source = (select(StagedAnnotation.sample_id, User.id, literal("submitted"), literal(1), literal(2),
                         *(getattr(StagedAnnotation, c) for c in CONTENT_COLUMNS), literal(guidelines_version),
                         literal(0.0), literal(now, UTCDateTime()), literal(now, UTCDateTime()),
                         StagedAnnotation.submitted_at)
                  .join(User, User.username == StagedAnnotation.annotator)
                  .where(id_in(StagedAnnotation.id, ids, s)).order_by(StagedAnnotation.id))
        columns = ["sample_id", "annotator_id", "status", "version", "step", *CONTENT_COLUMNS,
                   "guidelines_version", "seconds_spent", "created_at", "updated_at", "submitted_at"]
        s.execute(insert(Annotation.__table__).from_select(columns, source))
        slots: Counter[int] = Counter()
        assigned = []
        for r in fresh:
            slots[r.sample_id] += 1
            assigned.append({"sample_id": r.sample_id, "user_id": r.user_id,
                             "slot": r.n_assigned + slots[r.sample_id], "assigned_at": r.submitted_at})
        s.execute(insert(Assignment.__table__), assigned)
        # added to, not set from what was read: a hand-out may claim a slot meanwhile
        table = Sample.__table__
        if s.bind.dialect.name == "postgresql":  # one statement (an executemany took ~80 ms)
            added = values(column("sid", Integer), column("n", Integer), name="added").data(list(slots.items()))
            s.execute(update(table).where(table.c.id == added.c.sid)
                      .values(n_assigned=table.c.n_assigned + added.c.n))
        else:
            s.execute(update(table).where(table.c.id == bindparam("sid_"))
                      .values(n_assigned=table.c.n_assigned + bindparam("n_")),
                      [{"sid_": sid, "n_": n} for sid, n in slots.items()])
        _count_parameters(s, ids)
    s.execute(delete(StagedAnnotation).where(*in_chunk))
    production = sorted({r.sample_id for r in fresh if not r.is_warmup})
    return production, len(fresh), len(rows) - len(fresh)


def _count_parameters(s: Session, staged_ids: list[int]) -> None:
    """Add the published production annotations' parameters to the project's running sums
    (those of warm-up samples and values outside the fit's bounds are not counted, as at a
    submit) — one aggregate and one UPDATE."""
    in_bounds = [getattr(StagedAnnotation, p).between(*b) for p, b in _BOUNDS.items()]
    sums = s.execute(
        select(Sample.project_id, func.count(),
               *[func.sum(getattr(StagedAnnotation, p)) for p in PARAMETERS],
               *[func.sum(getattr(StagedAnnotation, p) * getattr(StagedAnnotation, p)) for p in PARAMETERS])
        .join(Sample, Sample.id == StagedAnnotation.sample_id)
        .where(id_in(StagedAnnotation.id, staged_ids, s), Sample.is_warmup.is_(False), *in_bounds)
        .group_by(Sample.project_id)).all()
    for project_id, n, *raw in sums:
        if not n:
            continue
        totals = [float(v or 0.0) for v in raw]
        k = len(PARAMETERS)
        change: dict[str, Any] = {"n": ParameterStats.n + int(n)}
        for i, p in enumerate(PARAMETERS):
            change[f"sum_{p}"] = getattr(ParameterStats, f"sum_{p}") + totals[i]
            change[f"sumsq_{p}"] = getattr(ParameterStats, f"sumsq_{p}") + totals[k + i]
        s.execute(update(ParameterStats).where(ParameterStats.project_id == project_id).values(**change))


def commit_point(s: Session, batch_id: int, project_id: int) -> None:
    """In the caller's transaction: the batch is past its commit point (from now on it is
    published, even by the next import's recovery), and the project has running sums to count
    into (built from what it holds now, before anything of the import is published). Refused
    when another process rolled the batch back meanwhile (taking it for dead)."""
    if not hold_batch(s, batch_id, RUNNING, project_id):
        raise InvalidInput(ROLLED_BACK_MEANWHILE)
    ensure_stats(s, project_id)
    s.execute(update(ImportBatch).where(ImportBatch.id == batch_id).values(status=PUBLISHING))


def publish(db: Database, batch_id: int, guidelines_version: str) -> tuple[list[int], int, int]:
    """Publish everything the batch staged, a chunk per write transaction; returns the
    production samples touched (to settle), how many were published and how many left out
    (the pair had gained an annotation meanwhile)."""
    touched: set[int] = set()
    published = left_out = 0
    while True:
        done = db.run_write(lambda s: _publish_chunk(s, batch_id, guidelines_version))
        if done is None:
            return sorted(touched), published, left_out
        touched.update(done[0])
        published += done[1]
        left_out += done[2]
        _pause(db)


def has_staged(s: Session, batch_id: int) -> bool:
    """Whether the batch staged annotations that are not published yet."""
    return bool(s.scalar(select(exists().where(and_(StagedAnnotation.batch_id == batch_id)))))
