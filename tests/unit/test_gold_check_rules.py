"""The gold-check rules (annotation.quality.gold_checks): pass rule, pause window, injection schedule,
scores against gold — hand-computed values."""

from __future__ import annotations

from datetime import datetime

import pytest

from annotation.agreement import Rating, label_set_jaccard
from annotation.quality.gold_checks import (
    CheckScores,
    CheckThresholds,
    block_length,
    check_passes,
    handout_seed,
    is_check_handout,
    pause_due,
    score_check,
    window_share,
)
from annotation.review.resolution import EDITED, Resolution
from annotation.settings import ProjectSettings

T = CheckThresholds(w1_max=12.0, jaccard_min=0.75, pk_max=0.15, window=4, min_pass=0.5)


def test_thresholds_come_from_the_settings():
    s = ProjectSettings(flag_w1_max=8.0, qualify_jaccard_min=0.6, qualify_pk_max=0.2,
                        gold_check_window=5, gold_check_min_pass=0.8)
    assert CheckThresholds.of(s) == CheckThresholds(8.0, 0.6, 0.2, 5, 0.8)


@pytest.mark.parametrize("scores, passed", [
    (CheckScores(0.0, 1.0, 0.0), True),
    (CheckScores(12.0, 0.8, 0.1), True),          # W1 exactly at flag_w1_max passes (flagged above)
    (CheckScores(1.0, 0.75, 0.1), False),         # Jaccard exactly at its minimum: qualification's
    (CheckScores(1.0, 0.8, 0.15), False),         # strict rules, so not a pass (nor is Pk at it)
    (CheckScores(12.0001, 1.0, 0.0), False),      # W1 above flag_w1_max
    (CheckScores(1.0, 0.7499, 0.0), False),       # Jaccard below qualify_jaccard_min
    (CheckScores(1.0, 1.0, 0.1501), False),       # Pk above qualify_pk_max
    (CheckScores(None, 1.0, 0.0), False),         # no curve submitted
    (CheckScores(1.0, None, 0.0), False),         # labels could not be compared
    (CheckScores(1.0, 0.8, None), True),          # Pk undefined (no window fits): not judged
])
def test_the_pass_rule(scores, passed):
    assert check_passes(scores, T) is passed


def test_the_pause_rule_over_a_window():
    # fewer than `window` judged checks never pause, however bad
    assert not pause_due([False] * 3, 4, 0.5)
    # the latest four: 1 of 4 passed (0.25 < 0.5) → pause; 2 of 4 (0.5) → not below → no pause
    assert pause_due([True, True, False, True, False, False, False], 4, 0.5)
    assert not pause_due([False, False, True, True, False, False], 4, 0.5)
    assert window_share([False, False, True, True, False, False], 4) == 0.5
    # old failures slide out of the window
    assert not pause_due([False] * 6 + [True] * 4, 4, 0.5)
    assert window_share([True] * 3, 4) is None
    assert pause_due([False], 1, 0.5) and not pause_due([True], 1, 1.0)


def test_the_injection_schedule_is_one_check_per_block_seeded_and_reproducible():
    seed = handout_seed(3, 17)
    for share, length in ((0.1, 10), (0.25, 4), (0.3, 4), (0.5, 2), (0.2, 5)):
        assert block_length(share) == length
        picks = [n for n in range(1, 10 * length + 1) if is_check_handout(n, share, seed)]
        assert len(picks) == 10 and sorted({(n - 1) // length for n in picks}) == list(range(10))
        assert picks == [n for n in range(1, 10 * length + 1) if is_check_handout(n, share, seed)]
    # the positions depend on the seed (another annotator gets another schedule)
    a = [n for n in range(1, 201) if is_check_handout(n, 0.1, handout_seed(3, 17))]
    b = [n for n in range(1, 201) if is_check_handout(n, 0.1, handout_seed(3, 18))]
    assert a != b and len(a) == len(b) == 20
    # not every L-th hand-out: the position inside a block varies
    assert len({(n - 1) % 10 for n in a}) > 1
    assert not any(is_check_handout(n, 0.0, seed) for n in range(1, 50))
    assert not is_check_handout(0, 0.5, seed)


GOLD = Resolution((0, 4), (("static",), ("main",)), 30.0, 8.0, 0.5, (), 14, method=EDITED)


def test_scores_against_gold_hand_computed():
    exact = score_check(GOLD, (0, 4), ("static", "main"), (30.0, 8.0, 0.5))
    assert exact.w1 == pytest.approx(0.0, abs=1e-12) and exact.jaccard == 1.0 and exact.pk == 0.0
    # the same curve moved 12.25 units: W1 = 12.25, up to the 401-point grid's discretisation
    moved = score_check(GOLD, (0, 4), ("static", "main"), (42.25, 8.0, 0.5))
    assert moved.w1 == pytest.approx(12.25, abs=1e-3)
    # one segment labelled main: 10 of 14 tokens agree; J = 10 / (14 + 14 − 10)
    whole = score_check(GOLD, (0,), ("main",), (30.0, 8.0, 0.5))
    assert whole.jaccard == pytest.approx(10 / 18)
    # flagged without a curve: no W1, and the check fails
    assert score_check(GOLD, (0,), ("main",), (None, None, None)).w1 is None
    # boundaries that do not fit the text: nothing comparable
    bad = score_check(GOLD, (0, 40), ("main", "main"), (30.0, 8.0, 0.5))
    assert bad.jaccard is None and bad.pk is None and not check_passes(bad, T)


def test_jaccard_equals_label_set_jaccard_for_one_axis_per_segment():
    when = datetime(2026, 11, 24)
    for boundaries, axes in (((0,), ("main",)), ((0, 4), ("static", "main")), ((0, 2, 9), ("main", "static", "main"))):
        mine = score_check(GOLD, boundaries, axes, (30.0, 8.0, 0.5)).jaccard
        gold = Rating("gold", when, (0, 4), ("static", "main"))
        assert mine == pytest.approx(label_set_jaccard(Rating("ann", when, boundaries, axes), gold, 14), abs=1e-12)
