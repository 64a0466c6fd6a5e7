"""The pure parts of settling a context pair: each annotator's effective change label, the
settled label, the pair gold and the pair's flags."""

from __future__ import annotations

import math

import pytest

from annotation.pairs.change import read_change
from annotation.review.deviation import ParameterSpread
from annotation.review.pair_settling import (
    change_choice,
    given_versions,
    pair_flag_hits,
    pair_gold,
    pair_version,
    settled_change,
)
from annotation.settings import ProjectSettings
from annotation.content import AnnotationContent

ALONE = dict(xi=45.0, omega=10.0, alpha=0.0)
NO_SPREAD = ParameterSpread(None, None, None)
PAIRS = ProjectSettings(protocol="pairs")


def pair(given_xi: float, change: str = "", **alone) -> AnnotationContent:
    return AnnotationContent(**{**ALONE, **alone}, context_xi=given_xi, context_omega=10.0,
                             context_alpha=0.0, change=change)


def codes(hits):
    return [h.code for h in hits]


@pytest.mark.parametrize("given_xi, label", [(62.0, "increased"), (46.0, "neutral"), (30.0, "decreased")])
def test_the_effective_label_is_the_derived_one_without_an_override(given_xi, label):
    choice = change_choice(pair(given_xi), 1.5)
    assert choice.label == choice.derived == label == read_change(
        (45.0, 10.0, 0.0), (given_xi, 10.0, 0.0), 1.5).label
    assert not choice.overridden


@pytest.mark.parametrize("override", ["decreased", "neutral"])
def test_an_override_counts_and_is_marked(override):
    choice = change_choice(pair(62.0, override), 1.5)
    assert (choice.label, choice.derived, choice.overridden) == (override, "increased", True)


def test_the_project_factor_decides_the_derived_label():
    # ξ 4 units later: ×1.46 — increased against ×1.2, neutral against ×1.5
    assert change_choice(pair(49.0), 1.2).label == "increased"
    assert change_choice(pair(49.0), 1.5).label == "neutral"


def test_no_label_without_both_curves():
    assert change_choice(AnnotationContent(**ALONE), 1.5) is None
    assert change_choice(AnnotationContent(context_xi=50.0, context_omega=9.0, context_alpha=0.0), 1.5) is None


def test_settled_label_majority_then_curves_then_order():
    assert settled_change(["neutral", "neutral", "increased"], None, None, 1.5) == "neutral"
    assert settled_change(["decreased", "increased"], (45.0, 10.0, 0.0), (62.0, 10.0, 0.0), 1.5) == "increased"
    # the settled curves say neutral, which nobody said: the first tied label in release order
    assert settled_change(["increased", "decreased"], (45.0, 10.0, 0.0), (46.0, 10.0, 0.0), 1.5) == "decreased"


def test_pair_gold_means_the_second_curves_and_settles_the_label():
    a, b = pair(60.0), pair(64.0, omega=12.0)
    gold = pair_gold([(1, a), (2, b)], 5, None, 1.5)
    assert gold.context == (62.0, 10.0, 0.0) and gold.change == "increased"
    assert pair_gold([(1, AnnotationContent(**ALONE))], 5, None, 1.5) == type(gold)(None, "")


def test_given_versions_are_one_unlabelled_segment_with_the_second_curve():
    versions = given_versions([("ann", pair(60.0)), ("bob", AnnotationContent(**ALONE))], 7)
    assert [(v.annotator, v.segmentation.boundaries, v.segment_axes, v.xi) for v in versions] == [
        ("ann", (0,), (None,), 60.0)]


def test_a_segmented_pair_keeps_its_segmentation():
    c = AnnotationContent(boundaries=(0, 3), segment_axes=("main", "static"), **ALONE)
    assert pair_version(1, c, 6, segmented=True).segment_axes == ("main", "static")
    assert pair_version(1, c, 6, segmented=False).segment_axes == (None,)


def test_no_pair_flag_when_the_annotators_agree_without_overrides():
    assert pair_flag_hits([pair(62.0), pair(63.0)], NO_SPREAD, PAIRS, settled="increased") == ()


def test_disagreeing_labels_name_everyone():
    hits = pair_flag_hits([pair(62.0), pair(46.0), pair(62.0)], NO_SPREAD, PAIRS, ["a", "b", "c"])
    assert codes(hits)[0] == "change_disagreement"
    assert hits[0].detail == "a: increased; b: neutral; c: increased" and hits[0].annotators == (0, 1, 2)


def test_an_override_agreeing_with_the_other_label_is_still_flagged():
    hits = pair_flag_hits([pair(52.0), pair(48.0, "increased")], NO_SPREAD, PAIRS, ["ann", "bob"])
    assert codes(hits) == ["change_overridden"] and hits[0].annotators == (1,)


@pytest.mark.parametrize("intent, settled, flagged", [
    ("increased", "increased", False), ("increased", "neutral", True), ("", "neutral", False),
    ("decreased", "", False),   # nothing settled (no curves): nothing to compare
])
def test_intent_differs(intent, settled, flagged):
    hits = pair_flag_hits([pair(62.0), pair(62.0)], NO_SPREAD, PAIRS, intended_change=intent, settled=settled)
    assert ("intent_differs" in codes(hits)) is flagged


def test_the_curve_rules_on_the_second_curve_have_their_own_codes():
    spread = ParameterSpread(2.0, 1.0, 0.5, (30, 30, 30))
    hits = pair_flag_hits([pair(60.0), pair(75.0)], spread, PAIRS, ["ann", "bob"])
    assert codes(hits) == ["given_xi_deviation", "given_curve_distance"]
    assert hits[0].detail.startswith("given the follow-up: |Δξ| = 15.00 > 2·σ = 4.00 (σ = 2.00 over 30 annotations)")
    assert math.isclose(hits[1].value, 15.0, abs_tol=1e-6) and "bob's sits later" in hits[1].detail


def test_the_second_curves_take_the_fixed_thresholds_while_sigma_is_thin():
    """σ_ξ = 2 from 10 annotations would flag |Δξ| = 5 (> 4); below 30 the fixed ξ threshold
    (12) decides, as for the first curves."""
    thin = ParameterSpread(2.0, 1.0, 0.5, (10, 10, 10))
    assert pair_flag_hits([pair(60.0), pair(65.0)], thin, PAIRS, ["ann", "bob"]) == ()
    hits = pair_flag_hits([pair(60.0), pair(75.0)], thin, PAIRS, ["ann", "bob"])
    assert codes(hits) == ["given_xi_deviation", "given_curve_distance"]
    assert hits[0].detail == ("given the follow-up: |Δξ| = 15.00 > 12.00 (fixed threshold: σ needs ≥ 30 submitted "
                              "annotations, 10 so far) between annotations 1 and 2")
    stricter = ProjectSettings(protocol="pairs", flag_xi_max=4.0)
    assert codes(pair_flag_hits([pair(60.0), pair(65.0)], thin, stricter)) == ["given_xi_deviation"]
