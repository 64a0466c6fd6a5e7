"""Uncertainty of the headline figures: a seeded bootstrap over samples, and Wilson intervals.

**Bootstrap.** Every headline figure is a function of *sums over samples* of per-sample
contributions — a :class:`SumStatistic`: the mean per-sample W1, Jaccard or Pk (sum of values and
of a 1 where the sample has one), ICC(1,1) (per-sample row sum, its square and the within-sample
sum of squares give the one-way ANOVA's mean squares), Krippendorff's α (per-unit disagreement
and pooled sums of v and v², or per-class pairable-value counts). A resample of the samples with
replacement is then a vector of counts c (how often each sample was drawn), and every figure's
sums over the resample are ``c @ columns``: one matrix product for all figures, with no
measure recomputed. :func:`bootstrap_intervals` draws ``resamples`` such count vectors from a
seeded generator (the same data and seed give the same intervals) and reports the 2.5th and
97.5th percentiles of each figure (the percentile method; Efron & Tibshirani 1993, ch. 13).

**Wilson.** :func:`wilson_interval` is the score interval for a proportion (Wilson 1927), the one
Newcombe (1998) recommends over the Wald interval for rates such as the share of reviewed samples
a lead changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
from scipy import stats

#: Resamples of the bootstrap unless told otherwise (fewer above :data:`MAX_DRAWS`).
DEFAULT_RESAMPLES = 1000
#: At most this many draws (resamples × samples) by default: drawing the resamples is most of
#: the bootstrap's time, so a 100k-sample report uses 400 resamples (:func:`default_resamples`),
#: which at that size still fix the interval's ends to a small share of its width.
MAX_DRAWS = 40_000_000
#: ... but never fewer than this.
MIN_RESAMPLES = 200
#: Seed of the bootstrap unless told otherwise (a fixed default: the same data give the same
#: interval on every page load).
DEFAULT_SEED = 20261124
#: Resamples drawn per matrix product (bounds the count block at ``_CHUNK × n_samples`` floats).
_CHUNK = 50


@dataclass(frozen=True, eq=False)
class SumStatistic:
    """A figure computed from column sums of per-sample contributions.

    ``columns`` is (n_samples, c), zero where a sample contributes nothing; ``figure`` maps
    column sums, shape (b, c), to the figure of each of the b (re)samples, NaN where undefined.
    """

    columns: np.ndarray
    figure: Callable[[np.ndarray], np.ndarray]

    def value(self) -> float:
        """The figure on the data as they are (every sample once)."""
        return float(self.figure(self.columns.sum(axis=0, keepdims=True))[0])


def mean_statistic(values: np.ndarray) -> SumStatistic:
    """The mean of the finite per-sample ``values`` (NaN ones are left out).

    Examples:
        >>> mean_statistic(np.array([1.0, np.nan, 2.0])).value()
        1.5
    """
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    columns = np.stack((np.where(finite, values, 0.0), finite.astype(float)), axis=1)

    def figure(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sums[:, 1] > 0, sums[:, 0] / np.maximum(sums[:, 1], 1), math.nan)

    return SumStatistic(columns, figure)


def default_resamples(n_samples: int) -> int:
    """:data:`DEFAULT_RESAMPLES`, or fewer for large selections (at most :data:`MAX_DRAWS`
    draws, at least :data:`MIN_RESAMPLES` resamples).

    Examples:
        >>> default_resamples(10_000), default_resamples(100_000), default_resamples(10**7)
        (1000, 400, 200)
    """
    if n_samples <= 0:
        return DEFAULT_RESAMPLES
    return max(MIN_RESAMPLES, min(DEFAULT_RESAMPLES, MAX_DRAWS // n_samples))


def resample_counts(rng: np.random.Generator, n_samples: int, resamples: int) -> np.ndarray:
    """(resamples, n_samples): how often each sample is drawn in each resample of n_samples
    draws with replacement.

    Examples:
        >>> counts = resample_counts(np.random.default_rng(0), 5, 3)
        >>> counts.shape, counts.sum(axis=1).tolist()
        ((3, 5), [5.0, 5.0, 5.0])
    """
    draws = rng.integers(0, n_samples, size=(resamples, n_samples))
    draws += (np.arange(resamples, dtype=draws.dtype) * n_samples)[:, None]
    counts = np.bincount(draws.ravel(), minlength=resamples * n_samples)
    return counts.reshape(resamples, n_samples).astype(float)


def bootstrap_intervals(statistics: Mapping[str, SumStatistic], n_samples: int, *,
                        resamples: int | None = None, seed: int = DEFAULT_SEED,
                        confidence: float = 0.95) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap ``confidence`` intervals of every statistic, samples resampled with
    replacement (module docstring); ``resamples`` defaults to :func:`default_resamples`.
    (NaN, NaN) for a figure undefined on the data, or with no samples or resamples.

    Examples:
        >>> values = np.arange(100, dtype=float)
        >>> low, high = bootstrap_intervals({"mean": mean_statistic(values)}, 100, seed=1)["mean"]
        >>> 40 < low < 49.5 < high < 60
        True
        >>> bootstrap_intervals({"mean": mean_statistic(values)}, 100, seed=1) == \\
        ...     bootstrap_intervals({"mean": mean_statistic(values)}, 100, seed=1)
        True
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    nan = (math.nan, math.nan)
    names = list(statistics)
    if resamples is None:
        resamples = default_resamples(n_samples)
    if not names or n_samples == 0 or resamples <= 0:
        return {name: nan for name in names}
    widths = [statistics[name].columns.shape[1] for name in names]
    matrix = np.concatenate([statistics[name].columns.reshape(n_samples, -1) for name in names], axis=1)
    rng = np.random.default_rng(seed)
    sums = np.empty((resamples, matrix.shape[1]))
    for start in range(0, resamples, _CHUNK):
        block = min(_CHUNK, resamples - start)
        sums[start:start + block] = resample_counts(rng, n_samples, block) @ matrix
    tail = (1 - confidence) / 2 * 100
    out: dict[str, tuple[float, float]] = {}
    offset = 0
    for name, width in zip(names, widths):
        statistic = statistics[name]
        part = sums[:, offset:offset + width]
        offset += width
        if not math.isfinite(statistic.value()):
            out[name] = nan
            continue
        values = np.asarray(statistic.figure(part), dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            out[name] = nan
            continue
        low, high = np.percentile(values, [tail, 100 - tail])
        out[name] = (float(low), float(high))
    return out


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n``; (NaN, NaN) when n is 0.

    Examples:
        Newcombe (1998), Table II, example (a) — 81 of 263:

        >>> tuple(round(x, 4) for x in wilson_interval(81, 263))
        (0.2553, 0.3662)
        >>> tuple(round(x, 4) for x in wilson_interval(0, 10))
        (0.0, 0.2775)
    """
    if isinstance(successes, bool) or isinstance(n, bool):
        raise TypeError("successes and n are counts")
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 ≤ successes ≤ n, got {successes} of {n}")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if n == 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "SumStatistic",
    "MAX_DRAWS",
    "MIN_RESAMPLES",
    "bootstrap_intervals",
    "default_resamples",
    "mean_statistic",
    "resample_counts",
    "wilson_interval",
]
