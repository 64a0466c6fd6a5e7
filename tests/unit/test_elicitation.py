"""The curve in the annotator's terms and entry by durations (annotation.workbench.elicitation)."""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from annotation.workbench import editing
from annotation.curves import CurveFitError, drawn_curve, fit_curve, validate_points
from annotation.workbench.elicitation import (
    FEEDBACK_TIMES,
    CurveFeedback,
    DurationEntryError,
    ValidityAt,
    curve_feedback,
    points_from_durations,
)
from annotation.content import AnnotationContent
from annotation.timeaxis import (
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    MINUTES_PER_WEEK,
    MINUTES_PER_YEAR,
    X_MAX,
    X_MIN,
    convert_base,
    humanize_minutes,
    minutes_to_x,
    x_to_minutes,
)

# --- feedback against a direct computation with scipy.stats.skewnorm ---------------------------


def _reference(xi, omega, alpha, height):
    """Peak, half-gone, still-50 %-until (minutes) and validity at the feedback times, computed
    independently: scipy's skew-normal pdf, its maximum on the chart by bounded scalar
    minimisation, crossings by bracketing on a dense grid and Brent's method."""

    def pdf(x):
        return stats.skewnorm.pdf(x, alpha, loc=xi, scale=omega)

    res = optimize.minimize_scalar(lambda x: -pdf(x), bounds=(X_MIN, X_MAX), method="bounded",
                                   options={"xatol": 1e-10})
    peak_x = res.x if pdf(res.x) >= max(pdf(X_MIN), pdf(X_MAX)) else (
        X_MIN if pdf(X_MIN) > pdf(X_MAX) else X_MAX)
    top = pdf(peak_x)

    def crossing(level):
        grid = np.linspace(peak_x, X_MAX, 20001)
        below = np.flatnonzero(pdf(grid) < level * top)
        if below.size == 0:
            return math.inf
        hi = grid[below[0]]
        lo = grid[below[0] - 1]
        return x_to_minutes(optimize.brentq(lambda v: pdf(v) - level * top, lo, hi, xtol=1e-12))

    left = [height * pdf(minutes_to_x(m)) / top for _, m in FEEDBACK_TIMES]
    until = crossing(0.5 / height) if height >= 0.5 else None
    return x_to_minutes(peak_x), crossing(0.5), until, left


@pytest.mark.parametrize(
    ("xi", "omega", "alpha", "height"),
    [
        (76.30, 8.0, 0.0, 1.0),      # a day, symmetric
        (60.0, 25.0, 4.0, 1.0),      # right-skewed: long fade
        (110.0, 15.0, -5.0, 0.8),    # left-skewed, peak at 80 %
        (-20.0, 60.0, 2.0, 1.0),     # mode before the chart: peak at 1 minute
        (150.0, 40.0, 1.0, 0.6),     # fades beyond the chart's end
    ],
)
def test_feedback_numbers_match_scipy_skewnorm(xi, omega, alpha, height):
    fb = curve_feedback(xi, omega, alpha, height)
    peak, half_gone, until, left = _reference(xi, omega, alpha, height)
    assert fb.peak_minutes == pytest.approx(peak, rel=1e-5)
    assert fb.height == height
    if math.isinf(half_gone):
        assert math.isinf(fb.half_gone_minutes)
    else:
        assert fb.half_gone_minutes == pytest.approx(half_gone, rel=1e-7)
    if until is None or math.isinf(until):
        assert fb.half_valid_until_minutes == until
    else:
        assert fb.half_valid_until_minutes == pytest.approx(until, rel=1e-7)
    assert [v.label for v in fb.left_after] == ["1 hour", "1 day", "1 week", "1 month", "1 year"]
    assert [v.validity for v in fb.left_after] == pytest.approx(left, rel=1e-6, abs=1e-12)


def test_feedback_of_a_fitted_curve_reads_what_the_chart_draws():
    fit = fit_curve([(40.0, 0.3), (50.0, 0.7), (70.0, 0.5), (90.0, 0.1)])
    fb = curve_feedback(fit.xi, fit.omega, fit.alpha, fit.height)
    xs = np.array([minutes_to_x(v.minutes) for v in fb.left_after])
    drawn = drawn_curve(fit.xi, fit.omega, fit.alpha, fit.scale, x=xs)[1]
    assert [v.validity for v in fb.left_after] == pytest.approx(list(drawn), abs=1e-12)
    # "still ≥ 50 % valid until": the drawn curve is 50 % there
    x_until = minutes_to_x(fb.half_valid_until_minutes)
    assert drawn_curve(fit.xi, fit.omega, fit.alpha, fit.scale, x=[x_until])[1][0] == pytest.approx(0.5)


