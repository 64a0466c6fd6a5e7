"""Cooke's classical model, the experts' scores: calibration (statistical accuracy) and
information (concentration) of quantile assessments, and the global weights. Pure (numpy, scipy).

An expert gives, for every item, quantiles at ``levels`` (e.g. 5 %, 50 %, 95 %). On the *seed*
items the true value (the realisation) is known; the expert is scored on them:

* **calibration** — the p-value of the hypothesis that the realisations fall into the expert's
  inter-quantile bins with the bins' probabilities p (:func:`calibration`);
* **information** — how concentrated the expert's distributions are relative to a uniform (or
  log-uniform) background on each item's intrinsic range (:func:`information`).

The decision maker (the weighted linear pool) is built in :mod:`annotation.quality.classical_dm`,
its robustness in :mod:`annotation.quality.classical_robustness`.

Array shapes throughout: one expert's ``assessments`` are (N items, Q quantiles); a panel's
``assessments_all`` are (E experts, N items, Q quantiles); ``realisations`` are (N,), ``NaN``
marking a *target* item (no realisation) where a function takes targets.

References:
    Cooke, R. M. (1991). *Experts in Uncertainty: Opinion and Subjective Probability in Science*.
    Oxford University Press (chapter 12, the classical model).
    Cooke, R. M. & Goossens, L. L. H. J. (2008). TU Delft expert judgment data base. *Reliability
    Engineering & System Safety* 93(5), 657–674.
    Colson, A. R. & Cooke, R. M. (2017). Cross validation for the classical model of structured
    expert judgment. *Reliability Engineering & System Safety* 163, 109–120.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.stats import chi2

#: The two background measures of the information score.
BACKGROUNDS: tuple[str, ...] = ("uniform", "log")


def check_levels(levels: Sequence[float]) -> np.ndarray:
    """The quantile levels as an array, or ValueError: strictly increasing, inside (0, 1).

    Examples:
        >>> check_levels((0.05, 0.5, 0.95)).tolist()
        [0.05, 0.5, 0.95]
    """
    out = np.asarray(levels, dtype=float)
    if out.ndim != 1 or out.size == 0:
        raise ValueError("quantile levels must be a non-empty list of numbers")
    if not np.all(np.isfinite(out)) or np.any(out <= 0.0) or np.any(out >= 1.0):
        raise ValueError(f"quantile levels must lie strictly between 0 and 1, got {out.tolist()}")
    if np.any(np.diff(out) <= 0.0):
        raise ValueError(f"quantile levels must be strictly increasing, got {out.tolist()}")
    return out


def check_assessments(assessments, ndim: int, n_levels: int | None = None) -> np.ndarray:
    """Assessments as a float array of ``ndim`` dimensions whose last axis holds quantiles that are
    finite and non-decreasing, or ValueError naming the first bad expert/item.

    Examples:
        >>> check_assessments([[1.0, 2.0, 3.0]], ndim=2).shape
        (1, 3)
    """
    out = np.asarray(assessments, dtype=float)
    if out.ndim != ndim:
        raise ValueError(f"assessments must have {ndim} dimensions, got shape {out.shape}")
    if n_levels is not None and out.shape[-1] != n_levels:
        raise ValueError(f"assessments hold {out.shape[-1]} quantiles per item, the levels {n_levels}")
    if out.size == 0:
        raise ValueError(f"assessments are empty (shape {out.shape})")
    if not np.all(np.isfinite(out)):
        where = np.argwhere(~np.isfinite(out))[0][:-1].tolist()
        raise ValueError(f"assessments hold a missing or infinite value (at index {where})")
    bad = np.diff(out, axis=-1) < 0.0
    if np.any(bad):
        where = np.argwhere(bad)[0][:-1].tolist()
        raise ValueError(f"quantiles must be non-decreasing per expert and item (not at index {where})")
    return out


def log_items(background: str | Sequence[str], n_items: int) -> np.ndarray:
    """Which items are on the log background: ``background`` is ``"uniform"`` or ``"log"`` for
    every item, or one of them per item.

    Examples:
        >>> log_items(["uniform", "log"], 2).tolist()
        [False, True]
    """
    if isinstance(background, str):
        names = [background] * n_items
    else:
        names = list(background)
        if len(names) != n_items:
            raise ValueError(f"background names {len(names)} items, the assessments {n_items}")
    bad = sorted({str(b) for b in names if b not in BACKGROUNDS})
    if bad:
        raise ValueError(f"background must be 'uniform' or 'log', got {bad[0]!r}")
    return np.array([b == "log" for b in names], dtype=bool)


def interquantile_probabilities(levels: Sequence[float]) -> np.ndarray:
    """The probabilities of the Q + 1 inter-quantile bins: p_i = l_i − l_{i−1}, with l_0 = 0 and
    l_{Q+1} = 1 (Cooke 1991, ch. 12).

    Examples:
        >>> interquantile_probabilities((0.05, 0.5, 0.95)).round(2).tolist()
        [0.05, 0.45, 0.45, 0.05]
    """
    lv = check_levels(levels)
    return np.diff(np.concatenate(([0.0], lv, [1.0])))


def panel_bin_counts(assessments_all, realisations) -> np.ndarray:
    """:func:`bin_counts` for every expert at once: (E, N, Q) assessments → (E, Q + 1) counts.

    Examples:
        >>> panel_bin_counts([[[1.0, 2.0]], [[3.0, 4.0]]], [2.5]).tolist()
        [[0, 0, 1], [1, 0, 0]]
    """
    a = check_assessments(assessments_all, ndim=3)
    x = np.asarray(realisations, dtype=float)
    if x.shape != (a.shape[1],):
        raise ValueError(f"realisations have shape {x.shape}, the assessments {a.shape[1]} items")
    if not np.all(np.isfinite(x)):
        raise ValueError("realisations must be finite numbers (seed items only)")
    # the bin is the number of quantiles strictly below the realisation: a tie falls below
    bins = np.sum(a < x[None, :, None], axis=2)
    n_bins = a.shape[2] + 1
    return np.stack([np.bincount(row, minlength=n_bins) for row in bins])


def bin_counts(assessments, realisations) -> np.ndarray:
    """How many realisations fall into each of one expert's Q + 1 inter-quantile bins.

    Bin 0 holds realisations x ≤ q_1, bin i holds q_i < x ≤ q_{i+1}, bin Q holds x > q_Q: a
    realisation **equal to a quantile is counted in the bin below it** (upper edges inclusive).
    This is the rule Cooke states for the sample distribution, s_1 = #{x ≤ 5 % quantile}/N,
    s_2 = #{5 % < x ≤ 50 %}/N, … (Cooke 1991 ch. 12; the classical model's description in the
    supplementary material of Aspinall et al. 2016), and the one ANDURYL applies.

    Examples:
        >>> bin_counts([[1, 2, 3], [1, 2, 3], [1, 2, 3]], [0.5, 2.0, 9.0]).tolist()
        [1, 1, 0, 1]
    """
    a = check_assessments(assessments, ndim=2)
    return panel_bin_counts(a[None], realisations)[0]


def _relative_information(s: np.ndarray, p: np.ndarray) -> np.ndarray:
    """I(s, p) = Σ s_i ln(s_i / p_i) along the last axis, with 0 · ln 0 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(s > 0.0, s * np.log(s / p), 0.0)
    return terms.sum(axis=-1)


