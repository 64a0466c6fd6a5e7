"""The linear pool of the annotators' curves, refitted to one skew-normal: the Review page's
third resolution beside the mean of ξ, ω, α.

The **linear pool** of k curves is the average of their normalised densities on the log-time
axis (each curve's density as point masses on :data:`~annotation.curves.distance.DISTANCE_GRID`,
summing to 1 — the masses the W1 distance compares). Where the mean of the parameters puts one
curve between two disagreeing ones, the pool keeps both opinions: two shifted normals pool into
a wider curve centred between them. The pool is refitted to one skew-normal (what the dataset
stores) by least squares between the skew-normal's *cumulative* masses and the pool's (an L2
version of the W1 distance), with ξ, ω, α bounded by the fit's limits
(:mod:`annotation.curves.limits`). Matching the cumulative curve, not the density, keeps the fit
on the pool's location and spread when the annotators disagree widely: a density fit locks onto
the taller of two peaks, or runs to the bounds when the peaks are far apart. ``w1_to_pool`` says
how well one skew-normal can stand for the pool (0: exactly; large: the pool has two peaks).

Everything here is pure; :func:`pool_versions` gives the :class:`~annotation.review.resolution.Resolution`
the service stores (segmentation and axes as the automatic resolution: union).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special

from annotation.curves.distance import DISTANCE_GRID, GRID_STEPS, GRID_WEIGHTS
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, CurveFitError
from annotation.review.resolution import POOLED, AnnotatorVersion, Resolution, resolve_pair

_LOWER = np.array([XI_BOUNDS[0], OMEGA_BOUNDS[0], ALPHA_BOUNDS[0]])
_UPPER = np.array([XI_BOUNDS[1], OMEGA_BOUNDS[1], ALPHA_BOUNDS[1]])


@dataclass(frozen=True)
class PooledCurve:
    """The skew-normal refitted to the pool: ξ, ω (base-1.1 log minutes), α, ``rmse`` the
    root-mean-square gap between its masses and the pooled masses, and ``w1_to_pool`` the W1
    distance between it and the pool (log-time units; 0 for an exact fit)."""

    xi: float
    omega: float
    alpha: float
    rmse: float
    w1_to_pool: float = 0.0

    @property
    def parameters(self) -> tuple[float, float, float]:
        return (self.xi, self.omega, self.alpha)


def curve_masses64(params: Sequence[float]) -> np.ndarray:
    """The normalised masses of one curve ``(ξ, ω, α)`` on the grid, in double precision (the
    fit differentiates them numerically). All zeros when the curve lies off the axis.

    Examples:
        >>> m = curve_masses64((50.0, 10.0, 0.0))
        >>> round(float(m.sum()), 12), round(float(m @ DISTANCE_GRID), 4), bool(curve_masses64((900.0, 1.0, 0.0)).any())
        (1.0, 50.0, False)
    """
    xi, omega, alpha = (float(v) for v in params)
    z = (DISTANCE_GRID - xi) / omega
    masses = np.exp(-0.5 * z * z) * special.ndtr(alpha * z) * GRID_WEIGHTS
    total = masses.sum()
    return masses / total if total > 0 and math.isfinite(total) else np.zeros_like(masses)


def pooled_masses(curves: Sequence[Sequence[float]]) -> np.ndarray:
    """The linear pool: the mean of the curves' normalised masses (a curve off the axis is left
    out). Raises :class:`CurveFitError` when no curve has mass on the axis.

    Examples:
        >>> m = pooled_masses([(40.0, 10.0, 0.0), (60.0, 10.0, 0.0)])
        >>> round(float(m.sum()), 12), round(float(m @ DISTANCE_GRID), 2)
        (1.0, 50.0)
    """
    rows = [m for m in (curve_masses64(c) for c in curves) if m.any()]
    if not rows:
        raise CurveFitError("There is no curve on the time axis to pool.")
    return np.mean(rows, axis=0)


def pool_curves(curves: Sequence[Sequence[float]]) -> PooledCurve:
    """The linear pool of ``curves`` (each ``(ξ, ω, α)``) refitted to one skew-normal.

    Least squares (:func:`scipy.optimize.least_squares`, bounded by the fit's limits) of the
    skew-normal's cumulative masses to the pool's, from the best of a few starts: each input
    curve, their mean, and the normal with the pool's mean and SD.

    Examples:
        >>> pooled = pool_curves([(40.0, 10.0, 0.0), (60.0, 10.0, 0.0)])
        >>> centre = float(curve_masses64(pooled.parameters) @ DISTANCE_GRID)
        >>> round(centre, 1), round(pooled.omega, 1)    # between them, wider than either
        (50.0, 14.8)
        >>> far = pool_curves([(5.0, 3.0, 0.0), (60.0, 10.0, 0.0)])   # far apart: one wide curve
        >>> 25 < float(curve_masses64(far.parameters) @ DISTANCE_GRID) < 40, far.w1_to_pool > 5
        (True, True)
    """
    if not curves:
        raise CurveFitError("There is no curve to pool.")
    target = pooled_masses(curves)
    mean = float(target @ DISTANCE_GRID)
    sd = math.sqrt(max(float(target @ (DISTANCE_GRID - mean) ** 2), OMEGA_BOUNDS[0] ** 2))
    starts = [np.array(c, dtype=float) for c in curves]
    starts += [np.mean(starts, axis=0), np.array([mean, sd, 0.0])]
    starts = [np.clip(s, _LOWER, _UPPER) for s in starts]
    target_cdf = np.cumsum(target)[:-1]
    weights = np.sqrt(GRID_STEPS)  # Σ r² = ∫ (F − G)² dx on the grid

    def residuals(theta: np.ndarray) -> np.ndarray:
        return (np.cumsum(curve_masses64(theta))[:-1] - target_cdf) * weights

    ranked = sorted(starts, key=lambda s: float(np.sum(residuals(s) ** 2)))
    best = None
    for start in ranked[:2]:
        fit = optimize.least_squares(residuals, start, bounds=(_LOWER, _UPPER), x_scale="jac",
                                     xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=400)
        if best is None or fit.cost < best.cost:
            best = fit
    xi, omega, alpha = (float(v) for v in best.x)
    fitted = curve_masses64(best.x)
    rmse = float(np.sqrt(np.mean((fitted - target) ** 2)))
    w1 = float(np.abs(np.cumsum(fitted)[:-1] - target_cdf) @ GRID_STEPS)
    return PooledCurve(xi, omega, alpha, rmse, w1)


def pool_versions(versions: Sequence[AnnotatorVersion]) -> Resolution:
    """The pooled resolution of a sample: boundaries and axes as :func:`resolve_pair` (union),
    the curve the refitted linear pool of the versions' curves (:func:`pool_curves`), method
    :data:`~annotation.review.resolution.POOLED`. Without any curve the resolution has none.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion("A", Segmentation((0,), 4), ("main",), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion("B", Segmentation((0, 2), 4), ("main", "static"), 60.0, 10.0, 0.0)
        >>> gold = pool_versions([a, b])
        >>> gold.method, gold.boundaries, round(gold.omega, 1)
        ('linear_pool', (0, 2), 14.8)
    """
    return pool_versions_with_fit(versions)[0]


def pool_versions_with_fit(versions: Sequence[AnnotatorVersion]) -> tuple[Resolution, PooledCurve | None]:
    """:func:`pool_versions` and the refitted curve behind it (its ``w1_to_pool`` says how well
    one skew-normal stands for the pool); None without any curve.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion("A", Segmentation((0,), 4), ("main",), 5.0, 3.0, 0.0)
        >>> b = AnnotatorVersion("B", Segmentation((0,), 4), ("main",), 60.0, 10.0, 0.0)
        >>> gold, fit = pool_versions_with_fit([a, b])
        >>> (gold.xi, gold.omega) == (fit.xi, fit.omega), fit.w1_to_pool > 5   # two peaks, one curve
        (True, True)
    """
    merged = resolve_pair(versions)
    curves = [(v.xi, v.omega, v.alpha) for v in versions if v.has_parameters]
    if not curves:
        return replace(merged, method=POOLED), None
    pooled = pool_curves(curves)
    return replace(merged, xi=pooled.xi, omega=pooled.omega, alpha=pooled.alpha, method=POOLED), pooled


def pooled_or_none(versions: Sequence[AnnotatorVersion]) -> tuple[Resolution | None, float | None]:
    """The pooled resolution of ``versions`` and its fit's W1 to the pool (what Review shows
    beside the proposal); (None, None) without a curve to pool or when the refit fails.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion("A", Segmentation((0,), 4), ("main",), 40.0, 10.0, 0.0)
        >>> pooled_or_none([a])[0].xi == 40.0, pooled_or_none([])
        (True, (None, None))
    """
    try:
        pooled, fit = pool_versions_with_fit(versions) if versions else (None, None)
    except CurveFitError:
        return None, None
    return (pooled, fit.w1_to_pool) if pooled is not None and fit is not None else (None, None)


__all__ = ["PooledCurve", "pooled_or_none", "curve_masses64", "pool_curves", "pool_versions", "pool_versions_with_fit",
           "pooled_masses"]
