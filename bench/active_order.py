"""Queue order benchmark: does handing out the most uncertain texts first teach the model faster
than handing them out at random? (SPEC §12, "a project may hand out the most uncertain samples
first").

A generated pool (:func:`annotation.training.synthetic.doubly_annotated_pool`: texts whose words
determine ξ, ω, α; two simulated annotators; gold = the mean of their parameters) is split into
an unannotated pool and a held-out test set. Both orders start from the same random seed set of
``--start`` samples. "Annotating" a sample reveals its gold. Every ``--every`` annotations the
model is retrained — an ensemble (:func:`annotation.training.ensemble.fit_ensemble`, ``--k``
members of ``--model`` on the hashing encoder, parent text only, since a text waiting in the
queue has no axes yet) — scored on the test set, and the next ``--every`` samples are handed out:

* **random** — uniformly from the samples not yet annotated;
* **uncertain** — the highest ensemble spread (mean W1 between the members' curves) first;
* **calibrated** — the highest *expected miss* first: the calibrated uncertainty the project's
  "most uncertain first" order reads (:class:`annotation.training.calibration.ExpectedMiss`,
  fitted on the annotated samples' cross-fitted residuals, ``--folds`` folds, at each retrain).

It prints both learning curves — test MSE of ξ, ω, α (original units) and the mean W1 from the
model's mean curve to the gold curve, against the number annotated — and how many annotations
the uncertain order needs to reach the random order's final error (on each of W1 and "z-MSE",
the MSE of each parameter over the test gold's variance, i.e. 1 − R², averaged), per seed, with
times and the machine load. ρ is Spearman's correlation between the spread and the W1 to the
gold on the test set: whether the order's uncertainty (the spread; for the calibrated order the
expected miss) says where the model errs, which an uncertainty order relies on.

    python bench/active_order.py [--pool 2000] [--test 500] [--start 100] [--every 200]
                                 [--budget 1500] [--k 5] [--seeds 0 1 2] [--model linear|ffnn]
                                 [--annotators parameters|points] [--folds 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.curves.distance import curve_distances  # noqa: E402
from annotation.training.audit import cross_fitted_blocks  # noqa: E402
from annotation.training.calibration import fit_expected_miss  # noqa: E402
from annotation.training.encoders import HashingEncoder  # noqa: E402
from annotation.training.ensemble import (  # noqa: E402
    ModelSpec,
    fit_ensemble_blocks,
    text_blocks,
)
from annotation.training.synthetic import doubly_annotated_pool  # noqa: E402

ORDERS = ("random", "uncertain", "calibrated")
MODELS = {
    "linear": ModelSpec("linear", {"alpha": 0.1}, "hashing", "no_axes"),
    "ffnn": ModelSpec("ffnn", {"hidden_size": 128, "hidden_layers": 1, "dropout": 0.0,
                               "learning_rate": 1e-3, "weight_decay": 0.0},
                      "hashing", "no_axes", max_epochs=200, patience=10, batch_size=32),
}


def learning_curve(args: argparse.Namespace, order: str, blocks: np.ndarray, gold: np.ndarray,
                   test: np.ndarray, start: np.ndarray, seed: int) -> list[dict[str, float]]:
    """Annotate, retrain and score until the budget is spent; one row per retrain."""
    encoder = HashingEncoder()
    pool = np.setdiff1d(np.arange(len(gold)), test)
    annotated = list(start)
    rng = np.random.default_rng([seed, 7])
    rows = []
    spread_seconds = 0.0
    while True:
        started = time.perf_counter()
        ensemble = fit_ensemble_blocks(blocks[annotated], gold[annotated], spec=MODELS[args.model],
                                       encoder=encoder, k=args.k, seed=seed + len(annotated))
        fit_seconds = time.perf_counter() - started
        prediction = ensemble.predict_blocks(blocks[test])
        w1, _, _ = curve_distances(gold[test], prediction.mean)
        miss_model = None
        if order == "calibrated":
            crossed = cross_fitted_blocks(blocks[annotated], gold[annotated], folds=args.folds,
                                          spec=MODELS[args.model], encoder=encoder, k=args.k,
                                          seed=seed + len(annotated))
            miss_model = fit_expected_miss(crossed.prediction.mean, gold[annotated], seed=seed)
        uncertainty = prediction.spread_w1 if miss_model is None else miss_model.predict(prediction.mean)
        mse = np.mean((prediction.mean - gold[test]) ** 2, axis=0)
        z_mse = float(np.mean(mse / gold[test].var(axis=0)))   # 1 − R², averaged
        # does the spread say where the model errs? (Spearman ρ of spread and W1 on the test set)
        rho = float(stats.spearmanr(uncertainty, w1, nan_policy="omit").statistic)
        rows.append({"annotated": len(annotated), "mse_xi": mse[0], "mse_omega": mse[1],
                     "mse_alpha": mse[2], "z_mse": z_mse, "w1": float(np.nanmean(w1)), "rho": rho,
                     "fit_seconds": fit_seconds, "spread_seconds": spread_seconds})
        if len(annotated) >= args.budget:
            return rows
        waiting = np.setdiff1d(pool, annotated)
        batch = min(args.every, args.budget - len(annotated), len(waiting))
        if batch <= 0:
            return rows
        started = time.perf_counter()
        if order == "random":
            chosen = rng.choice(waiting, size=batch, replace=False)
        else:
            waiting_prediction = ensemble.predict_blocks(blocks[waiting])
            spread = (waiting_prediction.spread_w1 if miss_model is None
                      else miss_model.predict(waiting_prediction.mean))
            chosen = waiting[np.argsort(-np.nan_to_num(spread, nan=-1.0), kind="stable")[:batch]]
        spread_seconds = time.perf_counter() - started
        annotated += chosen.tolist()


def needed(curve: list[dict[str, float]], target: float, key: str) -> str:
    """The first number annotated whose error is at or below ``target``."""
    for row in curve:
        if row[key] <= target:
            return str(row["annotated"])
    return f"not reached by {curve[-1]['annotated']}"


def run_seed(args: argparse.Namespace, seed: int) -> dict[str, list[dict[str, float]]]:
    started = time.perf_counter()
    data = doubly_annotated_pool(args.pool + args.test, seed, annotators=args.annotators)
    blocks = text_blocks(list(data.texts), HashingEncoder())
    order = np.random.default_rng([seed, 5]).permutation(len(data.texts))
    test, start = order[:args.test], order[args.test:args.test + args.start]
    load = os.getloadavg()
    print(f"seed {seed}: pool {args.pool}, test {args.test}, start {args.start}, every "
          f"{args.every}, budget {args.budget}, {args.k} × {args.model}, {args.annotators} "
          f"annotators; data {time.perf_counter() - started:.1f} s; load {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}")
    curves = {}
    for name in ORDERS:
        started = time.perf_counter()
        curves[name] = learning_curve(args, name, blocks, data.gold, test, start, seed)
        print(f"  {name}: {time.perf_counter() - started:.1f} s")
    print(f"  {'annotated':>9s} | " + " | ".join(
        f"{name:^47s}" for name in ORDERS))
    print(f"  {'':>9s} | " + " | ".join(
        f"{'MSE ξ':>8s} {'MSE ω':>7s} {'MSE α':>7s} {'z-MSE':>7s} {'W1':>6s} {'ρ':>6s}" for _ in ORDERS))
    for rows in zip(*curves.values()):
        print(f"  {rows[0]['annotated']:>9d} | " + " | ".join(
            f"{r['mse_xi']:8.2f} {r['mse_omega']:7.3f} {r['mse_alpha']:7.3f} {r['z_mse']:7.4f} "
            f"{r['w1']:6.2f} {r['rho']:6.2f}" for r in rows))
    final = curves["random"][-1]
    for key, label in (("w1", "mean W1"), ("z_mse", "z-MSE")):
        for name in ORDERS[1:]:
            print(f"  {name} order reaches random order's final {label} ({final[key]:.4f} at "
                  f"{final['annotated']}) at {needed(curves[name], final[key], key)} annotations")
    return curves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=2000, help="texts waiting to be annotated")
    parser.add_argument("--test", type=int, default=500, help="held-out test texts")
    parser.add_argument("--start", type=int, default=100, help="the random seed set")
    parser.add_argument("--every", type=int, default=200, help="annotations between retrains")
    parser.add_argument("--budget", type=int, default=1500, help="annotations in all")
    parser.add_argument("--k", type=int, default=5, help="ensemble members")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--model", choices=sorted(MODELS), default="linear")
    parser.add_argument("--annotators", choices=("parameters", "points"), default="parameters")
    parser.add_argument("--folds", type=int, default=5, help="folds of the calibrated order's cross-fit")
    args = parser.parse_args(argv)
    if not 0 < args.start <= args.budget <= args.pool:
        parser.error("need 0 < --start <= --budget <= --pool")

    import torch

    started = time.perf_counter()
    print(f"active order: seeds {args.seeds}, torch threads {torch.get_num_threads()}, "
          f"{os.cpu_count()} CPUs")
    finals = {name: [] for name in ORDERS}
    for seed in args.seeds:
        curves = run_seed(args, seed)
        for name in ORDERS:
            finals[name].append((curves[name][-1]["w1"], curves[name][-1]["z_mse"]))
    for name in ORDERS:
        w1, z = np.mean(finals[name], axis=0)
        print(f"{name}: final mean W1 {w1:.3f}, z-MSE {z:.4f} (mean over seeds)")
    load = os.getloadavg()
    print(f"total {time.perf_counter() - started:.1f} s; load after {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
