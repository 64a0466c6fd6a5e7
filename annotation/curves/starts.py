"""Where the fit starts: the spread read off the points, a coarse vectorised grid of candidate
curves, Levenberg-Marquardt steps on many candidates at once (:func:`_lm_rows`), and the
sequence of starting values the multi-start TRF of :func:`annotation.curves.fit.fit_curve` tries."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.special import ndtr

from annotation.curves.density import _INV_SQRT_2PI, _SQRT_2PI, _sn_pdf, _standard_mode
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, SCALE_BOUNDS, XI_BOUNDS


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
