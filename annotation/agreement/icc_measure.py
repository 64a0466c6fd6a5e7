"""ICC as a measure of the agreement report (:mod:`annotation.agreement.report`): ICC of ξ, ω, α
with raters as slots (a sample's first k curves), its per-group figures, the per-sample columns
and the bootstrap statistic. The ICC itself (six forms, confidence intervals, the headline and
when it is not computed) is :mod:`annotation.agreement.icc`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from annotation.agreement.icc import IccResult, headline_icc, icc_1_1, intraclass_correlation
from annotation.agreement.intervals import SumStatistic
from annotation.agreement.measure import TabulatedMixin, optional
from annotation.agreement.ratings import PARAMETERS, Consumes, RatedSample
from annotation.agreement.tables import Rows, SampleSet, mode_raters
from annotation.publishable import NEEDS


def icc_statistic(table: np.ndarray) -> SumStatistic:
    """ICC(1,1) of a (samples × k) table as sums over samples, for the bootstrap: per sample the
    row sum R, R² and the within-sample sum of squares W (values centred on the grand mean for
    precision). MSB = (ΣR²/k − (ΣR)²/(nk)) / (n − 1), MSW = ΣW / (n(k − 1)).

    Examples:
        >>> round(icc_statistic(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).value(), 4)
        0.8824
    """
    table = np.asarray(table, dtype=float)
    n, k = table.shape
    centred = table - (table.mean() if table.size else 0.0)
    rows = centred.sum(axis=1)
    within = ((centred - rows[:, None] / max(k, 1)) ** 2).sum(axis=1)
    columns = np.stack((np.ones(n), rows, rows * rows, within), axis=1)

    def figure(sums: np.ndarray) -> np.ndarray:
        count, total, squares, ssw = sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3]
        with np.errstate(invalid="ignore", divide="ignore"):
            msb = (squares / k - total * total / (count * k)) / (count - 1)
            msw = ssw / (count * (k - 1))
            denominator = msb + (k - 1) * msw
            value = (msb - msw) / denominator
        return np.where((count >= 2) & (k >= 2) & (denominator > 0), value, math.nan)

    return SumStatistic(columns, figure)


def _slot_table(rows: dict[str, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """(samples with at least k curves × k × 3) values of their first k curves, and which rows."""
    used = rows["n_curves"] >= k
    values = rows["curve_values"][used]
    if values.shape[1] < k:
        values = np.concatenate((values, np.full((values.shape[0], k - values.shape[1], 3), math.nan)), axis=1)
    return values[:, :k], used


@dataclass(frozen=True)
class IccMeasure(TabulatedMixin):
    """ICC of ξ, ω, α with raters as slots (see module docstring).

    ``raters``: k, or None for the most common number of ratings per sample.
    ``min_breakdown_samples``: an annotator pair or a week gets an ICC only with at least this
    many samples with k curves; below that the figure is None. The default is the published
    ICC's minimum (``NEEDS["icc"]`` of :mod:`annotation.publishable`: 30, Koo & Li 2016): the
    pairs and weeks are shown as figures (the Agreement page's tabs, the Annotators page,
    ``chronocept agreement --json``) that a reader takes as findings, and an ICC over fewer
    samples has a 95 % interval spanning most of [0, 1].
    """

    name: ClassVar[str] = "icc"
    consumes: ClassVar[Consumes] = Consumes.CURVE_PARAMETERS
    raters: int | None = None
    min_breakdown_samples: int = NEEDS["icc"].min_n
    #: only ICC(1,1) per parameter (:func:`headline_icc`), not the six forms with CIs
    headline_only: bool = False

    def _k(self, n_ratings: np.ndarray) -> int:
        return self.raters if self.raters is not None else mode_raters(n_ratings)

    def tabulate(self, samples: SampleSet) -> Rows:
        return {"curve_values": samples.curve_values, "n_curves": samples.n_curves,
                "n_ratings": samples.n_ratings}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> IccResult:
        table, used = _slot_table(rows, self._k(rows["n_ratings"]))
        excluded = int(used.size - used.sum())
        one = headline_icc if self.headline_only else intraclass_correlation
        return IccResult(tuple(one(table[:, :, j], p, excluded) for j, p in enumerate(PARAMETERS)))

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        """``icc_xi``, ``icc_omega``, ``icc_alpha``: ICC(1,1) of each group (its own k), None
        below the minimum sample count."""
        order = np.argsort(labels, kind="stable")
        bounds = np.searchsorted(labels[order], np.arange(n_groups + 1))
        out = []
        for g in range(n_groups):
            group = {name: values[order[bounds[g]:bounds[g + 1]]] for name, values in rows.items()}
            table, _ = _slot_table(group, self._k(group["n_ratings"]))
            if table.shape[0] < max(2, self.min_breakdown_samples):
                out.append({f"icc_{p}": None for p in PARAMETERS})
            else:
                out.append({f"icc_{p}": optional(icc_1_1(table[:, :, j])) for j, p in enumerate(PARAMETERS)})
        return out

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """``abs_delta_xi`` … : |p_A − p_B|, averaged over all pairs of ratings with a curve."""
        values, n_curves = rows["curve_values"], rows["n_curves"]
        total = np.zeros((values.shape[0], len(PARAMETERS)))
        count = np.zeros(values.shape[0])
        for i in range(values.shape[1]):
            for j in range(i + 1, values.shape[1]):
                has = n_curves > j
                total[has] += np.abs(values[has, i] - values[has, j])
                count[has] += 1
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(count[:, None] > 0, total / np.maximum(count, 1)[:, None], math.nan)
        return {f"abs_delta_{p}": out[:, j] for j, p in enumerate(PARAMETERS)}

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        """ICC(1,1) per parameter as sums over samples (:func:`icc_statistic`); samples without
        k curves contribute nothing."""
        k = self._k(rows["n_ratings"])
        table, used = _slot_table(rows, k)
        out = {}
        for j, p in enumerate(PARAMETERS):
            columns = np.zeros((used.size, 4))
            columns[used] = icc_statistic(table[:, :, j]).columns
            out[f"icc_{p}"] = SumStatistic(columns, icc_statistic(np.zeros((0, k))).figure)
        return out


__all__ = ["IccMeasure", "icc_statistic"]
