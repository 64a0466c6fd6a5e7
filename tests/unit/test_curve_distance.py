"""Curve distance (issue 12 item 1): W1 and overlap between two normalised validity curves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from annotation.curves import CurveFitError
from annotation.curves.distance import (
    DISTANCE_GRID,
    CurveDistance,
    curve_distance,
    curve_distances,
    curve_masses,
)


@pytest.mark.parametrize("shift", [0.5, 3.0, 12.25, 40.0])
@pytest.mark.parametrize("alpha", [0.0, 4.0, -6.0])
def test_w1_of_two_shifted_identical_curves_is_the_shift(shift, alpha):
    a = (60.0, 8.0, alpha)
    b = (60.0 + shift, 8.0, alpha)
    d = curve_distance(a, b)
    assert d.w1 == pytest.approx(shift, abs=1e-6)
    assert d.shift == pytest.approx(shift, abs=1e-6)
    assert curve_distance(b, a).shift == pytest.approx(-shift, abs=1e-6)
    assert d.time_factor == pytest.approx(1.1 ** shift, rel=1e-6)


def test_identical_curves_have_distance_zero_and_overlap_one():
    d = curve_distance((80.0, 15.0, 3.0), (80.0, 15.0, 3.0))
    assert d.w1 == pytest.approx(0.0, abs=1e-12)
    assert d.overlap == pytest.approx(1.0, abs=1e-12)
    assert d.describe() == "the two curves coincide"


def test_overlap_of_two_normals_matches_the_closed_form():
    # two normals of equal σ, means Δ apart, overlap 2Φ(−Δ/2σ) (Inman & Bradley 1989)
    d = curve_distance((90.0, 10.0, 0.0), (110.0, 10.0, 0.0))
    assert d.overlap == pytest.approx(2 * stats.norm.cdf(-1.0), abs=2e-3)


def test_disjoint_curves_have_no_overlap():
    assert curve_distance((20.0, 1.0, 0.0), (180.0, 1.0, 0.0)).overlap == pytest.approx(0.0, abs=1e-12)


def test_w1_equals_scipy_on_the_weighted_grid_and_the_vectorised_sum_to_1e9():
    rng = np.random.default_rng(20261124)
    a = rng.uniform([10, 1, -8], [190, 40, 8], (300, 3))
    b = rng.uniform([10, 1, -8], [190, 40, 8], (300, 3))
    w1, overlap, shift = curve_distances(a, b)
    for i in range(0, 300, 17):
        ma, mb = curve_masses(np.array([a[i], b[i]]))
        expected = stats.wasserstein_distance(DISTANCE_GRID, DISTANCE_GRID, ma, mb)
        assert w1[i] == pytest.approx(expected, abs=1e-9)
        single = curve_distance(tuple(a[i]), tuple(b[i]))
        assert single.w1 == pytest.approx(w1[i], abs=1e-9)
        assert single.overlap == pytest.approx(overlap[i], abs=1e-9)
        assert single.shift == pytest.approx(shift[i], abs=1e-9)


def test_w1_is_a_metric_on_sampled_curves():
    rng = np.random.default_rng(7)
    p = rng.uniform([30, 2, -5], [170, 30, 5], (50, 3))
    for i in range(0, 48, 3):
        ab = curve_distance(tuple(p[i]), tuple(p[i + 1])).w1
        bc = curve_distance(tuple(p[i + 1]), tuple(p[i + 2])).w1
        ac = curve_distance(tuple(p[i]), tuple(p[i + 2])).w1
        assert ab == pytest.approx(curve_distance(tuple(p[i + 1]), tuple(p[i])).w1, abs=1e-9)
        assert ac <= ab + bc + 1e-9


def test_undefined_curves_give_nan_rows_not_errors_in_the_vectorised_form():
    w1, overlap, shift = curve_distances(np.array([[50.0, 10.0, 0.0], [np.nan, 10.0, 0.0], [900.0, 1.0, 0.0]]),
                                         np.array([[50.0, 10.0, 0.0]] * 3))
    assert w1[0] == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(w1[1]) and math.isnan(overlap[1]) and math.isnan(shift[1])
    assert math.isnan(w1[2])


def test_a_curve_off_the_axis_or_out_of_bounds_is_refused_with_a_message():
    with pytest.raises(CurveFitError, match="outside the time axis"):
        curve_distance((1000.0, 1.0, 0.0), (50.0, 10.0, 0.0))
    with pytest.raises(CurveFitError):
        curve_distance((50.0, -1.0, 0.0), (50.0, 10.0, 0.0))


def test_shapes_must_match():
    with pytest.raises(ValueError):
        curve_distances(np.zeros((2, 3)), np.zeros((3, 3)))


def test_blocks_give_the_same_figures_as_one_pass(monkeypatch):
    from annotation.curves import distance
    rng = np.random.default_rng(3)
    a = rng.uniform([10, 1, -8], [190, 40, 8], (50, 3))
    b = rng.uniform([10, 1, -8], [190, 40, 8], (50, 3))
    whole = curve_distances(a, b)
    monkeypatch.setattr(distance, "_BLOCK", 7)
    blocked = curve_distances(a, b)
    for x, y in zip(whole, blocked):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)


def test_describe_spread_not_position():
    assert "spread" in CurveDistance(w1=8.0, overlap=0.5, shift=0.5).describe()
