"""The ceiling: the fitted curve never rises above 100 %. TRF runs on the bounded form
``h · f(x)/f_max`` with the peak height h in (0, 1]; this module has that form, its Jacobian,
its coarse grid, and the conversions to and from the free form ``S · f``."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from annotation.curves.density import _INV_SQRT_2PI, _axis_peak_density, _standard_mode
from annotation.curves.fit_result import CurveFit, _as_fit
from annotation.curves.limits import ALPHA_BOUNDS, MAX_HEIGHT, OMEGA_BOUNDS, XI_BOUNDS
from annotation.curves.starts import _GRID_ALPHAS, _GRID_MODE_Z, _grid_candidates
from annotation.timeaxis import X_MAX, X_MIN


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