def test_feedback_lines_for_a_known_curve():
    # Gaussian at 1 day with ω = 5: half gone at x = 76.30 + 5·sqrt(2 ln 2) ≈ 82.19 ≈ 1.75 days,
    # shown as "2 days" (half steps below 10)
    fb = curve_feedback(76.30, 5.0, 0.0)
    assert isinstance(fb, CurveFeedback)
    assert minutes_to_x(fb.half_gone_minutes) == pytest.approx(76.30 + 5.0 * math.sqrt(2 * math.log(2)))
    assert fb.half_valid_until_minutes == fb.half_gone_minutes
    assert fb.lines[0] == "Still ≥ 50 % valid until ≈ 2 days, when half of its validity is gone"
    assert fb.lines[1].startswith("Validity left after 1 hour: < 1 % · 1 day: 100 % · 1 week: ")
    assert fb.to_view() == {"lines": list(fb.lines[:-1]),  # the figures are drawn, not repeated
                            "left_after": [[v.label, v.percent] for v in fb.left_after]}
    assert fb.to_view()["left_after"][1] == ["1 day", "100 %"]


def test_feedback_lines_with_a_lower_peak_and_beyond_the_chart():
    lower = curve_feedback(76.30, 10.0, 0.0, height=0.8)
    assert lower.lines[0] == f"Half of its validity is gone by ≈ {humanize_minutes(lower.half_gone_minutes)}"
    assert lower.lines[1] == (
        f"Still ≥ 50 % valid until ≈ {humanize_minutes(lower.half_valid_until_minutes)}")
    assert lower.half_valid_until_minutes < lower.half_gone_minutes
    never = curve_feedback(76.30, 10.0, 0.0, height=0.4)
    assert never.half_valid_until_minutes is None
    assert never.lines[1] == "Never 50 % valid: its peak is 40 %"
    late = curve_feedback(190.0, 30.0, 0.0)
    assert math.isinf(late.half_gone_minutes) and math.isinf(late.half_valid_until_minutes)
    assert late.lines[0].startswith("More than half of its validity is left at the end of the chart (≈ ")


def test_percent_text():
    assert ValidityAt("1 day", MINUTES_PER_DAY, 0.0).percent == "0 %"
    assert ValidityAt("1 day", MINUTES_PER_DAY, 0.004).percent == "< 1 %"
    assert ValidityAt("1 day", MINUTES_PER_DAY, 0.456).percent == "46 %"
    assert ValidityAt("1 day", MINUTES_PER_DAY, 1.0).percent == "100 %"


def test_feedback_is_the_same_in_another_base():
    xi, omega, alpha = 80.0, 12.0, 2.0
    converted = convert_base(xi, omega, alpha, 1.1, 2.0)
    a, b = curve_feedback(xi, omega, alpha), curve_feedback(*converted, base=2.0)
    assert a.lines == b.lines
    assert a.half_gone_minutes == pytest.approx(b.half_gone_minutes, rel=1e-9)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((math.nan, 10.0, 0.0), "must be a finite number"),
        ((60.0, 0.0, 0.0), "outside the fit's range"),
        ((60.0, 10.0, 0.0, 0.0), "peak height"),
        ((60.0, 10.0, 0.0, 1.5), "peak height"),
        ((290.0, 0.5, 0.0), "outside the time axis"),
    ],
)
def test_feedback_errors(args, fragment):
    with pytest.raises(CurveFitError, match=fragment):
        curve_feedback(*args)


