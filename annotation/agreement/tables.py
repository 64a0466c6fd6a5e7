"""One pass over the samples, shared by every measure of a report (what makes 100k samples fast).

:class:`SampleSet` is a read-only sequence of :class:`RatedSample` that computes, once and on
first use, the arrays the measures read: the curve parameters of each sample's ratings, the
token-level axis codes of every labelled rating pair, the per-sample co-occurrence counts and the
segmentations of every rating pair. The report wraps its samples in one; a measure given a plain
list wraps it itself (:func:`sample_set`).

A measure's *rows* are a dict of arrays whose first axis is the sample: :func:`take_rows` and
:func:`concat_rows` select and join them, :func:`group_sums` and :func:`group_means` aggregate
them per group (an annotator pair, a week) with one ``bincount`` per column.
"""

from __future__ import annotations

import itertools
import math
import threading
from datetime import datetime
from functools import cached_property
from typing import Any, Callable, Iterator, Mapping, Sequence, overload

import numpy as np

from annotation.agreement.ratings import RatedSample, TokenLabelPairs, token_label_pairs_of
from annotation.axes import AXIS_NAMES
from annotation.curves.distance import curve_distances

#: Number of axis classes (the side of the per-sample co-occurrence block).
N_AXES = len(AXIS_NAMES)

Rows = dict[str, np.ndarray]


