"""Per-sample disagreement shown on the Review page, and which versions can be taken as gold."""

from __future__ import annotations

from annotation.content import AnnotationContent
from annotation.review.sample_disagreement import can_be_taken, sample_disagreement

CURVE = dict(xi=40.0, omega=10.0, alpha=0.0)


def test_boundaries_shared_placed_and_by_whom():
    d = sample_disagreement({
        1: AnnotationContent((0, 4, 8), ("main", "static", "main"), **CURVE),
        2: AnnotationContent((0, 4), ("main", "static"), xi=50.0, omega=12.5, alpha=-1.0),
        3: AnnotationContent((0, 2, 4), ("main", "main", "static")),
    }, 12)
    assert d.placed == {2, 4, 8} and d.shared == {4}
    assert d.unshared == ((2, (3,)), (8, (1,)))
    assert d.spread == {"xi": 10.0, "omega": 2.5, "alpha": 1.0}  # only versions with a curve
    assert all(sg is not None for sg in d.segmentations.values())


def test_a_version_whose_boundaries_do_not_fit_is_left_out_of_the_boundaries():
    d = sample_disagreement({
        "a": AnnotationContent((0, 30), ("main", "main"), **CURVE),
        "b": AnnotationContent((0, 3), ("main", "static")),
    }, 10)
    assert d.segmentations["a"] is None
    assert (d.placed, d.shared, d.unshared) == ({3}, {3}, ())
    assert d.spread == {"xi": None, "omega": None, "alpha": None}


def test_no_versions_nothing_placed():
    d = sample_disagreement({}, 5)
    assert (d.placed, d.shared, d.unshared) == (frozenset(), frozenset(), ())


def test_only_a_finished_version_can_be_taken():
    assert can_be_taken(AnnotationContent((0, 3), ("main", "static"), **CURVE))
    assert not can_be_taken(AnnotationContent((0, 3), ("main", None), **CURVE))
    assert not can_be_taken(AnnotationContent((0, 3), ("main", "static")))
