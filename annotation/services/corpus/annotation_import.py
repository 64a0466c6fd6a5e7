"""Importing existing annotations in the interchange format (``chronocept import annotations``).

All or nothing, and no lock held while it reads: the file is parsed and checked record by record
(over several processes for a large file: a record with points only needs a curve fit),
against the project's samples, accounts and annotations, before anything is written; a bad
record refuses the whole file, naming its line. The checked records are then staged in short
transactions (:mod:`annotation.services.corpus.staged_annotations`, hidden from every reader), the
import passes its commit point (its new accounts are created and its batch says "publishing"),
and is published a chunk at a time; the samples it completed are settled in chunks
(:mod:`annotation.services.review.resolving`). The write lock is never held for more than a chunk.

A context-pairs project's records carry the curve given the follow-up too
(:mod:`annotation.corpus.interchange`); a single-texts project refuses them.

Annotators are matched to accounts by username (the rules of ``create-user``,
:mod:`annotation.usernames`: surrounding whitespace is removed, so ``"lead1 "`` is ``lead1``); a
name without an account gets a deactivated account of its own (it cannot sign in; an admin can
activate it and set a password), so imported work keeps a stable, pseudonymous owner — unless
the name looks like an existing account's (``Lead1`` beside ``lead1``), which refuses the file.
Re-importing the same file is harmless: an identical annotation already stored counts as already
present, a different one for the same (sample, annotator) is refused.
"""

from __future__ import annotations

import logging
import os
import secrets
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from multiprocessing import get_context
from typing import Any

from sqlalchemy import select

from annotation.corpus.interchange import (
    InterchangeError,
    InterchangeRecord,
    ParsedLines,
    check_records,
    numbered_lines,
    parse_lines,
)
from annotation.services import audit
from annotation.services.review import resolving
from annotation.services.corpus import staged_annotations, text_imports
from annotation.services.accounts.accounts import hash_password
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_row, project_settings
from annotation.services.rows import content_select, content_values, contents_of
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from annotation.usernames import find_lookalike
from annotation.wording import NOTHING_IMPORTED, refusal
from annotation.content import AnnotationContent
from db.engine import Database
from db.models import Annotation, ImportBatch, Sample, User, utcnow

log = logging.getLogger(__name__)

#: From this many records with points only (each needs a curve fit: milliseconds) a file is read
#: by one process per core. Records that carry ξ, ω, α take tens of microseconds each: shipping
#: them to other processes and back costs more than it saves (measured at 200k).
PARALLEL_MIN_FITS = 2_000


@dataclass(frozen=True)
class AnnotationImportSummary:
    added: int
    already_present: int
    new_accounts: tuple[str, ...]
    #: records left out because their annotator was handed that sample while the import ran
    left_out: int = 0


def _same(stored: tuple[str, AnnotationContent], r: InterchangeRecord) -> bool:
    """Whether the stored (status, content) is a submitted annotation equal to the record's."""
    status, had = stored
    c = r.content

    def work(x: AnnotationContent) -> tuple:  # type: ignore[type-arg]
        return (tuple(x.boundaries), tuple(x.segment_axes), tuple(tuple(p) for p in x.points),
                x.xi, x.omega, x.alpha, tuple(x.flags), tuple(tuple(p) for p in x.context_points),
                x.context_xi, x.context_omega, x.context_alpha, x.change)
    return status == "submitted" and work(had) == work(c)


def _parse_chunk(args: tuple) -> ParsedLines:
    lines, n_tokens, now, settings = args
    return parse_lines(lines, n_tokens, now, settings)


