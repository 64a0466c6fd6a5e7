"""Curve agreement (W1, overlap), Krippendorff's α and the bootstrap / Wilson intervals (issue 12,
items 1 and 2), against hand-computed values, the ``krippendorff`` package and a textbook example."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import krippendorff
import numpy as np
import pytest

from annotation.agreement import (
    HEADLINE_NAMES,
    CurveAgreementMeasure,
    KrippendorffCurveMeasure,
    KrippendorffLabelsMeasure,
    RatedSample,
    Rating,
    agreement_report,
    bootstrap_intervals,
    wilson_interval,
)
from annotation.agreement.icc import icc_1_1
from annotation.agreement.icc_measure import icc_statistic
from annotation.agreement.intervals import mean_statistic
from annotation.agreement.krippendorff_alpha import interval_statistic, nominal_statistic, package_alpha
from annotation.agreement.ratings import token_axis_codes
from annotation.agreement.tables import SampleSet
from annotation.axes import AXIS_NAMES
from annotation.curves.distance import curve_distance
from annotation.settings import ProjectSettings

T0 = datetime(2026, 11, 16, 9, 0, tzinfo=timezone.utc)  # Monday, ISO week 2026-W47


def rating(who, params=(50.0, 10.0, 0.0), boundaries=(0,), axes=("main",), hours=0.0):
    xi, omega, alpha = params if params is not None else (None, None, None)
    return Rating(who, T0 + timedelta(hours=hours), tuple(boundaries), tuple(axes), xi, omega, alpha)


def shifted_pair(sid, xi, shift, omega=10.0, who=("ann", "bob"), hours=0.0):
    """Two identical skew-normal curves, the second ``shift`` log-time units later."""
    return RatedSample(sid, 1, 4, (rating(who[0], (xi, omega, 0.0), hours=hours),
                                   rating(who[1], (xi + shift, omega, 0.0), hours=hours + 1)))


# --- curve agreement ------------------------------------------------------------------------

def test_w1_of_shifted_identical_curves_is_the_shift_in_the_report():
    samples = [shifted_pair("s1", 60.0, 4.0), shifted_pair("s2", 90.0, 10.0), shifted_pair("s3", 120.0, 16.0)]
    report = agreement_report(samples)
    table = report.per_sample.set_index("sample_id")
    assert table.loc["s1", "w1"] == pytest.approx(4.0, abs=1e-4)
    assert table.loc["s2", "w1"] == pytest.approx(10.0, abs=1e-4)
    assert table.loc["s3", "w1"] == pytest.approx(16.0, abs=1e-4)
    # the overlap is scipy's point-mass overlap of the same two curves
    assert table.loc["s2", "overlap"] == pytest.approx(curve_distance((90.0, 10.0, 0.0), (100.0, 10.0, 0.0)).overlap)
    curve = report.curve
    assert curve.mean_w1 == pytest.approx(10.0, abs=1e-4) and curve.median_w1 == pytest.approx(10.0, abs=1e-4)
    assert curve.time_factor == pytest.approx(1.1 ** 10, rel=1e-6)
    assert (curve.n_used, curve.n_excluded) == (3, 0)
    # default threshold from ProjectSettings (12): only the 16-unit sample is above it
    assert curve.flag_w1_max == ProjectSettings().flag_w1_max
    assert curve.share_above == pytest.approx(1 / 3)
    assert report.headline["w1"] == curve.mean_w1
    assert agreement_report(samples, flag_w1_max=3.0).curve.share_above == 1.0


def test_three_raters_average_their_three_pairs():
    a = rating("a", (50.0, 10.0, 0.0))
    b = rating("b", (54.0, 10.0, 0.0), hours=1)
    c = rating("c", (60.0, 10.0, 0.0), hours=2)
    report = agreement_report([RatedSample("k3", 1, 4, (a, b, c))])
    assert report.per_sample["w1"].iloc[0] == pytest.approx((4 + 10 + 6) / 3, abs=1e-4)
    pairs = {p.annotators: p.figure("w1") for p in report.pairs}
    assert pairs[("a", "b")] == pytest.approx(4.0, abs=1e-4)
    assert pairs[("a", "c")] == pytest.approx(10.0, abs=1e-4)
    assert pairs[("b", "c")] == pytest.approx(6.0, abs=1e-4)


def test_samples_without_two_curves_are_excluded_and_counted():
    flagged = RatedSample("f", 1, 4, (rating("a"), rating("b", params=None)))
    report = agreement_report([shifted_pair("s1", 60.0, 2.0), flagged])
    assert (report.curve.n_used, report.curve.n_excluded) == (1, 1)
    assert math.isnan(report.per_sample.set_index("sample_id").loc["f", "w1"])


def test_w1_per_pair_and_per_week():
    samples = [shifted_pair(f"ab{i}", 60.0 + i, 2.0) for i in range(3)]
    samples += [shifted_pair(f"ac{i}", 80.0 + i, 8.0, who=("ann", "cat"), hours=24 * 7) for i in range(2)]
    report = agreement_report(samples)
    pairs = {p.annotators: p for p in report.pairs}
    assert pairs[("ann", "bob")].figure("w1") == pytest.approx(2.0, abs=1e-4)
    assert pairs[("ann", "cat")].figure("w1") == pytest.approx(8.0, abs=1e-4)
    assert 0 < pairs[("ann", "cat")].figure("overlap") < pairs[("ann", "bob")].figure("overlap") < 1
    weeks = {w.week: w.figure("w1") for w in report.weeks}
    assert weeks == {"2026-W47": pytest.approx(2.0, abs=1e-4), "2026-W48": pytest.approx(8.0, abs=1e-4)}


def test_curve_measure_alone_matches_the_report():
    samples = [shifted_pair("s1", 60.0, 3.0), shifted_pair("s2", 70.0, 5.0)]
    measure = CurveAgreementMeasure(flag_w1_max=4.0)
    assert measure.compute(samples).share_above == 0.5
    assert measure.breakdown(samples)["w1"] == pytest.approx(4.0, abs=1e-4)
    assert list(measure.per_sample(samples)) == ["w1", "overlap"]


# --- Krippendorff's α -----------------------------------------------------------------------

#: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: nominal data,
#: four observers, twelve units, missing values (coders × units; NaN = no value).
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
])


def _confusion_of_units(data: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Each unit (column) as one 'sample' of one token: its co-occurrence counts over every pair
    of its values, and its number of values."""
    confusion = np.zeros((data.shape[1], n_classes * n_classes))
    counts = np.zeros(data.shape[1])
    for u in range(data.shape[1]):
        values = [int(v) for v in data[:, u] if np.isfinite(v)]
        counts[u] = len(values)
        for i in range(len(values)):
            for j in range(i + 1, len(values)):
                confusion[u, values[i] * n_classes + values[j]] += 1
    return confusion, counts


