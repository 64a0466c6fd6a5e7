"""One pass/fail verdict for every threshold (issue 12 item 3): the rule, the wording, the
shown number that never contradicts the verdict, and undefined figures with their reason."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.agreement import (
    ICC_RULE,
    JACCARD_RULE,
    PK_RULE,
    W1_RULE,
    Rule,
    icc_reason,
    judge,
    verdicts_summary,
)
from annotation.quality.qualification import (
    QualificationFigures,
    Thresholds,
    figure_checks,
    figure_verdicts,
    meets_thresholds,
)


# --- the examples ----------------------------------------------------------------------------

def test_pk_fails_above_its_maximum():
    v = judge(0.151, 0.15, rule=PK_RULE)
    assert v.passes is False
    assert v.text == "does not pass: Pk 0.151 is above the 0.15 maximum"
    assert "below" not in v.text


def test_pk_below_its_maximum_passes():
    v = judge(0.121, 0.15, rule=PK_RULE)
    assert (v.passes, v.text) == (True, "passes: Pk 0.121 < 0.15")


def test_jaccard_at_its_minimum_is_not_a_contradiction():
    # exactly 0.75: strict rule, does not pass — and says why instead of "0.750 below 0.75"
    v = judge(0.75, 0.75, rule=JACCARD_RULE)
    assert v.passes is False
    assert v.text == "does not pass: Jaccard 0.750 equals the 0.75 minimum; it must be above it"
    # a value that rounds to the threshold is shown with the digits that tell its side
    below = judge(0.7498, 0.75, rule=JACCARD_RULE)
    assert (below.passes, below.shown) == (False, "0.7498")
    assert below.text == "does not pass: Jaccard 0.7498 is below the 0.75 minimum"
    above = judge(0.75004, 0.75, rule=JACCARD_RULE)
    assert (above.passes, above.text) == (True, "passes: Jaccard 0.75004 > 0.75")


def test_a_passing_figure_reads_as_a_comparison():
    assert judge(0.812, 0.75, rule=JACCARD_RULE).text == "passes: Jaccard 0.812 > 0.75"
    assert judge(0.812, 0.75, rule=Rule("", minimum=True, inclusive=True)).text == "passes: 0.812 ≥ 0.75"


@pytest.mark.parametrize("value", [None, math.nan, np.float64("nan")])
def test_undefined_figures_show_a_dash_and_the_reason(value):
    v = judge(value, 0.9, rule=ICC_RULE, reason="needs ≥ 3 samples")
    assert (v.passes, v.shown, v.text, v.mark) == (None, "—", "— needs ≥ 3 samples", "—")
    assert "None" not in v.text and "nan" not in v.text.lower()
    # without a reason from the caller, the rule's own
    assert judge(value, 0.15, rule=PK_RULE).text == "— needs ≥ 1 sample with a segmentation"


# --- the rule --------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule, value, threshold, passes", [
    (ICC_RULE, 0.91, 0.9, True), (ICC_RULE, 0.9, 0.9, False), (ICC_RULE, 0.89, 0.9, False),
    (PK_RULE, 0.14, 0.15, True), (PK_RULE, 0.15, 0.15, False), (PK_RULE, 0.16, 0.15, False),
    (W1_RULE, 11.9, 12.0, True), (W1_RULE, 12.0, 12.0, True), (W1_RULE, 12.1, 12.0, False),
])
def test_minimum_or_maximum_and_equality(rule, value, threshold, passes):
    assert judge(value, threshold, rule=rule).passes is passes


def test_the_equality_wording_of_a_strict_maximum():
    assert judge(0.15, 0.15, rule=PK_RULE).text == \
        "does not pass: Pk 0.150 equals the 0.15 maximum; it must be below it"
    assert judge(12.5, 12.0, rule=W1_RULE).text == "does not pass: W1 12.500 is above the 12.00 maximum"


def test_the_shown_number_is_always_on_the_side_of_the_threshold_the_value_is():
    rng = np.random.default_rng(12)
    for threshold in (0.15, 0.75, 0.9, 0.155):
        values = threshold + rng.choice([-1, 1], 400) * 10.0 ** rng.uniform(-9, -1, 400)
        for value in values:
            for rule in (JACCARD_RULE, PK_RULE):
                v = judge(float(value), threshold, rule=rule)
                written = float(v.shown)
                assert (written > threshold) == (value > threshold)
                assert (written < threshold) == (value < threshold)


def test_summary_line():
    verdicts = {"icc": judge(None, 0.9, rule=ICC_RULE), "jaccard": judge(0.8, 0.75, rule=JACCARD_RULE),
                "pk": judge(0.2, 0.15, rule=PK_RULE)}
    assert verdicts_summary(verdicts) == "✗ Pk · — ICC"
    assert verdicts_summary({"pk": judge(0.1, 0.15, rule=PK_RULE)}) == "✓ all pass"


def test_icc_reasons_follow_the_icc_minimum():
    assert icc_reason(2, 2) == "needs ≥ 3 samples with every curve (2 so far)"
    assert icc_reason(1, 3) == "needs ≥ 2 samples with every curve (1 so far)"
    assert icc_reason(5, 1) == "needs ≥ 2 annotations per sample"
    assert icc_reason(4, 2, "not enough data: every rating has the same value (no variance)") == \
        "every rating has the same value (no variance)"


# --- qualification decides by the same function ------------------------------------------------------

def _figures(icc, jaccard, pk, n_done=32, n_total=32, n_with_curve=32):
    # enough samples (≥ 30) whose gold varies: the ICC judges the curves, the means the labels
    # and the segmentation (annotation.quality.qualification)
    return QualificationFigures(n_done, n_total, {p: icc for p in ("xi", "omega", "alpha")},
                                jaccard, pk, n_with_curve,
                                gold_spread={"xi": 20.0, "omega": 4.0, "alpha": 1.0})


def test_qualification_keeps_its_decisions():
    """The checks equal the old strict comparisons for values around each threshold."""
    t = Thresholds(0.9, 0.75, 0.15)
    grid = [None, 0.0, 0.14999, 0.15, 0.15001, 0.5, 0.74999, 0.75, 0.75001, 0.89999, 0.9, 0.90001, 1.0]
    for icc in grid:
        for jaccard in grid:
            for pk in grid:
                f = _figures(icc, jaccard, pk)
                old = {"curve": icc is not None and icc > 0.9,
                       "jaccard": jaccard is not None and jaccard > 0.75,
                       "pk": pk is not None and pk < 0.15}
                assert figure_checks(f, t) == old
                assert meets_thresholds(f, t) == all(old.values())
                verdicts = figure_verdicts(f, t)
                assert {k: v.passes is True for k, v in verdicts.items()} == old


def test_qualification_says_why_a_figure_is_missing():
    t = Thresholds()
    none_yet = figure_verdicts(_figures(None, None, None, n_done=0, n_with_curve=0), t)
    assert none_yet["jaccard"].text == "— needs ≥ 1 submitted warm-up sample"
    assert none_yet["curve"].text == "— needs ≥ 1 submitted warm-up sample with a curve"
    flagged_only = figure_verdicts(_figures(None, 0.8, 0.1, n_done=2, n_with_curve=0), t)
    assert flagged_only["curve"].text == "— needs ≥ 1 warm-up sample with a curve"
    off_axis = figure_verdicts(_figures(None, 0.8, 0.1, n_done=1, n_with_curve=1), t)
    assert off_axis["curve"].text == "— a curve lies off the time axis, so its distance to the gold is not defined"
    flat = _figures(None, 0.8, 0.1)
    flat = QualificationFigures(32, 32, {"xi": None, "omega": 0.95, "alpha": 0.95}, 0.8, 0.1, 32,
                                gold_spread=flat.gold_spread)
    assert figure_verdicts(flat, t)["curve"].text == "— no variance in ξ (every value the same)"
