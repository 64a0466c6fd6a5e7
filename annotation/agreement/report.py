"""The agreement report: every measure over a selection, per annotator pair and per week.

:func:`agreement_report` runs each measure unit (:mod:`annotation.agreement.measure`) three ways:

* ``compute`` over all samples — the full results (``report.results``);
* ``breakdown`` per **annotator pair** — for each pair of people who rated the same samples,
  their samples restricted to their two ratings (so a k = 3 sample counts for three pairs);
  Jaccard, kappa and Pk, and ICC(1,1) per parameter when the pair has at least
  ``IccMeasure.min_breakdown_samples`` samples with both curves (the published ICC's minimum,
  ``NEEDS["icc"]``: 30);
* ``breakdown`` per **ISO week** of the sample's last submission (when it became fully
  annotated) — the trend over time, with the same figures and the same ICC minimum;
* ``per_sample`` — the per-sample table for CSV download;
* ``intervals`` — seeded bootstrap 95% intervals of the headline figures
  (:mod:`annotation.agreement.intervals`).

Measures that tabulate (:class:`~annotation.agreement.measure.TabulatedMeasure`, all the default
ones) make one pass over the samples (shared arrays in :class:`~annotation.agreement.tables.SampleSet`),
and their pair and week figures are aggregated from those rows; a measure that only has
``breakdown`` is called once per group. The report is a frozen value; :meth:`AgreementReport.to_json` is what
``chronocept agreement --json`` prints.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from datetime import date
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from annotation.agreement.catalogue import SEGMENTED_CURVE, measures_for
from annotation.agreement.curve_agreement import CurveAgreementMeasure, CurveAgreementResult
from annotation.agreement.icc import IccResult
from annotation.agreement.icc_measure import IccMeasure
from annotation.agreement.intervals import DEFAULT_SEED, bootstrap_intervals
from annotation.agreement.jaccard import JaccardMeasure, JaccardResult
from annotation.agreement.kappa import KappaResult
from annotation.agreement.krippendorff_alpha import (
    KrippendorffCurveMeasure,
    KrippendorffLabelsMeasure,
    KrippendorffResult,
)
from annotation.agreement.measure import Measure, MeasureResult, TabulatedMeasure, json_ready
from annotation.agreement.ratings import RatedSample, clear_token_cache, iso_week
from annotation.agreement.segment_agreement import SegmentationMeasure, SegmentationResult
from annotation.agreement.segment_agreement import clear_cache as clear_segmentation_cache
from annotation.agreement.tables import Rows, SampleSet, concat_rows, sample_set, take_rows

#: The measures a report runs unless told otherwise (their order is the per-sample column order).
DEFAULT_MEASURES: tuple[Measure, ...] = measures_for(SEGMENTED_CURVE)
#: The measures behind :attr:`AgreementReport.headline` (ICC, Jaccard, Pk, W1, Krippendorff's
#: α) — what a dataset card states.
HEADLINE_MEASURES: tuple[Measure, ...] = (
    JaccardMeasure(), SegmentationMeasure(pk_only=True), IccMeasure(headline_only=True),
    CurveAgreementMeasure(), KrippendorffCurveMeasure(), KrippendorffLabelsMeasure())
#: The headline figures, in the order the page and the CLI list them (``alpha_*`` are
#: Krippendorff's α, not the curve parameter α).
HEADLINE_NAMES: tuple[str, ...] = ("icc_xi", "icc_omega", "icc_alpha", "jaccard", "pk", "w1",
                                   "alpha_xi", "alpha_omega", "alpha_alpha", "alpha_labels")

#: Leading columns of the per-sample table, before the measures' columns.
SAMPLE_COLUMNS: tuple[str, ...] = ("sample_id", "benchmark", "annotators", "n_ratings", "completed_at", "week")


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two annotators over the ``n_samples`` samples both rated.

    ``figures`` holds each measure's breakdown figures: ``jaccard``, ``kappa``, ``pk``,
    ``icc_xi``, ``icc_omega``, ``icc_alpha`` with the default measures (None where undefined).
    """

    annotators: tuple[str, str]
    n_samples: int
    figures: Mapping[str, float | None] = field(hash=False)

    def figure(self, name: str) -> float | None:
        return self.figures.get(name)

    @property
    def jaccard(self) -> float | None:
        return self.figures.get("jaccard")

    @property
    def kappa(self) -> float | None:
        return self.figures.get("kappa")

    @property
    def pk(self) -> float | None:
        return self.figures.get("pk")

    def to_json(self) -> dict[str, Any]:
        return json_ready({"annotators": list(self.annotators), "n_samples": self.n_samples, **self.figures})


