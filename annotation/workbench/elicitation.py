"""The validity curve in the annotator's own terms, and entry by durations.

Expert-elicitation tools check a fitted distribution by reading it back to the expert in the
terms they think in — "by when is half of it gone?", "how much is left after a year?" — rather
than as parameters. This module does that for the skew-normal validity curve
(:mod:`annotation.curves`), and runs the other way too: from two durations the annotator can
name ("peak ≈ 2 days, half gone by ≈ 2 weeks") it places the chart points for them.

Terms, all on the curve the chart draws (``h ×`` the proportional curve, h the fitted peak
height ≤ 1, see :mod:`annotation.curves`):

* **half of its validity is gone by** — the time after the peak at which the curve has fallen
  to half of its peak (the proportional curve at 0.5). The durations entry places a point at
  exactly this time at 50 %.
* **still ≥ 50 % valid until** — the last time the drawn curve is at least 50 % on the chart's
  scale. With the peak at 100 % (h = 1, the usual case) it is the same moment, and the two are
  said in one line; with a lower peak it comes earlier (or never, below a 50 % peak).
* **validity left after** 1 hour, 1 day, 1 week, 1 month, 1 year — the drawn curve there, in %.

Durations are shown with :func:`annotation.timeaxis.humanize_minutes`. Everything here is pure.
Bad input raises :class:`~annotation.curves.CurveFitError` / :class:`DurationEntryError` (both
:class:`ValueError`) with a message written for the annotator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from annotation.workbench.curve_points import clamp_point
from annotation.curves import (
    MIN_X_GAP,
    CurveFitError,
    parameter_bounds_problem,
    proportional_curve,
    skew_normal_mode,
    skew_normal_pdf,
)
from annotation.timeaxis import (
    DEFAULT_BASE,
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    MINUTES_PER_MONTH,
    MINUTES_PER_WEEK,
    MINUTES_PER_YEAR,
    X_MAX,
    X_MIN,
    convert_base,
    humanize_minutes,
    minutes_to_x,
    x_to_minutes,
)

#: The moments whose remaining validity is read back, as (label, minutes since publication).
FEEDBACK_TIMES: tuple[tuple[str, float], ...] = (
    ("1 hour", MINUTES_PER_HOUR),
    ("1 day", MINUTES_PER_DAY),
    ("1 week", MINUTES_PER_WEEK),
    ("1 month", MINUTES_PER_MONTH),
    ("1 year", MINUTES_PER_YEAR),
)


@dataclass(frozen=True)
class ValidityAt:
    """The drawn curve's validity (0-1) at one of :data:`FEEDBACK_TIMES`."""

    label: str
    minutes: float
    validity: float

    @property
    def percent(self) -> str:
        """``"NN %"``; ``"< 1 %"`` for a trace that would round to 0 but is not 0."""
        if 0.0 < self.validity < 0.005:
            return "< 1 %"
        return f"{round(self.validity * 100):d} %"


@dataclass(frozen=True)
class CurveFeedback:
    """The curve read back in durations and percentages (see the module docstring).

    Times are minutes since publication; ``math.inf`` means "not before the chart's end".
    ``half_valid_until_minutes`` is None when the drawn curve never reaches 50 % (peak height
    below one half). ``lines`` are ready to show as plain text; :meth:`to_view` is the JSON the
    workbench surface draws beside the chart.
    """

    peak_minutes: float
    height: float
    half_gone_minutes: float
    half_valid_until_minutes: float | None
    left_after: tuple[ValidityAt, ...]
    lines: tuple[str, ...]

    def to_view(self) -> dict[str, list]:
        """``{"lines": [str, ...], "left_after": [[label, "NN %"], ...]}`` for the workbench,
        which draws ``left_after`` as its own row of figures: the lines leave out the sentence
        that says the same ("Validity left after …"), so the panel does not show it twice."""
        return {
            "lines": list(self.lines[:-1]),
            "left_after": [[v.label, v.percent] for v in self.left_after],
        }


def _falling_crossing(xi: float, omega: float, alpha: float, peak_x: float, level: float) -> float:
    """Axis position after ``peak_x`` where the proportional curve falls to ``level`` (0 < level
    ≤ 1), by root-finding on the density; ``math.inf`` when the curve is still at or above
    ``level`` at the chart's end."""
    top = skew_normal_pdf(peak_x, xi, omega, alpha)

    def gap(v: float) -> float:
        return skew_normal_pdf(v, xi, omega, alpha) - level * top

    if gap(X_MAX) >= 0:
        return math.inf
    if level >= 1.0:
        return peak_x
    return float(optimize.brentq(gap, peak_x, X_MAX, xtol=1e-10))


