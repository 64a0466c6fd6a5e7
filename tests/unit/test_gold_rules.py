"""The gold obeys its own rules (SPEC section 14), on hand values: one axis per segment (where the
annotators' axes differ on a segment of the union, the sample goes to a lead), and a lead's change
label that the gold curves do not give is an override that needs a reason."""

from __future__ import annotations

import math

from annotation.review.gold_rules import (
    axes_differ_hits,
    axis_conflicts,
    change_override,
    override_problem,
    several_axes_problem,
)
from annotation.review.resolution import AnnotatorVersion, Resolution, resolve_pair
from annotation.segmentation import Segmentation

STEP = math.log(1.5) / math.log(1.1)  # ×1.5 in base-1.1 log minutes ≈ 4.254


def version(who, boundaries, axes, n=10):
    return AnnotatorVersion(who, Segmentation(boundaries, n), axes, 40.0, 10.0, 0.0)


def test_agreeing_axes_on_different_boundaries_are_no_conflict():
    # ann splits at 5, bob does not; both say main everywhere: the union's segments carry one axis
    ann, bob = version("ann", (0, 5), ("main", "main")), version("bob", (0,), ("main",))
    assert axis_conflicts([ann, bob]) == () and axes_differ_hits([ann, bob]) == ()
    assert resolve_pair([ann, bob]).segment_axes == (("main",), ("main",))


def test_a_segment_the_annotators_label_differently_is_named_with_who_chose_what():
    ann = version(7, (0, 6), ("main", "generic"))
    bob = version(9, (0, 6), ("main", "main"))
    eve = version(11, (0, 6), ("main", "generic"))
    conflict, = axis_conflicts([ann, bob, eve])
    assert (conflict.start, conflict.end) == (6, 10)
    assert conflict.axes == (("main", (9,)), ("generic", (7, 11)))  # AXES order: main before generic
    hit, = axes_differ_hits([ann, bob, eve], {7: (0, "alice"), 9: (2, "bob"), 11: (1, "eve")})
    assert hit.code == "axes_differ" and hit.automatic and hit.label == "Axes differ on a segment"
    assert hit.detail == "tokens 7–10 would carry two axes: Main (bob) and Generic (alice, eve)"
    assert hit.annotators == (0, 1, 2) and hit.value == 1.0


def test_an_unlabelled_segment_conflicts_with_nobody():
    ann, bob = version("ann", (0, 4), ("main", None)), version("bob", (0, 4), ("main", "static"))
    assert axis_conflicts([ann, bob]) == ()


def test_three_axes_and_two_segments_are_all_listed():
    a = version("a", (0, 3), ("main", "opinion"))
    b = version("b", (0, 3), ("static", "opinion"))
    c = version("c", (0, 3), ("generic", "opinion"))
    hit, = axes_differ_hits([a, b, c])
    assert hit.detail == ("tokens 1–3 would carry 3 axes: Main (annotation 1), Static (annotation 2), "
                          "Generic (annotation 3)")


def test_a_resolution_with_several_axes_on_a_segment_cannot_be_gold():
    merged = resolve_pair([version("a", (0, 5), ("main", "static")), version("b", (0, 5), ("main", "generic"))])
    assert merged.segment_axes == (("main",), ("static", "generic"))  # the proposal shows both
    assert several_axes_problem(merged) == (
        "Not stored: tokens 6–10 carry two axes (Static, Generic); the gold keeps one axis per segment — "
        "choose one (Edit) or take one version.")
    two = Resolution((0, 2, 5), (("main", "static"), ("main",), ("main", "generic")), 40.0, 10.0, 0.0, (), 10)
    assert "tokens 1–2 carry two axes (Main, Static) (and 1 more segment);" in several_axes_problem(two)
    one = Resolution((0, 5), (("main",), ("static",)), 40.0, 10.0, 0.0, (), 10)
    assert several_axes_problem(one) is None


def test_a_change_label_against_the_gold_curves_is_an_override():
    alone = (45.0, 10.0, 0.0)
    twice = (45.0 + 2 * STEP, 10.0, 0.0)     # valid ×2.25 as long: increased
    same = (45.0 + 1.0, 10.0, 0.0)            # ×1.1: neutral
    half = (45.0 - 2 * STEP, 10.0, 0.0)       # ×0.44: decreased
    assert change_override(alone, twice, "increased", 1.5) is None
    assert change_override(alone, twice, "decreased", 1.5) == "increased"
    assert change_override(alone, same, "increased", 1.5) == "neutral"
    assert change_override(alone, half, "neutral", 1.5) == "decreased"
    # against a project threshold of ×3 the same ×2.25 is neutral
    assert change_override(alone, twice, "increased", 3.0) == "neutral"
    assert change_override(None, twice, "decreased", 1.5) is None and change_override(alone, twice, "", 1.5) is None


def test_an_override_needs_a_reason_and_agreement_needs_none():
    assert override_problem("decreased", "increased", "  ") == (
        "Not stored: decreased is an override: the gold curves give increased. Say why in the note.")
    assert override_problem("decreased", "increased", "sarcasm") is None
    assert override_problem("increased", None, "") is None
