"""An annotator model for validity curves: each annotator's bias, noise and over/under-confidence,
each item's difficulty, fitted on all of a project's annotations (SPEC section 15). Pure.

**Observations.** One per annotation: (annotator, item, centre, width), read from the curve
(:func:`observations_from_curves`): the *centre* is the half-gone position and the *width* the
95-gone minus the 5-gone position (:func:`annotation.curves.half_gone.gone_quantiles_x`), both on
the base-1.1 log-minutes axis, points past the chart's end read as its end.

**Model.** For annotator a on item i::

    centre_ai    = μ_i + b_a + e_ai,              e_ai ~ N(0, σ_a² + d_i²)
    log width_ai = log W_i + log κ_a + u_ai,      u_ai ~ N(0, τ²)

μ_i the item's consensus centre, b_a the annotator's bias (a shift on log time: b = 7 is a
factor 1.1⁷ ≈ 2 later), σ_a their noise, d_i the item's difficulty (extra spread every annotator
shows on it), W_i the item's consensus width and κ_a the annotator's width ratio (κ < 1 narrower
than the consensus: over-confident; κ > 1 under-confident). Identified by ``Σ_a n_a b_a = 0``
(the average annotation is unbiased) and ``Σ_a log κ_a = 0`` (the typical annotator draws the
consensus width). It is the additive rater model of the centres with annotator-specific
variances (Dawid & Skene 1979 for the idea, a crossed heteroscedastic random-effects model in
form; Raykar et al. 2010 for continuous labels) with the curves' widths beside it.

**Estimator** (:mod:`annotation.quality.annotator_fit`): restricted maximum likelihood of the
centres with weak priors, by L-BFGS-B, and penalised least squares of the log widths, by
backfitting; deterministic. Annotators with few items are shrunk to the population: their noise
as if they had also annotated ``prior_strength`` items at the population's noise, their width
ratio as if they had also drawn ``prior_strength`` items at the consensus width, their bias by
an empirical-Bayes normal prior. statsmodels' MixedLM fits one residual variance, not one per
annotator plus one per item, so the estimator is written here.

**Cross-fitting** (:func:`cross_fit`): items are split into folds and the annotator figures
used for an item come from the fit on the other folds only — no annotator's figures come from
the items they weight. An item's difficulty is the item's own quantity and comes from the fit on
all data.

**Use.** :func:`model_weights` and :func:`posterior_sd` (precision ``1/(σ_a² + d_i²)``),
:func:`corrected_curve` and :func:`pool_by_model` (the consensus from debiased, re-scaled curves).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.curves.half_gone import gone_quantiles_x, gone_x
from annotation.quality.annotator_fit import fit_arrays

#: An observation: (annotator, item, centre, width), centre and width in base-1.1 log minutes.
Observation = tuple[Hashable, Hashable, float, float]
#: The gone levels a width runs between and the level of the centre.
WIDTH_LEVELS: tuple[float, float] = (0.05, 0.95)
CENTRE_LEVEL: float = 0.5
#: A width below this (log-units) reads as this: a curve squeezed against the chart's end.
MIN_WIDTH: float = 0.1


@dataclass(frozen=True)
class AnnotatorEffect:
    """One annotator's figures: ``bias`` b_a and ``noise`` σ_a (log-units), ``confidence`` the
    width ratio κ_a (< 1 over-confident, > 1 under-confident), ``n_items`` items fitted on."""

    annotator: Hashable
    bias: float
    noise: float
    confidence: float
    n_items: int


@dataclass(frozen=True)
class ItemEffect:
    """One item's figures: consensus ``centre`` μ_i, ``difficulty`` d_i and consensus ``width``
    W_i (log-units), ``n_annotations`` fitted on."""

    item: Hashable
    centre: float
    difficulty: float
    width: float
    n_annotations: int


@dataclass(frozen=True)
class AnnotatorModel:
    """A fit: ``annotators`` and ``items`` by id (in order of first appearance), the population
    noise s0 and the log-width noise τ, the optimiser's iterations and whether it converged."""

    annotators: dict[Hashable, AnnotatorEffect]
    items: dict[Hashable, ItemEffect]
    population_noise: float
    width_noise: float
    iterations: int
    converged: bool