def _duration_text(minutes: float) -> str:
    return f"≈ {humanize_minutes(minutes)}"


def curve_feedback(
    xi: float, omega: float, alpha: float, height: float = 1.0, base: float = DEFAULT_BASE
) -> CurveFeedback:
    """The curve ``(ξ, ω, α)`` with peak height ``height`` (:attr:`CurveFit.height`, 0 < h ≤ 1;
    1 for the proportional curve) in the annotator's terms.

    ``base`` is the log base the parameters are expressed in (stored values: 1.1); the
    durations do not depend on it. Raises :class:`CurveFitError` for parameters the fit could
    not have produced or a height outside (0, 1].
    """
    problem = parameter_bounds_problem(xi, omega, alpha) if base == DEFAULT_BASE else None
    if base != DEFAULT_BASE:
        try:
            xi, omega, alpha = convert_base(float(xi), float(omega), float(alpha), base,
                                            DEFAULT_BASE)
        except (TypeError, ValueError) as exc:
            raise CurveFitError(f"This curve cannot be described: {exc}.") from None
        problem = parameter_bounds_problem(xi, omega, alpha)
    if problem is not None:
        raise CurveFitError(f"This curve cannot be described: {problem}.")
    if isinstance(height, bool) or not isinstance(height, (int, float, np.floating, np.integer)) \
            or not 0.0 < float(height) <= 1.0 + 1e-9:
        raise CurveFitError("The curve's peak height must be above 0 % and at most 100 %.")
    xi, omega, alpha, height = float(xi), float(omega), float(alpha), min(float(height), 1.0)
    peak_x = min(max(skew_normal_mode(xi, omega, alpha), X_MIN), X_MAX)
    with np.errstate(all="ignore"):
        if not skew_normal_pdf(peak_x, xi, omega, alpha) > 0:
            raise CurveFitError(
                "This curve lies entirely outside the time axis; move its peak onto the chart."
            )
        half_gone_x = _falling_crossing(xi, omega, alpha, peak_x, 0.5)
        until_x = (_falling_crossing(xi, omega, alpha, peak_x, 0.5 / height)
                   if height >= 0.5 else None)
        times = np.array([minutes_to_x(m) for _, m in FEEDBACK_TIMES])
        _, prop = proportional_curve(xi, omega, alpha, x=times)
    left_after = tuple(
        ValidityAt(label, minutes, float(min(max(height * p, 0.0), 1.0)))
        for (label, minutes), p in zip(FEEDBACK_TIMES, prop)
    )

    def minutes(x: float | None) -> float | None:
        if x is None:
            return None
        return math.inf if math.isinf(x) else x_to_minutes(x)

    half_gone = minutes(half_gone_x)
    until = minutes(until_x)
    end = _duration_text(x_to_minutes(X_MAX))
    if math.isinf(half_gone):
        gone_line = f"More than half of its validity is left at the end of the chart ({end})"
    else:
        gone_line = f"Half of its validity is gone by {_duration_text(half_gone)}"
    if until is None:
        until_line = f"Never 50 % valid: its peak is {round(height * 100):d} %"
    elif math.isinf(until):
        until_line = f"Still ≥ 50 % valid at the end of the chart ({end})"
    else:
        until_line = f"Still ≥ 50 % valid until {_duration_text(until)}"
    same_moment = until is not None and (
        (math.isinf(until) and math.isinf(half_gone))
        or (not math.isinf(until) and not math.isinf(half_gone)
            and humanize_minutes(until) == humanize_minutes(half_gone))
    )
    if same_moment and not math.isinf(half_gone):
        status = (f"Still ≥ 50 % valid until {_duration_text(half_gone)}, "
                  "when half of its validity is gone",)
    elif same_moment:
        status = (gone_line,)
    else:
        status = (gone_line, until_line)
    left_line = "Validity left after " + " · ".join(f"{v.label}: {v.percent}" for v in left_after)
    return CurveFeedback(
        peak_minutes=x_to_minutes(peak_x),
        height=height,
        half_gone_minutes=half_gone,
        half_valid_until_minutes=until,
        left_after=left_after,
        lines=(*status, left_line),
    )


