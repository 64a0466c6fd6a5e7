"""A curve's shape on the chart: normalised (area 1), proportional (peak 1) and drawn (the
fitted curve itself), its half-validity range, and its description in words."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from scipy import optimize

from annotation.curves.density import (
    _axis_peak,
    _check_params,
    _sn_pdf,
    parameter_bounds_problem,
    peak_height,
)
from annotation.curves.limits import MAX_HEIGHT, CurveFitError
from annotation.curves.points import _check_ranges, _read_points
from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN, humanize_x


#: The grid on which curves are normalised and drawn: 801 points over the whole axis.
AXIS_GRID = np.linspace(X_MIN, X_MAX, 801)
AXIS_GRID.flags.writeable = False


def normalised_curve(
    xi: float, omega: float, alpha: float, scale: float = 1.0, x=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(x, f_norm)``: the curve ``S·f`` divided by its area over the axis, so it has area 1.

    ``N = ∫ S·f dx`` over ``[X_MIN, X_MAX]`` by the trapezoidal rule on :data:`AXIS_GRID`
    (801 points); ``f_norm = S·f / N``, evaluated on ``x`` (default :data:`AXIS_GRID`). Since
    S cancels, the result does not depend on ``scale``. Raises :class:`CurveFitError` when the
    curve lies entirely off the axis (N = 0).

    Examples:
        >>> import numpy as np
        >>> xs, ys = normalised_curve(50.0, 10.0, 0.0)
        >>> len(xs), float(xs[0]), float(xs[-1]), round(float(np.trapezoid(ys, xs)), 4)
        (801, 0.0, 200.0, 1.0)
    """
    _check_params(xi, omega, alpha)
    if not (math.isfinite(float(scale)) and float(scale) > 0):
        raise CurveFitError("The curve's scale factor must be a positive number.")
    xi, omega, alpha, scale = float(xi), float(omega), float(alpha), float(scale)
    with np.errstate(all="ignore"):
        area = float(np.trapezoid(scale * _sn_pdf(AXIS_GRID, xi, omega, alpha), AXIS_GRID))
        if not (area > 0 and math.isfinite(area)):
            raise CurveFitError(
                "This curve lies entirely outside the time axis; move its peak onto the chart."
            )
        grid = AXIS_GRID if x is None else np.asarray(x, dtype=float)
        return grid, scale * _sn_pdf(grid, xi, omega, alpha) / area


