"""Gold audit benchmark: planted errors found by the curve-aware audit and by cleanlab (SPEC §12).

For each seed and each kind of annotator: a generated pool whose words determine ξ, ω, α
(:func:`annotation.training.synthetic.doubly_annotated_pool`), annotated by two simulated
annotators, the gold = the mean of their parameters (the automatic resolution). The annotators
either add independent Gaussian errors to ξ, ω, α (``parameters``) or place five points on the
text's curve with hand jitter that the workbench's fit turns into parameters (``points``: how
the tool's annotations arise; parameter errors then trade off against each other). ``--rate``
of the gold is then corrupted, a third each:

* **swap** — two samples exchange their gold curves (both count as corrupted);
* **shift** — ξ moved by ±``--shift`` log-time units (×1.1^shift in time);
* **flip** — α → −α, on samples with |α| ≥ ``--min-alpha`` only (a flip of a nearly symmetric
  curve changes nothing).

One cross-fitting (:func:`annotation.training.audit.cross_fitted`: ``--folds`` folds, ``--k``
members, hashing encoder, ``--model``, the gold's parent text and axes as input) predicts every
corrupted gold sample out of fold. On those same predictions it ranks the gold by

* **ours** — :func:`annotation.training.audit.audit_scores`: the larger of the parameter
  residual's Mahalanobis distance and W1 over the cross-fitted expected miss
  (:func:`annotation.training.calibration.calibrate`), each over its 95th percentile;
* **cleanlab** — ``cleanlab.regression.rank.get_label_quality_scores(gold[:, j], mean[:, j])``
  per parameter (its default "outre" method), combined by the minimum, lowest first;
* diagnostics: the **previous score** (W1 / max(ensemble spread, the typical miss)), **W1
  alone** (no scaling) and **cleanlab residual** (its ``method="residual"``).

It prints precision@k and recall@k with k = the number corrupted (so the two are equal), the
recall per kind of error; how well the uncertainty tracks the error on the clean gold (Spearman
ρ of the expected miss and of the ensemble's spread with W1 to the gold; target ≥ 0.3); the
held-out coverage of the 90 % half-gone intervals (target 0.85–0.95); whether the model beats
the trivial reference under cross-validation; the times and the machine load
(``os.getloadavg()``).

    python bench/model_audit.py [--n 1500] [--seeds 0 1 2] [--k 5] [--folds 5]
                                [--annotators points parameters] [--model linear|ffnn]
                                [--rate 0.05] [--shift 12]
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
from annotation.training.audit import audit_scores, cross_fitted, rank, typical_miss  # noqa: E402
from annotation.training.calibration import calibrate  # noqa: E402
from annotation.training.encoders import HashingEncoder  # noqa: E402
from annotation.training.ensemble import ModelSpec  # noqa: E402
from annotation.training.synthetic import doubly_annotated_pool  # noqa: E402

KINDS = ("swap", "shift", "flip")
MODELS = {
    "linear": ModelSpec("linear", {"alpha": 0.1}, "hashing", "none"),
    "ffnn": ModelSpec("ffnn", {"hidden_size": 128, "hidden_layers": 1, "dropout": 0.0,
                               "learning_rate": 1e-3, "weight_decay": 0.0},
                      "hashing", "none", max_epochs=200, patience=10, batch_size=32),
}


def corrupt(gold: np.ndarray, rate: float, shift: float, min_alpha: float,
            rng: np.random.Generator) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The corrupted gold and the indices corrupted per kind (a third of ``rate`` each)."""
    n = len(gold)
    per_kind = max(int(round(rate * n / 3)), 1)
    out = gold.copy()
    free = rng.permutation(n).tolist()
    strong = set(np.flatnonzero(np.abs(gold[:, 2]) >= min_alpha).tolist())
    flip = [i for i in free if i in strong][:per_kind]
    free = [i for i in free if i not in set(flip)]
    shifted, free = free[:per_kind], free[per_kind:]
    pairs = max(per_kind // 2, 1)
    swap_a, swap_b = free[:pairs], free[pairs:2 * pairs]
    out[flip, 2] = -gold[flip, 2]
    out[shifted, 0] = gold[shifted, 0] + shift * rng.choice([-1.0, 1.0], len(shifted))
    out[swap_a], out[swap_b] = gold[swap_b], gold[swap_a]
    return out, {"swap": np.array(swap_a + swap_b), "shift": np.array(shifted),
                 "flip": np.array(flip)}


def cleanlab_order(gold: np.ndarray, mean: np.ndarray, method: str = "outre") -> np.ndarray:
    """Indices lowest label quality first: per parameter, combined by the minimum."""
    from cleanlab.regression.rank import get_label_quality_scores

    quality = np.min([get_label_quality_scores(gold[:, j], mean[:, j], method=method)
                      for j in range(3)], axis=0)
    return np.argsort(quality, kind="stable")


def hits(order: np.ndarray, planted: dict[str, np.ndarray]) -> tuple[float, dict[str, float]]:
    """precision@k (= recall@k, k = number planted) and the recall of each kind in the top k."""
    everything = np.concatenate(list(planted.values()))
    top = set(order[:len(everything)].tolist())
    found = len(top & set(everything.tolist())) / len(everything)
    return found, {kind: len(top & set(ix.tolist())) / max(len(ix), 1)
                   for kind, ix in planted.items()}


def run_seed(args: argparse.Namespace, seed: int,
             annotators: str) -> dict[str, tuple[float, dict[str, float]]]:
    """One pool, one cross-fitting, every ranking; prints its lines, returns name → hits."""
    started = time.perf_counter()
    pool = doubly_annotated_pool(args.n, seed, annotators=annotators)
    pool_seconds = time.perf_counter() - started
    texts = [(text, *axes) for text, axes in zip(pool.texts, pool.axes)]
    gold, planted = corrupt(pool.gold, args.rate, args.shift, args.min_alpha,
                            np.random.default_rng([seed, 99]))
    n_planted = sum(len(v) for v in planted.values())
    load = os.getloadavg()
    started = time.perf_counter()
    fit = cross_fitted(texts, gold, folds=args.folds, spec=MODELS[args.model], k=args.k,
                       seed=seed, encoder=HashingEncoder())
    fit_seconds = time.perf_counter() - started
    prediction = fit.prediction

    started = time.perf_counter()
    calibration, miss = calibrate(gold, prediction.mean, fit.fold_of, seed=seed)
    ours = rank(audit_scores(gold, prediction, fit.fold_of, miss))
    ours_seconds = time.perf_counter() - started
    started = time.perf_counter()
    theirs = cleanlab_order(gold, prediction.mean)
    theirs_seconds = time.perf_counter() - started
    w1, _, _ = curve_distances(gold, prediction.mean)
    spread = prediction.spread_w1
    clean = np.setdiff1d(np.arange(args.n), np.concatenate(list(planted.values())))
    floor = typical_miss(gold, prediction)
    tracks = stats.spearmanr(miss[clean], w1[clean], nan_policy="omit").statistic
    print(f"{annotators} annotators, seed {seed}: n {args.n}, planted {n_planted} ("
          + ", ".join(f"{k} {len(v)}" for k, v in planted.items())
          + f"); load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; pool {pool_seconds:.1f} s, "
          f"cross-fit {fit_seconds:.1f} s ({args.folds} folds × {args.k} {args.model}), "
          f"calibration and ours {ours_seconds * 1e3:.0f} ms, cleanlab {theirs_seconds * 1e3:.0f} ms")
    print(f"  uncertainty vs error on clean gold (Spearman ρ with W1 to the gold): expected miss "
          f"{tracks:.2f}, ensemble spread "
          f"{stats.spearmanr(spread[clean], w1[clean], nan_policy='omit').statistic:.2f}; "
          f"{calibration.level:.0%} half-gone intervals: held-out coverage {calibration.coverage:.3f} "
          f"(n {calibration.n}); vs the trivial reference under CV: {calibration.comparison.words()}")
    results = {"ours": hits(ours, planted),
               "cleanlab": hits(theirs, planted)}
    results["  previous score"] = hits(rank(w1 / np.maximum(spread, floor)), planted)
    results["  W1 alone"] = hits(rank(w1), planted)
    results["  cleanlab residual"] = hits(
        cleanlab_order(gold, prediction.mean, method="residual"), planted)
    for name, (found, per_kind) in results.items():
        kinds = ", ".join(f"{kind} {value:.2f}" for kind, value in per_kind.items())
        print(f"  {name:22s} precision@{n_planted} = recall@{n_planted} = {found:.3f}  ({kinds})")
    results["spearman"] = (float(tracks), {})
    results["coverage"] = (calibration.coverage, {})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1500, help="gold samples per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--k", type=int, default=5, help="ensemble members")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--model", choices=sorted(MODELS), default="linear")
    parser.add_argument("--rate", type=float, default=0.05, help="share of the gold corrupted")
    parser.add_argument("--shift", type=float, default=12.0,
                        help="ξ shift of a shifted sample, log-time units (12 ≈ ×3.1 in time)")
    parser.add_argument("--min-alpha", type=float, default=1.5,
                        help="flip α only where |α| is at least this")
    parser.add_argument("--annotators", nargs="+", choices=("points", "parameters"),
                        default=["points", "parameters"])
    args = parser.parse_args(argv)

    import torch

    print(f"model audit: seeds {args.seeds}, torch threads {torch.get_num_threads()}, "
          f"{os.cpu_count()} CPUs")
    started = time.perf_counter()
    for annotators in args.annotators:
        totals: dict[str, list[float]] = {}
        for seed in args.seeds:
            for name, (found, _) in run_seed(args, seed, annotators).items():
                totals.setdefault(name.strip(), []).append(found)
        print(f"{annotators} annotators, mean over seeds {args.seeds}: "
              + "; ".join(f"{name} {np.mean(v):.3f}" for name, v in totals.items()))
    load = os.getloadavg()
    print(f"total {time.perf_counter() - started:.1f} s; load after {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
