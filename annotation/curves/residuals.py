"""The fitted curve against the points: per-point residuals, whether the curve passes through
them (:data:`~annotation.curves.limits.PASS_TOLERANCE`), and the message the annotator reads when
it does not."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from annotation.curves.density import _check_params, _sn_pdf
from annotation.curves.limits import PASS_TOLERANCE
from annotation.curves.points import _check_ranges, _read_points


def curve_residuals(
    points: Iterable, xi: float, omega: float, alpha: float, scale: float
) -> tuple[float, ...]:
    """``y − S·f(x)`` for each point, in the order given: how far each point lies above (+) or
    below (−) the fitted curve. Points need only be finite, on the axis and in [0, 1].

    Examples:
        >>> import math
        >>> [round(r, 4) for r in curve_residuals([(50.0, 1.0), (60.0, 0.5)], 50.0, 10.0, 0.0,
        ...                                         10.0 * math.sqrt(2 * math.pi))]
        [0.0, -0.1065]
    """
    _check_params(xi, omega, alpha)
    pairs = _check_ranges(_read_points(points))
    if not pairs:
        return ()
    xs = np.array([p[0] for p in pairs])
    ys = np.array([p[1] for p in pairs])
    with np.errstate(all="ignore"):
        fitted = float(scale) * _sn_pdf(xs, float(xi), float(omega), float(alpha))
    return tuple(float(v) for v in ys - fitted)


def passes_through(residuals: Sequence[float]) -> bool:
    """True when there are residuals and each is within :data:`PASS_TOLERANCE`.

    Examples:
        >>> passes_through([0.01, -0.02]), passes_through([0.2])
        (True, False)
    """
    return bool(residuals) and all(abs(r) <= PASS_TOLERANCE for r in residuals)


def _describe_residual(number: int, residual: float) -> str:
    if abs(residual) < 0.005:
        return f"point {number} is on the curve"
    side = "above" if residual > 0 else "below"
    return f"point {number} is {abs(residual):.2f} {side} the curve"


def residual_message(residuals: Sequence[float], *, hand_tuned: bool = False) -> str | None:
    """What the annotator reads when the curve misses a point by more than
    :data:`PASS_TOLERANCE`, naming every point's residual (points numbered from 1 in the order
    given); None when the curve passes through them all (or there are no residuals).

    ``hand_tuned``: the curve is the annotator's own parameters, not the best fit, so the
    message says the tuned curve misses the points rather than that no curve can pass.

    Examples:
        >>> residual_message([0.01, -0.02]) is None
        True
        >>> residual_message([0.0, 0.3])[:61]
        'No single-peaked curve at or below 100 % passes through these'
    """
    if not residuals or passes_through(residuals):
        return None
    each = ", ".join(_describe_residual(i, r) for i, r in enumerate(residuals, start=1))
    if hand_tuned:
        return (
            f"The hand-tuned curve misses the points by more than {PASS_TOLERANCE:.2f}: {each}. "
            "Adjust the parameters or go back to the fitted curve."
        )
    return (
        "No single-peaked curve at or below 100 % passes through these points: "
        f"{each}. The closest such curve is shown; move the points or flag the sample."
    )