# --- entry by durations -----------------------------------------------------------------------


class DurationEntryError(ValueError):
    """The durations cannot place a single-peaked curve; the message is for the annotator."""


#: The half-gone time must lie at least this far after the peak on the axis (1.0 = 10 % later):
#: closer, the points would sit on top of each other and the curve would be a needle.
MIN_HALF_GAP_X = 2 * MIN_X_GAP
#: Validity of the placed fading point (where the curve has all but faded).
FADING_LEVEL = 0.1


def _positive_minutes(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise DurationEntryError(f"The {what} must be a duration, e.g. '2 days'.")
    minutes = float(value)
    if not math.isfinite(minutes) or minutes <= 0:
        raise DurationEntryError(f"The {what} must be a duration longer than zero.")
    return minutes


def points_from_durations(
    peak_minutes: float, half_gone_minutes: float
) -> tuple[tuple[float, float], ...]:
    """Chart points ``((x, y), ...)`` (sorted by x, base-1.1 axis, 2 decimals as the chart
    stores them) for a curve that peaks at ``peak_minutes`` and has lost half of its validity
    by ``half_gone_minutes`` (both minutes since publication).

    Places the peak at 100 %, the half-gone time at 50 %, and — for the part the annotator did
    not name — the least committal single-peaked completion, a curve symmetric on the log axis
    (α = 0, a Gaussian with σ = d/√(2 ln 2), d the peak-to-half distance): a rising point at
    50 % as far before the peak (or, when that is before 1 minute, the curve's value at
    1 minute) and a fading point at 10 % (or the curve's value at the chart's end). 3 or 4
    points; the annotator can drag any of them afterwards, e.g. when the text says validity
    arrives suddenly.

    Raises :class:`DurationEntryError`: a non-positive or non-numeric duration, a half-gone
    time not after the peak, either beyond the chart's end, or the two too close together.
    """
    peak = _positive_minutes(peak_minutes, "peak time")
    half = _positive_minutes(half_gone_minutes, "half-gone time")
    end_minutes = x_to_minutes(X_MAX)
    end = humanize_minutes(end_minutes)
    if peak > end_minutes:
        raise DurationEntryError(
            f"The peak ({humanize_minutes(peak)}) is beyond the end of the chart (≈ {end})."
        )
    if half > end_minutes:
        raise DurationEntryError(
            f"The half-gone time ({humanize_minutes(half)}) is beyond the end of the chart "
            f"(≈ {end})."
        )
    if half <= peak:
        raise DurationEntryError(
            f"Half of the validity cannot be gone by {humanize_minutes(half)} when the peak is "
            f"only at {humanize_minutes(peak)}: the half-gone time must come after the peak."
        )
    x_peak, x_half = minutes_to_x(peak), minutes_to_x(half)
    d = x_half - x_peak
    if d < MIN_HALF_GAP_X:
        raise DurationEntryError(
            f"The half-gone time ({humanize_minutes(half)}) is too close to the peak "
            f"({humanize_minutes(peak)}): make it at least 10 % later than the peak."
        )
    sigma = d / math.sqrt(2.0 * math.log(2.0))

    def level(x: float) -> float:
        return math.exp(-0.5 * ((x - x_peak) / sigma) ** 2)

    # A little over the minimum gap, so that rounding to the chart's 0.01 keeps points apart.
    room = MIN_X_GAP + 0.02
    points = [(x_peak, 1.0), (x_half, 0.5)]
    x_rise = x_peak - d
    if x_rise >= X_MIN:
        points.append((x_rise, 0.5))
    elif x_peak - X_MIN >= room:
        points.append((X_MIN, level(X_MIN)))
    x_fade = x_peak + d * math.sqrt(math.log(1.0 / FADING_LEVEL) / math.log(2.0))
    if x_fade <= X_MAX:
        points.append((x_fade, FADING_LEVEL))
    elif X_MAX - x_half >= room:
        points.append((X_MAX, level(X_MAX)))
    if len(points) < 3:
        raise DurationEntryError(
            "These durations leave no room on the chart for a third point: place the points by "
            "clicking the chart instead."
        )
    return tuple(sorted(clamp_point(x, y, x_max=X_MAX) for x, y in points))