class SampleSet(Sequence[RatedSample]):
    """The samples of one report, with the arrays the measures share (see module docstring).

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 1, 5)
        >>> ann = Rating("ann", t, (0,), ("main",), 40.0, 10.0, 1.0)
        >>> bob = Rating("bob", t, (0, 2), ("main", "static"), 44.0, 12.0, 0.0)
        >>> s = SampleSet([RatedSample("s1", 1, 4, (ann, bob))])
        >>> s.n_curves.tolist(), s.curve_values[0, 1].tolist(), s.label_counts.tolist()
        ([2], [44.0, 12.0, 0.0], [2])
        >>> s.confusion[0].reshape(N_AXES, N_AXES)[0, :2].tolist()   # ann main, bob main / static
        [2, 2]
    """

    def __init__(self, samples: Sequence[RatedSample]) -> None:
        self._samples: tuple[RatedSample, ...] = tuple(samples)
        self._pending_curves: _Background | None = None

    def __len__(self) -> int:
        return len(self._samples)

    @overload
    def __getitem__(self, index: int) -> RatedSample: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[RatedSample, ...]: ...

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._samples[index]

    def __iter__(self) -> Iterator[RatedSample]:
        return iter(self._samples)

    @cached_property
    def _pass(self) -> tuple[np.ndarray, list[tuple], tuple[list[int], list[int], list, list], np.ndarray,
                             list[tuple[str, ...]], list[datetime]]:
        """One loop over the samples: ratings counts, the ratings with a curve of each sample,
        every pair of labelled ratings (labels and segmentations are consumed by the same
        ratings, :func:`~annotation.agreement.ratings.rating_supplies`), labelled counts, the
        annotators and the completion time of each sample. The rules of ``has_curve`` and
        ``has_axis_labels`` are inlined (first use of a cached property takes a lock)."""
        n_ratings: list[int] = []
        curves: list[tuple] = []
        labelled_counts: list[int] = []
        sample_of_pair: list[int] = []
        n_tokens: list[int] = []
        firsts: list = []
        seconds: list = []
        people: list[tuple[str, ...]] = []
        completed: list[datetime] = []
        for i, sample in enumerate(self._samples):
            ratings = sample.ratings
            n_ratings.append(len(ratings))
            people.append(tuple(r.annotator for r in ratings))
            completed.append(max(r.submitted_at for r in ratings))
            curves.append(tuple(r for r in ratings
                                if r.xi is not None and r.omega is not None and r.alpha is not None))
            labelled = [r for r in ratings if None not in r.segment_axes]
            labelled_counts.append(len(labelled))
            for a, b in itertools.combinations(labelled, 2):
                sample_of_pair.append(i)
                n_tokens.append(sample.n_tokens)
                firsts.append(a)
                seconds.append(b)
        return (np.asarray(n_ratings, dtype=np.int64), curves, (sample_of_pair, n_tokens, firsts, seconds),
                np.asarray(labelled_counts, dtype=np.int64), people, completed)

    @property
    def annotators(self) -> list[tuple[str, ...]]:
        """Each sample's annotators in slot order (``RatedSample.annotators``)."""
        return self._pass[4]

    @property
    def completed_at(self) -> list[datetime]:
        """Each sample's last submission (``RatedSample.completed_at``)."""
        return self._pass[5]

    @property
    def n_ratings(self) -> np.ndarray:
        """Number of ratings of each sample."""
        return self._pass[0]

    @cached_property
    def n_curves(self) -> np.ndarray:
        """Number of ratings with ξ, ω and α of each sample."""
        return np.fromiter(map(len, self._pass[1]), dtype=np.int64, count=len(self))

    @cached_property
    def curve_values(self) -> np.ndarray:
        """(n_samples, k_max, 3): ξ, ω, α of each sample's ratings with a curve in slot order,
        NaN-padded (k_max is at least 2)."""
        n_curves = self.n_curves
        k_max = max(2, int(n_curves.max()) if n_curves.size else 0)
        out = np.full((len(self), k_max, 3), math.nan)
        total = int(n_curves.sum())
        if total:
            flat = np.fromiter(itertools.chain.from_iterable(
                (r.xi, r.omega, r.alpha) for rated in self._pass[1] for r in rated),
                dtype=float, count=3 * total)
            rows = np.repeat(np.arange(len(self)), n_curves)
            slots = np.arange(total) - np.repeat(np.cumsum(n_curves) - n_curves, n_curves)
            out[rows, slots] = flat.reshape(-1, 3)
        return out

    def start_curve_distances(self) -> None:
        """Start computing :attr:`curve_distances` in a background thread. The work is numpy
        (which releases the GIL), so it overlaps the report's Python-bound label and
        segmentation passes on a second core; :attr:`curve_distances` waits for it."""
        if "curve_distances" not in self.__dict__ and self._pending_curves is None:
            self._pending_curves = _Background(pairwise_curve_distances, self.curve_values, self.n_curves)

    def use_curve_distances(self, w1: np.ndarray, overlap: np.ndarray) -> None:
        """Take :attr:`curve_distances` — per sample, the mean W1 and overlap over its pairs of
        curves — from a caller that has already computed every pair of these samples (the
        export does, for its records' provenance) instead of computing them again.

        Examples:
            >>> s = SampleSet([])
            >>> s.use_curve_distances(np.array([]), np.array([]))
            >>> s.curve_distances[0].shape
            (0,)
        """
        w1, overlap = np.asarray(w1, dtype=float), np.asarray(overlap, dtype=float)
        if w1.shape != (len(self),) or overlap.shape != (len(self),):
            raise ValueError(f"expected one W1 and one overlap per sample ({len(self)}), "
                             f"got {w1.shape} and {overlap.shape}")
        self._pending_curves = None
        self.__dict__["curve_distances"] = (w1, overlap)

    @cached_property
    def curve_distances(self) -> tuple[np.ndarray, np.ndarray]:
        """Per sample, the mean W1 and overlap over its pairs of curves
        (:func:`pairwise_curve_distances`)."""
        pending, self._pending_curves = self._pending_curves, None
        if pending is not None:
            return pending.result()
        return pairwise_curve_distances(self.curve_values, self.n_curves)

    @cached_property
    def label_pairs(self) -> TokenLabelPairs:
        """Token axis codes of every labelled rating pair
        (:func:`~annotation.agreement.ratings.token_label_pairs`)."""
        return token_label_pairs_of(*self._pass[2])

    @property
    def label_counts(self) -> np.ndarray:
        """Number of ratings with axis labels of each sample (Krippendorff's pairable values)."""
        return self._pass[3]

    @cached_property
    def confusion(self) -> np.ndarray:
        """(n_samples, 64): per sample, tokens the earlier rating of a pair labelled i and the
        later j (at ``i * 8 + j``), summed over the sample's labelled rating pairs."""
        pairs = self.label_pairs
        if pairs.pair_of_token.size == 0:
            return np.zeros((len(self), N_AXES * N_AXES), dtype=np.int64)
        sample_of_token = pairs.sample_of_pair[pairs.pair_of_token]
        code = (sample_of_token * N_AXES + pairs.first) * N_AXES + pairs.second
        return np.bincount(code, minlength=len(self) * N_AXES * N_AXES).reshape(len(self), -1)

    @cached_property
    def segment_pairs(self) -> tuple[np.ndarray, np.ndarray, list[tuple[int, ...]], list[tuple[int, ...]]]:
        """Every pair of segmented ratings: (sample index, n_tokens, earlier boundaries, later)."""
        sample_of_pair, n_tokens, firsts, seconds = self._pass[2]
        return (np.asarray(sample_of_pair, dtype=np.int64), np.asarray(n_tokens, dtype=np.int64),
                [r.boundaries for r in firsts], [r.boundaries for r in seconds])


