"""The provenance of every gold sample of a project, for the export's records (issue 12 item 8):
W1, Pk and Jaccard between the sample's submitted annotations
(:func:`annotation.adjudication.sample_figures`, all samples at once), the resolution source of
its gold and the lead's confidence and error type (None where no lead decided).

Called by :mod:`annotation.services.exports` inside its read transaction; the caller has checked
the actor's role.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from annotation.adjudication import resolution_source, sample_figures
from annotation.export import GoldSample, Provenance
from annotation.protocol import AnnotationContent
from db.engine import decode_json_texts
from db.models import Annotation, GoldAnnotation, Sample


def _gold_filter(project_id: int) -> tuple:  # type: ignore[type-arg]
    return (Sample.project_id == project_id, Sample.status == "active", Sample.is_warmup.is_(False))


def sample_provenance(s: Session, project_id: int) -> dict[str, Provenance]:
    """``{external id: Provenance}`` of every exportable gold sample of the project."""
    gold = s.execute(
        select(Sample.external_id, GoldAnnotation.source, GoldAnnotation.confidence,
               GoldAnnotation.error_type)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(*_gold_filter(project_id))).all()
    rows = s.execute(
        select(Sample.external_id, Sample.n_tokens, cast(Annotation.boundaries, Text),
               cast(Annotation.segment_axes, Text), Annotation.xi, Annotation.omega, Annotation.alpha)
        .join(Sample, Sample.id == Annotation.sample_id)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(*_gold_filter(project_id), Annotation.status == "submitted")
        .order_by(Sample.id, Annotation.submitted_at, Annotation.id)).all()
    by_sample: dict[str, tuple[int, list[AnnotationContent]]] = {}
    for r, (bounds, axes) in zip(rows, decode_json_texts(rows, (2, 3))):
        has_curve = None not in (r[4], r[5], r[6])
        content = _Version(tuple(bounds), tuple(axes), r[4], r[5], r[6], has_curve)
        by_sample.setdefault(r[0], (r[1], []))[1].append(content)  # type: ignore[arg-type]
    ids = list(by_sample)
    figures = dict(zip(ids, sample_figures([by_sample[i] for i in ids])))
    out = {}
    for external_id, source, confidence, error_type in gold:
        f = figures.get(external_id)
        out[external_id] = Provenance(
            f.w1 if f else None, f.pk if f else None, f.jaccard if f else None,
            resolution_source(source), confidence, error_type or None)
    return out


def with_provenance(samples: list[GoldSample], provenance: dict[str, Provenance]) -> list[GoldSample]:
    """The gold samples, each carrying its provenance (unknown: all None)."""
    return [replace(g, provenance=provenance.get(g.external_id, Provenance())) for g in samples]


class _Version:
    """The parts of an annotation the figures read (lighter than a checked AnnotationContent:
    an export reads every annotation of the project)."""

    __slots__ = ("boundaries", "segment_axes", "xi", "omega", "alpha", "has_parameters")

    def __init__(self, boundaries, segment_axes, xi, omega, alpha, has_parameters) -> None:  # type: ignore[no-untyped-def]
        self.boundaries, self.segment_axes = boundaries, segment_axes
        self.xi, self.omega, self.alpha, self.has_parameters = xi, omega, alpha, has_parameters
