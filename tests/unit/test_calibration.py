"""Whether a model in the loop earns its place and how far to trust its curves: the conformal
quantile and held-out coverage by hand, the coverage holding its nominal level on generated data
whose error grows with the curve's width (where a learnt expected miss tracks the error and a
constant one cannot), the cross-validated comparison with the other folds' mean curve, and the
gate's words."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from annotation.curves.distance import curve_distances
from annotation.timeaxis import x_to_minutes
from annotation.training.calibration import (
    LEVEL,
    MIN_MISS,
    ExpectedMiss,
    calibrate,
    calibration_words,
    conformal_quantile,
    conformity_scores,
    cross_validated_comparison,
    half_gone_band,
    half_gone_positions,
    held_out_coverage,
    withheld_because,
)


def test_the_conformal_quantile_is_the_rank_ceil_n_plus_one_times_level():
    scores = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 8.0, 7.0, 6.0, 10.0])   # 1 … 10 shuffled
    assert conformal_quantile(scores, 0.9) == 10.0           # ⌈11 · 0.9⌉ = 10th smallest
    assert conformal_quantile(scores[:5], 0.9) == math.inf   # ⌈6 · 0.9⌉ = 6 > 5: no finite band
    assert conformal_quantile(np.append(scores, 11.0), 0.9) == 11.0   # n 11: ⌈12 · 0.9⌉ = 11th smallest
    assert conformal_quantile(scores, 0.5) == 6.0            # ⌈11 · 0.5⌉ = 6th smallest
    assert conformal_quantile(np.array([np.nan, 1.0, np.inf]), 0.5) == 1.0   # only finite scores count
    assert conformal_quantile(np.array([]), 0.9) == math.inf


def test_held_out_coverage_uses_the_other_folds_quantile():
    # fold 0 holds 1, 2; fold 1 holds 3, 4 (level 0.5): fold 0 is judged by q(3, 4) = 4 → both in;
    # fold 1 by q(1, 2) = 2 → both out
    cover, n = held_out_coverage(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 1]), 0.5)
    assert (cover, n) == (0.5, 4)
    cover, n = held_out_coverage(np.array([1.0, np.nan, 3.0, 4.0]), np.array([0, 0, 1, 1]), 0.5)
    assert n == 3


def test_conformity_and_band_are_on_the_half_gone_position():
    pred = np.array([[50.0, 10.0, 0.0]])
    x = half_gone_positions(pred)[0]
    assert x == pytest.approx(50.0 + 10.0 * math.sqrt(2 * math.log(2)), abs=1e-6)
    gold = np.array([[56.0, 10.0, 0.0]])                        # the same shape 6 units later
    assert conformity_scores(gold, pred, np.array([3.0]))[0] == pytest.approx(2.0, abs=1e-6)
    band = half_gone_band(pred, np.array([3.0]), 2.0)[0]        # x ± 6
    assert band == pytest.approx([x_to_minutes(x - 6.0), x_to_minutes(x + 6.0)], rel=1e-9)
    late = half_gone_band(np.array([[190.0, 10.0, 0.0]]), np.array([3.0]), 2.0)[0]
    assert late[1] == math.inf                                  # past the chart's end: half may outlast it


def _heteroscedastic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Predictions and gold whose miss grows with the predicted width ω."""
    rng = np.random.default_rng(seed)
    pred = np.column_stack([rng.uniform(30, 150, n), rng.uniform(3, 20, n), rng.normal(0, 1, n)])
    gold = pred + rng.normal(0, 1, (n, 3)) * np.column_stack([pred[:, 1] * 0.6, pred[:, 1] * 0.05,
                                                              np.full(n, 0.1)])
    return pred, gold


def test_the_coverage_holds_its_level_and_the_learnt_miss_tracks_the_error():
    pred, gold = _heteroscedastic(1000, 0)
    folds = np.arange(1000) % 5
    calibration, miss = calibrate(gold, pred, folds)
    assert abs(calibration.coverage - LEVEL) <= 0.03 and calibration.n == 1000
    assert calibration.spearman > 0.3                          # the learnt miss follows ω
    w1 = curve_distances(gold, pred)[0]
    assert stats.spearmanr(miss, w1).statistic == pytest.approx(calibration.spearman)
    # a fresh draw from the same process: the quantile of the first covers about 90 % of it
    new_pred, new_gold = _heteroscedastic(2000, 1)
    from annotation.training.calibration import fit_expected_miss
    model = fit_expected_miss(pred, gold)
    fresh = conformity_scores(new_gold, new_pred, model.predict(new_pred))
    assert np.mean(fresh <= calibration.quantile) == pytest.approx(LEVEL, abs=0.03)
    # narrower bands where the model usually misses less: the band scales with the expected miss
    narrow, wide = np.argmin(new_pred[:, 1]), np.argmax(new_pred[:, 1])
    bands = np.log(half_gone_band(new_pred[[narrow, wide]], model.predict(new_pred[[narrow, wide]]),
                                  calibration.quantile))
    assert bands[0, 1] - bands[0, 0] < bands[1, 1] - bands[1, 0]


