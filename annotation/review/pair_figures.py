"""What the automatic flag rules measure on each pair of a sample's annotations — W1 and the
shift of their curves, Pk of their segmentations — and those figures for many samples at once.

Settling one sample at a submit lets :mod:`annotation.review.flags` measure its one pair; settling a
chunk of a thousand samples (``annotation.services.review.resolving``) measures all their pairs here
in one vectorised pass first, which is most of the work saved.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from annotation.agreement.segment_agreement import pk_both_ways_many
from annotation.curves.distance import curve_distances
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation, SegmentationError

ParameterTriple = tuple[float, float, float]


@dataclass(frozen=True)
class PairFigures:
    """What the automatic rules measure on one pair of annotations: W1 and the signed shift of
    their curves (NaN without both curves) and Pk of their segmentations (NaN without both)."""

    w1: float
    shift: float
    pk: float


def pair_figures(samples: Sequence[tuple[int, Sequence[AnnotationContent]]]
                 ) -> list[dict[tuple[int, int], PairFigures]]:
    """The figures of every pair of annotations of every sample (``(n_tokens, annotations)``),
    computed for all samples at once — the curves' W1 in one vectorised pass
    (:func:`annotation.curves.distance.curve_distances`), Pk with numpy
    (:func:`annotation.agreement.pk_both_ways_many`) — as :func:`flags_for_sample` takes them.

    Examples:
        >>> a = AnnotationContent(boundaries=(0, 5), segment_axes=("main", "static"), xi=50.0, omega=10.0, alpha=0.0)
        >>> b = AnnotationContent(boundaries=(0,), segment_axes=("main",), xi=60.0, omega=10.0, alpha=0.0)
        >>> f = pair_figures([(10, [a, b])])[0][(0, 1)]
        >>> round(f.w1, 3), round(f.shift, 3), f.pk
        (10.0, 10.0, 0.625)
    """
    keys: list[tuple[int, int, int]] = []
    segs_of, params_of = [], []
    for s, (n_tokens, contents) in enumerate(samples):
        segs_of.append(usable_segmentations(contents, n_tokens))
        params_of.append([parameters_of(a) for a in contents])
        keys += [(s, i, j) for i, j in itertools.combinations(range(len(contents)), 2)]
    w1 = np.full(len(keys), np.nan)
    shift = np.full(len(keys), np.nan)
    pk = np.full(len(keys), np.nan)
    curves = [k for k, (s, i, j) in enumerate(keys) if params_of[s][i] and params_of[s][j]]
    if curves:
        a = np.array([params_of[keys[k][0]][keys[k][1]] for k in curves], dtype=float)
        b = np.array([params_of[keys[k][0]][keys[k][2]] for k in curves], dtype=float)
        w1[curves], _, shift[curves] = curve_distances(a, b)
    both = [k for k, (s, i, j) in enumerate(keys) if segs_of[s][i] and segs_of[s][j]]
    if both:
        pk[both] = pk_both_ways_many([segs_of[keys[k][0]][keys[k][1]].n_tokens for k in both],
                                     [segs_of[keys[k][0]][keys[k][1]].boundaries for k in both],
                                     [segs_of[keys[k][0]][keys[k][2]].boundaries for k in both])
    out: list[dict[tuple[int, int], PairFigures]] = [{} for _ in samples]
    for (s, i, j), d, sh, p in zip(keys, w1.tolist(), shift.tolist(), pk.tolist()):
        out[s][(i, j)] = PairFigures(d, sh, p)
    return out


def usable_segmentations(annotations: Sequence[AnnotationContent], n_tokens: int) -> list[Segmentation | None]:
    """Each annotation's segmentation for the segmentation rules, or None: one left unfinished
    (flagged before labelling: its one-segment placeholder is not a judgement to compare) or
    whose boundaries do not fit the text.

    Examples:
        >>> done = AnnotationContent(boundaries=(0, 2), segment_axes=("main", "static"))
        >>> unlabelled = AnnotationContent(boundaries=(0, 2), segment_axes=("main", None))
        >>> off_the_text = AnnotationContent(boundaries=(0, 9), segment_axes=("main", "static"))
        >>> [s is not None for s in usable_segmentations([done, unlabelled, off_the_text], 4)]
        [True, False, False]
    """
    segs: list[Segmentation | None] = []
    for a in annotations:
        if None in a.segment_axes:
            segs.append(None)
            continue
        try:
            segs.append(_segmentation(tuple(a.boundaries), n_tokens))
        except SegmentationError:
            segs.append(None)
    return segs


@lru_cache(maxsize=8192)
def _segmentation(boundaries: tuple[int, ...], n_tokens: int) -> Segmentation:
    # a chunk of samples is measured here and flagged in annotation.review.flags: build each once
    return Segmentation.from_boundaries(boundaries, n_tokens)


def parameters_of(a: AnnotationContent) -> ParameterTriple | None:
    """The annotation's ``(ξ, ω, α)``, or None without a curve.

    Examples:
        >>> parameters_of(AnnotationContent()) is None
        True
    """
    return (a.xi, a.omega, a.alpha) if a.has_parameters else None
