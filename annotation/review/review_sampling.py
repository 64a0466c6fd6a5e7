"""The daily review sample: a reproducible share of each day's submissions for the lead (SPEC section 5).

Each day ``review_rate`` (default 10%) of the annotations submitted that day go to the lead's
review queue, flagged or not. The sample must be reproducible — recomputing it tomorrow, on
another app server, or from ids listed in another order gives the same ids — and samples of
different days must be independent.

Method: *hash ranking* (bottom-k sampling; Cohen & Kaplan 2007, "Summarizing data using bottom-k
sketches", PODC). Every annotation id gets the key ``SHA-256("{seed}|{day}|{id}")`` and the ``m``
ids with the smallest keys are taken. The key depends only on the project seed, the day and the id,
so the input order does not matter; a different day gives unrelated keys, so an independent
sample; and each id is equally likely to be chosen. A submission that arrives late changes the
sample by at most the one id at the margin, rather than reshuffling it.

Sample size: ``m = max(1, round_half_up(rate · n))`` for ``n > 0`` and ``rate > 0`` (never more
than ``n``), and 0 when ``rate`` is 0 or nothing was submitted — so a quiet day with a few
submissions still gets one reviewed. Halves round up: 10% of 25 is 3 (Python's banker's
``round`` would give 2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal


def review_sample_size(n_submitted: int, rate: float) -> int:
    """How many of ``n_submitted`` annotations the day's review sample holds at ``rate`` ∈ [0, 1]:
    0 when either is 0, otherwise ``max(1, round_half_up(rate · n))`` (at most ``n``).

    The product is computed in decimal on the rate as written (``0.15 · 10 = 1.5 → 2``), so
    binary rounding of the rate cannot move the result across a half.
    """
    if isinstance(n_submitted, bool) or not isinstance(n_submitted, int) or n_submitted < 0:
        raise ValueError(f"the number of submissions must be a whole number ≥ 0, not {n_submitted!r}")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"the review rate must be a number between 0 and 1, not {rate!r}")
    if n_submitted == 0 or rate == 0:
        return 0
    exact = Decimal(repr(float(rate))) * n_submitted
    size = int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return min(n_submitted, max(1, size))


def review_key(annotation_id: int, day: date, seed: int | str = 0) -> bytes:
    """The ranking key of one annotation on one day (smaller keys are sampled first)."""
    message = f"chronocept-review|{seed}|{_day(day).isoformat()}|{int(annotation_id)}"
    return hashlib.sha256(message.encode("utf-8")).digest()


def daily_review_sample(
    annotation_ids_of_day: Iterable[int],
    day: date,
    rate: float,
    seed: int | str = 0,
) -> tuple[int, ...]:
    """The ids of the day's submitted annotations that go to the review queue, ascending.

    ``annotation_ids_of_day``: ids of the annotations submitted on ``day`` (the calendar day in
    the project's time zone — the caller decides which submissions belong to it; duplicates are
    ignored). ``rate``: share to review (``settings.review_rate``). ``seed``: a per-project seed
    (e.g. the project id) so projects sample independently. Same inputs → same sample, in any
    input order. See the module docstring for the method and the size rule.
    """
    ids = sorted({_as_id(i) for i in annotation_ids_of_day})
    size = review_sample_size(len(ids), rate)
    if size == 0:
        return ()
    day = _day(day)
    ranked = sorted(ids, key=lambda i: (review_key(i, day, seed), i))
    return tuple(sorted(ranked[:size]))


def _day(day: date) -> date:
    # A datetime is a date too, but its isoformat carries the time; only the calendar day counts.
    if isinstance(day, datetime):
        return day.date()
    if not isinstance(day, date):
        raise ValueError(f"day must be a date, not {day!r}")
    return day


def _as_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"annotation ids must be whole numbers, not {value!r}")
    return value
