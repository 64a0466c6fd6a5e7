"""Krippendorff's α: interval on ξ, ω, α; nominal on token axis labels (SPEC section 6).

α = 1 − D_o / D_e, observed over expected disagreement (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"). With m_u pairable values in unit u and n = Σ m_u:

* D_o ∝ Σ_u 1/(m_u − 1) · Σ_{i≠j} δ(v_ui, v_uj) — a sum over units;
* D_e ∝ 1/(n − 1) · Σ_{i≠j} δ(v_i, v_j) over all pooled values — for the interval metric
  δ = (v − v')² this is 2(n·Σv² − (Σv)²), from pooled sums of v and v²; for the nominal metric
  it is n² − Σ_c n_c², from the pairable-value count n_c of each class.

So α comes from per-unit sufficient statistics (:func:`interval_statistic`,
:func:`nominal_statistic`), which is also what makes its bootstrap interval cheap
(:mod:`~annotation.agreement.intervals`). The figures equal the ``krippendorff`` package's
``alpha`` to 1e-9 (the unit tests compare them, and the textbook nominal example with missing
data, α = 0.743); the package builds a values × values coincidence matrix per unit, which for
continuous ξ over 100k samples would be 200k × 200k, so the report sums the statistics instead.

**Units and coders.** For the curve parameters a unit is a sample and its values are the
ratings with ξ, ω, α (any number; α does not depend on which coder gave which value, so slots
and persons give the same figure). For axis labels a unit is a token and its values are the axis
codes the sample's labelled ratings give it. Units with fewer than two values are not pairable
and are left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from annotation.agreement.intervals import SumStatistic
from annotation.agreement.measure import TabulatedMixin, json_ready, optional
from annotation.agreement.ratings import PARAMETERS, Consumes, RatedSample
from annotation.agreement.tables import N_AXES, Rows, SampleSet, group_sums

#: Headline name of each α (avoid "alpha" alone: α is also a curve parameter).
ALPHA_NAMES: dict[str, str] = {**{p: f"alpha_{p}" for p in PARAMETERS}, "labels": "alpha_labels"}
#: How the page and the CLI label them.
ALPHA_LABELS: dict[str, str] = {
    "alpha_xi": "Krippendorff α (ξ)",
    "alpha_omega": "Krippendorff α (ω)",
    "alpha_alpha": "Krippendorff α (α)",
    "alpha_labels": "Krippendorff α (axis labels)",
}


def interval_statistic(values: np.ndarray) -> SumStatistic:
    """Interval α over units = rows of ``values`` (n_units, k), NaN for a missing value.

    Columns per unit: m (pairable values, 0 below 2), Σv, Σv² (values centred on the pooled
    mean, for precision) and Σ_{i≠j}(v_i − v_j)² / (m − 1).

    Examples:
        Two units rated (1, 2) and (3, 3): the ordered pairs within units give 2 (over
        m − 1 = 1); the pooled values 1, 2, 3, 3 give 2(4·23 − 9²) = 22; α = 1 − 3·2/22.

        >>> round(interval_statistic(np.array([[1.0, 2.0], [3.0, 3.0]])).value(), 4)
        0.7273
    """
    values = np.asarray(values, dtype=float)
    present = np.isfinite(values)
    m = present.sum(axis=1).astype(float)
    pairable = m >= 2
    used = np.where(pairable[:, None] & present, values, 0.0)
    count = np.where(pairable, m, 0.0)
    centre = used.sum() / count.sum() if count.sum() else 0.0
    centred = np.where(pairable[:, None] & present, values - centre, 0.0)
    s1 = centred.sum(axis=1)
    s2 = (centred * centred).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit_mean = np.where(pairable, s1 / np.maximum(count, 1), 0.0)
        within = np.where(pairable[:, None] & present, centred - unit_mean[:, None], 0.0)
        observed = np.where(pairable, 2 * count * (within * within).sum(axis=1) / np.maximum(count - 1, 1), 0.0)
    return SumStatistic(np.stack((count, s1, s2, observed), axis=1), _interval_alpha)


def _interval_alpha(sums: np.ndarray) -> np.ndarray:
    n, s1, s2, observed = sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3]
    expected = 2 * (n * s2 - s1 * s1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((n > 1) & (expected > 0), 1 - (n - 1) * observed / np.where(expected > 0, expected, 1),
                        math.nan)


def nominal_statistic(confusion: np.ndarray, n_values: np.ndarray, n_classes: int = N_AXES) -> SumStatistic:
    """Nominal α over tokens from per-sample co-occurrence counts.

    ``confusion`` (n_samples, n_classes²) counts, summed over a sample's rating pairs, the tokens
    one rating labelled i and the other j; ``n_values`` is the number of labelled ratings of each
    sample (every token of it has that many values). Columns per sample: Σ over tokens of the
    disagreeing ordered pairs / (m − 1), and the pairable-value count of each class.

    Examples:
        Three tokens, two ratings: (a, a), (a, b), (b, b). D_o: 2 disagreeing ordered pairs;
        n_a = n_b = 3, n = 6: α = 1 − 5·2 / (36 − 18) = 4/9.

        >>> confusion = np.array([[1, 1, 0, 1]])        # a/a 1, a/b 1, b/a 0, b/b 1
        >>> round(nominal_statistic(confusion, np.array([2]), n_classes=2).value(), 4)
        0.4444
    """
    confusion = np.asarray(confusion, dtype=float).reshape(-1, n_classes, n_classes)
    m = np.asarray(n_values, dtype=float)
    per_pair = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    total = confusion.sum(axis=(1, 2))
    agree = np.trace(confusion, axis1=1, axis2=2)
    observed = 2 * (total - agree) * per_pair
    counts = (confusion.sum(axis=2) + confusion.sum(axis=1)) * per_pair[:, None]
    return SumStatistic(np.concatenate((observed[:, None], counts), axis=1), _nominal_alpha)


def _nominal_alpha(sums: np.ndarray) -> np.ndarray:
    observed, counts = sums[:, 0], sums[:, 1:]
    n = counts.sum(axis=1)
    expected = n * n - (counts * counts).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((n > 1) & (expected > 0), 1 - (n - 1) * observed / np.where(expected > 0, expected, 1),
                        math.nan)


@dataclass(frozen=True)
class KrippendorffResult:
    """Krippendorff's α per variable (``alpha_xi`` … or ``alpha_labels``; NaN where undefined:
    no pairable unit, or no variation at all), on ``n_units`` pairable units."""

    measure: str
    level: str
    values: dict[str, float]
    n_units: int

    @property
    def headline(self) -> dict[str, float]:
        return dict(self.values)

    def to_json(self) -> dict[str, Any]:
        return json_ready({"measure": self.measure, "level": self.level, "n_units": self.n_units,
                           "alpha": self.values})


@dataclass(frozen=True)
class KrippendorffCurveMeasure(TabulatedMixin):
    """Interval α of ξ, ω and α, units = samples (module docstring)."""

    name: ClassVar[str] = "krippendorff_curve"
    consumes: ClassVar[Consumes] = Consumes.CURVE_PARAMETERS

    def tabulate(self, samples: SampleSet) -> Rows:
        return {"curve_values": samples.curve_values}

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        values = rows["curve_values"]
        return {ALPHA_NAMES[p]: interval_statistic(values[:, :, j]) for j, p in enumerate(PARAMETERS)}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> KrippendorffResult:
        n_units = int((np.isfinite(rows["curve_values"][:, :, 0]).sum(axis=1) >= 2).sum())
        return KrippendorffResult(self.name, "interval",
                                  {k: s.value() for k, s in self.statistics(rows).items()}, n_units)

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        return {}

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        return _group_figures(self.statistics(rows), labels, n_groups)


@dataclass(frozen=True)
class KrippendorffLabelsMeasure(TabulatedMixin):
    """Nominal α of token axis labels, units = tokens (module docstring)."""

    name: ClassVar[str] = "krippendorff_labels"
    consumes: ClassVar[Consumes] = Consumes.TOKEN_AXIS_LABELS

    def tabulate(self, samples: SampleSet) -> Rows:
        return {"confusion": samples.confusion, "label_counts": samples.label_counts}

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        return {"alpha_labels": nominal_statistic(rows["confusion"], rows["label_counts"])}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> KrippendorffResult:
        pairable = rows["label_counts"] >= 2
        n_units = int(sum(s.n_tokens for s, ok in zip(samples, pairable) if ok))
        return KrippendorffResult(self.name, "nominal",
                                  {"alpha_labels": self.statistics(rows)["alpha_labels"].value()}, n_units)

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        return {}

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        return _group_figures(self.statistics(rows), labels, n_groups)


def _group_figures(statistics: dict[str, SumStatistic], labels: np.ndarray,
                   n_groups: int) -> list[dict[str, float | None]]:
    per_name = {name: s.figure(group_sums(s.columns, labels, n_groups)) for name, s in statistics.items()}
    return [{name: optional(values[g]) for name, values in per_name.items()} for g in range(n_groups)]


def package_alpha(reliability_data: np.ndarray, level: str) -> float:
    """The ``krippendorff`` package's α of a (coders × units) matrix (NaN = missing) — the
    reference the fast figures are tested against; only for small data (NaN where the package
    finds no pairable values or no variation).

    Examples:
        >>> round(package_alpha(np.array([[1.0, 3.0], [2.0, 3.0]]), "interval"), 4)
        0.7273
    """
    import krippendorff

    try:
        return float(krippendorff.alpha(reliability_data=reliability_data, level_of_measurement=level))
    except ValueError:
        return math.nan


__all__ = [
    "ALPHA_LABELS",
    "ALPHA_NAMES",
    "KrippendorffCurveMeasure",
    "KrippendorffLabelsMeasure",
    "KrippendorffResult",
    "interval_statistic",
    "nominal_statistic",
    "package_alpha",
]
