"""Automatic resolution (SPEC section 5): union of boundaries and axes, mean of the parameters."""

from __future__ import annotations

import random

import pytest

from annotation.axes import AXIS_NAMES
from annotation.content import AnnotationContent
from annotation.review.resolution import (
    EDITED,
    ONE_VERSION,
    UNION_MEAN,
    AnnotatorVersion,
    Resolution,
    resolve_pair,
    take_version,
)
from annotation.segmentation import Segmentation, SegmentationError


def version(who, boundaries, axes, n_tokens=8, params=(None, None, None)):
    xi, omega, alpha = params
    return AnnotatorVersion(who, Segmentation(tuple(boundaries), n_tokens), tuple(axes),
                            xi, omega, alpha)


# --- union of boundaries and axes ------------------------------------------------------------


def test_union_worked_example_nested():
    # 8 tokens. A: [0,5) main, [5,8) static. B: [0,3) main, [3,5) opinion, [5,8) static.
    # Union boundaries {0,5} ∪ {0,3,5} = [0, 3, 5].
    # [0,3): A main, B main → (main,); [3,5): A main, B opinion → (main, opinion);
    # [5,8): A static, B static → (static,).
    a = version("A", (0, 5), ("main", "static"))
    b = version("B", (0, 3, 5), ("main", "opinion", "static"))
    r = resolve_pair([a, b])
    assert r.boundaries == (0, 3, 5)
    assert r.segment_axes == (("main",), ("main", "opinion"), ("static",))
    assert r.n_tokens == 8 and r.method == UNION_MEAN and r.sources == ("A", "B")


def test_union_worked_example_crossing():
    # 8 tokens. A: [0,4) main, [4,8) static. B: [0,2) opinion, [2,6) main, [6,8) generic.
    # Union boundaries [0, 2, 4, 6].
    # tokens 0-1: A main,   B opinion → (main, opinion)
    # tokens 2-3: A main,   B main    → (main,)
    # tokens 4-5: A static, B main    → (main, static)   (AXES order: main, static, generic, …)
    # tokens 6-7: A static, B generic → (static, generic)
    a = version("A", (0, 4), ("main", "static"))
    b = version("B", (0, 2, 6), ("opinion", "main", "generic"))
    r = resolve_pair([a, b])
    assert r.boundaries == (0, 2, 4, 6)
    assert r.segment_axes == (("main", "opinion"), ("main",), ("main", "static"),
                              ("static", "generic"))
    assert r.segments_by_axis() == {
        "main": (0, 1, 2), "static": (2, 3), "generic": (3,), "hypothetical": (),
        "negation": (), "intention": (), "opinion": (0,), "recurrent": (),
    }


def test_union_matches_the_token_level_definition():
    """Each resolved segment's axes = every axis any annotator put on any of its tokens."""
    rng = random.Random(20261120)
    for _ in range(200):
        n = rng.randint(1, 15)
        k = rng.randint(2, 4)
        versions = []
        for who in range(k):
            starts = (0,) + tuple(sorted(rng.sample(range(1, n), rng.randint(0, n - 1))))
            axes = tuple(rng.choice(AXIS_NAMES + (None,)) for _ in starts)
            versions.append(version(who, starts, axes, n_tokens=n))
        r = resolve_pair(versions)
        assert set(r.boundaries) == set().union(*(v.segmentation.boundaries for v in versions))
        for (start, end), axes in zip(r.segmentation.spans, r.segment_axes):
            expected = {v.segment_axes[v.segmentation.segment_of(t)]
                        for v in versions for t in range(start, end)} - {None}
            assert set(axes) == expected
            assert list(axes) == sorted(axes, key=AXIS_NAMES.index)


def test_identical_versions_resolve_to_that_version():
    a = version("A", (0, 3, 5), ("main", "opinion", "static"), params=(30.0, 8.0, 0.5))
    b = version("B", (0, 3, 5), ("main", "opinion", "static"), params=(30.0, 8.0, 0.5))
    r = resolve_pair([a, b])
    one = take_version(a)
    assert (r.boundaries, r.segment_axes, r.xi, r.omega, r.alpha) == \
        (one.boundaries, one.segment_axes, one.xi, one.omega, one.alpha)


def test_swapping_annotators_changes_nothing_but_the_order_of_sources():
    a = version("A", (0, 4), ("main", "static"), params=(27.1, 9.8, 0.3))
    b = version("B", (0, 2, 6), ("opinion", "main", "generic"), params=(29.1, 11.8, -0.5))
    ab, ba = resolve_pair([a, b]), resolve_pair([b, a])
    assert (ab.boundaries, ab.segment_axes) == (ba.boundaries, ba.segment_axes)
    assert (ab.xi, ab.omega, ab.alpha) == pytest.approx((ba.xi, ba.omega, ba.alpha))
    assert ba.sources == ("B", "A")


def test_unlabelled_segments_add_no_axis():
    a = version("A", (0, 4), ("main", None))
    b = version("B", (0, 4), ("main", None))
    assert resolve_pair([a, b]).segment_axes == (("main",), ())


