"""The daily review sample (SPEC section 5): reproducible, order-independent, day-keyed."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date, datetime, timedelta, timezone

import pytest

from annotation.review.review_sampling import daily_review_sample, review_sample_size

DAY = date(2026, 11, 20)


@pytest.mark.parametrize(
    ("n", "rate", "size"),
    [
        (0, 0.10, 0),
        (1, 0.10, 1),    # at least one when anything was submitted
        (4, 0.10, 1),
        (14, 0.10, 1),   # 1.4 → 1
        (15, 0.10, 2),   # 1.5 → 2 (half up)
        (25, 0.10, 3),   # 2.5 → 3 (banker's round would give 2)
        (70, 0.10, 7),
        (100, 0.10, 10),
        (10, 0.15, 2),   # 1.5 exactly, though 0.15 · 10 is 1.4999… in binary
        (10, 1.0, 10),
        (10, 0.0, 0),
        (3, 0.99, 3),
    ],
)
def test_sample_size(n, rate, size):
    assert review_sample_size(n, rate) == size


def test_sample_size_rejects_bad_input():
    for rate in (-0.1, 1.5, True, "0.1"):
        with pytest.raises(ValueError, match="review rate"):
            review_sample_size(10, rate)
    with pytest.raises(ValueError, match="whole number"):
        review_sample_size(-1, 0.1)


def test_sample_has_the_right_size_and_comes_from_the_day():
    ids = list(range(1000, 1070))
    sample = daily_review_sample(ids, DAY, 0.10, seed=7)
    assert len(sample) == 7
    assert set(sample) <= set(ids)
    assert list(sample) == sorted(set(sample))


def test_sample_is_reproducible():
    ids = list(range(1, 201))
    assert daily_review_sample(ids, DAY, 0.1, 7) == daily_review_sample(ids, DAY, 0.1, 7)


def test_sample_does_not_depend_on_input_order_or_duplicates():
    ids = list(range(1, 201))
    shuffled = ids[:]
    random.Random(3).shuffle(shuffled)
    expected = daily_review_sample(ids, DAY, 0.1, 7)
    assert daily_review_sample(shuffled, DAY, 0.1, 7) == expected
    assert daily_review_sample(iter(shuffled + ids[:50]), DAY, 0.1, 7) == expected
    assert daily_review_sample(tuple(reversed(ids)), DAY, 0.1, 7) == expected


def test_rate_zero_or_no_submissions_gives_nothing():
    assert daily_review_sample(range(1, 101), DAY, 0.0, 7) == ()
    assert daily_review_sample([], DAY, 0.1, 7) == ()


def test_one_submission_is_always_reviewed():
    assert daily_review_sample([42], DAY, 0.1, 7) == (42,)


def test_full_rate_reviews_everything():
    assert daily_review_sample([5, 3, 9], DAY, 1.0, 7) == (3, 5, 9)


def test_different_days_give_independent_samples():
    ids = range(1, 1001)
    a = set(daily_review_sample(ids, DAY, 0.1, 7))
    b = set(daily_review_sample(ids, DAY + timedelta(days=1), 0.1, 7))
    assert len(a) == len(b) == 100
    # independent 10% samples of 1000 share 10 ids on average (hypergeometric, SD ≈ 2.8)
    assert len(a & b) < 30


def test_different_project_seeds_give_independent_samples():
    ids = range(1, 1001)
    a = set(daily_review_sample(ids, DAY, 0.1, 7))
    b = set(daily_review_sample(ids, DAY, 0.1, 8))
    assert len(a & b) < 30


def test_every_id_is_equally_likely_over_many_days():
    ids = range(1, 51)  # 5 reviewed a day
    counts = Counter()
    for d in range(400):
        counts.update(daily_review_sample(ids, DAY + timedelta(days=d), 0.1, 7))
    assert sum(counts.values()) == 2000
    # each id is expected 40 times (binomial SD ≈ 6): all within ±4 SD
    assert all(15 <= counts[i] <= 65 for i in ids)


def test_a_late_submission_moves_at_most_one_id():
    ids = list(range(1, 61))  # 6 reviewed; with 61 ids still 6
    before = set(daily_review_sample(ids, DAY, 0.1, 7))
    after = set(daily_review_sample(ids + [61], DAY, 0.1, 7))
    assert len(before) == len(after) == 6
    assert len(before & after) >= 5


def test_a_datetime_counts_as_its_calendar_day():
    ids = range(1, 101)
    moment = datetime(2026, 11, 20, 18, 45, tzinfo=timezone.utc)
    assert daily_review_sample(ids, moment, 0.1, 7) == daily_review_sample(ids, DAY, 0.1, 7)


def test_bad_ids_and_days_are_refused():
    with pytest.raises(ValueError, match="whole numbers"):
        daily_review_sample(["7"], DAY, 0.1)
    with pytest.raises(ValueError, match="date"):
        daily_review_sample([1], "2026-11-20", 0.1)
