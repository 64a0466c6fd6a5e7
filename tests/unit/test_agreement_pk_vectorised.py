"""The vectorised Pk (``pk_both_ways_many``, behind the export card's headline) is segeval's
``pk`` both ways averaged — the per-pair :func:`pk_both_ways` — on many random segmentations."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from annotation.agreement import RatedSample, Rating, SegmentationMeasure, pk_both_ways
from annotation.agreement.segment_agreement import clear_cache, pk_both_ways_many
from annotation.segmentation import Segmentation
from tests.unit.test_agreement import T0


def _random_boundaries(rng: random.Random, n_tokens: int) -> tuple[int, ...]:
    n_segments = rng.choice([1, 1, 2, 3, 4, 6, max(1, n_tokens // 2), n_tokens])
    n_segments = min(n_segments, n_tokens)
    return (0, *sorted(rng.sample(range(1, n_tokens), n_segments - 1)))


def _random_pairs(seed: int, n: int) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        # many short texts (1–6 tokens: windows that do not fit, window size 2 forced), and
        # longer ones whose segment counts give window sizes from 2 to tens, ties at .5 included
        n_tokens = rng.choice([1, 2, 3, 4, 5, 6, rng.randint(7, 40), rng.randint(41, 240)])
        a = _random_boundaries(rng, n_tokens)
        b = a if rng.random() < 0.1 else _random_boundaries(rng, n_tokens)
        pairs.append((n_tokens, a, b))
    return pairs


def _reference(n_tokens: int, a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return pk_both_ways(Segmentation(a, n_tokens), Segmentation(b, n_tokens))


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_pk_equals_segeval_on_random_segmentations(seed):
    pairs = _random_pairs(seed, 1500)
    got = pk_both_ways_many([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs])
    want = np.array([_reference(*p) for p in pairs])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.nanmax(np.abs(got - want)) <= 1e-9
    assert np.isnan(want).any() and (want == 0).any() and (want > 0).any()  # every case was met


@pytest.mark.parametrize("n_tokens,a,b", [
    (1, (0,), (0,)),                 # one token: identical → 0
    (2, (0,), (0, 1)),               # no window fits → NaN
    (3, (0,), (0, 1, 2)),            # window 2 from the whole text, 1 from… at least 2 → NaN
    (5, (0,), (0, 2)),               # windows 2 and 1→2: one position fits
    (12, (0, 3, 6, 9), (0, 6)),      # window 12/8 = 1.5 → 2 and 12/4 = 3
    (10, (0, 5), (0, 2, 4, 6, 8)),   # 10/4 = 2.5 → 2 (half to even) and 10/10 = 1 → 2
    (14, (0, 7), (0, 2)),            # 14/4 = 3.5 → 4 (half to even)
    (11, (0, 2, 5), (0, 5)),         # the SPEC example: (2/8 + 2/9) / 2
])
def test_vectorised_pk_edge_cases(n_tokens, a, b):
    got = pk_both_ways_many([n_tokens], [a], [b])[0]
    want = _reference(n_tokens, a, b)
    assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= 1e-9


def test_vectorised_pk_of_no_pairs():
    assert pk_both_ways_many([], [], []).shape == (0,)


def test_headline_pk_measure_equals_the_full_measure():
    """SegmentationMeasure(pk_only=True) — the card's headline — gives the full measure's Pk,
    per sample and overall, for samples with 1, 2 and 3 ratings."""
    rng = random.Random(7)
    samples = []
    for i, (n_tokens, a, b) in enumerate(_random_pairs(11, 400)):
        ratings = [Rating("x", T0, a, ("main",) * len(a), 1.0, 1.0, 1.0),
                   Rating("y", T0, b, ("main",) * len(b), 1.0, 1.0, 1.0)]
        if i % 5 == 0:
            c = _random_boundaries(rng, n_tokens)
            ratings.append(Rating("z", T0, c, ("main",) * len(c), 1.0, 1.0, 1.0))
        samples.append(RatedSample(f"s{i}", 1, n_tokens, tuple(ratings[: 1 if i % 17 == 0 else None])))
    clear_cache()
    full = SegmentationMeasure().compute(samples)
    head = SegmentationMeasure(pk_only=True).compute(samples)
    assert head.pk == pytest.approx(full.pk, abs=1e-12)
    assert (head.n_samples, head.n_pairs, head.n_undefined) == (full.n_samples, full.n_pairs, full.n_undefined)
    a = SegmentationMeasure().per_sample(samples)["pk"]
    b = SegmentationMeasure(pk_only=True).per_sample(samples)["pk"]
    assert np.array_equal(np.isnan(a), np.isnan(b)) and np.nanmax(np.abs(a - b)) <= 1e-12


def test_pooled_token_label_pairs_equal_the_per_rating_codes():
    """token_label_pairs (built for all pairs at once) holds, pair by pair, exactly the
    token_axis_codes of each rating — for 1-token texts, 3 raters and unlabelled ratings too."""
    from annotation.agreement.ratings import token_axis_codes, token_label_pairs
    from annotation.axes import AXIS_NAMES

    rng = random.Random(3)
    samples = []
    for i, (n_tokens, a, b) in enumerate(_random_pairs(5, 300)):
        def labelled(bounds, who, hours):
            return Rating(who, T0, bounds, tuple(rng.choice(AXIS_NAMES) for _ in bounds), 1.0, 1.0, 1.0)
        ratings = [labelled(a, "x", 0), labelled(b, "y", 1)]
        if i % 4 == 0:
            ratings.append(labelled(_random_boundaries(rng, n_tokens), "z", 2))
        if i % 9 == 0:  # unlabelled: left out
            ratings[1] = Rating("y", T0, b, (None,) * len(b), 1.0, 1.0, 1.0)
        samples.append(RatedSample(f"s{i}", 1, n_tokens, tuple(ratings)))
    pairs = token_label_pairs(samples)
    expected_first, expected_second, expected_sample = [], [], []
    import itertools

    for i, smp in enumerate(samples):
        usable = [r for r in smp.ratings if r.has_axis_labels]
        for x, y in itertools.combinations(usable, 2):
            expected_sample.append(i)
            expected_first.append(token_axis_codes(x, smp.n_tokens))
            expected_second.append(token_axis_codes(y, smp.n_tokens))
    assert pairs.sample_of_pair.tolist() == expected_sample
    assert np.array_equal(pairs.first, np.concatenate(expected_first))
    assert np.array_equal(pairs.second, np.concatenate(expected_second))
    assert np.array_equal(np.bincount(pairs.pair_of_token), [len(x) for x in expected_first])


def test_pk_both_ways_is_the_full_comparisons_pk_without_computing_the_rest(monkeypatch):
    """pk_both_ways (behind the automatic Pk flag at submit) gives compare_segmentations' Pk
    exactly, and never calls segeval's WindowDiff or boundary similarity."""
    import segeval

    from annotation.agreement import compare_segmentations

    pairs = _random_pairs(21, 300)
    clear_cache()
    full = [compare_segmentations(Segmentation(a, n), Segmentation(b, n)).pk for n, a, b in pairs]
    clear_cache()

    def not_needed(*args, **kwargs):
        raise AssertionError("Pk alone was asked for")

    monkeypatch.setattr(segeval, "window_diff", not_needed)
    monkeypatch.setattr(segeval, "boundary_similarity", not_needed)
    alone = [pk_both_ways(Segmentation(a, n), Segmentation(b, n)) for n, a, b in pairs]
    assert np.array_equal(np.array(full), np.array(alone), equal_nan=True)
    with pytest.raises(ValueError):
        pk_both_ways(Segmentation((0,), 3), Segmentation((0,), 4))


