"""The linear pool of the annotators' curves, refitted to one skew-normal: the Review page's
third resolution beside the mean of ξ, ω, α.

The **linear pool** of k curves is the average of their normalised densities on the log-time
axis (each curve's density as point masses on :data:`~annotation.curves.distance.DISTANCE_GRID`,
summing to 1 — the masses the W1 distance compares). Where the mean of the parameters puts one
curve between two disagreeing ones, the pool keeps both opinions: two shifted normals pool into
a wider curve centred between them. The pool is refitted to one skew-normal (what the dataset
stores) by least squares of the skew-normal's masses to the pooled masses, with ξ, ω, α bounded
by the fit's limits (:mod:`annotation.curves.limits`).

Everything here is pure; :func:`pool_versions` gives the :class:`~annotation.resolution.Resolution`
the service stores (segmentation and axes as the automatic resolution: union).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special

from annotation.curves.distance import DISTANCE_GRID
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, CurveFitError
from annotation.resolution import POOLED, AnnotatorVersion, Resolution, resolve_pair

_STEPS = np.diff(DISTANCE_GRID)
#: Trapezoid weight of each grid point (the masses of :mod:`annotation.curves.distance`).
_WEIGHTS = np.concatenate(([_STEPS[0] / 2], (_STEPS[:-1] + _STEPS[1:]) / 2, [_STEPS[-1] / 2]))
_LOWER = np.array([XI_BOUNDS[0], OMEGA_BOUNDS[0], ALPHA_BOUNDS[0]])
_UPPER = np.array([XI_BOUNDS[1], OMEGA_BOUNDS[1], ALPHA_BOUNDS[1]])


@dataclass(frozen=True)
class PooledCurve:
    """The skew-normal refitted to the pool: ξ, ω (base-1.1 log minutes), α, and ``rmse``, the
    root-mean-square gap between its masses and the pooled masses (0 for an exact fit)."""

    xi: float
    omega: float
    alpha: float
    rmse: float

    @property
    def parameters(self) -> tuple[float, float, float]:
        return (self.xi, self.omega, self.alpha)


def curve_masses64(params: Sequence[float]) -> np.ndarray:
    """The normalised masses of one curve ``(ξ, ω, α)`` on the grid, in double precision (the
    fit differentiates them numerically). All zeros when the curve lies off the axis."""
    xi, omega, alpha = (float(v) for v in params)
    z = (DISTANCE_GRID - xi) / omega
    masses = np.exp(-0.5 * z * z) * special.ndtr(alpha * z) * _WEIGHTS
    total = masses.sum()
    return masses / total if total > 0 and math.isfinite(total) else np.zeros_like(masses)


def pooled_masses(curves: Sequence[Sequence[float]]) -> np.ndarray:
    """The linear pool: the mean of the curves' normalised masses (a curve off the axis is left
    out). Raises :class:`CurveFitError` when no curve has mass on the axis.

    Examples:
        >>> m = pooled_masses([(40.0, 10.0, 0.0), (60.0, 10.0, 0.0)])
        >>> round(float(m.sum()), 12), round(float(m @ DISTANCE_GRID), 6)
        (1.0, 50.0)
    """
    rows = [m for m in (curve_masses64(c) for c in curves) if m.any()]
    if not rows:
        raise CurveFitError("There is no curve on the time axis to pool.")
    return np.mean(rows, axis=0)


def pool_curves(curves: Sequence[Sequence[float]]) -> PooledCurve:
    """The linear pool of ``curves`` (each ``(ξ, ω, α)``) refitted to one skew-normal.

    Least squares (:func:`scipy.optimize.least_squares`, bounded by the fit's limits) of the
    skew-normal's masses to the pooled masses, from the best of a few starts: each input curve,
    their mean, and the normal with the pool's mean and SD.

    Examples:
        >>> pooled = pool_curves([(40.0, 10.0, 0.0), (60.0, 10.0, 0.0)])
        >>> centre = float(curve_masses64(pooled.parameters) @ DISTANCE_GRID)
        >>> round(centre, 1), round(pooled.omega, 1)    # between them, wider than either
        (50.0, 15.3)
    """
    if not curves:
        raise CurveFitError("There is no curve to pool.")
    target = pooled_masses(curves)
    mean = float(target @ DISTANCE_GRID)
    sd = math.sqrt(max(float(target @ (DISTANCE_GRID - mean) ** 2), OMEGA_BOUNDS[0] ** 2))
    starts = [np.array(c, dtype=float) for c in curves]
    starts += [np.mean(starts, axis=0), np.array([mean, sd, 0.0])]
    starts = [np.clip(s, _LOWER, _UPPER) for s in starts]
    scale = 1.0 / float(target.max())  # residuals in units of the pool's peak mass

    def residuals(theta: np.ndarray) -> np.ndarray:
        return (curve_masses64(theta) - target) * scale

    ranked = sorted(starts, key=lambda s: float(np.sum(residuals(s) ** 2)))
    best = None
    for start in ranked[:2]:
        fit = optimize.least_squares(residuals, start, bounds=(_LOWER, _UPPER), x_scale="jac",
                                     xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=400)
        if best is None or fit.cost < best.cost:
            best = fit
    xi, omega, alpha = (float(v) for v in best.x)
    rmse = float(np.sqrt(np.mean((curve_masses64(best.x) - target) ** 2)))
    return PooledCurve(xi, omega, alpha, rmse)


def pool_versions(versions: Sequence[AnnotatorVersion]) -> Resolution:
    """The pooled resolution of a sample: boundaries and axes as :func:`resolve_pair` (union),
    the curve the refitted linear pool of the versions' curves (:func:`pool_curves`), method
    :data:`~annotation.resolution.POOLED`. Without any curve the resolution has none.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion("A", Segmentation((0,), 4), ("main",), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion("B", Segmentation((0, 2), 4), ("main", "static"), 60.0, 10.0, 0.0)
        >>> gold = pool_versions([a, b])
        >>> gold.method, gold.boundaries, round(gold.omega, 1)
        ('linear_pool', (0, 2), 15.3)
    """
    merged = resolve_pair(versions)
    curves = [(v.xi, v.omega, v.alpha) for v in versions if v.has_parameters]
    if not curves:
        return replace(merged, method=POOLED)
    pooled = pool_curves(curves)
    return replace(merged, xi=pooled.xi, omega=pooled.omega, alpha=pooled.alpha, method=POOLED)


__all__ = ["PooledCurve", "curve_masses64", "pool_curves", "pool_versions", "pooled_masses"]
