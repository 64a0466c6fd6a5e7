"""A curve's q-gone points (:func:`annotation.curves.half_gone.gone_x`) and its five gone
quantiles, against the closed form of the normal and the definition on skewed curves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.curves.density import _standard_modes
from annotation.curves.half_gone import gone_quantiles_x, gone_x, half_gone_x, log_relative_density


def test_a_normal_curves_q_gone_point_is_the_closed_form():
    q = np.array([0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99])
    x = gone_x(np.array([[70.0, 8.0, 0.0]]), q)[0]
    assert x == pytest.approx(70.0 + 8.0 * np.sqrt(-2 * np.log1p(-q)), abs=1e-9)


@pytest.mark.parametrize("alpha", [-6.0, -1.0, 2.0, 9.0])
def test_a_skewed_curve_has_fallen_to_one_minus_q_of_its_peak(alpha):
    params = np.array([[90.0, 15.0, alpha]])
    q = np.array([0.05, 0.5, 0.95])
    x = gone_x(params, q)[0]
    peak = 90.0 + 15.0 * float(_standard_modes(np.array([alpha]))[0])
    drop = log_relative_density(x, 90.0, 15.0, alpha) - log_relative_density(np.array(peak), 90.0, 15.0, alpha)
    assert np.exp(drop) == pytest.approx(1 - q, abs=1e-9)
    assert np.all(np.diff(x) > 0) and x[0] > peak


def test_half_gone_is_the_half_level_and_the_quantiles_are_ordered_and_clamped():
    rng = np.random.default_rng(0)
    params = np.c_[rng.uniform(-20, 230, 300), rng.uniform(0.5, 60, 300), rng.uniform(-15, 15, 300)]
    assert np.array_equal(half_gone_x(params), gone_x(params, 0.5)[:, 0], equal_nan=True)
    quantiles = gone_quantiles_x(params)
    assert quantiles.shape == (300, 5)
    assert np.all(np.diff(quantiles, axis=1) >= 0) and np.all(quantiles <= 200.0)
    unclamped = gone_quantiles_x(params, clamp=False)
    assert np.isinf(unclamped).any()
    assert np.array_equal(np.where(np.isinf(unclamped), 200.0, unclamped), quantiles)


def test_undefined_curves_give_nan_and_impossible_levels_raise():
    assert np.isnan(gone_x(np.array([[math.nan, 1.0, 0.0], [1.0, 0.0, 0.0]]), [0.5])).all()
    for bad in (0.0, 1.0, -0.1, math.nan, []):
        with pytest.raises(ValueError, match="q must"):
            gone_x(np.array([[50.0, 10.0, 0.0]]), bad)
    with pytest.raises(ValueError, match="increasing"):
        gone_quantiles_x(np.array([[50.0, 10.0, 0.0]]), (0.5, 0.25))
    with pytest.raises(ValueError, match="shape"):
        gone_x(np.array([50.0, 10.0]), 0.5)
