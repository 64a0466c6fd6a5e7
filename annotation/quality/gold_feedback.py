"""An annotator's production work against the settled gold. Pure.

For each of their submitted production annotations whose sample has gold, the annotator sees:

* **the curves**: the W1 distance between their curve and the gold's
  (:func:`annotation.curves.distance.curve_distances`, log-time units) and in words
  (:func:`describe_against_gold`: "the gold curve sits ≈ ×2.1 later than yours");
* **the segmentation** (:func:`compare_with_gold`): the boundaries only in theirs, only in the
  gold and in both, and the runs of tokens whose axes differ — a gold segment may carry several
  axes (a union), so a token differs when the annotator's one axis is not exactly the gold's set;
* **the figures** (:func:`score_against_gold`): W1, overlap, Jaccard of the (token, axis) sets
  (:func:`annotation.quality.qualification.gold_jaccard`, the warm-up's Jaccard against gold: the same
  value as :func:`annotation.agreement.label_set_jaccard` when every gold segment has one axis)
  and Pk both ways (:func:`annotation.agreement.segment_agreement.pk_both_ways_many`, segeval's
  figure vectorised) — and their **trend** per ISO week of submission (:func:`weekly_trend`).

Only the annotator's own version and the gold come in: nothing here can show anyone else's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

import numpy as np

from annotation.agreement.ratings import iso_week
from annotation.agreement.segment_agreement import pk_both_ways_many
from annotation.curves.distance import CurveDistance, curve_distances
from annotation.quality.qualification import gold_jaccard
from annotation.review.resolution import EDITED, Resolution
from annotation.segmentation import Segmentation, SegmentationError
from annotation.timeaxis import DEFAULT_BASE

#: Below this time factor the two curves are read as one (as :meth:`CurveDistance.describe`).
_SAME_FACTOR = 1.05


@dataclass(frozen=True)
class AxisDifference:
    """Tokens ``start`` … ``end - 1`` (one run) carry ``mine`` (None: unlabelled) in the
    annotator's version and the axes ``gold`` in the gold."""

    start: int
    end: int
    mine: str | None
    gold: tuple[str, ...]


@dataclass(frozen=True)
class SegmentationDifference:
    """How the annotator's segmentation and axes differ from the gold's. Boundaries are the token
    indices where a segment starts, the text's start (0) left out."""

    shared: tuple[int, ...]
    only_mine: tuple[int, ...]
    only_gold: tuple[int, ...]
    axes: tuple[AxisDifference, ...]

    @property
    def same_boundaries(self) -> bool:
        return not self.only_mine and not self.only_gold

    @property
    def identical(self) -> bool:
        return self.same_boundaries and not self.axes


def compare_with_gold(boundaries: Sequence[int], segment_axes: Sequence[str | None],
                      gold_boundaries: Sequence[int], gold_segment_axes: Sequence[Sequence[str]],
                      n_tokens: int) -> SegmentationDifference:
    """The annotator's segmentation against the gold's over a text of ``n_tokens`` tokens.

    Raises :class:`~annotation.segmentation.SegmentationError` when either does not partition
    the text or the axes do not match the segments.

    Examples:
        Ten tokens; the annotator splits at 4 (Static | Main), the gold at 4 and 7 (Static |
        Main | Main + Opinion): one boundary only in the gold, tokens 7–9 differ in axes.

        >>> d = compare_with_gold((0, 4), ("static", "main"), (0, 4, 7),
        ...                       (("static",), ("main",), ("main", "opinion")), 10)
        >>> d.shared, d.only_mine, d.only_gold
        ((4,), (), (7,))
        >>> d.axes
        (AxisDifference(start=7, end=10, mine='main', gold=('main', 'opinion')),)
    """
    mine = Segmentation.from_boundaries(list(boundaries), n_tokens)
    gold = Segmentation.from_boundaries(list(gold_boundaries), n_tokens)
    if len(segment_axes) != mine.n_segments or len(gold_segment_axes) != gold.n_segments:
        raise SegmentationError("the axes do not match the segments")
    a, b = set(mine.boundaries[1:]), set(gold.boundaries[1:])
    my_axis = [segment_axes[j] for j in mine.segment_ids()]
    gold_axes = [tuple(gold_segment_axes[j]) for j in gold.segment_ids()]
    runs: list[AxisDifference] = []
    for t, (m, g) in enumerate(zip(my_axis, gold_axes)):
        if ({m} if m is not None else set()) == set(g):
            continue
        last = runs[-1] if runs else None
        if last is not None and last.end == t and (last.mine, last.gold) == (m, g):
            runs[-1] = AxisDifference(last.start, t + 1, m, g)
        else:
            runs.append(AxisDifference(t, t + 1, m, g))
    return SegmentationDifference(tuple(sorted(a & b)), tuple(sorted(a - b)), tuple(sorted(b - a)),
                                  tuple(runs))


