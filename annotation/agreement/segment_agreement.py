"""Segmentation agreement: Pk, WindowDiff and boundary similarity with segeval (SPEC section 6).

Consumes segmentations (of ratings whose segments are all labelled, see
:func:`annotation.agreement.ratings.rating_supplies`).

* **Pk** (Beeferman, Berger & Lafferty 1999) and **WindowDiff** (Pevzner & Hearst 2002) slide a
  window over the tokens and count the windows where the two segmentations disagree; 0 is
  perfect agreement. segeval's ``pk(hypothesis, reference)`` takes the window size from the
  reference (half its mean segment length, at least 2), so the value is not symmetric. Neither
  annotator is the reference, so both are computed both ways and averaged:
  ``(Pk(A|B) + Pk(B|A)) / 2`` (:func:`pk_both_ways`, :func:`window_diff_both_ways`).
* **Boundary similarity** B (Fournier 2013, ``segeval.boundary_similarity``) is symmetric;
  1 is perfect agreement.

Guards: identical segmentations are perfect agreement (Pk 0, WindowDiff 0, B 1) without calling
segeval (segeval raises for B when neither side has a boundary — every one-token text). When
the text is too short for a window to fit (n_tokens ≤ the window size, i.e. texts of one or two
tokens whose segmentations differ) Pk and WindowDiff are undefined: NaN, left out of means and
counted as ``n_undefined`` (segeval would return a misleading 0 for Pk and divide by zero for
WindowDiff).

Per sample, values are averaged over all pairs of ratings, then over samples. Results of
segeval are exact Decimals; the two directions are averaged as Decimals and converted to float.
Comparisons are memoised (the same pair of segmentations recurs across the per-pair and
per-week breakdowns of one report): :func:`clear_cache` empties the memo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Callable, ClassVar, Sequence

import numpy as np
import segeval

from annotation.agreement.measure import json_ready, nan_mean, optional
from annotation.agreement.ratings import Consumes, RatedSample, rating_pairs, segment_masses
from annotation.segmentation import Segmentation


@dataclass(frozen=True)
class SegmentComparison:
    """Agreement of two segmentations of one text (NaN where undefined, see module docstring)."""

    pk: float
    window_diff: float
    boundary_similarity: float


def compare_segmentations(a: Segmentation, b: Segmentation) -> SegmentComparison:
    """Pk and WindowDiff both ways averaged, and boundary similarity, of two segmentations.

    Examples:
        Ten tokens split 5 + 5 against 4 + 1 + 5 (one extra boundary before token 4). Both
        windows are 2 tokens, so each direction has 8 windows: Pk counts 1 of them wrong (2–4),
        WindowDiff 2 (2–4, and 3–5 holding two boundaries against one); B has one matched
        boundary and one addition, 1 − 1/2.

        >>> compare_segmentations(Segmentation.from_masses((5, 5)), Segmentation.from_masses((4, 1, 5)))
        SegmentComparison(pk=0.125, window_diff=0.25, boundary_similarity=0.5)
    """
    if a.n_tokens != b.n_tokens:
        raise ValueError(f"the segmentations cover different texts ({a.n_tokens} and {b.n_tokens} tokens)")
    return SegmentComparison(*_compare(a.n_tokens, a.boundaries, b.boundaries))


def pk_both_ways(a: Segmentation, b: Segmentation) -> float:
    """``(Pk(a|b) + Pk(b|a)) / 2`` with segeval; 0 is perfect agreement, NaN when undefined.

    Pk alone (the automatic flag at every settling submit needs only this): the same value as
    :func:`compare_segmentations`' ``pk`` without computing WindowDiff and B, which cost more.

    Examples:
        One segment against 5 + 5 tokens: with 5 + 5 as reference the window is 2 tokens and
        2 of 8 windows straddle its boundary (0.25); with the single segment as reference the
        window is 5 and all 5 windows do (1.0). The mean is 0.625.

        >>> one, two = Segmentation.whole(10), Segmentation.from_masses((5, 5))
        >>> pk_both_ways(one, two), pk_both_ways(two, two)
        (0.625, 0.0)
        >>> pk_both_ways(Segmentation.whole(2), Segmentation.from_masses((1, 1)))  # no window fits
        nan
    """
    if a.n_tokens != b.n_tokens:
        raise ValueError(f"the segmentations cover different texts ({a.n_tokens} and {b.n_tokens} tokens)")
    x, y = a.boundaries, b.boundaries
    return _pk_ordered(a.n_tokens, *((x, y) if x <= y else (y, x)))[0]


def window_diff_both_ways(a: Segmentation, b: Segmentation) -> float:
    """``(WD(a|b) + WD(b|a)) / 2`` with segeval; 0 is perfect agreement, NaN when undefined.

    Examples:
        >>> two, three = Segmentation.from_masses((5, 5)), Segmentation.from_masses((4, 1, 5))
        >>> window_diff_both_ways(two, three)   # 2 of 8 windows differ, both ways (see compare_segmentations)
        0.25
    """
    return compare_segmentations(a, b).window_diff


def _compare(n_tokens: int, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[float, float, float]:
    # Every measure here is symmetric, so (a, b) and (b, a) share one memo entry.
    return _compare_ordered(n_tokens, *((a, b) if a <= b else (b, a)))


@lru_cache(maxsize=65536)
def _compare_ordered(n_tokens: int, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[float, float, float]:
    if a == b:
        return 0.0, 0.0, 1.0
    ma, mb = segment_masses(a, n_tokens), segment_masses(b, n_tokens)
    if not (_window_fits(n_tokens, ma) and _window_fits(n_tokens, mb)):
        return math.nan, math.nan, float(segeval.boundary_similarity(ma, mb))
    return (
        _both_ways(segeval.pk, ma, mb),
        _both_ways(segeval.window_diff, ma, mb),
        float(segeval.boundary_similarity(ma, mb)),
    )


@lru_cache(maxsize=65536)
def _pk_ordered(n_tokens: int, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[float, float, float]:
    """Pk alone (WindowDiff and B left NaN) — for a headline, at about half the cost."""
    if a == b:
        return 0.0, math.nan, math.nan
    ma, mb = segment_masses(a, n_tokens), segment_masses(b, n_tokens)
    if not (_window_fits(n_tokens, ma) and _window_fits(n_tokens, mb)):
        return math.nan, math.nan, math.nan
    return _both_ways(segeval.pk, ma, mb), math.nan, math.nan


def _window_fits(n_tokens: int, reference: tuple[int, ...]) -> bool:
    """Whether at least one window position exists when ``reference`` sets the window size."""
    return n_tokens > segeval.compute_window_size(reference)


def _both_ways(metric: Callable[..., Any], a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return float((Decimal(metric(a, b)) + Decimal(metric(b, a))) / 2)


def _window_sizes(n_tokens: np.ndarray, n_segments: np.ndarray) -> np.ndarray:
    """segeval's window size, exactly: half the mean segment mass rounded half to even (Python's
    ``round`` of a Decimal), at least 2. In integers: round(n / 2m)."""
    quotient, remainder = np.divmod(n_tokens, 2 * n_segments)
    up = (2 * remainder > 2 * n_segments) | ((remainder == n_segments) & (quotient % 2 == 1))
    return np.maximum(quotient + up, 2)


def _pooled_segment_ids(boundaries: Sequence[tuple[int, ...]], offsets: np.ndarray, total: int) -> np.ndarray:
    """For every pooled token, how many boundaries (after each text's first) lie at or before it
    — equal at two tokens of one text exactly when they are in the same segment."""
    starts = np.fromiter((b for bounds in boundaries for b in bounds[1:]), dtype=np.int64)
    text_of = np.repeat(np.arange(len(boundaries), dtype=np.int64),
                        np.fromiter((len(b) - 1 for b in boundaries), dtype=np.int64, count=len(boundaries)))
    return np.cumsum(np.bincount(offsets[text_of] + starts, minlength=total))


def _pk_one_way(n: np.ndarray, window: np.ndarray, offsets: np.ndarray, pair_of_token: np.ndarray,
                hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Pk(hyp|ref) of every pair: the share of windows i … i+w (0 ≤ i < n − w) where the two
    segmentations disagree on whether both ends are in one segment (segeval's ``__pk__``)."""
    local = np.arange(pair_of_token.size, dtype=np.int64) - offsets[pair_of_token]
    start = np.flatnonzero(local < (n - window)[pair_of_token])
    end = start + window[pair_of_token[start]]
    differ = (ref[start] == ref[end]) != (hyp[start] == hyp[end])
    counts = np.bincount(pair_of_token[start], weights=differ, minlength=n.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts / (n - window)


def pk_both_ways_many(n_tokens: Sequence[int], a: Sequence[tuple[int, ...]],
                      b: Sequence[tuple[int, ...]]) -> np.ndarray:
    """``(Pk(a|b) + Pk(b|a)) / 2`` of many pairs of segmentations (start indices) at once.

    The same figures as :func:`pk_both_ways` — segeval's ``pk`` both ways, averaged — with the
    same guards (identical → 0, a window that does not fit → NaN), computed for all pairs with
    numpy instead of one segeval call per pair and direction (the export card's headline over
    100k samples). Agrees with segeval to float precision (segeval sums exact Decimals);
    tests/unit/test_agreement.py checks that on random segmentations.

    Examples:
        >>> pk_both_ways_many([10, 10, 2], [(0,), (0, 5), (0,)], [(0, 5), (0, 5), (0, 1)]).tolist()
        [0.625, 0.0, nan]
    """
    n = np.asarray(n_tokens, dtype=np.int64)
    out = np.zeros(n.size)
    if n.size == 0:
        return out
    seg_a = np.fromiter((len(x) for x in a), dtype=np.int64, count=n.size)
    seg_b = np.fromiter((len(x) for x in b), dtype=np.int64, count=n.size)
    window_a, window_b = _window_sizes(n, seg_a), _window_sizes(n, seg_b)
    fits = (n > window_a) & (n > window_b)
    same = np.fromiter((x == y for x, y in zip(a, b)), dtype=bool, count=n.size)
    todo = np.flatnonzero(fits & ~same)
    out[~fits & ~same] = math.nan
    if todo.size == 0:
        return out
    nt = n[todo]
    offsets = np.concatenate(([0], np.cumsum(nt)[:-1]))
    total = int(nt.sum())
    pair_of_token = np.repeat(np.arange(todo.size, dtype=np.int64), nt)
    ids_a = _pooled_segment_ids([a[i] for i in todo], offsets, total)
    ids_b = _pooled_segment_ids([b[i] for i in todo], offsets, total)
    a_given_b = _pk_one_way(nt, window_b[todo], offsets, pair_of_token, ids_a, ids_b)
    b_given_a = _pk_one_way(nt, window_a[todo], offsets, pair_of_token, ids_b, ids_a)
    out[todo] = (a_given_b + b_given_a) / 2
    return out


def clear_cache() -> None:
    """Forget memoised comparisons (benchmarks time a cold start with it).

    Examples:
        >>> pk = pk_both_ways(Segmentation.whole(10), Segmentation.from_masses((5, 5)))
        >>> clear_cache()
        >>> _compare_ordered.cache_info().currsize, _pk_ordered.cache_info().currsize
        (0, 0)
    """
    _compare_ordered.cache_clear()
    _pk_ordered.cache_clear()


@dataclass(frozen=True)
class SegmentationResult:
    """Mean per-sample Pk, WindowDiff and boundary similarity over ``n_samples`` samples.

    ``n_undefined`` samples had no defined Pk/WindowDiff (texts too short for a window).
    """

    measure: ClassVar[str] = "segmentation"
    pk: float
    window_diff: float
    boundary_similarity: float
    n_samples: int
    n_pairs: int
    n_undefined: int

    @property
    def headline(self) -> float:
        return self.pk

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "measure": self.measure,
                "pk": self.pk,
                "window_diff": self.window_diff,
                "boundary_similarity": self.boundary_similarity,
                "n_samples": self.n_samples,
                "n_pairs": self.n_pairs,
                "n_undefined": self.n_undefined,
            }
        )


