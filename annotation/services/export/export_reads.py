"""What an export reads from the database — the gold of the project's production samples
(active, not warm-up), every submitted annotation of its production samples (the records are
the gold samples'; the card's agreement before adjudication reads them all) and how the samples
went through review — each in one query, and
what the export makes of those rows: the gold samples, the annotations as interchange records
(the ``annotations`` config; a context pair's with the curve given the follow-up) and the
compact input of the computed figures (:class:`annotation.export.figures.FigureInput`: the
records' provenance and the card's agreement figures).

:func:`read_export_input` is called by :mod:`annotation.services.export.exports` inside its read
transaction (the caller has checked the actor's role); the rest works on the rows it read, after
the transaction. Annotators are named by pseudonym (``ann`` + user id), never by user name.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast, func, select
from sqlalchemy.orm import Session

from annotation.export import GoldSample
from annotation.export.card_scopes import Adjudication
from annotation.export.figures import FigureInput
from annotation.flag_reasons import FLAG_CODES
from annotation.corpus.interchange import interchange_record, pair_interchange_values
from annotation.services.quality.agreement import annotation_change
from annotation.services.lookup import production
from annotation.services.quality.experts import project_expert_figures
from db.engine import Database, decode_json_texts
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample


#: The JSON columns of an annotation an export record carries, read as text (decoded in one go).
RECORD_JSON = ("boundaries", "segment_axes", "points", "flags")
#: What a context pair's annotation record carries besides: the curve given the follow-up (its
#: points a JSON column, read like those above) and the annotator's change override.
PAIR_JSON = ("context_points",)
PAIR_VALUES = ("context_xi", "context_omega", "context_alpha", "change")


def pooled_weights(stored: str | None) -> str | None:
    """A gold's stored pooling weights ({annotator id: weight} as JSON text) as the export writes
    them: JSON text keyed by the annotators' pseudonyms; None for none.

    >>> pooled_weights('{"3": 0.75, "12": 0.25}'), pooled_weights(None), pooled_weights("null")
    ('{"ann03": 0.75, "ann12": 0.25}', None, None)
    """
    weights = json.loads(stored) if stored else None
    if not weights:
        return None
    return json.dumps({pseudonym(int(k)): float(v) for k, v in weights.items()}, sort_keys=True)


def pseudonym(user_id: int) -> str:
    """The stable pseudonym of an annotator in exports."""
    return f"ann{user_id:02d}"


def expert_figures_by_pseudonym(db: Database, project_id: int) -> dict[str, Any]:
    """The project's annotators as experts (:func:`annotation.services.quality.experts.project_expert_figures`;
    the caller has checked the actor's role) as the card stores them: named by pseudonym."""
    overview = project_expert_figures(db, project_id)
    return dataclasses.replace(overview, names={uid: pseudonym(uid) for uid in overview.figures}).to_json()


@dataclass(frozen=True)
class ExportInput:
    """What one export writes, as read: ``samples`` (gold in sample id order, their provenance
    not filled in: it comes from the figures), ``figures`` (the input of
    :func:`annotation.export.figures.export_figures`, over every gold sample whatever ``only``
    kept) and the annotation rows with their decoded JSON columns (:meth:`records`)."""

    samples: list[GoldSample]
    figures: FigureInput
    rows: Sequence[Any]
    decoded: Sequence[list[Any]]
    #: whether the rows hold a context pair's curve given the follow-up (``read_export_input(pairs=True)``)
    pairs: bool = False

    def records(self) -> list[dict[str, Any]]:
        """The annotations of the gold samples as interchange records (base 1.1, by sample,
        submission time and id); a context pair's (read with ``pairs``) with the curve given the
        follow-up and the change. (The rows also hold the annotations of samples without gold,
        which only the card's agreement before adjudication reads.)"""
        gold = {g[0] for g in self.figures.gold}
        # the pseudonyms were made once, for the figures (one per row, in row order)
        chosen = [(r, d, name) for r, d, name in zip(self.rows, self.decoded, self.figures.annotators)
                  if r.external_id in gold]
        records = [interchange_record(r.external_id, name, d[0], d[1], d[2], r.xi, r.omega, r.alpha, d[3],
                                      r.note, r.submitted_at)
                   for r, d, name in chosen]
        if self.pairs:
            for record, (r, d, _) in zip(records, chosen):
                record.update(pair_interchange_values(d[len(RECORD_JSON)], *(getattr(r, c) for c in PAIR_VALUES)))
        return records


def count_gold(s: Session, project_id: int) -> int:
    """How many production samples of the project have gold (what an export writes)."""
    return s.scalar(select(func.count()).select_from(Sample)
                    .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
                    .where(*production(project_id))) or 0


