"""Context pairs, the pure domain: TVCP's duration classes and the change label from two curves."""

from __future__ import annotations

import math

import pytest

from annotation.curves.half_gone import half_gone_x
from annotation.pairs.change import (
    CHANGE_LABELS,
    change_words,
    check_change_factor,
    derived_change,
    read_change,
)
from annotation.pairs.duration_classes import (
    CLASS_LABELS,
    CLASS_NAMES,
    LOWER_EDGES_MINUTES,
    class_of_curve,
    class_of_minutes,
    duration_class,
)
from annotation.timeaxis import minutes_to_x
from annotation.settings import ProjectSettings, SettingsError

import numpy as np

OMEGA = 5.0
#: for a symmetric curve (α = 0) the half-gone point lies ω·√(2 ln 2) after ξ
HALF_WIDTH = OMEGA * math.sqrt(2 * math.log(2))


def curve_half_gone_at(x: float) -> tuple[float, float, float]:
    return (x - HALF_WIDTH, OMEGA, 0.0)


def test_the_curve_helper_puts_the_half_gone_point_where_asked():
    assert half_gone_x(np.array([curve_half_gone_at(70.0)]))[0] == pytest.approx(70.0, abs=1e-9)


@pytest.mark.parametrize("index", range(2, 12))
def test_every_class_edge_belongs_to_the_class_above_it(index):
    edge = LOWER_EDGES_MINUTES[index - 2]
    x = minutes_to_x(edge)
    above = class_of_curve(*curve_half_gone_at(x + 1e-6))
    below = class_of_curve(*curve_half_gone_at(x - 1e-3))
    assert above.index == index, (edge, above)
    if index > 2:  # just under the one-minute edge is the chart's start: see the next test
        assert below.index == index - 1, (edge, below)


def test_the_minute_classes_by_time_alone():
    assert class_of_minutes(0.99).name == "less than one minute"
    assert class_of_minutes(1.0).name == "1–5 minutes"
    assert class_of_minutes(4 * 7 * 1440 - 1).name == "1–4 weeks"
    assert class_of_minutes(4 * 7 * 1440).name == "more than 1 month"
    assert class_of_minutes(math.inf).name == "more than 1 month"
    with pytest.raises(ValueError):
        class_of_minutes(math.nan)


def test_a_curve_over_before_the_first_minute_is_less_than_one_minute():
    assert class_of_curve(-20.0, 5.0, 0.0).name == "less than one minute"
    # peak before one minute but still more than half valid at one minute: half gone later
    assert class_of_curve(-1.0, 5.0, 0.0).index == 2


def test_a_flat_curve_has_no_time_sensitive_information():
    assert class_of_curve(100.0, 500.0, 0.0).name == "no time-sensitive information"
    assert class_of_curve(100.0, 500.0, 0.0).index == 0
    # rising to the chart's end without falling to half: the longest class, not flat
    assert class_of_curve(260.0, 40.0, 0.0).name == "more than 1 month"


def test_class_indices_are_the_releases():
    assert len(CLASS_NAMES) == 12
    assert duration_class(0).name == "no time-sensitive information"
    assert duration_class(1).name == "less than one minute"
    for bad in (-1, 12, 1.5, True):
        with pytest.raises(ValueError):
            duration_class(bad)  # type: ignore[arg-type]


def units(factor: float) -> float:
    return math.log(factor) / math.log(1.1)


@pytest.mark.parametrize("factor", [1.05, 1.5, 2.0, 10.0])
def test_the_threshold_decides_at_exactly_the_factor(factor):
    t = units(factor)
    assert derived_change(60.0, 60.0 + t, factor)[0] == "increased"
    assert derived_change(60.0, 60.0 + t - 1e-3, factor)[0] == "neutral"
    assert derived_change(60.0, 60.0 - t, factor)[0] == "decreased"
    assert derived_change(60.0, 60.0 - t + 1e-3, factor)[0] == "neutral"
    assert derived_change(60.0, 60.0, factor) == ("neutral", 1.0)


def test_curves_never_half_gone_on_the_chart():
    assert derived_change(math.inf, math.inf, 1.5) == ("neutral", None)
    assert derived_change(40.0, math.inf, 1.5) == ("increased", math.inf)
    assert derived_change(math.inf, 40.0, 1.5) == ("decreased", 0.0)
    assert "chart's end" in change_words("neutral", None, 1.5)


def test_the_threshold_range():
    for bad in (1.0, 0.5, 101, math.inf, math.nan, True, "2"):
        with pytest.raises(ValueError):
            check_change_factor(bad)  # type: ignore[arg-type]
    assert ProjectSettings(protocol="pairs", change_factor=3).change_factor == 3
    with pytest.raises(SettingsError):
        ProjectSettings(change_factor=1.0)
    with pytest.raises(SettingsError):
        ProjectSettings(protocol="triples")


def test_the_words_name_the_factor_and_the_label():
    alone = (45.0, 10.0, 0.0)
    given = (45.0 - units(3.0), 10.0, 0.0)
    reading = read_change(alone, given, 1.5)
    assert reading.label == "decreased"
    assert reading.words == "The follow-up makes it valid ≈ ×3 shorter: decreased."
    assert reading.factor == pytest.approx(1 / 3)
    assert reading.label in CHANGE_LABELS
    same = read_change(alone, alone, 1.5)
    assert same.label == "neutral" and same.alone_class == same.given_class


@pytest.mark.parametrize("factor", [1.0, 0.97, 1.04, 1 / 1.04])
def test_a_neutral_change_that_rounds_to_x1_reads_as_about_the_same(factor):
    words = change_words("neutral", factor, 1.5)
    assert words == "The follow-up keeps it valid about as long (about the same, within ×1.5): neutral."
    assert "×1 " not in words and "shorter" not in words and "longer" not in words


def test_a_neutral_change_with_a_size_still_says_which_way():
    assert change_words("neutral", 1 / 1.3, 1.5) == (
        "The follow-up keeps it valid about as long (≈ ×1.3 shorter, within ×1.5): neutral.")


def test_the_app_names_each_duration_class_by_its_range():
    """The release's "more than 6 hours" holds 6 hours to 1 day (1–3 days comes next): the app names
    it so; the release's names stay what exports write."""
    assert duration_class(7).name == "more than 6 hours" and duration_class(7).label == "6 hours–1 day"
    assert class_of_minutes(6 * 60).label == class_of_minutes(24 * 60 - 1).label == "6 hours–1 day"
    assert class_of_minutes(24 * 60).label == "1–3 days"
    assert [i for i, (a, b) in enumerate(zip(CLASS_NAMES, CLASS_LABELS)) if a != b] == [7]
