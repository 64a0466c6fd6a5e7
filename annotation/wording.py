"""Counted nouns in user-facing messages: "1 segment", "2 segments", "segments 1 and 3"; and
time spent in the unit it is best read in ("45 s", "2.5 min").

Messages that build a count from data ("{n} segments") read wrongly when n is 1, and an
annotator sees such messages many times a day; every message in the domain that counts goes
through these helpers, so the singular/plural rule lives in one place.
"""

from __future__ import annotations

from collections.abc import Sequence


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` with the noun in the right number: ``counted(1, "segment")`` → "1 segment",
    ``counted(3, "axis label")`` → "3 axis labels"; irregular plurals are passed in."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def numbered(singular: str, numbers: Sequence[int], plural: str | None = None) -> str:
    """A noun followed by the numbers it names, joined as in a sentence:
    "segment 2", "segments 1 and 3", "segments 1, 2 and 4"."""
    shown = [str(n) for n in numbers]
    noun = singular if len(shown) == 1 else (plural or singular + "s")
    if len(shown) <= 1:
        return f"{noun} {''.join(shown)}".rstrip()
    return f"{noun} {', '.join(shown[:-1])} and {shown[-1]}"


def time_spent(seconds: float) -> str:
    """Time spent on a sample as people read it: seconds under a minute (a quick sample is not
    "0.0 min"), minutes with one decimal under an hour, hours beyond.

    Examples:
        >>> [time_spent(s) for s in (0.4, 2, 44.6, 59.6, 60, 150, 3599, 5400)]
        ['0 s', '2 s', '45 s', '1.0 min', '1.0 min', '2.5 min', '1.0 h', '1.5 h']
    """
    if round(seconds) < 60:
        return f"{round(seconds)} s"
    if round(seconds / 60, 1) < 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
