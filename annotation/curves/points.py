"""The annotation points: reading them, checking them against the protocol (SPEC section 4)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from annotation.curves.limits import (
    MAX_POINTS,
    MIN_POINTS,
    MIN_X_GAP,
    PEAK_TOLERANCE,
    CurveFitError,
)
from annotation.timeaxis import X_MAX, X_MIN


_PEAKS_HINT = (
    "a validity curve has a single peak. Move or remove a point, "
    "or flag the sample as 'needs more than one peak'."
)


def _as_pair(point: object, number: int) -> tuple[float, float]:
    try:
        if isinstance(point, Mapping):
            x, y = point["x"], point["y"]
        else:
            x, y = point  # type: ignore[misc]
    except (TypeError, ValueError, KeyError):
        raise CurveFitError(f"Point {number} needs an x (time) and a y (validity) value.") from None
    try:
        return float(x), float(y)
    except (TypeError, ValueError, OverflowError):
        raise CurveFitError(f"Point {number} has a missing or invalid value.") from None


def _read_points(points: object) -> list[tuple[float, float]]:
    if points is None or isinstance(points, (str, bytes)):
        raise CurveFitError("No points given: place 3 to 5 points on the chart.")
    try:
        items = list(points)  # type: ignore[call-overload]
    except TypeError:
        raise CurveFitError("No points given: place 3 to 5 points on the chart.") from None
    pairs = [_as_pair(p, i + 1) for i, p in enumerate(items)]
    for i, (x, y) in enumerate(pairs, start=1):
        if not (math.isfinite(x) and math.isfinite(y)):
            raise CurveFitError(f"Point {i} has a missing or invalid value.")
    return pairs


def _check_ranges(pairs: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    out = []
    for i, (x, y) in enumerate(pairs, start=1):
        if not X_MIN <= x <= X_MAX:
            raise CurveFitError(
                f"Point {i} is off the time axis (x = {x:.1f}); keep points between "
                f"x = {X_MIN:g} (1 minute) and x = {X_MAX:g}."
            )
        if not -1e-9 <= y <= 1.0 + 1e-9:
            raise CurveFitError(
                f"Point {i} has validity {y:.2f}; validity must be between 0 and 1."
            )
        out.append((x, min(max(y, 0.0), 1.0)))
    return out


def validate_points(points: Iterable) -> tuple[tuple[float, float], ...]:
    """Check annotation points against the protocol; return them as ``(x, y)`` floats sorted by x.

    Points are ``(x, y)`` pairs (or mappings with ``"x"`` and ``"y"``), x in base-1.1 log minutes
    within ``[X_MIN, X_MAX]``, y (relative validity) within [0, 1]. Rules: 3 to 5 points, all
    finite, no two within :data:`MIN_X_GAP` of each other on x, at least one above zero, and
    single-peaked — along increasing x the heights rise then fall; a dip of up to
    :data:`PEAK_TOLERANCE` between two higher points is forgiven as hand-placement jitter.

    Raises :class:`CurveFitError` naming the first problem found; point numbers count from 1 in
    the order given.

    Examples:
        >>> validate_points([(60, 0.5), (40, 0.5), (50, 1)])
        ((40.0, 0.5), (50.0, 1.0), (60.0, 0.5))
    """
    pairs = _read_points(points)
    n = len(pairs)
    if n < MIN_POINTS:
        raise CurveFitError(
            f"Place at least {MIN_POINTS} points to fit a curve (you have {n}): normally one at "
            "the peak, and points where validity is about half and where it has faded."
        )
    if n > MAX_POINTS:
        raise CurveFitError(
            f"Use at most {MAX_POINTS} points (you have {n}); remove "
            f"{n - MAX_POINTS} of them."
        )
    pairs = _check_ranges(pairs)
    order = sorted(range(n), key=lambda i: pairs[i][0])
    xs = [pairs[i][0] for i in order]
    ys = [pairs[i][1] for i in order]

    for k in range(n - 1):
        if xs[k + 1] - xs[k] < MIN_X_GAP:
            a, b = sorted((order[k] + 1, order[k + 1] + 1))
            raise CurveFitError(
                f"Points {a} and {b} are at the same time (x ≈ {xs[k]:.1f}); "
                "move one of them or remove it."
            )
    if max(ys) <= 0.0:
        raise CurveFitError(
            "All points are at zero validity; place at least one point above zero "
            "(normally at the peak)."
        )

    # Single peak: no point may sit clearly below a higher point on each side of it.
    worst_depth, worst_k = 0.0, -1
    for k in range(1, n - 1):
        depth = min(max(ys[:k]), max(ys[k + 1 :])) - ys[k]
        if depth > PEAK_TOLERANCE and depth > worst_depth:
            worst_depth, worst_k = depth, k
    if worst_k >= 0:
        left = max(range(worst_k), key=lambda i: ys[i])
        right = max(range(worst_k + 1, n), key=lambda i: ys[i])
        a, b = sorted((order[left] + 1, order[right] + 1))
        raise CurveFitError(f"Points {a} and {b} are both peaks: {_PEAKS_HINT}")

    return tuple(zip(xs, ys))
