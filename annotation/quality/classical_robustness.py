"""Robustness of the classical model's decision maker: leave one seed item or one expert out,
rebuild the DM, and see how far it moves. Pure (numpy).

EXCALIBUR's robustness tables, as reported for the studies of the TU Delft data base (Cooke &
Goossens 2008 §3), list for each item or expert left out the DM's information (on all items and
on the seeds), its calibration, and the relative information of the reduced DM with respect to
the original DM — how much the left-out one changed the answer. ANDURYL's item and expert
robustness tables report the same DM scores. Here:

* ``drop="items"`` leaves out one *seed* item at a time (the scores then rest on N − 1 seeds;
  target items stay); the other items keep their intrinsic ranges (a range is per item);
* ``drop="experts"`` leaves out one expert at a time; the ranges are recomputed from the
  remaining experts, as for a study that never had that expert.

The relative information of two minimum-information distributions f (the reduced DM) and g (the
original) on an item is the exact Kullback–Leibler divergence of the two piecewise-uniform
densities, ∫ f ln(f / g), over the union of their breakpoints (on the log scale for a log item:
the divergence does not change under the change of variable). f's range never extends beyond g's
(fewer experts, a range no wider), so g > 0 wherever f > 0.

References: Cooke (1991) *Experts in Uncertainty* ch. 12; Cooke & Goossens (2008) *RESS* 93,
657–674.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from annotation.quality.classical_dm import classical_model
from annotation.quality.classical_model import check_levels, interquantile_probabilities, log_items


@dataclass(frozen=True)
class RobustnessRow:
    """The DM without one item (``dropped`` = its index among all items) or one expert (its
    index): its calibration and information, and its relative information to the full DM, mean
    over all remaining items and over the remaining seeds."""

    dropped: int
    dm_calibration: float
    dm_information_seed: float
    dm_information_all: float
    relative_information_all: float
    relative_information_seed: float


def _densities(knots: np.ndarray, points: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The piecewise-uniform density with breakpoints ``knots`` (N, Q+2) at ``points`` (N, M)."""
    inside = (points >= knots[:, :1]) & (points <= knots[:, -1:])
    k = np.sum(knots[:, None, 1:-1] < points[:, :, None], axis=2)            # the bin of each point
    widths = np.diff(knots, axis=1)
    return np.where(inside, p[k] / np.take_along_axis(widths, k, axis=1), 0.0)


