"""The logarithmic time axis of the Chronocept protocol (SPEC section 4).

Time is measured in **minutes since publication**. The chart's x axis is

    x = ln(t) / ln(b)            (t in minutes, default base b = 1.1)

so one minute is x = 0, one hour is x ≈ 42.96, one day ≈ 76.30, one week ≈ 96.72,
30 days ≈ 111.99, one year (365.25 days) ≈ 138.21 and one decade ≈ 162.37. The chart spans
x ∈ [0, 200]. One minute is the floor: nothing is valid for less than a minute on this axis, so
shorter times are clamped to one minute (x = 0).

Stored curve parameters are always in base 1.1; :func:`convert_base` rewrites them in another
base for export (location and scale scale by ``ln(m)/ln(b)``, the shape is unchanged).

The base is defined here and nowhere else (:data:`DEFAULT_BASE`).

Reference: Chronocept (temporal validity as a skew-normal curve on a log-time axis).
"""

from __future__ import annotations

import math
import re
from typing import overload

import numpy as np

#: The log base of the stored values and of the chart.
DEFAULT_BASE: float = 1.1
#: Chart range on the x axis (base-``DEFAULT_BASE`` log minutes).
X_MIN: float = 0.0
X_MAX: float = 200.0
#: Nothing is valid for less than one minute: shorter times map to x = 0.
MINUTE_FLOOR: float = 1.0

# Unit sizes in minutes. A month is 30 days and a year 365.25 days (as in SPEC section 4).
MINUTES_PER_HOUR = 60.0
MINUTES_PER_DAY = 24 * MINUTES_PER_HOUR
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
MINUTES_PER_MONTH = 30 * MINUTES_PER_DAY
MINUTES_PER_YEAR = 365.25 * MINUTES_PER_DAY
MINUTES_PER_DECADE = 10 * MINUTES_PER_YEAR
#: The units a duration is entered in (the workbench's "Enter durations instead"), as
#: (name, minutes), smallest first.
DURATION_UNITS: tuple[tuple[str, float], ...] = (
    ("minutes", 1.0),
    ("hours", MINUTES_PER_HOUR),
    ("days", MINUTES_PER_DAY),
    ("weeks", MINUTES_PER_WEEK),
    ("months", MINUTES_PER_MONTH),
    ("years", MINUTES_PER_YEAR),
)

#: Tick labels for the chart, as (label, minutes).
TICKS: tuple[tuple[str, float], ...] = (
    ("1 min", 1.0),
    ("15 min", 15.0),
    ("1 h", MINUTES_PER_HOUR),
    ("12 h", 12 * MINUTES_PER_HOUR),
    ("1 day", MINUTES_PER_DAY),
    ("1 week", MINUTES_PER_WEEK),
    ("1 month", MINUTES_PER_MONTH),
    ("1 year", MINUTES_PER_YEAR),
    ("1 decade", MINUTES_PER_DECADE),
)


def _check_base(base: float, name: str = "base") -> float:
    try:
        b = float(base)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number greater than 1, got {base!r}") from None
    if not math.isfinite(b) or b <= 1.0:
        raise ValueError(f"{name} must be a finite number greater than 1, got {base!r}")
    return b


@overload
def minutes_to_x(minutes: float, base: float = DEFAULT_BASE) -> float: ...
@overload
def minutes_to_x(minutes: np.ndarray, base: float = DEFAULT_BASE) -> np.ndarray: ...
def minutes_to_x(minutes, base=DEFAULT_BASE):
    """Position on the log axis of a time ``minutes`` after publication: ``ln(t)/ln(b)``.

    Times under one minute (including 0) are clamped to one minute, i.e. x = 0. Negative or
    non-finite times raise :class:`ValueError`. Accepts a scalar (returns ``float``) or a numpy
    array (returns an array of the same shape).

    Examples:
        >>> minutes_to_x(1)                     # one minute is the origin
        0.0
        >>> round(minutes_to_x(60), 4)          # one hour: ln(60) / ln(1.1)
        42.9581
        >>> minutes_to_x(0.5)                   # under a minute: clamped to the floor
        0.0
        >>> round(minutes_to_x(60, base=math.e), 4)
        4.0943
    """
    b = _check_base(base)
    t = np.asarray(minutes, dtype=float)
    if not np.all(np.isfinite(t)):
        raise ValueError(f"time in minutes must be finite, got {minutes!r}")
    if np.any(t < 0):
        raise ValueError(f"time in minutes cannot be negative, got {minutes!r}")
    x = np.log(np.maximum(t, MINUTE_FLOOR)) / math.log(b)
    if x.ndim == 0:
        return float(x)
    return x