def read_export_input(s: Session, project_id: int, *, only: set[str] | None = None,
                      agreement: bool = True, pairs: bool = False, change_factor: float = 1.0) -> ExportInput:
    """The gold samples (only those in ``only`` when given) and every submitted annotation of
    the project's production samples, each in one query (module docstring); with ``agreement`` the
    figures include the card's, over the samples kept (W1 in base 1.1 until the caller sets
    the export's base); with ``pairs`` the annotations' curves given the follow-up too, and for
    the card each annotation's change label as the Agreement page reads it (against the
    project's ``change_factor``)."""
    gold = s.execute(
        select(Sample.external_id, Sample.benchmark, Sample.parent_text,
               cast(GoldAnnotation.boundaries, Text).label("boundaries_json"),
               cast(GoldAnnotation.segment_axes, Text).label("segment_axes_json"), GoldAnnotation.xi,
               GoldAnnotation.omega, GoldAnnotation.alpha, GoldAnnotation.source, GoldAnnotation.confidence,
               GoldAnnotation.error_type, GoldAnnotation.pooling,
               cast(GoldAnnotation.pool_weights, Text).label("pool_weights_json"))
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(*production(project_id))
        .order_by(Sample.id)).all()
    json_columns = (*RECORD_JSON, *PAIR_JSON) if pairs else RECORD_JSON
    rows = s.execute(
        select(Sample.external_id, Annotation.annotator_id,
               *(cast(getattr(Annotation, name), Text).label(f"{name}_json") for name in json_columns),
               Annotation.xi, Annotation.omega, Annotation.alpha, Annotation.note,
               Annotation.submitted_at, Sample.benchmark, Sample.n_tokens,
               *(getattr(Annotation, name) for name in (PAIR_VALUES if pairs else ())))
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(*production(project_id), Annotation.status == "submitted")
        .order_by(Sample.id, Annotation.submitted_at, Annotation.id)).all()
    decoded = decode_json_texts(rows, [f"{name}_json" for name in json_columns])
    sample_ids: list[str] = []
    benchmarks: list[int] = []
    n_tokens: list[int] = []
    counts: list[int] = []
    for r in rows:  # grouped by sample
        if not sample_ids or sample_ids[-1] != r.external_id:
            sample_ids.append(r.external_id), benchmarks.append(r.benchmark), n_tokens.append(r.n_tokens)
            counts.append(0)
        counts[-1] += 1
    kept = [r for r in gold if r.external_id in only] if only is not None else gold
    figures = FigureInput(
        sample_ids, benchmarks, n_tokens, counts,
        annotators=[pseudonym(r.annotator_id) for r in rows], submitted_at=[r.submitted_at for r in rows],
        boundaries=[tuple(d[0]) for d in decoded], segment_axes=[tuple(d[1]) for d in decoded],
        xi=[r.xi for r in rows], omega=[r.omega for r in rows], alpha=[r.alpha for r in rows],
        # the provenance covers every gold sample, whatever ``only`` keeps: a sample's figures are its own
        gold=[(r.external_id, r.source, r.confidence, r.error_type, r.pooling or None,
               pooled_weights(r.pool_weights_json)) for r in gold],
        agreement=agreement, exported=frozenset(r.external_id for r in kept),
        adjudication=read_adjudication(s, project_id) if agreement else None,
        **(_pair_figure_input(rows, change_factor, agreement) if pairs else {}))
    samples = [GoldSample(r.external_id, r.benchmark, r.parent_text, bounds, axes, r.xi, r.omega, r.alpha)
               for r, (bounds, axes) in zip(kept, decode_json_texts(kept, ["boundaries_json", "segment_axes_json"]))]
    return ExportInput(samples, figures, rows, decoded, pairs)


def _pair_figure_input(rows: Sequence[Any], change_factor: float, agreement: bool) -> dict[str, Any]:
    """A context pair's part of the figures' input: per annotation its curve given the follow-up
    and, for the card's agreement, its change label (:func:`annotation_change`, as the page)."""
    return {"pairs": True, "context_xi": [r.context_xi for r in rows],
            "context_omega": [r.context_omega for r in rows], "context_alpha": [r.context_alpha for r in rows],
            "changes": [annotation_change(r, change_factor) for r in rows] if agreement else ()}


def read_adjudication(s: Session, project_id: int) -> Adjudication:
    """How the project's production samples went through review (the card's adjudication
    outcome and the reasons samples are left out of its settled gold), and how many samples a
    lead discarded after two or more annotations, per benchmark (outside the agreement's scope,
    as on the Agreement page)."""
    items = s.execute(
        select(Sample.external_id, ReviewItem.status, ReviewItem.decision,
               cast(ReviewItem.reasons, Text).label("reasons_json"))
        .join(Sample, Sample.id == ReviewItem.sample_id)
        .where(*production(project_id))).all()
    flag_codes = set(FLAG_CODES)
    flagged = frozenset(r.external_id for r in items if set(json.loads(r.reasons_json or "[]")) & flag_codes)
    open_review = frozenset(r.external_id for r in items if r.status == "open")
    decisions: dict[str, int] = {}
    for r in items:
        if r.status == "closed" and r.decision:
            decisions[r.decision] = decisions.get(r.decision, 0) + 1
    doubly = (select(Annotation.sample_id).where(Annotation.status == "submitted")
              .group_by(Annotation.sample_id).having(func.count() >= 2))
    discarded = dict(s.execute(
        select(Sample.benchmark, func.count()).where(
            Sample.project_id == project_id, Sample.status == "discarded", Sample.is_warmup.is_(False),
            Sample.id.in_(doubly)).group_by(Sample.benchmark)).all())
    return Adjudication(flagged, open_review, decisions, {int(b): int(n) for b, n in discarded.items()})
