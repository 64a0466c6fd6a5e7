"""apply_point_event: the one place where a chart edit is interpreted."""

from __future__ import annotations

import math

import pytest

from annotation.workbench.curve_points import apply_point_event, clamp_point

POINTS = [(10.0, 0.2), (50.0, 1.0), (90.0, 0.3)]


def test_add_appends_in_insertion_order():
    new = apply_point_event(POINTS, {"action": "add", "x": 30.0, "y": 0.5})
    assert new == [*POINTS, (30.0, 0.5)]  # not sorted by x: indices stay stable


def test_add_clamps_and_rounds():
    assert apply_point_event([], {"action": "add", "x": -4, "y": 1.7}) == [(0.0, 1.0)]
    assert apply_point_event([], {"action": "add", "x": 250.0, "y": -0.2}) == [(200.0, 0.0)]
    assert apply_point_event([], {"action": "add", "x": 12.3456, "y": 0.33333}) == [
        (12.35, 0.33)
    ]
    assert apply_point_event([], {"action": "add", "x": 150, "y": 0.5}, x_max=100) == [
        (100.0, 0.5)
    ]


def test_add_respects_max_points():
    full = [(float(i), 0.5) for i in range(5)]
    assert apply_point_event(full, {"action": "add", "x": 1, "y": 1}) == full
    assert len(apply_point_event(full, {"action": "add", "x": 1, "y": 1}, max_points=6)) == 6


def test_move_replaces_the_point_in_place():
    new = apply_point_event(POINTS, {"action": "move", "index": 1, "x": 120.0, "y": 0.75})
    assert new == [(10.0, 0.2), (120.0, 0.75), (90.0, 0.3)]


def test_move_clamps():
    new = apply_point_event(POINTS, {"action": "move", "index": 0, "x": 999, "y": -1})
    assert new[0] == (200.0, 0.0)


def test_move_accepts_integral_float_index():
    new = apply_point_event(POINTS, {"action": "move", "index": 2.0, "x": 1, "y": 1})
    assert new[2] == (1.0, 1.0)


def test_remove_shifts_later_points_up():
    assert apply_point_event(POINTS, {"action": "remove", "index": 0}) == POINTS[1:]
    assert apply_point_event(POINTS, {"action": "remove", "index": 2}) == POINTS[:2]


@pytest.mark.parametrize(
    "event",
    [
        None,
        "add",
        {},
        {"action": "explode", "index": 0},
        {"action": "add"},
        {"action": "add", "x": 1.0},
        {"action": "add", "x": "1", "y": 0.5},
        {"action": "add", "x": math.nan, "y": 0.5},
        {"action": "add", "x": 1.0, "y": math.inf},
        {"action": "add", "x": True, "y": 0.5},
        {"action": "move", "index": 3, "x": 1, "y": 1},
        {"action": "move", "index": -1, "x": 1, "y": 1},
        {"action": "move", "index": 0.5, "x": 1, "y": 1},
        {"action": "move", "index": "0", "x": 1, "y": 1},
        {"action": "move", "index": True, "x": 1, "y": 1},
        {"action": "move", "index": 0, "x": -math.inf, "y": 1},
        {"action": "move", "index": 0},
        {"action": "remove"},
        {"action": "remove", "index": 3},
        {"action": "remove", "index": -1},
        {"action": "remove", "index": None},
    ],
)
def test_malformed_events_change_nothing(event):
    assert apply_point_event(POINTS, event) == POINTS


def test_input_is_not_mutated_and_lists_are_accepted():
    points = [[10, 0.2], [50, 1]]
    new = apply_point_event(points, {"action": "remove", "index": 0})
    assert points == [[10, 0.2], [50, 1]]
    assert new == [(50.0, 1.0)]
    unchanged = apply_point_event(points, {"action": "bogus"})
    assert unchanged == [(10.0, 0.2), (50.0, 1.0)] and unchanged is not points


def test_clamp_point():
    assert clamp_point(-1, 2) == (0.0, 1.0)
    assert clamp_point(42.956, 0.4449) == (42.96, 0.44)
