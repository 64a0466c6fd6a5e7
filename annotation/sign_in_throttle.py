"""How long a sign-in attempt must wait: exponential back-off over recent failures, per key.

Pure policy (no database): the accounts service counts the recent failed attempts for each key
and asks :func:`wait_for` how long the next attempt must wait after the latest of them.

Four keys are counted over the same sliding window, each with its own number of free failures:

* the **username from this address** (a user's own typos): 5 free;
* the **address**, whatever the usernames (one machine trying many names): 20 free;
* the **username**, from every address (distributed guessing of one account): 50 free;
* **everything** (a distributed attack on many accounts): 500 free — the global ceiling.

Past its free failures a key waits ``30 s · 2^(failures − free)`` after its latest failure,
capped at 15 minutes (30 s, 1 min, 2 min, 4 min, 8 min, 15 min, 15 min …). Nothing is ever locked
outright: the owner of an account who signs in from another address is held back only by the
username-wide and global ceilings, which a single attacker cannot reach alone.

A key below its free failures imposes no wait at all, whatever the time of its latest failure.
The service stores every attempt as a pending failure before its password check, so sign-ins
made at the same moment see each other's pending rows — stamped a few milliseconds *after* the
attempt's own clock reading, or by another app server's clock. Measuring "latest + 0 − now" for
such a key gave a positive wait and refused correct passwords; only a key past its free count
waits, and a failure stamped after ``now`` counts as made at ``now`` (so no wait exceeds the cap).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

#: the keys a sign-in attempt is counted under, in the order they are checked
KEYS = ("pair", "address", "username", "global")


@dataclass(frozen=True)
class ThrottlePolicy:
    """Free failures per key, back-off base and cap, and the counting window."""

    window: timedelta = timedelta(hours=1)
    base_wait: timedelta = timedelta(seconds=30)
    max_wait: timedelta = timedelta(minutes=15)
    free_per_pair: int = 5
    free_per_address: int = 20
    free_per_username: int = 50
    free_global: int = 500

    def free(self, key: str) -> int:
        return {"pair": self.free_per_pair, "address": self.free_per_address,
                "username": self.free_per_username, "global": self.free_global}[key]


@dataclass(frozen=True)
class Failures:
    """Recent failed attempts under one key: how many, and when the latest was."""

    count: int
    latest: datetime | None


def backoff(policy: ThrottlePolicy, failures: int, free: int) -> timedelta:
    """The wait after the latest failure once ``failures`` reach ``free``: ``base · 2^(failures −
    free)``, capped at ``policy.max_wait``; zero below ``free``.

    Examples
    --------
    >>> policy = ThrottlePolicy()
    >>> [int(backoff(policy, n, 5).total_seconds()) for n in (4, 5, 6, 7, 40)]
    [0, 30, 60, 120, 900]
    """
    if failures < free:
        return timedelta(0)
    k = failures - free
    if k >= 32:  # far past the cap; keeps 2**k small
        return policy.max_wait
    return min(policy.max_wait, policy.base_wait * (2 ** k))


def wait_for(policy: ThrottlePolicy, failures: dict[str, Failures], now: datetime) -> tuple[timedelta, str]:
    """The longest wait any key imposes on an attempt made at ``now``, and that key
    (``timedelta(0)`` and ``""`` when the attempt may go ahead).

    Only a key with at least its free failures waits; a failure stamped after ``now`` (a
    concurrent attempt's pending row) counts as made at ``now``.

    Examples
    --------
    >>> policy, t = ThrottlePolicy(), datetime(2026, 1, 1, 12, 0)
    >>> wait_for(policy, {"pair": Failures(5, t)}, t + timedelta(seconds=10))
    (datetime.timedelta(seconds=20), 'pair')

    Seven sign-ins pending a moment later than this one are below every free count:

    >>> wait_for(policy, {"global": Failures(7, t + timedelta(milliseconds=5))}, t)
    (datetime.timedelta(0), '')
    """
    longest, which = timedelta(0), ""
    for key in KEYS:
        seen = failures.get(key)
        if seen is None or seen.latest is None or seen.count < policy.free(key):
            continue
        remaining = min(seen.latest, now) + backoff(policy, seen.count, policy.free(key)) - now
        if remaining > longest:
            longest, which = remaining, key
    return longest, which


def describe_wait(wait: timedelta) -> str:
    """``wait`` for a person, rounded up: "30 seconds", "1 minute", "15 minutes".

    Examples
    --------
    >>> describe_wait(timedelta(seconds=0.2)), describe_wait(timedelta(seconds=61))
    ('1 second', '2 minutes')
    """
    seconds = max(1, math.ceil(wait.total_seconds()))
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def refusal_message(wait: timedelta, key: str) -> str:
    """What the sign-in page says to a throttled attempt (never which username exists).

    Examples
    --------
    >>> refusal_message(timedelta(seconds=30), "pair")
    'Too many sign-in attempts from here. Try again in 30 seconds.'
    """
    where = {"pair": "from here", "address": "from here", "username": "for this username"}.get(key, "right now")
    return f"Too many sign-in attempts {where}. Try again in {describe_wait(wait)}."
