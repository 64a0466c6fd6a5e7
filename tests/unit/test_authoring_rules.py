"""Authoring follow-ups, the pure parts: the settled curve of a target and the next target, the
author's curve from durations against the intent, what a save refuses, and the validation share
with its minimum size. Also that no annotator-facing module reads a pair's intent."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from annotation.pairs.authoring import (
    FollowUpDraft,
    TargetGold,
    curve_from_durations,
    default_durations,
    follow_up_problem,
    next_target,
    read_intent,
    settled_curves,
)
from annotation.quality.author_validation import (
    MIN_SETTLED_PAIRS,
    AuthoredPair,
    AuthorValidation,
    author_validation,
)
from annotation.timeaxis import parse_duration

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 11, 1)
SETTLED = (95.0, 12.0, 2.0)


def test_the_settled_curve_is_the_earliest_decided_gold_of_the_target():
    golds = [TargetGold(5, "t", T0 + timedelta(days=2), (70.0, 9.0, 0.0)),
             TargetGold(9, "t", T0, (60.0, 8.0, 0.0)),
             TargetGold(2, "t", T0 + timedelta(days=1), (50.0, 7.0, 0.0)),
             TargetGold(1, "u", T0, (40.0, 6.0, 0.0))]
    chosen = settled_curves(golds)
    assert (chosen["t"].sample_id, chosen["t"].curve) == (9, (60.0, 8.0, 0.0))
    # a later gold of the target (another follow-up settled) does not move it
    assert settled_curves(golds + [TargetGold(11, "t", T0 + timedelta(days=9), (99.0, 9.0, 0.0))]) == chosen
    assert settled_curves([]) == {}


def test_the_next_target_has_the_fewest_authored_follow_ups_and_is_not_the_authors():
    settled = {k: TargetGold(i, k, T0 + timedelta(hours=i), SETTLED) for i, k in enumerate("abcd")}
    assert next_target(settled, {}, []).target_key == "a"              # ties: earliest settled
    assert next_target(settled, {"a": 3, "b": 3}, []).target_key == "c"
    assert next_target(settled, {"a": 3, "b": 3}, ["c", "d"]).target_key == "a"
    assert next_target({}, {}, []) is None


def test_the_authors_curve_starts_as_the_settled_one_and_reads_neutral():
    peak, half = default_durations(SETTLED)
    start = curve_from_durations(parse_duration(peak), parse_duration(half))
    assert read_intent(SETTLED, start, "neutral", 1.5).matches


@pytest.mark.parametrize("peak, half, label", [
    ("1 day", "3 days", "decreased"), ("1.5 weeks", "4 weeks", "neutral"), ("6 months", "2 years", "increased")])
def test_the_authors_durations_read_as_a_change(peak, half, label):
    curve = curve_from_durations(parse_duration(peak), parse_duration(half))
    reading = read_intent(SETTLED, curve, label, 1.5)
    assert reading.reading.label == label and reading.matches and reading.warning == ""
    other = next(x for x in ("decreased", "neutral", "increased") if x != label)
    assert read_intent(SETTLED, curve, other, 1.5).warning.startswith(f"Your curve says “{label}”")


def test_bad_durations_and_intents_are_refused_in_words():
    with pytest.raises(ValueError, match="must come after the peak"):
        curve_from_durations(600, 60)
    with pytest.raises(ValueError, match="one of"):
        read_intent(SETTLED, SETTLED, "kept", 1.5)


def _drafts(**texts):
    base = {"decreased": "It burned down.", "neutral": "I had tea.", "increased": "It was extended."}
    base.update(texts)
    return [FollowUpDraft(k, v, SETTLED) for k, v in base.items()]


@pytest.mark.parametrize("drafts, expected", [
    (_drafts(), None),
    (_drafts(neutral=""), "The follow-up to keep is empty."),
    (_drafts(neutral="  \n "), "The follow-up to keep is empty."),
    (_drafts(increased="x" * 5001), "The follow-up to increase can be at most 5000 characters (yours has 5001)."),
    (_drafts(increased="…!?"), "The follow-up to increase has no words."),
    (_drafts(increased="It  burned\tdown."), "The follow-ups to decrease and to increase are the same text; "
                                             "write a different one for each."),
    (_drafts()[:2], "Write exactly one follow-up for each change: decrease, keep and increase."),
    (_drafts() + _drafts()[:1], "Write exactly one follow-up for each change: decrease, keep and increase."),
])
def test_what_a_save_refuses(drafts, expected):
    assert follow_up_problem(drafts) == expected


def test_a_follow_up_at_the_limit_is_taken():
    assert follow_up_problem(_drafts(increased="y" * 5000)) is None


def test_a_missing_or_impossible_curve_is_refused():
    drafts = _drafts()
    assert "no curve yet" in follow_up_problem(drafts[:2] + [FollowUpDraft("increased", "Later.", None)])
    assert "cannot be used: omega" in follow_up_problem(
        drafts[:2] + [FollowUpDraft("increased", "Later.", (50.0, 0.001, 0.0))])


def test_the_validation_share_needs_its_minimum_of_settled_pairs():
    under = [AuthoredPair("ann", "increased", "increased")] * (MIN_SETTLED_PAIRS - 1)
    (v,) = author_validation(under + [AuthoredPair("ann", "neutral", "")] * 5)
    assert (v.written, v.settled, v.matching, v.share) == (MIN_SETTLED_PAIRS + 4, MIN_SETTLED_PAIRS - 1,
                                                           MIN_SETTLED_PAIRS - 1, None)
    assert v.shown.startswith("— (only 9 settled")
    (v,) = author_validation(under + [AuthoredPair("ann", "decreased", "neutral")])
    assert v.share == pytest.approx((MIN_SETTLED_PAIRS - 1) / MIN_SETTLED_PAIRS) and v.reason == ""
    assert v.shown == f"90 % ({MIN_SETTLED_PAIRS - 1} of {MIN_SETTLED_PAIRS} settled)"


def test_no_author_no_rows_and_zero_matching():
    assert author_validation([]) == []
    assert AuthorValidation("x", 10, 10, 0).shown == "0 % (0 of 10 settled)"


#: Everything an annotator's screen is built from: none may read a pair's intent or its
#: reference labels (sample_pairs.follow_ups_of is their one read of a pair).
ANNOTATOR_FACING = ("screens/queue.py", "screens/workbench.py", "screens/feedback.py",
                    "ui/workbench_view.py", "annotation/services/workbench/queue.py",
                    "annotation/services/workbench/workbench_events.py", "annotation/services/workbench/submission.py",
                    "annotation/services/quality/feedback.py")


@pytest.mark.parametrize("path", ANNOTATOR_FACING)
def test_no_annotator_facing_module_reads_the_intent(path):
    source = (ROOT / path).read_text()
    found = re.findall(r"intended_change|pairs_of\b|PairFacts|authored_curve|reference_change", source)
    assert not found, f"{path} reads {sorted(set(found))}: annotators see the follow-up only"