def observations_from_curves(rows: Sequence[tuple[Hashable, Hashable, float, float, float]]) -> list[Observation]:
    """Observations from (annotator, item, ξ, ω, α) rows: centre the half-gone position, width
    the 95-gone minus the 5-gone position (points past the chart read as its end; a width below
    :data:`MIN_WIDTH` reads as it). ValueError for undefined parameters.

    Examples:
        >>> [(a, i, round(c, 2), round(w, 2)) for a, i, c, w in
        ...  observations_from_curves([("A", 1, 50.0, 10.0, 0.0)])]   # 50 + 10·√(2 ln 2); 10·(2.4477 − 0.3203)
        [('A', 1, 61.77, 21.27)]
    """
    rows = list(rows)
    if not rows:
        return []
    params = np.array([[float(r[2]), float(r[3]), float(r[4])] for r in rows])
    q = gone_quantiles_x(params, (WIDTH_LEVELS[0], CENTRE_LEVEL, WIDTH_LEVELS[1]))
    bad = np.flatnonzero(np.isnan(q).any(axis=1))
    if bad.size:
        row = rows[int(bad[0])]
        raise ValueError(f"curve of annotator {row[0]!r} on item {row[1]!r} is undefined: "
                         f"(ξ, ω, α) = {tuple(row[2:5])}")
    width = np.maximum(q[:, 2] - q[:, 0], MIN_WIDTH)
    return [(r[0], r[1], float(c), float(w)) for r, c, w in zip(rows, q[:, 1], width)]


def _codes(values: Sequence[Hashable]) -> tuple[np.ndarray, list[Hashable]]:
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.intp)
    return codes, list(index)


def fit_annotator_model(obs: Sequence[Observation], *, prior_strength: float = 3.0,
                        max_iter: int = 2000) -> AnnotatorModel:
    """Fit the model (module docstring) to ``obs``, (annotator, item, centre, width) tuples
    (below: B is 4 later than A on three items, a bias of ±2 shrunk a little by the prior).
    ``prior_strength`` is the pseudo-count of the priors (items at the population's figures);
    ``max_iter`` bounds the optimiser. ValueError for no observations, a non-finite centre or a
    width that is not positive, an annotator twice on one item, or a negative prior strength.

    Examples:
        >>> obs = [("A", 1, 10.0, 4.0), ("B", 1, 14.0, 8.0), ("A", 2, 50.0, 4.0),
        ...        ("B", 2, 54.0, 8.0), ("A", 3, 30.0, 4.0), ("B", 3, 34.0, 8.0)]
        >>> m = fit_annotator_model(obs)
        >>> round(m.annotators["B"].bias, 2), round(m.items[2].centre, 2), m.annotators["B"].n_items
        (1.88, 52.0, 3)
        >>> m.annotators["A"].confidence < 1 < m.annotators["B"].confidence   # A narrower
        True
    """
    obs = list(obs)
    if not obs:
        raise ValueError("no annotations to fit the annotator model on")
    if not (math.isfinite(prior_strength) and prior_strength >= 0):
        raise ValueError(f"prior_strength must be a finite number ≥ 0, got {prior_strength!r}")
    if len({(o[0], o[1]) for o in obs}) != len(obs):
        raise ValueError("an annotator appears twice on one item; give one annotation per pair")
    centre = np.array([float(o[2]) for o in obs])
    width = np.array([float(o[3]) for o in obs])
    if not np.isfinite(centre).all():
        raise ValueError("every centre must be a finite number")
    if not (np.isfinite(width).all() and (width > 0).all()):
        raise ValueError("every width must be a finite number greater than 0")
    a, annotators = _codes([o[0] for o in obs])
    i, items = _codes([o[1] for o in obs])
    f = fit_arrays(a, i, centre, np.log(width), len(annotators), len(items),
                   prior_strength=float(prior_strength), max_iter=int(max_iter))
    n_a, n_i = np.bincount(a), np.bincount(i)
    return AnnotatorModel(
        annotators={k: AnnotatorEffect(k, float(f.bias[j]), float(f.noise[j]),
                                       float(math.exp(f.log_ratio[j])), int(n_a[j]))
                    for j, k in enumerate(annotators)},
        items={k: ItemEffect(k, float(f.centre[j]), float(f.difficulty[j]),
                             float(math.exp(f.log_width[j])), int(n_i[j]))
               for j, k in enumerate(items)},
        population_noise=f.population_noise, width_noise=f.width_noise,
        iterations=f.iterations, converged=f.converged)


@dataclass(frozen=True)
class CrossFitted:
    """Cross-fitted annotator figures: ``fold_of`` each item's fold, ``fold_models`` the fit
    without each fold, ``full`` the fit on all data (its ``annotators`` for display, its
    ``items`` for the difficulty)."""

    fold_of: dict[Hashable, int]
    fold_models: tuple[AnnotatorModel, ...]
    full: AnnotatorModel

    @property
    def annotators(self) -> dict[Hashable, AnnotatorEffect]:
        return self.full.annotators

    @property
    def items(self) -> dict[Hashable, ItemEffect]:
        return self.full.items

    def effects_for(self, item: Hashable) -> dict[Hashable, AnnotatorEffect]:
        """The annotator figures to use for ``item``: from the fit without its fold (an
        annotator seen only on that fold is missing). KeyError for an item not fitted."""
        return self.fold_models[self.fold_of[item]].annotators


