"""The linear pool of curves refitted to one skew-normal (issue 12 item 4): identities and
hand-checkable cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.curves.distance import DISTANCE_GRID
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, CurveFitError
from annotation.review.pooling import curve_masses64, pool_curves, pool_versions, pooled_masses
from annotation.review.resolution import POOLED, AnnotatorVersion, Resolution, resolve_pair
from annotation.segmentation import Segmentation


@pytest.mark.parametrize("curve", [(50.0, 10.0, 0.0), (80.0, 25.0, 3.0), (30.0, 4.0, -2.0)])
def test_pooling_two_identical_curves_gives_that_curve_back(curve):
    pooled = pool_curves([curve, curve])
    assert pooled.parameters == pytest.approx(curve, abs=1e-6)
    assert pooled.rmse == pytest.approx(0.0, abs=1e-12)


def test_pooling_one_curve_gives_it_back():
    assert pool_curves([(60.0, 12.0, 1.5)]).parameters == pytest.approx((60.0, 12.0, 1.5), abs=1e-6)


def test_pooling_two_shifted_normals_is_centred_between_them_and_wider():
    pooled = pool_curves([(40.0, 10.0, 0.0), (60.0, 10.0, 0.0)])
    masses = curve_masses64(pooled.parameters)
    centre = float(masses @ DISTANCE_GRID)
    sd = math.sqrt(float(masses @ (DISTANCE_GRID - centre) ** 2))
    assert centre == pytest.approx(50.0, abs=0.05)
    # the pool's own SD is sqrt(10² + 10²) = 14.14; the one skew-normal nearest to it is wider
    # than either input, and about as wide as the pool
    assert pooled.omega > 12.0 and sd == pytest.approx(math.sqrt(200), rel=0.1)
    assert abs(pooled.alpha) < 0.1


def test_the_pool_is_the_mean_of_the_normalised_masses():
    a, b = (40.0, 10.0, 0.0), (90.0, 20.0, 2.0)
    pool = pooled_masses([a, b])
    assert pool.sum() == pytest.approx(1.0)
    assert pool == pytest.approx((curve_masses64(a) + curve_masses64(b)) / 2)


def test_the_refit_stays_inside_the_fit_bounds():
    pooled = pool_curves([(199.0, 0.5, 20.0), (-5.0, 200.0, -20.0)])
    assert XI_BOUNDS[0] <= pooled.xi <= XI_BOUNDS[1]
    assert OMEGA_BOUNDS[0] <= pooled.omega <= OMEGA_BOUNDS[1]
    assert ALPHA_BOUNDS[0] <= pooled.alpha <= ALPHA_BOUNDS[1]


def test_no_curve_on_the_axis_cannot_be_pooled():
    with pytest.raises(CurveFitError):
        pool_curves([])
    with pytest.raises(CurveFitError):
        pool_curves([(-90.0, 0.5, 0.0)])   # all its mass far left of the axis


def test_pooled_resolution_keeps_the_union_and_replaces_the_curve():
    a = AnnotatorVersion("ann", Segmentation((0,), 6), ("main",), 40.0, 10.0, 0.0)
    b = AnnotatorVersion("bob", Segmentation((0, 3), 6), ("main", "static"), 60.0, 10.0, 0.0)
    c = AnnotatorVersion("cy", Segmentation((0,), 6), ("main",))     # no curve: not pooled
    pooled, mean = pool_versions([a, b, c]), resolve_pair([a, b, c])
    assert pooled.method == POOLED
    assert (pooled.boundaries, pooled.segment_axes) == (mean.boundaries, mean.segment_axes)
    assert pooled.omega > mean.omega
    assert pool_versions([c]).has_parameters is False
    assert isinstance(pooled, Resolution)
    assert np.isfinite([pooled.xi, pooled.omega, pooled.alpha]).all()


@pytest.mark.parametrize("curves", [
    [(20.0, 3.0, 2.0), (100.0, 10.0, -2.0)],   # a narrow early peak and a wide late one
    [(5.0, 3.0, 0.0), (60.0, 10.0, 0.0)],      # far apart, one near the axis start
])
def test_a_far_apart_pool_is_fitted_on_its_location_not_on_one_peak(curves):
    fit = pool_curves(curves)
    pool_mean = float(pooled_masses(curves) @ DISTANCE_GRID)
    fit_mean = float(curve_masses64(fit.parameters) @ DISTANCE_GRID)
    assert abs(fit_mean - pool_mean) < 5          # a density fit locked onto one peak: 30+ away
    assert fit.w1_to_pool > 5                     # and it says one curve cannot hold two peaks
