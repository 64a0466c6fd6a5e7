"""Distribution comparison: the skew-normal against four other families on the same points,
the comparison behind the choice of the skew-normal in the Chronocept paper."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from scipy import optimize, stats

from annotation.curves.fit import fit_curve
from annotation.curves.fit_result import _rmse
from annotation.curves.limits import CurveFitError
from annotation.curves.points import validate_points
from annotation.curves.starts import _FIT_FAILURES, _height_spread


# Each family is S·pdf(x; θ) with a scipy.stats pdf. Log-normal and gamma are parameterised by
# location, spread and skew rather than scipy's (shape, loc, scale): those become
# ill-conditioned as the shape nears its Gaussian limit (loc → −∞, scale → ∞), which stalls TRF.


def _gaussian(x, mu, sigma, s):
    """S · N(x; μ, σ)."""
    return s * stats.norm.pdf(x, loc=mu, scale=sigma)


def _exponential(x, loc, scale, s):
    """S · Exp(x − loc; scale): zero before ``loc``, then falling."""
    return s * stats.expon.pdf(x, loc=loc, scale=scale)


def _log_normal(x, shape, median, width, s):
    """S · lognorm(x; shape, loc, scale) with scale = width/shape and loc = median − scale;
    tends to N(median, width) as shape → 0."""
    scale = width / shape
    return s * stats.lognorm.pdf(x, shape, loc=median - scale, scale=scale)


def _gamma(x, skew, mean, sd, s):
    """S · gamma(x; a, loc, scale) with a = 4/skew², scale = sd·skew/2, loc = mean − a·scale;
    tends to N(mean, sd) as skew → 0."""
    a = 4.0 / (skew * skew)
    scale = sd * skew / 2.0
    return s * stats.gamma.pdf(x, a, loc=mean - a * scale, scale=scale)


# name → (model, (lower, upper) bounds for (θ..., S), starts for θ from (peak x, spread, first x))
_FAMILIES = {
    "gaussian": (
        _gaussian,
        ([-300.0, 0.5, 1e-9], [500.0, 400.0, 1e6]),
        lambda xp, sigma, x0: [(xp, sigma), (xp, 2 * sigma)],
    ),
    "exponential": (
        _exponential,
        ([-500.0, 0.5, 1e-9], [300.0, 1000.0, 1e6]),
        # it only falls: start just before the peak, or before every point
        lambda xp, sigma, x0: [(xp - 0.25 * sigma, sigma), (x0 - sigma, 2 * sigma)],
    ),
    "log_normal": (
        _log_normal,
        ([0.005, -300.0, 0.1, 1e-9], [3.0, 500.0, 500.0, 1e6]),
        lambda xp, sigma, x0: [(0.5, xp + 0.2 * sigma, sigma), (0.05, xp, sigma)],
    ),
    "gamma": (
        _gamma,
        ([0.01, -300.0, 0.1, 1e-9], [4.0, 500.0, 500.0, 1e6]),
        lambda xp, sigma, x0: [(1.0, xp + 0.5 * sigma, sigma), (0.1, xp, sigma)],
    ),
}


def _fit_family_rmse(model, bounds, starts, xs: np.ndarray, ys: np.ndarray) -> float:
    """Best RMSE of ``model`` over ``starts`` by curve_fit TRF; NaN if no start converges."""
    lower, upper = (np.asarray(b, dtype=float) for b in bounds)
    span = upper - lower
    ymax = float(ys.max())
    best = math.nan
    with np.errstate(all="ignore"):
        for shape_start in starts:
            # S so that the start's highest value on the points matches the highest point
            values = model(xs, *shape_start, 1.0)
            top = float(np.max(values)) if np.all(np.isfinite(values)) else 0.0
            p0 = np.array([*shape_start, ymax / top if top > 0 else 1.0], dtype=float)
            p0 = np.clip(p0, lower + 1e-9 * span, upper - 1e-9 * span)
            try:
                popt, _ = optimize.curve_fit(
                    model,
                    xs,
                    ys,
                    p0=p0,
                    bounds=(lower, upper),
                    method="trf",
                    max_nfev=COMPARE_MAX_NFEV,
                    check_finite=False,
                    absolute_sigma=True,
                )
                rmse = _rmse(model(xs, *popt) - ys)
            except _FIT_FAILURES:
                continue
            if math.isfinite(rmse) and not rmse >= best:  # also true while best is NaN
                best = rmse
    return best


#: Evaluation cap per start in :func:`compare_distributions` (finite-difference Jacobians).
COMPARE_MAX_NFEV = 300


def compare_distributions(points: Iterable) -> dict[str, float]:
    """RMSE over the points of five families, each fitted as ``S · pdf(x)`` with a free scale S.

    Returns ``{"skew_normal", "gaussian", "exponential", "log_normal", "gamma"}`` → RMSE
    (relative validity units), each family fitted by the same method as :func:`fit_curve`:
    ``scipy.optimize.curve_fit(method="trf")`` under bounds, from a couple of data-driven starts,
    best kept. Families (scipy.stats pdfs, x in axis units):

    * skew-normal — exactly :func:`fit_curve`;
    * Gaussian — ``norm(μ, σ)``;
    * exponential — ``expon(loc, scale)``, zero before ``loc`` and falling after it;
    * log-normal — ``lognorm(s, loc, scale)``, fitted as (s, median = loc + scale,
      width = s·scale) so that its near-Gaussian limit stays well-conditioned;
    * gamma — ``gamma(a, loc, scale)``, fitted as (skewness 2/√a, mean, SD) likewise.

    The skew-normal's RMSE is that of :func:`fit_curve`, whose curve may not rise above 100 %
    (the annotator's curve); the other families keep a free S, so where the ceiling binds the
    comparison slightly favours them. Log-normal and gamma can only skew right; the exponential
    cannot rise. A family that no
    start fits (TRF does not converge within :data:`COMPARE_MAX_NFEV` evaluations) reports
    ``float("nan")``. The points are checked by :func:`validate_points` (raises
    :class:`CurveFitError`). This is the comparison behind the choice of the skew-normal in the
    Chronocept paper.

    Examples:
        >>> rmse = compare_distributions([(30.0, 0.2), (40.0, 0.6), (50.0, 1.0), (60.0, 0.6), (70.0, 0.2)])
        >>> rmse['skew_normal'] <= rmse['gaussian'] < rmse['exponential']
        True
    """
    pts = validate_points(points)
    xs = np.array([p[0] for p in pts])
    ys = np.array([p[1] for p in pts])
    try:
        skew_normal = fit_curve(pts).rmse
    except CurveFitError:
        skew_normal = math.nan
    k = int(np.argmax(ys))
    sl, sr = _height_spread(xs, ys, k)
    sigma = max(0.5 * (sl + sr), 1.0)
    xp, x0 = float(xs[k]), float(xs[0])
    result = {"skew_normal": skew_normal}
    for name, (model, bounds, make_starts) in _FAMILIES.items():
        try:
            result[name] = _fit_family_rmse(model, bounds, make_starts(xp, sigma, x0), xs, ys)
        except Exception:  # an unforeseen scipy failure: report "no fit", never crash the page
            result[name] = math.nan
    return result
