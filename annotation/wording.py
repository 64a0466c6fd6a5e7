"""Counted nouns in user-facing messages: "1 segment", "2 segments", "segments 1 and 3".

Messages that build a count from data ("{n} segments") read wrongly when n is 1, and an
annotator sees such messages many times a day; every message in the domain that counts goes
through these two helpers, so the singular/plural rule lives in one place.
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