@overload
def x_to_minutes(x: float, base: float = DEFAULT_BASE) -> float: ...
@overload
def x_to_minutes(x: np.ndarray, base: float = DEFAULT_BASE) -> np.ndarray: ...
def x_to_minutes(x, base=DEFAULT_BASE):
    """Minutes since publication at position ``x`` on the log axis: ``b**x``.

    The inverse of :func:`minutes_to_x` for x >= 0 (x < 0 gives less than a minute, which the
    axis treats as one minute). Scalar in, ``float`` out; array in, array out.

    Examples:
        >>> x_to_minutes(0)
        1.0
        >>> round(x_to_minutes(10), 4)          # 1.1 ** 10
        2.5937
        >>> round(x_to_minutes(minutes_to_x(1440)), 6)   # round trip of one day
        1440.0
    """
    b = _check_base(base)
    xa = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(xa)):
        raise ValueError(f"axis position must be finite, got {x!r}")
    t = np.power(b, xa)
    if t.ndim == 0:
        return float(t)
    return t


def convert_base(
    xi: float,
    omega: float,
    alpha: float,
    from_base: float = DEFAULT_BASE,
    to_base: float = DEFAULT_BASE,
) -> tuple[float, float, float]:
    """Re-express skew-normal parameters fitted on a base-``from_base`` axis in ``to_base``.

    Since ``x_b = x_m · ln(m)/ln(b)``, location ξ and scale ω are multiplied by
    ``ln(from_base)/ln(to_base)``; the shape α is unchanged (SPEC section 4). Both bases must be
    finite and greater than 1. Example: base 1.1 → e multiplies ξ and ω by ln(1.1) ≈ 0.0953.

    Examples:
        >>> xi, omega, alpha = convert_base(60.0, 10.0, 2.0, to_base=math.e)
        >>> round(xi, 4), round(omega, 4), alpha
        (5.7186, 0.9531, 2.0)
    """
    m = _check_base(from_base, "from_base")
    b = _check_base(to_base, "to_base")
    factor = math.log(m) / math.log(b)
    return float(xi) * factor, float(omega) * factor, float(alpha)


def tick_positions(base: float = DEFAULT_BASE) -> list[tuple[float, str]]:
    """The chart ticks as ``(x, label)`` pairs, keeping those inside ``[X_MIN, X_MAX]``.

    Examples:
        >>> [(round(x, 2), label) for x, label in tick_positions()][:3]
        [(0.0, '1 min'), (28.41, '15 min'), (42.96, '1 h')]
        >>> len(tick_positions())               # all nine ticks fit in [0, 200] in base 1.1
        9
    """
    out = []
    for label, minutes in TICKS:
        x = minutes_to_x(minutes, base)
        if X_MIN <= x <= X_MAX:
            out.append((x, label))
    return out


# --- human-readable durations ---------------------------------------------------------------

# (singular, plural, minutes), largest first.
_HUMAN_UNITS: tuple[tuple[str, str, float], ...] = (
    ("decade", "decades", MINUTES_PER_DECADE),
    ("year", "years", MINUTES_PER_YEAR),
    ("month", "months", MINUTES_PER_MONTH),
    ("week", "weeks", MINUTES_PER_WEEK),
    ("day", "days", MINUTES_PER_DAY),
    ("hour", "hours", MINUTES_PER_HOUR),
    ("min", "min", 1.0),
)


def _round_human(value: float, unit_minutes: float) -> float:
    # Minutes are always whole; larger units get half steps below 10 ("1.5 days", "2.5 hours")
    # and whole numbers from 10 up ("12 hours"), which is as precise as a hand-placed point.
    if unit_minutes == 1.0 or value >= 10:
        return float(round(value))
    return round(value * 2) / 2


def _format_human(value: float, singular: str, plural: str) -> str:
    number = f"{value:g}" if value != int(value) else str(int(value))
    return f"{number} {singular if value == 1 else plural}"


def humanize_minutes(minutes: float) -> str:
    """A short English rendering of a duration in minutes: "1 min", "45 min", "3 hours",
    "1.5 days", "2 weeks", "5 months", "2 years", "3 decades".

    Uses the largest unit in which the duration is at least 1 (month = 30 days,
    year = 365.25 days); whole numbers from 10 up, half steps below 10, whole minutes.
    A value that rounds up to the next unit is shown in that unit ("59.7 min" → "1 hour").
    Times under one minute show as "1 min" (the axis floor).

    Examples:
        >>> humanize_minutes(45)
        '45 min'
        >>> humanize_minutes(36 * 60)
        '1.5 days'
        >>> humanize_minutes(59.7)              # rounds up into the next unit
        '1 hour'
    """
    m = float(minutes)
    if not math.isfinite(m):
        raise ValueError(f"duration must be finite, got {minutes!r}")
    if m < 0:
        raise ValueError(f"duration cannot be negative, got {minutes!r}")
    m = max(m, MINUTE_FLOOR)
    for i, (singular, plural, size) in enumerate(_HUMAN_UNITS):
        if m >= size or size == 1.0:
            value = _round_human(m / size, size)
            if i > 0 and value * size >= _HUMAN_UNITS[i - 1][2]:
                singular, plural, size = _HUMAN_UNITS[i - 1]
                value = max(_round_human(m / size, size), 1.0)
            return _format_human(value, singular, plural)
    raise AssertionError("unreachable")  # pragma: no cover


