"""Annotators scored as experts: Cooke's classical model on the project's seeds.

Every annotator's curve is a distribution of *when the statement stops holding*: the q-gone point
(:func:`annotation.curves.half_gone.gone_quantiles_x`) is where, after the curve's peak, a share q
of its validity is gone — so the half-gone time is the median, and the 5, 25, 50, 75 and 95 %
gone points are the annotator's quantiles (:data:`QUANTILE_LEVELS`) on the base-1.1 log-time
axis. A **seed** is an item whose answer is known to the tool:

* a gold check (or a warm-up sample) whose gold is settled — its realisation is the gold curve's
  half-gone point. The annotator did not take part in that gold, but the gold is the panel's
  reading: the calibration is **against the panel**, not against what happened;
* a text imported with a known outcome (``stopped_holding_minutes``) — its realisation is that
  time on the axis: calibration against the world.

Per annotator (:func:`score_annotators`), the classical model's scores
(:mod:`annotation.quality.classical_model`, Cooke 1991 ch. 12):

* **calibration** — the p-value of 2·N·I(s, p) against a chi-square with 5 degrees of freedom
  (six inter-quantile bins), s the share of the annotator's N seeds whose realisation fell in each
  bin, p = (5, 20, 25, 25, 20, 5) %. N is the annotator's own number of seeds (annotators answer
  different gold checks): a score from more seeds is a sharper test, so compare annotators with
  similar N. 1 means the realisations fall as the quantiles say; under 0.05 the annotator's
  quantiles are rejected as statistically inaccurate at the 5 % level;
* **information** — the mean, over the annotator's seeds, of the relative information of their
  distribution against the uniform background on each item's intrinsic range (all annotators'
  quantiles on the item and the realisation, widened by 10 % each side). The axis is already log
  time, so this is Cooke's log-uniform background in minutes. High means narrow curves;
* **weight** — calibration × information (Cooke's global weight with no cut-off, α = 0: the
  optimised α of the classical model needs a decision maker scored on seeds the experts share,
  and annotators answer different gold checks), as a share of the shown annotators' sum.

Each carries its n (the annotator's seeds) and a percentile bootstrap 95 % interval over them;
under :data:`annotation.publishable.NEEDS` ``["seeds"]`` (10 seeds) every figure is "—" with the
rule. A curve still valid at the chart's end gives upper quantiles at the chart's end; they are
spread :data:`MIN_BIN_WIDTH` apart so each bin has a width (a zero-width bin has infinite
information).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.curves.half_gone import gone_quantiles_x, half_gone_x
from annotation.publishable import NEEDS, Figure, figure
from annotation.quality.classical_model import (
    information,
    interquantile_probabilities,
    panel_calibrations,
)
from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN

#: The annotators' quantile levels: 5, 25, 50, 75 and 95 % of the validity gone.
QUANTILE_LEVELS: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
#: The least gap (log-time units) between two of one curve's quantiles (see the module docstring).
MIN_BIN_WIDTH = 0.01
#: The intrinsic range's overshoot on each side (Cooke 1991: 10 %).
OVERSHOOT = 0.1
#: Bootstrap replicates of each annotator's seeds.
BOOTSTRAP = 400
#: Where a seed's realisation comes from.
PANEL, OUTCOME = "panel", "outcome"


@dataclass(frozen=True)
class Seed:
    """One annotator's answer on one seed item: ``quantiles`` at :data:`QUANTILE_LEVELS` (log-time
    axis), the item's ``realisation`` and its ``kind`` (:data:`PANEL` or :data:`OUTCOME`)."""

    annotator: Hashable
    item: Hashable
    quantiles: tuple[float, ...]
    realisation: float
    kind: str = PANEL


def spread_quantiles(q: np.ndarray) -> np.ndarray:
    """Rows of quantiles made strictly increasing, each at least :data:`MIN_BIN_WIDTH` above the
    one before (a curve's points clamped at the chart's end coincide).

    Examples:
        >>> spread_quantiles(np.array([[190.0, 195.0, 200.0, 200.0, 200.0]])).round(2).tolist()
        [[190.0, 195.0, 200.0, 200.01, 200.02]]
    """
    out = np.array(q, dtype=float, copy=True)
    for j in range(1, out.shape[-1]):
        out[..., j] = np.maximum(out[..., j], out[..., j - 1] + MIN_BIN_WIDTH)
    return out


