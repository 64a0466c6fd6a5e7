"""The fit: :func:`fit_curve` (multi-start TRF under the 100 % ceiling) and
:func:`fit_scale_for` (the best scale for hand-tuned parameters). The method is explained in
the package's docstring (:mod:`annotation.curves`) and in :func:`fit_curve`'s."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import replace

import numpy as np
from scipy import optimize

from annotation.curves.anchored import _EXACT_RMSE, _fit_peak_anchored
from annotation.curves.ceiling import (
    _HEIGHT_LOWER,
    _HEIGHT_UPPER,
    _at_ceiling,
    _cap_height,
    _from_height_form,
    _height_grid,
    _height_jac,
    _height_model,
    _settle_at_ceiling,
    _to_height_form,
)
from annotation.curves.density import _axis_peak_density, _check_params, _sn_pdf
from annotation.curves.fit_result import CurveFit, _rmse
from annotation.curves.limits import (
    GTOL,
    MAX_HEIGHT,
    MAX_NFEV,
    MAX_STARTS,
    RETRY_ABOVE_RMSE,
    RETRY_MAX_NFEV,
    SCALE_BOUNDS,
    CurveFitError,
)
from annotation.curves.points import _check_ranges, _read_points, validate_points
from annotation.curves.residuals import curve_residuals
from annotation.curves.starts import _FIT_FAILURES, _starts


def _fit_skew_normal(xs: np.ndarray, ys: np.ndarray) -> CurveFit | None:
    """The multi-start TRF of :func:`fit_curve` on sorted points; None when nothing is finite.

    TRF is called as ``scipy.optimize.least_squares(method="trf")`` — the solver that
    ``curve_fit(method="trf")`` wraps — so that a run stopped by its evaluation cap still
    yields the point it reached (marked not converged) instead of an exception: optima on a
    bound (height 100 %, ω at its limit), where TRF is slow, are the ones the ceiling creates.
    """
    starts: Iterable[tuple[float, float, float, float]] = _starts(xs, ys)
    if xs.size == 3:
        with np.errstate(all="ignore"):
            anchored = _fit_peak_anchored(xs, ys)
        if anchored is not None:
            if anchored.rmse <= _EXACT_RMSE:
                # peaks on the highest point, so its height is that point's (≤ 1)
                return _cap_height(anchored, xs, ys)
            # No curve peaking at the highest point passes through the points: release the
            # anchor from there, so the answer is the exact fit nearest to it.
            first = (anchored.xi, anchored.omega, anchored.alpha, anchored.scale)
            starts = itertools.chain([first], starts)

    # With fewer points than 5 an exact fit normally exists, so anything short of it is retried
    # — unless the best curve presses against the 100 % ceiling: then the points are ones only a
    # taller curve would pass through exactly, the premise fails (retrying found the same
    # optimum in 4 of 5 such 4-point sets), and the 5-point rule applies.
    retry_above = RETRY_ABOVE_RMSE if xs.size > 4 else _EXACT_RMSE
    span = _HEIGHT_UPPER - _HEIGHT_LOWER
    lower, upper = _HEIGHT_LOWER + 1e-9 * span, _HEIGHT_UPPER - 1e-9 * span

    first_at_ceiling = False

    def bounded_starts() -> Iterator[np.ndarray]:
        # the best free-form start (its height capped at 100 %); then, when that run ends on
        # the ceiling, the best of the grid in the bounded form — the way to optima that hug
        # it, which free-form starts can miss —; then the other free-form starts
        free = iter(starts)
        for start in itertools.islice(free, 1):
            converted = _to_height_form(start, lower, upper)
            if converted is not None:
                if converted[3] >= upper[3]:
                    converted = np.clip(_settle_at_ceiling(xs, ys, converted), lower, upper)
                yield converted
        if first_at_ceiling:
            rows, sse = _height_grid(xs, ys)
            if np.isfinite(sse).any():
                yield np.clip(rows[int(np.argmin(sse))], lower, upper)
        for start in free:
            converted = _to_height_form(start, lower, upper)
            if converted is not None:
                yield converted

    def residuals(p: np.ndarray) -> np.ndarray:
        return _height_model(xs, *p) - ys

    def jacobian(p: np.ndarray) -> np.ndarray:
        return _height_jac(xs, *p)

    best: CurveFit | None = None
    first_start = None
    with np.errstate(all="ignore"):
        runs = bounded_starts()
        for n_start in itertools.count():
            if n_start >= MAX_STARTS + int(first_at_ceiling):
                break
            start = next(runs, None)
            if start is None:
                break
            first_start = start if first_start is None else first_start
            max_nfev = MAX_NFEV if n_start == 0 else RETRY_MAX_NFEV
            try:
                result = optimize.least_squares(
                    residuals, start, jac=jacobian, bounds=(_HEIGHT_LOWER, _HEIGHT_UPPER),
                    method="trf", max_nfev=max_nfev, gtol=GTOL,
                )
            except _FIT_FAILURES:
                continue
            if n_start == 0:
                first_at_ceiling = _at_ceiling(result.x)
            # A run stopped by its cap while crawling along a valley of exact fits (3 points
            # leave one free direction) has still reached an exact fit: count it as converged.
            fit = _from_height_form(result.x, xs, ys, converged=bool(result.success))
            if fit is not None and not fit.converged and fit.rmse <= _EXACT_RMSE:
                fit = replace(fit, converged=True)
            if fit is not None and (
                best is None or fit.rmse < best.rmse - 1e-12
                or (fit.rmse <= best.rmse + 1e-12 and fit.converged and not best.converged)
            ):
                best = fit
            if best is not None and best.converged and best.rmse <= (
                RETRY_ABOVE_RMSE if _at_ceiling(result.x) and best is fit else retry_above
            ):
                break
        if best is None and first_start is not None:
            # No start gave a finite curve: report the first start, the best of the
            # vectorised multi-start refinement, marked as not converged.
            best = _from_height_form(first_start, xs, ys, converged=False)
    return best


def fit_curve(points: Iterable) -> CurveFit:
    """Fit the validity curve ``S · f(x; ξ, ω, α)`` to 3-5 annotation points (SPEC section 4).

    ``points``: ``(x, y)`` pairs, x in base-1.1 log minutes, y relative validity in [0, 1]
    (checked by :func:`validate_points`). Least squares by Trust Region Reflective
    (``scipy.optimize.curve_fit(method="trf")``, analytic Jacobian) under the bounds
    ``ξ ∈ XI_BOUNDS``, ``ω ∈ OMEGA_BOUNDS``, ``α ∈ ALPHA_BOUNDS``, ``S ∈ SCALE_BOUNDS``.

    Starting values come from the points. ω is scaled from how fast the heights drop either
    side of the highest point; a coarse vectorised grid over α, ω and the mode's offset from the
    highest point (S in closed form) gives candidates, and a few Levenberg-Marquardt steps run on
    the best of them at once (a vectorised multi-start) give the first start, next to the global
    minimum, so TRF usually finishes in a step or two. If that run fails or leaves an RMSE above
    :data:`RETRY_ABOVE_RMSE` (with 3-4 points: above 1e-4, as an exact fit then normally
    exists), up to ``MAX_STARTS - 1`` hand-made starts follow (mode on the
    highest point, α = 0, normal and double width); the best result is kept. Evaluation caps
    (:data:`MAX_NFEV`, :data:`RETRY_MAX_NFEV`) bound the time on pathological points; if no run
    converges, the multi-start result is returned with ``converged=False``.

    With 3 points the problem is under-determined (4 parameters, and a whole family of curves
    passes exactly through the points): the curve that peaks at the highest point is chosen
    (ξ = x_peak − ω·z₀(α), fitting ω, α, S; the least skewed one when several do). When no
    such curve passes through the points, the general fit starts from that anchored curve, so it
    ends at an exact fit near it.

    The ceiling: the fitted curve may not rise above 100 % anywhere on the chart, so TRF runs
    on the equivalent form ``h · f(x)/f_max`` with the peak height ``h ∈ (0, 1]`` as a box
    bound (``S = h / f_max``). Starts found in the free form are lowered to 100 % where they
    peak higher; the best of the coarse grid in the bounded form is the second start, for
    points that only a taller curve would pass through (e.g. 1 min at 100 %, 1 year at 90 %,
    30 years at 50 %), where the closest admissible curve lies on the ceiling. The result's
    ``residuals`` (point order as given), ``passes_through`` and ``message`` say how close
    it came.

    Raises :class:`CurveFitError` — and nothing else — when the points break the protocol or no
    start gives a curve.

    Examples:
        >>> fit = fit_curve([(40.0, 0.5), (50.0, 1.0), (60.0, 0.5)])
        >>> round(fit.xi, 3), round(fit.omega, 3), round(abs(fit.alpha), 3), fit.passes_through
        (50.0, 8.493, 0.0, True)
        >>> round(fit.omega * math.sqrt(2 * math.log(2)), 3)  # half validity 10 either side
        10.0
    """
    given = _read_points(points)  # read once: ``points`` may be a one-shot iterator
    pts = validate_points(given)
    xs = np.fromiter((p[0] for p in pts), dtype=float, count=len(pts))
    ys = np.fromiter((p[1] for p in pts), dtype=float, count=len(pts))
    try:
        with np.errstate(all="ignore"):
            best = _fit_skew_normal(xs, ys)
    except CurveFitError:
        raise
    except Exception:  # a scipy failure we did not foresee must not reach the UI as a crash
        best = None
    if best is None:
        raise CurveFitError(
            "Could not fit a curve through these points. Move a point slightly or add one, "
            "then try again."
        )
    given = _check_ranges(given)
    residuals = curve_residuals(given, best.xi, best.omega, best.alpha, best.scale)
    return replace(best, residuals=residuals)


def fit_scale_for(
    points: Iterable, xi: float, omega: float, alpha: float
) -> tuple[float, float]:
    """Best scale factor and RMSE for hand-tuned parameters ``(ξ, ω, α)``.

    With the shape fixed, the least-squares S has the closed form ``S = Σ y·f / Σ f²``, clamped
    to the positive lower bound and to the ceiling ``S · f_max ≤ 1`` (the curve never above
    100 %; the squared error is a parabola in S, so clamping gives the bounded optimum);
    returns ``(S, rmse)`` with the RMSE over the points of ``S · f``. Points need only be
    finite, on the axis and in [0, 1] (at least one); the protocol's count and single-peak
    rules are not applied here, as the annotator may be mid-edit.

    Examples:
        >>> scale, rmse = fit_scale_for([(40.0, 0.5), (50.0, 1.0), (60.0, 0.5)], 50.0, 8.493218, 0.0)
        >>> round(scale, 4), round(rmse, 4)  # S = 1/f(50) = 8.493218·√(2π)
        (21.2893, 0.0)
    """
    _check_params(xi, omega, alpha)
    pairs = _check_ranges(_read_points(points))
    if not pairs:
        raise CurveFitError("No points given: place 3 to 5 points on the chart.")
    xs = np.array([p[0] for p in pairs])
    ys = np.array([p[1] for p in pairs])
    with np.errstate(all="ignore"):
        f = _sn_pdf(xs, float(xi), float(omega), float(alpha))
        ff = float(np.dot(f, f))
        if not ff > 0 or not math.isfinite(ff):
            raise CurveFitError(
                "With these settings the curve is zero at every point you placed; move its "
                "peak (ξ) closer to your points or make it wider (ω)."
            )
        scale = max(float(np.dot(ys, f)) / ff, SCALE_BOUNDS[0])
        f_max = _axis_peak_density(float(xi), float(omega), float(alpha))
        if f_max > 0 and math.isfinite(f_max):
            scale = min(scale, MAX_HEIGHT / f_max)
        rmse = _rmse(scale * f - ys)
    return scale, rmse
