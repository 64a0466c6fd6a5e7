"""Sample flags (SPEC section 5): the shared vocabulary and the automatic rules, against values
computed by hand."""

from __future__ import annotations

import math

import pytest

from annotation.flag_reasons import (
    ANNOTATOR_FLAG_CODES,
    ANNOTATOR_FLAGS,
    AUTOMATIC_FLAG_CODES,
    PAIR_FLAG_CODES,
    FLAG_CODES,
    FLAG_LABELS,
    flag_label,
    flag_needs_note,
    is_automatic_flag,
)
from annotation.review.deviation import ParameterSpread, parameter_spread, spread_of_annotations
from annotation.review.flags import FlagHit, automatic_flags, flags_for_sample, one_per_reason
from annotation.content import AnnotationContent, ContentError
from annotation.segmentation import Segmentation
from annotation.settings import ProjectSettings

# SD of [50, 60, 70, 80]: mean 65, squared deviations 225 + 25 + 25 + 225 = 500,
# 500 / (4 − 1) = 166.67, sqrt = 12.9099. With sigma = 2 the threshold is 25.8199.
SD_50_80 = math.sqrt(500 / 3)
# A project whose SD is that, over 30 submitted annotations: enough for the σ rule (NEEDS["sigma"]).
SPREAD = ParameterSpread(xi=SD_50_80, omega=SD_50_80, alpha=SD_50_80, counts=(30, 30, 30))
# No SD yet: the fixed thresholds decide (defaults ξ 12, ω 15, α 10).
NO_SPREAD = ParameterSpread(None, None, None)
# A wide σ over 30 annotations (2σ = 100): the deviation rules stay quiet where a test is about another rule.
QUIET = ParameterSpread(50.0, 50.0, 50.0, counts=(30, 30, 30))


def seg(boundaries, n_tokens):
    return Segmentation(tuple(boundaries), n_tokens)


def codes(hits):
    return [h.code for h in hits]


# --- vocabulary ------------------------------------------------------------------------------


def test_annotator_vocabulary_is_unchanged():
    assert ANNOTATOR_FLAG_CODES == ("no_main_timeline", "not_present_tense", "multiple_peaks", "other")
    assert [f.code for f in ANNOTATOR_FLAGS] == list(ANNOTATOR_FLAG_CODES)
    assert flag_label("multiple_peaks") == "Needs more than one peak"
    assert flag_needs_note("other") and not flag_needs_note("not_present_tense")
    assert not any(is_automatic_flag(c) for c in ANNOTATOR_FLAG_CODES)


def test_automatic_codes_join_the_same_vocabulary():
    assert AUTOMATIC_FLAG_CODES == ("segmentation_mismatch", "pk_above_threshold",
                                    "xi_deviation", "omega_deviation", "alpha_deviation",
                                    "curve_distance", "axes_differ")
    assert FLAG_CODES == ANNOTATOR_FLAG_CODES + AUTOMATIC_FLAG_CODES + PAIR_FLAG_CODES + ("model_disagrees",)
    assert not is_automatic_flag("model_disagrees") and flag_label("model_disagrees") == "The model disagrees with the gold"
    assert set(FLAG_LABELS) == set(FLAG_CODES)
    for code in AUTOMATIC_FLAG_CODES:
        assert is_automatic_flag(code)
        assert flag_label(code) == FLAG_LABELS[code] != code
        assert not flag_needs_note(code)
    assert flag_label("segmentation_mismatch") == "Segmentation mismatch"
    assert flag_label("no_such_flag") == "no_such_flag"


def test_context_pair_codes_join_the_same_vocabulary():
    assert PAIR_FLAG_CODES == ("change_disagreement", "change_overridden", "intent_differs",
                               "given_xi_deviation", "given_omega_deviation", "given_alpha_deviation",
                               "given_curve_distance")
    for code in PAIR_FLAG_CODES:  # raised by the back office, recomputed when thresholds change
        assert is_automatic_flag(code) and not flag_needs_note(code)
    assert flag_label("change_overridden") == "Change label overridden"
    assert flag_label("given_curve_distance") == "Given the follow-up: curves far apart"
    with pytest.raises(ContentError, match="unknown flag"):
        AnnotationContent(flags=("change_overridden",)).check_shape()