@dataclass(frozen=True)
class SegmentationMeasure:
    """Pk and WindowDiff (both ways averaged) and boundary similarity (see module docstring).
    With ``pk_only`` just Pk is computed (WindowDiff and B are NaN) — what a headline needs."""

    name: ClassVar[str] = "segmentation"
    consumes: ClassVar[Consumes] = Consumes.SEGMENTATION
    pk_only: bool = False

    def _table(self, samples: Sequence[RatedSample]) -> tuple[np.ndarray, int, np.ndarray]:
        """(n_samples, 3) per-sample means of pk, window_diff, boundary_similarity; n_pairs;
        which samples had a pair to compare."""
        if self.pk_only:
            return self._pk_table(samples)
        out = np.full((len(samples), 3), math.nan)
        compared = np.zeros(len(samples), dtype=bool)
        n_pairs = 0
        for i, sample in enumerate(samples):
            values = [
                self._one(sample.n_tokens, a.boundaries, b.boundaries)
                for a, b in rating_pairs(sample, self.consumes)
            ]
            n_pairs += len(values)
            compared[i] = bool(values)
            if len(values) == 1:
                out[i] = values[0]
            elif values:
                arr = np.array(values)
                out[i] = [nan_mean(arr[:, j]) for j in range(3)]
        return out, n_pairs, compared

    def _pk_table(self, samples: Sequence[RatedSample]) -> tuple[np.ndarray, int, np.ndarray]:
        """:meth:`_table` for Pk alone, every pair at once (:func:`pk_both_ways_many`)."""
        out = np.full((len(samples), 3), math.nan)
        sample_of_pair: list[int] = []
        n_tokens: list[int] = []
        firsts: list[tuple[int, ...]] = []
        seconds: list[tuple[int, ...]] = []
        for i, sample in enumerate(samples):
            for a, b in rating_pairs(sample, self.consumes):
                sample_of_pair.append(i)
                n_tokens.append(sample.n_tokens)
                firsts.append(a.boundaries)
                seconds.append(b.boundaries)
        if not sample_of_pair:
            return out, 0, np.zeros(len(samples), dtype=bool)
        values = pk_both_ways_many(n_tokens, firsts, seconds)
        where = np.asarray(sample_of_pair, dtype=np.int64)
        finite = np.isfinite(values)
        total = np.bincount(where, weights=np.where(finite, values, 0.0), minlength=len(samples))
        count = np.bincount(where, weights=finite, minlength=len(samples))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 0] = np.where(count > 0, total / np.maximum(count, 1), math.nan)
        compared = np.bincount(where, minlength=len(samples)) > 0
        return out, len(sample_of_pair), compared

    def _one(self, n_tokens: int, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[float, float, float]:
        if self.pk_only:
            return _pk_ordered(n_tokens, *((a, b) if a <= b else (b, a)))
        return _compare(n_tokens, a, b)

    def compute(self, samples: Sequence[RatedSample]) -> SegmentationResult:
        table, n_pairs, compared = self._table(samples)
        return SegmentationResult(
            pk=nan_mean(table[:, 0]),
            window_diff=nan_mean(table[:, 1]),
            boundary_similarity=nan_mean(table[:, 2]),
            n_samples=int(compared.sum()),
            n_pairs=n_pairs,
            n_undefined=int((compared & ~np.isfinite(table[:, 0])).sum()),
        )

    def breakdown(self, samples: Sequence[RatedSample]) -> dict[str, float | None]:
        """``pk``: mean per-sample Pk (both ways averaged)."""
        return {"pk": optional(nan_mean(self._table(samples)[0][:, 0]))}

    def per_sample(self, samples: Sequence[RatedSample]) -> dict[str, np.ndarray]:
        """``pk``, ``window_diff``, ``boundary_similarity`` of each sample."""
        table, _, _ = self._table(samples)
        return {"pk": table[:, 0], "window_diff": table[:, 1], "boundary_similarity": table[:, 2]}


__all__ = [
    "SegmentComparison",
    "SegmentationMeasure",
    "SegmentationResult",
    "clear_cache",
    "compare_segmentations",
    "pk_both_ways",
    "pk_both_ways_many",
    "window_diff_both_ways",
]
