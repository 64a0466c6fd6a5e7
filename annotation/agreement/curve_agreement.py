"""Curve agreement: how far apart the annotators' validity curves are (issue 12, item 1).

Consumes curve parameters. For every pair of a sample's ratings with ξ, ω, α, the Wasserstein-1
distance between the two normalised densities on the log-time axis and their overlap coefficient
(:func:`annotation.curves.distance.curve_distances`, vectorised over all pairs); a sample's W1 and
overlap are the means over its pairs (any k ≥ 2: k(k−1)/2 pairs). Over samples:

* mean and median W1 (log-time units), and the mean W1 as a time factor (``1.1 ** W1``: "the
  curves sit ≈ ×3.2 apart");
* mean overlap;
* the share of samples whose W1 is above ``flag_w1_max`` (the project's W1 flag threshold);
* how many samples were used, and how many were left out (fewer than two curves, or a curve that
  lies entirely off the axis).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from annotation.agreement.intervals import SumStatistic, mean_statistic
from annotation.agreement.measure import TabulatedMixin, json_ready, nan_mean, optional
from annotation.agreement.ratings import Consumes, RatedSample
from annotation.agreement.tables import Rows, SampleSet, group_means
from annotation.curves.distance import curve_distances
from annotation.settings import ProjectSettings
from annotation.timeaxis import DEFAULT_BASE

#: The W1 flag threshold a report uses unless given the project's.
DEFAULT_FLAG_W1_MAX: float = ProjectSettings().flag_w1_max


def pairwise_curve_distances(values: np.ndarray, n_curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, the mean W1 and mean overlap over all pairs of its curves.

    ``values`` is (n_samples, k_max, 3) — ξ, ω, α of each sample's ratings with a curve in slot
    order, NaN-padded — and ``n_curves`` how many each has. NaN where a sample has fewer than two
    curves (or every pair has a curve off the axis).

    Examples:
        Three curves 0, 4 and 10 units apart: pairs 4, 10 and 6 → mean W1 20/3.

        >>> v = np.array([[[50.0, 10.0, 0.0], [54.0, 10.0, 0.0], [60.0, 10.0, 0.0]]])
        >>> w1, overlap = pairwise_curve_distances(v, np.array([3]))
        >>> round(float(w1[0]), 4)
        6.6667
    """
    n, k_max = values.shape[0], values.shape[1]
    total_w1, total_overlap, count = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(k_max):
        for j in range(i + 1, k_max):
            rows = np.flatnonzero(n_curves > j)
            if rows.size == 0:
                continue
            w1, overlap, _ = curve_distances(values[rows, i], values[rows, j])
            ok = np.isfinite(w1)
            total_w1[rows[ok]] += w1[ok]
            total_overlap[rows[ok]] += overlap[ok]
            count[rows[ok]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        used = count > 0
        return (np.where(used, total_w1 / np.maximum(count, 1), math.nan),
                np.where(used, total_overlap / np.maximum(count, 1), math.nan))


@dataclass(frozen=True)
class CurveAgreementResult:
    """W1 and overlap over ``n_used`` samples (``n_excluded`` had no pair of usable curves)."""

    measure: ClassVar[str] = "curve"
    mean_w1: float
    median_w1: float
    mean_overlap: float
    n_used: int
    n_excluded: int
    flag_w1_max: float
    share_above: float

    @property
    def time_factor(self) -> float:
        """The mean W1 as a factor in time, ``1.1 ** W1`` (NaN without data)."""
        return DEFAULT_BASE ** self.mean_w1 if math.isfinite(self.mean_w1) else math.nan

    @property
    def headline(self) -> float:
        return self.mean_w1

    def to_json(self) -> dict[str, Any]:
        return json_ready({
            "measure": self.measure,
            "mean_w1": self.mean_w1,
            "median_w1": self.median_w1,
            "time_factor": self.time_factor,
            "mean_overlap": self.mean_overlap,
            "n_used": self.n_used,
            "n_excluded": self.n_excluded,
            "flag_w1_max": self.flag_w1_max,
            "share_above_flag": self.share_above,
        })


@dataclass(frozen=True)
class CurveAgreementMeasure(TabulatedMixin):
    """W1 and overlap of the annotators' curves (module docstring); ``flag_w1_max`` is the
    threshold whose exceedance share the result reports (the project's setting)."""

    name: ClassVar[str] = "curve"
    consumes: ClassVar[Consumes] = Consumes.CURVE_PARAMETERS
    flag_w1_max: float = DEFAULT_FLAG_W1_MAX

    def tabulate(self, samples: SampleSet) -> Rows:
        w1, overlap = pairwise_curve_distances(samples.curve_values, samples.n_curves)
        return {"w1": w1, "overlap": overlap}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> CurveAgreementResult:
        w1 = rows["w1"]
        finite = w1[np.isfinite(w1)]
        return CurveAgreementResult(
            mean_w1=nan_mean(w1),
            median_w1=float(np.median(finite)) if finite.size else math.nan,
            mean_overlap=nan_mean(rows["overlap"]),
            n_used=int(finite.size),
            n_excluded=int(w1.size - finite.size),
            flag_w1_max=self.flag_w1_max,
            share_above=float((finite > self.flag_w1_max).mean()) if finite.size else math.nan,
        )

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """``w1`` and ``overlap`` of each sample (means over its pairs of curves)."""
        return {"w1": rows["w1"], "overlap": rows["overlap"]}

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        """``w1`` and ``overlap``: the group's mean per-sample values."""
        w1 = group_means(rows["w1"], labels, n_groups)
        overlap = group_means(rows["overlap"], labels, n_groups)
        return [{"w1": optional(w1[g]), "overlap": optional(overlap[g])} for g in range(n_groups)]

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        return {"w1": mean_statistic(rows["w1"])}


__all__ = ["DEFAULT_FLAG_W1_MAX", "CurveAgreementMeasure", "CurveAgreementResult", "pairwise_curve_distances"]
