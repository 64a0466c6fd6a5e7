"""Importing context pairs into a context-pairs project: the text import's engine with a pair's
row beside each sample.

A pair sample is a normal ``samples`` row — its text is the target statement, its token count
the target's, its external id the pair's id — and a ``sample_pairs`` row holding the follow-up,
the target's key and the reference labels a release gave it, written in the same transaction as
its sample (in the same batches, hidden until published, for a large file). Everything else —
limits, ids, tokenisation, re-imports, all or nothing, the import slot and its recovery — is
:mod:`annotation.services.corpus.text_imports`'s.

Which pairs are already present: one with an id already in the project (the same target and
follow-up, or refused), or, without an id, the same target with the same follow-up. A target
given without a ``target_id`` joins the key its exact text already has (in the project, or
given on another line of the file) or gets one made from its text
(:func:`annotation.corpus.pair_import.generated_target_key`); a ``target_id`` that already
names a different target in the project is refused.
"""

from __future__ import annotations

from typing import Any, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.corpus.pair_import import PairRecord, generated_target_key, parse_pairs
from annotation.corpus.text_import import ImportFileError
from annotation.text_limits import MAX_TEXT_CHARS
from annotation.services.authz import Actor
from annotation.services.errors import InvalidInput
from annotation.services.corpus.import_plans import ImportKind, Planned
from annotation.services.corpus.text_imports import ImportSummary, check_import_text, run_import
from annotation.services.text_limits import check_length
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from annotation.wording import NOTHING_IMPORTED, refusal
from db.engine import Database
from db.models import Sample, SamplePair


def _existing_pairs(s: Session, project_id: int) -> dict[str, tuple[str, str]]:
    """External id → (target, follow-up) of the project's pairs."""
    rows = s.execute(select(Sample.external_id, Sample.parent_text, SamplePair.follow_up)
                     .join(SamplePair, SamplePair.sample_id == Sample.id)
                     .where(Sample.project_id == project_id))
    return {ext: (target, follow_up) for ext, target, follow_up in rows}


def _target_keys(s: Session, project_id: int) -> list[tuple[str, str]]:
    """(target text, target key) of the project's pairs, oldest first."""
    return [(text, key) for text, key in s.execute(
        select(Sample.parent_text, SamplePair.target_key).join(SamplePair, SamplePair.sample_id == Sample.id)
        .where(Sample.project_id == project_id).order_by(Sample.id))]


def _companions(s: Session, project_id: int, planned: Planned) -> dict[str, dict[str, Any]]:
    """The ``sample_pairs`` rows of the new pairs, by external id; refuses a ``target_id`` that
    names a different target in the project."""
    key_of: dict[str, str] = {}  # target text -> key (the first one it was given)
    text_of: dict[str, str] = {}  # key -> target text
    for text, key in _target_keys(s, project_id):
        key_of.setdefault(text, key)
        text_of.setdefault(key, text)
    for r, _ in planned:  # a key given on any line of the file holds for the target's other lines
        if r.target_id is not None:
            key_of.setdefault(r.target, r.target_id)
    rows: dict[str, dict[str, Any]] = {}
    for r, ext_id in planned:
        key = r.target_id or key_of.get(r.target) or generated_target_key(r.target)
        if text_of.setdefault(key, r.target) != r.target:
            raise InvalidInput(refusal(f"line {r.line}: target_id {key!r} already names a different target "
                                       "in this project", NOTHING_IMPORTED))
        rows[ext_id] = {"target_key": key, "follow_up": r.follow_up, "reference_alone": r.reference_alone,
                        "reference_given": r.reference_given, "reference_change": r.reference_change}
    return rows


PAIRS = ImportKind("import_pairs", "pair", True, _existing_pairs, lambda r: (r.target, r.follow_up),
                   _companions, ProjectSettings(protocol="pairs"))


def _check_pair_records(records: Sequence[PairRecord], source: str) -> None:
    """Refuse records that a parsed file could not hold (records made by a script): each id and
    target id fits its column, each target and follow-up is within a text's limit."""
    check_import_text(records, source)  # the file name and each pair's id
    for r in records:
        try:
            check_length(r.target_id or "", SamplePair.target_key, "target id")
            for what, text in (("target", r.target), ("follow-up", r.follow_up)):
                if not text.strip() or len(text) > MAX_TEXT_CHARS:
                    raise InvalidInput(f"The {what} is 1–{MAX_TEXT_CHARS} characters (yours has {len(text)}).")
        except InvalidInput as exc:
            raise InvalidInput(refusal(f"line {r.line}: {exc}", NOTHING_IMPORTED)) from None


@checks_numbers
def import_pairs(db: Database, actor: Actor, project_id: int | None, records: Sequence[PairRecord],
                 source: str = "", *, new_project: str | None = None) -> ImportSummary:
    """Lead: add context pairs to a context-pairs project's pool, all or nothing; with
    ``new_project`` (and no ``project_id``) a context-pairs project of that name is created as
    part of the import. A single-texts project is refused in one line. The summary's
    ``targets`` counts the targets of the pairs added."""
    _check_pair_records(records, source)
    return run_import(db, actor, project_id, records, source, new_project, PAIRS)


@checks_numbers
def import_pair_file(db: Database, actor: Actor, project_id: int | None, data: bytes, filename: str, *,
                     new_project: str | None = None) -> ImportSummary:
    """Parse and import an uploaded pairs file (:func:`annotation.corpus.pair_import.parse_pairs`);
    :class:`InvalidInput` names the line on bad files."""
    check_import_text((), filename)  # before the parse: a long file takes a while to read
    try:
        records = parse_pairs(data, filename)
    except ImportFileError as exc:
        raise InvalidInput(refusal(f"{filename}: {exc}", NOTHING_IMPORTED)) from None
    return import_pairs(db, actor, project_id, records, source=filename, new_project=new_project)


__all__ = ["PAIRS", "import_pair_file", "import_pairs"]
