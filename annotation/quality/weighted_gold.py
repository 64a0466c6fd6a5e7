"""The gold's curve pooled by the project's rule — equally, by calibration, or by the annotator
model — with its provenance (the rule and each annotator's weight).

* **equally** (the default, as ever): ξ, ω, α are the means of the annotators' values
  (:func:`annotation.review.resolution.resolve_pair`);
* **by calibration**: the weighted means, each annotator weighted by their calibration ×
  information on the project's seeds (Cooke's global weight with no cut-off:
  :func:`annotation.quality.expert_scores.calibration_weights`), normalised over the sample's
  annotators. The classical model's decision maker is a weighted *linear pool* of distributions;
  here the gold is one skew-normal, so the weights apply to its parameters exactly as the equal
  rule's do — the same combination, other weights;
* **by the annotator model**: each curve corrected for its annotator's bias and width ratio
  (:func:`annotation.quality.annotator_model.corrected_curve`), then the precision-weighted mean
  (weights 1/(σ_a² + d²), σ_a the annotator's noise, d the item's difficulty), with the
  annotators' figures cross-fitted: they come from a fit that left the sample's own fold out.

A rule that cannot weigh a sample pools it equally, and the gold says so (``pooling`` "equal"):
under "by calibration", a sample with an annotator whose calibration is withheld (under 10 seeds)
or whose annotators' weights are all 0; under "by the annotator model", a project with no fitted
model. Segmentation and axes are never weighted (the union, as ever): the rules weigh curves.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

from annotation.quality.annotator_model import (
    AnnotatorEffect,
    CrossFitted,
    pool_by_model,
    posterior_sd,
)
from annotation.review.resolution import AnnotatorVersion, Resolution, resolve_pair

EQUAL, CALIBRATION, MODEL = "equal", "calibration", "model"
#: How many items' worth of the population's noise and width ratio each annotator's own are
#: shrunk towards when the model pools the gold. With two annotators per item the model cannot
#: tell an item's difficulty from its annotators' noise, so a lightly shrunk noise follows which
#: hard items an annotator happened to draw: bench/weighted_gold.py measured the model rule 3 %
#: worse than equal weights on a panel of equal annotators at the fit's default of 3, within
#: 2 % at 15, while it still lowers the W1 to the truth by ~18 % on a varied panel.
POOLING_PRIOR_STRENGTH = 15.0


@dataclass(frozen=True)
class GoldWeighting:
    """What a project's pooling rule weighs with: ``rule`` (a key of
    :data:`annotation.settings.GOLD_POOLINGS`), the annotators' calibration weights (annotator →
    calibration × information, only those shown) and the cross-fitted annotator model (None:
    not fitted, too few annotations)."""

    rule: str = EQUAL
    calibration: Mapping[Hashable, float] = field(default_factory=dict)
    model: CrossFitted | None = None


def _effects(model: CrossFitted, item: Any) -> tuple[dict[Hashable, AnnotatorEffect], float]:
    """The annotator figures to weigh ``item`` with — from the fit without its fold, or the fit on
    all data for an item the model never saw — and the item's difficulty (for an item never
    seen: the median of the items' difficulties)."""
    if item in model.fold_of:
        return model.effects_for(item), model.items[item].difficulty
    known = [e.difficulty for e in model.items.values()]
    return model.annotators, float(median(known)) if known else 0.0


def _with_curve(versions: Sequence[AnnotatorVersion]) -> list[AnnotatorVersion]:
    return [v for v in versions if v.has_parameters]


def _weighted(base: Resolution, curves: Sequence[tuple[Hashable, tuple[float, float, float]]],
              weights: Sequence[float], rule: str) -> Resolution:
    total = sum(weights)
    shares = [w / total for w in weights]
    xi, omega, alpha = (sum(s * c[k] for s, (_, c) in zip(shares, curves)) for k in range(3))
    return replace(base, xi=xi, omega=omega, alpha=alpha, pooling=rule, weights=tuple(shares),
                   parameter_sources=tuple(a for a, _ in curves))