def test_annotators_cannot_raise_automatic_flags():
    with pytest.raises(ContentError, match="unknown flag"):
        AnnotationContent(flags=("pk_above_threshold",)).check_shape()


def test_flag_hit_label_and_kind():
    hit = FlagHit("xi_deviation", "x", 26.0, 25.8, (0, 1))
    assert hit.label == "Location ξ deviates" and hit.automatic
    assert not FlagHit("other").automatic


# --- parameter spread ------------------------------------------------------------------------


def test_parameter_spread_is_the_sample_sd():
    spread = parameter_spread({"xi": [50, 60, 70, 80], "omega": [1.0, 3.0], "alpha": [2.0]})
    assert spread.xi == pytest.approx(12.9099, abs=1e-4)
    assert spread.omega == pytest.approx(math.sqrt(2))  # (1² + 1²) / 1
    assert spread.alpha is None  # one value: no SD
    assert spread.counts == (4, 2, 1)
    assert spread.sd("xi") == spread.xi and spread.count("omega") == 2


def test_parameter_spread_ignores_missing_values_and_keys():
    spread = parameter_spread({"xi": [50, None, 60, 70, None, 80]})
    assert spread.xi == pytest.approx(SD_50_80)
    assert spread.omega is None and spread.alpha is None and spread.counts == (4, 0, 0)
    assert parameter_spread({}) == ParameterSpread(None, None, None, (0, 0, 0))


def test_parameter_spread_of_identical_values_is_zero():
    assert parameter_spread({"xi": [3.0, 3.0, 3.0]}).xi == 0.0


def test_parameter_spread_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown parameter"):
        parameter_spread({"location": [1.0, 2.0]})
    with pytest.raises(ValueError, match="finite"):
        parameter_spread({"xi": [1.0, math.nan]})
    with pytest.raises(ValueError, match="unknown parameter"):
        SPREAD.sd("scale")


def test_spread_of_annotations_uses_those_with_parameters():
    anns = [AnnotationContent(xi=x, omega=10.0, alpha=0.0) for x in (50.0, 60.0, 70.0, 80.0)]
    anns.append(AnnotationContent(flags=("multiple_peaks",)))  # no curve
    spread = spread_of_annotations(anns)
    assert spread.xi == pytest.approx(SD_50_80)
    assert spread.omega == 0.0 and spread.counts == (4, 4, 4)


# --- segmentation mismatch -------------------------------------------------------------------


