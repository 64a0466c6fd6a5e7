"""An annotator's version against the gold: segmentation differences, scores and trend, by hand."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from annotation.agreement import Rating, label_set_jaccard, pk_both_ways
from annotation.curves.distance import CurveDistance, curve_distance
from annotation.quality.gold_feedback import (
    AxisDifference,
    GoldScore,
    MineAndGold,
    compare_with_gold,
    describe_against_gold,
    mean_scores,
    score_against_gold,
    weekly_trend,
)
from annotation.segmentation import Segmentation, SegmentationError

MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)  # ISO week 2026-W45


def pair(**changes) -> MineAndGold:
    base = MineAndGold(MONDAY, 10, (0, 5), ("main", "static"), 50.0, 10.0, 0.0,
                       (0, 5), (("main",), ("static",)), 50.0, 10.0, 0.0)
    return replace(base, **changes)


# --- compare_with_gold ------------------------------------------------------------------------

def test_identical_versions_have_no_difference():
    d = compare_with_gold((0, 3, 7), ("main", "static", "main"), (0, 3, 7), (("main",), ("static",), ("main",)), 10)
    assert d.shared == (3, 7) and d.only_mine == () and d.only_gold == () and d.axes == ()
    assert d.identical and d.same_boundaries


def test_boundaries_only_in_mine_and_only_in_gold():
    # mine: | 0 1 2 | 3 4 5 6 7 8 9 |   gold: | 0 1 2 3 4 5 | 6 7 8 9 |
    d = compare_with_gold((0, 3), ("main", "main"), (0, 6), (("main",), ("main",)), 10)
    assert (d.shared, d.only_mine, d.only_gold) == ((), (3,), (6,))
    assert d.axes == () and not d.identical  # same axis everywhere, different boundaries


def test_axis_runs_follow_the_tokens_not_the_segments():
    # mine: main on 0–4, static on 5–9; gold: main on 0–2, static on 3–9 → tokens 3, 4 differ
    d = compare_with_gold((0, 5), ("main", "static"), (0, 3), (("main",), ("static",)), 10)
    assert d.axes == (AxisDifference(3, 5, "main", ("static",)),)
    assert (d.only_mine, d.only_gold) == ((5,), (3,))


def test_a_gold_union_differs_from_one_axis_and_an_unlabelled_segment_differs():
    d = compare_with_gold((0, 2, 6), ("main", None, "static"), (0, 6),
                          (("main", "generic"), ("static",)), 8)
    # tokens 0–1: main vs {main, generic}; 2–5: unlabelled vs {main, generic}; 6–7 agree
    assert d.axes == (AxisDifference(0, 2, "main", ("main", "generic")),
                      AxisDifference(2, 6, None, ("main", "generic")))
    assert (d.shared, d.only_mine, d.only_gold) == ((6,), (2,), ())


def test_adjacent_tokens_with_the_same_difference_make_one_run_across_my_boundary():
    d = compare_with_gold((0, 4), ("opinion", "opinion"), (0,), (("main",),), 8)
    assert d.axes == (AxisDifference(0, 8, "opinion", ("main",)),)


def test_a_segmentation_that_does_not_fit_the_text_is_refused():
    with pytest.raises(SegmentationError):
        compare_with_gold((0, 12), ("main", "main"), (0,), (("main",),), 10)
    with pytest.raises(SegmentationError):
        compare_with_gold((0, 4), ("main",), (0,), (("main",),), 10)


# --- score_against_gold -----------------------------------------------------------------------

def test_a_shifted_curve_is_its_shift_away_and_segments_score_as_the_agreement_measures():
    [s] = score_against_gold([pair(gold_xi=57.5)])
    assert s.w1 == pytest.approx(7.5, abs=1e-3) and s.shift == pytest.approx(7.5, abs=1e-3)  # the grid's precision
    assert s.w1 == pytest.approx(curve_distance((50.0, 10.0, 0.0), (57.5, 10.0, 0.0)).w1, abs=1e-9)
    assert (s.jaccard, s.pk) == (1.0, 0.0)
    assert describe_against_gold(s.distance) == "the gold curve sits ≈ ×2.0 later than yours"


def test_jaccard_and_pk_by_hand():
    # mine: one segment, main on all 10 tokens; gold 5 + 5, main | static.
    # Jaccard: 5 tokens agree → 5 / (20 − 5) = 1/3. Pk: 0.625 (see pk_both_ways' example).
    [s] = score_against_gold([pair(boundaries=(0,), segment_axes=("main",))])
    assert s.jaccard == pytest.approx(1 / 3) and s.pk == pytest.approx(0.625)
    # the same figures as the agreement measures where the gold has one axis per segment
    mine = Rating("me", MONDAY, (0,), ("main",))
    gold = Rating("gold", MONDAY, (0, 5), ("main", "static"))
    assert s.jaccard == pytest.approx(label_set_jaccard(mine, gold, 10))
    assert s.pk == pytest.approx(pk_both_ways(Segmentation.whole(10), Segmentation.from_masses((5, 5))))


def test_a_gold_union_counts_every_axis_of_its_segment():
    # gold: one segment with {main, static} on 4 tokens = 8 pairs; mine: main on all 4 →
    # 4 shared / (4 + 8 − 4) = 0.5
    [s] = score_against_gold([pair(n_tokens=4, boundaries=(0,), segment_axes=("main",),
                                   gold_boundaries=(0,), gold_segment_axes=(("main", "static"),))])
    assert s.jaccard == pytest.approx(0.5) and s.pk == 0.0


def test_no_curve_and_unfitting_segments_give_nan_figures():
    no_curve, bad = score_against_gold([pair(xi=None, omega=None, alpha=None),
                                        pair(boundaries=(0, 11), segment_axes=("main", "static"))])
    assert math.isnan(no_curve.w1) and no_curve.distance is None and no_curve.jaccard == 1.0
    assert math.isnan(bad.jaccard) and math.isnan(bad.pk) and bad.w1 == pytest.approx(0.0, abs=1e-9)
    assert score_against_gold([]) == []


# --- wording and trend ------------------------------------------------------------------------

def test_the_distance_in_words():
    assert describe_against_gold(CurveDistance(12.2, 0.4, -12.2)) == "the gold curve sits ≈ ×3.2 earlier than yours"
    assert describe_against_gold(CurveDistance(0.3, 0.98, 0.3)) == "your curve and the gold curve coincide"
    assert "spread, not position" in describe_against_gold(CurveDistance(6.0, 0.6, 1.0))


def test_a_curve_off_the_time_axis_is_not_called_no_curve():
    # the axis ends at 200 log-time units: a narrow curve at 250 has no mass on it, so no distance
    [off] = score_against_gold([pair(xi=250.0, omega=1.0, alpha=0.0)])
    assert off.distance is None
    assert describe_against_gold(off.distance, drew_curve=True) == (
        "no distance: your curve or the gold curve lies off the time axis")
    assert describe_against_gold(None) == "you drew no curve"


def test_weekly_means_skip_undefined_figures():
    nan = math.nan
    week45 = [pair(), pair(submitted_at=datetime(2026, 11, 8, 23, 0, tzinfo=timezone.utc))]
    week46 = [pair(submitted_at=datetime(2026, 11, 9, 0, 30, tzinfo=timezone.utc))]
    scores = [GoldScore(2.0, 0.9, 2.0, 1.0, 0.1), GoldScore(nan, nan, nan, 0.5, nan),
              GoldScore(4.0, 0.7, -4.0, 0.25, 0.3)]
    w45, w46 = weekly_trend(week45 + week46, scores)
    assert (w45.week, w45.n, w45.w1, w45.jaccard, w45.pk) == ("2026-W45", 2, 2.0, 0.75, 0.1)
    assert (w46.week, w46.n, w46.w1, w46.jaccard, w46.pk) == ("2026-W46", 1, 4.0, 0.25, 0.3)
    overall = mean_scores(scores)
    assert (overall.n, overall.w1, overall.jaccard) == (3, 3.0, pytest.approx(1.75 / 3))
    assert overall.pk == pytest.approx(0.2)
    assert mean_scores([]).w1 is None
    with pytest.raises(ValueError):
        weekly_trend(week45, scores)
