"""The skew-normal density (Azzalini 1985), its mode, and checks on its parameters.

``f(x; ξ, ω, α) = (2/ω) · φ((x − ξ)/ω) · Φ(α (x − ξ)/ω)``, vectorised over x; the mode
z₀(α) of the standard density (scalar and vectorised) and its slope in α; where the density is
highest on the chart and how high the fitted curve ``S · f`` is there; and the rules a
curve's parameters obey.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, CurveFitError
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.timeaxis import X_MAX, X_MIN


_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INV_SQRT_2PI = 1.0 / _SQRT_2PI


def skew_normal_pdf(x, xi: float, omega: float, alpha: float):
    """Skew-normal density ``(2/ω) φ((x−ξ)/ω) Φ(α (x−ξ)/ω)`` (Azzalini 1985).

    ``x`` in axis units (log minutes); vectorised over ``x`` (scalar in, ``float`` out).
    ``omega`` must be positive. Equals ``scipy.stats.skewnorm.pdf(x, alpha, xi, omega)``, only
    faster.

    Examples:
        >>> round(skew_normal_pdf(50.0, 50.0, 10.0, 0.0), 6)  # α = 0: the normal density, 1/(10·√(2π))
        0.039894
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
    """Position (axis units) of the maximum of the skew-normal density: ``ξ + ω·z₀(α)``.

    Examples:
        >>> skew_normal_mode(50.0, 10.0, 0.0), round(skew_normal_mode(50.0, 10.0, 4.0), 4)
        (50.0, 54.1697)
    """
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

    Examples:
        >>> parameter_bounds_problem(50.0, 10.0, 0.0) is None
        True
        >>> parameter_bounds_problem(50.0, 0.001, 0.0)
        "omega (ω) = 0.001 is outside the fit's range [0.5, 200]"
    """
    for name, value, (lo, hi) in zip(PARAMETERS, (xi, omega, alpha), (XI_BOUNDS, OMEGA_BOUNDS, ALPHA_BOUNDS)):
        symbol = PARAMETER_SYMBOLS[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return f"{name} ({symbol}) must be a number"
        if not math.isfinite(float(value)):
            return f"{name} ({symbol}) must be a finite number"
        if not lo <= float(value) <= hi:
            return f"{name} ({symbol}) = {float(value):.6g} is outside the fit's range [{lo:g}, {hi:g}]"
    return None


# --- the density's maximum on the chart -------------------------------------------------------


def _axis_peak(xi: float, omega: float, alpha: float) -> float:
    # The density is unimodal, so its maximum over the axis is at the mode clipped to the axis.
    return min(max(skew_normal_mode(xi, omega, alpha), X_MIN), X_MAX)


def _axis_peak_density(xi: float, omega: float, alpha: float) -> float:
    """``f_max``: the density at its maximum on the chart."""
    return float(_sn_pdf(np.array([_axis_peak(xi, omega, alpha)]), xi, omega, alpha)[0])


def peak_height(xi: float, omega: float, alpha: float, scale: float) -> float:
    """Height ``h = S · f_max`` of the fitted curve ``S · f`` at its highest point on the chart.

    Examples:
        >>> import math
        >>> round(peak_height(50.0, 10.0, 0.0, 10.0 * math.sqrt(2 * math.pi)), 6)  # S = 1/f(mode)
        1.0
    """
    _check_params(xi, omega, alpha)
    with np.errstate(all="ignore"):
        return float(scale) * _axis_peak_density(float(xi), float(omega), float(alpha))