@dataclass(frozen=True)
class MineAndGold:
    """One submitted annotation (``boundaries``, ``segment_axes``, ξ ω α: None without a curve)
    and its sample's gold (``gold_segment_axes``: a tuple of axes per segment)."""

    submitted_at: datetime
    n_tokens: int
    boundaries: tuple[int, ...]
    segment_axes: tuple[str | None, ...]
    xi: float | None
    omega: float | None
    alpha: float | None
    gold_boundaries: tuple[int, ...]
    gold_segment_axes: tuple[tuple[str, ...], ...]
    gold_xi: float
    gold_omega: float
    gold_alpha: float

    @property
    def has_curve(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)


@dataclass(frozen=True)
class GoldScore:
    """The figures of one annotation against gold (NaN where undefined): ``w1`` and ``shift``
    (gold's mean − yours) in log-time units, ``overlap`` in [0, 1], ``jaccard`` (1 is
    identical), ``pk`` (0 is identical)."""

    w1: float
    overlap: float
    shift: float
    jaccard: float
    pk: float

    @property
    def distance(self) -> CurveDistance | None:
        """The curve distance (yours → the gold's), None without one."""
        if not math.isfinite(self.w1):
            return None
        return CurveDistance(self.w1, self.overlap, self.shift)


def score_against_gold(pairs: Sequence[MineAndGold]) -> list[GoldScore]:
    """W1, overlap, shift, Jaccard and Pk of each annotation against its gold (vectorised: a
    history of thousands of samples is a few numpy passes).

    Examples:
        >>> when = datetime(2026, 11, 2)
        >>> [s] = score_against_gold([MineAndGold(when, 10, (0, 5), ("main", "static"), 50.0, 10.0, 0.0,
        ...                                       (0, 5), (("main",), ("static",)), 60.0, 10.0, 0.0)])
        >>> round(s.w1, 4), round(s.shift, 4), s.jaccard, s.pk
        (10.0, 10.0, 1.0, 0.0)
    """
    if not pairs:
        return []
    nan = math.nan
    mine = np.array([(p.xi, p.omega, p.alpha) if p.has_curve else (nan, nan, nan) for p in pairs], dtype=float)
    gold = np.array([(p.gold_xi, p.gold_omega, p.gold_alpha) for p in pairs], dtype=float)
    w1, overlap, shift = curve_distances(mine, gold)
    fits = []
    jaccards = []
    for p in pairs:
        try:
            resolution = Resolution(p.gold_boundaries, p.gold_segment_axes, p.gold_xi, p.gold_omega,
                                    p.gold_alpha, (), p.n_tokens, method=EDITED)
            jaccards.append(gold_jaccard(p.boundaries, p.segment_axes, resolution))
            Segmentation.from_boundaries(list(p.boundaries), p.n_tokens)
            fits.append(True)
        except (SegmentationError, ValueError):
            jaccards.append(nan)
            fits.append(False)
    usable = [i for i, ok in enumerate(fits) if ok]
    pk = np.full(len(pairs), nan)
    if usable:
        pk[usable] = pk_both_ways_many([pairs[i].n_tokens for i in usable],
                                       [tuple(pairs[i].boundaries) for i in usable],
                                       [tuple(pairs[i].gold_boundaries) for i in usable])
    return [GoldScore(float(w1[i]), float(overlap[i]), float(shift[i]), float(jaccards[i]), float(pk[i]))
            for i in range(len(pairs))]