def proportional_curve(
    xi: float, omega: float, alpha: float, x=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(x, f_norm / f_max)``: the proportional validity curve, which peaks at 1.

    ``f_max`` is the true maximum of ``f_norm`` over the axis (at the mode, or at the axis end
    nearest to it when the mode is off the chart), so values are at most 1 and equal 1 at the
    peak even when the peak falls between grid points. This is the curve the chart shows and
    applications rank by.

    Examples:
        >>> import numpy as np
        >>> xs, ys = proportional_curve(50.0, 10.0, 0.0, np.array([40.0, 50.0, 60.0]))
        >>> [round(float(v), 4) for v in ys]  # exp(−1/2) at one ω from the peak
        [0.6065, 1.0, 0.6065]
    """
    grid, f_norm = normalised_curve(xi, omega, alpha, 1.0, x)
    xi, omega, alpha = float(xi), float(omega), float(alpha)
    peak_x = _axis_peak(xi, omega, alpha)
    with np.errstate(all="ignore"):
        top = float(_sn_pdf(np.array([peak_x]), xi, omega, alpha)[0])
        area = float(np.trapezoid(_sn_pdf(AXIS_GRID, xi, omega, alpha), AXIS_GRID))
        f_max = top / area
        if not (f_max > 0 and math.isfinite(f_max)):
            raise CurveFitError(
                "This curve lies entirely outside the time axis; move its peak onto the chart."
            )
        return grid, f_norm / f_max


#: Samples of :func:`drawn_polyline` spread evenly over the axis (plus the peak and the points).
DRAWN_SAMPLES = 201


def drawn_curve(
    xi: float, omega: float, alpha: float, scale: float | None = None, x=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: the curve the chart draws — the fitted curve ``S · f`` itself, which is
    ``h ×`` the proportional curve with ``h = S · f_max ≤ 1`` — evaluated on ``x`` (default
    :data:`AXIS_GRID`).

    ``scale=None`` draws the proportional curve (peak 1): for parameters that come without a
    fit to points (a lead's resolution, a mean of two annotators). A stored scale that would put
    the peak above 100 % (a row older than the ceiling) is drawn capped at 100 %, so the chart
    never shows a validity above 1. Raises :class:`CurveFitError` for parameters that give no
    curve on the axis.

    Examples:
        >>> import math, numpy as np
        >>> xs, ys = drawn_curve(50.0, 10.0, 0.0, scale=5.0 * math.sqrt(2 * math.pi), x=np.array([50.0, 60.0]))
        >>> [round(float(v), 4) for v in ys]  # a curve peaking at 50 %
        [0.5, 0.3033]
    """
    grid, prop = proportional_curve(xi, omega, alpha, x)
    if scale is None:
        return grid, prop
    if not (isinstance(scale, (int, float, np.floating, np.integer)) and math.isfinite(float(scale))
            and float(scale) > 0):
        raise CurveFitError("The curve's scale factor must be a positive number.")
    height = min(peak_height(xi, omega, alpha, float(scale)), MAX_HEIGHT)
    return grid, height * prop


def drawn_polyline(
    xi: float,
    omega: float,
    alpha: float,
    scale: float | None = None,
    points: Iterable = (),
    samples: int = DRAWN_SAMPLES,
) -> tuple[tuple[float, float], ...]:
    """The drawn curve (:func:`drawn_curve`) as a polyline ``((x, y), ...)`` over the whole axis:
    ``samples`` evenly spaced positions plus the curve's peak and the x of each of ``points``,
    so the line reaches its true height and, at each point, is exactly the fitted value
    (the point minus its residual) rather than a chord between samples. This is the one
    definition of what the chart shows.

    Examples:
        >>> [(x, round(y, 4)) for x, y in drawn_polyline(50.0, 10.0, 0.0, samples=5)]
        [(0.0, 0.0), (50.0, 1.0), (100.0, 0.0), (150.0, 0.0), (200.0, 0.0)]
    """
    extra = [_axis_peak(float(xi), float(omega), float(alpha))] if _params_ok(xi, omega, alpha) \
        else []
    given = list(points) if points is not None else []
    if given:
        extra += [p[0] for p in _check_ranges(_read_points(given))]
    xs = np.union1d(np.linspace(X_MIN, X_MAX, max(int(samples), 2)), np.asarray(extra, dtype=float))
    grid, ys = drawn_curve(xi, omega, alpha, scale, xs)
    return tuple((float(a), float(b)) for a, b in zip(grid, ys))


def _params_ok(xi: float, omega: float, alpha: float) -> bool:
    try:
        _check_params(xi, omega, alpha)
    except CurveFitError:
        return False
    return True


def half_validity_range(xi: float, omega: float, alpha: float) -> tuple[float, float]:
    """``(lo, hi)`` in axis units: the interval where the proportional curve is at least 0.5.

    Crossings are found by root-finding on the density, so they are exact rather than
    grid-bound; ``lo = X_MIN`` / ``hi = X_MAX`` when the curve is still above half at that end of
    the axis.

    Examples:
        >>> [round(v, 3) for v in half_validity_range(50.0, 10.0, 0.0)]  # 50 ± 10·√(2 ln 2)
        [38.226, 61.774]
    """
    _check_params(xi, omega, alpha)
    xi, omega, alpha = float(xi), float(omega), float(alpha)
    peak_x = _axis_peak(xi, omega, alpha)

    def density(v: float) -> float:
        return float(_sn_pdf(np.array([v]), xi, omega, alpha)[0])

    with np.errstate(all="ignore"):
        half = 0.5 * density(peak_x)
        if not (half > 0 and math.isfinite(half)):
            raise CurveFitError(
                "This curve lies entirely outside the time axis; move its peak onto the chart."
            )

        def above_half(v: float) -> float:
            return density(v) - half

        lo = X_MIN if above_half(X_MIN) >= 0 else optimize.brentq(above_half, X_MIN, peak_x)
        hi = X_MAX if above_half(X_MAX) >= 0 else optimize.brentq(above_half, peak_x, X_MAX)
    return float(lo), float(hi)


def describe_curve(
    xi: float, omega: float, alpha: float, base: float = DEFAULT_BASE, height: float | None = None
) -> str:
    """The curve in human terms, e.g. "peaks after ≈ 3 days; above half validity from
    ≈ 9 hours to ≈ 2 weeks".

    Uses the peak of the curve on the axis and the interval where it is at least half its peak
    (:func:`half_validity_range`) — the shape shared by the drawn curve and the proportional
    curve —, converted to durations with :func:`annotation.timeaxis.humanize_x` in ``base``
    (the base the parameters are expressed in). ``height``: the drawn curve's peak height
    (:attr:`CurveFit.height`); when given and visibly below 100 %, the text says so
    ("…; its peak is 80 % valid").

    Examples:
        >>> describe_curve(50.0, 10.0, 0.0)
        'peaks after ≈ 2 hours; above half validity from ≈ 38 min to ≈ 6 hours'
    """
    problem = parameter_bounds_problem(xi, omega, alpha)
    if problem is not None:  # e.g. a stored ξ = 1e308 would overflow the time conversions
        raise CurveFitError(f"This curve cannot be described: {problem}.")
    peak_x = _axis_peak(float(xi), float(omega), float(alpha))
    lo, hi = half_validity_range(xi, omega, alpha)
    if peak_x <= X_MIN:
        peak = "peaks within the first minute"
    elif peak_x >= X_MAX:
        peak = f"still rising at the end of the chart (≈ {humanize_x(X_MAX, base)})"
    else:
        peak = f"peaks after ≈ {humanize_x(peak_x, base)}"
    start = "the start" if lo <= X_MIN else f"≈ {humanize_x(lo, base)}"
    end = f"beyond ≈ {humanize_x(X_MAX, base)}" if hi >= X_MAX else f"≈ {humanize_x(hi, base)}"
    text = f"{peak}; above half validity from {start} to {end}"
    if height is not None and math.isfinite(float(height)) and round(float(height) * 100) < 100:
        text += f"; its peak is {round(float(height) * 100):d} % valid"
    return text
