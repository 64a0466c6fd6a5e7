"""Validity curves: the skew-normal fit behind step 3 of the Chronocept protocol (SPEC section 4).

The annotator places 3 to 5 points ``(x, y)`` on a chart whose x axis is log-time (base-1.1 log
minutes, :mod:`annotation.timeaxis`) and whose y axis is relative validity in [0, 1]. The tool
fits ``S · f(x; ξ, ω, α)``, a skew-normal density times a scale factor S > 0, by bounded least
squares (Trust Region Reflective, ``scipy.optimize.curve_fit(method="trf")``), and reports the
RMSE over the points.

**The curve and the points** (issue 10, item 4). The points are relative validity, so the fitted
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
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, stats
from scipy.special import log_ndtr, ndtr

from annotation.timeaxis import DEFAULT_BASE, X_MAX, X_MIN, humanize_x

# --- protocol constants ---------------------------------------------------------------------

MIN_POINTS = 3
MAX_POINTS = 5
#: Two points closer than this on the x axis count as "at the same time".
MIN_X_GAP = 0.5
#: Hand-placement jitter allowed when checking that the points are single-peaked: a dip of at
#: most this much between two higher points is not treated as a second peak.
PEAK_TOLERANCE = 0.05

# --- fit bounds (base-1.1 log minutes) ---------------------------------------------------------

XI_BOUNDS = (-100.0, 300.0)
OMEGA_BOUNDS = (0.5, 200.0)
ALPHA_BOUNDS = (-20.0, 20.0)
SCALE_BOUNDS = (1e-9, 1e5)
#: The first start (from a coarse grid search) almost always reaches the best fit; the other
#: starts are tried only when it fails or leaves an RMSE above this (relative validity units).
RETRY_ABOVE_RMSE = 0.05
#: Caps on function evaluations: the first start (converges in 1-10 on annotator-like points)
#: and each retry. They bound the time a pathological set of points can take.
MAX_NFEV = 60
RETRY_MAX_NFEV = 40
#: TRF's gradient tolerance (scipy's default is 1e-8). Near α = 0 the skew-normal's
#: information about α vanishes (Azzalini 1985), and with an exact fit TRF would otherwise crawl
#: along that flat valley to the evaluation cap, with the RMSE already below 1e-6.
GTOL = 1e-6
#: At most this many TRF runs per fit (the refined start and two hand-made ones), plus one from
#: the grid in the bounded form when the first run ends on the 100 % ceiling.
MAX_STARTS = 3

#: The fitted curve's ceiling: relative validity cannot exceed 100 %.
MAX_HEIGHT = 1.0
#: The curve "passes through" the points when every point is at most this far from it (relative
#: validity units). Hand placement is good to about 0.02 (the chart's resolution is 0.01 and a
#: pixel), so residuals from ordinary jitter stay well below; a point 0.10 off the curve is a
#: visible gap of a quarter of a typical half-validity drop, which the annotator must be told
#: about. One rule per point, so the message can name the points that are off.
PASS_TOLERANCE = 0.10

#: The grid on which curves are normalised and drawn: 801 points over the whole axis.
AXIS_GRID = np.linspace(X_MIN, X_MAX, 801)
AXIS_GRID.flags.writeable = False

_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INV_SQRT_2PI = 1.0 / _SQRT_2PI

_PEAKS_HINT = (
    "a validity curve has a single peak. Move or remove a point, "
    "or flag the sample as 'needs more than one peak'."
)


class CurveFitError(ValueError):
    """The points (or parameters) cannot define a single-peaked validity curve.

    The message is shown to the annotator as is: plain English, naming the problem and how to
    fix it. Point numbers in messages count from 1 in the order the points were given.
    """


# --- the density ------------------------------------------------------------------------------


def skew_normal_pdf(x, xi: float, omega: float, alpha: float):
    """Skew-normal density ``(2/ω) φ((x−ξ)/ω) Φ(α (x−ξ)/ω)`` (Azzalini 1985).

    ``x`` in axis units (log minutes); vectorised over ``x`` (scalar in, ``float`` out).
    ``omega`` must be positive. Equals ``scipy.stats.skewnorm.pdf(x, alpha, xi, omega)``, only
    faster.
    """
    if not omega > 0:
        raise ValueError(f"omega must be positive, got {omega!r}")
    with np.errstate(all="ignore"):
        out = _sn_pdf(np.asarray(x, dtype=float), float(xi), float(omega), float(alpha))
    if np.ndim(out) == 0:
        return float(out)
    return out


def _sn_pdf(x: np.ndarray, xi: float, omega: float, alpha: float) -> np.ndarray:
    z = (x - xi) / omega
    return (2.0 * _INV_SQRT_2PI / omega) * np.exp(-0.5 * z * z) * ndtr(alpha * z)


def _model(x: np.ndarray, xi: float, omega: float, alpha: float, scale: float) -> np.ndarray:
    # S · f(x; ξ, ω, α), the function fitted to the points.
    return scale * _sn_pdf(x, xi, omega, alpha)


def _model_jac(x: np.ndarray, xi: float, omega: float, alpha: float, scale: float) -> np.ndarray:
    # Analytic Jacobian of S·f with respect to (ξ, ω, α, S). With z = (x−ξ)/ω and
    # g = S (2/ω) φ(z) Φ(αz):  dg/dz = S (2/ω) φ(z) [α φ(αz) − z Φ(αz)], dz/dξ = −1/ω,
    # dz/dω = −z/ω,  dg/dα = S (2/ω) φ(z) φ(αz) z,  dg/dS = g/S.
    z = (x - xi) / omega
    phi = _INV_SQRT_2PI * np.exp(-0.5 * z * z)
    az = alpha * z
    cdf = ndtr(az)
    phi_a = _INV_SQRT_2PI * np.exp(-0.5 * az * az)
    base = (2.0 / omega) * phi  # f / Φ(αz)
    f = base * cdf
    dg_dz = scale * base * (alpha * phi_a - z * cdf)
    jac = np.empty((x.size, 4))
    jac[:, 0] = -dg_dz / omega
    jac[:, 1] = -scale * f / omega - dg_dz * z / omega
    jac[:, 2] = scale * base * phi_a * z
    jac[:, 3] = f
    return jac


def _standard_mode(alpha: float) -> float:
    """Mode z₀ of the standard skew-normal SN(0, 1, α): the root of h(z) = z Φ(αz) − α φ(αz).

    Newton's method from Azzalini's approximation (mode ≈ μ − γ₁σ/2 − sgn(α)/2·e^{−2π/|α|},
    Azzalini 2014, "The Skew-Normal and Related Families", §2.1.4) converges in ≤ 5 steps;
    bisection (Brent) is the fallback.
    """
    if alpha == 0.0:
        return 0.0
    if abs(alpha) > 1e6:
        # beyond any fit's bounds (an imported value): the mode is within 1e-5·ω of ξ and the
        # iterations below would overflow
        return 0.0
    a = abs(alpha)
    delta = a / math.sqrt(1.0 + a * a)
    mu = math.sqrt(2.0 / math.pi) * delta
    var = 1.0 - mu * mu
    skew = (4.0 - math.pi) / 2.0 * mu**3 / var**1.5
    z = mu - skew * math.sqrt(var) / 2.0 - 0.5 * math.exp(-2.0 * math.pi / a)
    for _ in range(12):
        az = a * z
        pdf = _INV_SQRT_2PI * math.exp(-0.5 * az * az)
        cdf = 0.5 * math.erfc(-az / _SQRT_2)
        denominator = cdf + a * (1.0 + a * a) * z * pdf
        if not (denominator != 0.0 and math.isfinite(denominator)):
            z = -1.0  # extreme α (e.g. an imported 1e4): leave it to bisection
            break
        step = (z * cdf - a * pdf) / denominator
        z -= step
        if abs(step) < 1e-13:
            break
    else:
        z = -1.0
    if not 0.0 < z < 1.0:
        # For α > 0 the mode lies in (0, sqrt(2/π)) ⊂ (0, 1), where h changes sign once.
        z = optimize.brentq(
            lambda t: t * 0.5 * math.erfc(-a * t / _SQRT_2)
            - a * _INV_SQRT_2PI * math.exp(-0.5 * (a * t) ** 2),
            0.0,
            1.0,
            xtol=1e-14,
        )
    return z if alpha > 0 else -z


def _standard_modes(alpha: np.ndarray) -> np.ndarray:
    """:func:`_standard_mode` for an array of α at once: the same Newton iteration from the same
    start, vectorised; an entry that does not settle inside (0, 1) takes the scalar routine
    (and its bisection)."""
    a = np.abs(np.asarray(alpha, dtype=float))
    with np.errstate(all="ignore"):
        delta = a / np.sqrt(1.0 + a * a)
        mu = math.sqrt(2.0 / math.pi) * delta
        var = 1.0 - mu * mu
        skew = (4.0 - math.pi) / 2.0 * mu**3 / var**1.5
        z = mu - skew * np.sqrt(var) / 2.0 - 0.5 * np.exp(-2.0 * math.pi / a)
        step = np.zeros_like(z)
        for _ in range(12):
            az = a * z
            pdf = _INV_SQRT_2PI * np.exp(-0.5 * az * az)
            cdf = ndtr(az)
            step = (z * cdf - a * pdf) / (cdf + a * (1.0 + a * a) * z * pdf)
            z = z - step
            if not np.any(np.abs(step) >= 1e-13):  # NaN counts as settled: the check below
                break
        settled = (z > 0.0) & (z < 1.0) & (np.abs(step) < 1e-13)
    z = np.where(a == 0.0, 0.0, z)
    for i in np.flatnonzero(~settled & (a != 0.0)):
        z[i] = _standard_mode(float(a[i]))
    return np.where(alpha < 0, -z, z)


def _standard_mode_slope(alpha: float, z: float) -> float:
    """dz₀/dα for the standard mode z₀(α), by implicit differentiation of
    h(z, α) = z Φ(αz) − α φ(αz) = 0. Elementwise on arrays too."""
    phi_a = _INV_SQRT_2PI * np.exp(-0.5 * (alpha * z) ** 2)
    cdf_a = ndtr(alpha * z)
    dh_dz = cdf_a + alpha * (1.0 + alpha * alpha) * z * phi_a
    dh_da = (z * z * (1.0 + alpha * alpha) - 1.0) * phi_a
    return -dh_da / dh_dz


def skew_normal_mode(xi: float, omega: float, alpha: float) -> float:
    """Position (axis units) of the maximum of the skew-normal density: ``ξ + ω·z₀(α)``."""
    _check_params(xi, omega, alpha)
    return float(xi) + float(omega) * _standard_mode(float(alpha))


def _check_params(xi: float, omega: float, alpha: float) -> None:
    values = (xi, omega, alpha)
    if not all(isinstance(v, (int, float, np.floating, np.integer)) for v in values) or not all(
        math.isfinite(float(v)) for v in values
    ):
        raise CurveFitError("The curve's parameters must all be numbers.")
    if not float(omega) > 0:
        raise CurveFitError("The curve's width (ω) must be greater than zero.")


def parameter_bounds_problem(xi: float, omega: float, alpha: float) -> str | None:
    """Why ``(ξ, ω, α)`` could not have come out of :func:`fit_curve`, or None when it could.

    The rules a fitted curve obeys by construction — finite numbers within :data:`XI_BOUNDS`,
    :data:`OMEGA_BOUNDS` and :data:`ALPHA_BOUNDS` — for parameters that arrive from elsewhere
    (an imported file, a stored row), so no path stores or counts a curve the fit could not make.
    """
    for name, symbol, value, (lo, hi) in (("xi", "ξ", xi, XI_BOUNDS), ("omega", "ω", omega, OMEGA_BOUNDS),
                                          ("alpha", "α", alpha, ALPHA_BOUNDS)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return f"{name} ({symbol}) must be a number"
        if not math.isfinite(float(value)):
            return f"{name} ({symbol}) must be a finite number"
        if not lo <= float(value) <= hi:
            return f"{name} ({symbol}) = {float(value):.6g} is outside the fit's range [{lo:g}, {hi:g}]"
    return None


# --- points -----------------------------------------------------------------------------------


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


# --- the fit ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CurveFit:
    """A fitted validity curve ``scale · f(x; xi, omega, alpha)`` in base-1.1 log minutes.

    ``scale · f`` is the fitted curve: what the chart draws (:func:`drawn_curve`), never above
    100 % (its peak height is :attr:`height` ≤ 1). ``rmse`` is the root-mean-square residual of
    that curve over the ``n_points`` annotation points (y units, i.e. relative validity), and
    ``residuals`` are the per-point residuals ``y − scale·f(x)`` in the order the points were
    given (positive: the point lies above the curve). ``converged`` is False when the best TRF
    run stopped at its evaluation cap (its parameters are still the closest curve found) or no
    run gave a finite curve (then they are the best of the vectorised multi-start refinement).
    """

    xi: float
    omega: float
    alpha: float
    scale: float
    rmse: float
    n_points: int
    converged: bool = True
    residuals: tuple[float, ...] = ()

    @property
    def params(self) -> tuple[float, float, float]:
        """``(xi, omega, alpha)``."""
        return (self.xi, self.omega, self.alpha)

    @property
    def peak_x(self) -> float:
        """Mode of the skew-normal (axis units); may lie outside the chart range."""
        return skew_normal_mode(self.xi, self.omega, self.alpha)

    @property
    def height(self) -> float:
        """Peak height ``h`` of the fitted curve on the chart (≤ 1): the drawn curve is ``h`` times
        the proportional curve."""
        return peak_height(self.xi, self.omega, self.alpha, self.scale)

    @property
    def half_validity_range(self) -> tuple[float, float]:
        """``(lo, hi)``: where the proportional curve is at least 0.5 (see
        :func:`half_validity_range`)."""
        return half_validity_range(self.xi, self.omega, self.alpha)

    @property
    def passes_through(self) -> bool:
        """True when every point is within :data:`PASS_TOLERANCE` of the fitted curve."""
        return passes_through(self.residuals)

    @property
    def message(self) -> str | None:
        """A plain message naming each point's residual when the curve cannot pass through the
        points (no single-peaked curve at or below 100 % does); None when it passes."""
        return residual_message(self.residuals)


def _height_spread(xs: np.ndarray, ys: np.ndarray, k_peak: int) -> tuple[float, float]:
    """Gaussian-equivalent spread left and right of the peak, from how far each point's height
    has dropped: a point at relative height r and distance d gives σ ≈ d / sqrt(−2 ln r)."""
    ymax = ys[k_peak]
    xp = xs[k_peak]
    left, right = [], []
    for x, y in zip(xs, ys):
        r = y / ymax
        if x == xp or r >= 0.98:
            continue
        sigma = abs(x - xp) / math.sqrt(-2.0 * math.log(max(r, 0.02)))
        (left if x < xp else right).append(sigma)
    sl = float(np.median(left)) if left else None
    sr = float(np.median(right)) if right else None
    if sl is None and sr is None:
        # Every point is near the top: the curve is at least as wide as the points' span.
        width = max(float(xs[-1] - xs[0]), 5.0)
        return width, width
    return (sl if sl is not None else sr), (sr if sr is not None else sl)  # type: ignore[return-value]


_SN_LOWER = np.array([XI_BOUNDS[0], OMEGA_BOUNDS[0], ALPHA_BOUNDS[0], SCALE_BOUNDS[0]])
_SN_UPPER = np.array([XI_BOUNDS[1], OMEGA_BOUNDS[1], ALPHA_BOUNDS[1], SCALE_BOUNDS[1]])

# The first start is found in two vectorised stages, so that TRF begins next to the global
# minimum and finishes in a step or two:
# 1. a coarse grid over the shape α, the width ω (multiples of the spread read off the points)
#    and the mode's offset from the highest point (multiples of ω), S in closed form;
# 2. a few damped Gauss-Newton (Levenberg-Marquardt) steps run on the best grid candidates at
#    once — the overall best few plus the best of each α, so every skew direction gets a chance.
_GRID_ALPHAS = np.array([-10, -6, -3.5, -1.5, 0, 1.5, 3.5, 6, 10], dtype=float)
_GRID_WIDTHS = np.geomspace(0.3, 4.5, 9)
_GRID_SHIFTS = np.linspace(-1.6, 1.6, 9)
_GRID_MODE_Z = np.array([_standard_mode(float(a)) for a in _GRID_ALPHAS])
_REFINE_TOP = 12
_REFINE_STEPS = 8


def _grid_candidates(
    xs: np.ndarray, ys: np.ndarray, mode_on_peak: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Grid candidates as rows (ξ, ω, α, S), S in closed form, and their squared errors."""
    k = int(np.argmax(ys))
    xp = float(xs[k])
    sl, sr = _height_spread(xs, ys, k)
    sigma = max(0.5 * (sl + sr), 1.0)
    shifts = np.zeros(1) if mode_on_peak else _GRID_SHIFTS
    a, w, d = np.meshgrid(_GRID_ALPHAS, _GRID_WIDTHS, shifts, indexing="ij")
    alpha = a.ravel()
    omega = np.clip(sigma * w.ravel(), OMEGA_BOUNDS[0], OMEGA_BOUNDS[1])
    mode_z = _GRID_MODE_Z[np.searchsorted(_GRID_ALPHAS, alpha)]
    xi = np.clip(xp + omega * (d.ravel() - mode_z), XI_BOUNDS[0] + 1.0, XI_BOUNDS[1] - 1.0)
    f = _sn_pdf(xs[None, :], xi[:, None], omega[:, None], alpha[:, None])
    ff = np.einsum("ij,ij->i", f, f)
    scale = np.clip(f @ ys / np.where(ff > 0, ff, np.inf), 1e-6, SCALE_BOUNDS[1] * 0.5)
    sse = np.sum((scale[:, None] * f - ys) ** 2, axis=1)
    sse[~np.isfinite(sse) | (ff <= 0)] = np.inf
    return np.column_stack([xi, omega, alpha, scale]), sse


