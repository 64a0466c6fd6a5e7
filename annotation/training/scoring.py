"""Scoring any model's predictions of an export's test split: the baselines' metrics and the mean
W1 to the gold, each with a seeded bootstrap interval — pure, arrays in, figures out.

**The same metrics as training.** The values are those :mod:`annotation.training.metrics`
gives the baselines, computed the way :func:`annotation.training.runner.run_training` calls it:
point metrics (MSE, MAE, R², Spearman ρ, pooled-σ NLL) on targets z-scored with the *training*
split's mean and SD (:func:`~annotation.training.targets.fit_target_scaler`), averaged over ξ,
ω, α; the curve scores (skew-normal cross-entropy "curve NLL" and CRPS) in the export's units,
with predicted ω clipped from below at the training split's smallest ω. R² and ρ are undefined
("—" with the reason, never a number) on fewer than 3 samples or gold without spread.

**W1.** The Wasserstein-1 distance between each predicted curve and its gold curve
(:func:`annotation.curves.distance.curve_distances`, on the chart's base-1.1 axis), written in
the export's base like location and scale (× ln 1.1 / ln b), averaged over the samples.

**Intervals.** A percentile bootstrap over the test samples (Efron & Tibshirani 1993, ch. 13)
with the project's helper (:mod:`annotation.agreement.intervals`): ``resamples`` count vectors
from a seeded generator (the same file gives the same intervals), every figure computed on the
*same* resamples. The point metrics, the curve scores and W1 are functions of sums over samples
(:class:`~annotation.agreement.intervals.SumStatistic`: MSE/MAE/curve scores/W1 means; R² from
Σr², Σt, Σt²; the pooled NLL from Σr, Σr²), so a resample's figure is one matrix product;
Spearman ρ is recomputed per resample from the counts (:func:`resampled_spearman`: a value drawn
c times is c tied values, given their mid-rank). No interval on fewer than
:data:`MIN_INTERVAL_SAMPLES` test samples: a bootstrap of a handful of samples says nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from annotation.agreement.intervals import (
    DEFAULT_SEED,
    SumStatistic,
    default_resamples,
    mean_statistic,
    resample_counts,
)
from annotation.curves.distance import curve_distances
from annotation.timeaxis import DEFAULT_BASE

from .data import TARGET_KEYS
from .metrics import (
    MIN_SIGMA,
    MIN_TARGET_SD,
    point_metrics,
    skew_normal_cross_entropy,
    skew_normal_crps,
)
from .results import METRIC_COLUMNS, METRIC_LABELS, UNDEFINED_REASONS, metric_withheld
from .targets import fit_target_scaler

#: every figure a score has, in table order: the baselines' columns, then the mean W1
SCORE_METRICS: tuple[str, ...] = (*METRIC_COLUMNS, "w1")
#: display labels of :data:`SCORE_METRICS`
SCORE_LABELS: Mapping[str, str] = {**METRIC_LABELS, "w1": "Mean W1"}
#: the coverage of the intervals
CONFIDENCE = 0.95
#: fewest test samples an interval is given for
MIN_INTERVAL_SAMPLES = 10
#: why a figure has no interval
NO_INTERVAL_FEW = f"a bootstrap interval needs ≥ {MIN_INTERVAL_SAMPLES} test samples"
NO_INTERVAL_UNDEFINED = "no interval for an undefined figure"
NO_INTERVAL_RESAMPLES = "undefined on every resample"
#: why W1 has no value
W1_UNDEFINED = "no gold and predicted curve pair lies on the time axis"
#: resamples per matrix product (bounds the count block at ``_CHUNK × n`` floats)
_CHUNK = 50


@dataclass(frozen=True)
class Figure:
    """One figure of a score: its value (NaN when undefined, ``undefined`` saying why) and its
    bootstrap interval (NaN ends when there is none, ``no_interval`` saying why)."""

    value: float
    low: float = math.nan
    high: float = math.nan
    undefined: str | None = None
    no_interval: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN → null)."""
        return {"value": _finite(self.value), "low": _finite(self.low), "high": _finite(self.high),
                "undefined": self.undefined, "no_interval": self.no_interval}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Figure":
        """Inverse of :meth:`to_dict`."""
        def number(key: str) -> float:
            value = data.get(key)
            return math.nan if value is None else float(value)
        return cls(number("value"), number("low"), number("high"),
                   data.get("undefined"), data.get("no_interval"))


