"""Cooke's classical model, quantity by quantity, against values computed by hand; the EXCALIBUR
reader's errors; and the size the annotators-as-experts work needs (50 experts × 500 items)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy.stats import chi2

from annotation.corpus.excalibur import parse_rls, read_excalibur
from annotation.quality.classical_dm import classical_model, decision_maker_quantiles
from annotation.quality.classical_model import (
    bin_counts, calibration, global_weights, information, interquantile_probabilities,
    intrinsic_ranges, mean_information)
from annotation.quality.classical_robustness import dm_relative_information, robustness

P3 = (0.05, 0.45, 0.45, 0.05)
LEVELS = (0.05, 0.5, 0.95)


def test_interquantile_probabilities():
    assert interquantile_probabilities(LEVELS) == pytest.approx(P3)
    assert interquantile_probabilities((0.1, 0.5, 0.9)) == pytest.approx((0.1, 0.4, 0.4, 0.1))


@pytest.mark.parametrize("levels", [(0.5, 0.05), (0.0, 0.5), (0.5, 1.0), (0.05, float("nan")), ()])
def test_impossible_levels_are_refused(levels):
    with pytest.raises(ValueError, match="levels"):
        interquantile_probabilities(levels)


def test_bin_counts_and_the_tie_rule():
    """A realisation equal to a quantile is counted in the bin below it (x ≤ q_1 → bin 0)."""
    q = [[1.0, 2.0, 3.0]] * 5
    assert bin_counts(q, [0.5, 1.5, 2.5, 3.5, 2.6]).tolist() == [1, 1, 2, 1]
    assert bin_counts(q[:3], [1.0, 2.0, 3.0]).tolist() == [1, 1, 1, 0]


def test_bin_counts_refuses_what_cannot_be_counted():
    with pytest.raises(ValueError, match="non-decreasing"):
        bin_counts([[1.0, 3.0, 2.0]], [1.0])
    with pytest.raises(ValueError, match="missing"):
        bin_counts([[1.0, float("nan"), 2.0]], [1.0])
    with pytest.raises(ValueError, match="shape"):
        bin_counts([[1.0, 2.0, 3.0]], [1.0, 2.0])


def test_calibration_by_hand():
    # s = p: I(s, p) = 0, the statistic 0, the p-value 1
    assert calibration([1, 9, 9, 1], P3) == pytest.approx(1.0)
    # (1, 4, 4, 1) of 10: s = (.1, .4, .4, .1), I = .2 ln 2 + .8 ln(.4/.45) = 0.0444033
    i = 0.2 * math.log(2.0) + 0.8 * math.log(0.4 / 0.45)
    assert calibration([1, 4, 4, 1], P3) == pytest.approx(chi2.sf(20 * i, 3))
    assert calibration([1, 4, 4, 1], P3) == pytest.approx(0.828308, abs=1e-6)
    # every realisation above the 95 % quantile: 2N·I = 2·10·ln(1/0.05) = 59.9146…
    assert 2 * 10 * math.log(1 / 0.05) == pytest.approx(59.914645, abs=1e-6)
    assert calibration([0, 0, 0, 10], P3) == pytest.approx(chi2.sf(59.914645471, 3), rel=1e-9)


def test_calibration_with_another_n():
    """Cooke's "same N for every expert": n replaces Σ counts in 2·n·I(s, p)."""
    i = 0.2 * math.log(2.0) + 0.8 * math.log(0.4 / 0.45)
    assert calibration([1, 4, 4, 1], P3, n=5) == pytest.approx(chi2.sf(10 * i, 3))
    with pytest.raises(ValueError, match="n must"):
        calibration([1, 4, 4, 1], P3, n=0)
    with pytest.raises(ValueError, match="one length"):
        calibration([1, 4, 4], P3)
    with pytest.raises(ValueError, match="sum to 1"):
        calibration([1, 4, 4, 1], (0.1, 0.45, 0.45, 0.05))


