"""The 3-point fit: three points leave one free direction among exact fits; it is pinned by
making the curve peak at the highest point (ξ = x_peak − ω·z₀(α)) and taking the least skewed
curve through the points."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import optimize

from annotation.curves.density import (
    _model,
    _model_jac,
    _standard_mode,
    _standard_mode_slope,
    _standard_modes,
)
from annotation.curves.fit_result import CurveFit, _as_fit
from annotation.curves.limits import GTOL, RETRY_MAX_NFEV, XI_BOUNDS
from annotation.curves.starts import (
    _FIT_FAILURES,
    _GRID_ALPHAS,
    _SN_LOWER,
    _SN_UPPER,
    _batch_model_jac,
    _grid_candidates,
    _lm_rows,
)


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