@dataclass(frozen=True)
class WeekAgreement:
    """Agreement over the ``n_samples`` samples completed in ISO week ``week`` (Monday ``start``)."""

    week: str
    start: date
    n_samples: int
    figures: Mapping[str, float | None] = field(hash=False)

    def figure(self, name: str) -> float | None:
        return self.figures.get(name)

    def to_json(self) -> dict[str, Any]:
        return json_ready({"week": self.week, "start": self.start, "n_samples": self.n_samples, **self.figures})


@dataclass(frozen=True, eq=False)
class AgreementReport:
    """The whole agreement picture of a selection of samples.

    ``results`` maps measure name (``"jaccard"``, ``"kappa"``, ``"segmentation"``, ``"icc"``,
    ``"curve"``, ``"krippendorff_curve"``, ``"krippendorff_labels"``) to its result; ``pairs``
    are sorted by annotator names, ``weeks`` chronologically; ``per_sample`` has one row per
    sample (columns :data:`SAMPLE_COLUMNS`, then each measure's columns); ``intervals`` holds
    the bootstrap 95% interval (low, high) of every :attr:`headline` figure (NaN where undefined).
    Compared by identity (it holds a DataFrame); treat ``per_sample`` as read-only.
    """

    n_samples: int
    results: Mapping[str, MeasureResult]
    pairs: tuple[PairAgreement, ...]
    weeks: tuple[WeekAgreement, ...]
    per_sample: pd.DataFrame
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def icc(self) -> IccResult | None:
        return self.results.get("icc")  # type: ignore[return-value]

    @property
    def jaccard(self) -> JaccardResult | None:
        return self.results.get("jaccard")  # type: ignore[return-value]

    @property
    def kappa(self) -> KappaResult | None:
        return self.results.get("kappa")  # type: ignore[return-value]

    @property
    def segmentation(self) -> SegmentationResult | None:
        return self.results.get("segmentation")  # type: ignore[return-value]

    @property
    def curve(self) -> CurveAgreementResult | None:
        return self.results.get("curve")  # type: ignore[return-value]

    @property
    def krippendorff(self) -> dict[str, float]:
        """Krippendorff's α by headline name (``alpha_xi`` … ``alpha_labels``), where computed."""
        out: dict[str, float] = {}
        for result in self.results.values():
            if isinstance(result, KrippendorffResult):
                out.update(result.values)
        return out

    @property
    def headline(self) -> dict[str, float]:
        """The figures the page leads with and qualification compares: ICC(1,1) per parameter
        (``icc_xi`` …), mean ``jaccard``, mean ``pk``, mean ``w1`` (curve distance) and
        Krippendorff's α (``alpha_xi``, ``alpha_omega``, ``alpha_alpha``, ``alpha_labels``) —
        NaN where not computed."""
        out: dict[str, float] = {}
        if self.icc is not None:
            out.update({f"icc_{p}": v for p, v in self.icc.headline.items()})
        out["jaccard"] = self.jaccard.mean if self.jaccard is not None else math.nan
        out["pk"] = self.segmentation.pk if self.segmentation is not None else math.nan
        if self.curve is not None:
            out["w1"] = self.curve.mean_w1
        out.update(self.krippendorff)
        return out

    def interval(self, name: str) -> tuple[float, float]:
        """The bootstrap 95% interval of headline figure ``name`` ((NaN, NaN) when there is none)."""
        return self.intervals.get(name, (math.nan, math.nan))

    def to_json(self, *, include_samples: bool = True) -> dict[str, Any]:
        """A JSON-serialisable dict (NaN and inf → None) of everything in the report."""
        data: dict[str, Any] = {
            "n_samples": self.n_samples,
            "headline": self.headline,
            "intervals": {name: list(bounds) for name, bounds in self.intervals.items()},
            "measures": {name: result.to_json() for name, result in self.results.items()},
            "pairs": [p.to_json() for p in self.pairs],
            "weeks": [w.to_json() for w in self.weeks],
        }
        if include_samples:
            data["per_sample"] = self.per_sample.to_dict(orient="records")
        return json_ready(data)


