"""What a protocol's services part declares (:class:`ProtocolServices`): the reads that differ
per protocol — the facts a sample holds besides its text (settling, review, the workbench) and
the gold an export writes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable

from sqlalchemy.orm import Session


def _no_facts(s: Session, sample_ids: Iterable[int]) -> dict[int, Any]:
    return {}


def _gold_as_read(s: Session, project_id: int, read: Any, only: set[str] | None) -> list[Any]:
    return list(read.samples)


@dataclass(frozen=True)
class ProtocolServices:
    """A protocol's reads, registered under its key (defaults: a single text's, which has none)."""

    key: str
    #: the facts of those of ``sample_ids`` that have any, by sample id, for leads and settling
    facts: Callable[[Session, Iterable[int]], dict[int, Any]] = _no_facts
    #: what an annotator's screen may know of those samples besides their text, by sample id
    annotator_facts: Callable[[Session, Iterable[int]], dict[int, Any]] = _no_facts
    #: the gold an export writes, from the export's common read (``ExportInput``; ``only``: the
    #: samples a repeated export keeps)
    export_gold: Callable[[Session, int, Any, set[str] | None], list[Any]] = _gold_as_read


__all__ = ["ProtocolServices"]