def pairwise_curve_distances(values: np.ndarray, n_curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, the mean W1 and mean overlap over all pairs of its curves.

    ``values`` is (n_samples, k_max, 3) — ξ, ω, α of each sample's ratings with a curve in slot
    order, NaN-padded — and ``n_curves`` how many each has. NaN where a sample has fewer than two
    curves (or every pair has a curve off the axis).

    Examples:
        Three curves 0, 4 and 10 units apart: pairs 4, 10 and 6 → mean W1 20/3.

        >>> v = np.array([[[50.0, 10.0, 0.0], [54.0, 10.0, 0.0], [60.0, 10.0, 0.0]]])
        >>> w1, overlap = pairwise_curve_distances(v, np.array([3]))
        >>> round(float(w1[0]), 4)
        6.6667
    """
    n, k_max = values.shape[0], values.shape[1]
    total_w1, total_overlap, count = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(k_max):
        for j in range(i + 1, k_max):
            rows = np.flatnonzero(n_curves > j)
            if rows.size == 0:
                continue
            w1, overlap, _ = curve_distances(values[rows, i], values[rows, j])
            ok = np.isfinite(w1)
            total_w1[rows[ok]] += w1[ok]
            total_overlap[rows[ok]] += overlap[ok]
            count[rows[ok]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        used = count > 0
        return (np.where(used, total_w1 / np.maximum(count, 1), math.nan),
                np.where(used, total_overlap / np.maximum(count, 1), math.nan))


class _Background:
    """A function run in a daemon thread; :meth:`result` waits for it (and re-raises its error)."""

    def __init__(self, function: Callable[..., Any], *args: Any) -> None:
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(function, args), daemon=True)
        self._thread.start()

    def _run(self, function: Callable[..., Any], args: tuple) -> None:
        try:
            self._result = function(*args)
        except BaseException as error:  # handed to the caller of result()
            self._error = error

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def sample_set(samples: Sequence[RatedSample]) -> SampleSet:
    """``samples`` as a :class:`SampleSet` (itself when it is one already).

    Examples:
        >>> rated = sample_set([])
        >>> sample_set(rated) is rated, len(rated)
        (True, 0)
    """
    return samples if isinstance(samples, SampleSet) else SampleSet(samples)


def take_rows(rows: Mapping[str, np.ndarray], index: np.ndarray) -> Rows:
    """The rows ``index`` of every array.

    Examples:
        >>> take_rows({"w1": np.array([1.0, 2.0, 3.0])}, np.array([2, 0]))["w1"].tolist()
        [3.0, 1.0]
    """
    return {name: values[index] for name, values in rows.items()}


def concat_rows(first: Mapping[str, np.ndarray], second: Mapping[str, np.ndarray]) -> Rows:
    """``first``'s rows, then ``second``'s. Arrays padded along a second axis (the curve
    values' k) are NaN-padded to the wider of the two.

    Examples:
        >>> concat_rows({"v": np.zeros((1, 2))}, {"v": np.ones((1, 3))})["v"].tolist()
        [[0.0, 0.0, nan], [1.0, 1.0, 1.0]]
    """
    out: Rows = {}
    for name, a in first.items():
        b = second[name]
        if a.ndim >= 2 and a.shape[1] != b.shape[1]:
            width = max(a.shape[1], b.shape[1])
            a, b = (_pad(x, width) for x in (a, b))
        out[name] = np.concatenate((a, b))
    return out


def _pad(values: np.ndarray, width: int) -> np.ndarray:
    if values.shape[1] == width:
        return values
    pad = np.full((values.shape[0], width - values.shape[1], *values.shape[2:]), math.nan)
    return np.concatenate((values.astype(float), pad), axis=1)


def group_sums(values: np.ndarray, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the sum of ``values`` (shape (n,) → (n_groups,), (n, c) → (n_groups, c)).

    Examples:
        >>> group_sums(np.array([[1, 2], [3, 4], [5, 6]]), np.array([0, 1, 0]), 2).tolist()
        [[6.0, 8.0], [3.0, 4.0]]
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return np.bincount(labels, weights=values, minlength=n_groups)
    flat = values.reshape(values.shape[0], int(np.prod(values.shape[1:])))
    out = np.stack([np.bincount(labels, weights=flat[:, j], minlength=n_groups)
                    for j in range(flat.shape[1])], axis=1) if flat.shape[1] else np.zeros((n_groups, 0))
    return out.reshape(n_groups, *values.shape[1:])


def group_means(values: np.ndarray, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the mean of the finite entries of ``values`` (n,), NaN where none.

    Examples:
        >>> group_means(np.array([1.0, np.nan, 3.0, 4.0]), np.array([0, 0, 0, 1]), 3).tolist()
        [2.0, 4.0, nan]
    """
    finite = np.isfinite(values)
    total = np.bincount(labels, weights=np.where(finite, values, 0.0), minlength=n_groups)
    count = np.bincount(labels, weights=finite.astype(float), minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), math.nan)


def mode_raters(n_ratings: np.ndarray) -> int:
    """:func:`~annotation.agreement.ratings.raters_per_sample` from the ratings counts: the most
    common count (ties → the smaller), at least 2.

    Examples:
        >>> mode_raters(np.array([2, 3, 3])), mode_raters(np.array([2, 3])), mode_raters(np.array([], int))
        (3, 2, 2)
    """
    if n_ratings.size == 0:
        return 2
    counts = np.bincount(n_ratings)
    return max(2, int(np.flatnonzero(counts == counts.max())[0]))


__all__ = [
    "N_AXES",
    "Rows",
    "SampleSet",
    "concat_rows",
    "group_means",
    "group_sums",
    "mode_raters",
    "pairwise_curve_distances",
    "sample_set",
    "take_rows",
]
