"""The figures an export computes rather than reads: each gold sample's provenance figures (W1,
Pk and Jaccard between its submitted annotations, SPEC section 7) and the
card's headline agreement figures, from one compact input.

:class:`FigureInput` holds plain values only — strings, numbers, tuples, datetimes — so it
pickles cheaply: the service computes :func:`export_figures` in a second *process* for a large
export while its own process formats the records (the figures are numpy over every pair of
curves and segmentations; in a thread they would contend for the GIL with the pure-Python
formatting and gain nothing, measured). Small exports compute it in a thread.

Examples:
    >>> from datetime import datetime
    >>> t = datetime(2026, 11, 20, 10, 0)
    >>> figures = export_figures(FigureInput(
    ...     sample_ids=("s1",), benchmarks=(1,), n_tokens=(4,), counts=(2,),
    ...     annotators=("ann01", "ann02"), submitted_at=(t, t),
    ...     boundaries=((0,), (0, 2)), segment_axes=(("main",), ("main", "static")),
    ...     xi=(50.0, 62.0), omega=(10.0, 10.0), alpha=(0.0, 0.0),
    ...     gold=(("s1", "edited", 4, "guideline_gap"),)))
    >>> p = figures.provenance["s1"]
    >>> round(p.w1, 2), p.pk, round(p.jaccard, 4), p.resolution, p.confidence
    (12.0, 1.0, 0.3333, 'edited', 4)
    >>> figures.agreement is None                   # not asked for (``agreement=False``)
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation.review.adjudication import pair_figures, resolution_source
from annotation.agreement import RatedSample
from annotation.agreement.ratings import Rating
from annotation.agreement.report import HEADLINE_MEASURES
from annotation.export.card_agreement import ADJUDICATION, card_figures
from annotation.export.card_scopes import (
    BOOTSTRAP_SEED,
    Adjudication,
    adjudication_outcome,
    scope_report,
    scoped_figures,
)
from annotation.export.tvcp_agreement import pair_agreement_figures
from annotation.export.dataset import BENCHMARK_CONFIGS, Provenance
from annotation.timeaxis import DEFAULT_BASE

#: One gold row as the provenance reads it: (external id, source, confidence, error type).
GoldSource = tuple[str, str, "int | None", "str | None", "str | None", "str | None"]


@dataclass(frozen=True)
class FigureInput:
    """What the figures read, as plain values.

    Per sample with submitted annotations (in the order read: sample id): ``sample_ids``,
    ``benchmarks``, ``n_tokens`` and ``counts`` (its number of annotations). Per annotation, the
    samples' annotations one after another (each sample's in submission order): ``annotators``
    (pseudonyms), ``submitted_at``, ``boundaries``, ``segment_axes`` and ``xi``/``omega``/
    ``alpha`` (base-1.1 log minutes; None where not drawn). ``gold``: every gold row's
    (external id, source, confidence, error type). With ``agreement``, the card's figures are
    computed over the samples in ``exported`` (all when None), W1 in log ``base``. A context
    pair's (``pairs``) also carry, per annotation, the curve given the follow-up
    (``context_xi``/``context_omega``/``context_alpha``) and the change label as the annotator
    gave it (``changes``: their override, else the one their curves give), which the pairs
    card's agreement reads (:mod:`annotation.export.tvcp_agreement`)."""

    sample_ids: Sequence[str]
    benchmarks: Sequence[int]
    n_tokens: Sequence[int]
    counts: Sequence[int]
    annotators: Sequence[str]
    submitted_at: Sequence[datetime]
    boundaries: Sequence[tuple[int, ...]]
    segment_axes: Sequence[tuple[str | None, ...]]
    xi: Sequence[float | None]
    omega: Sequence[float | None]
    alpha: Sequence[float | None]
    gold: Sequence[GoldSource]
    agreement: bool = False
    exported: frozenset[str] | None = None
    base: float = DEFAULT_BASE
    adjudication: "Adjudication | None" = None
    pairs: bool = False
    context_xi: Sequence[float | None] = ()
    context_omega: Sequence[float | None] = ()
    context_alpha: Sequence[float | None] = ()
    changes: Sequence[str | None] = ()


@dataclass(frozen=True)
class ExportFigures:
    """``provenance``: ``{external id: Provenance}`` of every gold row. ``agreement``: the card's
    figures per benchmark config (:func:`agreement_figures`; a pairs export's under ``tvcp``:
    :func:`~annotation.export.tvcp_agreement.pair_agreement_figures`), None unless asked for."""

    provenance: dict[str, Provenance]
    agreement: dict[str, Any] | None


