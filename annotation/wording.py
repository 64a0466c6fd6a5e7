"""The wording of user-facing messages, where a rule would otherwise be repeated in each.

* Counted nouns: "1 segment", "2 segments", "segments 1 and 3". Messages that build a count from
  data ("{n} segments") read wrongly when n is 1, and an annotator sees such messages many times
  a day; every message in the domain that counts goes through :func:`counted` and
  :func:`numbered`, so the singular/plural rule lives in one place.
* A value from a user's file, shown in a refusal (:func:`shown`): as it was written, cut short.
* A refusal (:func:`refusal`): one line, one full stop after the reason, then what it means
  ("Nothing was imported.") — whatever the reason ended with.
* Time spent (:func:`time_spent`) in the unit it is best read in ("45 s", "2.5 min").
"""

from __future__ import annotations

import json
import re
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


def signed(value: float, digits: int = 2) -> str:
    """A number as a reader writes it: a minus sign (−, as the pages' ΔMSE and intervals) rather
    than a hyphen, and never "−0.00" for a value that rounds to zero.

    >>> signed(-0.31), signed(-1e-17), signed(0.456, 1)
    ('−0.31', '0.00', '0.5')
    """
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = f"{0.0:.{digits}f}"
    return text.replace("-", "−")


def shown(value: object, limit: int = 40) -> str:
    """A value read from a user's file as a message shows it: text quoted (invisible characters
    escaped, as Python writes it), anything else as JSON writes it — ``true``, ``NaN``,
    ``[1, 2]``, not Python's ``True``, ``nan`` — cut to ``limit`` characters.

    >>> shown("B 7"), shown(True), shown(float("nan")), shown(float("inf")), shown(None)
    ("'B 7'", 'true', 'NaN', 'Infinity', 'null')
    >>> shown("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
    """
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (ValueError, RecursionError):  # a value nested too deeply to write
            text = "a nested value"
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: What every refused import adds after its reason (:func:`refusal`): an import is all or nothing.
NOTHING_IMPORTED = "Nothing was imported."

_LINE_BREAKS = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


def refusal(reason: str, consequence: str) -> str:
    """``reason`` as one line ending in one full stop, then ``consequence`` (a sentence).

    >>> refusal("t.jsonl: line 3: Segmentation: a boundary is out of range.", "Nothing was imported.")
    't.jsonl: line 3: Segmentation: a boundary is out of range. Nothing was imported.'
    >>> refusal("p.csv: line 2: the target is missing or empty", "Nothing was imported.")
    'p.csv: line 2: the target is missing or empty. Nothing was imported.'
    """
    text = _LINE_BREAKS.sub(" ", str(reason)).strip().rstrip(".").rstrip()
    return f"{text}. {consequence}"


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
