"""Agreement measures of context pairs on hand-made data: the change label's kappa and α against
scikit-learn and the krippendorff package, the rules that leave a figure out, the gold against
reference labels, and which measures a pairs report runs."""

from __future__ import annotations

import math
import random
from datetime import datetime

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.agreement import AgreementInputError, RatedSample, Rating, agreement_report
from annotation.agreement.change_agreement import ChangeLabelMeasure, change_codes, change_figures
from annotation.agreement.pair_agreement import change_result, pair_measures
from annotation.agreement.reference_agreement import ReferenceRow, compare_with_reference, reference_agreement
from annotation.pairs.change import CHANGE_LABELS
from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS
from annotation.settings import ProjectSettings

T = datetime(2026, 1, 5)


def sample(i: int, *labels: str | None) -> RatedSample:
    return RatedSample(f"s{i}", 1, 3, tuple(Rating(f"a{j}", T, (0,), (None,), 40.0 + i, 10.0, 0.0, change=label)
                                           for j, label in enumerate(labels)))


def test_kappa_and_alpha_equal_the_libraries_on_random_labels():
    rng = random.Random(3)
    first = [rng.choice(CHANGE_LABELS) for _ in range(40)]
    second = [x if rng.random() < 0.6 else rng.choice(CHANGE_LABELS) for x in first]
    samples = [sample(i, a, b) for i, (a, b) in enumerate(zip(first, second))]
    f = ChangeLabelMeasure().compute(samples).figures
    assert f.kappa == pytest.approx(cohen_kappa_score(first, second))
    data = [[CHANGE_LABELS.index(x) for x in first], [CHANGE_LABELS.index(x) for x in second]]
    assert f.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    assert f.agreement == pytest.approx(np.mean([a == b for a, b in zip(first, second)]))
    assert sum(map(sum, f.counts)) == 40


def test_alpha_takes_every_label_of_three_annotators_and_missing_ones():
    labels = [("increased", "increased", "neutral"), ("neutral", "neutral", None), ("decreased", "decreased", "decreased"),
              ("increased", "neutral", "neutral"), ("decreased", None, "decreased"), ("neutral", "neutral", "neutral")]
    f = change_figures(change_codes([sample(i, *x) for i, x in enumerate(labels)]))
    # the package, coders × units, NaN where a label is missing (missing ones shift left in slots)
    rows = [[CHANGE_LABELS.index(v) for v in x if v is not None] for x in labels]
    data = np.full((3, len(rows)), np.nan)
    for u, values in enumerate(rows):
        data[:len(values), u] = values
    assert f.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    assert f.n_samples == 6 and f.agreement == pytest.approx(4 / 6)


def test_ratings_without_a_label_are_left_out():
    f = ChangeLabelMeasure().compute([sample(0, "neutral", None), sample(1, None, None)]).figures
    assert f.n_samples == 0 and f.note.startswith("needs ≥ 5")


def test_one_label_throughout_has_no_kappa_and_says_why():
    f = ChangeLabelMeasure().compute([sample(i, "increased", "increased") for i in range(8)]).figures
    assert math.isnan(f.kappa) and math.isnan(f.alpha) and f.agreement == 1.0
    assert f.note == "every change label is increased: chance agreement is 1, so kappa and α are undefined"


def test_the_minimum_holds_exactly_at_five():
    labels = [("increased", "neutral"), ("neutral", "neutral"), ("decreased", "decreased"), ("increased", "increased")]
    four = [sample(i, *x) for i, x in enumerate(labels)]
    assert math.isnan(ChangeLabelMeasure().compute(four).figures.kappa)
    assert not math.isnan(ChangeLabelMeasure().compute([*four, sample(9, "neutral", "neutral")]).figures.kappa)


def test_a_rating_refuses_an_unknown_change_label():
    with pytest.raises(AgreementInputError, match="unknown change label 'longer'"):
        Rating("ann", T, (0,), (None,), change="longer")


def test_a_pairs_report_runs_the_change_measure_per_annotator_pair():
    samples = [sample(i, "increased" if i % 2 else "neutral", "increased") for i in range(10)]
    report = agreement_report(samples, measures=pair_measures(False))
    assert change_result(report).figures.n_samples == 10
    pair, = report.pairs
    assert pair.figures["change_agreement"] == pytest.approx(0.5)
    assert list(report.per_sample["change_agree"]) == [0.0, 1.0] * 5
    assert math.isnan(report.headline["jaccard"])   # not run: nothing segmented


def test_the_protocol_decides_the_measures():
    names = lambda measures: [m.name for m in measures]  # noqa: E731
    assert "change" not in names(SINGLE_TEXTS.agreement_measures(ProjectSettings()))
    assert names(CONTEXT_PAIRS.agreement_measures(ProjectSettings(protocol="pairs"))) == [
        "icc", "curve", "krippendorff_curve", "change"]
    segmented = names(CONTEXT_PAIRS.agreement_measures(ProjectSettings(protocol="pairs", segment_targets=True)))
    assert {"jaccard", "kappa", "segmentation", "change"} <= set(segmented)


def test_reference_accuracy_and_kappa_equal_the_libraries():
    rng = random.Random(5)
    gold = [rng.choice(CHANGE_LABELS) for _ in range(30)]
    ref = [x if rng.random() < 0.7 else rng.choice(CHANGE_LABELS) for x in gold]
    f = compare_with_reference("change", gold, ref, CHANGE_LABELS)
    assert f.n == 30 and f.accuracy == pytest.approx(np.mean([a == b for a, b in zip(gold, ref)]))
    assert f.kappa == pytest.approx(cohen_kappa_score(gold, ref))


def test_reference_classes_come_from_the_gold_curves():
    # (45, 10, 0): half gone after ≈ 3.7 hours, class 6 "2–6 hours"; (62, 10, 0): class 7
    rows = [ReferenceRow("increased", (45.0, 10.0, 0.0), (62.0, 10.0, 0.0), "increased", 6, 7 if i < 4 else 8)
            for i in range(6)]
    change, alone, given = reference_agreement(rows)
    assert (alone.n, alone.accuracy) == (6, 1.0) and math.isnan(alone.kappa) and "throughout" in alone.note
    assert (given.n, given.accuracy) == (6, pytest.approx(4 / 6))
    assert given.kappa == pytest.approx(cohen_kappa_score([7] * 6, [7, 7, 7, 7, 8, 8], labels=list(range(12))))


def test_reference_rows_without_a_value_are_left_out():
    rows = [ReferenceRow("", (45.0, 10.0, 0.0), None, "neutral", None, 3)] * 6
    change, alone, given = reference_agreement(rows)
    assert change.n == alone.n == given.n == 0
