"""The context-pairs protocol's reads: a sample's pair facts (:mod:`~annotation.services.protocols.sample_pairs`)
— everything for leads and settling, the follow-up alone for annotators — and the gold an export
writes: each pair's gold with its follow-up, target key and reference labels, in one query."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.export.tvcp import PairGold
from annotation.services.lookup import production
from annotation.services.protocols.parts import ProtocolServices
from annotation.services.protocols.sample_pairs import follow_ups_of, pairs_of
from annotation.services.rows import pair_gold_of
from db.models import GoldAnnotation, Sample, SamplePair


def read_pair_gold(s: Session, project_id: int, annotation_counts: dict[str, int], *,
                   only: set[str] | None = None) -> list[PairGold]:
    """The gold of a context-pairs project's production samples (only those in ``only`` when
    given) with their pair facts, in one query; ``annotation_counts`` ({external id: submitted
    annotations}) gives each its ``n_annotations``. A gold sample without a ``sample_pairs`` row
    comes back with no target key and no follow-up (:meth:`PairGold.problem` names it)."""
    rows = s.execute(
        select(Sample.external_id, Sample.parent_text, GoldAnnotation.xi, GoldAnnotation.omega,
               GoldAnnotation.alpha, GoldAnnotation.context_xi, GoldAnnotation.context_omega,
               GoldAnnotation.context_alpha, GoldAnnotation.change, SamplePair.target_key,
               SamplePair.follow_up, SamplePair.reference_alone, SamplePair.reference_given,
               SamplePair.reference_change, GoldAnnotation.curves_change)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .outerjoin(SamplePair, SamplePair.sample_id == Sample.id)
        .where(*production(project_id))
        .order_by(Sample.id)).all()
    return [pair_gold_of(r, annotation_counts.get(r.external_id, 0))
            for r in rows if only is None or r.external_id in only]


def export_gold(s: Session, project_id: int, read: Any, only: set[str] | None) -> list[PairGold]:
    """The pairs an export writes (each with its count of submitted annotations, from the read)."""
    counts = dict(zip(read.figures.sample_ids, read.figures.counts))
    return read_pair_gold(s, project_id, counts, only=only)


SERVICES = ProtocolServices("pairs", facts=pairs_of, annotator_facts=follow_ups_of, export_gold=export_gold)

__all__ = ["SERVICES", "export_gold", "read_pair_gold"]
