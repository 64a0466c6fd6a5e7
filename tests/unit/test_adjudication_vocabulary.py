"""The adjudication vocabulary (issue 12 items 4 and 8): the lead's confidence and error type,
resolution sources, and W1 / Pk / Jaccard per sample against the independent implementations."""

from __future__ import annotations

import random
from datetime import datetime

import pytest

from annotation.review.adjudication import (
    ERROR_TYPES,
    SampleFigures,
    decision_record_problem,
    pair_figures,
    resolution_source,
    sample_figures,
)
from annotation.agreement import label_set_jaccard, pk_both_ways
from annotation.agreement.ratings import Rating
from annotation.curves.distance import curve_distance
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation


@pytest.mark.parametrize("confidence", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("error_type", list(ERROR_TYPES))
def test_every_confidence_and_error_type_is_accepted(confidence, error_type):
    assert decision_record_problem(confidence, error_type) is None


@pytest.mark.parametrize("confidence, error_type, message", [
    (0, "other", "confidence"), (7, "other", "confidence"), (None, "other", "confidence"),
    (True, "other", "confidence"), (3.0, "other", "confidence"), ("3", "other", "confidence"),
    (3, "typo", "error type"), (3, None, "error type"), (3, "", "error type"),
    (3, "Guideline gap", "error type"),   # the label is not the code
])
def test_bad_values_are_named(confidence, error_type, message):
    assert message in decision_record_problem(confidence, error_type)


def test_error_types_are_the_four_of_the_issue():
    assert list(ERROR_TYPES.values()) == ["Ambiguous text", "Guideline gap", "Annotator error", "Other"]


def test_resolution_sources():
    assert [resolution_source(s) for s in ("auto", "accepted", "edited", "annotator", "pooled")] == [
        "automatic", "automatic", "edited", "taken", "pooled"]


def _random_content(rng, n_tokens, with_curve=True):
    cuts = sorted(rng.sample(range(1, n_tokens), rng.randint(0, min(3, n_tokens - 1))))
    boundaries = (0, *cuts)
    axes = tuple(rng.choice(["main", "static", "recurrent"]) for _ in boundaries)
    params = dict(xi=rng.uniform(10, 120), omega=rng.uniform(2, 30), alpha=rng.uniform(-3, 3)) if with_curve else {}
    return AnnotationContent(boundaries=boundaries, segment_axes=axes, **params)


def test_sample_figures_equal_the_independent_measures_pair_by_pair():
    rng = random.Random(7)
    samples = []
    for _ in range(60):
        n = rng.randint(4, 30)
        samples.append((n, [_random_content(rng, n), _random_content(rng, n)]))
    when = datetime(2026, 1, 5)
    for (n, (a, b)), got in zip(samples, sample_figures(samples)):
        ra = Rating("a", when, a.boundaries, a.segment_axes)
        rb = Rating("b", when, b.boundaries, b.segment_axes)
        assert got.jaccard == pytest.approx(label_set_jaccard(ra, rb, n), abs=1e-12)
        pk = pk_both_ways(Segmentation(a.boundaries, n), Segmentation(b.boundaries, n))
        if pk != pk:   # the window does not fit the text: no Pk
            assert got.pk is None
        else:
            assert got.pk == pytest.approx(pk, abs=1e-9)
        w1 = curve_distance((a.xi, a.omega, a.alpha), (b.xi, b.omega, b.alpha)).w1
        assert got.w1 == pytest.approx(w1, abs=1e-3)


def test_the_worst_pair_of_three_and_what_is_left_out():
    a = AnnotationContent(boundaries=(0,), segment_axes=("main",), xi=50.0, omega=10.0, alpha=0.0)
    b = AnnotationContent(boundaries=(0,), segment_axes=("static",), xi=55.0, omega=10.0, alpha=0.0)
    c = AnnotationContent(boundaries=(0, 2), segment_axes=("main", "static"), xi=70.0, omega=10.0, alpha=0.0)
    no_curve = AnnotationContent(boundaries=(0,), segment_axes=(None,))   # unfinished, flagged
    (f,) = sample_figures([(4, [a, b, c, no_curve])])
    assert f.w1 == pytest.approx(20.0, abs=1e-3)        # a and c
    assert f.jaccard == 0.0                             # a and b share no (token, axis)
    # a–c and b–c: (0,) against (0, 2); a–b agree (Pk 0); the unfinished one is left out
    assert f.pk == pytest.approx(pk_both_ways(Segmentation((0,), 4), Segmentation((0, 2), 4)))
    assert sample_figures([(4, [a]), (4, [])]) == [SampleFigures(), SampleFigures()]


def test_curve_means_are_what_the_agreement_report_computes_and_can_stand_in_for_it():
    """The export computes every pair of curves once (pair_figures, for the provenance) and hands
    the per-sample means to the card's report (SampleSet.use_curve_distances): the same figures
    as the report computing them itself, for k = 2 and k = 3 and samples without two curves."""
    from annotation.agreement import HEADLINE_MEASURES, agreement_report
    from annotation.agreement.ratings import RatedSample
    from annotation.agreement.tables import SampleSet, pairwise_curve_distances

    rng = random.Random(11)
    when = datetime(2026, 1, 5)
    contents, rated = [], []
    for i in range(40):
        n = rng.randint(4, 30)
        versions = [_random_content(rng, n) for _ in range(3 if i % 4 == 0 else 2)]
        if i % 9 == 0:
            versions[0] = AnnotationContent(boundaries=versions[0].boundaries,
                                            segment_axes=versions[0].segment_axes)   # no curve
        contents.append((n, versions))
        rated.append(RatedSample(f"s{i}", 1, n, tuple(
            Rating(f"ann{j}", when, v.boundaries, v.segment_axes, v.xi, v.omega, v.alpha)
            for j, v in enumerate(versions))))
    w1, overlap = pair_figures(contents).curve_means()
    own = SampleSet(rated)
    expected_w1, expected_overlap = pairwise_curve_distances(own.curve_values, own.n_curves)
    assert w1 == pytest.approx(expected_w1, abs=1e-12, nan_ok=True)
    assert overlap == pytest.approx(expected_overlap, abs=1e-12, nan_ok=True)
    given = SampleSet(rated)
    given.use_curve_distances(w1, overlap)
    computed = agreement_report(rated, measures=HEADLINE_MEASURES, breakdowns=False, resamples=100)
    reused = agreement_report(given, measures=HEADLINE_MEASURES, breakdowns=False, resamples=100)
    assert reused.headline == pytest.approx(computed.headline, nan_ok=True)
    assert reused.intervals["w1"] == pytest.approx(computed.intervals["w1"])
    with pytest.raises(ValueError, match="one W1 and one overlap per sample"):
        SampleSet(rated).use_curve_distances(w1[:3], overlap)


def test_one_table_names_every_decision_everywhere():
    """The service, the Review page, the history, Feedback and the export read one table."""
    from annotation.review.adjudication import DECISIONS, RESOLUTION_SOURCES, decision_named
    from annotation.services.review import review

    names = [d.name for d in DECISIONS]
    assert names == ["accept_auto", "accept_pooled", "take_version", "edit", "send_back", "discard"]
    assert set(review._HANDLERS) == set(names)  # a handler per decision, no more
    assert len({d.choice for d in DECISIONS}) == len(DECISIONS)  # one option each on the page
    # every decision that stores gold names the export's source for it; the others store none
    for d in DECISIONS:
        assert (d.gold_source is None) == (d.export_value is None) == (d.name in ("send_back", "discard"))
        if d.gold_source:
            assert resolution_source(d.gold_source) == d.export_value
    assert RESOLUTION_SOURCES["auto"] == "automatic"
    assert decision_named("discard").needs == "note" and decision_named("edit").needs == "edit"
    assert decision_named(None) is None and decision_named("approve") is None
