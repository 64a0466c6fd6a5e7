"""Whether a model in the loop earns its place, and how far to trust each of its curves (SPEC §12, §14).

Everything here reads **cross-fitted** predictions (:func:`annotation.training.audit.cross_fitted`:
each sample predicted by an ensemble that never saw it, ``fold_of`` the fold it was held out in):

* **Does it beat the trivial reference?** (:func:`cross_validated_comparison`) — the held-out
  fold's reference is the *other* folds' mean curve (what the model would be without the text);
  model and reference are compared by :func:`annotation.training.references.compare_mse` on
  z-scores, on an interval: only ``beats`` lets the model order the queue or list "Model
  disagrees".
* **Its expected miss** (:func:`fit_expected_miss`, :func:`cross_fitted_miss`) — the ensemble's
  own spread hardly tracks its error (Spearman ρ 0.05–0.14 on ``bench/model_audit.py``'s pools:
  bootstrap members share their bias), so the uncertainty is *learnt* from the residuals
  instead: a gradient-boosted regression (scikit-learn's ``HistGradientBoostingRegressor``,
  absolute-error loss: the conditional median) of the W1 between the gold and the predicted
  curve on the predicted (ξ, ω, α), fitted on the other folds — the difficulty estimate of
  normalised conformal prediction (Papadopoulos, Gammerman & Vovk 2008; Lei et al. 2018,
  "Distribution-free predictive inference for regression", JASA 113:1094, §5.2 "locally
  weighted"). Never below :data:`MIN_MISS`.
* **Calibrated intervals on the half-gone time** (:func:`conformal_quantile`,
  :func:`half_gone_band`) — the conformity score of a sample is ``|x_gold − x_pred| / miss`` on
  the log-time axis (``x`` the half-gone position, :func:`annotation.curves.half_gone.half_gone_x`,
  past the chart's end read as its end); the band is ``x_pred ± q · miss`` with ``q`` the
  split-conformal quantile of the scores, ``⌈(n + 1)·level⌉``-th smallest (Vovk, Gammerman &
  Shafer 2005), which covers a new sample with probability ≥ ``level`` when samples are
  exchangeable. :func:`held_out_coverage` checks it: each fold's coverage with ``q`` from the
  other folds, averaged — shown beside the run against :data:`LEVEL` (target ± 5 points).

Examples:
    >>> scores = np.arange(1.0, 21.0)              # 20 conformity scores 1 … 20
    >>> conformal_quantile(scores, 0.9)            # the ⌈21 · 0.9⌉ = 19th smallest
    19.0
    >>> conformal_quantile(scores[:5], 0.9)        # ⌈6 · 0.9⌉ = 6 > 5: no finite band
    inf
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy import stats

from annotation.curves.distance import curve_distances
from annotation.curves.half_gone import half_gone_x
from annotation.timeaxis import DEFAULT_BASE, X_MAX, x_to_minutes
from annotation.wording import signed

from annotation.agreement.intervals import wilson_interval

from .references import Comparison, compare_mse

#: the nominal coverage of the half-gone intervals
LEVEL = 0.9
#: how far the held-out coverage may stray from :data:`LEVEL` and still be called calibrated
COVERAGE_TOLERANCE = 0.05
#: the least expected miss (log-time units): the distance grid's step, below which W1 is rounding
MIN_MISS = 0.5
#: fewest residuals a regression of the miss is fitted on; fewer: their median for every sample
MIN_MISS_FIT = 40
#: the Spearman ρ between expected miss and error from which the uncertainty is said to track it
TRACKS_ERROR = 0.3


class ExpectedMiss:
    """A fitted model of the W1 between a predicted curve and the gold (module docstring):
    :meth:`predict` maps predicted curves ``(n, 3)`` to their expected miss (log-time units).

    Examples:
        >>> curves = np.array([[50.0, 5.0, 0.0], [50.0, 20.0, 0.0]] * 30)
        >>> misses = np.array([1.0, 9.0] * 30)            # wide curves miss by more
        >>> np.round(ExpectedMiss.fit(curves, misses).predict(curves[:2]), 1).tolist()
        [1.0, 9.0]
        >>> ExpectedMiss.fit(curves[:4], misses[:4]).predict(curves[:2]).tolist()   # too few: the median
        [5.0, 5.0]
    """

    def __init__(self, model: Any, constant: float) -> None:
        self._model, self._constant = model, constant

    @classmethod
    def fit(cls, predicted: np.ndarray, misses: np.ndarray, *, seed: int = 0) -> "ExpectedMiss":
        x, y = _features(predicted), np.asarray(misses, dtype=float)
        usable = np.isfinite(y) & np.isfinite(x).all(axis=1)
        if not usable.any():
            return cls(None, MIN_MISS)
        constant = max(float(np.median(y[usable])), MIN_MISS)
        if usable.sum() < MIN_MISS_FIT:
            return cls(None, constant)
        from sklearn.ensemble import HistGradientBoostingRegressor

        model = HistGradientBoostingRegressor(loss="absolute_error", max_iter=100, random_state=seed)
        return cls(model.fit(x[usable], y[usable]), constant)

    def predict(self, predicted: np.ndarray) -> np.ndarray:
        x = _features(predicted)
        out = np.full(len(x), self._constant)
        finite = np.isfinite(x).all(axis=1)
        if self._model is not None and finite.any():
            out[finite] = self._model.predict(x[finite])
        return np.maximum(out, MIN_MISS)


def _features(predicted: np.ndarray) -> np.ndarray:
    x = np.asarray(predicted, dtype=float)
    if x.ndim != 2 or x.shape[1] != 3:
        raise ValueError(f"predicted curves must have shape (n, 3) as (ξ, ω, α), got {x.shape}")
    return x


def fit_expected_miss(predicted: np.ndarray, gold: np.ndarray, *, seed: int = 0) -> ExpectedMiss:
    """:class:`ExpectedMiss` fitted on cross-fitted ``predicted`` curves and their ``gold``.

    >>> pred = np.array([[50.0, 10.0, 0.0]] * 3)
    >>> fit_expected_miss(pred, pred + [[2.0, 0, 0], [4.0, 0, 0], [9.0, 0, 0]]).predict(pred[:1]).round(3).tolist()
    [4.0]
    """
    return ExpectedMiss.fit(predicted, curve_distances(np.asarray(gold, float), np.asarray(predicted, float))[0],
                            seed=seed)


def cross_fitted_miss(predicted: np.ndarray, gold: np.ndarray, fold_of: np.ndarray, *,
                      seed: int = 0) -> np.ndarray:
    """Each sample's expected miss from a model fitted on the *other* folds' residuals (no
    sample's uncertainty learnt from its own error).

    >>> pred = np.array([[50.0, 10.0, 0.0]] * 4)
    >>> gold = pred + [[2.0, 0, 0], [4.0, 0, 0], [6.0, 0, 0], [8.0, 0, 0]]
    >>> cross_fitted_miss(pred, gold, np.array([0, 0, 1, 1])).round(3).tolist()   # the other fold's median
    [7.0, 7.0, 3.0, 3.0]
    """
    p = np.asarray(predicted, dtype=float)
    return _out_of_fold_miss(p, curve_distances(np.asarray(gold, float), p)[0], fold_of, seed)


def _out_of_fold_miss(predicted: np.ndarray, w1: np.ndarray, fold_of: np.ndarray, seed: int) -> np.ndarray:
    """:func:`cross_fitted_miss` from each sample's W1 to its gold, computed once for all folds."""
    folds = np.asarray(fold_of)
    out = np.full(len(predicted), np.nan)
    for f in np.unique(folds):
        held = folds == f
        out[held] = ExpectedMiss.fit(predicted[~held], w1[~held], seed=seed).predict(predicted[held])
    return out


def half_gone_positions(curves: np.ndarray) -> np.ndarray:
    """Half-gone positions (base-1.1 log minutes), a curve still half valid at the chart's end
    read as the end (:data:`~annotation.timeaxis.X_MAX`); NaN where undefined.

    >>> half_gone_positions(np.array([[50.0, 10.0, 0.0], [195.0, 30.0, 0.0]])).round(2).tolist()
    [61.77, 200.0]
    """
    x = half_gone_x(np.asarray(curves, dtype=float))
    return np.where(np.isposinf(x), X_MAX, x)


def conformity_scores(gold: np.ndarray, predicted: np.ndarray, miss: np.ndarray) -> np.ndarray:
    """``|x_gold − x_pred| / miss`` per sample (module docstring), NaN where undefined.

    >>> conformity_scores(np.array([[60.0, 10.0, 0.0]]), np.array([[50.0, 10.0, 0.0]]), np.array([4.0])).round(3).tolist()
    [2.5]
    """
    return np.abs(half_gone_positions(gold) - half_gone_positions(predicted)) / np.asarray(miss, dtype=float)


def conformal_quantile(scores: np.ndarray, level: float = LEVEL) -> float:
    """The split-conformal quantile: the ``⌈(n + 1)·level⌉``-th smallest finite score, ``inf``
    when that rank exceeds n (too few scores for a finite band at this level).

    >>> conformal_quantile(np.array([3.0, 1.0, 2.0, np.nan]), 0.5)   # ⌈4 · 0.5⌉ = 2nd smallest
    2.0
    """
    s = np.sort(np.asarray(scores, dtype=float)[np.isfinite(scores)])
    rank = math.ceil((len(s) + 1) * level)
    return float(s[rank - 1]) if 1 <= rank <= len(s) else math.inf


def held_out_coverage(scores: np.ndarray, fold_of: np.ndarray, level: float = LEVEL) -> tuple[float, int]:
    """The share of samples whose score lies within the quantile of the *other* folds' scores
    (each fold held out in turn), and the number of samples it is over.

    >>> s = np.array([1.0, 2.0, 3.0, 4.0] * 10)
    >>> cover, n = held_out_coverage(s, np.arange(40) % 4, 0.5)
    >>> round(cover, 3), n
    (0.5, 40)
    """
    s, folds = np.asarray(scores, dtype=float), np.asarray(fold_of)
    usable = np.isfinite(s)
    covered = []
    for f in np.unique(folds):
        held = (folds == f) & usable
        if held.any():
            q = conformal_quantile(s[(folds != f) & usable], level)
            covered.append(s[held] <= q)
    every = np.concatenate(covered) if covered else np.array([], dtype=bool)
    return (float(every.mean()) if every.size else math.nan), int(every.size)


def half_gone_band(predicted: np.ndarray, miss: np.ndarray, quantile: float,
                   base: float = DEFAULT_BASE) -> np.ndarray:
    """``(n, 2)`` minutes: the calibrated interval ``x_pred ± q · miss`` on the half-gone time,
    an end past the chart's end is ``inf`` (half of the validity may outlast it).

    >>> half_gone_band(np.array([[50.0, 10.0, 0.0]]), np.array([2.0]), 1.5).round(1).tolist()
    [[270.9, 479.9]]
    """
    x = half_gone_positions(predicted)
    width = quantile * np.asarray(miss, dtype=float)
    low, high = np.maximum(x - width, 0.0), x + width
    with np.errstate(over="ignore", invalid="ignore"):
        minutes = np.stack([x_to_minutes(low, base), x_to_minutes(high, base)], axis=1)
    minutes[:, 1] = np.where(high > X_MAX, math.inf, minutes[:, 1])
    return minutes


def cross_validated_comparison(gold: np.ndarray, predicted: np.ndarray, fold_of: np.ndarray, *,
                               resamples: int | None = None) -> Comparison:
    """The cross-fitted predictions' MSE against the other folds' mean curve (the trivial
    reference each held-out fold gets), z-scored on the gold's own mean and SD.

    >>> rng = np.random.default_rng(0)
    >>> gold = np.column_stack([rng.uniform(20, 120, 60), rng.uniform(5, 15, 60), rng.normal(0, 1, 60)])
    >>> folds = np.arange(60) % 5
    >>> cross_validated_comparison(gold, gold + rng.normal(0, 1, (60, 3)), folds).verdict
    'beats'
    >>> cross_validated_comparison(gold, np.tile(gold.mean(axis=0), (60, 1)) + 5, folds).verdict
    'worse'
    """
    g, p, folds = np.asarray(gold, float), np.asarray(predicted, float), np.asarray(fold_of)
    reference = np.empty_like(g)
    for f in np.unique(folds):
        held = folds == f
        reference[held] = g[~held].mean(axis=0) if (~held).any() else g.mean(axis=0)
    sd = g.std(axis=0, ddof=1) if len(g) > 1 else np.ones(g.shape[1])
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    z = lambda a: (a - g.mean(axis=0)) / sd  # noqa: E731 - one scaler for all three arrays
    return compare_mse(z(g), z(p), z(reference), reference="reference_mean", resamples=resamples)


@dataclass(frozen=True)
class Calibration:
    """What a cross-fitting says of a model: ``comparison`` against the trivial reference, the
    conformal ``quantile`` at ``level``, the held-out ``coverage`` over ``n`` samples, and the
    Spearman ρ between the expected miss and the actual W1 (``spearman``, NaN under 3 samples)."""

    comparison: Comparison
    level: float
    quantile: float
    coverage: float
    n: int
    spearman: float

    @property
    def coverage_interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of the held-out coverage (NaN ends without samples)."""
        if not (self.n and math.isfinite(self.coverage)):
            return (math.nan, math.nan)
        return wilson_interval(round(self.coverage * self.n), self.n)

    def to_dict(self) -> dict[str, Any]:
        finite = lambda v: float(v) if math.isfinite(v) else None  # noqa: E731
        return {"comparison": self.comparison.to_dict(), "level": self.level, "quantile": finite(self.quantile),
                "coverage": finite(self.coverage), "coverage_interval": [finite(v) for v in self.coverage_interval],
                "n": self.n, "spearman": finite(self.spearman)}


def calibrate(gold: np.ndarray, predicted: np.ndarray, fold_of: np.ndarray, *, level: float = LEVEL,
              seed: int = 0, resamples: int | None = None) -> tuple[Calibration, np.ndarray]:
    """The :class:`Calibration` of cross-fitted ``predicted`` curves against ``gold``, and each
    sample's cross-fitted expected miss (what its band and the audit read).

    >>> rng = np.random.default_rng(1)
    >>> gold = np.column_stack([rng.uniform(20, 120, 200), rng.uniform(5, 15, 200), rng.normal(0, 1, 200)])
    >>> cal, miss = calibrate(gold, gold + rng.normal(0, 1, (200, 3)) * [2.0, 1.0, 0.2], np.arange(200) % 5)
    >>> cal.comparison.verdict, abs(cal.coverage - 0.9) <= 0.05, miss.shape
    ('beats', True, (200,))
    """
    g, p = np.asarray(gold, float), np.asarray(predicted, float)
    w1 = curve_distances(g, p)[0]
    miss = _out_of_fold_miss(p, w1, fold_of, seed)
    scores = conformity_scores(g, p, miss)
    coverage, n = held_out_coverage(scores, fold_of, level)
    usable = np.isfinite(w1) & np.isfinite(miss)
    rho = float(stats.spearmanr(miss[usable], w1[usable]).statistic) if usable.sum() >= 3 else math.nan
    calibration = Calibration(cross_validated_comparison(g, p, fold_of, resamples=resamples), level,
                              conformal_quantile(scores, level), coverage, n, rho)
    return calibration, miss


def withheld_because(kept: Mapping[str, Any] | None, *, ordering: bool = False) -> str:
    """Why the model of a job that applied a run may not list "Model disagrees" or, with
    ``ordering``, hand out the most uncertain first ("" when it may): what the job's result
    ``kept`` of its cross-validation says. Both need a model that beats the trivial reference;
    ordering by the uncertainty also needs an expected miss that tracks the error (Spearman ρ
    ≥ :data:`TRACKS_ERROR` on the cross-fitted samples), else the order would be noise.

    Examples:
        >>> beats = {"reference": "reference_mean", "difference": -0.4, "low": -0.5, "high": -0.3,
        ...          "verdict": "beats", "n": 200}
        >>> withheld_because({"calibration": {"comparison": beats}, "cross_validated": 200, "folds": 5})
        ''
        >>> tied = dict(beats, low=-0.1, high=0.2, verdict="tied")
        >>> withheld_because({"calibration": {"comparison": tied}, "cross_validated": 200, "folds": 5})
        'its model is not told apart from the training mean curve (ΔMSE −0.400 [−0.100, 0.200], n = 200) under cross-validation'
        >>> withheld_because({"calibration": None, "cross_validated": 6, "folds": 5})
        'its model could not be cross-validated: 6 samples, and 5 folds need ≥ 10'
        >>> withheld_because({"n": 40})
        'it was applied before models were cross-validated against the trivial reference: apply the run again'
        >>> noise = {"calibration": {"comparison": beats, "spearman": 0.1}, "cross_validated": 200, "folds": 5}
        >>> withheld_because(noise), withheld_because(noise, ordering=True)
        ('', 'its expected miss does not track the error (Spearman ρ 0.10 < 0.3 on 200 cross-fitted samples)')
    """
    kept = kept or {}
    if "cross_validated" not in kept:
        return ("it was applied before models were cross-validated against the trivial reference: "
                "apply the run again")
    calibration = kept.get("calibration")
    if not calibration:
        folds = int(kept.get("folds") or 0)
        return (f"its model could not be cross-validated: {int(kept['cross_validated'])} samples, and {folds} "
                f"folds need ≥ {2 * folds}")
    comparison = Comparison.from_dict(calibration.get("comparison") or {})
    if comparison.verdict == "beats":
        rho = calibration.get("spearman")
        if ordering and (rho is None or rho < TRACKS_ERROR):
            said = "—" if rho is None else signed(rho)
            return (f"its expected miss does not track the error (Spearman ρ {said} < {TRACKS_ERROR:g} on "
                    f"{int(kept['cross_validated']):,} cross-fitted samples)")
        return ""
    if comparison.verdict == "undecided":
        return f"its model could not be compared with the training mean curve ({comparison.words()})"
    return f"its model is {comparison.words()[:-1]}, n = {comparison.n}) under cross-validation"


def calibration_words(kept: Mapping[str, Any] | None) -> str:
    """What a job's cross-validation says, in one line for a page or the command line ("" when
    the job kept none).

    Examples:
        >>> beats = {"reference": "reference_mean", "difference": -0.4, "low": -0.5, "high": -0.3,
        ...          "verdict": "beats", "n": 200}
        >>> calibration_words({"calibration": {"comparison": beats, "level": 0.9, "quantile": 1.8,
        ...     "coverage": 0.885, "coverage_interval": [0.834, 0.922], "n": 200, "spearman": 0.36},
        ...     "cross_validated": 200, "folds": 5})
        'cross-validated in 5 folds: beats the training mean curve (ΔMSE −0.400 [−0.500, −0.300], n = 200); 90 % intervals on the half-gone time cover 88.5 % [83.4 %, 92.2 %] of held-out samples (n = 200; calibrated: within ±5 points); the expected miss tracks the error (Spearman ρ 0.36 ≥ 0.3)'
    """
    calibration = (kept or {}).get("calibration")
    if not calibration:
        return ""
    comparison = Comparison.from_dict(calibration.get("comparison") or {})
    level, coverage = float(calibration.get("level") or LEVEL), calibration.get("coverage")
    low, high = (calibration.get("coverage_interval") or [None, None])[:2]
    head = f"cross-validated in {int(kept.get('folds') or 0)} folds: {comparison.words()[:-1]}, n = {comparison.n})"
    if coverage is None:
        cover = f"{level:.0%} intervals on the half-gone time: no held-out coverage".replace("%", " %")
    else:
        band = (level - COVERAGE_TOLERANCE, level + COVERAGE_TOLERANCE)
        if abs(coverage - level) <= COVERAGE_TOLERANCE:
            verdict = f"calibrated: within ±{COVERAGE_TOLERANCE * 100:.0f} points"
        elif low is not None and high is not None and (high < band[0] or low > band[1]):
            verdict = f"NOT calibrated: the interval lies outside ±{COVERAGE_TOLERANCE * 100:.0f} points"
        else:
            verdict = f"not told apart from ±{COVERAGE_TOLERANCE * 100:.0f} points on so few samples"
        spread = "" if low is None or high is None else f" [{low:.1%}, {high:.1%}]"
        cover = (f"{level:.0%} intervals on the half-gone time cover {coverage:.1%}{spread} of held-out samples "
                 f"(n = {int(calibration.get('n') or 0):,}; {verdict})").replace("%", " %")
    rho = calibration.get("spearman")
    if rho is None:
        tracks = "whether the expected miss tracks the error: — (too few samples)"
    elif rho >= TRACKS_ERROR:
        tracks = f"the expected miss tracks the error (Spearman ρ {signed(rho)} ≥ {TRACKS_ERROR:g})"
    else:
        tracks = f"the expected miss hardly tracks the error (Spearman ρ {signed(rho)} < {TRACKS_ERROR:g})"
    return f"{head}; {cover}; {tracks}"


__all__ = ["COVERAGE_TOLERANCE", "Calibration", "ExpectedMiss", "LEVEL", "MIN_MISS", "TRACKS_ERROR", "calibrate",
           "calibration_words",
           "conformal_quantile", "conformity_scores", "cross_fitted_miss", "cross_validated_comparison",
           "fit_expected_miss", "half_gone_band", "half_gone_positions", "held_out_coverage", "withheld_because"]