def test_nominal_alpha_reproduces_the_textbook_example():
    package = krippendorff.alpha(reliability_data=KRIPPENDORFF_2011, level_of_measurement="nominal")
    assert round(package, 3) == 0.743
    confusion, counts = _confusion_of_units(KRIPPENDORFF_2011, 6)
    assert nominal_statistic(confusion, counts, n_classes=6).value() == pytest.approx(package, abs=1e-9)
    # the same data as interval values (section D of the paper computes 0.849 for it)
    interval = krippendorff.alpha(reliability_data=KRIPPENDORFF_2011, level_of_measurement="interval")
    assert round(interval, 3) == 0.849
    assert interval_statistic(KRIPPENDORFF_2011.T).value() == pytest.approx(interval, abs=1e-9)


def _random_samples(seed: int, n: int, k_choices=(2, 2, 2, 3)) -> list[RatedSample]:
    rng = np.random.default_rng(seed)
    samples = []
    for i in range(n):
        k = int(rng.choice(k_choices))
        n_tokens = int(rng.integers(1, 9))
        true = (rng.uniform(20, 150), rng.uniform(3, 30), rng.uniform(-4, 4))
        ratings = []
        for j in range(k):
            cuts = sorted(rng.choice(np.arange(1, n_tokens), size=min(n_tokens - 1, int(rng.integers(0, 3))),
                                     replace=False).tolist()) if n_tokens > 1 else []
            boundaries = (0, *cuts)
            axes = tuple(str(rng.choice(AXIS_NAMES[:4])) for _ in boundaries)
            if rng.random() < 0.1:
                axes = (None,) * len(boundaries)          # flagged at step 1: no labels, no curve
                params = None
            elif rng.random() < 0.1:
                params = None
            else:
                params = tuple(round(float(t + rng.normal(0, s)), 1) for t, s in zip(true, (6.0, 3.0, 1.0)))
                params = (params[0], max(params[1], 0.5), params[2])
            ratings.append(rating(f"p{int(rng.integers(0, 6))}{j}", params, boundaries, axes, hours=j))
        samples.append(RatedSample(f"s{i}", 1, n_tokens, tuple(ratings)))
    return samples


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_alpha_equals_the_krippendorff_package(seed):
    samples = _random_samples(seed, 60)
    report = agreement_report(samples, resamples=0)
    # interval: coders = slots, units = samples
    k_max = max(len(s.ratings) for s in samples)
    for j, p in enumerate(("xi", "omega", "alpha")):
        data = np.full((k_max, len(samples)), np.nan)
        for u, s in enumerate(samples):
            for c, r in enumerate(s.ratings):
                if r.has_curve:
                    data[c, u] = getattr(r, p)
        assert report.headline[f"alpha_{p}"] == pytest.approx(package_alpha(data, "interval"), abs=1e-9)
        # coders = persons instead of slots: the same α
        persons = sorted({r.annotator for s in samples for r in s.ratings})
        by_person = np.full((len(persons), len(samples)), np.nan)
        for u, s in enumerate(samples):
            for r in s.ratings:
                if r.has_curve:
                    by_person[persons.index(r.annotator), u] = getattr(r, p)
        if p == "xi":
            assert package_alpha(by_person, "interval") == pytest.approx(package_alpha(data, "interval"), abs=1e-9)
    # nominal: units = tokens, value = the token's axis code per labelled rating
    columns = []
    for s in samples:
        codes = [token_axis_codes(r, s.n_tokens) for r in s.ratings if r.has_axis_labels]
        for t in range(s.n_tokens):
            column = np.full(k_max, np.nan)
            for c, code in enumerate(codes):
                column[c] = code[t]
            columns.append(column)
    tokens = np.array(columns).T
    assert report.headline["alpha_labels"] == pytest.approx(package_alpha(tokens, "nominal"), abs=1e-9)
    assert report.results["krippendorff_labels"].n_units == int((np.isfinite(tokens).sum(axis=0) >= 2).sum())


