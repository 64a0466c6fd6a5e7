"""What an import adds to a project's pool, planned before anything is written: the sample
rows (ids given or generated, re-imports counted as already present, a different text under a
taken id refused), the rows stored beside them (a pair's), and the protocol check. The engine
that writes the plan is :mod:`annotation.services.corpus.text_imports`; the kinds of import are texts
(:data:`TEXTS`) and context pairs (:mod:`annotation.services.corpus.pair_imports`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.corpus.text_import import SampleNumbering
from annotation.protocols import protocol_of
from annotation.services.errors import InvalidInput
from annotation.settings import ProjectSettings
from annotation.wording import NOTHING_IMPORTED, refusal
from db.models import Project, Sample, utcnow


#: (record, external id) of each sample an import adds
Planned = list[tuple[Any, str]]


@dataclass(frozen=True)
class ImportKind:
    """What one kind of import adds to a project's pool, for the one engine below: texts, or
    context pairs (:mod:`annotation.services.corpus.pair_imports`). ``identity`` is what makes a record
    "already present" (a text's text, a pair's target and follow-up); ``companions`` gives the
    rows stored beside the new samples (by external id) and may refuse the import."""

    action: str  # the audit log's action
    noun: str  # "text", "pair": in messages
    pairs: bool  # the protocol it needs: context pairs, or single texts
    existing: Callable[[Session, int], dict[str, Any]]  # external id -> identity
    identity: Callable[[Any], Any]
    companions: Callable[[Session, int, Planned], dict[str, dict[str, Any]]] | None = None
    new_settings: ProjectSettings | None = None  # of a project the import creates


@dataclass(frozen=True)
class Plan:
    """The rows an import adds (``rows``, with ``companions`` beside them by external id), how
    many records were already present, and how many it adds per benchmark."""

    rows: list[dict[str, Any]]
    companions: dict[str, dict[str, Any]]
    present: int
    counts: dict[int, int]


def plan_rows(existing: dict[str, Any], records: Sequence[Any], n_tokens: Sequence[int],
               project_id: int, source: str, identity: Callable[[Any], Any] = lambda r: r.text,
               noun: str = "text") -> tuple[list[dict[str, Any]], int, dict[int, int], Planned]:
    """The sample rows an import adds, with the count already present and per benchmark, and
    which record each new row is.

    Re-importing is harmless: a record whose id (or, without an id, whose ``identity`` — a
    text's exact text) is already in the project is counted as already present; an id that
    exists with a *different* identity is refused. Records without an id get
    ``B<benchmark>-<number>`` ids continuing the project's numbering, at its width
    (:class:`~annotation.corpus.text_import.SampleNumbering`). ``existing`` (external id →
    identity) is extended with the new rows.
    """
    existing_keys = set(existing.values())
    numbering = SampleNumbering(existing)
    rows: list[dict[str, Any]] = []
    planned: Planned = []
    present, counts = 0, {1: 0, 2: 0}
    new_keys: set[Any] = set()
    # ids named later in this import must not be taken by a generated id first
    named_ids = {r.external_id for r in records if r.external_id is not None}
    now = utcnow()
    for r, n_tok in zip(records, n_tokens):
        key = identity(r)
        if r.external_id is not None and r.external_id in existing:
            if existing[r.external_id] != key:
                raise InvalidInput(refusal(f"line {r.line}: id {r.external_id!r} is already used by a "
                                           f"different {noun} in this project", NOTHING_IMPORTED))
            present += 1
            continue
        if r.external_id is None and (key in existing_keys or key in new_keys):
            present += 1
            continue
        ext_id = r.external_id
        if ext_id is None:
            ext_id = numbering.next(r.benchmark, lambda i: i in existing or i in named_ids)
        rows.append(dict(project_id=project_id, external_id=ext_id, benchmark=r.benchmark,
                         parent_text=r.text, n_tokens=n_tok, source=source, status="active",
                         n_assigned=0, is_warmup=False, created_at=now,
                         realised_minutes=getattr(r, "realised_minutes", None)))
        planned.append((r, ext_id))
        existing[ext_id] = key
        new_keys.add(key)
        counts[r.benchmark] += 1
    return rows, present, counts, planned


def _existing_texts(s: Session, project_id: int) -> dict[str, str]:
    return dict(s.execute(select(Sample.external_id, Sample.parent_text)
                          .where(Sample.project_id == project_id)).all())


TEXTS = ImportKind("import_texts", "text", False, _existing_texts, lambda r: r.text)


def check_protocol(s: Session, project_id: int, kind: ImportKind) -> None:
    """Refuse an import of texts into a context-pairs project, or of pairs into a single-texts one.
    The project's row is read FOR SHARE (PostgreSQL): a protocol change
    (:func:`annotation.services.projects.projects.update_settings`, which locks the row before counting
    the samples) waits for the import's transaction, or the import for the change."""
    row = s.execute(select(Project.name, Project.settings).where(Project.id == project_id)
                    .with_for_update(read=True)).one()
    protocol = protocol_of(ProjectSettings.from_dict(row.settings))
    if protocol.sample_noun != kind.noun:
        name = row.name
        raise InvalidInput(refusal(f"{name!r} is a {protocol.name} project: it takes {protocol.sample_noun}s, "
                                   f"not {kind.noun}s", NOTHING_IMPORTED))


def plan_import(s: Session, project_id: int, records: Sequence[Any], n_tokens: Sequence[int], source: str,
                kind: ImportKind) -> Plan:
    check_protocol(s, project_id, kind)
    rows, present, counts, planned = plan_rows(kind.existing(s, project_id), records, n_tokens,
                                                project_id, source, kind.identity, kind.noun)
    companions = kind.companions(s, project_id, planned) if kind.companions and planned else {}
    return Plan(rows, companions, present, counts)