def calibration(counts, p, n: float | None = None) -> float:
    """Cooke's calibration score: the p-value of 2·n·I(s, p) under a chi-square with
    len(p) − 1 degrees of freedom, s = counts / Σ counts, I(s, p) = Σ s_i ln(s_i / p_i)
    (0 · ln 0 = 0).

    2·N·I(s, p) is the likelihood-ratio statistic of the hypothesis that the realisations fall
    into the bins with probabilities p; asymptotically chi-square (Cooke 1991, ch. 12). ``n``
    replaces N = Σ counts: Cooke scores every expert with the same N (the seeds of the study),
    and the *calibration power* c of EXCALIBUR is the effective N' = c·N.

    Examples:
        >>> calibration([1, 9, 9, 1], [0.05, 0.45, 0.45, 0.05])   # s = p: I = 0
        1.0
        >>> round(calibration([1, 4, 4, 1], [0.05, 0.45, 0.45, 0.05]), 6)
        0.828308
        >>> f"{calibration([0, 0, 0, 10], [0.05, 0.45, 0.45, 0.05]):.4e}"   # 2·10·ln 20 = 59.91
        '6.1303e-13'
    """
    c = np.asarray(counts, dtype=float)
    pr = np.asarray(p, dtype=float)
    if c.ndim != 1 or pr.shape != c.shape:
        raise ValueError(f"counts {c.shape} and bin probabilities {pr.shape} must be of one length")
    if c.size < 2:
        raise ValueError("calibration needs at least two bins")
    if not np.all(np.isfinite(c)) or np.any(c < 0.0) or c.sum() <= 0.0:
        raise ValueError("counts must be non-negative numbers with a positive total")
    if not np.all(np.isfinite(pr)) or np.any(pr <= 0.0) or abs(pr.sum() - 1.0) > 1e-9:
        raise ValueError("bin probabilities must be positive and sum to 1")
    n_eff = float(c.sum()) if n is None else float(n)
    if not np.isfinite(n_eff) or n_eff <= 0.0:
        raise ValueError(f"n must be a positive number, got {n}")
    statistic = 2.0 * n_eff * float(_relative_information(c / c.sum(), pr))
    return float(chi2.sf(statistic, df=c.size - 1))


