"""The provenance of every gold sample of a project, for the export's records (issue 12 item 8):
W1, Pk and Jaccard between the sample's submitted annotations
(:func:`annotation.adjudication.pair_figures`, all samples at once), the resolution source of
its gold and the lead's confidence and error type (None where no lead decided).

Computed from what :mod:`annotation.services.export_reads` has already read — the gold rows and
every submitted annotation, each read once — so the provenance costs no query of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from annotation.adjudication import pair_figures, resolution_source
from annotation.export import Provenance

#: One gold row as the provenance reads it: (external id, source, confidence, error type).
GoldSource = tuple[str, str, "int | None", "str | None"]


def sample_provenance(gold: Iterable[GoldSource], versions: Mapping[str, tuple[int, Sequence["Version"]]]
                      ) -> tuple[dict[str, Provenance], dict[str, tuple[float, float]]]:
    """``{external id: Provenance}`` of every gold row, from ``versions`` — per sample (in the
    order the annotations were read: sample, submission time, id), its token count and its
    submitted annotations (:class:`Version`) — and, from the same pairs of curves, each
    sample's mean W1 and overlap (NaN where it has no two curves), which the card's agreement
    report takes instead of computing every pair again."""
    ids = list(versions)
    pairs = pair_figures([versions[i] for i in ids])  # type: ignore[misc]
    figures = dict(zip(ids, pairs.per_sample()))
    mean_w1, mean_overlap = pairs.curve_means()
    curve_means = dict(zip(ids, zip(mean_w1.tolist(), mean_overlap.tolist())))
    out = {}
    for external_id, source, confidence, error_type in gold:
        f = figures.get(external_id)
        out[external_id] = Provenance(
            f.w1 if f else None, f.pk if f else None, f.jaccard if f else None,
            resolution_source(source), confidence, error_type or None)
    return out, curve_means


class Version:
    """The parts of an annotation the figures read (lighter than a checked AnnotationContent:
    an export reads every annotation of the project)."""

    __slots__ = ("boundaries", "segment_axes", "xi", "omega", "alpha", "has_parameters")

    def __init__(self, boundaries: tuple[int, ...], segment_axes: tuple[str | None, ...],
                 xi: float | None, omega: float | None, alpha: float | None) -> None:
        self.boundaries, self.segment_axes = boundaries, segment_axes
        self.xi, self.omega, self.alpha = xi, omega, alpha
        self.has_parameters = xi is not None and omega is not None and alpha is not None