def export_figures(data: FigureInput) -> ExportFigures:
    """The provenance of every gold row and, with ``data.agreement``, the card's figures (module
    docstring). Pure: the same input gives the same figures, in any process.

    Examples:
        >>> from datetime import datetime
        >>> t = datetime(2026, 11, 20)
        >>> data = FigureInput(("s1", "s2"), (1, 1), (3, 3), (2, 1), ("ann01", "ann02", "ann01"), (t, t, t),
        ...                    ((0,), (0,), (0,)), (("main",),) * 3, (40.0, 40.0, 40.0), (10.0,) * 3, (0.0,) * 3,
        ...                    gold=(("s1", "auto", None, None), ("s2", "auto", None, None)), agreement=True)
        >>> figures = export_figures(data)
        >>> figures.provenance["s1"].w1, figures.provenance["s2"].pk, figures.agreement["benchmark_1"]["n_samples"]
        (0.0, None, 1)
    """
    versions: list[tuple[int, list[Version]]] = []
    rated: list[RatedSample] = []
    given: list[RatedSample] = []  # a pair's curves given the follow-up
    start = 0
    for sample_id, benchmark, n_tokens, count in zip(data.sample_ids, data.benchmarks, data.n_tokens, data.counts):
        span = range(start, start + count)
        start += count
        versions.append((n_tokens, [Version(data.boundaries[i], data.segment_axes[i], data.xi[i], data.omega[i],
                                            data.alpha[i]) for i in span]))
        if data.agreement and count >= 2:
            rated.append(RatedSample(sample_id, benchmark, n_tokens, tuple(
                Rating(data.annotators[i], data.submitted_at[i], data.boundaries[i], data.segment_axes[i],
                       data.xi[i], data.omega[i], data.alpha[i], data.changes[i] if data.pairs else None)
                for i in span)))
            if data.pairs:
                given.append(RatedSample(sample_id, benchmark, n_tokens, tuple(
                    Rating(data.annotators[i], data.submitted_at[i], data.boundaries[i], data.segment_axes[i],
                           data.context_xi[i], data.context_omega[i], data.context_alpha[i]) for i in span)))
    provenance, curve_means = sample_provenance(data.gold, dict(zip(data.sample_ids, versions)))
    agreement = None
    if data.agreement:
        exported = data.exported if data.exported is not None else frozenset(data.sample_ids)
        gold = {g[0]: resolution_source(g[1]) for g in data.gold}
        if data.pairs:
            agreement = pair_agreement_figures(rated, given, exported, data.base, curve_means,
                                               adjudication=data.adjudication, gold=gold)
        else:
            agreement = agreement_figures(rated, exported, data.base, curve_means,
                                          adjudication=data.adjudication, gold=gold)
    return ExportFigures(provenance, agreement)


def sample_provenance(gold: Iterable[GoldSource], versions: Mapping[str, tuple[int, Sequence["Version"]]]
                      ) -> tuple[dict[str, Provenance], dict[str, tuple[float, float]]]:
    """``{external id: Provenance}`` of every gold row, from ``versions`` — per sample (in the
    order the annotations were read: sample, submission time, id), its token count and its
    submitted annotations (:class:`Version`) — and, from the same pairs of curves, each
    sample's mean W1 and overlap (NaN where it has no two curves), which the card's agreement
    report takes instead of computing every pair again.

    Examples:
        >>> a, b = Version((0,), ("main",), 40.0, 10.0, 0.0), Version((0,), ("main",), 44.0, 10.0, 0.0)
        >>> provenance, means = sample_provenance([("s1", "annotator", 3, "other"), ("s2", "auto", None, None)],
        ...                                       {"s1": (5, [a, b]), "s2": (5, [a])})
        >>> p = provenance["s1"]
        >>> round(p.w1, 2), p.pk, p.jaccard, p.resolution, p.confidence, p.error_type
        (4.0, 0.0, 1.0, 'taken', 3, 'other')
        >>> provenance["s2"].w1 is None, round(means["s1"][0], 2)     # one curve: no pair
        (True, 4.0)
    """
    ids = list(versions)
    pairs = pair_figures([versions[i] for i in ids])  # type: ignore[misc]
    figures = dict(zip(ids, pairs.per_sample()))
    mean_w1, mean_overlap = pairs.curve_means()
    curve_means = dict(zip(ids, zip(mean_w1.tolist(), mean_overlap.tolist())))
    out = {}
    for external_id, source, confidence, error_type, *pooled in gold:
        f = figures.get(external_id)
        out[external_id] = Provenance(
            f.w1 if f else None, f.pk if f else None, f.jaccard if f else None,
            resolution_source(source), confidence, error_type or None, *pooled)
    return out, curve_means


