"""How far apart two validity curves are: Wasserstein-1 distance and overlap on the log-time axis.

Each curve is its normalised density (area 1 over the chart's axis, as
:func:`~annotation.curves.shape.normalised_curve`) taken as point masses on :data:`DISTANCE_GRID`
(the axis every half unit, 401 points): the mass at a grid point is the density there times its
trapezoid weight, and the masses are scaled to sum to 1. On those masses

* **W1** (Wasserstein-1, earth mover's distance) is ``Σ |F_a(x_i) − F_b(x_i)| · (x_{i+1} − x_i)``
  with F the cumulative masses: how far, in base-1.1 log-time units, one curve's validity has to
  be moved to lie on the other's. Two identical curves shifted by d units (both on the axis) are
  d apart. It is exactly :func:`scipy.stats.wasserstein_distance` of the two weighted grids;
  :func:`curve_distance` calls scipy and :func:`curve_distances` is the same sum, vectorised.
* **the overlap coefficient** is ``Σ min(m_a, m_b)``: 1 for identical curves, 0 for curves with
  no validity in common.
* **the shift** is the difference of the two curves' means (B's minus A's): its sign says which
  curve sits later. ``DEFAULT_BASE ** w1`` is the distance as a time factor a person reads
  ("B's curve sits ≈ ×3.2 later").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from annotation.curves.density import _check_params
from annotation.curves.limits import CurveFitError
from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN

#: Where the curves are compared: the whole axis every half unit (a 100k-sample report evaluates
#: 2 × 100k curves here; half the chart's drawing grid, with W1 within 0.01 unit of the finer one).
DISTANCE_GRID = np.linspace(X_MIN, X_MAX, 401)
DISTANCE_GRID.flags.writeable = False
#: The grid's steps, and the trapezoid weight of each grid point (half a step at the two ends).
GRID_STEPS = np.diff(DISTANCE_GRID)
GRID_WEIGHTS = np.concatenate(([GRID_STEPS[0] / 2], (GRID_STEPS[:-1] + GRID_STEPS[1:]) / 2,
                               [GRID_STEPS[-1] / 2]))
GRID_STEPS.flags.writeable = GRID_WEIGHTS.flags.writeable = False
_GRID32 = DISTANCE_GRID.astype(np.float32)
#: Rows per block in :func:`curve_distances` (a block's masses are rows × 401 floats).
_BLOCK = 4096


@dataclass(frozen=True)
class CurveDistance:
    """Distance between curve A and curve B: ``w1`` and ``shift`` (B's mean − A's) in log-time
    units, ``overlap`` in [0, 1]."""

    w1: float
    overlap: float
    shift: float

    @property
    def time_factor(self) -> float:
        """W1 as a factor in time: ``DEFAULT_BASE ** w1`` (1 for identical curves)."""
        return DEFAULT_BASE ** self.w1

    def describe(self, a: str = "A", b: str = "B") -> str:
        """The distance in words, e.g. "B's curve sits ≈ ×3.2 later than A's".

        Examples:
            >>> CurveDistance(12.2, 0.4, 12.2).describe()
            "B's curve sits ≈ ×3.2 later than A's"
            >>> CurveDistance(12.2, 0.4, -12.2).describe("ann", "bob")
            "bob's curve sits ≈ ×3.2 earlier than ann's"
            >>> CurveDistance(0.001, 1.0, 0.0).describe()
            'the two curves coincide'
        """
        factor = self.time_factor
        if factor < 1.05:
            return "the two curves coincide"
        if abs(self.shift) < self.w1 / 4:  # mostly a difference in width or skew, not in place
            return f"the two curves differ by ≈ ×{factor:.1f} in time (spread, not position)"
        direction = "later" if self.shift > 0 else "earlier"
        return f"{b}'s curve sits ≈ ×{factor:.1f} {direction} than {a}'s"


def curve_masses(params: np.ndarray) -> np.ndarray:
    """Normalised point masses on the axis grid for each row ``(ξ, ω, α)`` of ``params``
    (shape ``(n, 3)`` → ``(n, 401)``, each row summing to 1). A row whose curve lies entirely
    off the axis, or with an undefined parameter, gives a row of NaN.

    Examples:
        >>> m = curve_masses(np.array([[50.0, 10.0, 0.0], [500.0, 1.0, 0.0]]))
        >>> m.shape, round(float(m[0].sum()), 12), bool(np.isnan(m[1]).all())
        ((2, 401), 1.0, True)
    """
    params = np.atleast_2d(np.asarray(params, dtype=float))
    xi, omega, alpha = (params[:, i : i + 1] for i in range(3))
    with np.errstate(all="ignore"):
        # the density in single precision (the normal cdf is most of a report's time), its sums
        # in double
        z = (_GRID32[None, :] - xi.astype(np.float32)) / omega.astype(np.float32)
        density = np.exp(-0.5 * z * z) * special.ndtr(alpha.astype(np.float32) * z)
        masses = density.astype(float) * GRID_WEIGHTS[None, :] / omega
        total = masses.sum(axis=1, keepdims=True)
        usable = np.isfinite(total) & (total > 0) & (omega > 0)
        return np.where(usable, masses / np.where(usable, total, 1.0), np.nan)


def curve_distances(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(w1, overlap, shift)`` for each row pair of ``a`` and ``b`` (both ``(n, 3)`` arrays of
    ξ, ω, α), NaN where either curve is undefined. Computed in blocks, so 100k pairs need no
    100k × 401 array at once.

    Examples:
        >>> w1, overlap, shift = curve_distances(np.array([[50.0, 10.0, 0.0]]),
        ...                                      np.array([[60.0, 10.0, 0.0]]))
        >>> round(float(w1[0]), 4), round(float(shift[0]), 4), round(float(overlap[0]), 3)
        (10.0, 10.0, 0.617)
    """
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    if a.shape != b.shape or a.shape[1:] != (3,):
        raise ValueError(f"expected two (n, 3) parameter arrays, got {a.shape} and {b.shape}")
    n = a.shape[0]
    w1, overlap, shift = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    for start in range(0, n, _BLOCK):
        part = slice(start, start + _BLOCK)
        ma, mb = curve_masses(a[part]), curve_masses(b[part])
        gap = np.abs(np.cumsum(ma, axis=1)[:, :-1] - np.cumsum(mb, axis=1)[:, :-1])
        w1[part] = gap @ GRID_STEPS
        overlap[part] = np.minimum(ma, mb).sum(axis=1)
        shift[part] = (mb - ma) @ DISTANCE_GRID
    return w1, overlap, shift