@dataclass(frozen=True)
class ModelScore:
    """Every figure of :data:`SCORE_METRICS` for one set of predictions, with the per-parameter
    point metrics (as training reports them), the test size, how many predicted ω were clipped,
    and the bootstrap's settings."""

    figures: Mapping[str, Figure]
    per_parameter: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    n_test: int = 0
    n_scale_clipped: int = 0
    resamples: int = 0
    seed: int = DEFAULT_SEED
    confidence: float = CONFIDENCE

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN → null)."""
        return {"figures": {name: f.to_dict() for name, f in self.figures.items()},
                "per_parameter": {p: {k: _finite(v) for k, v in m.items()}
                                  for p, m in self.per_parameter.items()},
                "n_test": self.n_test, "n_scale_clipped": self.n_scale_clipped,
                "resamples": self.resamples, "seed": self.seed, "confidence": self.confidence}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ModelScore":
        """Inverse of :meth:`to_dict`."""
        return cls(figures={str(k): Figure.from_dict(v) for k, v in data["figures"].items()},
                   per_parameter={p: {k: math.nan if v is None else float(v) for k, v in m.items()}
                                  for p, m in (data.get("per_parameter") or {}).items()},
                   n_test=int(data.get("n_test") or 0),
                   n_scale_clipped=int(data.get("n_scale_clipped") or 0),
                   resamples=int(data.get("resamples") or 0), seed=int(data.get("seed", DEFAULT_SEED)),
                   confidence=float(data.get("confidence", CONFIDENCE)))


def _finite(value: float) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def per_sample_curve_scores(gold: np.ndarray, pred: np.ndarray, *,
                            min_scale: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Per sample, the curve NLL and curve CRPS of :func:`~annotation.training.metrics.curve_scores`
    (whose means they are) and how many predicted ω were clipped at ``min_scale``; both arrays
    ``(n, 3)`` as (ξ, ω, α) in the export's units.

    Examples:
        >>> gold = np.array([[50.0, 10.0, 0.0], [60.0, 8.0, 1.0]])
        >>> nll, crps, clipped = per_sample_curve_scores(gold, gold, min_scale=5.0)
        >>> [round(float(v), 6) for v in crps], clipped
        ([0.0, 0.0], 0)
        >>> per_sample_curve_scores(gold, gold * [1, 0.1, 1], min_scale=5.0)[2]   # ω 1 and 0.8
        2
    """
    if not min_scale > 0:
        raise ValueError(f"min_scale must be > 0, got {min_scale!r}")
    p = np.array(pred, dtype=np.float64, copy=True)
    # the clipping of metrics.curve_scores, so each mean equals what training reports
    clipped = int(np.sum(~(p[:, 1] >= min_scale)))
    p[:, 1] = np.maximum(np.nan_to_num(p[:, 1], nan=min_scale), min_scale)
    return skew_normal_cross_entropy(gold, p), skew_normal_crps(gold, p), clipped


def per_sample_w1(gold: np.ndarray, pred: np.ndarray, base: float = DEFAULT_BASE) -> np.ndarray:
    """Per sample, the W1 distance between the gold and the predicted curve, both ``(n, 3)`` in
    log ``base`` (the export's), the distance in that base too; NaN where either curve lies
    entirely off the chart.

    Examples:
        >>> gold = np.array([[50.0, 10.0, 0.0], [50.0, 10.0, 0.0]])
        >>> [round(float(w), 4) for w in per_sample_w1(gold, gold + [[0, 0, 0], [5, 0, 0]])]
        [0.0, 5.0]
        >>> e_gold = gold * [math.log(1.1), math.log(1.1), 1]            # the same curves in base e
        >>> e_pred = e_gold + [[0, 0, 0], [0.5, 0, 0]]
        >>> [round(float(w), 4) for w in per_sample_w1(e_gold, e_pred, base=math.e)]
        [0.0, 0.5]
    """
    to_chart = math.log(base) / math.log(DEFAULT_BASE)   # export base → the chart's base 1.1
    factor = np.array([to_chart, to_chart, 1.0])
    w1, _, _ = curve_distances(np.asarray(gold, dtype=float) * factor,
                               np.asarray(pred, dtype=float) * factor)
    return w1 / to_chart