def item_folds(obs: Sequence[Observation], folds: int = 5, seed: int = 0) -> dict[Hashable, int]:
    """Each item's fold: a seeded permutation of the items (in order of first appearance) dealt
    round-robin into ``folds`` folds, so fold sizes differ by at most one. ValueError for fewer
    than 2 folds or more folds than items.

    Examples:
        >>> item_folds([("A", i, 0.0, 1.0) for i in "pqrst"], folds=2, seed=0)
        {'p': 1, 'q': 0, 'r': 0, 's': 0, 't': 1}
    """
    _, items = _codes([o[1] for o in obs])
    if not isinstance(folds, int) or folds < 2:
        raise ValueError(f"folds must be an integer ≥ 2, got {folds!r}")
    if folds > len(items):
        raise ValueError(f"{folds} folds for {len(items)} items: give at most one fold per item")
    order = np.random.default_rng(seed).permutation(len(items))
    fold_of = {items[int(j)]: pos % folds for pos, j in enumerate(order)}
    return {item: fold_of[item] for item in items}


def cross_fit(obs: Sequence[Observation], folds: int = 5, seed: int = 0, *,
              prior_strength: float = 3.0, max_iter: int = 2000) -> CrossFitted:
    """Fit the model without each fold of :func:`item_folds`, and once on all data.
    ValueError for fewer than 2 folds or more folds than items.

    Examples:
        >>> obs = [(a, i, 40.0 + i + (3.0 if a == "B" else 0.0), 10.0)
        ...        for i in range(10) for a in ("A", "B", "C")]
        >>> cf = cross_fit(obs, folds=5)
        >>> sorted(set(cf.fold_of.values())), round(cf.effects_for(0)["B"].bias, 1)
        ([0, 1, 2, 3, 4], 2.0)
    """
    obs = list(obs)
    fold_of = item_folds(obs, folds, seed)
    models = tuple(
        fit_annotator_model([o for o in obs if fold_of[o[1]] != f],
                            prior_strength=prior_strength, max_iter=max_iter)
        for f in range(folds))
    full = fit_annotator_model(obs, prior_strength=prior_strength, max_iter=max_iter)
    return CrossFitted(fold_of, models, full)


def _variances(effects: Mapping[Hashable, AnnotatorEffect], annotators: Sequence[Hashable],
               difficulty: float) -> np.ndarray:
    annotators = list(annotators)
    if not annotators:
        raise ValueError("no annotators given")
    if len(set(annotators)) != len(annotators):
        raise ValueError("an annotator is named twice; give each once")
    if not (math.isfinite(difficulty) and difficulty >= 0):
        raise ValueError(f"difficulty must be a finite number ≥ 0, got {difficulty!r}")
    known = [e.noise for e in effects.values()]
    fallback = float(np.median(known)) if known else 1.0
    noise = np.array([effects[a].noise if a in effects else fallback for a in annotators])
    return noise ** 2 + float(difficulty) ** 2


def model_weights(effects: Mapping[Hashable, AnnotatorEffect], annotators: Sequence[Hashable],
                  difficulty: float = 0.0) -> dict[Hashable, float]:
    """Normalised precision weights ``w_a ∝ 1/(σ_a² + d²)`` of ``annotators`` on an item of
    difficulty ``d``. An annotator the model does not know (no items in the fit) gets the
    median noise of those it knows — the population's typical annotator (equal weights when it
    knows none). ValueError for no annotators, one named twice or a negative difficulty.

    Examples:
        >>> effects = {"A": AnnotatorEffect("A", 0.0, 1.0, 1.0, 50),
        ...            "B": AnnotatorEffect("B", 0.0, 2.0, 1.0, 50)}
        >>> {k: round(v, 3) for k, v in model_weights(effects, ["A", "B"]).items()}   # 1 : 1/4
        {'A': 0.8, 'B': 0.2}
        >>> {k: round(v, 3) for k, v in model_weights(effects, ["A", "Z"], difficulty=2.0).items()}   # Z: median 1.5
        {'A': 0.556, 'Z': 0.444}
    """
    precision = 1.0 / _variances(effects, annotators, difficulty)
    return {a: float(p) for a, p in zip(annotators, precision / precision.sum())}


