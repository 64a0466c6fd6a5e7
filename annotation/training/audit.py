"""Gold audit: which gold curves does a model, that never saw them, disagree with most?

Label-issue detection for curves (SPEC section 12), in three steps:

1. :func:`cross_fitted` — the gold is split into ``folds`` folds (a seeded permutation dealt
   round-robin, so fold sizes differ by at most one); for each fold an ensemble
   (:func:`~annotation.training.ensemble.fit_ensemble`) is trained on the other folds and
   predicts the held-out one. No sample is judged by a model that saw it (cross-fitting, as in
   confident learning's out-of-sample predictions: Northcutt, Jiang & Chuang 2021, JAIR 70:1373).
   Each fold's ensemble z-scores with its own training folds' statistics.
2. :func:`audit_scores` — how surprising each gold curve is to the model, on two scales, each
   the larger the stranger: the **parameter residual** ``r = gold − mean`` (ξ, ω, α) as a
   Mahalanobis distance under the covariance of the *other* folds' residuals — a flipped skew or
   a moved peak stands out even where it moves the curve little, and errors that trade off
   against each other (a wider curve fitted a little later) are not counted twice — and the
   **curve distance** W1(gold, mean) over the sample's cross-fitted expected miss
   (:func:`annotation.training.calibration.cross_fitted_miss`: how far the model usually misses
   curves like this one). Each is divided by its own 95th percentile over the audited gold and
   the score is the larger of the two. On ``bench/model_audit.py`` (3 seeds, 1,500 samples, 5 %
   planted swaps, shifts and flips) this finds more planted errors than cleanlab's regression
   label-quality scores in both noise models, where the former W1-over-spread score lost to it
   when annotators perturb parameters (a flip moves the curve about as much as the model's
   ordinary error) — see ``bench/results/model_audit.txt``.
3. :func:`rank` — indices most suspicious first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from annotation.curves.distance import curve_distances

from .encoders import TextEncoder
from .ensemble import (
    EnsemblePrediction,
    ModelSpec,
    Progress,
    Text,
    encoder_named,
    fit_ensemble_blocks,
    text_blocks,
)
from .errors import BadConfigError
from .device import resolve_device

#: the least floor (log-time units): the distance grid's step, below which W1 is rounding
MIN_FLOOR = 0.5


@dataclass(frozen=True)
class CrossFit:
    """Out-of-fold predictions of the gold: ``prediction`` aligned with the input order, and
    ``fold_of`` (n,) the fold each sample was held out in (0 … folds − 1)."""

    prediction: EnsemblePrediction
    fold_of: np.ndarray


def fold_assignment(n: int, folds: int, seed: int) -> np.ndarray:
    """The fold (0 … folds − 1) of each of n samples: a permutation seeded by ``seed``, dealt
    round-robin.

    Examples:
        >>> f = fold_assignment(7, 3, seed=0)
        >>> sorted(np.bincount(f).tolist()), f.tolist() == fold_assignment(7, 3, seed=0).tolist()
        ([2, 2, 3], True)
    """
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise BadConfigError(f"cross-fitting needs folds >= 2, got {folds!r}")
    if n < folds:
        raise ValueError(f"{n} samples cannot be split into {folds} folds")
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[np.random.default_rng(seed).permutation(n)] = np.arange(n) % folds
    return fold_of


def cross_fitted(texts: Sequence[Text], targets: np.ndarray, *, folds: int = 5,
                 spec: ModelSpec, k: int = 5, seed: int = 0, device: str = "cpu",
                 encoder: TextEncoder | None = None, progress: Progress | None = None,
                 should_stop: Callable[[], bool] | None = None) -> CrossFit:
    """Predict every gold sample with an ensemble trained on the folds it is not in.

    ``targets`` (n, 3): ξ, ω, α in base-1.1 log minutes. The texts are embedded once; fold f's
    members use seeds ``seed + f·k`` … ``seed + f·k + k − 1``. Other arguments as
    :func:`~annotation.training.ensemble.fit_ensemble`.

    Examples:
        >>> words = ("minutes", "hours", "days", "weeks")
        >>> texts = [f"open for {w} ({i})" for i in range(4) for w in words]
        >>> y = np.array([[24.2, 8.0, 0.0], [54.5, 8.0, 0.0], [87.9, 8.0, 0.0],
        ...               [104.0, 8.0, 0.0]] * 4)
        >>> fit = cross_fitted(texts, y, folds=4, spec=ModelSpec("linear", {"alpha": 0.01},
        ...                    "hashing"), k=2, seed=3)
        >>> np.bincount(fit.fold_of).tolist(), fit.prediction.mean.shape
        ([4, 4, 4, 4], (16, 3))
    """
    encoder = encoder if encoder is not None else encoder_named(spec.encoder,
                                                                resolve_device(device))
    if progress is not None:
        progress(0.0, f"embedding {len(texts)} texts")
    return cross_fitted_blocks(text_blocks(texts, encoder), targets, folds=folds, spec=spec, k=k, seed=seed,
                               device=device, encoder=encoder, progress=progress, should_stop=should_stop)


def cross_fitted_blocks(blocks: np.ndarray, targets: np.ndarray, *, folds: int, spec: ModelSpec,
                        encoder: TextEncoder, k: int = 5, seed: int = 0, device: str = "cpu",
                        progress: Progress | None = None,
                        should_stop: Callable[[], bool] | None = None) -> CrossFit:
    """:func:`cross_fitted` on texts already embedded (``blocks`` from
    :func:`~annotation.training.ensemble.text_blocks` with ``encoder``).

    Examples:
        >>> from annotation.training.encoders import HashingEncoder
        >>> texts = [f"open for {w} ({i})" for i in range(3) for w in ("hours", "days", "weeks")]
        >>> y = np.array([[54.5, 8.0, 0.0], [87.9, 8.0, 0.0], [104.0, 8.0, 0.0]] * 3)
        >>> encoder = HashingEncoder()
        >>> fit = cross_fitted_blocks(text_blocks(texts, encoder), y, folds=3, encoder=encoder, k=2,
        ...                           spec=ModelSpec("linear", {"alpha": 0.01}, "hashing"))
        >>> fit.prediction.mean.shape, sorted(np.bincount(fit.fold_of).tolist())
        ((9, 3), [3, 3, 3])
    """
    n = len(blocks)
    y = np.asarray(targets, dtype=np.float64)
    if y.shape != (n, 3):
        raise ValueError(f"targets must have shape ({n}, 3) as (ξ, ω, α), got {y.shape}")
    fold_of = fold_assignment(n, folds, seed)
    members = np.full((k, n, 3), np.nan)
    for f in range(folds):
        held_out = fold_of == f

        def report(fraction: float, message: str, f: int = f) -> None:
            if progress is not None:
                progress((f + fraction) / folds, f"fold {f + 1} of {folds}: {message}")

        ensemble = fit_ensemble_blocks(blocks[~held_out], y[~held_out], spec=spec,
                                       encoder=encoder, k=k, seed=seed + f * k, device=device,
                                       progress=report, should_stop=should_stop)
        members[:, held_out] = ensemble.member_curves(blocks[held_out])
    if progress is not None:
        progress(1.0, f"cross-fitted {n} samples in {folds} folds")
    return CrossFit(prediction=EnsemblePrediction.from_members(members), fold_of=fold_of)


def typical_miss(gold: np.ndarray, prediction: EnsemblePrediction) -> float:
    """The median W1 (log-time units) between the gold and the mean curves, at least
    :data:`MIN_FLOOR` (also when no W1 is defined): the model's typical miss.

    Examples:
        >>> one = np.array([[50.0, 10.0, 0.0]] * 3)
        >>> p = EnsemblePrediction.from_members(np.stack([one, one]))
        >>> round(typical_miss(one + [[2.0, 0, 0], [6.0, 0, 0], [30.0, 0, 0]], p), 3)
        6.0
    """
    w1, _, _ = curve_distances(np.asarray(gold, dtype=float), prediction.mean)
    w1 = w1[np.isfinite(w1)]
    return max(float(np.median(w1)), MIN_FLOOR) if w1.size else MIN_FLOOR


def residual_distances(gold: np.ndarray, mean: np.ndarray, fold_of: np.ndarray) -> np.ndarray:
    """Each sample's parameter residual ``gold − mean`` as a Mahalanobis distance under the
    covariance of the other folds' residuals (a small ridge keeps it invertible); NaN where a
    residual is not finite.

    Examples:
        >>> rng = np.random.default_rng(0)
        >>> mean = np.zeros((200, 3)); gold = rng.normal(0, [4.0, 1.0, 0.5], (200, 3))
        >>> gold[0] = [0.0, 0.0, 3.0]                     # α off by 6 of its SDs
        >>> d = residual_distances(gold, mean, np.arange(200) % 5)
        >>> int(np.argmax(d)), bool(d[0] > 5)
        (0, True)
    """
    r = np.asarray(gold, dtype=float) - np.asarray(mean, dtype=float)
    folds = np.asarray(fold_of)
    finite = np.isfinite(r).all(axis=1)
    out = np.full(len(r), np.nan)
    for f in np.unique(folds):
        held, train = (folds == f) & finite, (folds != f) & finite
        if not held.any():
            continue
        rows = r[train] if train.sum() > 3 else r[finite]
        cov = np.cov(rows.T) if len(rows) > 1 else np.eye(3)
        cov = cov + np.eye(3) * 1e-6 * max(float(np.trace(cov)), 1.0)
        inverse = np.linalg.pinv(cov)
        out[held] = np.sqrt(np.einsum("ij,jk,ik->i", r[held], inverse, r[held]))
    return out


def audit_scores(gold: np.ndarray, prediction: EnsemblePrediction, fold_of: np.ndarray,
                 miss: np.ndarray) -> np.ndarray:
    """The audit score of each gold sample (module docstring, step 2; higher = more
    suspicious): the larger of its residual distance and its W1 over ``miss`` (the cross-fitted
    expected miss, log-time units), each over its own 95th percentile; NaN where neither is
    defined. ``gold`` is (n, 3) of ξ, ω, α in base-1.1 log minutes, aligned with
    ``prediction``; ``fold_of`` each sample's held-out fold.

    Examples:
        >>> rng = np.random.default_rng(2)
        >>> truth = np.column_stack([rng.uniform(30, 120, 100), rng.uniform(5, 15, 100), rng.normal(0, 1, 100)])
        >>> members = np.stack([truth + rng.normal(0, 0.5, truth.shape) for _ in range(3)])
        >>> p = EnsemblePrediction.from_members(members)
        >>> gold = truth + rng.normal(0, [2.0, 0.5, 0.2], truth.shape)
        >>> gold[7, 0] += 25.0; gold[9, 2] = -3 * np.sign(truth[9, 2]) - gold[9, 2]   # a shift, a flip
        >>> top = rank(audit_scores(gold, p, np.arange(100) % 5, np.full(100, 2.0)))[:2]
        >>> sorted(top.tolist())
        [7, 9]
    """
    g = np.asarray(gold, dtype=float)
    if g.shape != prediction.mean.shape:
        raise ValueError(f"gold must have shape {prediction.mean.shape}, got {g.shape}")
    m = np.asarray(miss, dtype=float)
    if m.shape != (len(g),) or np.any(m[np.isfinite(m)] <= 0):
        raise ValueError(f"miss must be {len(g)} positive numbers (log-time units)")
    w1, _, _ = curve_distances(g, prediction.mean)
    parts = np.column_stack([residual_distances(g, prediction.mean, fold_of), w1 / m])
    with np.errstate(invalid="ignore"):
        scale = np.nanpercentile(np.where(np.isfinite(parts), parts, np.nan), 95, axis=0)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    scaled = np.where(np.isfinite(parts), parts / scale, -np.inf)
    best = scaled.max(axis=1)
    return np.where(np.isfinite(best), best, np.nan)


def rank(scores: np.ndarray) -> np.ndarray:
    """Indices of ``scores`` from most to least suspicious (highest first); ties keep their
    order, NaN scores come last.

    Examples:
        >>> rank(np.array([1.0, 3.0, np.nan, 3.0, 0.5])).tolist()
        [1, 3, 0, 4, 2]
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {s.shape}")
    return np.argsort(np.where(np.isnan(s), np.inf, -s), kind="stable")


__all__ = ["MIN_FLOOR", "CrossFit", "audit_scores", "cross_fitted", "cross_fitted_blocks", "fold_assignment", "rank",
           "residual_distances", "typical_miss"]
