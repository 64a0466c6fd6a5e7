"""What an export reads from the database — the gold of the project's production samples
(active, not warm-up) and every submitted annotation of those samples — each in one query, and
everything the export makes of it from those rows: the gold samples with their provenance
(:mod:`annotation.services.export_provenance`), the annotations as interchange records (the
``annotations`` config) and, for the card's agreement figures, the samples with two or more
annotations as rated samples.

Called by :mod:`annotation.services.exports` inside its read transaction; the caller has checked
the actor's role. Annotators are named by pseudonym (``ann`` + user id), never by user name.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from annotation.agreement import RatedSample
from annotation.agreement.ratings import Rating
from annotation.export import GoldSample, Provenance
from annotation.interchange import interchange_record
from annotation.services.export_provenance import Version, sample_provenance
from db.engine import decode_json_texts
from db.models import Annotation, GoldAnnotation, Sample


def pseudonym(user_id: int) -> str:
    """The stable pseudonym of an annotator in exports."""
    return f"ann{user_id:02d}"


@dataclass(frozen=True)
class ExportInput:
    """What one export writes: ``samples`` (gold, with provenance, in sample id order),
    ``annotations`` (interchange records in base 1.1, by sample, submission time and id) and
    ``rated`` (the samples with two or more annotations; empty unless asked for) and
    ``curve_means`` (per sample id, the mean W1 and overlap of its pairs of curves, computed
    with the provenance: :meth:`annotation.agreement.tables.SampleSet.use_curve_distances`)."""

    samples: list[GoldSample]
    annotations: list[dict[str, Any]]
    rated: list[RatedSample]
    curve_means: dict[str, tuple[float, float]]


def _production(project_id: int) -> tuple:  # type: ignore[type-arg]
    return (Sample.project_id == project_id, Sample.status == "active", Sample.is_warmup.is_(False))


def read_export_input(s: Session, project_id: int, *, only: set[str] | None = None,
                      rated: bool = True) -> ExportInput:
    """The gold samples (only those in ``only`` when given), every submitted annotation of the
    project's gold samples and, with ``rated``, their rated samples (module docstring).

    The provenance's figures — numpy over every pair of curves and segmentations, which
    releases the GIL — are computed in a second thread while this one writes the annotations
    as records and rated samples."""
    gold = s.execute(
        select(Sample.external_id, Sample.benchmark, Sample.parent_text, cast(GoldAnnotation.boundaries, Text),
               cast(GoldAnnotation.segment_axes, Text), GoldAnnotation.xi, GoldAnnotation.omega,
               GoldAnnotation.alpha, GoldAnnotation.source, GoldAnnotation.confidence,
               GoldAnnotation.error_type)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(*_production(project_id))
        .order_by(Sample.id)).all()
    rows = s.execute(
        select(Sample.external_id, Annotation.annotator_id, cast(Annotation.boundaries, Text),
               cast(Annotation.segment_axes, Text), cast(Annotation.points, Text), Annotation.xi,
               Annotation.omega, Annotation.alpha, cast(Annotation.flags, Text), Annotation.note,
               Annotation.submitted_at, Sample.benchmark, Sample.n_tokens)
        .join(Sample, Sample.id == Annotation.sample_id)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(*_production(project_id), Annotation.status == "submitted")
        .order_by(Sample.id, Annotation.submitted_at, Annotation.id)).all()
    decoded = decode_json_texts(rows, (2, 3, 4, 8))
    versions: dict[str, tuple[int, list[Version]]] = {}
    for r, (bounds, axes, _, _) in zip(rows, decoded):
        entry = versions.get(r[0])
        if entry is None:
            entry = versions[r[0]] = (r[12], [])
        entry[1].append(Version(tuple(bounds), tuple(axes), r[5], r[6], r[7]))
    with ThreadPoolExecutor(max_workers=1) as pool:
        # over every gold sample, whatever ``only`` keeps: a sample's figures are its own
        figures = pool.submit(sample_provenance, [(r[0], r[8], r[9], r[10]) for r in gold], versions)
        records, rated_samples = _records(rows, decoded, rated)
        if only is not None:
            gold = [r for r in gold if r[0] in only]
        gold_values = decode_json_texts(gold, (3, 4))
        provenance, curve_means = figures.result()
    samples = [GoldSample(r[0], r[1], r[2], bounds, axes, r[5], r[6], r[7],
                          provenance.get(r[0], Provenance()))
               for r, (bounds, axes) in zip(gold, gold_values)]
    return ExportInput(samples, records, rated_samples, curve_means)


def _records(rows: Sequence[Any], decoded: Sequence[list[Any]], rated: bool
             ) -> tuple[list[dict[str, Any]], list[RatedSample]]:
    """The annotation rows (sample, submission time, id order) as interchange records and,
    with ``rated``, grouped per sample as rated samples (those with two or more)."""
    names: dict[int, str] = {}
    records: list[dict[str, Any]] = []
    rated_samples: list[RatedSample] = []
    group: list[Rating] = []
    for i, (r, (bounds, axes, points, flags)) in enumerate(zip(rows, decoded)):
        sample_id, who = r[0], r[1]
        name = names.get(who)
        if name is None:
            name = names[who] = pseudonym(who)
        records.append(interchange_record(sample_id, name, bounds, axes, points, r[5], r[6], r[7], flags,
                                          r[9], r[10]))
        if rated:
            group.append(Rating(name, r[10], tuple(bounds), tuple(axes), r[5], r[6], r[7]))
            if i + 1 == len(rows) or rows[i + 1][0] != sample_id:  # rows come grouped by sample
                if len(group) >= 2:
                    rated_samples.append(RatedSample(sample_id, r[11], r[12], tuple(group)))
                group = []
    return records, rated_samples
