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

from annotation.agreement.intervals import SumStatistic, mean_statistic
from annotation.agreement.measure import TabulatedMixin, json_ready, nan_mean, optional
from annotation.agreement.ratings import Consumes, RatedSample, segment_masses
from annotation.agreement.tables import Rows, SampleSet, group_means
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


def _window_one_way(n: np.ndarray, window: np.ndarray, offsets: np.ndarray, pair_of_token: np.ndarray,
                    hyp: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pk(hyp|ref) and WD(hyp|ref) of every pair over the windows i … i+w (0 ≤ i < n − w):
    Pk counts the windows where the two disagree on whether both ends are in one segment
    (segeval's ``__pk__``), WindowDiff those holding different numbers of boundaries
    (``__window_diff__``; with cumulative segment ids that number is ``id[i+w] − id[i]``)."""
    local = np.arange(pair_of_token.size, dtype=np.int64) - offsets[pair_of_token]
    start = np.flatnonzero(local < (n - window)[pair_of_token])
    end = start + window[pair_of_token[start]]
    ref_span, hyp_span = ref[end] - ref[start], hyp[end] - hyp[start]
    pk_differ = (ref_span == 0) != (hyp_span == 0)
    wd_differ = ref_span != hyp_span
    owner = pair_of_token[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.bincount(owner, weights=pk_differ, minlength=n.size) / (n - window),
                np.bincount(owner, weights=wd_differ, minlength=n.size) / (n - window))


def window_measures_many(n_tokens: Sequence[int], a: Sequence[tuple[int, ...]],
                         b: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """``(pk, window_diff)``, each both ways averaged, of many pairs of segmentations (start
    indices) at once — segeval's ``pk`` and ``window_diff`` with the guards of
    :func:`compare_segmentations` (identical → 0, a window that does not fit → NaN), with numpy
    instead of two segeval calls per pair and metric.

    Examples:
        >>> pk, wd = window_measures_many([10, 10], [(0, 5), (0,)], [(0, 4, 5), (0, 5)])
        >>> pk.tolist(), wd.tolist()
        ([0.125, 0.625], [0.25, 0.625])
    """
    n = np.asarray(n_tokens, dtype=np.int64)
    pk, wd = np.zeros(n.size), np.zeros(n.size)
    if n.size == 0:
        return pk, wd
    seg_a = np.fromiter((len(x) for x in a), dtype=np.int64, count=n.size)
    seg_b = np.fromiter((len(x) for x in b), dtype=np.int64, count=n.size)
    window_a, window_b = _window_sizes(n, seg_a), _window_sizes(n, seg_b)
    fits = (n > window_a) & (n > window_b)
    same = np.fromiter((x == y for x, y in zip(a, b)), dtype=bool, count=n.size)
    todo = np.flatnonzero(fits & ~same)
    pk[~fits & ~same] = math.nan
    wd[~fits & ~same] = math.nan
    if todo.size == 0:
        return pk, wd
    nt = n[todo]
    offsets = np.concatenate(([0], np.cumsum(nt)[:-1]))
    total = int(nt.sum())
    pair_of_token = np.repeat(np.arange(todo.size, dtype=np.int64), nt)
    ids_a = _pooled_segment_ids([a[i] for i in todo], offsets, total)
    ids_b = _pooled_segment_ids([b[i] for i in todo], offsets, total)
    pk_ab, wd_ab = _window_one_way(nt, window_b[todo], offsets, pair_of_token, ids_a, ids_b)
    pk_ba, wd_ba = _window_one_way(nt, window_a[todo], offsets, pair_of_token, ids_b, ids_a)
    pk[todo] = (pk_ab + pk_ba) / 2
    wd[todo] = (wd_ab + wd_ba) / 2
    return pk, wd


def pk_both_ways_many(n_tokens: Sequence[int], a: Sequence[tuple[int, ...]],
                      b: Sequence[tuple[int, ...]]) -> np.ndarray:
    """``(Pk(a|b) + Pk(b|a)) / 2`` of many pairs of segmentations (start indices) at once.

    The same figures as :func:`pk_both_ways` — segeval's ``pk`` both ways, averaged — with the
    same guards (identical → 0, a window that does not fit → NaN), computed for all pairs with
    numpy (:func:`window_measures_many`) instead of one segeval call per pair and direction.
    Agrees with segeval to 1e-9 (segeval sums exact Decimals);
    tests/unit/test_agreement_pk_vectorised.py checks that on random segmentations.

    Examples:
        >>> pk_both_ways_many([10, 10, 2], [(0,), (0, 5), (0,)], [(0, 5), (0, 5), (0, 1)]).tolist()
        [0.625, 0.0, nan]
    """
    return window_measures_many(n_tokens, a, b)[0]


def _boundary_similarity(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """segeval's B (``boundary_similarity`` with its defaults, n_t = 2) of two segmentations
    with one boundary type, given as start indices.

    With a single boundary type, segeval's boundary edit distance has no substitutions; a
    transposition is a boundary one side has at position p and the other at p + 1 (paired
    greedily from the left, each position used once), weighted 1/2; every other boundary only
    one side has is an addition, weighted 1. B = (matches + T/2) / (matches + A + T), 1 when
    neither side has a boundary. tests/unit/test_agreement_pk_vectorised.py holds it equal to
    segeval on random segmentations.
    """
    set_a, set_b = set(a[1:]), set(b[1:])
    only = sorted(set_a ^ set_b)
    transpositions = 0
    used = -1
    for p, q in zip(only, only[1:]):
        if q == p + 1 and p != used and ((p in set_a) != (q in set_a)):
            transpositions += 1
            used = q
    matches = len(set_a & set_b)
    additions = len(only) - 2 * transpositions
    denominator = matches + additions + transpositions
    return (matches + transpositions / 2) / denominator if denominator else 1.0


def boundary_similarity_many(n_tokens: Sequence[int], a: Sequence[tuple[int, ...]],
                             b: Sequence[tuple[int, ...]]) -> np.ndarray:
    """segeval's boundary similarity of many pairs (1 for identical segmentations), computed as
    :func:`_boundary_similarity` — segeval's own algorithm specialised to one boundary type,
    without its per-call conversions (about 0.3 ms a pair).

    Examples:
        >>> boundary_similarity_many([10, 10], [(0, 5), (0, 5)], [(0, 4, 5), (0, 5)]).tolist()
        [0.5, 1.0]
    """
    return np.fromiter((1.0 if x == y else _boundary_similarity(x, y) for x, y in zip(a, b)),
                       dtype=float, count=len(a))


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
class SegmentationMeasure(TabulatedMixin):
    """Pk and WindowDiff (both ways averaged) and boundary similarity (see module docstring).
    With ``pk_only`` just Pk is computed (WindowDiff and B are NaN) — what a headline needs."""

    name: ClassVar[str] = "segmentation"
    consumes: ClassVar[Consumes] = Consumes.SEGMENTATION
    pk_only: bool = False

    def tabulate(self, samples: SampleSet) -> Rows:
        """Per sample: ``pk``, ``window_diff``, ``boundary_similarity`` (means over its pairs),
        ``n_pairs``. Pk and WindowDiff of every pair at once (:func:`window_measures_many`), B
        with segeval per distinct pair of different segmentations."""
        sample_of_pair, n_tokens, firsts, seconds = samples.segment_pairs
        n = len(samples)
        pk, wd = window_measures_many(n_tokens, firsts, seconds)
        if self.pk_only:
            wd = np.full(pk.shape, math.nan)
            b = np.full(pk.shape, math.nan)
        else:
            b = boundary_similarity_many(n_tokens, firsts, seconds)
        return {
            "pk": group_means(pk, sample_of_pair, n),
            "window_diff": group_means(wd, sample_of_pair, n),
            "boundary_similarity": group_means(b, sample_of_pair, n),
            "n_pairs": np.bincount(sample_of_pair, minlength=n),
        }

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> SegmentationResult:
        compared = rows["n_pairs"] > 0
        return SegmentationResult(
            pk=nan_mean(rows["pk"]),
            window_diff=nan_mean(rows["window_diff"]),
            boundary_similarity=nan_mean(rows["boundary_similarity"]),
            n_samples=int(compared.sum()),
            n_pairs=int(rows["n_pairs"].sum()),
            n_undefined=int((compared & ~np.isfinite(rows["pk"])).sum()),
        )

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        """``pk``: mean per-sample Pk (both ways averaged) of each group."""
        return [{"pk": optional(v)} for v in group_means(rows["pk"], labels, n_groups)]

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """``pk``, ``window_diff``, ``boundary_similarity`` of each sample."""
        return {name: rows[name] for name in ("pk", "window_diff", "boundary_similarity")}

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        return {"pk": mean_statistic(rows["pk"])}


__all__ = [
    "SegmentComparison",
    "SegmentationMeasure",
    "SegmentationResult",
    "clear_cache",
    "compare_segmentations",
    "pk_both_ways",
    "pk_both_ways_many",
    "window_diff_both_ways",
    "window_measures_many",
    "boundary_similarity_many",
]
