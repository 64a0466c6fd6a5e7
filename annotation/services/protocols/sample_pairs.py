"""What makes a sample a context pair, read in one place: its follow-up, the key of its target,
an imported release's reference labels and, for a follow-up an annotator wrote, its author and
the change they intended.

Two views, so nothing leaks to the wrong reader: :class:`PairFacts` is everything (leads, the
back office, the export); :func:`follow_ups_of` gives annotators' screens the follow-up text and
nothing else — never a reference label nor an author's intent (no anchoring, blind validation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.protocols import ProjectProtocol, protocol_of
from annotation.services.lookup import project_settings
from db.models import SamplePair

#: ids per ``IN (...)`` query (both databases take far more; this keeps statements small)
_CHUNK = 1000


@dataclass(frozen=True)
class PairFacts:
    """A pair sample's row of ``sample_pairs`` (see :class:`db.models.SamplePair`)."""

    sample_id: int
    target_key: str
    follow_up: str
    reference_alone: int | None = None
    reference_given: int | None = None
    reference_change: str = ""
    intended_change: str = ""
    authored_by: int | None = None
    authored_from: int | None = None
    #: the author's own curve of the target given the follow-up (None unless authored)
    authored_curve: tuple[float, float, float] | None = None

    @property
    def has_reference(self) -> bool:
        return bool(self.reference_change) or self.reference_alone is not None


def _chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), _CHUNK):
        yield ordered[start:start + _CHUNK]


def pairs_of(s: Session, sample_ids: Iterable[int]) -> dict[int, PairFacts]:
    """The pair facts of those of ``sample_ids`` that are pairs, by sample id."""
    out: dict[int, PairFacts] = {}
    for chunk in _chunks(sample_ids):
        for row in s.scalars(select(SamplePair).where(SamplePair.sample_id.in_(chunk))):
            out[row.sample_id] = PairFacts(
                row.sample_id, row.target_key, row.follow_up, row.reference_alone,
                row.reference_given, row.reference_change or "", row.intended_change or "",
                row.authored_by, row.authored_from,
                None if row.authored_xi is None else (row.authored_xi, row.authored_omega, row.authored_alpha))
    return out


def follow_ups_of(s: Session, sample_ids: Iterable[int]) -> dict[int, str]:
    """The follow-up statements of those of ``sample_ids`` that are pairs — all an annotator's
    screen may know of a pair."""
    out: dict[int, str] = {}
    for chunk in _chunks(sample_ids):
        out.update((sample_id, follow_up) for sample_id, follow_up in s.execute(
            select(SamplePair.sample_id, SamplePair.follow_up).where(SamplePair.sample_id.in_(chunk))))
    return out


def project_protocol(s: Session, project_id: int | None) -> ProjectProtocol:
    """The protocol the project follows (:class:`NotFound` when there is no such project)."""
    return protocol_of(project_settings(s, project_id))


__all__ = ["PairFacts", "follow_ups_of", "pairs_of", "project_protocol"]