def agreement_report(
    samples: Sequence[RatedSample], *, measures: Sequence[Measure] = DEFAULT_MEASURES,
    breakdowns: bool = True, flag_w1_max: float | None = None,
    resamples: int | None = None, seed: int = DEFAULT_SEED,
) -> AgreementReport:
    """Run ``measures`` over ``samples`` overall, per annotator pair and per week (module docstring).

    Samples with a single rating are kept in the per-sample table (with NaN figures) and count
    as excluded in the ICC; every measure skips the ratings that lack what it consumes. With
    ``breakdowns=False`` only the overall figures and their intervals are computed (no pairs,
    weeks or per-sample table) — enough for :attr:`AgreementReport.headline`. ``flag_w1_max``
    (the project's W1 flag threshold) replaces the curve measure's default; ``resamples`` (default
    :func:`~annotation.agreement.intervals.default_resamples`: 1000, fewer above 40k samples)
    and ``seed`` set the bootstrap (0 resamples: no intervals, all NaN).

    Examples:
        Two 4-token samples: identical one-segment ratings (J 1, Pk 0), and one segment against
        2 + 2 with the second half "static" (J 2/6, Pk 1). Pooled, 6 of 8 tokens agree but all
        of ann's are "main", so chance agreement is 6/8 too and kappa is 0.

        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 1, 5)
        >>> ann, bob = Rating("ann", t, (0,), ("main",)), Rating("bob", t, (0,), ("main",))
        >>> bob_split = Rating("bob", t, (0, 2), ("main", "static"))
        >>> report = agreement_report([RatedSample("s1", 1, 4, (ann, bob)),
        ...                            RatedSample("s2", 1, 4, (ann, bob_split))])
        >>> round(report.jaccard.mean, 4), report.segmentation.pk, report.kappa.headline
        (0.6667, 0.5, 0.0)
        >>> report.pairs[0].annotators, report.weeks[0].week, report.icc["xi"].ok   # no curves drawn
        (('ann', 'bob'), '2026-W02', False)
    """
    rated = sample_set(samples)
    measures = _with_threshold(measures, flag_w1_max)
    if any(isinstance(m, CurveAgreementMeasure) for m in measures):
        rated.start_curve_distances()  # numpy in a second thread while the other measures run
    names = [m.name for m in measures]
    if len(set(names)) != len(names):
        raise ValueError(f"measure names must be unique, got {names}")
    rows: dict[str, Rows] = {}
    results: dict[str, MeasureResult] = {}
    statistics: dict[str, Any] = {}
    for m in measures:
        if isinstance(m, TabulatedMeasure):
            rows[m.name] = m.tabulate(rated)
            results[m.name] = m.result(rows[m.name], rated)
            statistics.update({k: v for k, v in m.statistics(rows[m.name]).items() if k in HEADLINE_NAMES})
        else:
            results[m.name] = m.compute(rated)
    intervals = bootstrap_intervals(statistics, len(rated), resamples=resamples, seed=seed)
    report = AgreementReport(n_samples=len(rated), results=MappingProxyType(results), pairs=(), weeks=(),
                             per_sample=pd.DataFrame(), intervals=MappingProxyType({}))
    intervals = {name: intervals.get(name, (math.nan, math.nan)) for name in report.headline}
    if not breakdowns:
        return replace(report, intervals=MappingProxyType(intervals))
    completed = rated.completed_at
    weeks = [iso_week(c) for c in completed]
    return replace(
        report,
        pairs=_pair_breakdowns(rated, measures, rows),
        weeks=_week_breakdowns(rated, weeks, measures, rows),
        per_sample=_per_sample_table(rated, measures, rows, completed, weeks),
        intervals=MappingProxyType(intervals),
    )


def _with_threshold(measures: Sequence[Measure], flag_w1_max: float | None) -> tuple[Measure, ...]:
    if flag_w1_max is None:
        return tuple(measures)
    return tuple(replace(m, flag_w1_max=float(flag_w1_max)) if isinstance(m, CurveAgreementMeasure) else m
                 for m in measures)


def clear_caches() -> None:
    """Forget the memoised token labels and segmentation comparisons (for cold-start timing).

    Examples:
        >>> from annotation.agreement import ratings, segment_agreement
        >>> clear_caches()
        >>> ratings._token_axis_codes.cache_info().currsize
        0
        >>> segment_agreement._compare_ordered.cache_info().currsize
        0
    """
    clear_token_cache()
    clear_segmentation_cache()