def dm_relative_information(quantiles_f, ranges_f, quantiles_g, ranges_g, levels: Sequence[float],
                            background: str | Sequence[str] = "uniform") -> np.ndarray:
    """Per item, the relative information ∫ f ln(f / g) of the minimum-information distribution
    f (quantiles (N, Q) on ranges (N, 2)) with respect to g; f's range must lie inside g's.

    Examples:
        >>> q = [[2.0, 5.0, 8.0]]
        >>> dm_relative_information(q, [[0.0, 10.0]], q, [[0.0, 10.0]], (0.05, 0.5, 0.95)).tolist()
        [0.0]
        >>> round(float(dm_relative_information(q, [[0.0, 10.0]], [[1.0, 5.0, 9.0]], [[0.0, 10.0]],
        ...                                     (0.05, 0.5, 0.95))[0]), 6)
        0.149053
    """
    lv = check_levels(levels)
    qf, qg = np.asarray(quantiles_f, dtype=float), np.asarray(quantiles_g, dtype=float)
    rf, rg = np.asarray(ranges_f, dtype=float), np.asarray(ranges_g, dtype=float)
    n = qf.shape[0]
    if qf.shape != (n, lv.size) or qg.shape != qf.shape or rf.shape != (n, 2) or rg.shape != (n, 2):
        raise ValueError("the two distributions need (N, Q) quantiles and (N, 2) ranges of one N")
    logs = log_items(background, n)
    kf = np.concatenate([rf[:, :1], qf, rf[:, 1:]], axis=1)
    kg = np.concatenate([rg[:, :1], qg, rg[:, 1:]], axis=1)
    if not (np.all(np.isfinite(kf)) and np.all(np.isfinite(kg))):
        raise ValueError("quantiles and ranges must be finite")
    if np.any(np.diff(kf, axis=1) <= 0.0) or np.any(np.diff(kg, axis=1) <= 0.0):
        raise ValueError("quantiles must increase strictly inside their ranges")
    if np.any(rf[:, 0] < rg[:, 0]) or np.any(rf[:, 1] > rg[:, 1]):
        raise ValueError("f's range must lie inside g's range")
    if np.any(logs[:, None] & ((kf <= 0.0) | (kg <= 0.0))):
        raise ValueError("an item on the log background has a value ≤ 0")
    kf = np.where(logs[:, None], np.log(np.where(logs[:, None], kf, 1.0)), kf)
    kg = np.where(logs[:, None], np.log(np.where(logs[:, None], kg, 1.0)), kg)
    edges = np.sort(np.concatenate([kf, kg], axis=1), axis=1)
    mids, widths = (edges[:, 1:] + edges[:, :-1]) / 2.0, np.diff(edges, axis=1)
    p = interquantile_probabilities(lv)
    f, g = _densities(kf, mids, p), _densities(kg, mids, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where((f > 0.0) & (widths > 0.0), widths * f * np.log(f / g), 0.0)
    return terms.sum(axis=1)


def robustness(assessments_all, realisations, levels: Sequence[float], *, drop: str = "items",
               background: str | Sequence[str] = "uniform", overshoot: float = 0.1,
               weights: str | Sequence[float] = "global", alpha: float | None = None,
               calibration_power: float = 1.0) -> list[RobustnessRow]:
    """Leave one seed item (``drop="items"``) or one expert (``drop="experts"``) out at a time,
    rerun :func:`annotation.quality.classical_dm.classical_model` with the same options (user
    weights lose the dropped expert's entry), and report the reduced DM (:class:`RobustnessRow`).

    Examples:
        >>> a = [[[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], [[0.0, 4.0, 8.0], [5.0, 25.0, 45.0]]]
        >>> rows = robustness(a, [2.5, 21.0], (0.05, 0.5, 0.95), drop="items", weights="equal")
        >>> [row.dropped for row in rows], rows[0].relative_information_all
        ([0, 1], 0.0)
    """
    if drop not in ("items", "experts"):
        raise ValueError(f"drop must be 'items' or 'experts', got {drop!r}")
    a = np.asarray(assessments_all, dtype=float)
    x = np.asarray(realisations, dtype=float)
    options = dict(overshoot=overshoot, alpha=alpha, calibration_power=calibration_power)
    full = classical_model(a, x, levels, background=background, weights=weights, **options)
    n_items = a.shape[1]
    backgrounds = (["log" if b else "uniform" for b in log_items(background, n_items)])
    rows = []
    if drop == "items":
        for item in np.flatnonzero(full.seeds):
            keep = np.arange(n_items) != item
            if full.seeds[keep].sum() == 0:
                raise ValueError("leaving out the only seed item leaves nothing to score")
            part = classical_model(a[:, keep], x[keep], levels, weights=weights,
                                   background=[b for b, k in zip(backgrounds, keep) if k], **options)
            rel = dm_relative_information(part.quantiles, part.ranges, full.quantiles[keep],
                                          full.ranges[keep], levels, [b for b, k in zip(backgrounds, keep) if k])
            rows.append(_row(int(item), part, rel))
        return rows
    if a.shape[0] < 2:
        raise ValueError("leaving an expert out needs at least two experts")
    for expert in range(a.shape[0]):
        keep = np.arange(a.shape[0]) != expert
        user = weights if isinstance(weights, str) else np.asarray(weights, dtype=float)[keep]
        part = classical_model(a[keep], x, levels, weights=user, background=backgrounds, **options)
        rel = dm_relative_information(part.quantiles, part.ranges, full.quantiles, full.ranges,
                                      levels, backgrounds)
        rows.append(_row(expert, part, rel))
    return rows


def _row(dropped: int, part, rel: np.ndarray) -> RobustnessRow:  # type: ignore[no-untyped-def]
    return RobustnessRow(dropped=dropped, dm_calibration=part.dm_calibration,
                         dm_information_seed=part.dm_information_seed,
                         dm_information_all=part.dm_information_all,
                         relative_information_all=float(rel.mean()),
                         relative_information_seed=float(rel[part.seeds].mean()))