def pooled_gold(versions: Sequence[AnnotatorVersion], weighting: GoldWeighting, item: Any = None) -> Resolution:
    """The automatic resolution of ``versions`` with its curve pooled by ``weighting``'s rule
    (module docstring); ``item`` the sample (the cross-fitted model's effects are the ones fitted
    without its fold).

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion(1, Segmentation((0,), 4), ("main",), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion(2, Segmentation((0,), 4), ("main",), 60.0, 10.0, 0.0)
        >>> g = pooled_gold([a, b], GoldWeighting(CALIBRATION, {1: 3.0, 2: 1.0}))
        >>> g.xi, g.pooling, g.weights
        (45.0, 'calibration', (0.75, 0.25))
        >>> pooled_gold([a, b], GoldWeighting(CALIBRATION, {1: 3.0})).pooling   # 2 has no score
        'equal'
    """
    base = resolve_pair(versions)
    curves = [(v.annotator, (float(v.xi), float(v.omega), float(v.alpha)))  # type: ignore[arg-type]
              for v in _with_curve(versions)]
    if not curves or weighting.rule == EQUAL:
        return base
    if weighting.rule == CALIBRATION:
        weights = [weighting.calibration.get(a) for a, _ in curves]
        if any(w is None for w in weights) or sum(weights) <= 0:  # type: ignore[arg-type]
            return base
        return _weighted(base, curves, weights, CALIBRATION)  # type: ignore[arg-type]
    if weighting.rule == MODEL:
        if weighting.model is None:
            return base
        effects, difficulty = _effects(weighting.model, item)
        (xi, omega, alpha), shares = pool_by_model([(a, *c) for a, c in curves], effects, difficulty)
        return replace(base, xi=xi, omega=omega, alpha=alpha, pooling=MODEL,
                       weights=tuple(shares[a] for a, _ in curves), parameter_sources=tuple(a for a, _ in curves))
    raise ValueError(f"unknown pooling rule {weighting.rule!r}")


def gold_sd(versions: Sequence[AnnotatorVersion], weighting: GoldWeighting, item: Any = None) -> float | None:
    """How wide the annotator model leaves the sample's gold: the posterior SD of its half-gone
    position given these annotators (log-time units), None without a fitted model.

    Examples:
        >>> gold_sd([], GoldWeighting()) is None
        True
    """
    if weighting.model is None:
        return None
    annotators = [v.annotator for v in _with_curve(versions)]
    if not annotators:
        return None
    effects, difficulty = _effects(weighting.model, item)
    return posterior_sd(effects, annotators, difficulty)


#: How Review names a proposal by the rule that pooled its curve.
POOLING_NAMES = {EQUAL: "Mean", CALIBRATION: "Weighted by calibration", MODEL: "Weighted by the annotator model"}


def pooling_label(res: Resolution) -> str:
    """A proposal's name on Review: its rule and, for a weighted rule, the weights in the
    annotators' order.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion(1, Segmentation((0,), 4), ("main",), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion(2, Segmentation((0,), 4), ("main",), 60.0, 10.0, 0.0)
        >>> pooling_label(pooled_gold([a, b], GoldWeighting(CALIBRATION, {1: 3.0, 2: 1.0})))
        'Weighted by calibration (weights 0.75 / 0.25)'
        >>> pooling_label(pooled_gold([a, b], GoldWeighting()))
        'Mean'
    """
    name = POOLING_NAMES.get(res.pooling, "Mean")
    if res.pooling in (CALIBRATION, MODEL) and res.weights:
        name += " (weights " + " / ".join(f"{w:.2f}" for w in res.weights) + ")"
    return name


__all__ = ["CALIBRATION", "EQUAL", "MODEL", "POOLING_NAMES", "POOLING_PRIOR_STRENGTH", "GoldWeighting", "gold_sd", "pooled_gold",
           "pooling_label"]
