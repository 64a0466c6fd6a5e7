"""The curves of an ensemble, vectorised over samples: how far apart its members' curves lie, and
when half of a curve's validity is gone.

* :func:`members_spread_w1` — for each sample, the mean Wasserstein-1 distance between the
  curves of every pair of members: the project's W1 (:mod:`annotation.curves.distance`: each
  curve's normalised density as masses on the axis grid, ``Σ |F_a − F_b| · Δx``), so a spread of
  d means the members' curves lie on average d log-time units (a factor ``1.1 ** d`` in time)
  apart. K identical members have a spread of exactly 0.
* :func:`half_gone_minutes` — the time after the peak at which the proportional curve has
  fallen to one half (:mod:`annotation.curves.half_gone`, kept importable from here).
"""

from __future__ import annotations

import numpy as np

from annotation.curves.distance import GRID_STEPS, curve_masses
from annotation.curves.half_gone import half_gone_minutes, half_gone_x

#: samples per block in :func:`members_spread_w1` (a block holds K × rows × 401 masses)
_BLOCK = 2048


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


__all__ = ["half_gone_minutes", "half_gone_x", "members_spread_w1"]