def test_intrinsic_ranges_by_hand():
    a = [[[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], [[2.0, 4.0, 5.0], [1.0, 100.0, 1000.0]]]
    r = intrinsic_ranges(a, [6.0, float("nan")], overshoot=0.1, background=["uniform", "log"])
    # item 0: [1, 6] widened by 0.5 each side; item 1: ln 1 .. ln 1000 widened by 0.1·ln 1000
    assert r[0] == pytest.approx([0.5, 6.5])
    assert r[1] == pytest.approx([1000 ** -0.1, 1000 ** 1.1])
    with pytest.raises(ValueError, match="log background"):
        intrinsic_ranges([[[-1.0, 2.0, 3.0]]], [1.0], background="log")
    with pytest.raises(ValueError, match="'uniform' or 'log'"):
        intrinsic_ranges(a, [6.0, 1.0], background="loguniform")


def test_information_of_one_item_by_hand():
    # [2, 5, 8] on [0, 10]: r = (.2, .3, .3, .2), I = .1 ln(.05/.2) + .9 ln(.45/.3)
    expected = 0.1 * math.log(0.25) + 0.9 * math.log(1.5)
    assert information([[2.0, 5.0, 8.0]], [[0.0, 10.0]], LEVELS)[0] == pytest.approx(expected)
    # the same on the log background: quantiles 10^2, 10^5, 10^8 on [1, 10^10]
    log = information([[1e2, 1e5, 1e8]], [[1.0, 1e10]], LEVELS, background="log")[0]
    assert log == pytest.approx(expected)
    # the uniform background of a quantile set spread like the background itself: r = p, I = 0
    assert information([[0.5, 5.0, 9.5]], [[0.0, 10.0]], LEVELS)[0] == pytest.approx(0.0, abs=1e-12)
    assert mean_information([[2.0, 5.0, 8.0], [0.5, 5.0, 9.5]], [[0.0, 10.0]] * 2, LEVELS) == pytest.approx(expected / 2)
    with pytest.raises(ValueError, match="zero-width"):
        information([[2.0, 2.0, 8.0]], [[0.0, 10.0]], LEVELS)


def test_global_weights():
    assert global_weights([0.5, 0.01, 0.2], [1.2, 2.0, 1.0], alpha=0.05).tolist() == pytest.approx([0.6, 0.0, 0.2])
    assert global_weights([0.5, 0.01], [1.2, 2.0], alpha=0.0).tolist() == pytest.approx([0.6, 0.02])
    with pytest.raises(ValueError, match="one length"):
        global_weights([0.5], [1.0, 2.0], alpha=0.0)


def test_dm_quantiles_of_two_experts_by_hand():
    """Equal weights on [0, 10]; expert 1's CDF through (2, .05), (4, .5), (6, .95), expert 2's
    through (4, .05), (6, .5), (8, .95). On [2, 4] the pool is
    ½(.05 + .225(x − 2)) + ½(.0125x); it reaches .05 at x = .5/.2375 = 2.105263."""
    a = [[[2.0, 4.0, 6.0]], [[4.0, 6.0, 8.0]]]
    dm = decision_maker_quantiles(a, [1.0, 1.0], [[0.0, 10.0]], LEVELS)
    assert dm[0] == pytest.approx([0.5 / 0.2375, 5.0, 10.0 - 0.5 / 0.2375])
    # weights 3:1 — the 50 % quantile: on [4, 6] F = ¾(.5 + .225(x−4)) + ¼(.05 + .225(x−4)) = .5
    dm = decision_maker_quantiles(a, [3.0, 1.0], [[0.0, 10.0]], LEVELS)
    assert dm[0, 1] == pytest.approx(4.0 + (0.5 - 0.75 * 0.5 - 0.25 * 0.05) / 0.225)
    # one expert with all the weight: the DM is that expert, exactly
    assert decision_maker_quantiles(a, [0.0, 1.0], [[0.0, 10.0]], LEVELS)[0].tolist() == [4.0, 6.0, 8.0]
    # on the log background the pool is linear in ln x: the same answer, exponentiated
    dm_log = decision_maker_quantiles(np.exp(np.asarray(a)), [1.0, 1.0], [[1.0, math.exp(10.0)]], LEVELS, "log")
    assert np.log(dm_log[0]) == pytest.approx([0.5 / 0.2375, 5.0, 10.0 - 0.5 / 0.2375])


def test_dm_refuses_bad_weights():
    a = [[[2.0, 4.0, 6.0]], [[4.0, 6.0, 8.0]]]
    for bad in ([0.0, 0.0], [1.0, -1.0], [1.0], [1.0, float("nan")]):
        with pytest.raises(ValueError, match="weights"):
            decision_maker_quantiles(a, bad, [[0.0, 10.0]], LEVELS)


def _panel():
    """Three experts, four seeds and one target: expert 0 well calibrated, 1 overconfident, 2 vague."""
    truth = np.array([10.0, 20.0, 30.0, 40.0, np.nan])
    good = np.array([[8.0, 10.5, 13.0], [15.0, 19.0, 26.0], [20.0, 31.0, 35.0], [35.0, 39.5, 46.0], [5.0, 6.0, 7.0]])
    tight = good[:, 1:2] + np.array([[-0.2, 0.0, 0.2]]) + np.array([[3.0], [3.0], [3.0], [3.0], [0.0]])
    vague = np.array([[0.0, 10.0, 50.0], [0.0, 20.0, 60.0], [0.0, 30.0, 70.0], [0.0, 40.0, 80.0], [0.0, 6.0, 20.0]])
    return np.stack([good, tight, vague]), truth


def test_classical_model_scores_and_alpha():
    a, x = _panel()
    res = classical_model(a, x, LEVELS)
    ranges = intrinsic_ranges(a, x)
    seeds = ~np.isnan(x)
    for e in range(3):
        assert res.calibration[e] == pytest.approx(calibration(bin_counts(a[e, seeds], x[seeds]), P3, n=4))
        info = information(a[e], ranges, LEVELS)
        assert res.information_seed[e] == pytest.approx(info[seeds].mean())
        assert res.information_all[e] == pytest.approx(info.mean())
    assert res.weight.sum() == pytest.approx(1.0)
    # the chosen α gives the DM with the highest calibration × information on the seeds
    best = res.dm_calibration * res.dm_information_seed
    for cut in [0.0, *res.calibration]:
        if global_weights(res.calibration, res.information_seed, cut).sum() == 0:
            continue
        other = classical_model(a, x, LEVELS, alpha=float(cut))
        assert other.dm_calibration * other.dm_information_seed <= best + 1e-12
    assert res.alpha in {0.0, *res.calibration.tolist()}


def test_classical_model_equal_user_weights_and_calibration_power():
    a, x = _panel()
    equal = classical_model(a, x, LEVELS, weights="equal")
    assert equal.alpha is None and equal.weight.tolist() == pytest.approx([1 / 3] * 3)
    assert equal.quantiles == pytest.approx(decision_maker_quantiles(a, [1, 1, 1], equal.ranges, LEVELS))
    user = classical_model(a, x, LEVELS, weights=[2.0, 0.0, 2.0])
    assert user.weight.tolist() == pytest.approx([0.5, 0.0, 0.5])
    half = classical_model(a, x, LEVELS, calibration_power=0.5, weights="equal")
    counts = bin_counts(a[0, :4], x[:4])
    assert half.calibration[0] == pytest.approx(calibration(counts, P3, n=2))


def test_classical_model_refuses_impossible_input():
    a, x = _panel()
    with pytest.raises(ValueError, match="no seed"):
        classical_model(a, np.full(5, np.nan), LEVELS)
    with pytest.raises(ValueError, match="realisations have shape"):
        classical_model(a, x[:4], LEVELS)
    with pytest.raises(ValueError, match="quantiles per item"):
        classical_model(a, x, (0.05, 0.95))
    with pytest.raises(ValueError, match="above every expert"):
        classical_model(a, x, LEVELS, alpha=1.0)
    with pytest.raises(ValueError, match="'global', 'equal'"):
        classical_model(a, x, LEVELS, weights="best")
    bad = a.copy()
    bad[1, 2] = [3.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="non-decreasing"):
        classical_model(bad, x, LEVELS)


def test_robustness_rows():
    a, x = _panel()
    items = robustness(a, x, LEVELS, drop="items")
    assert [r.dropped for r in items] == [0, 1, 2, 3]
    reduced = classical_model(np.delete(a, 1, axis=1), np.delete(x, 1), LEVELS)
    assert items[1].dm_calibration == pytest.approx(reduced.dm_calibration)
    experts = robustness(a, x, LEVELS, drop="experts", weights="equal")
    assert [r.dropped for r in experts] == [0, 1, 2]
    assert all(r.relative_information_all >= 0.0 for r in items + experts)
    with pytest.raises(ValueError, match="drop"):
        robustness(a, x, LEVELS, drop="seeds")


def test_relative_information_by_hand():
    """f: [2, 5, 8] on [0, 10]; g: [1, 5, 9] on [0, 10]; summed over the six pieces of the union."""
    f = [0.025, 0.025, 0.15, 0.15, 0.025, 0.025]
    g = [0.05, 0.1125, 0.1125, 0.1125, 0.1125, 0.05]
    w = [1, 1, 3, 3, 1, 1]
    expected = sum(wi * fi * math.log(fi / gi) for wi, fi, gi in zip(w, f, g))
    got = dm_relative_information([[2.0, 5.0, 8.0]], [[0.0, 10.0]], [[1.0, 5.0, 9.0]], [[0.0, 10.0]], LEVELS)
    assert got[0] == pytest.approx(expected)


def test_fifty_experts_five_hundred_items_is_fast():
    rng = np.random.default_rng(7)
    centre = rng.normal(size=(50, 500, 1)) + np.arange(500)[None, :, None] * 0.01
    a = np.exp(centre + np.array([-1.5, 0.0, 1.5]) * rng.uniform(0.3, 1.5, size=(50, 1, 1)))
    x = np.exp(rng.normal(size=500) + np.arange(500) * 0.01)
    x[::5] = np.nan
    start = time.process_time()  # the work done: other processes on a busy machine do not lengthen it
    res = classical_model(a, x, LEVELS, background="log")
    assert time.process_time() - start < 5.0
    assert res.quantiles.shape == (500, 3) and res.n_seeds == 400


def test_excalibur_reader_errors_name_file_and_line():
    dtt = "* NQ= 3 QU= 5 50 95\n 1 A 1 x UNI 1 2 3\n 1 A 2 y UNI 1 two 3\n"
    with pytest.raises(ValueError, match=r"^s\.dtt, line 3: "):
        read_excalibur(dtt, " 1 x 2.5 UNI\n", "s.dtt", "s.rls")
    with pytest.raises(ValueError, match=r"^s\.rls, line 2: "):
        parse_rls(" 1 x 2.5 UNI\n 2 y\n", "s.rls")
    with pytest.raises(ValueError, match=r"s\.dtt, line 3: .*twice"):
        read_excalibur("* NQ= 1 QU= 50\n 1 A 1 x UNI 1\n 1 A 1 x UNI 2\n", " 1 x 2 UNI\n", "s.dtt", "s.rls")
    with pytest.raises(ValueError, match=r"s\.rls, line 1: item 'x' is log here"):
        read_excalibur("* NQ= 1 QU= 50\n 1 A 1 x UNI 1\n", " 1 x 2 LOG\n", "s.dtt", "s.rls")
    with pytest.raises(ValueError, match="NQ="):
        read_excalibur("* NQ= 2 QU= 5 50 95\n 1 A 1 x UNI 1 2 3\n", " 1 x 2 UNI\n", "s.dtt", "s.rls")


def test_excalibur_missing_values():
    study = read_excalibur("* NQ= 1 QU= 50\n 1 A 1 x UNI 1\n 1 A 2 y UNI -9.995E+0002\n",
                           " 1 x -9.996E+0002 UNI\n", "s.dtt", "s.rls")
    assert np.isnan(study.realisations).all()          # x: a missing realisation; y: no .rls line
    assert np.isnan(study.assessments[0, 1, 0]) and study.assessments[0, 0, 0] == 1.0
