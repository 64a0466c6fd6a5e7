"""The log time axis: known positions, round trips, base conversion, ticks, human durations."""

import math

import numpy as np
import pytest

from annotation.timeaxis import (
    DEFAULT_BASE,
    MINUTE_FLOOR,
    TICKS,
    X_MAX,
    X_MIN,
    DurationParseError,
    convert_base,
    humanize_minutes,
    humanize_x,
    minutes_to_x,
    parse_duration,
    tick_positions,
    x_to_minutes,
)

HOUR, DAY, WEEK = 60.0, 1440.0, 10080.0
MONTH, YEAR = 30 * DAY, 365.25 * DAY
DECADE = 10 * YEAR


def test_constants():
    assert DEFAULT_BASE == 1.1
    assert (X_MIN, X_MAX) == (0.0, 200.0)
    assert MINUTE_FLOOR == 1.0


@pytest.mark.parametrize(
    ("minutes", "x"),
    [
        (1.0, 0.0),
        (HOUR, 42.96),
        (DAY, 76.30),
        (WEEK, 96.72),
        (MONTH, 111.99),
        (YEAR, 138.21),
        (DECADE, 162.37),
    ],
)
def test_known_positions_base_1_1(minutes, x):
    assert minutes_to_x(minutes) == pytest.approx(x, abs=0.005)


def test_minutes_below_one_are_clamped_to_the_floor():
    assert minutes_to_x(0.0) == 0.0
    assert minutes_to_x(0.25) == 0.0
    assert minutes_to_x(1.0) == 0.0


@pytest.mark.parametrize("bad", [-1.0, -1e-9, math.nan, math.inf, -math.inf])
def test_minutes_to_x_rejects_negative_and_non_finite(bad):
    with pytest.raises(ValueError):
        minutes_to_x(bad)


@pytest.mark.parametrize("base", [1.0, 0.5, -2.0, math.nan, math.inf])
def test_bad_base_rejected(base):
    with pytest.raises(ValueError):
        minutes_to_x(60.0, base)
    with pytest.raises(ValueError):
        x_to_minutes(10.0, base)


def test_returns_plain_floats_for_scalars():
    assert type(minutes_to_x(60)) is float
    assert type(x_to_minutes(10)) is float


def test_vectorised():
    t = np.array([0.5, 1.0, HOUR, DAY])
    x = minutes_to_x(t)
    assert isinstance(x, np.ndarray) and x.shape == (4,)
    assert x[0] == 0.0 and x[2] == pytest.approx(42.958, abs=1e-3)
    back = x_to_minutes(x)
    np.testing.assert_allclose(back, [1.0, 1.0, HOUR, DAY], rtol=1e-12)
    with pytest.raises(ValueError):
        minutes_to_x(np.array([1.0, -5.0]))


@pytest.mark.parametrize("minutes", [1.0, 7.5, HOUR, 3 * DAY, 2 * YEAR, 3 * DECADE])
@pytest.mark.parametrize("base", [1.1, 2.0, math.e, 10.0])
def test_round_trip(minutes, base):
    assert x_to_minutes(minutes_to_x(minutes, base), base) == pytest.approx(minutes, rel=1e-12)


@pytest.mark.parametrize("x", [0.0, 12.3, 76.3, 199.9])
def test_round_trip_from_x(x):
    assert minutes_to_x(x_to_minutes(x)) == pytest.approx(x, abs=1e-9)


def test_x_to_minutes_values():
    assert x_to_minutes(0.0) == 1.0
    assert x_to_minutes(10.0) == pytest.approx(1.1**10)
    assert x_to_minutes(3.0, base=2.0) == pytest.approx(8.0)


def test_convert_base_to_e_multiplies_by_ln_1_1():
    xi, omega, alpha = convert_base(60.0, 15.0, 3.0, from_base=1.1, to_base=math.e)
    assert xi == pytest.approx(60.0 * math.log(1.1))
    assert omega == pytest.approx(15.0 * math.log(1.1))
    assert alpha == 3.0


def test_convert_base_matches_the_axis_and_round_trips():
    # A point at one day in base 1.1 must land at one day in base 2.
    x11 = minutes_to_x(DAY)
    x2, _, _ = convert_base(x11, 1.0, 0.0, 1.1, 2.0)
    assert x2 == pytest.approx(minutes_to_x(DAY, 2.0))
    there = convert_base(54.1, 11.2, -0.4, 1.1, 10.0)
    back = convert_base(*there, from_base=10.0, to_base=1.1)
    assert back == pytest.approx((54.1, 11.2, -0.4))
    assert convert_base(54.1, 11.2, -0.4) == (54.1, 11.2, -0.4)  # same base: unchanged


@pytest.mark.parametrize("bad", [1.0, 0.9, 0.0, -3.0, math.nan])
def test_convert_base_validates_bases(bad):
    with pytest.raises(ValueError):
        convert_base(1.0, 1.0, 0.0, from_base=bad, to_base=2.0)
    with pytest.raises(ValueError):
        convert_base(1.0, 1.0, 0.0, from_base=1.1, to_base=bad)


