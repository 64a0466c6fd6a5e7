"""The third annotator's rule (annotation.quality.third_annotator) and its place in settling
(annotation.services.review.settle_plan.plan_settle, pure): when one more annotator is asked, which pair
settles k + 1 annotations, what the gold holds, and what still reaches a lead."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from annotation.review.deviation import ParameterSpread
from annotation.review.flags import FlagHit, flags_for_sample
from annotation.review.resolution import AnnotatorVersion
from annotation.quality.third_annotator import agreeing_pair, ask_another, gold_of_pair, pool_curve
from annotation.segmentation import Segmentation
from annotation.services.review.settle_plan import Submitted, plan_settle
from annotation.settings import ProjectSettings
from annotation.content import AnnotationContent

ON = ProjectSettings(third_annotator=True)
NO_SPREAD = ParameterSpread(None, None, None)
N_TOKENS = 8


def content(xi, boundaries=(0,), axes=("main",), **kw):
    return AnnotationContent(boundaries=boundaries, segment_axes=axes, xi=xi, omega=10.0, alpha=0.0, **kw)


def subs(*contents):
    return [Submitted(i + 1, 100 + i, c, f"ann{i}") for i, c in enumerate(contents)]


def sample(n_assigned=2, extra=0):
    return SimpleNamespace(n_tokens=N_TOKENS, status="active", is_warmup=False, n_assigned=n_assigned,
                           extra_annotators=extra)


def plan(smp, settings, annotations, **kw):
    return plan_settle(smp, settings, subs(*annotations), kw.pop("gold_source", None), kw.pop("item_open", False),
                       NO_SPREAD, **kw)


# --- the pure rule -------------------------------------------------------------------------------

def test_asked_only_for_automatic_flags_or_a_wide_gold_and_only_once():
    assert ask_another([FlagHit("segmentation_mismatch")], ON, 0)
    assert ask_another([FlagHit("axes_differ")], ON, 0)
    assert not ask_another([FlagHit("segmentation_mismatch"), FlagHit("multiple_peaks")], ON, 0)
    assert not ask_another([], ON, 0) and not ask_another([], ON, 0, gold_sd=10.0)  # at the limit
    assert ask_another([], ON, 0, gold_sd=10.01)
    assert not ask_another([FlagHit("curve_distance")], ON, 1, gold_sd=50.0)
    assert not ask_another([FlagHit("curve_distance")], ProjectSettings(), 0, gold_sd=50.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0])
def test_an_impossible_width_is_refused(bad):
    with pytest.raises(ValueError, match="SD"):
        ask_another([], ON, 0, gold_sd=bad)


def test_the_agreeing_pair_is_the_nearest_of_those_that_agree():
    w1 = {(0, 1): 1.0, (0, 2): 4.0, (1, 2): 2.0}
    disagree = {(0, 1)}  # the nearest pair is flagged (e.g. by segmentation): not chosen
    pick = agreeing_pair(3, lambda i, j: [FlagHit("pk_above_threshold")] if (i, j) in disagree else [],
                         lambda i, j: w1[i, j])
    assert pick == (1, 2)


def test_ties_go_to_the_first_pair_and_unmeasured_pairs_last():
    assert agreeing_pair(3, lambda i, j: [], lambda i, j: 3.0) == (0, 1)
    w1 = {(0, 1): math.nan, (0, 2): 9.0, (1, 2): math.nan}
    assert agreeing_pair(3, lambda i, j: [], lambda i, j: w1[i, j]) == (0, 2)
    assert agreeing_pair(3, lambda i, j: [], lambda i, j: math.nan) == (0, 1)


def test_no_pair_agrees():
    assert agreeing_pair(4, lambda i, j: [FlagHit("curve_distance")], lambda i, j: 1.0) is None
    with pytest.raises(ValueError, match="two annotations"):
        agreeing_pair(1, lambda i, j: [], lambda i, j: 1.0)


def test_pairs_judged_by_the_real_flags():
    """Two close curves and a far one: only pairs without the far one agree."""
    contents = [content(40.0), content(90.0), content(42.0)]

    def hits_of(i, j):
        return flags_for_sample([contents[i], contents[j]], N_TOKENS, NO_SPREAD, ON)

    assert agreeing_pair(3, hits_of, lambda i, j: abs(contents[i].xi - contents[j].xi)) == (0, 2)


def test_the_gold_takes_the_pairs_shape_and_pools_every_curve():
    a = AnnotatorVersion("a", Segmentation((0,), N_TOKENS), ("main",), 40.0, 10.0, 1.0)
    b = AnnotatorVersion("b", Segmentation((0, 4), N_TOKENS), ("main", "generic"), 80.0, 20.0, 4.0)
    c = AnnotatorVersion("c", Segmentation((0,), N_TOKENS), ("main",), 42.0, 12.0, 1.0)
    gold = gold_of_pair([a, b, c], (0, 2))
    assert gold.boundaries == (0,) and gold.segment_axes == (("main",),)
    assert (gold.xi, gold.omega, gold.alpha) == pytest.approx((54.0, 14.0, 2.0))
    assert gold.sources == ("a", "b", "c") and gold.pooling == "equal"
    assert gold.weights == pytest.approx((1 / 3,) * 3)
    assert pool_curve([a, b, c]).xi == gold.xi
    with pytest.raises(ValueError, match="pair"):
        gold_of_pair([a, b], (1, 2))


def test_the_pooling_rule_is_one_function_to_swap():
    a = AnnotatorVersion("a", Segmentation((0,), N_TOKENS), ("main",), 40.0, 10.0, 0.0)
    b = AnnotatorVersion("b", Segmentation((0,), N_TOKENS), ("main",), 60.0, 10.0, 0.0)
    first = gold_of_pair([a, b], (0, 1), pool=lambda vs: pool_curve(vs[:1]))
    assert first.xi == 40.0 and first.parameter_sources == ("a",)


# --- plan_settle -----------------------------------------------------------------------------------

def test_a_flagged_pair_asks_for_more_with_the_setting_on_and_goes_to_review_off():
    far = [content(40.0), content(90.0)]
    more = plan(sample(), ON, far)
    assert (more.result, more.extra, more.reasons, more.gold) == ("more", 1, (), None)
    off = plan(sample(), ProjectSettings(), far)
    assert off.result == "flagged" and off.extra is None and "curve_distance" in off.reasons


def test_an_agreeing_pair_settles_unless_the_gold_is_too_wide():
    near = [content(40.0), content(42.0)]
    assert plan(sample(), ON, near).result == "gold"
    assert plan(sample(), ON, near, gold_sd=3.0).result == "gold"
    wide = plan(sample(), ON, near, gold_sd=30.0)
    assert wide.result == "more" and wide.extra == 1
    assert plan(sample(), ProjectSettings(), near, gold_sd=30.0).result == "gold"


def test_an_annotators_flag_is_not_sent_to_a_third():
    flagged = content(90.0, flags=("multiple_peaks",), note="two peaks")
    p = plan(sample(), ON, [content(40.0), flagged], annotator_flags=True)
    assert p.result == "pending" and p.reasons[0] == "multiple_peaks" and p.extra is None


def test_an_escalated_sample_waits_for_its_third():
    p = plan(sample(2, 1), ON, [content(40.0), content(90.0)])
    assert p.result == "incomplete" and p.extra is None and p.reasons == ()


def test_three_with_an_agreeing_pair_settle_from_it():
    three = [content(40.0), content(90.0, boundaries=(0, 4), axes=("main", "static")), content(42.0)]
    p = plan(sample(3, 1), ON, three)
    assert p.result == "gold" and p.reasons == ()
    assert p.gold.boundaries == (0,) and p.gold.xi == pytest.approx((40 + 90 + 42) / 3)
    # asked once: the same three never ask again, even off
    assert plan(sample(3, 1), ProjectSettings(), three).result == "gold"


def test_three_who_all_disagree_reach_a_lead_with_every_flag():
    three = [content(10.0), content(60.0), content(110.0, boundaries=(0, 4), axes=("main", "static"))]
    p = plan(sample(3, 1), ON, three)
    assert p.result == "flagged" and p.extra is None
    assert {"curve_distance", "segmentation_mismatch"} <= set(p.reasons)
    named = {i for d in p.details for i in d["annotation_ids"]}
    assert named == {1, 2, 3}


def test_a_recheck_settles_a_waiting_sample_from_its_k_and_frees_the_slot():
    near = [content(40.0), content(42.0)]
    p = plan(sample(2, 1), ON, near, release=True)
    assert p.result == "gold" and p.extra == 0
    held = plan(sample(3, 1), ON, near, release=True)  # the third annotator holds the slot
    assert held.result == "incomplete" and held.extra is None
    off = plan(sample(2, 1), ProjectSettings(), [content(40.0), content(90.0)], release=True)
    assert off.result == "flagged" and off.extra == 0
    still = plan(sample(2, 1), ON, [content(40.0), content(90.0)], release=True)
    assert still.result == "incomplete"


def test_with_the_setting_off_settling_is_as_before():
    cases = [[content(40.0), content(42.0)], [content(40.0), content(90.0)],
             [content(40.0, boundaries=(0, 4), axes=("main", "static")), content(41.0)]]
    for contents in cases:
        for settings in (ProjectSettings(), ProjectSettings(third_annotator_sd_max=0.5)):
            p = plan(sample(), settings, contents)
            assert p.result in ("gold", "flagged") and p.extra is None


def test_every_pair_of_four_is_tried():
    """k = 3 asked for a fourth: a pair among four settles."""
    four = [content(10.0), content(60.0), content(110.0), content(61.0)]
    p = plan(sample(4, 1), ProjectSettings(annotators_per_sample=3, third_annotator=True), four)
    assert p.result == "gold" and p.gold.xi == pytest.approx(sum(c.xi for c in four) / 4)
    assert p.gold.sources == (100, 101, 102, 103)
