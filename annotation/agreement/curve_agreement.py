"""Curve agreement: how far apart the annotators' validity curves are.

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
from annotation.agreement.tables import Rows, SampleSet, group_means, pairwise_curve_distances
from annotation.settings import ProjectSettings
from annotation.timeaxis import DEFAULT_BASE

#: The W1 flag threshold a report uses unless given the project's.
DEFAULT_FLAG_W1_MAX: float = ProjectSettings().flag_w1_max


def w1_time_factor(w1: float) -> float:
    """W1 (log-time units) as a factor in time, ``1.1 ** W1`` — how many times later or earlier
    one curve sits than the other; NaN for an undefined W1.

    Examples:
        >>> round(w1_time_factor(12.25), 2), w1_time_factor(0.0), w1_time_factor(float("nan"))
        (3.21, 1.0, nan)
    """
    return DEFAULT_BASE ** w1 if math.isfinite(w1) else math.nan


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
        return w1_time_factor(self.mean_w1)

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
        w1, overlap = samples.curve_distances
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


__all__ = ["DEFAULT_FLAG_W1_MAX", "CurveAgreementMeasure", "CurveAgreementResult", "pairwise_curve_distances",
           "w1_time_factor"]