def curve_distance(a: tuple[float, float, float], b: tuple[float, float, float]) -> CurveDistance:
    """The distance between the curves of parameters ``a`` and ``b`` (each ``(ξ, ω, α)``); W1 by
    :func:`scipy.stats.wasserstein_distance`. Raises :class:`CurveFitError` for parameters out of
    bounds or a curve entirely off the axis.

    Examples:
        >>> d = curve_distance((50.0, 10.0, 0.0), (62.25, 10.0, 0.0))   # 12.25 units later
        >>> round(d.w1, 4), round(d.time_factor, 2), d.describe()
        (12.25, 3.21, "B's curve sits ≈ ×3.2 later than A's")
        >>> round(curve_distance((50.0, 10.0, 2.0), (50.0, 10.0, 2.0)).overlap, 12)
        1.0
    """
    for params in (a, b):
        _check_params(*params)
    ma, mb = curve_masses(np.array([a, b], dtype=float))
    if np.isnan(ma).any() or np.isnan(mb).any():
        raise CurveFitError("This curve lies entirely outside the time axis; move its peak onto the chart.")
    w1 = float(stats.wasserstein_distance(DISTANCE_GRID, DISTANCE_GRID, ma, mb))
    overlap = float(min(1.0, np.minimum(ma, mb).sum()))
    shift = float((mb - ma) @ DISTANCE_GRID)
    return CurveDistance(w1=w1 if math.isfinite(w1) else math.nan, overlap=overlap, shift=shift)


__all__ = ["DISTANCE_GRID", "GRID_STEPS", "GRID_WEIGHTS", "CurveDistance", "curve_distance", "curve_distances",
           "curve_masses"]
