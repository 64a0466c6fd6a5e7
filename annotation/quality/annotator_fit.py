"""The estimator behind :mod:`annotation.quality.annotator_model`: arrays in, arrays out.

Data: N annotations, annotation j by annotator ``a[j]`` (of A) on item ``i[j]`` (of I), with
centre ``c[j]`` (the half-gone position, base-1.1 log minutes) and log width ``y[j]`` (log of
the 95-gone minus the 5-gone position).

**Centres.** ``c = μ_i + b_a + e``, ``e ~ N(0, v)``, ``v = σ_a² + d_i²``. The item centres μ_i
are integrated out under a flat prior — restricted maximum likelihood (REML; Patterson &
Thompson 1971), which keeps a 3-annotator item's residuals from understating the variances by
a third. Per item, with ``w = 1/v``, ``W_i = Σ w``, ``μ̂_i = Σ w (c − b_a) / W_i`` and
``r = c − b_a − μ̂_i``::

    ℓ_i = −½ Σ log v − ½ log W_i − ½ Σ w r²,     ∂ℓ_i/∂v = ½ w (w r² + w / W_i − 1)

(an item with one annotation adds nothing). The penalised log-likelihood adds weak priors:

* ``b_a ~ N(0, s_b²)``, ``s_b²`` the biases' spread by the method of moments on a plain two-way
  least-squares fit (the variance of its biases less their mean sampling variance), never below
  :data:`BIAS_PRIOR_FLOOR` — empirical-Bayes shrinkage of a few-item annotator's bias to 0;
* ``σ_a² ~ Inv-Gamma(ν/2, ν s0²/2)`` with ν = ``prior_strength``: on log σ² its mode is the
  pseudo-count estimate ``σ_a² ≈ (ν s0² + Σ r²) / (ν + n_a)``, as if every annotator had
  also annotated ν items with the population's variance ``s0²``; ``s0² = s_min² + e^φ`` is
  fitted jointly (flat in φ; the maximiser is the harmonic mean of the σ_a², never below
  :data:`MIN_POPULATION_NOISE` ``= s_min``). A 3-item annotator's noise is pulled to the
  population instead of to 0;
* ``d_i ~ half-Cauchy(0, s_d)`` (Gelman 2006), ``s_d`` = :data:`DIFFICULTY_PRIOR_SCALE` × the
  two-way fit's residual SD: its density is highest at 0 and its tail heavy, so an item keeps
  no extra spread without evidence and a clearly hard item is barely shrunk.

``σ_a² + d_i²`` is unchanged when a constant moves from every σ_a² to every d_i²: the likelihood
alone cannot split the spread, the priors do. The noise prior prefers equal σ_a (its
harmonic-to-geometric mean term), so the split puts whatever spread all items share into the
annotators' noise and leaves to d_i only the *extra* spread of the items where annotators
scatter more than their noise says — difficulty is 0 for an ordinary item. ``b, log σ², u,
log s0²`` are found together by L-BFGS (Byrd et al. 1995; Nocedal 1980) with the analytic
gradient, from the two-way fit's values (deterministic), where ``d_i = |u_i|``: the likelihood
and the prior read u² only, so the objective is smooth and needs no bound ``d ≥ 0`` (scipy's
bounded steps cost ten times the time here).

**Widths.** ``y = log W_i + log κ_a + u``, ``u ~ N(0, τ²)``: a two-way additive model fitted by
backfitting (alternating exact updates, Hastie & Tibshirani 1990), each log κ_a shrunk as if
the annotator had also drawn ν items at the consensus width (``log κ_a = Σ (y − log W_i) /
(n_a + ν)``, the ridge ``N(0, τ²/ν)``), τ² the residual variance on the residual degrees of
freedom.

**Identification.** The biases are centred with weights n_a (``Σ_a n_a b_a = 0``: the average
annotation is unbiased, the item centres absorb the shift) and the log ratios with equal
weights (``Σ_a log κ_a = 0``: the typical annotator's widths are the consensus).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize
from threadpoolctl import threadpool_limits

#: The bias prior's variance is never below this (log-units²): the prior stays weak.
BIAS_PRIOR_FLOOR: float = 1.0
#: The population's noise s0 is never taken below this (log-units: a tenth of a time): without
#: it a project with one annotation per annotator, whose biases absorb every residual, would
#: fit every noise to 0.
MIN_POPULATION_NOISE: float = 1.0
#: The difficulty prior's scale as a share of the two-way fit's residual SD.
DIFFICULTY_PRIOR_SCALE: float = 0.3
#: log σ² and log s0² are read inside these (σ between 0.001 and 1000 log-units).
_LOG_VAR_BOUNDS = (math.log(1e-6), math.log(1e6))
#: Relative change of the objective at which the optimiser stops.
_FTOL = 1e-10


@dataclass(frozen=True)
class Fitted:
    """The estimates, indexed as the codes of :func:`fit_arrays`' input."""

    bias: np.ndarray          # b_a (A,)
    noise: np.ndarray         # σ_a (A,)
    log_ratio: np.ndarray     # log κ_a (A,)
    centre: np.ndarray        # μ_i (I,)
    difficulty: np.ndarray    # d_i (I,)
    log_width: np.ndarray     # log W_i (I,)
    population_noise: float   # s0
    width_noise: float        # τ
    iterations: int
    converged: bool