def humanize_x(x: float, base: float = DEFAULT_BASE) -> str:
    """:func:`humanize_minutes` of the time at axis position ``x``.

    Examples:
        >>> humanize_x(0)
        '1 min'
        >>> humanize_x(minutes_to_x(3 * 24 * 60))
        '3 days'
    """
    return humanize_minutes(x_to_minutes(x, base))


# --- parsing typed durations ----------------------------------------------------------------


class DurationParseError(ValueError):
    """A typed duration could not be read; the message is meant for the user."""


_UNIT_MINUTES: dict[str, float] = {}
for _names, _size in (
    (("s", "sec", "secs", "second", "seconds"), 1.0 / 60.0),
    (("m", "min", "mins", "minute", "minutes"), 1.0),
    (("h", "hr", "hrs", "hour", "hours"), MINUTES_PER_HOUR),
    (("d", "day", "days"), MINUTES_PER_DAY),
    (("w", "wk", "wks", "week", "weeks"), MINUTES_PER_WEEK),
    (("mo", "mon", "mos", "month", "months"), MINUTES_PER_MONTH),
    (("y", "yr", "yrs", "year", "years"), MINUTES_PER_YEAR),
    (("decade", "decades"), MINUTES_PER_DECADE),
):
    for _name in _names:
        _UNIT_MINUTES[_name] = _size

_TERM = re.compile(r"(?P<num>\d+(?:\.\d*)?|\.\d+|an?(?=\s))\s*(?P<unit>[a-z]+\.?)?")
_SEPARATOR = re.compile(r"\s*(?:,|\+|\band\b)?\s*")
_EXAMPLES = "try e.g. '3 days' or '90 min'"


def parse_duration(text: str) -> float:
    """Read a typed duration and return it in minutes (a float, not floored).

    Accepts a number with a unit ("3 days", "90 min", "1.5 h", "2 hrs", "6 months",
    "2 decades", "45s", "a week"), compound durations ("1h30m", "1 h 30 min",
    "2 days and 3 hours") and a plain number, read as minutes ("90"). Units: s/sec/seconds,
    m/min/minutes, h/hr/hrs/hours, d/days, w/wk/weeks, mo/months (30 days), y/yr/years
    (365.25 days), decades. Case-insensitive and whitespace-tolerant. "m" means minutes.

    Raises :class:`DurationParseError` (a :class:`ValueError`) with a user-facing message for
    anything else, including negative and zero durations.

    Examples:
        >>> parse_duration("1h30m")
        90.0
        >>> parse_duration("2 days and 3 hours")    # 2 · 1440 + 3 · 60
        3060.0
        >>> parse_duration("soon")
        Traceback (most recent call last):
        ...
        annotation.timeaxis.DurationParseError: could not read 'soon' as a duration; try e.g. '3 days' or '90 min'
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise DurationParseError(f"could not read {text!r} as a duration; {_EXAMPLES}")
    original = str(text)
    s = original.strip().lower()
    if not s:
        raise DurationParseError(f"no duration given; {_EXAMPLES}")
    if s.startswith("-"):
        raise DurationParseError(f"a duration cannot be negative: {original!r}")
    if s.startswith("+"):
        s = s[1:].lstrip()

    terms: list[tuple[float, str | None]] = []
    pos = 0
    while pos < len(s):
        m = _TERM.match(s, pos)
        if m is None:
            raise DurationParseError(f"could not read {original!r} as a duration; {_EXAMPLES}")
        num = m.group("num")
        value = 1.0 if num in ("a", "an") else float(num)
        unit = m.group("unit")
        if unit is not None:
            unit = unit.rstrip(".")
            if unit not in _UNIT_MINUTES:
                raise DurationParseError(
                    f"could not read {original!r} as a duration: unknown unit {unit!r}; "
                    "use min, hours, days, weeks, months, years or decades"
                )
        elif num in ("a", "an"):
            raise DurationParseError(f"could not read {original!r} as a duration; {_EXAMPLES}")
        terms.append((value, unit))
        pos = m.end()
        sep = _SEPARATOR.match(s, pos)
        pos = sep.end() if sep else pos
        if sep and sep.group(0).strip() and pos >= len(s):
            # a trailing "and" or "," with nothing after it
            raise DurationParseError(f"could not read {original!r} as a duration; {_EXAMPLES}")

    if not terms:
        raise DurationParseError(f"could not read {original!r} as a duration; {_EXAMPLES}")
    if len(terms) > 1 and any(unit is None for _, unit in terms):
        raise DurationParseError(
            f"could not read {original!r} as a duration: give every part a unit, "
            "e.g. '1 h 30 min'"
        )
    total = sum(value * (_UNIT_MINUTES[unit] if unit else 1.0) for value, unit in terms)
    if not math.isfinite(total):
        raise DurationParseError(f"could not read {original!r} as a duration: too large")
    if total <= 0:
        raise DurationParseError(f"a duration must be longer than zero: {original!r}")
    return float(total)