def posterior_sd(effects: Mapping[Hashable, AnnotatorEffect], annotators: Sequence[Hashable],
                 difficulty: float = 0.0) -> float:
    """The SD of an item's consensus centre given these annotators' curves (biases removed):
    ``sqrt(1 / Σ_a 1/(σ_a² + d²))``, log-units; unknown annotators as in :func:`model_weights`.
    A large value says the item needs another annotator.

    Examples:
        >>> effects = {"A": AnnotatorEffect("A", 0.0, 3.0, 1.0, 50),
        ...            "B": AnnotatorEffect("B", 0.0, 4.0, 1.0, 50)}
        >>> round(posterior_sd(effects, ["A", "B"]), 3)   # 1/√(1/9 + 1/16)
        2.4
    """
    return float(math.sqrt(1.0 / np.sum(1.0 / _variances(effects, annotators, difficulty))))


def _half_gone_offset(alpha: float) -> float:
    """The half-gone point of the standard curve (ξ = 0, ω = 1) of shape α, placed mid-chart."""
    return float(gone_x(np.array([[100.0, 1.0, alpha]]), CENTRE_LEVEL)[0, 0]) - 100.0


def corrected_curve(params: Sequence[float], effect: AnnotatorEffect | None) -> tuple[float, float, float]:
    """The curve an annotator of ``effect`` drew, as the consensus would draw it: its centre
    moved by −b_a and its width divided by κ_a about that centre; α kept.

    ``ω' = ω/κ_a`` divides every gone-point's distance from ξ (and so the 5–95 width) by κ_a;
    ``ξ' = ξ − b_a + ω·h(α)·(1 − 1/κ_a)``, h(α) the standard curve's half-gone offset, keeps the
    corrected centre at ``centre − b_a`` (a plain ω/κ would also move the centre by
    ``ω·h(α)·(1/κ − 1)``). The model reads annotator a's centre as consensus + b_a and width as
    consensus × κ_a, so the corrected curve stands for the consensus; ``effect`` None (an
    annotator unknown to the model) leaves the curve as it is.

    Examples:
        >>> xi, omega, alpha = corrected_curve((50.0, 10.0, 0.0), AnnotatorEffect("A", 2.0, 3.0, 2.0, 40))
        >>> round(xi, 4), omega, alpha            # 50 − 2 + 10·√(2 ln 2)·(1 − 1/2)
        (53.8871, 5.0, 0.0)
        >>> round(53.8871 + 5.0 * math.sqrt(2 * math.log(2)), 2)   # centre 61.77 − 2
        59.77
    """
    xi, omega, alpha = (float(v) for v in params)
    if not (math.isfinite(xi) and math.isfinite(omega) and math.isfinite(alpha) and omega > 0):
        raise ValueError(f"curve parameters must be finite with ω > 0, got {(xi, omega, alpha)}")
    if effect is None:
        return xi, omega, alpha
    kappa = float(effect.confidence)
    if not (math.isfinite(kappa) and kappa > 0):
        raise ValueError(f"annotator {effect.annotator!r}: width ratio must be positive, got {kappa!r}")
    shift = omega * _half_gone_offset(alpha) * (1.0 - 1.0 / kappa)
    return xi - float(effect.bias) + shift, omega / kappa, alpha


def pool_by_model(curves: Sequence[tuple[Hashable, float, float, float]],
                  effects: Mapping[Hashable, AnnotatorEffect],
                  difficulty: float = 0.0) -> tuple[tuple[float, float, float], dict[Hashable, float]]:
    """The model's consensus of an item's ``curves`` ((annotator, ξ, ω, α) each): the
    :func:`model_weights`-weighted mean of the :func:`corrected_curve` parameters, and the
    weights. An annotator unknown to the model keeps their curve and gets the median noise.

    Examples:
        >>> effects = {"A": AnnotatorEffect("A", -2.0, 1.0, 1.0, 50),
        ...            "B": AnnotatorEffect("B", 2.0, 2.0, 1.0, 50)}
        >>> params, weights = pool_by_model([("A", 48.0, 10.0, 0.0), ("B", 52.0, 10.0, 0.0)], effects)
        >>> params, {k: round(v, 2) for k, v in weights.items()}
        ((50.0, 10.0, 0.0), {'A': 0.8, 'B': 0.2})
    """
    curves = list(curves)
    weights = model_weights(effects, [c[0] for c in curves], difficulty)
    corrected = np.array([corrected_curve(c[1:4], effects.get(c[0])) for c in curves])
    w = np.array([weights[c[0]] for c in curves])
    xi, omega, alpha = (float(v) for v in w @ corrected)
    return (xi, omega, alpha), weights


__all__ = ["AnnotatorEffect", "AnnotatorModel", "CENTRE_LEVEL", "CrossFitted", "ItemEffect",
           "MIN_WIDTH", "Observation", "WIDTH_LEVELS", "corrected_curve", "cross_fit",
           "fit_annotator_model", "item_folds", "model_weights", "observations_from_curves", "pool_by_model",
           "posterior_sd"]