def curve_quantiles(params: Sequence[Sequence[float]]) -> np.ndarray:
    """The quantiles of each curve ``(ξ, ω, α)``: its 5/25/50/75/95 % gone points, spread
    (:func:`spread_quantiles`). Shape (n, 5); NaN rows for undefined curves.

    Examples:
        >>> curve_quantiles([(50.0, 10.0, 0.0)]).round(2).tolist()
        [[53.2, 57.59, 61.77, 66.65, 74.48]]
    """
    p = np.asarray(params, dtype=float).reshape(-1, 3)
    return spread_quantiles(gone_quantiles_x(p, QUANTILE_LEVELS))


def realisation_of_gold(params: Sequence[float]) -> float:
    """A settled gold curve's realisation: its half-gone point, the chart's end when it is still
    half valid there; NaN for an undefined curve.

    Examples:
        >>> round(realisation_of_gold((50.0, 10.0, 0.0)), 4), realisation_of_gold((195.0, 30.0, 0.0))
        (61.7741, 200.0)
    """
    x = float(half_gone_x(np.asarray([params], dtype=float))[0])
    return min(x, X_MAX) if not math.isnan(x) else math.nan


def realisation_of_minutes(minutes: float) -> float:
    """A known outcome (minutes after the text) on the axis: log base 1.1, inside [X_MIN, X_MAX].

    Examples:
        >>> round(realisation_of_minutes(1440.0), 4), realisation_of_minutes(0.5)
        (76.3024, 0.0)
    """
    if not (minutes > 0 and math.isfinite(minutes)):
        raise ValueError(f"a realised time must be a positive number of minutes, got {minutes!r}")
    return min(max(math.log(minutes) / math.log(DEFAULT_BASE), X_MIN), X_MAX)


@dataclass(frozen=True)
class ExpertFigures:
    """One annotator's scores: ``n_seeds`` (of which ``n_outcomes`` with a known outcome) and the
    three figures after the rule (``NEEDS["seeds"]``)."""

    annotator: Hashable
    n_seeds: int
    n_outcomes: int
    calibration: Figure
    information: Figure
    weight: Figure

    def to_json(self) -> dict:
        return {"annotator": self.annotator, "n_seeds": self.n_seeds, "n_outcomes": self.n_outcomes,
                "calibration": self.calibration.to_json(), "information": self.information.to_json(),
                "weight": self.weight.to_json()}


def item_ranges(seeds: Sequence[Seed]) -> dict[Hashable, tuple[float, float]]:
    """Each seed item's intrinsic range: the least and greatest of every annotator's quantiles
    on it and its realisation, widened by :data:`OVERSHOOT` of the span on each side.

    Examples:
        >>> s = [Seed("a", 1, (10, 20, 30, 40, 50), 60.0), Seed("b", 1, (0, 5, 10, 15, 20), 12.0)]
        >>> item_ranges(s)
        {1: (-6.0, 66.0)}
    """
    low: dict[Hashable, float] = {}
    high: dict[Hashable, float] = {}
    for s in seeds:
        lo, hi = min(min(s.quantiles), s.realisation), max(max(s.quantiles), s.realisation)
        low[s.item] = min(low.get(s.item, lo), lo)
        high[s.item] = max(high.get(s.item, hi), hi)
    return {i: (low[i] - OVERSHOOT * (high[i] - low[i]), high[i] + OVERSHOOT * (high[i] - low[i]))
            for i in low}


