"""Validity curves: the skew-normal fit behind step 3 of the Chronocept protocol (SPEC section 4).

The annotator places 3 to 5 points ``(x, y)`` on a chart whose x axis is log-time (base-1.1 log
minutes, :mod:`annotation.timeaxis`) and whose y axis is relative validity in [0, 1]. The tool
fits ``S · f(x; ξ, ω, α)``, a skew-normal density times a scale factor S > 0, by bounded least
squares (Trust Region Reflective, ``scipy.optimize.curve_fit(method="trf")``), and reports the
RMSE over the points.

**The curve and the points**. The points are relative validity, so the fitted
curve never rises above 100 %: the fit is ``h · f(x) / f_max`` with a peak height
``h = S · f_max`` in (0, 1], ``f_max`` the density's maximum over the chart (SPEC's "free S" is
free below that ceiling). The chart draws exactly that fitted curve (:func:`drawn_curve`,
:func:`drawn_polyline`), the RMSE and the per-point residuals are of that curve, and
:func:`describe_curve` describes its shape. The *proportional validity curve* — normalised to
area 1 over the axis and divided by its maximum, so it peaks at 1 — is the same shape scaled to
peak 1; it is what is exported and ranked by. When the highest point is at 100 % (the usual
case) h = 1 and the two coincide. When no single-peaked curve at or below 100 % comes within
:data:`PASS_TOLERANCE` of every point, the fit still returns the closest such curve and says so
(:attr:`CurveFit.passes_through`, :attr:`CurveFit.message`).

Skew-normal density (Azzalini 1985, "A class of distributions which includes the normal ones",
Scand. J. Statist. 12:171-178)::

    f(x; ξ, ω, α) = (2/ω) · φ((x − ξ)/ω) · Φ(α (x − ξ)/ω)

with φ, Φ the standard normal pdf and cdf, ξ the location, ω > 0 the scale and α the shape
(α > 0 skews right). Protocol and fitting procedure: Chronocept (temporal validity as a
skew-normal curve over log-time).

Everything here is pure: plain data in, plain data out. Bad input raises :class:`CurveFitError`
(a :class:`ValueError`) whose message is written for the annotator.

The package, one module per idea, lower ones first (each imports only those above it):

* ``limits`` — the protocol's limits on the points, the fit's bounds and caps,
  :class:`CurveFitError`;
* ``density`` — the skew-normal density, its mode, the parameter checks, the peak on the chart;
* ``points`` — reading the points and checking them against the protocol;
* ``residuals`` — the fitted curve against the points: residuals, passes through, the message;
* ``shape`` — normalised, proportional and drawn curves, half-validity range, description;
* ``fit_result`` — :class:`CurveFit`;
* ``starts`` — the grid, the vectorised Levenberg-Marquardt steps, the starting values;
* ``anchored`` — the peak-anchored 3-point fit;
* ``ceiling`` — the bounded form ``h · f(x)/f_max`` that keeps the curve at or below 100 %;
* ``fit`` — :func:`fit_curve` and :func:`fit_scale_for`;
* ``compare`` — :func:`compare_distributions`, the skew-normal against four other families.

Import from the package (``from annotation.curves import fit_curve``); the names below are its
public interface.
"""

from annotation.curves.limits import (
    ALPHA_BOUNDS,
    GTOL,
    MAX_HEIGHT,
    MAX_NFEV,
    MAX_POINTS,
    MAX_STARTS,
    MIN_POINTS,
    MIN_X_GAP,
    OMEGA_BOUNDS,
    PASS_TOLERANCE,
    PEAK_TOLERANCE,
    RETRY_ABOVE_RMSE,
    RETRY_MAX_NFEV,
    SCALE_BOUNDS,
    XI_BOUNDS,
    CurveFitError,
)
from annotation.curves.density import (
    parameter_bounds_problem,
    peak_height,
    skew_normal_mode,
    skew_normal_pdf,
)
from annotation.curves.points import validate_points
from annotation.curves.residuals import curve_residuals, passes_through, residual_message
from annotation.curves.shape import (
    AXIS_GRID,
    DRAWN_SAMPLES,
    describe_curve,
    drawn_curve,
    drawn_polyline,
    half_validity_range,
    normalised_curve,
    proportional_curve,
)
from annotation.curves.fit_result import CurveFit
from annotation.curves.fit import fit_curve, fit_scale_for
from annotation.curves.compare import COMPARE_MAX_NFEV, compare_distributions

__all__ = [
    "ALPHA_BOUNDS", "GTOL", "MAX_HEIGHT", "MAX_NFEV", "MAX_POINTS", "MAX_STARTS", "MIN_POINTS",
    "MIN_X_GAP", "OMEGA_BOUNDS", "PASS_TOLERANCE", "PEAK_TOLERANCE", "RETRY_ABOVE_RMSE",
    "RETRY_MAX_NFEV", "SCALE_BOUNDS", "XI_BOUNDS", "CurveFitError",
    "parameter_bounds_problem", "peak_height", "skew_normal_mode", "skew_normal_pdf",
    "validate_points",
    "curve_residuals", "passes_through", "residual_message",
    "AXIS_GRID", "DRAWN_SAMPLES", "describe_curve", "drawn_curve", "drawn_polyline",
    "half_validity_range", "normalised_curve", "proportional_curve",
    "CurveFit",
    "fit_curve", "fit_scale_for",
    "COMPARE_MAX_NFEV", "compare_distributions",
]