def describe_against_gold(distance: CurveDistance | None, drew_curve: bool = False) -> str:
    """The curve distance in the annotator's words (``distance`` from their curve to the gold's;
    None without one: ``drew_curve`` says whether that is because they drew none or because a
    curve lies off the time axis, where no distance is measured).

    Examples:
        >>> describe_against_gold(CurveDistance(7.8, 0.5, 7.8))
        'the gold curve sits ≈ ×2.1 later than yours'
        >>> describe_against_gold(CurveDistance(7.8, 0.5, -7.8))
        'the gold curve sits ≈ ×2.1 earlier than yours'
        >>> describe_against_gold(CurveDistance(7.8, 0.6, 0.5))
        'your curve and the gold curve differ by ≈ ×2.1 in time (in spread, not position)'
        >>> describe_against_gold(CurveDistance(0.2, 0.99, 0.1))
        'your curve and the gold curve coincide'
        >>> describe_against_gold(None)
        'you drew no curve'
        >>> describe_against_gold(None, drew_curve=True)
        'no distance: your curve or the gold curve lies off the time axis'
    """
    if distance is None:
        return "no distance: your curve or the gold curve lies off the time axis" if drew_curve else "you drew no curve"
    factor = DEFAULT_BASE ** distance.w1
    if factor < _SAME_FACTOR:
        return "your curve and the gold curve coincide"
    if abs(distance.shift) < distance.w1 / 4:  # mostly a difference of width or skew
        return f"your curve and the gold curve differ by ≈ ×{factor:.1f} in time (in spread, not position)"
    direction = "later" if distance.shift > 0 else "earlier"
    return f"the gold curve sits ≈ ×{factor:.1f} {direction} than yours"


@dataclass(frozen=True)
class TrendPoint:
    """Means over the annotations submitted in ISO week ``week`` ("2026-W47"); None where no
    sample of the week defines the figure."""

    week: str
    n: int
    w1: float | None
    jaccard: float | None
    pk: float | None


def _mean(values: Sequence[float]) -> float | None:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else None


def mean_scores(scores: Sequence[GoldScore]) -> TrendPoint:
    """Means of W1, Jaccard and Pk over ``scores`` (week ``""``), undefined figures skipped.

    Examples:
        >>> m = mean_scores([GoldScore(2.0, 0.9, 2.0, 1.0, 0.0), GoldScore(6.0, 0.5, 6.0, 0.5, math.nan)])
        >>> m.n, m.w1, m.jaccard, m.pk
        (2, 4.0, 0.75, 0.0)
    """
    return TrendPoint("", len(scores), _mean([s.w1 for s in scores]), _mean([s.jaccard for s in scores]),
                      _mean([s.pk for s in scores]))


def weekly_trend(pairs: Sequence[MineAndGold], scores: Sequence[GoldScore]) -> tuple[TrendPoint, ...]:
    """Mean W1, Jaccard and Pk per ISO week of submission, oldest week first.

    Examples:
        >>> a = GoldScore(2.0, 0.9, 2.0, 1.0, 0.0)
        >>> b = GoldScore(6.0, 0.5, 6.0, 0.5, math.nan)
        >>> p = MineAndGold(datetime(2026, 11, 2), 10, (0,), ("main",), 50.0, 10.0, 0.0,
        ...                 (0,), (("main",),), 52.0, 10.0, 0.0)
        >>> from dataclasses import replace
        >>> later = replace(p, submitted_at=datetime(2026, 11, 10))
        >>> for point in weekly_trend([p, p, later], [a, b, a]):
        ...     print(point)
        TrendPoint(week='2026-W45', n=2, w1=4.0, jaccard=0.75, pk=0.0)
        TrendPoint(week='2026-W46', n=1, w1=2.0, jaccard=1.0, pk=0.0)
    """
    if len(pairs) != len(scores):
        raise ValueError("one score per annotation")
    weeks: dict[str, list[GoldScore]] = {}
    for p, s in zip(pairs, scores):
        weeks.setdefault(iso_week(p.submitted_at), []).append(s)
    points = []
    for week in sorted(weeks):
        m = mean_scores(weeks[week])
        points.append(TrendPoint(week, m.n, m.w1, m.jaccard, m.pk))
    return tuple(points)


__all__ = [
    "AxisDifference",
    "GoldScore",
    "MineAndGold",
    "SegmentationDifference",
    "TrendPoint",
    "compare_with_gold",
    "describe_against_gold",
    "mean_scores",
    "score_against_gold",
    "weekly_trend",
]