def agreement_figures(rated: Sequence[RatedSample], exported: frozenset[str] | set[str], base: float,
                      curve_means: Mapping[str, tuple[float, float]], *,
                      adjudication: Adjudication | None = None,
                      gold: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The card's agreement figures per benchmark config (ICC(1,1) per parameter, Jaccard, Pk,
    W1 in log ``base`` and Krippendorff's α, each with its n and seeded bootstrap 95 % interval:
    :func:`annotation.export.card_figures`):

    * the headline, **before adjudication**: every sample of ``rated`` (the project's production
      samples with two or more submitted annotations) of that benchmark — the Agreement page's
      scope with that benchmark chosen, and its figures: the same bootstrap seed and resamples;
    * ``settled``: the same figures over those of them in ``exported`` (the gold this export
      writes), ``excluded`` (why the others are not: reason → count) and ``discarded`` (samples a
      lead discarded after two or more annotations, outside both);

    and under ``adjudication`` how the samples went through review (:func:`~annotation.export.card_scopes.adjudication_outcome`;
    ``gold`` maps each gold sample to how it was resolved). The per-sample curve distances come
    from ``curve_means`` (computed with the provenance).

    Examples:
        >>> from datetime import datetime
        >>> def rated(i, shift):
        ...     t = datetime(2026, 11, 20)
        ...     return RatedSample(f"s{i}", 1, 4, (Rating("ann01", t, (0,), ("main",), 40.0 + i, 10.0, 0.0),
        ...                                         Rating("ann02", t, (0,), ("main",), 40.0 + i + shift, 10.0, 0.0)))
        >>> samples = [rated(i, 2.0) for i in range(12)]
        >>> figures = agreement_figures(samples, {f"s{i}" for i in range(10)}, 1.1,
        ...                             {f"s{i}": (2.0, 0.9) for i in range(12)},
        ...                             adjudication=Adjudication(open_review=frozenset({"s10"})))
        >>> card = figures["benchmark_1"]
        >>> card["n_samples"], card["w1"], card["settled"]["n_samples"], card["excluded"]
        (12, 2.0, 10, {'flagged, awaiting a lead': 1, 'not resolved yet': 1})
        >>> card["settled"]["n"]["w1"], card["intervals"]["w1"]
        (10, [2.0, 2.0])
    """
    figures: dict[str, Any] = {}
    adjudication = adjudication or Adjudication()

    def figures_of(samples: Sequence[RatedSample]) -> dict[str, Any]:
        report, resamples = scope_report(samples, HEADLINE_MEASURES, curve_means)
        return card_figures(report, base=base, resamples=resamples, seed=BOOTSTRAP_SEED)

    for b, config in BENCHMARK_CONFIGS.items():
        scope = [r for r in rated if r.benchmark == b]
        if scope:
            figures[config] = scoped_figures(scope, exported, figures_of, adjudication=adjudication, gold=gold or {},
                                             discarded=adjudication.discarded.get(b, 0))
    if figures:
        figures[ADJUDICATION] = adjudication_outcome(rated, adjudication, gold or {}, exported)
    return figures


class Version:
    """The parts of an annotation the provenance figures read (lighter than a checked
    AnnotationContent: an export reads every annotation of the project)."""

    __slots__ = ("boundaries", "segment_axes", "xi", "omega", "alpha", "has_parameters")

    def __init__(self, boundaries: tuple[int, ...], segment_axes: tuple[str | None, ...],
                 xi: float | None, omega: float | None, alpha: float | None) -> None:
        self.boundaries, self.segment_axes = boundaries, segment_axes
        self.xi, self.omega, self.alpha = xi, omega, alpha
        self.has_parameters = xi is not None and omega is not None and alpha is not None


def _serve(given: str, out: str) -> None:
    """``python -m annotation.export.figures GIVEN OUT``: wait for a line on stdin (the caller
    sends it once ``GIVEN`` is written — so this interpreter can start, and import numpy and
    the agreement modules, while the caller still reads the database), read the pickled
    :class:`FigureInput` from ``GIVEN`` and write the pickled :class:`ExportFigures` to ``OUT``
    (how the service computes a large export's figures in a second process:
    :mod:`annotation.services.export.exports`).

    Both files lie in a folder of their own, which the caller removes; when the caller is gone
    (stdin closed without a line, or a new parent process by the end) this process removes it."""
    import gc
    import os
    import pickle
    import shutil
    import sys
    from pathlib import Path

    gc.disable()  # a short-lived process making a few hundred thousand acyclic objects
    parent = os.getppid()
    folder = Path(given).parent
    if not sys.stdin.readline().strip():
        shutil.rmtree(folder, ignore_errors=True)
        raise SystemExit("the export was given up before its figures were asked for")
    with open(given, "rb") as f:
        data = pickle.load(f)
    if not isinstance(data, FigureInput):
        raise SystemExit(f"expected a pickled FigureInput, got {type(data).__name__}")
    figures = export_figures(data)
    if os.getppid() != parent:  # the export's process died meanwhile: nobody will read or remove this
        shutil.rmtree(folder, ignore_errors=True)
        return
    with open(out, "wb") as f:
        pickle.dump(figures, f, protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    # Run as a script this file is ``__main__``; the pickles name the classes of the module
    # ``annotation.export.figures``, so serve from that module, not from this copy.
    import sys

    from annotation.export.figures import _serve as serve

    serve(*sys.argv[1:3])