def resampled_spearman(truth: np.ndarray, predicted: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Spearman ρ of each resample given by a row of ``counts`` (how often each sample was
    drawn): a sample drawn c times is c tied values, all given their mid-rank, as
    :func:`scipy.stats.spearmanr` ranks the resample itself. NaN where either column is constant
    in the resample.

    Examples:
        >>> from scipy import stats
        >>> t, p = np.array([1.0, 2.0, 2.0, 5.0, 3.0]), np.array([2.0, 1.0, 4.0, 4.0, 9.0])
        >>> counts = np.array([[2, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 5, 0, 0, 0]], dtype=float)
        >>> rho = resampled_spearman(t, p, counts)
        >>> drawn = np.repeat(np.arange(5), [2, 0, 1, 1, 1])
        >>> bool(np.isclose(rho[0], stats.spearmanr(t[drawn], p[drawn]).statistic))
        True
        >>> bool(np.isclose(rho[1], stats.spearmanr(t, p).statistic)), bool(np.isnan(rho[2]))
        (True, True)
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    ranks = [_resampled_ranks(np.asarray(column, dtype=float), counts) for column in (truth, predicted)]
    total = counts.sum(axis=1, keepdims=True)
    centred = [r - (counts * r).sum(axis=1, keepdims=True) / total for r in ranks]
    cov = (counts * centred[0] * centred[1]).sum(axis=1)
    var_t = (counts * centred[0] ** 2).sum(axis=1)
    var_p = (counts * centred[1] ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((var_t > 0) & (var_p > 0), cov / np.sqrt(var_t * var_p), math.nan)


def _resampled_ranks(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(b, n): the mid-rank each sample's value has in each resample (equal values tie)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    group = np.empty(values.size, dtype=np.intp)
    group[order] = np.cumsum(np.concatenate(([True], ordered[1:] != ordered[:-1]))) - 1
    drawn = np.add.reduceat(counts[:, order], starts, axis=1)   # (b, groups)
    below = np.cumsum(drawn, axis=1) - drawn
    return (below + (drawn + 1.0) / 2.0)[:, group]


def point_statistics(z_true: np.ndarray, z_pred: np.ndarray) -> dict[str, SumStatistic]:
    """MSE, MAE, R² and the pooled NLL of :func:`~annotation.training.metrics.point_metrics`,
    each as a :class:`SumStatistic` of per-sample sums, so a resample's figure is a matrix
    product. R² is NaN where a resample's gold column has no spread (SD below
    :data:`~annotation.training.metrics.MIN_TARGET_SD`).

    Examples:
        >>> t = np.array([[1.0, 2.0, 4.0], [2.0, 4.0, 3.0], [3.0, 6.0, 2.0], [4.0, 8.0, 1.0]])
        >>> p = np.array([[1.0, 3.0, 1.0], [2.0, 3.0, 2.0], [3.0, 7.0, 3.0], [5.0, 7.0, 4.0]])
        >>> m = point_metrics(t, p)
        >>> s = point_statistics(t, p)
        >>> all(math.isclose(s[k].value(), getattr(m, k)) for k in ("mse", "mae", "r2", "nll"))
        True
    """
    t = np.asarray(z_true, dtype=np.float64)
    r = t - np.asarray(z_pred, dtype=np.float64)
    centred = t - t.mean(axis=0)   # SS_tot is shift-invariant; centring keeps its sum exact
    k = t.shape[1]

    def mean_over_columns(columns: np.ndarray, per_column) -> SumStatistic:  # type: ignore[no-untyped-def]
        def figure(sums: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return per_column(sums).mean(axis=1)
        return SumStatistic(columns, figure)

    ones = np.ones((t.shape[0], 1))
    mse = mean_over_columns(np.hstack([r ** 2, ones]), lambda s: s[:, :k] / s[:, k:])
    mae = mean_over_columns(np.hstack([np.abs(r), ones]), lambda s: s[:, :k] / s[:, k:])

    def r2_columns(s: np.ndarray) -> np.ndarray:
        n = s[:, 3 * k:]
        ss_res, sum_t, sum_t2 = s[:, :k], s[:, k:2 * k], s[:, 2 * k:3 * k]
        ss_tot = sum_t2 - sum_t ** 2 / n
        spread = np.sqrt(np.maximum(ss_tot / n, 0.0)) >= MIN_TARGET_SD
        return np.where(spread, 1.0 - ss_res / np.where(spread, ss_tot, 1.0), math.nan)

    r2 = mean_over_columns(np.hstack([r ** 2, centred, centred ** 2, ones]), r2_columns)

    def nll_figure(s: np.ndarray) -> np.ndarray:
        n = s[:, 2] * k
        mean_sq = s[:, 1] / n
        sigma2 = np.maximum(mean_sq - (s[:, 0] / n) ** 2, MIN_SIGMA ** 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return 0.5 * np.log(2.0 * math.pi * sigma2) + mean_sq / (2.0 * sigma2)

    nll = SumStatistic(np.column_stack([r.sum(axis=1), (r ** 2).sum(axis=1), ones[:, 0]]), nll_figure)
    return {"mse": mse, "mae": mae, "r2": r2, "nll": nll}


def score_predictions(gold: np.ndarray, pred: np.ndarray, train_gold: np.ndarray, *,
                      base: float = DEFAULT_BASE, resamples: int | None = None,
                      seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE) -> ModelScore:
    """Score predictions ``pred`` of a test split against its ``gold`` (both ``(n, 3)`` as ξ, ω,
    α in log ``base``, rows in the same order), z-scoring with ``train_gold`` (the training
    split's targets) as training does. Every figure of :data:`SCORE_METRICS` with its seeded
    bootstrap interval (``resamples`` defaults to
    :func:`~annotation.agreement.intervals.default_resamples`, 1,000 up to 40,000 samples).

    Examples:
        >>> rng = np.random.default_rng(0)
        >>> gold = np.column_stack([rng.uniform(40, 90, 30), rng.uniform(5, 15, 30), rng.normal(0, 1, 30)])
        >>> perfect = score_predictions(gold, gold, gold, resamples=200)
        >>> [round(perfect.figures[k].value, 6) for k in ("mse", "mae", "r2", "spearman", "curve_crps", "w1")]
        [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
        >>> score_predictions(gold[:12], gold[:12], gold, resamples=200).figures["r2"].undefined   # R², ρ: the rule
        'needs ≥ 30 test samples (n = 12)'
        >>> constant = score_predictions(gold, np.tile(gold.mean(axis=0), (30, 1)), gold, resamples=200)
        >>> f = constant.figures["spearman"]
        >>> math.isnan(f.value), f.undefined == UNDEFINED_REASONS["spearman"]
        (True, True)
        >>> f = constant.figures["mse"]
        >>> round(f.value, 6), f.low < f.value < f.high
        (1.0, True)
    """
    g = np.asarray(gold, dtype=np.float64)
    p = np.asarray(pred, dtype=np.float64)
    train = np.asarray(train_gold, dtype=np.float64)
    if g.shape != p.shape or g.ndim != 2 or g.shape[1] != len(TARGET_KEYS) or g.shape[0] < 2:
        raise ValueError(f"gold and predictions must both have shape (n>=2, 3), got {g.shape} and {p.shape}")
    if train.ndim != 2 or train.shape[1] != len(TARGET_KEYS) or train.shape[0] == 0:
        raise ValueError(f"training targets must have shape (n>0, 3), got {train.shape}")
    n = g.shape[0]
    scaler = fit_target_scaler(train)       # training split only — never per split
    z_true, z_pred = scaler.transform(g), scaler.transform(p)
    points = point_metrics(z_true, z_pred, y_true_original=g, y_pred_original=p)
    curve_nll, curve_crps, clipped = per_sample_curve_scores(g, p, min_scale=float(train[:, 1].min()))
    w1 = per_sample_w1(g, p, base)
    values = {"mse": points.mse, "mae": points.mae, "r2": points.r2, "spearman": points.spearman,
              "nll": points.nll, "curve_nll": float(np.mean(curve_nll)),
              "curve_crps": float(np.mean(curve_crps)),
              "w1": float(np.mean(w1[np.isfinite(w1)])) if np.isfinite(w1).any() else math.nan}
    statistics = {**point_statistics(z_true, z_pred), "curve_nll": mean_statistic(curve_nll),
                  "curve_crps": mean_statistic(curve_crps), "w1": mean_statistic(w1)}
    resamples = default_resamples(n) if resamples is None else int(resamples)
    intervals = _bootstrap(statistics, z_true, z_pred, values, n, resamples, seed, confidence)
    figures = {}
    for name in SCORE_METRICS:
        value = values[name]
        undefined = None
        if metric_withheld(name, n):
            undefined = metric_withheld(name, n).removeprefix("— ")
        elif not math.isfinite(value):
            undefined = UNDEFINED_REASONS.get(name, W1_UNDEFINED if name == "w1" else
                                              "cannot be computed on these samples")
        low, high, no_interval = intervals[name]
        figures[name] = Figure(value if undefined is None else math.nan, low, high, undefined,
                               NO_INTERVAL_UNDEFINED if undefined else no_interval)
    return ModelScore(figures=figures, per_parameter=points.per_parameter, n_test=n,
                      n_scale_clipped=clipped, resamples=resamples, seed=seed, confidence=confidence)


def _bootstrap(statistics: Mapping[str, SumStatistic], z_true: np.ndarray, z_pred: np.ndarray,
               values: Mapping[str, float], n: int, resamples: int, seed: int,
               confidence: float) -> dict[str, tuple[float, float, str | None]]:
    """(low, high, why none) of every figure; all figures on the same seeded resamples."""
    names = [*statistics, "spearman"]
    if n < MIN_INTERVAL_SAMPLES or resamples <= 0:
        return {name: (math.nan, math.nan, NO_INTERVAL_FEW) for name in names}
    widths = [statistics[name].columns.shape[1] for name in statistics]
    matrix = np.concatenate([statistics[name].columns for name in statistics], axis=1)
    rng = np.random.default_rng(seed)
    sums = np.empty((resamples, matrix.shape[1]))
    rho = np.empty((resamples, z_true.shape[1]))
    for start in range(0, resamples, _CHUNK):
        block = min(_CHUNK, resamples - start)
        counts = resample_counts(rng, n, block)
        sums[start:start + block] = counts @ matrix
        for j in range(z_true.shape[1]):
            rho[start:start + block, j] = resampled_spearman(z_true[:, j], z_pred[:, j], counts)
    drawn: dict[str, np.ndarray] = {}
    offset = 0
    for name, width in zip(statistics, widths):
        drawn[name] = np.asarray(statistics[name].figure(sums[:, offset:offset + width]), dtype=float)
        offset += width
    drawn["spearman"] = rho.mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    out: dict[str, tuple[float, float, str | None]] = {}
    for name in names:
        finite = drawn[name][np.isfinite(drawn[name])]
        if not math.isfinite(values[name]):
            out[name] = (math.nan, math.nan, NO_INTERVAL_UNDEFINED)
        elif finite.size == 0:
            out[name] = (math.nan, math.nan, NO_INTERVAL_RESAMPLES)
        else:
            low, high = np.percentile(finite, [tail, 100 - tail])
            out[name] = (float(low), float(high), None)
    return out


def figure_text(figure: Figure, digits: int = 4) -> str:
    """A figure as a table cell: the value and its interval, "—" for an undefined value.

    Examples:
        >>> figure_text(Figure(0.12345, 0.1, 0.15))
        '0.1235 [0.1000, 0.1500]'
        >>> figure_text(Figure(0.5, no_interval=NO_INTERVAL_FEW)), figure_text(Figure(math.nan))
        ('0.5000', '—')
    """
    if not math.isfinite(figure.value):
        return "—"
    text = f"{figure.value:.{digits}f}"
    if math.isfinite(figure.low) and math.isfinite(figure.high):
        text += f" [{figure.low:.{digits}f}, {figure.high:.{digits}f}]"
    return text


__all__ = [
    "CONFIDENCE", "MIN_INTERVAL_SAMPLES", "SCORE_LABELS", "SCORE_METRICS",
    "Figure", "ModelScore", "figure_text", "per_sample_curve_scores", "per_sample_w1",
    "point_statistics", "resampled_spearman", "score_predictions",
]
