"""TVCP's duration classes, derived from a validity curve.

Wenzel & Jatowt's first crowdsourcing phase put each target statement in one of twelve classes on
a logarithmic scale. Here the class of a curve is the class holding its *half-gone time* — the
time after the peak at which the proportional validity has fallen to one half, the annotator's
"half of its validity is gone by …" (:func:`annotation.training.ensemble_curves.half_gone_x`).

Rules, stated because the classes have edges and our axis has ends:

* A class holds its lower edge and not its upper: a half-gone time of exactly 5 minutes is
  *5–15 minutes*. The upper classes' edges are 6 hours → 1 day → 3 days → 7 days → 4 weeks
  (28 days); *more than 1 month* holds everything from 4 weeks on, including a curve still more
  than half valid at the chart's end.
* Our axis starts at one minute. A curve whose peak lies before one minute and which is already
  below half its peak at one minute lost half its validity in *less than one minute*.
* A curve that stays at or above one half of its highest point over the whole axis (1 minute to
  the chart's end) says nothing about time: *no time-sensitive information*.

The class indices are the release's (``context_only_tv``, ``combined_tv``): 0 is *no
time-sensitive information* and 1 … 11 the durations from shortest to longest, as in the authors'
phase-1 qualification test (``mturk_qual_tests/phase1``), where 0 answers the statements without
time-sensitive information and 11 is the longest class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from annotation.curves.density import skew_normal_mode
from annotation.curves.half_gone import half_gone_x, log_relative_density
from annotation.timeaxis import (
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    MINUTES_PER_WEEK,
    X_MAX,
    X_MIN,
    minutes_to_x,
)

#: The release's class names by index (index 0: no time-sensitive information).
CLASS_NAMES: tuple[str, ...] = (
    "no time-sensitive information",
    "less than one minute",
    "1–5 minutes",
    "5–15 minutes",
    "15–45 minutes",
    "45 minutes–2 hours",
    "2–6 hours",
    "more than 6 hours",
    "1–3 days",
    "3–7 days",
    "1–4 weeks",
    "more than 1 month",
)
#: The classes as the app names them: the release's names, but *more than 6 hours* — which ends
#: where *1–3 days* begins — named by its range, as the release's own class edges make it.
CLASS_LABELS: tuple[str, ...] = tuple("6 hours–1 day" if name == "more than 6 hours" else name
                                      for name in CLASS_NAMES)
NO_TIME_SENSITIVE_INFORMATION = 0
#: Lower edges in minutes of classes 2 … 11 (class 1 is everything below one minute).
LOWER_EDGES_MINUTES: tuple[float, ...] = (
    1.0, 5.0, 15.0, 45.0, 2 * MINUTES_PER_HOUR, 6 * MINUTES_PER_HOUR, MINUTES_PER_DAY,
    3 * MINUTES_PER_DAY, MINUTES_PER_WEEK, 4 * MINUTES_PER_WEEK,
)
#: Points on the axis where a curve is checked for flatness (one every half unit).
_FLAT_GRID = np.linspace(X_MIN, X_MAX, 401)


@dataclass(frozen=True)
class DurationClass:
    """A TVCP duration class: its index in the release and its name there (exports keep it);
    :attr:`label` is how the app shows it."""

    index: int
    name: str

    @property
    def label(self) -> str:
        """The class as people read it: ``duration_class(7).label`` is '6 hours–1 day'."""
        return CLASS_LABELS[self.index]


def duration_class(index: int) -> DurationClass:
    """The class of release index ``index`` (0 … 11); ValueError for any other number.

    Examples:
        >>> duration_class(0).name, duration_class(11).name
        ('no time-sensitive information', 'more than 1 month')
    """
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(CLASS_NAMES):
        raise ValueError(f"a TVCP duration class is a whole number from 0 to {len(CLASS_NAMES) - 1}")
    return DurationClass(index, CLASS_NAMES[index])


def class_of_minutes(half_gone_minutes: float) -> DurationClass:
    """The class holding a half-gone time in minutes (``inf``: more than 1 month).

    Examples:
        >>> [class_of_minutes(m).index for m in (0.5, 1.0, 4.99, 5.0, 44.9, 45.0, 120.0)]
        [1, 2, 2, 3, 4, 5, 6]
        >>> class_of_minutes(float("inf")).name
        'more than 1 month'
    """
    m = float(half_gone_minutes)
    if math.isnan(m):
        raise ValueError("the half-gone time is not a number")
    index = 1 + sum(1 for edge in LOWER_EDGES_MINUTES if m >= edge)
    return duration_class(index)


def is_flat(xi: float, omega: float, alpha: float) -> bool:
    """Whether the curve stays at or above one half of its highest point on the axis everywhere
    from one minute to the chart's end (it does not say when validity goes).

    Examples:
        >>> is_flat(100.0, 400.0, 0.0), is_flat(50.0, 10.0, 0.0)
        (True, False)
    """
    with np.errstate(all="ignore"):
        logs = log_relative_density(_FLAT_GRID, float(xi), float(omega), float(alpha))
    return bool(np.min(logs) >= np.max(logs) + math.log(0.5))


def class_of_curve(xi: float, omega: float, alpha: float) -> DurationClass:
    """The TVCP class of the curve ``(ξ, ω, α)`` (base-1.1 log minutes), by the rules above.

    Examples:
        >>> class_of_curve(45.0, 10.0, 0.0).name     # half gone at x ≈ 56.8: about 3.7 hours
        '2–6 hours'
        >>> class_of_curve(50.0, 10.0, 0.0).name     # at x ≈ 61.8: 6.01 hours
        'more than 6 hours'
        >>> class_of_curve(100.0, 400.0, 0.0).name   # nearly level over the whole axis
        'no time-sensitive information'
        >>> class_of_curve(-30.0, 10.0, 0.0).name    # over before the first minute
        'less than one minute'
    """
    xi, omega, alpha = float(xi), float(omega), float(alpha)
    if not (math.isfinite(xi) and math.isfinite(omega) and math.isfinite(alpha)) or omega <= 0:
        raise ValueError("the curve's parameters must be finite numbers with ω > 0")
    if is_flat(xi, omega, alpha):
        return duration_class(NO_TIME_SENSITIVE_INFORMATION)
    mode = skew_normal_mode(xi, omega, alpha)
    if mode < X_MIN:
        with np.errstate(all="ignore"):
            at_start, at_mode = log_relative_density(np.array([X_MIN, mode]), xi, omega, alpha)
        if at_start < at_mode + math.log(0.5):
            return duration_class(1)
    x = float(half_gone_x(np.array([[xi, omega, alpha]]))[0])
    return class_of_minutes(math.inf if math.isinf(x) else 1.1 ** x)


def class_edges_x() -> tuple[float, ...]:
    """The classes' lower edges on the axis (base-1.1 log minutes), for drawing them.

    Examples:
        >>> [round(x, 2) for x in class_edges_x()[:3]]      # 1, 5 and 15 minutes
        [0.0, 16.89, 28.41]
    """
    return tuple(minutes_to_x(m) for m in LOWER_EDGES_MINUTES)


__all__ = ["CLASS_LABELS", "CLASS_NAMES", "DurationClass", "LOWER_EDGES_MINUTES", "NO_TIME_SENSITIVE_INFORMATION",
           "class_edges_x", "class_of_curve", "class_of_minutes", "duration_class", "is_flat"]
