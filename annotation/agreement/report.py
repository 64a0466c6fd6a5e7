"""The agreement report: every measure over a selection, per annotator pair and per week.

:func:`agreement_report` runs each measure unit (:mod:`annotation.agreement.measure`) three ways:

* ``compute`` over all samples — the full results (``report.results``);
* ``breakdown`` per **annotator pair** — for each pair of people who rated the same samples,
  their samples restricted to their two ratings (so a k = 3 sample counts for three pairs);
  Jaccard, kappa and Pk, and ICC(1,1) per parameter when the pair has at least
  ``IccMeasure.min_breakdown_samples`` (default 5) samples with both curves;
* ``breakdown`` per **ISO week** of the sample's last submission (when it became fully
  annotated) — the trend over time, with the same figures and the same ICC minimum;
* ``per_sample`` — the per-sample table for CSV download.

The report is a frozen value; :meth:`AgreementReport.to_json` is what
``chronocept agreement --json`` prints.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from annotation.agreement.icc import IccMeasure, IccResult
from annotation.agreement.jaccard import JaccardMeasure, JaccardResult
from annotation.agreement.kappa import KappaMeasure, KappaResult
from annotation.agreement.measure import Measure, MeasureResult, json_ready
from annotation.agreement.ratings import RatedSample, clear_token_cache
from annotation.agreement.segment_agreement import SegmentationMeasure, SegmentationResult
from annotation.agreement.segment_agreement import clear_cache as clear_segmentation_cache

#: The measures a report runs unless told otherwise (their order is the per-sample column order).
DEFAULT_MEASURES: tuple[Measure, ...] = (
    JaccardMeasure(),
    KappaMeasure(),
    SegmentationMeasure(),
    IccMeasure(),
)
#: The measures behind :attr:`AgreementReport.headline` (ICC, Jaccard, Pk) — what a dataset
#: card states.
HEADLINE_MEASURES: tuple[Measure, ...] = (
    JaccardMeasure(), SegmentationMeasure(pk_only=True), IccMeasure(headline_only=True))

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

    ``results`` maps measure name (``"jaccard"``, ``"kappa"``, ``"segmentation"``, ``"icc"``) to
    its result; ``pairs`` are sorted by annotator names, ``weeks`` chronologically; ``per_sample``
    has one row per sample (columns :data:`SAMPLE_COLUMNS`, then each measure's columns). Compared
    by identity (it holds a DataFrame); treat ``per_sample`` as read-only.
    """

    n_samples: int
    results: Mapping[str, MeasureResult]
    pairs: tuple[PairAgreement, ...]
    weeks: tuple[WeekAgreement, ...]
    per_sample: pd.DataFrame

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
    def headline(self) -> dict[str, float]:
        """The figures the page leads with and qualification compares: ICC(1,1) per parameter
        (``icc_xi`` …), mean ``jaccard``, mean ``pk`` (NaN where not computed)."""
        out: dict[str, float] = {}
        if self.icc is not None:
            out.update({f"icc_{p}": v for p, v in self.icc.headline.items()})
        out["jaccard"] = self.jaccard.mean if self.jaccard is not None else math.nan
        out["pk"] = self.segmentation.pk if self.segmentation is not None else math.nan
        return out

    def to_json(self, *, include_samples: bool = True) -> dict[str, Any]:
        """A JSON-serialisable dict (NaN and inf → None) of everything in the report."""
        data: dict[str, Any] = {
            "n_samples": self.n_samples,
            "headline": self.headline,
            "measures": {name: result.to_json() for name, result in self.results.items()},
            "pairs": [p.to_json() for p in self.pairs],
            "weeks": [w.to_json() for w in self.weeks],
        }
        if include_samples:
            data["per_sample"] = self.per_sample.to_dict(orient="records")
        return json_ready(data)


def agreement_report(
    samples: Sequence[RatedSample], *, measures: Sequence[Measure] = DEFAULT_MEASURES,
    breakdowns: bool = True,
) -> AgreementReport:
    """Run ``measures`` over ``samples`` overall, per annotator pair and per week (module docstring).

    Samples with a single rating are kept in the per-sample table (with NaN figures) and count
    as excluded in the ICC; every measure skips the ratings that lack what it consumes. With
    ``breakdowns=False`` only the overall figures are computed (no pairs, weeks or per-sample
    table) — enough for :attr:`AgreementReport.headline`.

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
    samples = list(samples)
    names = [m.name for m in measures]
    if len(set(names)) != len(names):
        raise ValueError(f"measure names must be unique, got {names}")
    results = {m.name: m.compute(samples) for m in measures}
    if not breakdowns:
        return AgreementReport(n_samples=len(samples), results=MappingProxyType(results), pairs=(),
                               weeks=(), per_sample=pd.DataFrame())
    pairs = tuple(
        PairAgreement(key, len(group), MappingProxyType(_breakdown(measures, group)))
        for key, group in sorted(_pair_groups(samples).items())
    )
    weeks = tuple(
        WeekAgreement(key, _week_start(key), len(group), MappingProxyType(_breakdown(measures, group)))
        for key, group in sorted(_week_groups(samples).items())
    )
    return AgreementReport(
        n_samples=len(samples),
        results=MappingProxyType(results),
        pairs=pairs,
        weeks=weeks,
        per_sample=_per_sample_table(samples, measures),
    )


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


def _breakdown(measures: Sequence[Measure], group: Sequence[RatedSample]) -> dict[str, float | None]:
    figures: dict[str, float | None] = {}
    for m in measures:
        figures.update(m.breakdown(group))
    return figures


def _pair_groups(samples: Sequence[RatedSample]) -> dict[tuple[str, str], list[RatedSample]]:
    groups: dict[tuple[str, str], list[RatedSample]] = defaultdict(list)
    for sample in samples:
        people = sorted(set(sample.annotators))
        if len(people) == 2 and len(sample.ratings) == 2:
            groups[(people[0], people[1])].append(sample)
            continue
        for a, b in itertools.combinations(people, 2):
            groups[(a, b)].append(sample.restricted_to((a, b)))
    return groups


def _week_groups(samples: Sequence[RatedSample]) -> dict[str, list[RatedSample]]:
    groups: dict[str, list[RatedSample]] = defaultdict(list)
    for sample in samples:
        groups[sample.week].append(sample)
    return groups


def _week_start(week: str) -> date:
    year, number = week.split("-W")
    return date.fromisocalendar(int(year), int(number), 1)


def _per_sample_table(samples: Sequence[RatedSample], measures: Sequence[Measure]) -> pd.DataFrame:
    columns: dict[str, Any] = {
        "sample_id": [s.sample_id for s in samples],
        "benchmark": np.array([s.benchmark for s in samples], dtype=np.int64),
        "annotators": [", ".join(s.annotators) for s in samples],
        "n_ratings": np.array([len(s.ratings) for s in samples], dtype=np.int64),
        "completed_at": [s.completed_at for s in samples],
        "week": [s.week for s in samples],
    }
    for m in measures:
        for name, values in m.per_sample(samples).items():
            if name in columns:
                raise ValueError(f"two measures both give the per-sample column {name!r}")
            columns[name] = np.asarray(values, dtype=float)
    return pd.DataFrame(columns)


__all__ = [
    "DEFAULT_MEASURES",
    "SAMPLE_COLUMNS",
    "AgreementReport",
    "PairAgreement",
    "WeekAgreement",
    "agreement_report",
    "clear_caches",
]