def _scores(q: np.ndarray, x: np.ndarray, ranges: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Calibration and mean information of one annotator for each row of seed indices ``draws``
    (the first row: every seed once)."""
    p = interquantile_probabilities(QUANTILE_LEVELS)
    per_item = information(q, ranges, QUANTILE_LEVELS)
    bins = np.sum(q < x[:, None], axis=1)  # the classical model's bins (a tie falls below)
    one_hot = np.eye(len(p), dtype=int)[bins]
    counts = one_hot[draws].sum(axis=1)
    return panel_calibrations(counts, p, q.shape[0]), per_item[draws].mean(axis=1)


def score_annotators(seeds: Sequence[Seed], *, replicates: int = BOOTSTRAP,
                     rng_seed: int = 0) -> dict[Hashable, ExpertFigures]:
    """Every annotator's calibration, information and weight on ``seeds`` (module docstring),
    with percentile bootstrap 95 % intervals (``replicates`` resamples of the annotator's seeds;
    the weight's replicate shares use every shown annotator's replicate of the same index).

    Examples:
        >>> good = [Seed("good", i, (x - 8, x - 4, x, x + 4, x + 8), x + d)
        ...         for i, (x, d) in enumerate(zip(range(20, 140, 6), [-9, -3, 1, 5, 9, -1, 2, -5, 0, 3] * 2))]
        >>> late = [Seed("late", i, (x + 22, x + 23, x + 24, x + 25, x + 26), x + d)
        ...         for i, (x, d) in enumerate(zip(range(20, 140, 6), [-9, -3, 1, 5, 9, -1, 2, -5, 0, 3] * 2))]
        >>> few = [Seed("new", i, (x - 8, x - 4, x, x + 4, x + 8), x) for i, x in enumerate(range(20, 60, 6))]
        >>> scores = score_annotators(good + late + few, replicates=50)
        >>> scores["good"].calibration.value > 0.05 > scores["late"].calibration.value
        True
        >>> scores["good"].weight.value > 0.99, scores["new"].weight.text()
        (True, '— needs ≥ 10 seeds (n = 7)')
    """
    if replicates < 1:
        raise ValueError("the bootstrap needs at least one replicate")
    ranges = item_ranges(seeds)
    by_annotator: dict[Hashable, list[Seed]] = defaultdict(list)
    for s in seeds:
        if len(s.quantiles) != len(QUANTILE_LEVELS) or not all(map(math.isfinite, (*s.quantiles, s.realisation))):
            raise ValueError(f"annotator {s.annotator!r}, item {s.item!r}: a seed needs five finite "
                             "quantiles and a finite realisation")
        by_annotator[s.annotator].append(s)
    rng = np.random.default_rng(rng_seed)
    needs = NEEDS["seeds"]
    raw: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}
    for annotator, own in by_annotator.items():
        if len(own) < needs.min_n:
            continue
        q = spread_quantiles(np.array([s.quantiles for s in own], dtype=float))
        x = np.array([s.realisation for s in own], dtype=float)
        r = np.array([ranges[s.item] for s in own], dtype=float)
        r[:, 1] = np.maximum(r[:, 1], q.max(axis=1) + MIN_BIN_WIDTH)  # the spread quantiles
        draws = np.vstack([np.arange(len(own)), rng.integers(0, len(own), (replicates, len(own)))])
        raw[annotator] = _scores(q, x, r, draws)
    products = {a: cal * info for a, (cal, info) in raw.items()}
    totals = sum(products.values()) if products else None
    out = {}
    for annotator, own in by_annotator.items():
        n = len(own)
        n_out = sum(s.kind == OUTCOME for s in own)
        if annotator not in raw:
            out[annotator] = ExpertFigures(annotator, n, n_out, *(figure(needs, None, n=n) for _ in range(3)))
            continue
        cal, info = raw[annotator]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = products[annotator] / totals
        out[annotator] = ExpertFigures(
            annotator, n, n_out,
            figure(needs, cal[0], n=n, interval=_interval(cal[1:])),
            figure(needs, info[0], n=n, interval=_interval(info[1:])),
            figure(needs, share[0], n=n, interval=_interval(share[1:]),
                   undefined="every shown annotator's calibration is 0"))
    return out


def _interval(values: np.ndarray) -> tuple[float, float] | None:
    finite = values[np.isfinite(values)]
    if finite.size < 2:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def calibration_weights(scores: Mapping[Hashable, ExpertFigures]) -> dict[Hashable, float]:
    """The weights the "by calibration" gold pooling uses: each shown annotator's calibration ×
    information (unnormalised; a sample's pool divides by its own annotators' sum). Annotators
    whose figures are withheld are left out: a sample with one of them is pooled equally.

    Examples:
        >>> f = Figure(NEEDS["seeds"], 0.5, 12)
        >>> calibration_weights({"a": ExpertFigures("a", 12, 0, f, Figure(NEEDS["seeds"], 2.0, 12), f)})
        {'a': 1.0}
    """
    return {a: float(f.calibration.value * f.information.value) for a, f in scores.items()
            if f.calibration.shown and f.information.shown}


__all__ = ["BOOTSTRAP", "ExpertFigures", "MIN_BIN_WIDTH", "OUTCOME", "OVERSHOOT", "PANEL", "QUANTILE_LEVELS",
           "Seed", "calibration_weights", "curve_quantiles", "item_ranges", "realisation_of_gold",
           "realisation_of_minutes", "score_annotators", "spread_quantiles"]
