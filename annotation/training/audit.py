"""Gold audit: which gold curves does a model, that never saw them, disagree with most?

Label-issue detection for curves (SPEC section 12), in three steps:

1. :func:`cross_fitted` — the gold is split into ``folds`` folds (a seeded permutation dealt
   round-robin, so fold sizes differ by at most one); for each fold an ensemble
   (:func:`~annotation.training.ensemble.fit_ensemble`) is trained on the other folds and
   predicts the held-out one. No sample is judged by a model that saw it (cross-fitting, as in
   confident learning's out-of-sample predictions: Northcutt, Jiang & Chuang 2021, JAIR 70:1373).
   Each fold's ensemble z-scores with its own training folds' statistics.
2. :func:`audit_scores` — how far the gold curve lies from the ensemble's mean curve (W1 on the
   log-time axis, :mod:`annotation.curves.distance`), in units of the ensemble's own spread:
   ``W1(gold, mean) / max(spread_w1, floor)``. A gold curve 10 units from a model whose members
   agree within 1 unit is more suspicious than one 10 units from a model whose members scatter
   over 10. The **floor** is by default the model's typical miss: the median W1 between the
   gold and the mean curves over the samples scored (robust to the few bad labels being
   looked for), never below :data:`MIN_FLOOR`. Members that agree with each other more
   closely than the model usually agrees with the gold share a bias rather than know the
   answer, so such a spread is not trusted; a zero spread (K identical members) cannot blow
   a score up; and the floor follows the project's own data and model instead of a constant
   tuned on generated data. On ``bench/model_audit.py``'s generated pools this floor ranked as
   well as the best fixed one (about 4 units there) and better than 1–2 units, where the noisy
   spread of a few members decides the order; the spread hardly tracked the error there
   (Spearman ρ ≈ 0.1), so W1 alone ranked as well (linear) or better (ffnn) — see
   ``bench/results/model_audit.txt``.
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
    n = len(texts)
    y = np.asarray(targets, dtype=np.float64)
    if y.shape != (n, 3):
        raise ValueError(f"targets must have shape ({n}, 3) as (ξ, ω, α), got {y.shape}")
    fold_of = fold_assignment(n, folds, seed)
    encoder = encoder if encoder is not None else encoder_named(spec.encoder,
                                                                resolve_device(device))
    if progress is not None:
        progress(0.0, f"embedding {n} texts")
    blocks = text_blocks(texts, encoder)
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
    """The default floor of :func:`audit_scores`: the median W1 (log-time units) between the gold
    and the mean curves, at least :data:`MIN_FLOOR` (also when no W1 is defined).

    Examples:
        >>> one = np.array([[50.0, 10.0, 0.0]] * 3)
        >>> p = EnsemblePrediction.from_members(np.stack([one, one]))
        >>> round(typical_miss(one + [[2.0, 0, 0], [6.0, 0, 0], [30.0, 0, 0]], p), 3)
        6.0
    """
    w1, _, _ = curve_distances(np.asarray(gold, dtype=float), prediction.mean)
    w1 = w1[np.isfinite(w1)]
    return max(float(np.median(w1)), MIN_FLOOR) if w1.size else MIN_FLOOR


def audit_scores(gold: np.ndarray, prediction: EnsemblePrediction, *,
                 floor: float | None = None) -> np.ndarray:
    """``W1(gold curve, mean curve) / max(spread_w1, floor)`` per sample (higher = more
    suspicious); NaN where a curve lies off the axis or has no spread. ``gold`` is (n, 3) of
    ξ, ω, α in base-1.1 log minutes, aligned with ``prediction``; ``floor`` in log-time units,
    at least :data:`MIN_FLOOR` — None: :func:`typical_miss`.

    Examples:
        >>> one = np.array([[50.0, 10.0, 0.0], [50.0, 10.0, 0.0]])
        >>> p = EnsemblePrediction.from_members(np.stack([one, one + [[4.0, 0, 0], [0.0, 0, 0]]]))
        >>> gold = np.array([[62.0, 10.0, 0.0], [56.0, 10.0, 0.0]])   # 10 and 6 from the mean
        >>> np.round(audit_scores(gold, p, floor=2.0), 3).tolist()   # over spread 4, and 0 → 2
        [2.5, 3.0]
        >>> np.round(audit_scores(gold, p), 3).tolist()   # the floor: median W1 = 8
        [1.25, 0.75]
    """
    g = np.asarray(gold, dtype=float)
    if g.shape != prediction.mean.shape:
        raise ValueError(f"gold must have shape {prediction.mean.shape}, got {g.shape}")
    if floor is None:
        floor = typical_miss(g, prediction)
    if not floor >= MIN_FLOOR:
        raise ValueError(f"floor must be at least {MIN_FLOOR} (log-time units), got {floor!r}")
    w1, _, _ = curve_distances(g, prediction.mean)
    return w1 / np.maximum(prediction.spread_w1, floor)


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


__all__ = ["MIN_FLOOR", "CrossFit", "audit_scores", "cross_fitted", "fold_assignment", "rank",
           "typical_miss"]
