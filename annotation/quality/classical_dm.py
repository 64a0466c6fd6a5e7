"""Cooke's classical model, the decision maker: the weighted linear pool of the experts'
minimum-information distributions, its quantiles, and the whole model with the optimised
significance level α. Pure (numpy, scipy); the scores come from
:mod:`annotation.quality.classical_model`.

**The pool.** On an item's intrinsic range [L, U] expert e's minimum-information distribution has
the piecewise-linear CDF through (L, 0), (q_1, l_1), …, (q_Q, l_Q), (U, 1) — linear in the value,
or in its logarithm on the log background. The decision maker's CDF is F = Σ_e w_e F_e (Σ w = 1),
again piecewise linear, with breakpoints at every expert's quantiles; its quantile at level t is
the smallest x with F(x) = t, found exactly on the segment where F crosses t (Cooke 1991 ch. 12;
Cooke & Goossens 2008 §2).

**The DM as a virtual expert.** It is scored like an expert — calibration on the seeds, with the
same N, and information against the same intrinsic ranges. The ranges need not be recomputed with
the DM's quantiles: each DM quantile lies between the smallest and the largest expert quantile of
its level (F at the smallest q_k is at most l_k, at the largest at least l_k), so it never widens
a range — which is also why EXCALIBUR's and ANDURYL's practice of computing the ranges over all
experts gives the DM the experts' ranges.

**α.** With global weights and no α given, every cut-off α ∈ {0} ∪ {C_e} is tried; the DM of
each is scored by calibration × information on the seeds, and the highest wins; on a tie the
smaller α (more experts kept). Cut-offs that keep the same experts build the same DM and are
computed once.

References: Cooke (1991) *Experts in Uncertainty*, ch. 12; Cooke & Goossens (2008) *RESS* 93,
657–674; Colson & Cooke (2017) *RESS* 163, 109–120.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from annotation.quality.classical_model import (
    check_assessments, check_levels, global_weights, interquantile_probabilities, intrinsic_ranges,
    log_items, panel_bin_counts, panel_calibrations, panel_information)

#: Pooled CDF values this close to a level are read as the level (rounding of the pool's sums).
_LEVEL_TOLERANCE = 1e-12


@dataclass(frozen=True)
class ClassicalModelResult:
    """What the classical model gives for a panel: per expert (arrays of length E) and for the
    decision maker. ``weight`` is the DM's normalised weight of each expert; ``score`` the
    unnormalised combined score C · I_seed (before the α cut-off); ``alpha`` the significance
    level used (None for equal or user weights); ``quantiles`` the DM's (N, Q) quantiles;
    ``seeds`` which items had a realisation; ``ranges`` the intrinsic ranges."""

    calibration: np.ndarray
    information_seed: np.ndarray
    information_all: np.ndarray
    score: np.ndarray
    weight: np.ndarray
    alpha: float | None
    quantiles: np.ndarray
    dm_calibration: float
    dm_information_seed: float
    dm_information_all: float
    seeds: np.ndarray
    ranges: np.ndarray

    @property
    def n_seeds(self) -> int:
        """How many seed items the scores rest on."""
        return int(self.seeds.sum())


class _Pool:
    """The experts' CDFs of every item, prepared once so that a DM for any weights costs one
    sort-free pass: per item, all experts' breakpoints in order and each one's jump in density."""

    def __init__(self, assessments_all: np.ndarray, ranges: np.ndarray, levels: np.ndarray,
                 logs: np.ndarray):
        e, n, q = assessments_all.shape
        self.levels = levels
        lo = np.where(logs, np.log(np.where(logs, ranges[:, 0], 1.0)), ranges[:, 0])
        hi = np.where(logs, np.log(np.where(logs, ranges[:, 1], 1.0)), ranges[:, 1])
        mask = np.broadcast_to(logs[None, :, None], assessments_all.shape)
        if np.any(mask & (assessments_all <= 0.0)):
            raise ValueError("an item on the log background has a quantile ≤ 0")
        q_t = np.where(mask, np.log(np.where(mask, assessments_all, 1.0)), assessments_all)
        knots = np.concatenate([np.broadcast_to(lo[None, :, None], (e, n, 1)), q_t,
                                np.broadcast_to(hi[None, :, None], (e, n, 1))], axis=2)
        widths = np.diff(knots, axis=2)
        if np.any(widths <= 0.0):
            raise ValueError("an expert's quantiles must lie strictly inside the range and differ")
        density = interquantile_probabilities(levels)[None, None, :] / widths   # (E, N, Q+1)
        padded = np.concatenate([np.zeros((e, n, 1)), density, np.zeros((e, n, 1))], axis=2)
        jumps = np.diff(padded, axis=2)                                        # (E, N, Q+2)
        originals = np.concatenate([np.broadcast_to(ranges[None, :, :1], (e, n, 1)), assessments_all,
                                    np.broadcast_to(ranges[None, :, 1:], (e, n, 1))], axis=2)

        def flat(values: np.ndarray) -> np.ndarray:   # (E, N, Q+2) → (N, E·(Q+2)), items first
            return np.moveaxis(values, 0, 1).reshape(n, e * (q + 2))

        x = flat(knots)
        self.order = np.argsort(x, axis=1, kind="stable")
        self.x = np.take_along_axis(x, self.order, axis=1)
        self.x_original = np.take_along_axis(flat(originals), self.order, axis=1)
        self.jumps = np.take_along_axis(flat(jumps), self.order, axis=1)
        self.expert_of = np.take_along_axis(
            flat(np.broadcast_to(np.arange(e)[:, None, None], knots.shape)), self.order, axis=1)
        self.logs = logs

    def quantiles(self, weights: np.ndarray) -> np.ndarray:
        """The pooled distribution's quantiles at the levels, (N, Q), in the items' units."""
        density = np.cumsum(self.jumps * weights[self.expert_of], axis=1)    # on [x_j, x_{j+1})
        mass = density[:, :-1] * np.diff(self.x, axis=1)
        cdf = np.concatenate([np.zeros((self.x.shape[0], 1)), np.cumsum(mass, axis=1)], axis=1)
        t = self.levels[None, None, :]
        reached = cdf[:, :, None] >= t - _LEVEL_TOLERANCE                     # (N, M, Q)
        j = np.argmax(reached, axis=1)                                        # first knot at t
        rows = np.arange(cdf.shape[0])[:, None]
        f_hi, f_lo = cdf[rows, j], cdf[rows, np.maximum(j - 1, 0)]
        x_hi, x_lo = self.x[rows, j], self.x[rows, np.maximum(j - 1, 0)]
        with np.errstate(divide="ignore", invalid="ignore"):
            inside = x_lo + (self.levels[None, :] - f_lo) * (x_hi - x_lo) / (f_hi - f_lo)
        on_knot = np.abs(f_hi - self.levels[None, :]) <= _LEVEL_TOLERANCE
        logs = np.broadcast_to(self.logs[:, None], inside.shape)
        value = np.where(logs, np.exp(np.where(logs & np.isfinite(inside), inside, 0.0)), inside)
        return np.where(on_knot, self.x_original[rows, j], value)


def _normalised(weights, n_experts: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape != (n_experts,):
        raise ValueError(f"weights name {w.size} experts, the assessments {n_experts}")
    if not np.all(np.isfinite(w)) or np.any(w < 0.0) or w.sum() <= 0.0:
        raise ValueError("weights must be non-negative numbers with a positive total")
    return w / w.sum()


def decision_maker_quantiles(assessments_all, weights, ranges, levels: Sequence[float],
                             background: str | Sequence[str] = "uniform") -> np.ndarray:
    """The decision maker's quantiles (N, Q): the weighted linear pool F = Σ w_e F_e of the
    experts' piecewise-linear CDFs on each item's range (linear in log value on the log
    background), inverted exactly at ``levels``. Weights are normalised here.

    Examples:
        Two experts with equal weight on [0, 10]; the pool's median lies where
        ½·F_1(x) + ½·F_2(x) = ½:

        >>> decision_maker_quantiles([[[2.0, 4.0, 6.0]], [[4.0, 6.0, 8.0]]], [1, 1],
        ...                          [[0.0, 10.0]], (0.05, 0.5, 0.95)).round(6).tolist()
        [[2.105263, 5.0, 7.894737]]
    """
    lv = check_levels(levels)
    a = check_assessments(assessments_all, ndim=3, n_levels=lv.size)
    r = np.asarray(ranges, dtype=float)
    if r.shape != (a.shape[1], 2) or not np.all(np.isfinite(r)):
        raise ValueError(f"ranges must be finite, of shape ({a.shape[1]}, 2), got {r.shape}")
    pool = _Pool(a, r, lv, log_items(background, a.shape[1]))
    return pool.quantiles(_normalised(weights, a.shape[0]))


def _dm_scores(dm: np.ndarray, seeds: np.ndarray, realisations: np.ndarray, ranges: np.ndarray,
               lv: np.ndarray, background, n_eff: float) -> tuple[float, float, float]:
    """The DM scored as a virtual expert: calibration, information on the seeds and on all items."""
    counts = panel_bin_counts(dm[None, seeds], realisations[seeds])
    cal = float(panel_calibrations(counts, interquantile_probabilities(lv), n_eff)[0])
    info = panel_information(dm[None], ranges, lv, background)[0]
    return cal, float(info[seeds].mean()), float(info.mean())


def classical_model(assessments_all, realisations, levels: Sequence[float], *,
                    background: str | Sequence[str] = "uniform", overshoot: float = 0.1,
                    weights: str | Sequence[float] = "global", alpha: float | None = None,
                    calibration_power: float = 1.0) -> ClassicalModelResult:
    """Cooke's classical model on a panel: each expert's calibration on the seeds (the items
    whose realisation is not NaN; every expert scored with the same N = the number of seeds,
    times ``calibration_power``), information on the seeds and on all items, and the decision
    maker under ``weights``:

    * ``"global"``: w_e ∝ C_e · I_e(seeds) · 1{C_e ≥ α}; with ``alpha=None`` α is optimised
      (module docstring), otherwise the given α is used (refused above every expert's C);
    * ``"equal"``: w_e = 1/E;
    * a sequence: the user's weights, normalised.

    Examples:
        >>> a = [[[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], [[0.0, 4.0, 8.0], [5.0, 25.0, 45.0]]]
        >>> res = classical_model(a, [2.5, float("nan")], (0.05, 0.5, 0.95), weights="equal")
        >>> res.n_seeds, res.weight.tolist(), res.alpha
        (1, [0.5, 0.5], None)
    """
    lv = check_levels(levels)
    a = check_assessments(assessments_all, ndim=3, n_levels=lv.size)
    x = np.asarray(realisations, dtype=float)
    if x.shape != (a.shape[1],):
        raise ValueError(f"realisations have shape {x.shape}, the assessments {a.shape[1]} items")
    seeds = ~np.isnan(x)
    if not seeds.any():
        raise ValueError("no seed items: every expert needs items with a realisation to be scored")
    if not np.isfinite(calibration_power) or calibration_power <= 0.0:
        raise ValueError(f"calibration_power must be a positive number, got {calibration_power}")
    ranges = intrinsic_ranges(a, x, overshoot, background)
    logs = log_items(background, a.shape[1])
    p = interquantile_probabilities(lv)
    n_eff = float(seeds.sum()) * calibration_power
    cal = panel_calibrations(panel_bin_counts(a[:, seeds], x[seeds]), p, n_eff)
    info = panel_information(a, ranges, lv, background)
    info_seed, info_all = info[:, seeds].mean(axis=1), info.mean(axis=1)
    score = cal * info_seed
    pool = _Pool(a, ranges, lv, logs)

    def build(w: np.ndarray) -> tuple[np.ndarray, tuple[float, float, float]]:
        dm = pool.quantiles(w)
        return dm, _dm_scores(dm, seeds, x, ranges, lv, background, n_eff)

    chosen_alpha: float | None = None
    if isinstance(weights, str) and weights == "global":
        if alpha is None:
            candidates = sorted({0.0, *cal.tolist()})
        else:
            if not np.isfinite(alpha) or alpha < 0.0 or alpha > 1.0:
                raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
            if alpha > cal.max():
                raise ValueError(f"alpha {alpha:g} is above every expert's calibration "
                                 f"(highest {cal.max():.3g}): no expert keeps a weight")
            candidates = [float(alpha)]
        best = None
        seen: set[tuple[bool, ...]] = set()
        for cut in candidates:
            raw = global_weights(cal, info_seed, cut)
            kept = tuple((raw > 0.0).tolist())
            if raw.sum() <= 0.0 or kept in seen:
                continue
            seen.add(kept)
            w = raw / raw.sum()
            dm, scores = build(w)
            if best is None or scores[0] * scores[1] > best[3][0] * best[3][1]:
                best = (cut, w, dm, scores)
        if best is None:
            raise ValueError("no expert has a positive calibration × information score: "
                             "global weights are undefined (use equal weights)")
        chosen_alpha, w, dm, scores = best
    elif isinstance(weights, str) and weights == "equal":
        w = np.full(a.shape[0], 1.0 / a.shape[0])
        dm, scores = build(w)
    elif isinstance(weights, str):
        raise ValueError(f"weights must be 'global', 'equal' or a list of numbers, got {weights!r}")
    else:
        w = _normalised(weights, a.shape[0])
        dm, scores = build(w)
    return ClassicalModelResult(
        calibration=cal, information_seed=info_seed, information_all=info_all, score=score,
        weight=w, alpha=chosen_alpha, quantiles=dm, dm_calibration=scores[0],
        dm_information_seed=scores[1], dm_information_all=scores[2], seeds=seeds, ranges=ranges)