# --- parameters ------------------------------------------------------------------------------


def test_parameters_are_the_mean():
    a = version("A", (0,), ("main",), params=(27.1, 9.8, 0.3))
    b = version("B", (0,), ("main",), params=(29.1, 11.8, -0.5))
    r = resolve_pair([a, b])
    assert r.xi == pytest.approx(28.1)
    assert r.omega == pytest.approx(10.8)
    assert r.alpha == pytest.approx(-0.1)
    assert r.parameter_sources == ("A", "B") and r.has_parameters


def test_three_annotators_mean_and_union():
    a = version(1, (0,), ("main",), params=(30.0, 6.0, 1.0))
    b = version(2, (0, 4), ("main", "static"), params=(40.0, 9.0, -2.0))
    c = version(3, (0, 6), ("main", "recurrent"), params=(50.0, 12.0, 4.0))
    r = resolve_pair([a, b, c])
    assert r.boundaries == (0, 4, 6)
    assert r.segment_axes == (("main",), ("main", "static"), ("main", "static", "recurrent"))
    assert (r.xi, r.omega, r.alpha) == pytest.approx((40.0, 9.0, 1.0))
    assert r.sources == (1, 2, 3)


def test_annotations_without_parameters_are_left_out_of_the_mean():
    a = version("A", (0,), ("main",), params=(30.0, 6.0, 1.0))
    b = version("B", (0,), ("main",))
    c = version("C", (0,), ("main",), params=(40.0, 8.0, 2.0))
    r = resolve_pair([a, b, c])
    assert (r.xi, r.omega, r.alpha) == pytest.approx((35.0, 7.0, 1.5))
    assert r.sources == ("A", "B", "C") and r.parameter_sources == ("A", "C")


def test_no_parameters_anywhere_gives_none():
    r = resolve_pair([version("A", (0,), ("main",)), version("B", (0,), ("main",))])
    assert (r.xi, r.omega, r.alpha) == (None, None, None)
    assert not r.has_parameters and r.parameter_sources == ()


# --- one annotator's version -----------------------------------------------------------------


def test_take_version():
    b = version("B", (0, 3, 5), ("main", "opinion", None), params=(29.1, 11.8, -0.5))
    r = take_version(b)
    assert r.boundaries == (0, 3, 5)
    assert r.segment_axes == (("main",), ("opinion",), ())
    assert (r.xi, r.omega, r.alpha) == (29.1, 11.8, -0.5)
    assert r.sources == ("B",) and r.parameter_sources == ("B",) and r.method == ONE_VERSION


def test_take_version_without_a_curve():
    r = take_version(version("A", (0,), ("main",)))
    assert (r.xi, r.omega, r.alpha) == (None, None, None) and r.parameter_sources == ()


def test_from_content():
    c = AnnotationContent(boundaries=(0, 4), segment_axes=("main", "static"),
                          xi=27.1, omega=9.8, alpha=0.3)
    v = AnnotatorVersion.from_content("ann03", c, 10)
    assert v.segmentation == Segmentation((0, 4), 10)
    assert v.segment_axes == ("main", "static") and (v.xi, v.omega, v.alpha) == (27.1, 9.8, 0.3)
    with pytest.raises(SegmentationError):
        AnnotatorVersion.from_content("ann03", c, 3)


# --- validation ------------------------------------------------------------------------------


def test_mismatched_text_lengths_raise():
    a = version("A", (0, 5), ("main", "static"), n_tokens=8)
    b = version("B", (0, 5), ("main", "static"), n_tokens=9)
    with pytest.raises(ValueError, match="different lengths"):
        resolve_pair([a, b])


def test_nothing_to_resolve_raises():
    with pytest.raises(ValueError, match="no annotations"):
        resolve_pair([])


def test_annotator_version_is_checked():
    with pytest.raises(ValueError, match="2 axis labels for 1 segment$"):
        version("A", (0,), ("main", "static"))
    with pytest.raises(ValueError, match="unknown axis"):
        version("A", (0,), ("timeless",))
    with pytest.raises(ValueError, match="finite"):
        version("A", (0,), ("main",), params=(float("inf"), 1.0, 0.0))


def test_resolution_is_canonical_and_checked():
    r = Resolution(boundaries=[0, 3], segment_axes=[["opinion", "main", "main"], {"static"}],
                   xi=1.0, omega=2.0, alpha=0.0, sources=["lead"], n_tokens=5, method=EDITED)
    assert r.boundaries == (0, 3)
    assert r.segment_axes == (("main", "opinion"), ("static",))
    assert r.sources == ("lead",)
    with pytest.raises(ValueError, match="^1 axis set for 2 segments$"):
        Resolution((0, 3), (("main",),), None, None, None, (), 5)
    with pytest.raises(ValueError, match="unknown axis"):
        Resolution((0,), (("nope",),), None, None, None, (), 5)
    with pytest.raises(SegmentationError):
        Resolution((0, 7), ((), ()), None, None, None, (), 5)
    with pytest.raises(ValueError, match="method"):
        Resolution((0,), ((),), None, None, None, (), 5, method="vote")
