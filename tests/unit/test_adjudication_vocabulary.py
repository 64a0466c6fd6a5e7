"""The adjudication vocabulary (issue 12 items 4 and 8): the lead's confidence and error type,
resolution sources, and W1 / Pk / Jaccard per sample against the independent implementations."""

from __future__ import annotations

import random
from datetime import datetime

import pytest

from annotation.adjudication import (
    ERROR_TYPES,
    SampleFigures,
    decision_record_problem,
    resolution_source,
    sample_figures,
)
from annotation.agreement import label_set_jaccard, pk_both_ways
from annotation.agreement.ratings import Rating
from annotation.curves.distance import curve_distance
from annotation.protocol import AnnotationContent
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