def _group_figures(measures: Sequence[Measure], rows: Mapping[str, Rows],
                   group_rows: Callable[[Measure, Rows], Rows], group_samples: Callable[[], list[list[RatedSample]]],
                   labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
    """Each group's breakdown figures, measure by measure: from the tabulated rows (one call
    for all groups) or, for a measure that only has ``breakdown``, one call per group."""
    figures: list[dict[str, float | None]] = [{} for _ in range(n_groups)]
    for m in measures:
        if m.name in rows:
            per_group = m.figures(group_rows(m, rows[m.name]), labels, n_groups)  # type: ignore[attr-defined]
        else:
            per_group = [m.breakdown(group) for group in group_samples()]
        for out, values in zip(figures, per_group):
            out.update(values)
    return figures


def _pair_breakdowns(samples: SampleSet, measures: Sequence[Measure],
                     rows: Mapping[str, Rows]) -> tuple[PairAgreement, ...]:
    """Per pair of people who rated the same samples, their figures over those samples, each
    restricted to the two people's ratings. A sample with exactly two ratings by two people is
    its own restriction (its rows are reused); others are restricted and tabulated anew."""
    own_index: list[int] = []
    own_keys: list[tuple[str, str]] = []
    restricted: list[RatedSample] = []
    more_keys: list[tuple[str, str]] = []
    for i, people in enumerate(samples.annotators):
        if len(people) == 2 and people[0] != people[1]:
            own_index.append(i)
            own_keys.append((people[0], people[1]) if people[0] < people[1] else (people[1], people[0]))
            continue
        for a, b in itertools.combinations(sorted(set(people)), 2):
            restricted.append(samples[i].restricted_to((a, b)))
            more_keys.append((a, b))
    keys = sorted(set(own_keys) | set(more_keys))
    number = {key: g for g, key in enumerate(keys)}
    labels = np.fromiter((number[k] for k in itertools.chain(own_keys, more_keys)), dtype=np.int64,
                         count=len(own_keys) + len(more_keys))
    own = np.asarray(own_index, dtype=np.int64)
    more_set = SampleSet(restricted) if restricted else None

    def group_rows(measure: Measure, measure_rows: Rows) -> Rows:
        taken = take_rows(measure_rows, own)
        if more_set is None:
            return taken
        return concat_rows(taken, measure.tabulate(more_set))  # type: ignore[attr-defined]

    def group_samples() -> list[list[RatedSample]]:
        out: list[list[RatedSample]] = [[] for _ in keys]
        for sample, g in zip(itertools.chain((samples[i] for i in own_index), restricted), labels):
            out[g].append(sample)
        return out

    figures = _group_figures(measures, rows, group_rows, group_samples, labels, len(keys))
    sizes = np.bincount(labels, minlength=len(keys))
    return tuple(PairAgreement(key, int(sizes[g]), MappingProxyType(figures[g])) for g, key in enumerate(keys))


def _week_breakdowns(samples: SampleSet, weeks: list[str], measures: Sequence[Measure],
                     rows: Mapping[str, Rows]) -> tuple[WeekAgreement, ...]:
    keys = sorted(set(weeks))
    number = {key: g for g, key in enumerate(keys)}
    labels = np.fromiter((number[w] for w in weeks), dtype=np.int64, count=len(weeks))

    def group_samples() -> list[list[RatedSample]]:
        out: list[list[RatedSample]] = [[] for _ in keys]
        for sample, g in zip(samples, labels):
            out[g].append(sample)
        return out

    figures = _group_figures(measures, rows, lambda m, r: r, group_samples, labels, len(keys))
    sizes = np.bincount(labels, minlength=len(keys))
    return tuple(WeekAgreement(key, _week_start(key), int(sizes[g]), MappingProxyType(figures[g]))
                 for g, key in enumerate(keys))


def _week_start(week: str) -> date:
    year, number = week.split("-W")
    return date.fromisocalendar(int(year), int(number), 1)


def _per_sample_table(samples: SampleSet, measures: Sequence[Measure], rows: Mapping[str, Rows],
                      completed: list, weeks: list[str]) -> pd.DataFrame:
    columns: dict[str, Any] = {
        "sample_id": [s.sample_id for s in samples],
        "benchmark": np.fromiter((s.benchmark for s in samples), dtype=np.int64, count=len(samples)),
        "annotators": [", ".join(people) for people in samples.annotators],
        "n_ratings": samples.n_ratings,
        "completed_at": completed,
        "week": weeks,
    }
    for m in measures:
        values = m.columns(rows[m.name]) if m.name in rows else m.per_sample(samples)  # type: ignore[attr-defined]
        for name, column in values.items():
            if name in columns:
                raise ValueError(f"two measures both give the per-sample column {name!r}")
            columns[name] = np.asarray(column, dtype=float)
    return pd.DataFrame(columns)


__all__ = [
    "DEFAULT_MEASURES",
    "HEADLINE_MEASURES",
    "HEADLINE_NAMES",
    "SAMPLE_COLUMNS",
    "AgreementReport",
    "PairAgreement",
    "WeekAgreement",
    "agreement_report",
    "clear_caches",
]