def read_file(data: bytes, n_tokens: dict[str, int], now: datetime,
              settings: ProjectSettings | None = None) -> list[InterchangeRecord]:
    """The file's records, checked for a project with ``settings`` — its protocol says what an
    annotation holds (:class:`InterchangeError` at the first problem); a file with many records
    to fit is read by one process per core. A process pool that cannot start (a script without a
    ``__main__`` guard, a sandbox without processes) falls back to reading here."""
    lines = numbered_lines(data)
    workers = os.cpu_count() or 1
    to_fit = sum(1 for _, raw in lines if '"xi"' not in raw)  # a guess: it only picks the way
    if to_fit < PARALLEL_MIN_FITS or workers < 2:
        parsed = [parse_lines(lines, n_tokens, now, settings)]
    else:
        size = -(-len(lines) // (workers * 4))
        chunks = [(lines[i:i + size], n_tokens, now, settings) for i in range(0, len(lines), size)]
        try:
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                parsed = list(pool.map(_parse_chunk, chunks))
        except Exception as exc:  # noqa: BLE001 - any failure of the pool itself: read here
            log.warning("annotation import: reading in processes failed (%s); reading in this one", exc)
            parsed = [parse_lines(lines, n_tokens, now, settings)]
    records: list[InterchangeRecord] = []
    error = None
    for part in parsed:
        records += part.records
        if part.error is not None:
            error = part.error
            break
    check_records(records, error)
    return records


@dataclass(frozen=True)
class _Project:
    settings: ProjectSettings
    samples: dict[str, tuple[int, int]]  # external id -> (sample id, token count)


def _read_project(db: Database, actor: Actor, project_id: int) -> _Project:
    def read(s):  # type: ignore[no-untyped-def]
        authorize(s, actor, Policy.CORPUS_IMPORT)
        project_row(s, project_id)
        samples = {ext: (sid, n) for sid, ext, n in s.execute(
            select(Sample.id, Sample.external_id, Sample.n_tokens)
            .where(Sample.project_id == project_id, Sample.status != text_imports.IMPORTING))}
        return _Project(project_settings(s, project_id), samples)
    return db.run_read(read)


def _plan(db: Database, project_id: int, records: list[InterchangeRecord], samples: dict[str, tuple[int, int]],
          source: str) -> tuple[list[InterchangeRecord], int, list[str]]:
    """Which records are new, how many are already present, and the accounts to create;
    :class:`InvalidInput` for a look-alike name or a different annotation already stored."""
    names = {r.annotator for r in records}

    def read(s):  # type: ignore[no-untyped-def]
        users = dict(s.execute(select(User.username, User.id).where(User.username.in_(names))).all())
        existing = list(s.scalars(select(User.username))) if names - set(users) else []
        stored = {}
        if users:
            rows = s.execute(
                select(Annotation.sample_id, Annotation.annotator_id, Annotation.status,
                       *content_select(Annotation))
                .join(Sample, Sample.id == Annotation.sample_id)
                .where(Sample.project_id == project_id, Annotation.annotator_id.in_(list(users.values())))).all()
            for r, content in zip(rows, contents_of(rows)):
                stored[(r.sample_id, r.annotator_id)] = (r.status, content)
        return users, existing, stored

    users, existing, stored = db.run_read(read)
    for r in sorted(records, key=lambda rec: rec.line):  # the first look-alike in file order
        if r.annotator not in users:
            other = find_lookalike(r.annotator, existing)
            if other is not None:
                raise InvalidInput(refusal(f"{source or 'file'}: line {r.line}: annotator {r.annotator!r} looks "
                                           f"like the existing account {other!r}; use its exact name",
                                           NOTHING_IMPORTED))
    new, present = [], 0
    for r in sorted(records, key=lambda rec: (rec.submitted_at, rec.line)):
        uid = users.get(r.annotator)
        found = stored.get((samples[r.sample_id][0], uid)) if uid is not None else None
        if found is None:
            new.append(r)
        elif _same(found, r):
            present += 1
        else:
            raise InvalidInput(refusal(f"{source or 'file'}: line {r.line}: {r.annotator} already has a "
                                       f"different annotation of {r.sample_id}", NOTHING_IMPORTED))
    return new, present, sorted(names - set(users))


def _staged_row(r: InterchangeRecord, sample_id: int) -> dict[str, Any]:
    return {"sample_id": sample_id, "annotator": r.annotator, **content_values(r.content),
            "submitted_at": r.submitted_at}


@checks_numbers
def import_annotations(db: Database, actor: Actor, project_id: int, data: bytes,
                       source: str = "") -> AnnotationImportSummary:
    """Lead: import an interchange file into a project's samples (see module docstring)."""
    project = _read_project(db, actor, project_id)
    try:
        records = read_file(data, {ext: n for ext, (_, n) in project.samples.items()},
                            datetime.now(timezone.utc), project.settings)
    except InterchangeError as exc:
        raise InvalidInput(refusal(f"{source or 'file'}: {exc}", NOTHING_IMPORTED)) from None
    new, present, new_accounts = _plan(db, project_id, records, project.samples, source)
    if not new:
        with db.write() as s:
            audit.record(s, actor.user_id, "import_annotations", "project", project_id, source=source,
                         added=0, already_present=present, new_accounts=[])
        return AnnotationImportSummary(0, present, ())
    # Accounts the import creates are inactive, with a random password nobody knows (an admin
    # sets one to let them sign in); one Argon2 hash, made before any write, serves them all.
    unusable_hash = hash_password(secrets.token_urlsafe(32))
    batch_id, _ = text_imports.claim_import(db, actor, project_id, source, None)
    try:
        staged_annotations.stage(db, batch_id, [_staged_row(r, project.samples[r.sample_id][0]) for r in new])

        def commit(s):  # type: ignore[no-untyped-def]
            taken = list(s.scalars(select(User.username).where(User.username.in_(new_accounts))))
            if taken:
                raise InvalidInput(refusal(f"{source or 'file'}: an account named {taken[0]!r} was created "
                                           "while the file was read; import it again", NOTHING_IMPORTED))
            for name in new_accounts:
                s.add(User(username=name, display_name=name, role="annotator", is_active=False,
                           password_hash=unusable_hash))
            s.flush()
            staged_annotations.commit_point(s, batch_id, project_id)
        db.run_write(commit)
    except BaseException:
        try:
            text_imports.discard_import(db, batch_id, project_id)
        except Exception:  # noqa: BLE001 - the original error matters; the next import cleans up
            pass
        raise
    touched, added, left_out = staged_annotations.publish(db, batch_id, project.settings.guidelines_version)
    with db.write() as s:
        batch = s.get(ImportBatch, batch_id)
        batch.status, batch.open_project_id, batch.finished_at, batch.added = "published", None, utcnow(), added
        audit.record(s, actor.user_id, "import_annotations", "project", project_id, source=source,
                     added=added, already_present=present, new_accounts=new_accounts, left_out=left_out)
    resolving.settle_samples(db, project_id, touched, project.settings)
    return AnnotationImportSummary(added, present, tuple(new_accounts), left_out)