def test_ticks():
    labels = [label for label, _ in TICKS]
    assert labels == [
        "1 min", "15 min", "1 h", "12 h", "1 day", "1 week", "1 month", "1 year", "1 decade",
    ]
    positions = tick_positions()
    assert [label for _, label in positions] == labels  # all inside [0, 200] in base 1.1
    xs = [x for x, _ in positions]
    assert xs == sorted(xs)
    assert xs[0] == 0.0
    assert dict((label, x) for x, label in positions)["1 day"] == pytest.approx(76.30, abs=0.005)
    assert all(X_MIN <= x <= X_MAX for x in xs)


def test_tick_positions_drop_ticks_off_the_chart():
    # In base 1.05 a decade is at x ≈ 316, beyond the chart.
    labels = [label for _, label in tick_positions(1.05)]
    assert "1 decade" not in labels and "1 year" not in labels
    assert labels[0] == "1 min"


@pytest.mark.parametrize(
    ("minutes", "text"),
    [
        (0.2, "1 min"),
        (1, "1 min"),
        (45, "45 min"),
        (59.4, "59 min"),
        (59.7, "1 hour"),
        (3 * HOUR, "3 hours"),
        (9 * HOUR, "9 hours"),
        (1.5 * HOUR, "1.5 hours"),
        (12 * HOUR, "12 hours"),
        (DAY, "1 day"),
        (3 * DAY, "3 days"),
        (6.9 * DAY, "1 week"),
        (2 * WEEK, "2 weeks"),
        (29.8 * DAY, "1 month"),
        (5 * MONTH, "5 months"),
        (YEAR, "1 year"),
        (2 * YEAR, "2 years"),
        (DECADE, "1 decade"),
        (3 * DECADE, "3 decades"),
    ],
)
def test_humanize_minutes(minutes, text):
    assert humanize_minutes(minutes) == text


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_humanize_rejects_bad_values(bad):
    with pytest.raises(ValueError):
        humanize_minutes(bad)


def test_humanize_x():
    assert humanize_x(minutes_to_x(3 * DAY)) == "3 days"
    assert humanize_x(0.0) == "1 min"
    assert humanize_x(minutes_to_x(2 * WEEK, 2.0), base=2.0) == "2 weeks"


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("3 days", 3 * DAY),
        ("90 min", 90.0),
        ("90 minutes", 90.0),
        ("1 minute", 1.0),
        ("1.5 h", 90.0),
        ("2 hrs", 120.0),
        ("2 hours", 120.0),
        ("1 hour", 60.0),
        ("1 week", WEEK),
        ("6 months", 6 * MONTH),
        ("1 year", YEAR),
        ("2 decades", 2 * DECADE),
        ("45s", 0.75),
        ("30 seconds", 0.5),
        ("1h30m", 90.0),
        ("1 h 30 min", 90.0),
        ("2 days and 3 hours", 2 * DAY + 3 * HOUR),
        ("1 day, 12 h", 1.5 * DAY),
        ("90", 90.0),
        ("2.5", 2.5),
        ("  3 DAYS  ", 3 * DAY),
        ("3Days", 3 * DAY),
        ("a week", WEEK),
        ("an hour", 60.0),
        (".5 h", 30.0),
        ("2 hrs.", 120.0),
    ],
)
def test_parse_duration(text, minutes):
    assert parse_duration(text) == pytest.approx(minutes)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("abc", "could not read 'abc' as a duration; try e.g. '3 days' or '90 min'"),
        ("", "no duration given"),
        ("   ", "no duration given"),
        ("-3 days", "cannot be negative"),
        ("-5", "cannot be negative"),
        ("0", "longer than zero"),
        ("0 min", "longer than zero"),
        ("0h 0m", "longer than zero"),
        ("3 fortnights", "unknown unit 'fortnights'"),
        ("1h 30", "give every part a unit"),
        ("3 days ago", "could not read"),
        ("days", "could not read"),
        ("nan", "could not read"),
        ("inf", "could not read"),
        ("1 h and", "could not read"),
        ("1,5 h", "could not read"),
    ],
)
def test_parse_duration_errors(text, fragment):
    with pytest.raises(DurationParseError) as info:
        parse_duration(text)
    assert fragment in str(info.value)


def test_duration_parse_error_is_a_value_error():
    assert issubclass(DurationParseError, ValueError)
    with pytest.raises(ValueError):
        parse_duration("soon")
    with pytest.raises(DurationParseError):
        parse_duration(None)  # type: ignore[arg-type]


def test_parse_then_axis():
    assert minutes_to_x(parse_duration("1 day")) == pytest.approx(76.30, abs=0.005)
    # under a minute parses as a fraction; the axis floors it
    assert minutes_to_x(parse_duration("45 s")) == 0.0
