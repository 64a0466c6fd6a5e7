"""The trivial references, the interval-based comparison with them and the ranking rule (issue
33), with values worked by hand; and a training run on a 20/5/3 split that reports the
references and refuses to rank."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.publishable import NEEDS, figure, units_needed
from annotation.training.references import (
    BEATS,
    TIED,
    UNDECIDED,
    WORSE,
    compare_mse,
    ranked,
    ranking_withheld,
    reference_predictions,
)


def test_the_references_by_hand():
    train = np.array([[40.0, 10.0, 0.0],    # axes 0 and 2
                      [60.0, 12.0, 1.0],    # axis 0
                      [80.0, 14.0, 2.0],    # axis 1
                      [20.0, 6.0, -1.0]])   # no axis
    axes = [("a", "", "c"), ("a", "", ""), ("", "b", ""), ("", "", "")]
    refs = reference_predictions(train, axes, [("a", "", ""), ("", "b", "c"), ("", "", ""), ("", "", "", )])
    assert refs["reference_mean"].tolist() == [[50.0, 10.5, 0.5]] * 4
    per_axis = refs["reference_axis_mean"].tolist()
    assert per_axis[0] == [50.0, 11.0, 0.5]                       # mean of rows 0 and 1
    assert per_axis[1] == [60.0, 12.0, 1.0]                       # (axis 1: row 2; axis 2: row 0) / 2
    assert per_axis[2] == per_axis[3] == [50.0, 10.5, 0.5]        # no axis: the training mean
    with pytest.raises(ValueError):
        reference_predictions(train, axes[:2], [("a",)])


def test_the_comparison_is_decided_on_the_interval_of_the_difference():
    truth = np.array([[1.0, 0.0, 0.0]] * 10 + [[-1.0, 0.0, 0.0]] * 10)
    model = truth * 0.5            # squared error 0.25 on the first column: mean 0.25 / 3
    constant = np.zeros_like(truth)  # squared error 1 on the first column: mean 1 / 3
    better = compare_mse(truth, model, constant, reference="reference_mean", resamples=200)
    assert better.verdict == BEATS and better.difference == pytest.approx((0.25 - 1.0) / 3)
    # every sample gains the same: the interval is the point
    assert better.low == pytest.approx(better.difference) and better.high == pytest.approx(better.difference)
    assert compare_mse(truth, constant, model, reference="reference_mean", resamples=200).verdict == WORSE
    # half the samples gain what the other half lose: the difference is 0 and its interval straddles it
    zeros = np.zeros((20, 3))
    small, large = np.array([[0.5, 0.0, 0.0]]), np.array([[1.0, 0.0, 0.0]])
    a = np.vstack([small, large] * 10)
    b = np.vstack([large, small] * 10)
    tied = compare_mse(zeros, a, b, reference="reference_mean", resamples=500)
    assert tied.verdict == TIED and tied.difference == pytest.approx(0.0) and tied.low < 0 < tied.high
    few = compare_mse(truth[:9], model[:9], constant[:9], reference="reference_mean")
    assert few.verdict == UNDECIDED and math.isnan(few.low) and few.n == 9
    assert few.words() == "not compared: needs ≥ 10 test samples (9)"


def test_ranking_needs_thirty_test_samples_and_sorts_by_the_interval():
    assert ranking_withheld(3, 0.1).startswith("not ranked: the test split has 3 samples; ranking models "
                                               "needs ≥ 30 test samples (an export of about 300 gold samples")
    assert ranking_withheld(29, 0.2).endswith("(an export of about 150 gold samples at a 20 % test share)")
    assert ranking_withheld(30, 0.1) == ""
    assert units_needed(NEEDS["test_metric"], 0.1) == 300

    class Row:
        def __init__(self, model, mse, high):
            self.model, self.mse = model, mse
            self.score = {"figures": {"mse": {"value": mse, "low": None, "high": high}}}

    # b's point is worse than a's but its interval's upper end is lower: b leads
    order = ranked([Row("a", 0.30, 0.90), Row("b", 0.35, 0.50), Row("c", 0.10, None), Row("d", 0.05, None)])
    assert [r.model for r in order] == ["b", "a", "d", "c"]


def test_the_rule_by_hand():
    shown = figure(NEEDS["w1"], 5.4512, n=40, interval=(5.1, 5.9))
    assert shown.text(2) == "5.45 [5.10, 5.90] (n = 40)" and shown.to_json()["needs"]["min_n"] == 10
    assert figure(NEEDS["w1"], 5.4512, n=9).text() == "— needs ≥ 10 samples with two curves (n = 9)"
    assert figure(NEEDS["sigma"], 3.2, n=40, spread=0.0).withheld == "needs the parameter to vary (spread 0 ≤ 0.01)"
    assert figure(NEEDS["icc"], float("inf"), n=40).withheld == NEEDS["icc"].rule
    with pytest.raises(ValueError):
        units_needed(NEEDS["test_metric"], 0.0)


def test_a_run_on_a_20_5_3_split_reports_the_references_and_refuses_to_rank(tmp_path):
    from annotation.training import TrainingConfig, load_run, run_training, write_synthetic_export

    export = write_synthetic_export(tmp_path / "export", 30, seed=1)
    results = run_training(export, tmp_path / "run", TrainingConfig(models=("linear",), encoder="hashing"))
    assert results.split_sizes == {"train": 21, "validation": 6, "test": 3}
    assert results.ranking == ("not ranked: the test split has 3 samples; ranking models needs ≥ 30 test "
                               "samples (an export of about 300 gold samples at a 10 % test share)")
    assert [r.model for r in results.references] == ["reference_mean", "reference_axis_mean"]
    mean_row = results.references[0]
    assert mean_row.n_test == 3 and math.isfinite(mean_row.mse)
    linear = results.row("linear")
    assert {c["verdict"] for c in linear.vs_reference.values()} == {UNDECIDED}
    assert linear.score["figures"]["mse"]["no_interval"] == "a bootstrap interval needs ≥ 10 test samples"
    assert load_run(tmp_path / "run").ranking == results.ranking   # kept in metrics.json