def panel_calibrations(counts_all, p, n: float) -> np.ndarray:
    """:func:`calibration` of every row of an (E, Q + 1) array of counts.

    Examples:
        >>> panel_calibrations([[1, 9, 9, 1], [2, 18, 18, 2]], [0.05, 0.45, 0.45, 0.05], 20).tolist()
        [1.0, 1.0]
    """
    return np.array([calibration(row, p, n) for row in np.asarray(counts_all, dtype=float)])


def intrinsic_ranges(assessments_all, realisations, overshoot: float = 0.1,
                     background: str | Sequence[str] = "uniform") -> np.ndarray:
    """Each item's intrinsic range [L, U], as an (N, 2) array in the items' own units.

    L₀ = the smallest of all experts' quantiles and the realisation (where there is one), U₀
    the largest; the range is widened by k·(U₀ − L₀) on either side, k = ``overshoot`` (Cooke
    1991 ch. 12: the "k % overshoot", 10 % by default). On the log background the same is done to
    ln L₀ and ln U₀ and the result mapped back, so every value must then be positive.

    Examples:
        >>> intrinsic_ranges([[[1.0, 2.0, 3.0]], [[2.0, 4.0, 5.0]]], [6.0]).round(6).tolist()
        [[0.5, 6.5]]
        >>> intrinsic_ranges([[[1.0, 10.0, 100.0]]], [float("nan")], background="log").round(6).tolist()
        [[0.630957, 158.489319]]
    """
    a = check_assessments(assessments_all, ndim=3)
    x = np.asarray(realisations, dtype=float)
    if x.shape != (a.shape[1],):
        raise ValueError(f"realisations have shape {x.shape}, the assessments {a.shape[1]} items")
    if np.any(np.isinf(x)):
        raise ValueError("realisations must be finite (NaN marks a target item)")
    if not np.isfinite(overshoot) or overshoot < 0.0:
        raise ValueError(f"overshoot must be a non-negative number, got {overshoot}")
    logs = log_items(background, a.shape[1])
    low = np.fmin(a.min(axis=(0, 2)), x)
    high = np.fmax(a.max(axis=(0, 2)), x)
    if np.any(logs & (low <= 0.0)):
        item = int(np.argmax(logs & (low <= 0.0)))
        raise ValueError(f"item {item} is on the log background but has a value ≤ 0 ({low[item]:g})")
    low_t = np.where(logs, np.log(np.where(logs, low, 1.0)), low)
    high_t = np.where(logs, np.log(np.where(logs, high, 1.0)), high)
    if np.any(high_t <= low_t):
        item = int(np.argmax(high_t <= low_t))
        raise ValueError(f"item {item} has no spread: every quantile and the realisation are equal")
    pad = overshoot * (high_t - low_t)
    ranges = np.stack([low_t - pad, high_t + pad], axis=1)
    ranges[logs] = np.exp(ranges[logs])
    return ranges