def _batch_model_jac(xs: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S·f and its Jacobian for K parameter rows at once: shapes (K, n) and (K, n, 4)."""
    xi, omega, alpha, scale = (params[:, i : i + 1] for i in range(4))
    z = (xs - xi) / omega
    phi = np.exp(-0.5 * z * z)
    az = alpha * z
    cdf = ndtr(az)
    phi_a = _INV_SQRT_2PI * np.exp(-0.5 * az * az)
    base = (2.0 * _INV_SQRT_2PI / omega) * phi
    jac = np.empty(z.shape + (4,))
    f = jac[:, :, 3]
    np.multiply(base, cdf, out=f)
    sbase = scale * base
    dg_dz = sbase * (alpha * phi_a - z * cdf)
    jac[:, :, 0] = -dg_dz / omega
    jac[:, :, 1] = -(scale * f + dg_dz * z) / omega
    jac[:, :, 2] = sbase * phi_a * z
    return scale * f, jac


def _lm_rows(
    xs: np.ndarray, ys: np.ndarray, params: np.ndarray, steps: int,
    lower: np.ndarray, upper: np.ndarray, model_jac=_batch_model_jac,
    *, target_sse: float = 1e-26, stall: float = 0.0, enough=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Levenberg-Marquardt steps on all rows of ``params`` together (bounds by clipping; a step
    that does not lower a row's squared error is refused and its damping grows). Returns the
    rows and their squared errors. Stops early once every row is done: its squared error is at
    most ``target_sse``, its damping has grown past use, or its last step lowered the squared
    error by no more than the fraction ``stall`` (a local minimum that is not a fit) — or, with
    ``enough(met, done)`` (boolean arrays: rows at ``target_sse``; rows done), as soon as that
    says the rows still moving cannot change the answer.
    ``model_jac(xs, rows)`` gives the model (K, n) and its Jacobian (K, n, p)."""
    model, jac = model_jac(xs, params)
    resid = model - ys
    sse = np.einsum("kn,kn->k", resid, resid)
    damping = np.full(len(params), 1e-2)
    stalled = np.zeros(len(params), dtype=bool)
    diag_idx = np.arange(params.shape[1])
    for _ in range(steps):
        met = sse <= target_sse
        done = met | (damping > 1e12) | stalled | ~np.isfinite(sse)
        if done.all() or (enough is not None and enough(met, done)):
            break
        jtj = np.einsum("kni,knj->kij", jac, jac)
        grad = np.einsum("kni,kn->ki", jac, resid)
        diag = jtj[:, diag_idx, diag_idx]
        jtj[:, diag_idx, diag_idx] += damping[:, None] * (
            diag + 1e-9 * diag.max(axis=1, keepdims=True) + 1e-300
        )
        try:
            step = np.linalg.solve(jtj, -grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break
        trial = np.clip(params + step, lower, upper)
        model_t, jac_t = model_jac(xs, trial)
        resid_t = model_t - ys
        sse_t = np.einsum("kn,kn->k", resid_t, resid_t)
        better = sse_t < sse  # False for NaN
        stalled |= better & (sse - sse_t <= stall * sse)
        params[better] = trial[better]
        jac[better] = jac_t[better]
        resid[better] = resid_t[better]
        sse[better] = sse_t[better]
        damping *= np.where(better, 1.0 / 3.0, 4.0)
    return params, np.where(np.isfinite(sse), sse, np.inf)


def _refine(xs: np.ndarray, ys: np.ndarray, params: np.ndarray, steps: int) -> np.ndarray:
    """:func:`_lm_rows` on the free form (ξ, ω, α, S); returns the row with the smallest
    squared error."""
    params, sse = _lm_rows(xs, ys, params, steps, _SN_LOWER, _SN_UPPER)
    return params[int(np.argmin(sse))]


def _best_start(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float, float] | None:
    """Stages 1 and 2 above: the refined best of the grid, or None if nothing is finite."""
    params, sse = _grid_candidates(xs, ys)
    if not np.isfinite(sse).any():
        return None
    # The grid is α-major: row i·m + j has α = _GRID_ALPHAS[i].
    per_alpha = sse.reshape(len(_GRID_ALPHAS), -1)
    best_of_each = per_alpha.argmin(axis=1) + np.arange(len(_GRID_ALPHAS)) * per_alpha.shape[1]
    top = np.argpartition(sse, _REFINE_TOP)[:_REFINE_TOP]
    chosen = np.unique(np.concatenate([top, best_of_each]))
    chosen = chosen[np.isfinite(sse[chosen])]
    best = _refine(xs, ys, params[chosen], _REFINE_STEPS)
    # strictly inside the bounds, as TRF requires of a start
    span = _SN_UPPER - _SN_LOWER
    best = np.clip(best, _SN_LOWER + 1e-9 * span, _SN_UPPER - 1e-9 * span)
    return tuple(float(v) for v in best)  # type: ignore[return-value]


def _starts(xs: np.ndarray, ys: np.ndarray) -> Iterator[tuple[float, float, float, float]]:
    """Starting values (ξ, ω, α, S), best guess first: the refined grid start, then hand-made
    starts with the mode on the highest point (α = 0; α = 0 twice as wide; α = ±3; α = 0 half
    as wide). Lazy, since the first start nearly always suffices."""
    first = _best_start(xs, ys)
    if first is not None:
        yield first
    k = int(np.argmax(ys))
    xp, ymax = float(xs[k]), float(ys[k])
    sl, sr = _height_spread(xs, ys, k)
    sigma = max(0.5 * (sl + sr), 1.0)
    for alpha, widen in ((0.0, 1.0), (0.0, 2.0), (3.0, 1.0), (-3.0, 1.0), (0.0, 0.5)):
        delta = alpha / math.sqrt(1.0 + alpha * alpha)
        # ω from the spread: the skew-normal's SD is ω·sqrt(1 − 2δ²/π).
        omega = sigma * widen / math.sqrt(1.0 - 2.0 * delta * delta / math.pi)
        omega = min(max(omega, 1.0), 0.75 * OMEGA_BOUNDS[1])
        xi = xp - omega * _standard_mode(alpha)  # put the mode on the highest point
        xi = min(max(xi, XI_BOUNDS[0] + 1.0), XI_BOUNDS[1] - 1.0)
        peak = float(_sn_pdf(np.array([xp]), xi, omega, alpha)[0])
        scale = ymax / peak if peak > 0 else ymax * omega * _SQRT_2PI
        yield (xi, omega, alpha, min(max(scale, 1e-6), SCALE_BOUNDS[1] * 0.5))


# Failures scipy may signal for a start that goes nowhere; they mean "try the next start".
_FIT_FAILURES = (RuntimeError, ValueError, FloatingPointError, np.linalg.LinAlgError, Warning)


def _rmse(residuals: np.ndarray) -> float:
    return float(math.sqrt(float(np.mean(residuals * residuals))))


#: A peak-anchored 3-point fit is used as is when it passes this close to the points (it is
#: then one of the exact least-squares solutions).
_EXACT_RMSE = 1e-4
#: Peak-anchored starts tried (α = 0, ±1.5): TRF moves α freely from there.
_ANCHORED_STARTS = 3


#: Levenberg-Marquardt steps run on the peak-anchored starts (one per grid α) at once.
_ANCHORED_STEPS = 15
#: ... and a start stops there once a step lowers its squared error by less than this fraction.
_ANCHORED_STALL = 1e-4
#: An anchored fit this close to the points is taken as is: TRF could only confirm it.
_POLISHED_RMSE = 1e-10


def _anchored_model_jac(xs: np.ndarray, xp: float, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The peak-anchored model (ξ = x_peak − ω·z₀(α)) and its Jacobian in (ω, α, S) for K rows
    ``(ω, α, S)`` at once: shapes (K, n) and (K, n, 3). Chain rule on :func:`_batch_model_jac`:
    ∂/∂ω = ∂/∂ω − z₀ ∂/∂ξ, ∂/∂α = ∂/∂α − ω z₀'(α) ∂/∂ξ."""
    omega, alpha = rows[:, 0], rows[:, 1]
    z0 = _standard_modes(alpha)
    full = np.column_stack([xp - omega * z0, omega, alpha, rows[:, 2]])
    model, jac = _batch_model_jac(xs, full)
    with np.errstate(all="ignore"):
        slope = _standard_mode_slope(alpha, z0)
    out = np.empty(jac.shape[:2] + (3,))
    out[..., 0] = jac[..., 1] - z0[:, None] * jac[..., 0]
    out[..., 1] = jac[..., 2] - (omega * slope)[:, None] * jac[..., 0]
    out[..., 2] = jac[..., 3]
    return model, out


def _least_skewed_exact_start(xs: np.ndarray, ys: np.ndarray, xp: float, params: np.ndarray,
                              sse: np.ndarray) -> tuple[float, float, float] | None:
    """The grid's best width for each α (anchored rows ``(ξ, ω, α, S)``), moved together by
    Levenberg-Marquardt steps until one of them meets the points; of those that do then
    (RMSE ≤ :data:`_EXACT_RMSE`, ξ in bounds) the least skewed, as ``(ω, α, S)``. None when
    none does within :data:`_ANCHORED_STEPS`.

    TRF from the grid start needs ~20 iterations (each a few hundred microseconds of scipy's
    bookkeeping) to cross the flat region around α = 0 — skewing about a fixed mode changes the
    curve only at third order there — ; these vectorised steps reach every branch at once for
    the price of a few of them, and TRF then confirms the fit in one or two evaluations."""
    per_alpha = np.where(np.isfinite(sse), sse, np.inf).reshape(len(_GRID_ALPHAS), -1)
    best = per_alpha.argmin(axis=1) + np.arange(len(_GRID_ALPHAS)) * per_alpha.shape[1]
    best = best[np.isfinite(sse[best])]
    if best.size == 0:
        return None
    span = _SN_UPPER[1:] - _SN_LOWER[1:]
    lower, upper = _SN_LOWER[1:] + 1e-9 * span, _SN_UPPER[1:] - 1e-9 * span
    rows = np.clip(params[best, 1:].astype(float), lower, upper)
    rows, row_sse = _lm_rows(
        xs, ys, rows, _ANCHORED_STEPS, lower, upper,
        model_jac=lambda x, r: _anchored_model_jac(x, xp, r),
        target_sse=xs.size * _POLISHED_RMSE ** 2, stall=_ANCHORED_STALL,
        enough=lambda met, done: bool(met.any()),
    )
    xi = xp - rows[:, 0] * _standard_modes(rows[:, 1])
    exact = ((np.sqrt(row_sse / xs.size) <= _EXACT_RMSE) & (xi >= XI_BOUNDS[0]) & (xi <= XI_BOUNDS[1]))
    if not exact.any():
        return None
    chosen = np.flatnonzero(exact)
    pick = chosen[np.lexsort((row_sse[chosen], np.abs(rows[chosen, 1])))[0]]
    return tuple(float(v) for v in rows[pick])  # type: ignore[return-value]


def _fit_peak_anchored(xs: np.ndarray, ys: np.ndarray) -> CurveFit | None:
    """Three points leave one degree of freedom among exact fits; pin it by making the curve
    peak at the highest point (the protocol's "one point at the peak"): ξ = x_peak − ω·z₀(α),
    and fit (ω, α, S) by least squares.

    That can still have several exact solutions; the answer is the least skewed of the first
    found. The first answer is the exact fit found by the vectorised steps of
    :func:`_least_skewed_exact_start` — taken as is when within :data:`_POLISHED_RMSE` of the
    points (inside the bounds by construction), else confirmed by TRF under the bounds; failing that,
    starts are taken in order of increasing skew (the best grid width for α = 0, then α = −1.5
    and +1.5) and the first exact fit wins. Otherwise the closest fit found; None if all fail.
    """
    xp = float(xs[int(np.argmax(ys))])
    params, sse = _grid_candidates(xs, ys, mode_on_peak=True)

    def model(x, omega, alpha, scale):
        return _model(x, xp - omega * _standard_mode(alpha), omega, alpha, scale)

    def jac(x, omega, alpha, scale):
        z0 = _standard_mode(alpha)
        full = _model_jac(x, xp - omega * z0, omega, alpha, scale)
        out = np.empty((x.size, 3))
        out[:, 0] = full[:, 1] - z0 * full[:, 0]
        out[:, 1] = full[:, 2] - omega * _standard_mode_slope(alpha, z0) * full[:, 0]
        out[:, 2] = full[:, 3]
        return out

    exact = _least_skewed_exact_start(xs, ys, xp, params, sse)
    if exact is not None:
        omega, alpha, scale = exact
        fit = _as_fit((xp - omega * _standard_mode(alpha), omega, alpha, scale), xs, ys, converged=True)
        if fit is not None and fit.rmse <= _POLISHED_RMSE and XI_BOUNDS[0] <= fit.xi <= XI_BOUNDS[1]:
            return fit

    def anchored_starts() -> Iterator[tuple[float, float, float]]:
        if exact is not None:
            yield exact
        for a in sorted(_GRID_ALPHAS, key=lambda v: (abs(v), v))[:_ANCHORED_STARTS]:
            rows = np.flatnonzero((params[:, 2] == a) & np.isfinite(sse))
            if rows.size:
                yield tuple(float(v) for v in params[rows[np.argmin(sse[rows])], 1:])  # type: ignore[misc]

    best: CurveFit | None = None
    for omega0, alpha0, scale0 in anchored_starts():
        try:
            popt, _ = optimize.curve_fit(
                model,
                xs,
                ys,
                p0=(omega0, alpha0, scale0),
                bounds=(_SN_LOWER[1:], _SN_UPPER[1:]),
                method="trf",
                jac=jac,
                max_nfev=RETRY_MAX_NFEV,
                gtol=GTOL,
                check_finite=False,
                absolute_sigma=True,
            )
        except _FIT_FAILURES:
            continue
        omega, alpha, scale = (float(v) for v in popt)
        xi = xp - omega * _standard_mode(alpha)
        if not XI_BOUNDS[0] <= xi <= XI_BOUNDS[1]:
            continue
        fit = _as_fit((xi, omega, alpha, scale), xs, ys, converged=True)
        if fit is not None and (best is None or fit.rmse < best.rmse):
            best = fit
        if best is not None and best.rmse <= _EXACT_RMSE:
            break
    return best


# --- the ceiling: peak height at most 100 % -----------------------------------------------------
#
# With h = S·f(p), p the peak of f on the chart (the mode clipped to [X_MIN, X_MAX]), the fitted
# curve is  m(x) = h · f(x)/f(p) = h · exp(L(z) − L(z_p)),  L(z) = −z²/2 + log Φ(αz),
# z = (x − ξ)/ω, z_p = (p − ξ)/ω. Bounding h ∈ (0, 1] bounds the curve's maximum on the chart, so
# TRF's box bounds express "at most 100 %" exactly. With r(t) = φ(t)/Φ(t) and L'(z) = −z + α r(αz):
#   ∂m/∂ξ = m (L'(z_p) − L'(z))/ω,  ∂m/∂ω = m (z_p L'(z_p) − z L'(z))/ω,
#   ∂m/∂α = m (z r(αz) − z_p r(αz_p)),  ∂m/∂h = m/h.
# When the mode is on the chart, z_p = z₀(α) and L'(z₀) = 0 (it is the maximum), so the same
# formulas hold (the envelope theorem removes the dependence of z₀ on α).

_HEIGHT_LOWER = np.array([XI_BOUNDS[0], OMEGA_BOUNDS[0], ALPHA_BOUNDS[0], 1e-9])
_HEIGHT_UPPER = np.array([XI_BOUNDS[1], OMEGA_BOUNDS[1], ALPHA_BOUNDS[1], MAX_HEIGHT])


def _peak_z(xi: float, omega: float, alpha: float) -> float:
    """Standardised position of the curve's maximum on the chart (mode clipped to the axis)."""
    mode = xi + omega * _standard_mode(alpha)
    return (min(max(mode, X_MIN), X_MAX) - xi) / omega


def _log_shape(z, alpha: float):
    # L(z) = log(φ(z) Φ(αz)) up to a constant; log_ndtr keeps the far tails finite.
    return -0.5 * z * z + log_ndtr(alpha * z)


def _mills(t):
    # r(t) = φ(t)/Φ(t), finite for very negative t (where both underflow).
    return _INV_SQRT_2PI * np.exp(-0.5 * t * t - log_ndtr(t))


def _height_model(x: np.ndarray, xi: float, omega: float, alpha: float, h: float) -> np.ndarray:
    zp = _peak_z(xi, omega, alpha)
    z = (x - xi) / omega
    return h * np.exp(_log_shape(z, alpha) - _log_shape(zp, alpha))


def _height_jac(x: np.ndarray, xi: float, omega: float, alpha: float, h: float) -> np.ndarray:
    zp = _peak_z(xi, omega, alpha)
    z = (x - xi) / omega
    unit = np.exp(_log_shape(z, alpha) - _log_shape(zp, alpha))
    m = h * unit
    r, rp = _mills(alpha * z), float(_mills(alpha * zp))
    dl, dlp = -z + alpha * r, -zp + alpha * rp
    jac = np.empty((x.size, 4))
    jac[:, 0] = m * (dlp - dl) / omega
    jac[:, 1] = m * (zp * dlp - z * dl) / omega
    jac[:, 2] = m * (z * r - zp * rp)
    jac[:, 3] = unit
    return jac


def _height_grid(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The coarse grid of :func:`_grid_candidates` in the bounded form: rows (ξ, ω, α, h) with h
    in closed form (least squares, clipped to (0, 1]) and their squared errors."""
    rows, _ = _grid_candidates(xs, ys)
    xi, omega, alpha = rows[:, 0:1], rows[:, 1:2], rows[:, 2:3]
    mode_z = _GRID_MODE_Z[np.searchsorted(_GRID_ALPHAS, rows[:, 2])][:, None]
    zp = (np.clip(xi + omega * mode_z, X_MIN, X_MAX) - xi) / omega
    g = np.exp(_log_shape((xs[None, :] - xi) / omega, alpha) - _log_shape(zp, alpha))
    gg = np.einsum("ij,ij->i", g, g)
    h = np.clip(g @ ys / np.where(gg > 0, gg, np.inf), 1e-6, MAX_HEIGHT)
    sse = np.sum((h[:, None] * g - ys) ** 2, axis=1)
    sse[~np.isfinite(sse) | (gg <= 0)] = np.inf
    return np.column_stack([rows[:, :3], h]), sse


def _axis_peak_density(xi: float, omega: float, alpha: float) -> float:
    """``f_max``: the density at its maximum on the chart."""
    return float(_sn_pdf(np.array([_axis_peak(xi, omega, alpha)]), xi, omega, alpha)[0])


def _at_ceiling(popt) -> bool:
    """Whether a bounded-form solution ``(ξ, ω, α, h)`` has its height on the 100 % bound."""
    return float(popt[3]) >= MAX_HEIGHT * (1.0 - 1e-9)


def _to_height_form(start, lower: np.ndarray, upper: np.ndarray) -> np.ndarray | None:
    """A start ``(ξ, ω, α, S)`` as ``(ξ, ω, α, h)`` with ``h = min(S·f_max, 1)``, strictly inside
    the bounds (as TRF requires); None when the shape has no peak on the chart."""
    xi, omega, alpha, scale = (float(v) for v in start)
    f_max = _axis_peak_density(xi, omega, alpha)
    if not (f_max > 0 and math.isfinite(f_max)):
        return None
    return np.clip(np.array([xi, omega, alpha, min(scale * f_max, MAX_HEIGHT)]), lower, upper)


#: Damped Gauss-Newton steps on the shape of a start lowered to 100 % (see _settle_at_ceiling).
_SETTLE_STEPS = 4


def _settle_at_ceiling(xs: np.ndarray, ys: np.ndarray, start: np.ndarray) -> np.ndarray:
    """A start lowered to 100 %, with its shape (ξ, ω, α) moved by a few Levenberg-Marquardt
    steps at h = 1 (bounds by clipping). About half of all hand-placed 5-point sets have a free
    optimum a few per cent above 100 % (the peak point at 1 plus jitter); from the lowered shape
    TRF needs ~5 evaluations (8 at p90), from these steps ~2 (4), and a step here costs a
    fraction of a TRF iteration."""
    p = start[:3].copy()
    lower, upper = _HEIGHT_LOWER[:3], _HEIGHT_UPPER[:3]
    resid = _height_model(xs, *p, MAX_HEIGHT) - ys
    jac = _height_jac(xs, *p, MAX_HEIGHT)[:, :3]
    sse = float(resid @ resid)
    damping = 1e-2
    for _ in range(_SETTLE_STEPS):
        jtj = jac.T @ jac
        jtj[np.diag_indices(3)] *= 1.0 + damping
        try:
            step = np.linalg.solve(jtj + 1e-300 * np.eye(3), -(jac.T @ resid))
        except np.linalg.LinAlgError:
            break
        trial = np.clip(p + step, lower, upper)
        resid_t = _height_model(xs, *trial, MAX_HEIGHT) - ys
        sse_t = float(resid_t @ resid_t)
        if sse_t < sse:  # False for NaN
            p, resid, sse = trial, resid_t, sse_t
            jac = _height_jac(xs, *p, MAX_HEIGHT)[:, :3]
            damping /= 3.0
        else:
            damping *= 4.0
    out = start.copy()
    out[:3] = p
    return out


def _from_height_form(popt, xs: np.ndarray, ys: np.ndarray, converged: bool) -> CurveFit | None:
    xi, omega, alpha, h = (float(v) for v in popt)
    f_max = _axis_peak_density(xi, omega, alpha)
    if not (f_max > 0 and math.isfinite(f_max)):
        return None
    return _as_fit((xi, omega, alpha, h / f_max), xs, ys, converged)


def _cap_height(fit: CurveFit, xs: np.ndarray, ys: np.ndarray) -> CurveFit:
    """``fit`` with its peak clipped to exactly 100 % when it is above. Only the peak-anchored
    3-point fit can be (by at most its tolerance, :data:`_EXACT_RMSE`, through a point at 1):
    every other fit is made in the bounded form."""
    f_max = _axis_peak_density(fit.xi, fit.omega, fit.alpha)
    if not (f_max > 0 and math.isfinite(f_max)) or fit.scale * f_max <= MAX_HEIGHT:
        return fit
    return _as_fit((fit.xi, fit.omega, fit.alpha, MAX_HEIGHT / f_max), xs, ys, fit.converged) or fit


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


def _as_fit(popt, xs: np.ndarray, ys: np.ndarray, converged: bool) -> CurveFit | None:
    xi, omega, alpha, scale = (float(v) for v in popt)
    rmse = _rmse(_model(xs, xi, omega, alpha, scale) - ys)
    if not all(math.isfinite(v) for v in (xi, omega, alpha, scale, rmse)):
        return None
    return CurveFit(xi, omega, alpha, scale, rmse, int(xs.size), converged)


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


# --- the fitted curve against the points ------------------------------------------------------


def peak_height(xi: float, omega: float, alpha: float, scale: float) -> float:
    """Height ``h = S · f_max`` of the fitted curve ``S · f`` at its highest point on the chart."""
    _check_params(xi, omega, alpha)
    with np.errstate(all="ignore"):
        return float(scale) * _axis_peak_density(float(xi), float(omega), float(alpha))


def curve_residuals(
    points: Iterable, xi: float, omega: float, alpha: float, scale: float
) -> tuple[float, ...]:
    """``y − S·f(x)`` for each point, in the order given: how far each point lies above (+) or
    below (−) the fitted curve. Points need only be finite, on the axis and in [0, 1]."""
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
    """True when there are residuals and each is within :data:`PASS_TOLERANCE`."""
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


# --- normalised and proportional curves -------------------------------------------------------


def _axis_peak(xi: float, omega: float, alpha: float) -> float:
    # The density is unimodal, so its maximum over the axis is at the mode clipped to the axis.
    return min(max(skew_normal_mode(xi, omega, alpha), X_MIN), X_MAX)


def normalised_curve(
    xi: float, omega: float, alpha: float, scale: float = 1.0, x=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(x, f_norm)``: the curve ``S·f`` divided by its area over the axis, so it has area 1.

    ``N = ∫ S·f dx`` over ``[X_MIN, X_MAX]`` by the trapezoidal rule on :data:`AXIS_GRID`
    (801 points); ``f_norm = S·f / N``, evaluated on ``x`` (default :data:`AXIS_GRID`). Since
    S cancels, the result does not depend on ``scale``. Raises :class:`CurveFitError` when the
    curve lies entirely off the axis (N = 0).
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
    definition of what the chart shows."""
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


# --- distribution comparison -----------------------------------------------------------------

# Each family is S·pdf(x; θ) with a scipy.stats pdf. Log-normal and gamma are parameterised by
# location, spread and skew rather than scipy's (shape, loc, scale): those become
# ill-conditioned as the shape nears its Gaussian limit (loc → −∞, scale → ∞), which stalls TRF.


def _gaussian(x, mu, sigma, s):
    """S · N(x; μ, σ)."""
    return s * stats.norm.pdf(x, loc=mu, scale=sigma)


def _exponential(x, loc, scale, s):
    """S · Exp(x − loc; scale): zero before ``loc``, then falling."""
    return s * stats.expon.pdf(x, loc=loc, scale=scale)


def _log_normal(x, shape, median, width, s):
    """S · lognorm(x; shape, loc, scale) with scale = width/shape and loc = median − scale;
    tends to N(median, width) as shape → 0."""
    scale = width / shape
    return s * stats.lognorm.pdf(x, shape, loc=median - scale, scale=scale)


def _gamma(x, skew, mean, sd, s):
    """S · gamma(x; a, loc, scale) with a = 4/skew², scale = sd·skew/2, loc = mean − a·scale;
    tends to N(mean, sd) as skew → 0."""
    a = 4.0 / (skew * skew)
    scale = sd * skew / 2.0
    return s * stats.gamma.pdf(x, a, loc=mean - a * scale, scale=scale)


# name → (model, (lower, upper) bounds for (θ..., S), starts for θ from (peak x, spread, first x))
_FAMILIES = {
    "gaussian": (
        _gaussian,
        ([-300.0, 0.5, 1e-9], [500.0, 400.0, 1e6]),
        lambda xp, sigma, x0: [(xp, sigma), (xp, 2 * sigma)],
    ),
    "exponential": (
        _exponential,
        ([-500.0, 0.5, 1e-9], [300.0, 1000.0, 1e6]),
        # it only falls: start just before the peak, or before every point
        lambda xp, sigma, x0: [(xp - 0.25 * sigma, sigma), (x0 - sigma, 2 * sigma)],
    ),
    "log_normal": (
        _log_normal,
        ([0.005, -300.0, 0.1, 1e-9], [3.0, 500.0, 500.0, 1e6]),
        lambda xp, sigma, x0: [(0.5, xp + 0.2 * sigma, sigma), (0.05, xp, sigma)],
    ),
    "gamma": (
        _gamma,
        ([0.01, -300.0, 0.1, 1e-9], [4.0, 500.0, 500.0, 1e6]),
        lambda xp, sigma, x0: [(1.0, xp + 0.5 * sigma, sigma), (0.1, xp, sigma)],
    ),
}


def _fit_family_rmse(model, bounds, starts, xs: np.ndarray, ys: np.ndarray) -> float:
    """Best RMSE of ``model`` over ``starts`` by curve_fit TRF; NaN if no start converges."""
    lower, upper = (np.asarray(b, dtype=float) for b in bounds)
    span = upper - lower
    ymax = float(ys.max())
    best = math.nan
    with np.errstate(all="ignore"):
        for shape_start in starts:
            # S so that the start's highest value on the points matches the highest point
            values = model(xs, *shape_start, 1.0)
            top = float(np.max(values)) if np.all(np.isfinite(values)) else 0.0
            p0 = np.array([*shape_start, ymax / top if top > 0 else 1.0], dtype=float)
            p0 = np.clip(p0, lower + 1e-9 * span, upper - 1e-9 * span)
            try:
                popt, _ = optimize.curve_fit(
                    model,
                    xs,
                    ys,
                    p0=p0,
                    bounds=(lower, upper),
                    method="trf",
                    max_nfev=COMPARE_MAX_NFEV,
                    check_finite=False,
                    absolute_sigma=True,
                )
                rmse = _rmse(model(xs, *popt) - ys)
            except _FIT_FAILURES:
                continue
            if math.isfinite(rmse) and not rmse >= best:  # also true while best is NaN
                best = rmse
    return best


#: Evaluation cap per start in :func:`compare_distributions` (finite-difference Jacobians).
COMPARE_MAX_NFEV = 300


def compare_distributions(points: Iterable) -> dict[str, float]:
    """RMSE over the points of five families, each fitted as ``S · pdf(x)`` with a free scale S.

    Returns ``{"skew_normal", "gaussian", "exponential", "log_normal", "gamma"}`` → RMSE
    (relative validity units), each family fitted by the same method as :func:`fit_curve`:
    ``scipy.optimize.curve_fit(method="trf")`` under bounds, from a couple of data-driven starts,
    best kept. Families (scipy.stats pdfs, x in axis units):

    * skew-normal — exactly :func:`fit_curve`;
    * Gaussian — ``norm(μ, σ)``;
    * exponential — ``expon(loc, scale)``, zero before ``loc`` and falling after it;
    * log-normal — ``lognorm(s, loc, scale)``, fitted as (s, median = loc + scale,
      width = s·scale) so that its near-Gaussian limit stays well-conditioned;
    * gamma — ``gamma(a, loc, scale)``, fitted as (skewness 2/√a, mean, SD) likewise.

    The skew-normal's RMSE is that of :func:`fit_curve`, whose curve may not rise above 100 %
    (the annotator's curve); the other families keep a free S, so where the ceiling binds the
    comparison slightly favours them. Log-normal and gamma can only skew right; the exponential
    cannot rise. A family that no
    start fits (TRF does not converge within :data:`COMPARE_MAX_NFEV` evaluations) reports
    ``float("nan")``. The points are checked by :func:`validate_points` (raises
    :class:`CurveFitError`). This is the comparison behind the choice of the skew-normal in the
    Chronocept paper.
    """
    pts = validate_points(points)
    xs = np.array([p[0] for p in pts])
    ys = np.array([p[1] for p in pts])
    try:
        skew_normal = fit_curve(pts).rmse
    except CurveFitError:
        skew_normal = math.nan
    k = int(np.argmax(ys))
    sl, sr = _height_spread(xs, ys, k)
    sigma = max(0.5 * (sl + sr), 1.0)
    xp, x0 = float(xs[k]), float(xs[0])
    result = {"skew_normal": skew_normal}
    for name, (model, bounds, make_starts) in _FAMILIES.items():
        try:
            result[name] = _fit_family_rmse(model, bounds, make_starts(xp, sigma, x0), xs, ys)
        except Exception:  # an unforeseen scipy failure: report "no fit", never crash the page
            result[name] = math.nan
    return result
