"""The lead's edit (review's "Edit" and the warm-up gold): validation and each edit."""

from __future__ import annotations

import pytest

from annotation.review.lead_edit import DEFAULT_PARAMETERS, LeadEdit
from annotation.review.resolution import EDITED, Resolution
from annotation.segmentation import SegmentationError


def test_it_is_validated_and_kept_in_canonical_form():
    e = LeadEdit(10, [0, 5], [["static", "main"], []], 1, 2, 0)
    assert e.boundaries == (0, 5) and e.segment_axes == (("main", "static"), ())
    assert (e.xi, e.omega, e.alpha) == (1.0, 2.0, 0.0) and isinstance(e.xi, float)
    with pytest.raises(SegmentationError):
        LeadEdit(10, (0, 12), ((), ()))
    with pytest.raises(ValueError, match="axis set"):
        LeadEdit(10, (0, 5), ((),))
    with pytest.raises(ValueError, match="unknown axis"):
        LeadEdit(10, (0,), (("nonsense",),))
    with pytest.raises(ValueError, match="collections"):
        LeadEdit(10, (0,), ("main",))
    with pytest.raises(ValueError, match="finite"):
        LeadEdit(10, xi=float("nan"))
    with pytest.raises(ValueError, match="finite"):
        LeadEdit(10, omega=None)  # type: ignore[arg-type]


def test_it_starts_from_the_proposal_or_the_default_curve():
    proposal = Resolution((0, 3), (("main",), ("main", "static")), 40.0, 8.0, 1.0, ("a", "b"), 6)
    e = LeadEdit.from_proposal(proposal, 6)
    assert (e.boundaries, e.segment_axes, e.xi, e.omega, e.alpha) == (
        (0, 3), (("main",), ("main", "static")), 40.0, 8.0, 1.0)
    without_curve = Resolution((0,), (("main",),), None, None, None, ("a",), 6)
    assert LeadEdit.from_proposal(without_curve, 6).xi == DEFAULT_PARAMETERS["xi"]
    assert LeadEdit.from_proposal(without_curve, 6).curve_problem  # a starting point, not a choice
    assert LeadEdit.from_proposal(None, 6) == LeadEdit(6, (0,), ((),), **DEFAULT_PARAMETERS, curve_ready=False)
    assert e.curve_problem is None


def test_boundary_clicks_keep_the_axes_of_surviving_segments():
    e = LeadEdit(10, (0, 5), (("main",), ("static", "opinion")))
    split = e.toggled(7)
    assert split.boundaries == (0, 5, 7)
    assert split.segment_axes == (("main",), ("static", "opinion"), ("static", "opinion"))
    assert split.toggled(7) == e
    assert e.toggled(0) is e and e.toggled(10) is e  # no gap there


def test_segment_axes_are_set_by_span_and_a_gone_segment_changes_nothing():
    e = LeadEdit(10, (0, 5), ((), ()))
    assert e.with_segment_axes(0, 5, ["opinion", "main"]).segment_axes == (("main", "opinion"), ())
    assert e.with_segment_axes(0, 10, ["main"]) is e


def test_typed_parameters_and_placed_points():
    e = LeadEdit(4, message="old fit message")
    typed = e.with_parameter("omega", 12)
    assert typed.omega == 12.0 and typed.message is None
    with pytest.raises(ValueError):
        e.with_parameter("scale", 1.0)
    one = e.with_point_event({"action": "add", "x": 100.0, "y": 0.5})
    assert len(one.points) == 1 and one.message and one.xi == e.xi  # too few points: typed curve stays


def test_the_resolution_is_an_edited_one_by_the_lead():
    gold = LeadEdit(4, (0, 2), (("main",), ("static",)), 50.0, 9.0, -1.0).resolution(("lead",))
    assert (gold.method, gold.sources, gold.parameter_sources) == (EDITED, ("lead",), ())
    assert (gold.boundaries, gold.segment_axes, gold.xi, gold.n_tokens) == ((0, 2), (("main",), ("static",)), 50.0, 4)
    assert LeadEdit(4, (0, 2), (("main",), ())).has_unlabelled_segment


def test_a_curve_is_stored_only_once_chosen_by_three_points_or_by_typing():
    """The gold editor once stored the default curve (ξ 60, ω 10, α 0) when only 2 of 3 clicked
    points had registered: the edit now says its curve is not set until points fit one or the
    lead types ξ, ω, α."""
    blank = LeadEdit.blank(6)
    assert blank.curve_problem == "The curve is not set yet: place 3–5 points on the chart or type ξ, ω and α."
    two = blank
    for x, y in ((27.6, 0.77), (21.6, 0.41)):
        two = two.with_point_event({"action": "add", "x": x, "y": y})
    assert (two.xi, two.omega, two.alpha) == (60.0, 10.0, 0.0) and len(two.points) == 2
    assert two.curve_problem.startswith("The curve is not set yet: 2 points are placed")
    three = two.with_point_event({"action": "add", "x": 31.6, "y": 0.41})
    assert three.curve_problem is None and three.xi != 60.0
    # a stored gold (curve chosen) with one stray point placed: the stray point must go or be joined
    stray = LeadEdit(6, xi=40.0, omega=8.0, alpha=1.0).with_point_event({"action": "add", "x": 10, "y": 0.1})
    assert stray.curve_problem.startswith("The curve is not set yet: 1 point is placed")
    assert stray.with_point_event({"action": "remove", "index": 0}).curve_problem  # nothing chosen since
    assert blank.with_parameter("xi", 60.0).curve_problem is None  # typed: chosen, even the default value
    assert two.with_parameter("omega", 10.0).curve_problem is None
