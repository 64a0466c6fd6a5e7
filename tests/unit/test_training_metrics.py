"""Training metrics against hand-computed values: point metrics, pooled NLL, curve scores,
and the training-split z-scoring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from annotation.training.metrics import (
    curve_scores,
    point_metrics,
    pooled_gaussian_nll,
    skew_normal_cdf,
    skew_normal_crps,
    skew_normal_cross_entropy,
)
from annotation.training.targets import TargetScaler, fit_target_scaler

# Three columns chosen so every figure can be worked out on paper (see each test).
Y_TRUE = np.array([[1.0, 2.0, 4.0], [2.0, 4.0, 3.0], [3.0, 6.0, 2.0], [4.0, 8.0, 1.0]])
Y_PRED = np.array([[1.0, 3.0, 1.0], [2.0, 3.0, 2.0], [3.0, 7.0, 3.0], [5.0, 7.0, 4.0]])


def test_point_metrics_per_parameter_by_hand():
    m = point_metrics(Y_TRUE, Y_PRED)
    loc, scale, skew = (m.per_parameter[k] for k in ("location", "scale", "skewness"))
    # column 0: errors (0, 0, 0, -1); SS_tot = 1.5² + .5² + .5² + 1.5² = 5
    assert loc["mse"] == pytest.approx(0.25)
    assert loc["mae"] == pytest.approx(0.25)
    assert loc["r2"] == pytest.approx(1 - 1 / 5)
    assert loc["spearman"] == pytest.approx(1.0)
    # column 1: errors (-1, 1, -1, 1); SS_tot = 20; predicted ranks (1.5, 1.5, 3.5, 3.5)
    assert scale["mse"] == pytest.approx(1.0)
    assert scale["mae"] == pytest.approx(1.0)
    assert scale["r2"] == pytest.approx(1 - 4 / 20)
    assert scale["spearman"] == pytest.approx(4 / math.sqrt(5 * 4))
    # column 2: reversed order; errors (3, 1, -1, -3); SS_tot = 5, SS_res = 20
    assert skew["mse"] == pytest.approx(5.0)
    assert skew["mae"] == pytest.approx(2.0)
    assert skew["r2"] == pytest.approx(1 - 20 / 5)
    assert skew["spearman"] == pytest.approx(-1.0)


def test_point_metrics_are_averaged_over_the_three_parameters():
    m = point_metrics(Y_TRUE, Y_PRED)
    assert m.mse == pytest.approx((0.25 + 1 + 5) / 3)
    assert m.mae == pytest.approx((0.25 + 1 + 2) / 3)
    assert m.r2 == pytest.approx((0.8 + 0.8 - 3) / 3)
    assert m.spearman == pytest.approx((1 + 4 / math.sqrt(20) - 1) / 3)
    # pooled over all 12 residuals: sum -1, sum of squares 25 → mean -1/12, var 299/144
    var = 25 / 12 - (1 / 12) ** 2
    assert var == pytest.approx(299 / 144)
    assert m.nll == pytest.approx(0.5 * math.log(2 * math.pi * var) + (25 / 12) / (2 * var))


def test_point_metrics_mae_in_original_units():
    m = point_metrics(Y_TRUE, Y_PRED, y_true_original=Y_TRUE * 10, y_pred_original=Y_PRED * 10)
    assert m.per_parameter["skewness"]["mae_original"] == pytest.approx(20.0)


def test_spearman_of_a_constant_prediction_is_nan():
    m = point_metrics(Y_TRUE, np.zeros_like(Y_TRUE))
    assert math.isnan(m.spearman)
    assert math.isnan(m.per_parameter["location"]["spearman"])


def test_pooled_nll_with_zero_mean_residuals_is_half_log_2_pi_e_sigma2():
    r = np.array([-1.0, 1.0, -2.0, 2.0])     # mean 0, σ² = 10/4
    assert pooled_gaussian_nll(r) == pytest.approx(0.5 * math.log(2 * math.pi * math.e * 2.5))


def test_pooled_nll_does_not_centre_the_residuals():
    r = np.array([1.0, 1.0, 1.0, 3.0])       # mean 1.5, σ² = 0.75, mean r² = 3
    assert pooled_gaussian_nll(r) == pytest.approx(0.5 * math.log(2 * math.pi * 0.75) + 3 / 1.5)


def test_pooled_nll_pools_all_columns():
    r = np.array([[-1.0, 2.0], [1.0, -2.0]])
    assert pooled_gaussian_nll(r) == pytest.approx(pooled_gaussian_nll(r.ravel()))
    assert pooled_gaussian_nll(r) == pytest.approx(0.5 * math.log(2 * math.pi * math.e * 2.5))


def test_cross_entropy_of_two_normals_matches_the_closed_form():
    # −∫ N(x; 0, 1) log N(x; 1, 2²) dx = ½ ln(2π·4) + (1 + 1²) / (2·4)
    value = skew_normal_cross_entropy(np.array([[0.0, 1.0, 0.0]]), np.array([[1.0, 2.0, 0.0]]))
    assert value[0] == pytest.approx(0.5 * math.log(8 * math.pi) + 0.25, abs=1e-9)


def test_cross_entropy_of_a_curve_with_itself_is_its_entropy_and_minimal():
    gold = np.array([[54.1, 11.2, -0.4], [30.0, 5.0, 4.0]])
    own = skew_normal_cross_entropy(gold, gold)
    expected = [stats.skewnorm(a, loc=xi, scale=om).entropy() for xi, om, a in gold]
    assert own == pytest.approx(expected, abs=1e-6)
    for shift in ([1.0, 0, 0], [0, 2.0, 0], [0, 0, 1.0], [0, -1.0, -2.0]):
        assert np.all(skew_normal_cross_entropy(gold, gold + np.array(shift)) > own)


def test_skew_normal_cdf_matches_scipy():
    x = np.linspace(-10, 10, 81)
    for alpha in (-6.0, 0.0, 0.7, 5.0):
        assert skew_normal_cdf(x, 1.0, 2.0, alpha) == pytest.approx(
            stats.skewnorm.cdf(x, alpha, loc=1.0, scale=2.0), abs=1e-12)


def _expected_abs_normal(mu: float, s: float) -> float:
    """E|N(mu, s²)| — the folded-normal mean."""
    return s * math.sqrt(2 / math.pi) * math.exp(-mu ** 2 / (2 * s ** 2)) \
        + mu * (1 - 2 * stats.norm.cdf(-mu / s))


def test_crps_of_two_normals_matches_the_energy_form():
    # ∫ (F − G)² = E|X − Y| − ½ E|X − X'| − ½ E|Y − Y'|, X ~ N(0, 1), Y ~ N(1, 1)
    expected = _expected_abs_normal(1.0, math.sqrt(2)) - 2 / math.sqrt(math.pi)
    value = skew_normal_crps(np.array([[0.0, 1.0, 0.0]]), np.array([[1.0, 1.0, 0.0]]))
    assert value[0] == pytest.approx(expected, abs=1e-7)


def test_crps_against_a_point_mass_is_the_gaussian_crps():
    # Gneiting & Raftery (2007): CRPS(N(0,1), y) = y(2Φ(y) − 1) + 2φ(y) − 1/√π, here y = 1
    y = 1.0
    expected = y * (2 * stats.norm.cdf(y) - 1) + 2 * stats.norm.pdf(y) - 1 / math.sqrt(math.pi)
    value = skew_normal_crps(np.array([[y, 1e-7, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
    assert value[0] == pytest.approx(expected, abs=1e-5)      # quadrature error ~ 3e-6
    finer = skew_normal_crps(np.array([[y, 1e-7, 0.0]]), np.array([[0.0, 1.0, 0.0]]),
                             n_points=8001)
    assert abs(finer[0] - expected) < abs(value[0] - expected)


def test_crps_is_zero_for_identical_curves_and_symmetric():
    gold = np.array([[54.1, 11.2, -0.4], [100.0, 3.0, 8.0]])
    pred = np.array([[60.0, 9.0, 1.0], [90.0, 20.0, -3.0]])
    assert skew_normal_crps(gold, gold) == pytest.approx([0.0, 0.0], abs=1e-12)
    assert skew_normal_crps(gold, pred) == pytest.approx(skew_normal_crps(pred, gold), rel=1e-6)


def test_crps_of_far_apart_narrow_curves_is_their_distance():
    value = skew_normal_crps(np.array([[0.0, 1e-6, 0.0]]), np.array([[50.0, 1e-6, 2.0]]))
    assert value[0] == pytest.approx(50.0, rel=1e-6)


def test_curve_scores_clip_non_positive_predicted_scales():
    gold = np.array([[50.0, 10.0, 0.0], [60.0, 8.0, 1.0]])
    pred = np.array([[50.0, -3.0, 0.0], [60.0, 8.0, 1.0]])
    scores = curve_scores(gold, pred, min_scale=2.0)
    assert scores.n_scale_clipped == 1
    clipped = pred.copy()
    clipped[0, 1] = 2.0
    assert scores.curve_nll == pytest.approx(skew_normal_cross_entropy(gold, clipped).mean())
    assert scores.curve_crps == pytest.approx(skew_normal_crps(gold, clipped).mean())
    with pytest.raises(ValueError):
        curve_scores(gold, pred, min_scale=0.0)


def test_target_scaler_uses_the_given_training_statistics():
    train = np.array([[0.0, 10.0, 1.0], [2.0, 30.0, 3.0]])   # mean (1, 20, 2), std (1, 10, 1)
    scaler = fit_target_scaler(train)
    assert scaler.mean == (1.0, 20.0, 2.0)
    assert scaler.std == (1.0, 10.0, 1.0)
    valid = np.array([[3.0, 40.0, 5.0]])
    assert scaler.transform(valid) == pytest.approx(np.array([[2.0, 2.0, 3.0]]))
    assert scaler.inverse_transform(scaler.transform(valid)) == pytest.approx(valid)
    assert TargetScaler.from_dict(scaler.to_dict()) == scaler


def test_target_scaler_of_a_constant_column_does_not_divide_by_zero():
    scaler = fit_target_scaler(np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 2.0]]))
    assert scaler.std[1] == 1.0
    assert np.all(np.isfinite(scaler.transform(np.array([[0.0, 7.0, 0.0]]))))


def test_r2_and_spearman_are_undefined_where_the_test_split_cannot_support_them():
    """On 2 test samples whose gold differed by rounding noise R² came out as −2·10²⁸ and ρ as
    'None'. Fewer than 3 samples, or a gold column without spread, give NaN (shown as "—")."""
    gold = np.array([[0.3, 1.0, -0.2], [0.3 + 4e-16, 1.5, 0.4], [0.3 - 4e-16, 0.2, 0.1]])
    pred = gold + np.array([[0.1, -0.1, 0.05], [0.2, 0.1, -0.05], [-0.1, 0.0, 0.1]])
    m = point_metrics(gold, pred)
    assert math.isnan(m.per_parameter["location"]["r2"]) and math.isnan(m.r2)  # no spread in ξ
    assert np.isfinite(m.per_parameter["scale"]["r2"]) and abs(m.per_parameter["scale"]["r2"]) < 2
    two = point_metrics(gold[1:], pred[1:])
    assert all(math.isnan(two.per_parameter[p][k]) for p in two.per_parameter for k in ("r2", "spearman"))
    assert np.isfinite(two.mse) and np.isfinite(two.mae) and np.isfinite(two.nll)