def test_equal_boundaries_raise_nothing():
    hits = automatic_flags([seg((0, 3, 5), 8), seg((0, 3, 5), 8)], [None, None], NO_SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert hits == ()


def test_different_boundaries_are_a_mismatch():
    hits = automatic_flags([seg((0, 5), 7), seg((0, 6), 7)], [None, None], NO_SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["segmentation_mismatch"]  # Pk is exactly 0.2: not above
    hit = hits[0]
    assert hit.value == 2.0 and hit.threshold == 0.0 and hit.annotators == (0, 1)
    # counted from 1, as the axes flag counts ("tokens 6–7 would carry two axes"): the segment
    # starts at token index 5 in one and 6 in the other, before the 6th and 7th token
    assert hit.detail == "annotations 1 and 2 differ in 2 boundaries (before tokens 6 and 7)"


def test_plain_boundary_lists_need_n_tokens():
    hits = automatic_flags([(0, 5), [0, 6]], [None, None], NO_SPREAD, pk_max=0.2, sigma=2.0,
                           n_tokens=7)
    assert codes(hits) == ["segmentation_mismatch"]
    with pytest.raises(ValueError, match="n_tokens"):
        automatic_flags([(0, 5), (0, 6)], [None, None], NO_SPREAD, pk_max=0.2, sigma=2.0)


# --- Pk --------------------------------------------------------------------------------------

# 7 tokens, A = [0, 5] (masses 5, 2), B = [0, 6] (masses 6, 1). Either way the reference's mean
# segment length is 3.5, half is 1.75 → window k = 2; 7 − 2 = 5 probes (i, i+2), i = 0..4.
# Same-segment? A: T T T F F; B: T T T T F → one disagreement (i = 3): Pk = 1/5 both ways = 0.2.


def test_pk_exactly_at_the_threshold_does_not_flag():
    hits = automatic_flags([seg((0, 5), 7), seg((0, 6), 7)], [None, None], NO_SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert "pk_above_threshold" not in codes(hits)


def test_pk_above_the_threshold_flags():
    hits = automatic_flags([seg((0, 5), 7), seg((0, 6), 7)], [None, None], NO_SPREAD,
                           pk_max=0.19, sigma=2.0)
    assert codes(hits) == ["segmentation_mismatch", "pk_above_threshold"]
    hit = hits[1]
    assert hit.value == 0.2 and hit.threshold == 0.19 and hit.annotators == (0, 1)


# 10 tokens, A = [0, 5] (5, 5), B = [0] (10). Pk(A | ref B): k = round(10/2) = 5, 5 probes
# (i, i+5), all split in A, none in B → 5/5 = 1. Pk(B | ref A): k = round(5/2) = 2 (segeval
# rounds half to even), 8 probes (i, i+2), A splits i = 3, 4 → 2/8 = 0.25. Mean 0.625.


def test_pk_is_averaged_both_ways():
    hits = automatic_flags([seg((0, 5), 10), seg((0,), 10)], [None, None], NO_SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["segmentation_mismatch", "pk_above_threshold"]
    assert hits[1].value == 0.625
    swapped = automatic_flags([seg((0,), 10), seg((0, 5), 10)], [None, None], NO_SPREAD,
                              pk_max=0.2, sigma=2.0)
    assert swapped[1].value == 0.625
    at = automatic_flags([seg((0, 5), 10), seg((0,), 10)], [None, None], NO_SPREAD,
                         pk_max=0.625, sigma=2.0)
    assert codes(at) == ["segmentation_mismatch"]


# --- parameter deviations --------------------------------------------------------------------


def test_deviation_just_above_two_sd_flags():
    # threshold 2 · 12.9099 = 25.82: |Δξ| = 26 flags
    hits = automatic_flags([seg((0,), 4)] * 2, [(50.0, 10.0, 0.0), (76.0, 10.0, 0.0)], SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["xi_deviation"]
    hit = hits[0]
    assert hit.value == 26.0
    assert hit.threshold == pytest.approx(25.8199, abs=1e-4)
    assert hit.annotators == (0, 1)
    assert "26.00" in hit.detail and "25.82" in hit.detail


def test_deviation_just_below_two_sd_does_not_flag():
    hits = automatic_flags([seg((0,), 4)] * 2, [(50.0, 10.0, 0.0), (75.0, 10.0, 0.0)], SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert hits == ()


def test_fitting_noise_never_flags_even_under_a_tight_sigma():
    """Two fits of the same curve can differ by ~1e-8 (seen on another CPU); against a tiny σ
    that would flag (8e-8 > 2 · 1e-8). A real difference above 2σ still does."""
    tight = ParameterSpread(xi=0.02, omega=0.02, alpha=0.02, counts=(30, 30, 30))  # 2σ = 0.04
    noise = [(50.0, 9.84000008, 0.3), (50.0, 9.8, 0.3)]  # |Δω| = 0.04 + 8e-8
    assert automatic_flags([None, None], noise, tight, pk_max=0.2, sigma=2.0) == ()
    real = [(50.0, 9.85, 0.3), (50.0, 9.8, 0.3)]
    assert codes(automatic_flags([None, None], real, tight, pk_max=0.2, sigma=2.0)) == ["omega_deviation"]


def test_a_sigma_of_fitting_noise_is_no_spread_however_many_annotations():
    """Fits of one curve moved along the axis differ by ~1e-5: σ_ω = 3e-5 over 32 annotations
    would make 2σ flag two copies of a curve. σ ≤ 0.01 is no spread: the fixed threshold decides."""
    noise = ParameterSpread(xi=8.8, omega=3e-5, alpha=0.005, counts=(32, 32, 32))
    copies = [(50.0, 9.80006, 0.3), (50.0, 9.8, 0.3)]
    assert automatic_flags([None, None], copies, noise, pk_max=0.2, sigma=2.0) == ()


def test_a_tiny_project_with_sigma_near_zero_no_longer_flags_a_hundredth():
    """Six annotations that agree give σ_ω ≈ 0; 2σ flagged |Δω| = 0.01. Under 30 annotations the
    fixed threshold (ω 15) decides: 0.01 is nothing, 16 is a flag that says which rule fired."""
    tiny = ParameterSpread(xi=0.0, omega=0.002, alpha=0.0, counts=(6, 6, 6))
    close = [(50.0, 9.81, 0.3), (50.0, 9.8, 0.3)]
    assert automatic_flags([None, None], close, tiny, pk_max=0.2, sigma=2.0) == ()
    (hit,) = automatic_flags([None, None], [(50.0, 25.8, 0.3), (50.0, 9.8, 0.3)], tiny, pk_max=0.2, sigma=2.0)
    assert (hit.code, hit.value, hit.threshold) == ("omega_deviation", 16.0, 15.0)
    assert hit.detail == ("|Δω| = 16.00 > 15.00 (fixed threshold: σ needs ≥ 30 submitted annotations, "
                          "6 so far) between annotations 1 and 2")


# Two near-identical curves: ξ 50, ω 10, α 2.00 and 5.54 (both skewed right; W1 ≈ 0.7). Their
# project's α values have σ = 1.596, so 2σ = 3.19 < |Δα| = 3.54.
NEAR_IDENTICAL = [(50.0, 10.0, 2.0), (50.0, 10.0, 5.54)]


def test_near_identical_curves_on_a_thin_sigma_do_not_flag():
    """σ_α from 8 annotations fired "|Δα| 3.54 > 2σ = 3.19"; the fixed α threshold (10) decides."""
    thin = ParameterSpread(xi=3.0, omega=2.0, alpha=1.596, counts=(8, 8, 8))
    assert automatic_flags([None, None], NEAR_IDENTICAL, thin, pk_max=0.2, sigma=2.0, w1_max=12.0) == ()


def test_the_sigma_rule_decides_from_30_annotations_and_says_so():
    one_short = ParameterSpread(xi=3.0, omega=2.0, alpha=1.596, counts=(29, 29, 29))
    assert automatic_flags([None, None], NEAR_IDENTICAL, one_short, pk_max=0.2, sigma=2.0) == ()
    enough = ParameterSpread(xi=3.0, omega=2.0, alpha=1.596, counts=(45, 45, 45))
    (hit,) = automatic_flags([None, None], NEAR_IDENTICAL, enough, pk_max=0.2, sigma=2.0)
    assert hit.code == "alpha_deviation"
    assert hit.value == pytest.approx(3.54) and hit.threshold == pytest.approx(3.192)  # 2 · 1.596
    assert hit.detail == "|Δα| = 3.54 > 2·σ = 3.19 (σ = 1.60 over 45 annotations) between annotations 1 and 2"


def test_below_the_minimum_the_project_fixed_thresholds_decide():
    thin = ParameterSpread(xi=3.0, omega=2.0, alpha=1.596, counts=(8, 8, 8))
    strict = {"xi": 12.0, "omega": 15.0, "alpha": 3.0}
    (hit,) = automatic_flags([None, None], NEAR_IDENTICAL, thin, pk_max=0.2, sigma=2.0, fixed_max=strict)
    assert (hit.code, hit.threshold) == ("alpha_deviation", 3.0)
    assert hit.detail == ("|Δα| = 3.54 > 3.00 (fixed threshold: σ needs ≥ 30 submitted annotations, 8 so far) "
                          "between annotations 1 and 2")
    # the fixed threshold is strict too: a difference exactly at it does not flag
    at = [(50.0, 10.0, 0.0), (62.0, 10.0, 0.0)]
    assert automatic_flags([None, None], at, thin, pk_max=0.2, sigma=2.0) == ()
    assert codes(automatic_flags([None, None], [(50.0, 10.0, 0.0), (62.5, 10.0, 0.0)], thin,
                                 pk_max=0.2, sigma=2.0)) == ["xi_deviation"]


def test_sigma_scales_the_threshold():
    params = [(50.0, 10.0, 0.0), (75.0, 10.0, 0.0)]
    hits = automatic_flags([None, None], params, SPREAD, pk_max=0.2, sigma=1.5)  # 19.36
    assert codes(hits) == ["xi_deviation"]


def test_each_parameter_is_checked_on_its_own_sd():
    spread = ParameterSpread(xi=10.0, omega=2.0, alpha=0.5, counts=(30, 30, 30))
    # |Δξ| = 15 < 20, |Δω| = 5 > 4, |Δα| = 1.5 > 1
    hits = automatic_flags([None, None], [(40.0, 8.0, 0.0), (55.0, 13.0, 1.5)], spread,
                           pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["omega_deviation", "alpha_deviation"]
    assert hits[0].value == 5.0 and hits[0].threshold == 4.0
    assert hits[1].value == 1.5 and hits[1].threshold == 1.0


def test_a_parameter_without_sd_takes_its_fixed_threshold():
    # σ undefined (its running sums went bad) over 40 annotations: ξ 100 > 12 and ω 89 > 15 flag,
    # α 0.9 < 10 does not; the α SD over 40 is used (2 · 0.5 = 1 > 0.9)
    spread = ParameterSpread(xi=None, omega=None, alpha=0.5, counts=(40, 40, 40))
    hits = automatic_flags([None, None], [(0.0, 1.0, 0.0), (100.0, 90.0, 0.9)], spread,
                           pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["xi_deviation", "omega_deviation"]
    assert "(fixed threshold: σ is undefined over 40 annotations)" in hits[0].detail


def test_a_spread_of_zero_over_many_annotations_takes_the_fixed_threshold():
    """45 annotations that all agree: σ = 0 is no spread (SPEC section 14), so 2σ = 0 does not
    flag every difference; the fixed threshold does, and says why."""
    spread = ParameterSpread(xi=0.0, omega=None, alpha=None, counts=(45, 45, 45))
    assert automatic_flags([None, None], [(1.0, 1.0, 0.0), (1.5, 1.0, 0.0)], spread,
                           pk_max=0.2, sigma=2.0) == ()
    (hit,) = automatic_flags([None, None], [(1.0, 1.0, 0.0), (14.0, 1.0, 0.0)], spread, pk_max=0.2, sigma=2.0)
    assert hit.detail == ("|Δξ| = 13.00 > 12.00 (fixed threshold: σ = 0.00 over 45 annotations, the values do "
                          "not vary) between annotations 1 and 2")


def test_annotations_without_parameters_skip_the_parameter_rules():
    hits = automatic_flags([seg((0,), 4)] * 2, [(50.0, 10.0, 0.0), None], SPREAD,
                           pk_max=0.2, sigma=2.0)
    assert hits == ()


# --- k > 2 -----------------------------------------------------------------------------------


def test_three_annotators_flag_when_any_pair_breaches_and_report_the_worst_pair():
    params = [(50.0, 10.0, 0.0), (70.0, 10.0, 0.0), (80.0, 10.0, 0.0)]
    # pairs: (0,1) Δ20, (0,2) Δ30 > 25.82, (1,2) Δ10
    hits = automatic_flags([None] * 3, params, SPREAD, pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["xi_deviation"]
    assert hits[0].annotators == (0, 2) and hits[0].value == 30.0


def test_three_annotators_none_breaching():
    params = [(50.0, 10.0, 0.0), (65.0, 10.0, 0.0), (75.0, 10.0, 0.0)]  # worst Δ 25
    assert automatic_flags([None] * 3, params, SPREAD, pk_max=0.2, sigma=2.0) == ()


def test_three_annotators_segmentation_one_pair_differs():
    segs = [seg((0, 5), 10), seg((0, 5), 10), seg((0,), 10)]
    hits = automatic_flags(segs, [None] * 3, NO_SPREAD, pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["segmentation_mismatch", "pk_above_threshold"]
    assert hits[0].annotators == (0, 2)  # first of the two equally bad pairs
    assert hits[1].annotators == (0, 2) and hits[1].value == 0.625


def test_three_annotators_one_without_curve():
    params = [(50.0, 10.0, 0.0), None, (80.0, 10.0, 0.0)]
    hits = automatic_flags([None] * 3, params, SPREAD, pk_max=0.2, sigma=2.0)
    assert codes(hits) == ["xi_deviation"] and hits[0].annotators == (0, 2)


def test_hits_come_in_vocabulary_order_and_swapping_changes_no_value():
    segs = [seg((0, 5), 10), seg((0,), 10)]
    params = [(50.0, 5.0, -1.0), (80.0, 40.0, 2.0)]
    spread = ParameterSpread(1.0, 1.0, 1.0, counts=(30, 30, 30))
    hits = automatic_flags(segs, params, spread, pk_max=0.2, sigma=2.0, w1_max=12.0)
    # every rule that compares two annotations; axes_differ is the gold's one-axis rule
    # (annotation.review.gold_rules), raised by settling from the merge
    assert codes(hits) == [c for c in AUTOMATIC_FLAG_CODES if c != "axes_differ"]
    swapped = automatic_flags(segs[::-1], params[::-1], spread, pk_max=0.2, sigma=2.0, w1_max=12.0)
    assert [(h.code, h.value, h.threshold) for h in swapped] == \
        [(h.code, h.value, h.threshold) for h in hits]


def test_one_annotation_raises_nothing():
    assert automatic_flags([seg((0, 2), 4)], [(1.0, 1.0, 1.0)], SPREAD, pk_max=0.0, sigma=0.1) == ()


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="one of each"):
        automatic_flags([seg((0,), 4)], [None, None], SPREAD, pk_max=0.2, sigma=2.0)
    with pytest.raises(ValueError, match="different lengths"):
        automatic_flags([seg((0,), 4), seg((0,), 5)], [None, None], SPREAD, pk_max=0.2, sigma=2.0)
    with pytest.raises(ValueError, match="three finite"):
        automatic_flags([None, None], [(1.0, 2.0), (1.0, 2.0, 3.0)], SPREAD, pk_max=0.2, sigma=2.0)


# --- the sample wrapper ----------------------------------------------------------------------


def content(boundaries=(0, 5), axes=("main", "static"), xi=50.0, omega=10.0, alpha=0.0, **kw):
    return AnnotationContent(boundaries=boundaries, segment_axes=axes, xi=xi, omega=omega,
                             alpha=alpha, **kw)


def test_flags_for_sample_puts_annotator_reasons_first():
    a = content(flags=("other", "not_present_tense"), note="Latin text")
    b = content(boundaries=(0,), axes=("main",), xi=80.0, flags=("not_present_tense",))
    hits = flags_for_sample([a, b], 10, SPREAD, ProjectSettings())
    assert codes(hits) == ["not_present_tense", "other", "segmentation_mismatch",
                           "pk_above_threshold", "xi_deviation", "curve_distance"]  # W1 30
    assert hits[0].annotators == (0, 1) and hits[0].value is None
    assert hits[1].annotators == (0,) and hits[1].detail == "Latin text"


def test_flags_for_sample_waits_for_the_second_annotation():
    hits = flags_for_sample([content(flags=("multiple_peaks",))], 10, SPREAD)
    assert codes(hits) == ["multiple_peaks"]
    assert flags_for_sample([content()], 10, SPREAD) == ()


def test_flags_for_sample_agreeing_annotations_have_no_flags():
    assert flags_for_sample([content(), content(xi=60.0)], 10, SPREAD) == ()


def test_flags_for_sample_reads_thresholds_from_settings():
    a, b = content(), content(boundaries=(0,), axes=("main",), xi=70.0)
    default = flags_for_sample([a, b], 10, SPREAD, ProjectSettings())
    assert codes(default) == ["segmentation_mismatch", "pk_above_threshold", "curve_distance"]
    relaxed = ProjectSettings(flag_pk_max=0.7, flag_sigma=1.0, flag_w1_max=20.5)  # 1σ = 12.9 < |Δξ| = 20
    assert codes(flags_for_sample([a, b], 10, SPREAD, relaxed)) == \
        ["segmentation_mismatch", "xi_deviation"]


def test_flags_for_sample_skips_an_unfinished_flagged_annotation():
    unfinished = AnnotationContent(boundaries=(0, 12), segment_axes=(None, None),
                                   flags=("multiple_peaks",))  # boundary past the text's end
    hits = flags_for_sample([content(), unfinished], 10, SPREAD)
    assert codes(hits) == ["multiple_peaks"]


def test_an_unfinished_flagged_annotation_is_not_compared_as_a_segmentation():
    from annotation.review.flags import ParameterSpread, flags_for_sample
    from annotation.content import AnnotationContent

    finished = AnnotationContent(boundaries=(0, 4), segment_axes=("main", "static"))
    unfinished = AnnotationContent(flags=("other",), note="garbled text")  # default (0,), (None,)
    hits = flags_for_sample([finished, unfinished], 10, ParameterSpread(None, None, None))
    assert [h.code for h in hits] == ["other"]


# --- curve distance (W1) --------------------------------------------------------------------


def test_curve_distance_flags_two_curves_further_apart_than_the_threshold():
    # two identical normals 13 units apart: W1 = 13 > 12, the second sits later (×1.1^13 = 3.45)
    hits = automatic_flags([None, None], [(50.0, 10.0, 0.0), (63.0, 10.0, 0.0)], QUIET,
                           pk_max=0.2, sigma=2.0, w1_max=12.0, names=["ann", "bob"])
    (hit,) = hits
    assert hit.code == "curve_distance" and hit.label == "Curves far apart" and hit.automatic
    assert hit.value == pytest.approx(13.0, abs=1e-3) and hit.threshold == 12.0
    assert hit.annotators == (0, 1)
    assert hit.detail == "curves ≈ ×3.5 apart (W1 13.0 > 12.0): bob's sits later"
    earlier = automatic_flags([None, None], [(63.0, 10.0, 0.0), (50.0, 10.0, 0.0)], QUIET,
                              pk_max=0.2, sigma=2.0, w1_max=12.0, names=["ann", "bob"])
    assert earlier[0].detail.endswith("ann's sits later")


def test_curve_distance_is_strict_and_off_without_a_threshold():
    params = [(50.0, 10.0, 0.0), (62.0, 10.0, 0.0)]   # W1 ≈ 12.0 (float32 densities: to 1e-4)
    assert automatic_flags([None, None], params, QUIET, pk_max=0.2, sigma=2.0,
                           w1_max=12.0 + 1e-6) == ()
    assert codes(automatic_flags([None, None], params, QUIET, pk_max=0.2, sigma=2.0,
                                 w1_max=11.9)) == ["curve_distance"]
    assert automatic_flags([None, None], params, QUIET, pk_max=0.2, sigma=2.0) == ()


def test_curve_distance_reports_the_worst_of_three_and_skips_missing_curves():
    params = [(50.0, 10.0, 0.0), None, (55.0, 10.0, 0.0), (70.0, 10.0, 0.0)]
    (hit,) = automatic_flags([None] * 4, params, QUIET, pk_max=0.2, sigma=2.0, w1_max=12.0)
    assert hit.annotators == (0, 3) and hit.value == pytest.approx(20.0, abs=1e-3)
    assert hit.detail.startswith("curves ≈ ×6.7 apart (W1 20.0 > 12.0): annotation 4's sits later")


def test_curve_distance_of_a_difference_in_width_says_so():
    (hit,) = automatic_flags([None, None], [(100.0, 5.0, 0.0), (100.0, 40.0, 0.0)], QUIET,
                             pk_max=0.2, sigma=2.0, w1_max=12.0, names=["ann", "bob"])
    assert hit.detail.endswith("they differ in spread or skew, not in place")


def test_flags_for_sample_reads_the_w1_threshold_from_settings():
    a, b = content(xi=40.0), content(xi=60.0)   # W1 20, inside 2σ (25.8)
    assert codes(flags_for_sample([a, b], 10, SPREAD, ProjectSettings(), ["ann", "bob"])) == ["curve_distance"]
    assert flags_for_sample([a, b], 10, SPREAD, ProjectSettings(flag_w1_max=25.0)) == ()


def test_a_reason_found_twice_is_listed_once_with_its_first_finding():
    raised = FlagHit("not_present_tense", "in the past", annotators=(1,))
    again = FlagHit("not_present_tense", "in the past", annotators=(1,))
    mismatch = FlagHit("segmentation_mismatch", "2 boundaries not shared", 2.0, 0.0, (0, 1))
    assert one_per_reason((raised, mismatch, again), lambda h: h.code) == (raised, mismatch)
    stored = [{"code": "other", "detail": "a"}, {"code": "other", "detail": "b"}, {"detail": "no code"}]
    assert one_per_reason(stored, lambda d: d.get("code", "")) == (stored[0], stored[2])
    assert one_per_reason((), lambda h: h.code) == ()