def _transformed(values: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """Values on the background's scale: ln where the item (axis −2 for quantiles) is log."""
    mask = np.broadcast_to(logs[:, None], values.shape[-2:])
    mask = np.broadcast_to(mask, values.shape)
    if np.any(mask & (values <= 0.0)):
        raise ValueError("an item on the log background has a quantile ≤ 0")
    return np.where(mask, np.log(np.where(mask, values, 1.0)), values)


def panel_information(assessments_all, ranges, levels: Sequence[float],
                      background: str | Sequence[str] = "uniform") -> np.ndarray:
    """:func:`information` of every expert at once: (E, N, Q) → (E, N).

    Examples:
        >>> panel_information([[[2.0, 5.0, 8.0]]], [[0.0, 10.0]], (0.05, 0.5, 0.95)).round(6).tolist()
        [[0.226289]]
    """
    lv = check_levels(levels)
    a = check_assessments(assessments_all, ndim=3, n_levels=lv.size)
    r = np.asarray(ranges, dtype=float)
    if r.shape != (a.shape[1], 2):
        raise ValueError(f"ranges have shape {r.shape}, expected ({a.shape[1]}, 2)")
    logs = log_items(background, a.shape[1])
    lo = _transformed(r[:, :1], logs)[:, 0]
    hi = _transformed(r[:, 1:], logs)[:, 0]
    q = _transformed(a, logs)
    if np.any(q.min(axis=(0, 2)) < lo) or np.any(q.max(axis=(0, 2)) > hi):
        raise ValueError("a quantile lies outside its item's intrinsic range")
    edges = np.concatenate([np.broadcast_to(lo[None, :, None], q.shape[:2] + (1,)), q,
                            np.broadcast_to(hi[None, :, None], q.shape[:2] + (1,))], axis=2)
    widths = np.diff(edges, axis=2)
    if np.any(widths <= 0.0):
        e, n = np.argwhere(np.any(widths <= 0.0, axis=2))[0].tolist()
        raise ValueError(f"expert {e} gives item {n} two equal quantiles: a zero-width bin has "
                         "infinite information")
    p = interquantile_probabilities(lv)
    r_bins = widths / (hi - lo)[None, :, None]
    return np.sum(p * np.log(p / r_bins), axis=2)


def information(assessments, ranges, levels: Sequence[float],
                background: str | Sequence[str] = "uniform") -> np.ndarray:
    """Per item, the relative information of one expert's minimum-information distribution with
    respect to the background on the item's intrinsic range [L, U]:

    I = Σ_{i=1}^{Q+1} p_i ln(p_i / r_i),  r_i = (q_i − q_{i−1}) / (U − L),  q_0 = L, q_{Q+1} = U,

    p the inter-quantile probabilities. The minimum-information distribution spreads each bin's
    probability uniformly over the bin; on the ``"log"`` background q, L and U are replaced by
    their logarithms (Cooke 1991 ch. 12; Cooke & Goossens 2008 §2). Equal quantiles (a zero-width
    bin) have infinite information and are refused.

    Examples:
        >>> information([[2.0, 5.0, 8.0]], [[0.0, 10.0]], (0.05, 0.5, 0.95)).round(6).tolist()
        [0.226289]
    """
    a = check_assessments(assessments, ndim=2)
    return panel_information(a[None], ranges, levels, background)[0]


def mean_information(assessments, ranges, levels: Sequence[float],
                     background: str | Sequence[str] = "uniform") -> float:
    """The expert's information score: :func:`information` averaged over the items given.

    Examples:
        >>> round(mean_information([[2.0, 5.0, 8.0], [0.0, 5.0, 10.0]], [[0.0, 10.0], [-1.0, 11.0]],
        ...                        (0.05, 0.5, 0.95)), 6)
        0.122236
    """
    return float(np.mean(information(assessments, ranges, levels, background)))


def global_weights(calibrations, information_seed, alpha: float) -> np.ndarray:
    """Unnormalised global weights: w_e = C_e · I_e · 1{C_e ≥ α} (Cooke 1991 ch. 12), C the
    calibration score, I the mean information over the seed items, α the significance level.
    Dividing by Σ w gives the decision maker's weights.

    Examples:
        >>> global_weights([0.5, 0.01], [1.2, 2.0], alpha=0.05).tolist()
        [0.6, 0.0]
    """
    c = np.asarray(calibrations, dtype=float)
    info = np.asarray(information_seed, dtype=float)
    if c.ndim != 1 or info.shape != c.shape:
        raise ValueError(f"calibrations {c.shape} and information {info.shape} must be of one length")
    if not np.all(np.isfinite(c)) or np.any((c < 0.0) | (c > 1.0)):
        raise ValueError("calibration scores must lie in [0, 1]")
    if not np.all(np.isfinite(info)) or np.any(info < 0.0):
        raise ValueError("information scores must be non-negative numbers")
    if not np.isfinite(alpha) or alpha < 0.0 or alpha > 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    return c * info * (c >= alpha)
