"""Consistency across similar texts: pairs of texts that say nearly the same
thing but whose gold annotations disagree, for the lead to look at. Pure: data in, data out.

Two texts are **similar** when the cosine similarity of their SBERT vectors is at least
``ProjectSettings.consistency_similarity_min`` (0.9 by default). A similar pair is
**inconsistent** when

* their gold curves are further apart than ``ProjectSettings.flag_w1_max`` in Wasserstein-1
  distance (:func:`annotation.curves.curve_distances`, base-1.1 log-time units) — a W1 the
  curve-distance rule does not pass (``annotation.agreement.W1_RULE``: at most the
  threshold passes), or
* their golds use different sets of axes (the union of every segment's axes; a segment may
  carry several).

Scaling: the search never forms an N×N matrix. Rows are taken :data:`BLOCK` at a time and
compared with the rows after them in column tiles of :data:`COLUMN_TILE` (the de-duplication
search's tile), so working memory is a few block × tile float32 arrays whatever N is; only the
pairs above the similarity threshold are kept, their gold compared at once (vectorised W1), and
only the inconsistent ones are returned — at most ``limit`` of them, the most similar first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from annotation.curves.distance import curve_distances
from annotation.corpus.duplicates import COLUMN_TILE

#: rows per block of the search (block × COLUMN_TILE float32 similarities at a time)
BLOCK = 1024


@dataclass(frozen=True)
class InconsistentPair:
    """Texts ``first`` < ``second`` (positions in the input) with cosine ``similarity``; ``w1``,
    ``overlap`` and ``shift`` (second's mean − first's) of their gold curves (NaN when a curve
    is undefined); which of the two differences made the pair inconsistent."""

    first: int
    second: int
    similarity: float
    w1: float
    overlap: float
    shift: float
    curves_differ: bool
    axes_differ: bool


def axes_used(segment_axes: Iterable[object]) -> frozenset[str]:
    """The set of axes a gold uses: every segment's axes together. A segment's entry is a list
    of axes (a gold's), one axis, or None (unlabelled).

    Examples:
        >>> sorted(axes_used([["static"], ["main", "opinion"], None]))
        ['main', 'opinion', 'static']
        >>> sorted(axes_used(["main", None, "main"]))
        ['main']
    """
    used: set[str] = set()
    for entry in segment_axes:
        if entry is None:
            continue
        if isinstance(entry, str):
            used.add(entry)
        else:
            used.update(str(axis) for axis in entry if axis is not None)
    return frozenset(used)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero: similar to nothing)."""
    v = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if v.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array (texts × dimensions), got {v.ndim}-D")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def similar_pairs(vectors: np.ndarray, similarity_min: float, *, block: int = BLOCK,
                  tile: int = COLUMN_TILE) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every pair i < j of rows of ``vectors`` whose cosine similarity is at least
    ``similarity_min``, as ``(i, j, similarity)`` arrays, one group per block × tile step (in
    float32; never an N×N matrix).

    Examples:
        >>> v = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
        >>> [(i.tolist(), j.tolist()) for i, j, s in similar_pairs(v, 0.9)]
        [([0], [1])]
    """
    if not 0.0 < float(similarity_min) <= 1.0:
        raise ValueError(f"the similarity threshold must be in (0, 1], got {similarity_min!r}")
    unit = _unit_rows(vectors)
    n = unit.shape[0]
    limit = np.float32(similarity_min)
    for start in range(0, n, int(block)):
        stop = min(start + int(block), n)
        rows = unit[start:stop]
        for col in range(start, n, int(tile)):
            end = min(col + int(tile), n)
            sims = rows @ unit[col:end].T
            hit = sims >= limit
            if col < stop:  # the block's own columns: only j > i
                hit &= (np.arange(col, end)[None, :] > np.arange(start, stop)[:, None])
            r, c = np.nonzero(hit)
            if r.size:
                yield start + r, col + c, sims[r, c].astype(float)


def find_inconsistent_pairs(vectors: np.ndarray, gold_params: np.ndarray,
                            gold_axes: Sequence[frozenset[str]], *, similarity_min: float,
                            w1_max: float, limit: int | None = None, block: int = BLOCK,
                            tile: int = COLUMN_TILE) -> list[InconsistentPair]:
    """The inconsistent pairs among similar texts (module docstring), the most similar first
    (ties: the smaller indices first), at most ``limit`` of them (None: all).

    ``vectors`` (n × d): SBERT vectors; ``gold_params`` (n × 3): each text's gold ξ, ω, α;
    ``gold_axes``: each text's :func:`axes_used`.

    Examples:
        Three tiny texts: 0 and 1 point the same way but their gold curves sit 20 units apart;
        2 is unlike both.

        >>> vectors = np.array([[1.0, 0.0], [0.98, 0.2], [0.0, 1.0]])
        >>> params = np.array([[50.0, 8.0, 0.0], [70.0, 8.0, 0.0], [50.0, 8.0, 0.0]])
        >>> axes = [frozenset({"main"})] * 3
        >>> [(p.first, p.second, round(p.w1, 3), p.curves_differ, p.axes_differ)
        ...  for p in find_inconsistent_pairs(vectors, params, axes, similarity_min=0.9, w1_max=12.0)]
        [(0, 1, 20.0, True, False)]
    """
    params = np.asarray(gold_params, dtype=float).reshape(-1, 3)
    n = np.asarray(vectors).shape[0]
    if params.shape[0] != n or len(gold_axes) != n:
        raise ValueError(f"one gold per text: {n} vectors, {params.shape[0]} curves, {len(gold_axes)} axis sets")
    if limit is not None and limit < 1:
        raise ValueError(f"the limit must be at least 1, got {limit!r}")
    # each distinct axis set as one code, so two texts' sets compare as integers
    codes: dict[frozenset[str], int] = {}
    axis_code = np.array([codes.setdefault(frozenset(a), len(codes)) for a in gold_axes], dtype=np.int64)
    kept: list[tuple[np.ndarray, ...]] = []
    n_kept = 0
    for i, j, sims in similar_pairs(vectors, similarity_min, block=block, tile=tile):
        w1, overlap, shift = curve_distances(params[i], params[j])
        # W1_RULE passes a distance at most the threshold: the curves differ above it (an
        # undefined curve is not compared)
        with np.errstate(invalid="ignore"):
            curves = np.isfinite(w1) & (w1 > w1_max)
        axes = axis_code[i] != axis_code[j]
        bad = curves | axes
        if bad.any():
            kept.append((i[bad], j[bad], sims[bad], w1[bad], overlap[bad], shift[bad], curves[bad], axes[bad]))
            n_kept += int(bad.sum())
        if limit is not None and n_kept > 4 * limit:  # keep memory bounded: only the best survive
            kept = [_best(kept, limit)]
            n_kept = kept[0][0].size
    if not kept:
        return []
    i, j, sims, w1, overlap, shift, curves, axes = _best(kept, limit)
    return [InconsistentPair(int(a), int(b), float(s), float(d), float(o), float(h), bool(c), bool(x))
            for a, b, s, d, o, h, c, x in zip(i, j, sims, w1, overlap, shift, curves, axes)]


def _best(groups: list[tuple[np.ndarray, ...]], limit: int | None) -> tuple[np.ndarray, ...]:
    """The groups' pairs joined, most similar first (ties by indices), the first ``limit``."""
    columns = tuple(np.concatenate(parts) for parts in zip(*groups))
    order = np.lexsort((columns[1], columns[0], -columns[2]))
    if limit is not None:
        order = order[:limit]
    return tuple(c[order] for c in columns)


__all__ = [
    "BLOCK",
    "InconsistentPair",
    "axes_used",
    "find_inconsistent_pairs",
    "similar_pairs",
]
