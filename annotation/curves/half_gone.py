"""When half of a curve's validity is gone — vectorised over curves.

:func:`half_gone_x` is the time after the peak at which the proportional curve has fallen to one
half: the annotator's "half of its validity is gone by …"
(:func:`annotation.workbench.elicitation.curve_feedback`, one curve at a time with Brent's method),
here by bisection on all curves at once, to well below a millionth of a minute. The model's
ensembles, the context pairs' change label and TVCP's duration classes all read it from here.

:func:`gone_x` generalises it to any level: the *q-gone* point, where the proportional curve has
fallen to ``1 − q`` of its peak; :func:`gone_quantiles_x` gives the 5/25/50/75/95 % points the
annotator model (:mod:`annotation.quality.annotator_model`) reads a curve's centre and width from.
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


def _levels(q, name: str = "q") -> np.ndarray:
    """``q`` as a 1-d float array of levels strictly inside (0, 1); ValueError otherwise."""
    levels = np.atleast_1d(np.asarray(q, dtype=float))
    if levels.ndim != 1 or levels.size == 0:
        raise ValueError(f"{name} must be one level or a non-empty sequence of levels, got shape {levels.shape}")
    if not (np.isfinite(levels).all() and (levels > 0).all() and (levels < 1).all()):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {levels.tolist()}")
    return levels


def gone_x(params: np.ndarray, q) -> np.ndarray:
    """Axis positions (base-1.1 log minutes) after the peak where each curve's proportional
    validity has fallen to ``1 − q``: the curve's *q-gone* points, shape (n, len(q)).

    ``params`` is (n, 3) of (ξ, ω, α); ``q`` one level or a sequence, each in (0, 1). With the
    peak ``x*`` (the density's mode clamped to the chart [X_MIN, X_MAX]) the q-gone point is the
    ``x ≥ x*`` with ``f(x) = (1 − q)·f(x*)``. The skew-normal is log-concave, so ``log f`` falls
    monotonically after its mode and the crossing is unique; it is found by bisection on all
    curves and levels at once (60 halvings of [x*, X_MAX], below 1e-13 units). ``inf`` where the
    curve is still at or above the level at X_MAX, NaN for undefined parameters (non-finite,
    ω ≤ 0). A normal curve (α = 0) has the closed form ``ξ + ω·√(−2 ln(1 − q))``.

    Examples:
        >>> x = gone_x(np.array([[50.0, 10.0, 0.0], [195.0, 30.0, 0.0]]), [0.05, 0.5, 0.95])
        >>> x.shape
        (2, 3)
        >>> [round(float(v), 4) for v in x[0]]   # 50 + 10·√(−2 ln(1 − q))
        [53.2029, 61.7741, 74.4775]
        >>> [round(50 + 10 * math.sqrt(-2 * math.log(1 - q)), 4) for q in (0.05, 0.5, 0.95)]
        [53.2029, 61.7741, 74.4775]
        >>> x[1].tolist()                        # still valid at the chart's end
        [inf, inf, inf]
        >>> gone_x(np.array([[50.0, -1.0, 0.0]]), 0.5).tolist()
        [[nan]]
    """
    p = np.atleast_2d(np.asarray(params, dtype=float))
    if p.ndim != 2 or p.shape[1] != 3:
        raise ValueError(f"params must have shape (n, 3) as (ξ, ω, α), got {p.shape}")
    levels = _levels(q)
    xi, omega, alpha = p[:, 0], p[:, 1], p[:, 2]
    defined = np.isfinite(p).all(axis=1) & (omega > 0)
    xi, alpha = np.where(defined, xi, 0.0)[:, None], np.where(defined, alpha, 0.0)[:, None]
    omega = np.where(defined, omega, 1.0)[:, None]
    with np.errstate(all="ignore"):
        peak = np.clip(xi + omega * _standard_modes(alpha[:, 0])[:, None], X_MIN, X_MAX)
        level = log_relative_density(peak, xi, omega, alpha) + np.log1p(-levels)[None, :]
        beyond = log_relative_density(np.full_like(peak, X_MAX), xi, omega, alpha) >= level
        low = np.broadcast_to(peak, level.shape).copy()
        high = np.full_like(level, X_MAX)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (low + high)
            above = log_relative_density(mid, xi, omega, alpha) >= level
            low, high = np.where(above, mid, low), np.where(above, high, mid)
    x = np.where(beyond, math.inf, 0.5 * (low + high))
    return np.where(defined[:, None] & np.isfinite(level), x, np.nan)


#: The gone levels of :func:`gone_quantiles_x`: 5, 25, 50, 75 and 95 % of the validity gone.
GONE_LEVELS: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)


def gone_quantiles_x(params: np.ndarray, levels=GONE_LEVELS, *, clamp: bool = True) -> np.ndarray:
    """The q-gone points of each curve at ``levels`` (default :data:`GONE_LEVELS`), shape
    (n, len(levels)), non-decreasing along each row (a later level is never earlier).

    ``levels`` must be strictly increasing inside (0, 1). With ``clamp`` (the default) a point
    the curve has not reached by the chart's end (``inf`` in :func:`gone_x`) reads as X_MAX:
    "still valid at the chart's end" is read as the chart's end, so widths and centres stay
    finite (and conservative: the true point lies at or beyond it). NaN rows (undefined
    parameters) stay NaN.

    Examples:
        >>> q = gone_quantiles_x(np.array([[50.0, 10.0, 0.0], [190.0, 10.0, 0.0]]))
        >>> [round(float(v), 2) for v in q[0]]
        [53.2, 57.59, 61.77, 66.65, 74.48]
        >>> [round(float(v), 2) for v in q[1]]   # 95 % gone only after the chart's end
        [193.2, 197.59, 200.0, 200.0, 200.0]
        >>> float(gone_quantiles_x(np.array([[190.0, 10.0, 0.0]]), clamp=False)[0, -1])
        inf
    """
    q = _levels(levels, "levels")
    if (np.diff(q) <= 0).any():
        raise ValueError(f"levels must be strictly increasing, got {q.tolist()}")
    x = gone_x(params, q)
    # bisection noise could put two nearly equal points a hair out of order
    x = np.where(np.isnan(x), np.nan, np.fmax.accumulate(x, axis=1))
    return np.where(clamp & np.isinf(x), X_MAX, x)


def half_gone_x(params: np.ndarray) -> np.ndarray:
    """Axis position (base-1.1 log minutes) after the peak where each curve's proportional
    validity has fallen to 0.5; ``inf`` when it is still at or above one half at the chart's
    end, NaN for undefined parameters (non-finite, ω ≤ 0). ``params`` is (n, 3) of (ξ, ω, α).

    The 0.5-gone point of :func:`gone_x`. The peak is the density's mode clamped to the chart
    [X_MIN, X_MAX], as in the workbench's read-back; the density falls monotonically after it
    (the skew-normal is log-concave).

    Examples:
        >>> x = half_gone_x(np.array([[50.0, 10.0, 0.0], [195.0, 30.0, 0.0]]))
        >>> round(float(x[0]), 4), float(x[1])    # ξ + ω·√(2 ln 2); still valid at the end
        (61.7741, inf)
    """
    return gone_x(params, 0.5)[:, 0]


def half_gone_minutes(params: np.ndarray) -> np.ndarray:
    """:func:`half_gone_x` as minutes since publication (``inf`` and NaN kept).

    Examples:
        >>> round(float(half_gone_minutes(np.array([[50.0, 10.0, 0.0]]))[0]), 1)   # 1.1 ** 61.7741
        360.6
    """
    with np.errstate(over="ignore"):
        return np.power(DEFAULT_BASE, half_gone_x(params))


__all__ = ["GONE_LEVELS", "gone_quantiles_x", "gone_x", "half_gone_minutes", "half_gone_x",
           "log_relative_density"]
