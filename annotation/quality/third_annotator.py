"""A third annotator where it pays (SPEC section 15): when one more annotator is asked before a
lead, and how a sample settles once they have answered.

* **When.** With the project's ``third_annotator`` setting on, a sample complete with its k
  annotations goes to one more annotator instead of to Review when the automatic rules flag it
  (curve distance, parameter deviations, Pk, segmentation mismatch, axes differ) or when the
  annotator model leaves its gold wider than ``third_annotator_sd_max`` (the posterior SD of the
  gold's half-gone position, log-time units) — :func:`ask_another`. Never for an annotator's own
  flag (that goes to the lead at once), and only once per sample (``extra_annotators`` is 0).
* **Settling with k + 1.** The sample settles automatically when some *pair* of its annotations
  agrees: the automatic rules computed on that pair alone fire nothing. Of the agreeing pairs
  the one whose curves are nearest (smallest Wasserstein-1 distance on the log-time axis; the
  first in index order on ties) gives the gold its segmentation and axes (the union of the
  pair's, as :func:`annotation.review.resolution.resolve_pair` merges two versions), and the
  gold's curve pools *all* k + 1 annotations by :func:`pool_curve` — :func:`agreeing_pair`,
  :func:`gold_of_pair`. Where no pair agrees the sample goes to a lead with the flags of all
  of its annotations.

The pairwise rule is the "majority of three" reading of adjudication by a third rater: two
raters who agree outvote the third on the categorical part of the label (as in Snow et al. 2008,
"Cheap and fast — but is it good?", EMNLP, and the pairwise-agreement adjudication of Passonneau
& Carpenter 2014, TACL 2:311-326), while a curve — a judgement on a continuous scale — keeps every
opinion through the linear pool of the experts (Cooke 1991, "Experts in Uncertainty", ch. 8).

Everything here is pure: hits, pair tests and versions in, decisions and resolutions out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from annotation.review.flags import FlagHit
from annotation.review.resolution import AnnotatorVersion, Resolution, resolve_pair
from annotation.settings import ProjectSettings

#: A pair of annotations by their 0-based positions in the sample's list, ``i < j``.
Pair = tuple[int, int]


def ask_another(hits: Sequence[FlagHit], settings: ProjectSettings, extra_annotators: int,
                gold_sd: float | None = None) -> bool:
    """Whether a sample complete with its k annotations goes to one more annotator instead of to
    a lead: the setting is on, the sample was never escalated (``extra_annotators`` = 0), no hit
    is an annotator's own flag, and an automatic rule fired (``hits``) or the gold is wider than
    ``settings.third_annotator_sd_max`` (``gold_sd``: the posterior SD of its half-gone
    position; None: unknown, so only the flags decide). Raises ValueError for a ``gold_sd``
    that is negative or not a number.

    Examples:
        >>> on = ProjectSettings(third_annotator=True)
        >>> ask_another([FlagHit("curve_distance")], on, 0)
        True
        >>> ask_another([FlagHit("curve_distance")], on, 1)            # asked once already
        False
        >>> ask_another([FlagHit("not_present_tense")], on, 0)              # an annotator's flag
        False
        >>> ask_another([], on, 0, gold_sd=14.0), ask_another([], on, 0, gold_sd=6.0), ask_another([], on, 0)
        (True, False, False)
        >>> ask_another([FlagHit("curve_distance")], ProjectSettings(), 0)   # setting off
        False
    """
    if gold_sd is not None and not (math.isfinite(gold_sd) and gold_sd >= 0):
        raise ValueError(f"the gold's SD must be a finite number ≥ 0, not {gold_sd!r}")
    if not settings.third_annotator or extra_annotators > 0:
        return False
    if any(not h.automatic for h in hits):
        return False  # an annotator's own flag goes to the lead at once
    wide = gold_sd is not None and gold_sd > settings.third_annotator_sd_max
    return bool(hits) or wide


def agreeing_pair(n: int, hits_of: Callable[[int, int], Sequence[FlagHit]],
                  w1_of: Callable[[int, int], float]) -> Pair | None:
    """The pair of the ``n`` annotations that settles the sample: among the pairs whose flags,
    computed on the pair alone (``hits_of(i, j)``), are none, the one with the smallest curve
    distance ``w1_of(i, j)`` (W1, log-time units); the first in index order on ties, a pair
    without a distance (NaN) after every measured one. None when no pair agrees. Raises
    ValueError for fewer than two annotations.

    Examples:
        >>> hits = {(0, 1): [FlagHit("curve_distance")], (0, 2): [], (1, 2): []}
        >>> w1 = {(0, 1): 20.0, (0, 2): 5.0, (1, 2): 3.0}
        >>> agreeing_pair(3, lambda i, j: hits[i, j], lambda i, j: w1[i, j])   # both agree; nearer
        (1, 2)
        >>> agreeing_pair(3, lambda i, j: [FlagHit("pk_above_threshold")], lambda i, j: 1.0) is None
        True
    """
    if n < 2:
        raise ValueError(f"a pair needs two annotations, not {n}")
    best: tuple[float, Pair] | None = None
    for pair in itertools.combinations(range(n), 2):
        if hits_of(*pair):
            continue
        w1 = float(w1_of(*pair))
        key = w1 if math.isfinite(w1) else math.inf
        if best is None or key < best[0]:
            best = (key, pair)
    return None if best is None else best[1]


def pool_curve(versions: Sequence[AnnotatorVersion]) -> Resolution:
    """The default pool of :func:`gold_of_pair`: equal weights, the mean of ξ, ω and α
    (:func:`annotation.review.resolution.resolve_pair`, pooling ``"equal"``). Settling passes the
    project's rule instead (:func:`annotation.quality.weighted_gold.pooled_gold`). Only its curve
    fields are read (``xi``, ``omega``, ``alpha``, ``parameter_sources``, ``pooling``,
    ``weights``).

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> vs = [AnnotatorVersion(a, Segmentation((0,), 4), ("main",), xi, 10.0, 0.0)
        ...       for a, xi in ((1, 40.0), (2, 44.0), (3, 60.0))]
        >>> pooled = pool_curve(vs)
        >>> round(pooled.xi, 3), pooled.pooling, pooled.parameter_sources
        (48.0, 'equal', (1, 2, 3))
    """
    return resolve_pair(versions)


def gold_of_pair(versions: Sequence[AnnotatorVersion], pair: Pair,
                 pool: Callable[[Sequence[AnnotatorVersion]], Resolution] = pool_curve) -> Resolution:
    """The gold of a sample settled by its agreeing ``pair``: segmentation and axes merged from
    the pair's two versions (union), curve pooled over every version by ``pool``; its sources
    are all the annotators. Raises ValueError for a pair outside ``versions``.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion(1, Segmentation((0,), 6), ("main",), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion(2, Segmentation((0, 3), 6), ("main", "static"), 70.0, 10.0, 0.0)
        >>> c = AnnotatorVersion(3, Segmentation((0,), 6), ("main",), 43.0, 12.0, 0.0)
        >>> gold = gold_of_pair([a, b, c], (0, 2))
        >>> gold.boundaries, gold.segment_axes, round(gold.xi, 3), round(gold.omega, 3)
        ((0,), (('main',),), 51.0, 10.667)
        >>> gold.sources, gold.parameter_sources, gold.pooling
        ((1, 2, 3), (1, 2, 3), 'equal')
    """
    i, j = pair
    if not (0 <= i < j < len(versions)):
        raise ValueError(f"pair {pair} is not two of the {len(versions)} annotations (i < j)")
    shape = resolve_pair([versions[i], versions[j]])
    curve = pool(versions)
    return replace(shape, xi=curve.xi, omega=curve.omega, alpha=curve.alpha,
                   sources=tuple(v.annotator for v in versions),
                   parameter_sources=curve.parameter_sources, pooling=curve.pooling,
                   weights=curve.weights)


__all__ = ["Pair", "agreeing_pair", "ask_another", "gold_of_pair", "pool_curve"]
