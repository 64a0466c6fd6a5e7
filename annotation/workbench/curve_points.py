"""Editing the annotation points of the validity curve — pure, no Streamlit.

A chart edit is a small event dict — from the annotation surface's event log (the annotator)
or from the lead's curve chart (``ui/components/curve_canvas.py``); :func:`apply_point_event`
turns the current list of points plus one event into the next list of points. The browser
applies the same rules to draw an edit at once (``ui/components/curve_points.js``) and the
server's replay through this function decides what is stored, so this is the single place where
an edit is interpreted.

Points are ``(x, y)`` with ``x`` in base-1.1 log minutes (``annotation.timeaxis``) on
``[0, x_max]`` and ``y`` the relative validity on ``[0, 1]``.

**Order.** Points are kept in *insertion order*, not sorted by ``x``: the chart numbers the
points and its events refer to them by index, so an index must keep naming the same point
while the annotator drags it past its neighbours. Whoever needs them sorted (the curve fit
does not care) sorts a copy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.curves.limits import MAX_POINTS
from annotation.timeaxis import X_MAX

Point = tuple[float, float]

#: Event actions understood by :func:`apply_point_event`.
ACTIONS = ("add", "move", "remove")


def _finite_number(value: Any) -> float | None:
    """Return ``value`` as a float when it is a finite real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _valid_index(value: Any, length: int) -> int | None:
    """Return ``value`` as an index into a list of ``length`` items, or None.

    Integral floats (``2.0``, as JSON may deliver) are accepted; negative indices are not —
    an event names a point by its number, never from the end.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 0 <= value < length:
        return None
    return value


def clamp_point(x: float, y: float, *, x_max: float = X_MAX) -> Point:
    """Clamp a point into the chart's range ``[0, x_max] x [0, 1]`` and round to 2 decimals
    (the chart's resolution: one pixel is coarser than 0.01 on either axis)."""
    return (round(min(max(x, 0.0), x_max), 2), round(min(max(y, 0.0), 1.0), 2))


def apply_point_event(
    points: Sequence[Sequence[float]],
    event: Mapping[str, Any] | None,
    *,
    x_max: float = X_MAX,
    max_points: int = MAX_POINTS,
) -> list[Point]:
    """Apply one chart event to the annotation points and return the new list.

    Events (as sent by ``curve_canvas``)::

        {"action": "add", "x": 54.2, "y": 0.8}                # append a point
        {"action": "move", "index": 1, "x": 60.0, "y": 0.5}   # move point 1
        {"action": "remove", "index": 0}                      # delete point 0

    Coordinates are clamped to ``[0, x_max] x [0, 1]`` and rounded to 2 decimals. Points stay
    in insertion order (see the module docstring), so after a removal the later points move
    up by one index.

    Malformed events change nothing: an unknown action, a missing, out-of-range or non-integer
    index, a missing or non-finite coordinate, or an ``add`` when ``max_points`` points are
    already placed all return the points unchanged (as a new list). The input is never
    mutated.
    """
    current: list[Point] = [(float(p[0]), float(p[1])) for p in points]
    if not isinstance(event, Mapping):
        return current
    action = event.get("action")

    if action == "add":
        if len(current) >= max_points:
            return current
        x, y = _finite_number(event.get("x")), _finite_number(event.get("y"))
        if x is None or y is None:
            return current
        return [*current, clamp_point(x, y, x_max=x_max)]

    if action == "move":
        index = _valid_index(event.get("index"), len(current))
        x, y = _finite_number(event.get("x")), _finite_number(event.get("y"))
        if index is None or x is None or y is None:
            return current
        current[index] = clamp_point(x, y, x_max=x_max)
        return current

    if action == "remove":
        index = _valid_index(event.get("index"), len(current))
        if index is None:
            return current
        del current[index]
        return current

    return current
