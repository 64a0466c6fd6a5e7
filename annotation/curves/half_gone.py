"""When half of a curve's validity is gone — vectorised over curves.

:func:`half_gone_x` is the time after the peak at which the proportional curve has fallen to one
half: the annotator's "half of its validity is gone by …"
(:func:`annotation.workbench.elicitation.curve_feedback`, one curve at a time with Brent's method),
here by bisection on all curves at once, to well below a millionth of a minute. The model's
ensembles, the context pairs' change label and TVCP's duration classes all read it from here.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from annotation.curves.density import _standard_modes
from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN

#: bisection steps: the bracket [peak, X_MAX] is at most 200 units wide, 200 / 2⁶⁰ < 1e-15
_BISECTIONS = 60


def log_relative_density(x: np.ndarray, xi: np.ndarray, omega: np.ndarray,
                         alpha: np.ndarray) -> np.ndarray:
    """The skew-normal log density at ``x`` without its constant ``log(2/(ω√(2π)))``: a curve's
    height relative to another point of the same curve is the difference of two of these.

    Examples:
        >>> round(float(log_relative_density(np.array(60.0), 50.0, 10.0, 0.0) + math.log(2)), 12)
        -0.5
    """
    # log of the skew-normal density without its constant log(2/(ω√(2π))), which cancels in
    # the ratio to the peak; log Φ through log_ndtr, so far tails stay finite
    z = (x - xi) / omega
    return -0.5 * z * z + log_ndtr(alpha * z)


def half_gone_x(params: np.ndarray) -> np.ndarray:
    """Axis position (base-1.1 log minutes) after the peak where each curve's proportional
    validity has fallen to 0.5; ``inf`` when it is still at or above one half at the chart's
    end, NaN for undefined parameters (non-finite, ω ≤ 0). ``params`` is (n, 3) of (ξ, ω, α).

    The peak is the density's mode clamped to the chart [X_MIN, X_MAX], as in the workbench's
    read-back; the density falls monotonically after it (the skew-normal is log-concave).

    Examples:
        >>> x = half_gone_x(np.array([[50.0, 10.0, 0.0], [195.0, 30.0, 0.0]]))
        >>> round(float(x[0]), 4), float(x[1])    # ξ + ω·√(2 ln 2); still valid at the end
        (61.7741, inf)
    """
    p = np.atleast_2d(np.asarray(params, dtype=float))
    if p.ndim != 2 or p.shape[1] != 3:
        raise ValueError(f"params must have shape (n, 3) as (ξ, ω, α), got {p.shape}")
    xi, omega, alpha = p[:, 0], p[:, 1], p[:, 2]
    defined = np.isfinite(p).all(axis=1) & (omega > 0)
    xi, alpha = np.where(defined, xi, 0.0), np.where(defined, alpha, 0.0)
    omega = np.where(defined, omega, 1.0)
    with np.errstate(all="ignore"):
        peak = np.clip(xi + omega * _standard_modes(alpha), X_MIN, X_MAX)
        level = log_relative_density(peak, xi, omega, alpha) + math.log(0.5)
        beyond = log_relative_density(np.full_like(peak, X_MAX), xi, omega, alpha) >= level
        low, high = peak.copy(), np.full_like(peak, X_MAX)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (low + high)
            above = log_relative_density(mid, xi, omega, alpha) >= level
            low, high = np.where(above, mid, low), np.where(above, high, mid)
    x = np.where(beyond, math.inf, 0.5 * (low + high))
    return np.where(defined & np.isfinite(level), x, np.nan)


def half_gone_minutes(params: np.ndarray) -> np.ndarray:
    """:func:`half_gone_x` as minutes since publication (``inf`` and NaN kept).

    Examples:
        >>> round(float(half_gone_minutes(np.array([[50.0, 10.0, 0.0]]))[0]), 1)   # 1.1 ** 61.7741
        360.6
    """
    with np.errstate(over="ignore"):
        return np.power(DEFAULT_BASE, half_gone_x(params))


__all__ = ["half_gone_minutes", "half_gone_x", "log_relative_density"]