# --- entry by durations -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peak", "half_gone"),
    [
        (2 * MINUTES_PER_DAY, 14 * MINUTES_PER_DAY),   # the example
        (1.0, MINUTES_PER_HOUR),                       # peaks at once, half gone in an hour
        (3 * MINUTES_PER_HOUR, 2 * MINUTES_PER_DAY),
        (MINUTES_PER_WEEK, 5 * MINUTES_PER_YEAR),
        (MINUTES_PER_HOUR, 100 * MINUTES_PER_YEAR),    # fading point at the chart's end
    ],
)
def test_durations_round_trip(peak, half_gone):
    points = points_from_durations(peak, half_gone)
    assert 3 <= len(points) <= 5
    assert validate_points(points) == points  # valid, sorted by x
    assert all(p == (round(p[0], 2), round(p[1], 2)) for p in points)  # the chart's resolution
    fit = fit_curve(points)
    assert fit.passes_through and fit.rmse < 0.01
    assert fit.height == pytest.approx(1.0, abs=0.01)
    # peaks near the peak time: within 2 % of the peak-to-half distance on the axis (a wide
    # curve is flat on top, so the 0.01 rounding of the points moves its mode further) ...
    d = minutes_to_x(half_gone) - minutes_to_x(peak)
    assert fit.peak_x == pytest.approx(minutes_to_x(peak), abs=max(0.3, 0.02 * d))
    at_peak = drawn_curve(fit.xi, fit.omega, fit.alpha, fit.scale, x=[minutes_to_x(peak)])[1][0]
    assert at_peak == pytest.approx(1.0, abs=0.01)
    # ... and is at about 50 % at the half-gone time
    at_half = drawn_curve(fit.xi, fit.omega, fit.alpha, fit.scale, x=[minutes_to_x(half_gone)])[1][0]
    assert at_half == pytest.approx(0.5, abs=0.01)
    fb = curve_feedback(fit.xi, fit.omega, fit.alpha, fit.height)
    assert humanize_minutes(fb.half_gone_minutes) == humanize_minutes(half_gone)


def test_durations_place_a_symmetric_rising_point_when_there_is_room():
    peak, half = 2 * MINUTES_PER_DAY, 14 * MINUTES_PER_DAY
    points = points_from_durations(peak, half)
    xp, xh = minutes_to_x(peak), minutes_to_x(half)
    assert points == (
        (round(2 * xp - xh, 2), 0.5),
        (round(xp, 2), 1.0),
        (round(xh, 2), 0.5),
        (round(xp + (xh - xp) * math.sqrt(math.log2(10)), 2), 0.1),
    )


@pytest.mark.parametrize(
    ("peak", "half_gone", "fragment"),
    [
        (0, 60, "peak time must be a duration longer than zero"),
        (-5, 60, "peak time must be a duration longer than zero"),
        (60, math.nan, "half-gone time must be a duration longer than zero"),
        (60, math.inf, "half-gone time must be a duration longer than zero"),
        ("2 days", 60, "peak time must be a duration"),
        (True, 60, "peak time must be a duration"),
        (None, 60, "peak time must be a duration"),
        (MINUTES_PER_WEEK, MINUTES_PER_DAY, "the half-gone time must come after the peak"),
        (MINUTES_PER_DAY, MINUTES_PER_DAY, "the half-gone time must come after the peak"),
        (60, x_to_minutes(X_MAX) * 2, "beyond the end of the chart"),
        (x_to_minutes(X_MAX) * 2, x_to_minutes(X_MAX) * 3, "peak (" ),
        (MINUTES_PER_DAY, MINUTES_PER_DAY * 1.05, "too close to the peak"),
    ],
)
def test_durations_refused_with_a_clear_message(peak, half_gone, fragment):
    with pytest.raises(DurationEntryError) as info:
        points_from_durations(peak, half_gone)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_place_from_durations_replaces_the_points_and_refits():
    content = AnnotationContent(points=((40.0, 0.5), (60.0, 1.0), (90.0, 0.3)), xi=1.0, omega=2.0,
                                alpha=0.0, scale=1.0, rmse=0.5, params_source="manual")
    placed, message = editing.place_from_durations(content, 2 * MINUTES_PER_DAY, 14 * MINUTES_PER_DAY)
    assert message is None
    assert placed.points == points_from_durations(2 * MINUTES_PER_DAY, 14 * MINUTES_PER_DAY)
    assert placed.params_source == "fit" and placed.rmse < 0.01
    assert placed.xi == pytest.approx(fit_curve(placed.points).xi)


def test_place_from_durations_refuses_and_keeps_the_content():
    content = AnnotationContent(points=((40.0, 0.5), (60.0, 1.0), (90.0, 0.3)))
    same, message = editing.place_from_durations(content, MINUTES_PER_WEEK, MINUTES_PER_DAY)
    assert same == content
    assert message and "must come after the peak" in message
