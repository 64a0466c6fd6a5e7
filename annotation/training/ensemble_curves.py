"""The curves of an ensemble, vectorised over samples: how far apart its members' curves lie, and
when half of a curve's validity is gone.

* :func:`members_spread_w1` — for each sample, the mean Wasserstein-1 distance between the
  curves of every pair of members: the project's W1 (:mod:`annotation.curves.distance`: each
  curve's normalised density as masses on the axis grid, ``Σ |F_a − F_b| · Δx``), so a spread of
  d means the members' curves lie on average d log-time units (a factor ``1.1 ** d`` in time)
  apart. K identical members have a spread of exactly 0.
* :func:`half_gone_minutes` — the time after the peak at which the proportional curve has
  fallen to one half: the annotator's "half of its validity is gone by …"
  (:func:`annotation.workbench.elicitation.curve_feedback`, one curve at a time with Brent's
  method), here by bisection on all curves at once, to well below a millionth of a minute.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from annotation.curves.density import _standard_modes
from annotation.curves.distance import GRID_STEPS, curve_masses
from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN

#: samples per block in :func:`members_spread_w1` (a block holds K × rows × 401 masses)
_BLOCK = 2048
#: bisection steps: the bracket [peak, X_MAX] is at most 200 units wide, 200 / 2⁶⁰ < 1e-15
_BISECTIONS = 60


def _members(members: np.ndarray) -> np.ndarray:
    m = np.asarray(members, dtype=float)
    if m.ndim != 3 or m.shape[2] != 3:
        raise ValueError(f"members must have shape (K, n, 3) as (ξ, ω, α), got {m.shape}")
    return m


def members_spread_w1(members: np.ndarray) -> np.ndarray:
    """Mean W1 (log-time units) over the K·(K−1)/2 pairs of members' curves, per sample.

    ``members`` is (K, n, 3): K members' (ξ, ω, α) for n samples. A pair with a curve that lies
    entirely off the axis has no W1 and is left out of the mean; a sample with no usable pair is
    NaN. Needs K ≥ 2 (one member has no spread).

    Examples:
        >>> one = np.array([[50.0, 10.0, 0.0], [80.0, 5.0, 2.0]])
        >>> members_spread_w1(np.stack([one, one, one])).tolist()    # identical members
        [0.0, 0.0]
        >>> shifted = one + [[4.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        >>> np.round(members_spread_w1(np.stack([one, shifted])), 3).tolist()   # ξ 4 units apart
        [4.0, 0.0]
    """
    m = _members(members)
    k, n, _ = m.shape
    if k < 2:
        raise ValueError(f"the spread needs at least 2 members, got {k}")
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    out = np.full(n, np.nan)
    for start in range(0, n, _BLOCK):
        part = m[:, start:start + _BLOCK]
        rows = part.shape[1]
        cdf = np.cumsum(curve_masses(part.reshape(-1, 3)), axis=1)[:, :-1].reshape(k, rows, -1)
        w1 = np.stack([np.abs(cdf[i] - cdf[j]) @ GRID_STEPS for i, j in pairs])
        usable = np.isfinite(w1)
        count = usable.sum(axis=0)
        total = np.where(usable, w1, 0.0).sum(axis=0)
        out[start:start + rows] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return out


def _log_density(x: np.ndarray, xi: np.ndarray, omega: np.ndarray,
                 alpha: np.ndarray) -> np.ndarray:
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
        level = _log_density(peak, xi, omega, alpha) + math.log(0.5)
        beyond = _log_density(np.full_like(peak, X_MAX), xi, omega, alpha) >= level
        low, high = peak.copy(), np.full_like(peak, X_MAX)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (low + high)
            above = _log_density(mid, xi, omega, alpha) >= level
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


__all__ = ["half_gone_minutes", "half_gone_x", "members_spread_w1"]