def _two_way(values: np.ndarray, a: np.ndarray, i: np.ndarray, n_a: np.ndarray, n_i: np.ndarray,
             shrink: float, max_iter: int) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Backfitting of ``values = item_i + annot_a + noise``, the annotator terms shrunk with
    ``shrink`` pseudo-items at 0: (annot, item, residual variance, iterations)."""
    n_ann, n_item = len(n_a), len(n_i)
    annot = np.zeros(n_ann)
    item = np.bincount(i, values, n_item) / n_i
    steps = 0
    for steps in range(1, max_iter + 1):
        new_annot = np.bincount(a, values - item[i], n_ann) / (n_a + shrink)
        item = np.bincount(i, values - new_annot[a], n_item) / n_i
        change = float(np.max(np.abs(new_annot - annot)))
        annot = new_annot
        if change < 1e-10:
            break
    residual = values - item[i] - annot[a]
    dof = max(len(values) - n_item - n_ann + 1, 1)
    return annot, item, float(residual @ residual) / dof, steps


def fit_arrays(a: np.ndarray, i: np.ndarray, c: np.ndarray, y: np.ndarray, n_annotators: int,
               n_items: int, *, prior_strength: float, max_iter: int) -> Fitted:
    """Fit the model (module docstring) to coded annotations: ``a`` and ``i`` integer codes in
    ``range(n_annotators)`` and ``range(n_items)``, every code used.

    Examples:
        >>> a, i = np.array([0, 1, 0, 1, 0, 1]), np.array([0, 0, 1, 1, 2, 2])
        >>> c, y = np.array([10.0, 14.0, 50.0, 54.0, 30.0, 34.0]), np.log([4.0, 8.0] * 3)
        >>> f = fit_arrays(a, i, c, y, 2, 3, prior_strength=3.0, max_iter=200)
        >>> [round(float(v), 2) for v in f.bias], [round(float(v), 2) for v in f.centre]   # ±2 shrunk a little
        ([-1.88, 1.88], [12.0, 52.0, 32.0])
        >>> [round(float(v), 3) for v in np.exp(f.log_ratio)]   # 1/√2, √2 halved in log: 3 items, 3 pseudo-items
        [0.841, 1.189]
    """
    n_a = np.bincount(a, minlength=n_annotators).astype(float)
    n_i = np.bincount(i, minlength=n_items).astype(float)
    # start: the plain two-way least-squares fit of the centres
    b0, _, pooled_var, _ = _two_way(c, a, i, n_a, n_i, 0.0, max_iter)
    b0 = b0 - (n_a @ b0) / n_a.sum()
    pooled_var = max(pooled_var, MIN_POPULATION_NOISE ** 2)
    spread = float(b0 @ b0) / n_annotators - float(np.mean(pooled_var / n_a))
    bias_var = max(spread, BIAS_PRIOR_FLOOR)
    scale_d2 = pooled_var * DIFFICULTY_PRIOR_SCALE ** 2
    nu = float(prior_strength)

    def objective(z: np.ndarray) -> tuple[float, np.ndarray]:
        b, theta = z[:n_annotators], z[n_annotators:2 * n_annotators]
        d, phi = z[2 * n_annotators:-1], z[-1]
        var_a = np.exp(np.clip(theta, *_LOG_VAR_BOUNDS))
        v = var_a[a] + d[i] ** 2
        w = 1.0 / v
        big_w = np.bincount(i, w, n_items)
        shifted = c - b[a]
        mu = np.bincount(i, w * shifted, n_items) / big_w
        r = shifted - mu[i]
        wr = w * r
        loglik = -0.5 * (np.log(v).sum() + np.log(big_w).sum() + wr @ r)
        g_v = 0.5 * w * (wr * r + w / big_w[i] - 1.0)
        excess = math.exp(min(max(phi, _LOG_VAR_BOUNDS[0]), _LOG_VAR_BOUNDS[1]))
        s0 = MIN_POPULATION_NOISE ** 2 + excess   # s0², never below the floor
        # priors: bias normal, noise inverse-gamma on σ² (with its Jacobian on log σ²), with
        # the normaliser's ν/2·log s0² for the joint s0², difficulty half-Cauchy
        log_prior = (-0.5 * (b @ b) / bias_var
                     + np.sum(-0.5 * nu * theta - 0.5 * nu * s0 / var_a) + 0.5 * nu * n_annotators * math.log(s0)
                     - np.log1p(d * d / scale_d2).sum())
        grad = np.empty_like(z)
        grad[:n_annotators] = np.bincount(a, wr, n_annotators) - b / bias_var
        grad[n_annotators:2 * n_annotators] = (np.bincount(a, g_v, n_annotators) * var_a
                                               - 0.5 * nu + 0.5 * nu * s0 / var_a)
        grad[2 * n_annotators:-1] = (np.bincount(i, g_v, n_items) * 2.0 * d
                                     - 2.0 * d / (scale_d2 + d * d))
        grad[-1] = (float(np.sum(-0.5 * nu / var_a)) + 0.5 * nu * n_annotators / s0) * excess
        return -(loglik + log_prior), -grad

    start = np.concatenate([b0, np.full(n_annotators, math.log(pooled_var)),
                            np.full(n_items, 0.5 * math.sqrt(pooled_var)), [math.log(pooled_var)]])
    # one BLAS thread: L-BFGS's small products gain nothing from more, and idle BLAS threads
    # spinning beside the suite's workers made a 0.1 s fit take seconds
    with threadpool_limits(limits=1, user_api="blas"):
        result = optimize.minimize(objective, start, jac=True, method="L-BFGS-B",
                                   options={"maxiter": max_iter, "ftol": _FTOL, "gtol": 1e-7,
                                            "maxcor": 10})
    z = result.x
    b, noise = z[:n_annotators], np.exp(0.5 * z[n_annotators:2 * n_annotators])
    d = np.abs(z[2 * n_annotators:-1])
    v = noise[a] ** 2 + d[i] ** 2
    centre = np.bincount(i, (c - b[a]) / v, n_items) / np.bincount(i, 1.0 / v, n_items)
    shift = (n_a @ b) / n_a.sum()
    log_ratio, log_width, width_var, steps = _two_way(y, a, i, n_a, n_i, nu, max_iter)
    mean_ratio = float(log_ratio.mean())
    return Fitted(bias=b - shift, noise=noise, log_ratio=log_ratio - mean_ratio,
                  centre=centre + shift, difficulty=d, log_width=log_width + mean_ratio,
                  population_noise=math.sqrt(MIN_POPULATION_NOISE ** 2 + math.exp(z[-1])), width_noise=math.sqrt(width_var),
                  iterations=int(result.nit) + steps, converged=bool(result.success))


__all__ = ["BIAS_PRIOR_FLOOR", "DIFFICULTY_PRIOR_SCALE", "MIN_POPULATION_NOISE", "Fitted", "fit_arrays"]
