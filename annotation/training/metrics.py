"""Evaluation metrics of the baselines: point metrics on z-scores, proper scores of the curves.

**Point metrics** (MSE, MAE, R², Spearman ρ and the pooled-σ Gaussian NLL) are computed on the
*z-scored* targets (training-split statistics, :mod:`annotation.training.targets`) and averaged
over the three parameters ξ, ω, α. On z-scores each parameter is in units of its own training
standard deviation, so the average does not let ξ (tens of log steps) swamp α (about one unit);
it is also the scale the Chronocept paper reports. ``per_parameter`` adds, for each parameter,
the same figures plus the MAE in the export's original units (``mae_original``).

**Curve scores** compare each predicted skew-normal with the gold one on the *original* log-time
axis (predictions are mapped back from z-scores first):

* ``curve_nll``: the cross-entropy −∫ f_gold(x) log f_pred(x) dx — the expected logarithmic
  score of the predicted density when outcomes follow the gold curve; it is minimised, at the
  gold curve's entropy, exactly when the prediction equals the gold curve (a strictly proper
  score, Gneiting & Raftery 2007, JASA 102:359, section 4).
* ``curve_crps``: the integrated quadratic distance ∫ (F_pred(x) − F_gold(x))² dx between the
  CDFs — the divergence associated with the CRPS (it equals the CRPS when the gold curve is a
  point mass; Thorarinsdottir, Gneiting & Gissibl 2013, SIAM/ASA JUQ 1:522).

Both integrals use the trapezoidal rule on per-sample grids of ``n_points`` points spanning
ξ ± 8ω of each curve (a skew-normal's tails are no heavier than its ω-normal's, so less than
1e-14 of the mass lies outside). A predicted scale ω ≤ 0 has no density, so predicted ω is
clipped from below at ``min_scale`` (the runner uses the smallest ω of the training split) and
the number of clipped predictions is reported.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import special, stats
from scipy.integrate import trapezoid

from .data import MIN_SAMPLES_PER_SPLIT, TARGET_KEYS

#: the headline point metrics, in table order
POINT_METRICS: tuple[str, ...] = ("mse", "mae", "r2", "spearman", "nll")
#: the curve scores, in table order
CURVE_METRICS: tuple[str, ...] = ("curve_nll", "curve_crps")
#: half-width of the quadrature grids, in units of the curve's ω
GRID_HALF_WIDTH = 8.0
#: smallest σ used by the pooled NLL (perfect predictions would otherwise give −∞)
MIN_SIGMA = 1e-12
#: R² and Spearman ρ need at least this many test samples (the least a split may have) …
MIN_RANK_SAMPLES = MIN_SAMPLES_PER_SPLIT
#: … and gold values that spread: a test column whose standard deviation is below this (targets
#: are z-scored by the training split, so this is 10⁻⁶ of the training spread) has no R²
MIN_TARGET_SD = 1e-6


@dataclass(frozen=True)
class PointMetrics:
    """Point metrics averaged over the three parameters, and per parameter."""

    mse: float
    mae: float
    r2: float
    spearman: float
    nll: float
    per_parameter: Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class CurveScores:
    """Mean curve scores over the samples, and how many predicted ω were clipped."""

    curve_nll: float
    curve_crps: float
    n_scale_clipped: int


def pooled_gaussian_nll(residuals: np.ndarray | Sequence[float]) -> float:
    """Mean negative log-likelihood of residuals under one zero-mean Gaussian with pooled σ.

    ``NLL = −mean_i log N(r_i; 0, σ²) = ½ ln(2πσ²) + mean(r²) / (2σ²)``, σ the (population)
    standard deviation of *all* residuals pooled together (any shape is flattened). When the
    residuals have mean zero, mean(r²) = σ² and NLL = ½ ln(2πe σ²). σ is floored at
    :data:`MIN_SIGMA`.
    """
    r = np.asarray(residuals, dtype=np.float64).ravel()
    if r.size == 0:
        raise ValueError("no residuals")
    sigma = max(float(r.std()), MIN_SIGMA)
    return 0.5 * math.log(2.0 * math.pi * sigma ** 2) + float(np.mean(r ** 2)) / (2.0 * sigma ** 2)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # constant input: ρ is undefined, reported as NaN
        value = stats.spearmanr(a, b).statistic
    return float(value)


def point_metrics(y_true: np.ndarray, y_pred: np.ndarray, *,
                  y_true_original: np.ndarray | None = None,
                  y_pred_original: np.ndarray | None = None,
                  names: Sequence[str] = TARGET_KEYS) -> PointMetrics:
    """MSE, MAE, R², Spearman ρ and pooled-σ NLL of predictions (n, k) against targets (n, k).

    Each is computed per column and averaged over the columns, except ``nll``, whose σ pools
    the residuals of all columns (:func:`pooled_gaussian_nll` of the whole residual matrix —
    the same as averaging the per-column NLLs under one shared σ). R² is 1 − SS_res/SS_tot per
    column (``sklearn.metrics.r2_score``). R² and ρ are NaN — undefined, never a number the data
    cannot support — on fewer than :data:`MIN_RANK_SAMPLES` samples; R² also for a gold column
    that hardly varies (standard deviation below :data:`MIN_TARGET_SD`: its SS_tot is rounding
    noise, and 1 − SS_res/SS_tot ran to −2·10²⁸), ρ when either column is constant. An average
    over the parameters with one undefined is undefined. Pass the original-unit arrays to also get
    ``mae_original`` per parameter.

    Examples:
        >>> gold = np.array([[0.5, 1.0, 0.0], [0.5 + 1e-15, 2.0, 0.0]])
        >>> m = point_metrics(gold, gold + 0.1)
        >>> math.isnan(m.r2), math.isnan(m.spearman), round(m.mse, 6)
        (True, True, 0.01)
    """
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    t = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    if t.shape != p.shape or t.ndim != 2 or t.shape[1] != len(names) or t.shape[0] < 2:
        raise ValueError(f"targets and predictions must both have shape (n>=2, {len(names)}), "
                         f"got {t.shape} and {p.shape}")
    mse = mean_squared_error(t, p, multioutput="raw_values")
    mae = mean_absolute_error(t, p, multioutput="raw_values")
    r2 = r2_score(t, p, multioutput="raw_values")
    spread_ok = t.std(axis=0) >= MIN_TARGET_SD
    r2 = np.where(spread_ok & (t.shape[0] >= MIN_RANK_SAMPLES), r2, np.nan)
    rho = np.array([_spearman(t[:, j], p[:, j]) if t.shape[0] >= MIN_RANK_SAMPLES else math.nan
                    for j in range(t.shape[1])])
    per: dict[str, dict[str, float]] = {}
    for j, name in enumerate(names):
        per[name] = {"mse": float(mse[j]), "mae": float(mae[j]), "r2": float(r2[j]),
                     "spearman": float(rho[j]),
                     "nll": pooled_gaussian_nll(t[:, j] - p[:, j])}
        if y_true_original is not None and y_pred_original is not None:
            per[name]["mae_original"] = float(np.mean(np.abs(
                np.asarray(y_true_original)[:, j] - np.asarray(y_pred_original)[:, j])))
    return PointMetrics(mse=float(mse.mean()), mae=float(mae.mean()), r2=float(r2.mean()),
                        spearman=float(rho.mean()), nll=pooled_gaussian_nll(t - p),
                        per_parameter=per)


def _columns(params: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.atleast_2d(np.asarray(params, dtype=np.float64))
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{what} curves must have shape (n, 3) as (ξ, ω, α), got {a.shape}")
    if np.any(a[:, 1] <= 0) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what} curves need finite parameters and ω > 0")
    return a[:, :1], a[:, 1:2], a[:, 2:3]


def _grid(n_points: int) -> np.ndarray:
    if n_points < 3:
        raise ValueError("n_points must be at least 3")
    return np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, n_points)[None, :]


def skew_normal_cdf(x: np.ndarray, xi: np.ndarray, omega: np.ndarray,
                    alpha: np.ndarray) -> np.ndarray:
    """Skew-normal CDF F(x) = Φ(z) − 2 T(z, α), z = (x − ξ)/ω, T Owen's T function (Azzalini
    1985); clipped to [0, 1]. Used instead of ``scipy.stats.skewnorm.cdf``, which falls back to
    numerical integration wherever F < 1e-6 and is then thousands of times slower — an absolute
    error of ~1e-16 there is irrelevant to the quadratic score."""
    z = (np.asarray(x, dtype=np.float64) - xi) / omega
    return np.clip(special.ndtr(z) - 2.0 * special.owens_t(z, alpha), 0.0, 1.0)


def skew_normal_cross_entropy(gold: np.ndarray, pred: np.ndarray, *,
                              n_points: int = 2001) -> np.ndarray:
    """Per sample, −∫ f_gold(x) log f_pred(x) dx for skew-normals given as rows (ξ, ω, α).

    In nats, on the curves' own axis (log-time steps of the export's base). Quadrature: the
    trapezoidal rule on ``n_points`` points over ξ_gold ± 8 ω_gold; log f_pred is evaluated with
    scipy's log-density (``log Φ`` through ``log_ndtr``), so far tails stay finite. For two
    normals (α = 0) it equals ½ ln(2π ω_p²) + (ω_g² + (ξ_g − ξ_p)²) / (2 ω_p²).
    """
    xi_g, om_g, a_g = _columns(gold, "gold")
    xi_p, om_p, a_p = _columns(pred, "predicted")
    if xi_g.shape != xi_p.shape:
        raise ValueError("gold and predicted curves must have the same number of rows")
    x = xi_g + om_g * _grid(n_points)
    f_gold = stats.skewnorm.pdf(x, a_g, loc=xi_g, scale=om_g)
    log_pred = stats.skewnorm.logpdf(x, a_p, loc=xi_p, scale=om_p)
    integrand = np.where(f_gold > 0, f_gold * log_pred, 0.0)
    return -trapezoid(integrand, x, axis=1)


def skew_normal_crps(gold: np.ndarray, pred: np.ndarray, *, n_points: int = 2001) -> np.ndarray:
    """Per sample, ∫ (F_pred(x) − F_gold(x))² dx for skew-normals given as rows (ξ, ω, α).

    In the axis's units (log-time steps). Quadrature: the trapezoidal rule on the union of the
    two curves' grids (ξ ± 8ω, ``n_points`` each), so a narrow curve is resolved however wide
    the other one is. For a gold curve that is (nearly) a point mass at y it is the CRPS of the
    predicted distribution at y (Gneiting & Raftery 2007, eq. 20).
    """
    xi_g, om_g, a_g = _columns(gold, "gold")
    xi_p, om_p, a_p = _columns(pred, "predicted")
    if xi_g.shape != xi_p.shape:
        raise ValueError("gold and predicted curves must have the same number of rows")
    t = _grid(n_points)
    x = np.sort(np.concatenate([xi_g + om_g * t, xi_p + om_p * t], axis=1), axis=1)
    cdf_gold = skew_normal_cdf(x, xi_g, om_g, a_g)
    cdf_pred = skew_normal_cdf(x, xi_p, om_p, a_p)
    return trapezoid((cdf_pred - cdf_gold) ** 2, x, axis=1)


def curve_scores(gold: np.ndarray, pred: np.ndarray, *, min_scale: float,
                 n_points: int = 2001) -> CurveScores:
    """Mean :func:`skew_normal_cross_entropy` and :func:`skew_normal_crps` over the samples,
    with predicted ω clipped from below at ``min_scale`` (> 0); both arrays in original units."""
    if not min_scale > 0:
        raise ValueError(f"min_scale must be > 0, got {min_scale!r}")
    p = np.array(pred, dtype=np.float64, copy=True)
    clipped = int(np.sum(~(p[:, 1] >= min_scale)))
    p[:, 1] = np.maximum(np.nan_to_num(p[:, 1], nan=min_scale), min_scale)
    ce = skew_normal_cross_entropy(gold, p, n_points=n_points)
    crps = skew_normal_crps(gold, p, n_points=n_points)
    return CurveScores(curve_nll=float(np.mean(ce)), curve_crps=float(np.mean(crps)),
                       n_scale_clipped=clipped)
