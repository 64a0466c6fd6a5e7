"""Consistency across similar texts (issue 12 item 7), the pure search: a hand example, the
blocked search against the obvious N×N one, the thresholds, the limit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from annotation.agreement import W1_RULE
from annotation.corpus.consistency import axes_used, find_inconsistent_pairs, similar_pairs
from annotation.curves.distance import curve_distance

MAIN, STATIC = frozenset({"main"}), frozenset({"static", "main"})


def test_hand_example_with_three_tiny_vectors():
    # cos(0, 1) = 0.6·0.8 + 0.8·0.6 = 0.96; cos(0, 2) = 0.6; cos(1, 2) = 0.8
    vectors = np.array([[0.6, 0.8], [0.8, 0.6], [1.0, 0.0]])
    params = np.array([[50.0, 8.0, 0.0], [65.0, 8.0, 0.0], [50.0, 8.0, 0.0]])
    axes = [MAIN, MAIN, STATIC]
    pairs = find_inconsistent_pairs(vectors, params, axes, similarity_min=0.9, w1_max=12.0)
    assert [(p.first, p.second) for p in pairs] == [(0, 1)]
    (p,) = pairs
    assert p.similarity == pytest.approx(0.96, abs=1e-6)
    assert p.w1 == pytest.approx(15.0, abs=1e-6) and p.shift == pytest.approx(15.0, abs=1e-6)
    assert (p.curves_differ, p.axes_differ) == (True, False)
    assert p.w1 == pytest.approx(curve_distance((50.0, 8.0, 0.0), (65.0, 8.0, 0.0)).w1, abs=1e-6)
    # 1 and 2 use different axes, but 0.8 is below the similarity threshold: not a pair
    assert find_inconsistent_pairs(vectors, params, axes, similarity_min=0.8, w1_max=12.0)[1].axes_differ
    # a W1 of 15 within a threshold of 15 (at most passes, as the curve-distance flag reads it)
    assert W1_RULE.holds(15.0, 15.0)
    assert find_inconsistent_pairs(vectors, params, axes, similarity_min=0.9, w1_max=15.5) == []


def test_similarity_threshold_is_inclusive():
    vectors = np.array([[0.6, 0.8], [0.8, 0.6]], dtype=np.float32)
    sim = float(vectors[0] @ vectors[1])
    assert [i.tolist() for i, _, _ in similar_pairs(vectors, sim)] == [[0]]
    assert list(similar_pairs(vectors, min(1.0, sim + 1e-6))) == []


def test_vectors_need_not_be_normalised_and_zero_rows_match_nothing():
    vectors = np.array([[3.0, 4.0], [6.0, 8.0], [0.0, 0.0]])
    found = [(int(i), int(j)) for a, b, _ in similar_pairs(vectors, 0.99) for i, j in zip(a, b)]
    assert found == [(0, 1)]


def _bruteforce(vectors, params, axes, similarity_min, w1_max):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = (unit @ unit.T).astype(np.float32)
    out = []
    for i, j in itertools.combinations(range(len(vectors)), 2):
        if sims[i, j] < np.float32(similarity_min):
            continue
        w1 = curve_distance(tuple(params[i]), tuple(params[j])).w1
        if not W1_RULE.holds(w1, w1_max) or axes[i] != axes[j]:
            out.append((i, j))
    return sorted(out)


@pytest.mark.parametrize("block, tile", [(1, 1), (3, 5), (7, 4), (1024, 4096)])
def test_blocked_search_equals_the_obvious_one(block, tile):
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(6, 16))
    vectors = centres[rng.integers(0, 6, 60)] + rng.normal(scale=0.15, size=(60, 16))
    params = np.column_stack([rng.uniform(40, 80, 60), rng.uniform(5, 12, 60), rng.uniform(-2, 2, 60)])
    axes = [MAIN if rng.random() < 0.8 else STATIC for _ in range(60)]
    pairs = find_inconsistent_pairs(vectors, params, axes, similarity_min=0.9, w1_max=12.0,
                                     block=block, tile=tile)
    expected = _bruteforce(vectors, params, axes, 0.9, 12.0)
    assert expected and sorted((p.first, p.second) for p in pairs) == expected
    sims = [p.similarity for p in pairs]
    assert sims == sorted(sims, reverse=True)
    # the limit keeps the most similar ones, however the blocks fell
    top = find_inconsistent_pairs(vectors, params, axes, similarity_min=0.9, w1_max=12.0,
                                  block=block, tile=tile, limit=3)
    assert [(p.first, p.second) for p in top] == [(p.first, p.second) for p in pairs[:3]]


def test_axes_used_reads_lists_single_axes_and_unlabelled_segments():
    assert axes_used([["static"], ["main", "opinion"]]) == {"static", "main", "opinion"}
    assert axes_used(["main", None]) == {"main"}
    assert axes_used([]) == frozenset()


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        list(similar_pairs(np.ones((2, 2)), 0.0))
    with pytest.raises(ValueError):
        find_inconsistent_pairs(np.ones((2, 2)), np.ones((3, 3)), [MAIN] * 2, similarity_min=0.9, w1_max=12.0)
    with pytest.raises(ValueError):
        find_inconsistent_pairs(np.ones((2, 2)), np.ones((2, 3)), [MAIN] * 2, similarity_min=0.9,
                                w1_max=12.0, limit=0)