def test_an_expected_miss_from_too_few_residuals_is_their_median_and_never_below_the_floor():
    curves = np.array([[50.0, 10.0, 0.0]] * 5)
    assert ExpectedMiss.fit(curves, np.array([1.0, 2.0, 3.0, 4.0, 100.0])).predict(curves[:1]).tolist() == [3.0]
    assert ExpectedMiss.fit(curves, np.zeros(5)).predict(curves[:1]).tolist() == [MIN_MISS]
    assert ExpectedMiss.fit(curves, np.full(5, np.nan)).predict(curves[:1]).tolist() == [MIN_MISS]
    with pytest.raises(ValueError, match="shape"):
        ExpectedMiss.fit(curves[:, :2], np.ones(5))


def test_a_model_is_compared_with_the_other_folds_mean_curve():
    rng = np.random.default_rng(3)
    gold = np.column_stack([rng.uniform(20, 160, 100), rng.uniform(4, 16, 100), rng.normal(0, 1.5, 100)])
    folds = np.arange(100) % 5
    # predicting each held-out fold by the other folds' mean IS the reference: a difference of exactly 0
    reference = np.array([gold[folds != f].mean(axis=0) for f in folds])
    same = cross_validated_comparison(gold, reference, folds)
    assert same.difference == pytest.approx(0.0, abs=1e-12) and same.verdict == "tied"
    assert cross_validated_comparison(gold, gold + rng.normal(0, 0.5, gold.shape) * [3, 1, 0.3],
                                      folds).verdict == "beats"
    constant_off = np.tile(gold.mean(axis=0) + [30.0, 4.0, 1.0], (100, 1))
    assert cross_validated_comparison(gold, constant_off, folds).verdict == "worse"
    few = cross_validated_comparison(gold[:8], gold[:8], folds[:8])
    assert few.verdict == "undecided" and few.n == 8


def test_the_gate_says_why_and_the_summary_says_what_was_measured():
    tied = {"reference": "reference_mean", "difference": 0.01, "low": -0.05, "high": 0.07, "verdict": "tied",
            "n": 45}
    kept = {"n": 45, "cross_validated": 45, "folds": 3,
            "calibration": {"comparison": tied, "level": 0.9, "quantile": 2.0, "coverage": 0.8,
                            "coverage_interval": [0.66, 0.89], "n": 45, "spearman": 0.1}}
    assert withheld_because(kept) == ("its model is not told apart from the training mean curve "
                                      "(ΔMSE 0.010 [−0.050, 0.070], n = 45) under cross-validation")
    words = calibration_words(kept)
    # 80 % of 45: its interval reaches into 85–95 %, so too few samples to call it off
    assert "cover 80.0 % [66.0 %, 89.0 %] of held-out samples (n = 45; not told apart from ±5 points" in words
    kept["calibration"].update(n=400, coverage_interval=[0.758, 0.836])
    assert "(n = 400; NOT calibrated: the interval lies outside ±5 points)" in calibration_words(kept)
    assert "hardly tracks the error (Spearman ρ 0.10 < 0.3)" in words
    # a negative ρ with the minus sign the ΔMSE beside it uses, not a hyphen
    kept["calibration"]["spearman"] = -0.31
    assert "(Spearman ρ −0.31 < 0.3)" in calibration_words(kept)
    kept["calibration"]["spearman"] = 0.1
    kept["calibration"]["comparison"] = dict(tied, verdict="beats", low=-0.1, high=-0.02, difference=-0.06)
    assert withheld_because(kept) == ""                 # it may list Model disagrees …
    assert withheld_because(kept, ordering=True) == (   # … but not order the queue by a miss that is noise
        "its expected miss does not track the error (Spearman ρ 0.10 < 0.3 on 45 cross-fitted samples)")
    assert calibration_words({"n": 3}) == "" and withheld_because(None).startswith("it was applied before")
