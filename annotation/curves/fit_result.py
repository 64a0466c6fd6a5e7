""":class:`CurveFit`, a fitted validity curve as data, and how a fit's parameters become one."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from annotation.curves.density import _model, peak_height, skew_normal_mode
from annotation.curves.residuals import passes_through, residual_message
from annotation.curves.shape import half_validity_range


@dataclass(frozen=True)
class CurveFit:
    """A fitted validity curve ``scale · f(x; xi, omega, alpha)`` in base-1.1 log minutes.

    ``scale · f`` is the fitted curve: what the chart draws (:func:`drawn_curve`), never above
    100 % (its peak height is :attr:`height` ≤ 1). ``rmse`` is the root-mean-square residual of
    that curve over the ``n_points`` annotation points (y units, i.e. relative validity), and
    ``residuals`` are the per-point residuals ``y − scale·f(x)`` in the order the points were
    given (positive: the point lies above the curve). ``converged`` is False when the best TRF
    run stopped at its evaluation cap (its parameters are still the closest curve found) or no
    run gave a finite curve (then they are the best of the vectorised multi-start refinement).
    """

    xi: float
    omega: float
    alpha: float
    scale: float
    rmse: float
    n_points: int
    converged: bool = True
    residuals: tuple[float, ...] = ()

    @property
    def params(self) -> tuple[float, float, float]:
        """``(xi, omega, alpha)``."""
        return (self.xi, self.omega, self.alpha)

    @property
    def peak_x(self) -> float:
        """Mode of the skew-normal (axis units); may lie outside the chart range."""
        return skew_normal_mode(self.xi, self.omega, self.alpha)

    @property
    def height(self) -> float:
        """Peak height ``h`` of the fitted curve on the chart (≤ 1): the drawn curve is ``h`` times
        the proportional curve."""
        return peak_height(self.xi, self.omega, self.alpha, self.scale)

    @property
    def half_validity_range(self) -> tuple[float, float]:
        """``(lo, hi)``: where the proportional curve is at least 0.5 (see
        :func:`half_validity_range`)."""
        return half_validity_range(self.xi, self.omega, self.alpha)

    @property
    def passes_through(self) -> bool:
        """True when every point is within :data:`PASS_TOLERANCE` of the fitted curve."""
        return passes_through(self.residuals)

    @property
    def message(self) -> str | None:
        """A plain message naming each point's residual when the curve cannot pass through the
        points (no single-peaked curve at or below 100 % does); None when it passes."""
        return residual_message(self.residuals)


def _rmse(residuals: np.ndarray) -> float:
    return float(math.sqrt(float(np.mean(residuals * residuals))))


def _as_fit(popt, xs: np.ndarray, ys: np.ndarray, converged: bool) -> CurveFit | None:
    xi, omega, alpha, scale = (float(v) for v in popt)
    rmse = _rmse(_model(xs, xi, omega, alpha, scale) - ys)
    if not all(math.isfinite(v) for v in (xi, omega, alpha, scale, rmse)):
        return None
    return CurveFit(xi, omega, alpha, scale, rmse, int(xs.size), converged)