@pytest.mark.parametrize("seed", range(3))
def test_vectorised_window_diff_and_boundary_similarity_equal_segeval(seed):
    """The report's WindowDiff (vectorised) and B (segeval's algorithm for one boundary type)
    are segeval's ``window_diff`` both ways and ``boundary_similarity`` — to 1e-9."""
    from annotation.agreement import compare_segmentations
    from annotation.agreement.segment_agreement import boundary_similarity_many, window_measures_many

    pairs = _random_pairs(100 + seed, 1200)
    rng = random.Random(seed)
    for i in range(0, len(pairs), 3):  # near misses: one boundary moved by one token
        n_tokens, a, _ = pairs[i]
        if len(a) > 1:
            moved = sorted({*a[1:-1], min(n_tokens - 1, a[-1] + rng.choice((-1, 1)))} - {0})
            pairs[i] = (n_tokens, a, (0, *moved))
    n, a, b = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
    pk, wd = window_measures_many(n, a, b)
    bs = boundary_similarity_many(n, a, b)
    want = [compare_segmentations(Segmentation(x, t), Segmentation(y, t)) for t, x, y in pairs]
    for got, field in ((pk, "pk"), (wd, "window_diff"), (bs, "boundary_similarity")):
        expected = np.array([getattr(w, field) for w in want])
        assert np.array_equal(np.isnan(got), np.isnan(expected)), field
        assert np.nanmax(np.abs(got - expected)) <= 1e-9, field
    assert ((bs > 0) & (bs < 1)).any()