def test_alpha_of_perfect_agreement_is_one_and_of_no_data_is_nan():
    same = [RatedSample(f"s{i}", 1, 3, (rating("a", (40.0 + i, 5.0 + i, 0.1 * i), (0, 1), ("main", "static")),
                                         rating("b", (40.0 + i, 5.0 + i, 0.1 * i), (0, 1), ("main", "static"))))
            for i in range(4)]
    alphas = KrippendorffCurveMeasure().compute(same).values
    assert alphas == {"alpha_xi": 1.0, "alpha_omega": 1.0, "alpha_alpha": 1.0}
    assert KrippendorffLabelsMeasure().compute(same).values["alpha_labels"] == 1.0
    nothing = KrippendorffCurveMeasure().compute([RatedSample("x", 1, 3, (rating("a"),))])
    assert all(math.isnan(v) for v in nothing.values.values())


# --- intervals -------------------------------------------------------------------------------

def test_wilson_interval_known_value():
    low, high = wilson_interval(81, 263)          # Newcombe (1998), Table II: 0.2553 to 0.3662
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_sum_statistics_give_the_figures_they_stand_for():
    rng = np.random.default_rng(3)
    table = rng.normal(50, 10, size=(40, 2)) + rng.normal(0, 30, size=(40, 1))
    assert icc_statistic(table).value() == pytest.approx(icc_1_1(table), abs=1e-9)
    assert mean_statistic(np.array([1.0, np.nan, 4.0])).value() == 2.5


def test_bootstrap_is_reproducible_by_seed_and_changes_with_another():
    samples = _random_samples(5, 80, k_choices=(2,))
    one = agreement_report(samples, resamples=200, seed=7).intervals
    two = agreement_report(samples, resamples=200, seed=7).intervals
    other = agreement_report(samples, resamples=200, seed=8).intervals
    assert one == two
    assert one != other
    assert set(one) == set(HEADLINE_NAMES)
    report = agreement_report(samples, resamples=200, seed=7)
    for name in HEADLINE_NAMES:
        low, high = one[name]
        value = report.headline[name]
        assert low <= high
        assert low - 1e-9 <= value <= high + 1e-9 or name.startswith("icc") or name.startswith("alpha")


def test_bootstrap_interval_of_a_mean_is_close_to_normal_theory():
    values = np.random.default_rng(0).normal(size=400)
    low, high = bootstrap_intervals({"m": mean_statistic(values)}, 400, resamples=2000, seed=11)["m"]
    half = 1.96 * values.std(ddof=1) / math.sqrt(400)
    assert low < values.mean() < high
    assert (high - low) / 2 == pytest.approx(half, rel=0.15)


def test_intervals_undefined_figures_are_nan_and_json_null():
    report = agreement_report([RatedSample("x", 1, 3, (rating("a"), rating("b")))], resamples=50)
    assert all(math.isnan(low) and math.isnan(high) for name, (low, high) in report.intervals.items()
               if name.startswith("icc"))
    data = json.loads(json.dumps(report.to_json(), allow_nan=False))
    assert data["intervals"]["icc_xi"] == [None, None]
    assert set(data["intervals"]) == set(HEADLINE_NAMES)


def test_per_sample_table_and_json_carry_w1_and_overlap():
    report = agreement_report([shifted_pair("s1", 60.0, 4.0), shifted_pair("s2", 70.0, 2.0)])
    assert {"w1", "overlap"} <= set(report.per_sample.columns)
    data = report.to_json()
    assert data["per_sample"][0]["w1"] == pytest.approx(4.0, abs=1e-4)
    assert data["measures"]["curve"]["time_factor"] == pytest.approx(1.1 ** 3, rel=1e-6)
    assert data["pairs"][0]["w1"] == pytest.approx(3.0, abs=1e-4)
    assert data["headline"]["w1"] == pytest.approx(3.0, abs=1e-4)


def test_sample_set_shares_its_arrays():
    samples = SampleSet(_random_samples(9, 10))
    assert samples.curve_values is samples.curve_values
    assert samples.confusion.shape == (10, 64)
