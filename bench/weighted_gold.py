"""Performance-weighted gold and a third annotator where it pays, on simulated projects with a
known truth (SPEC §15).

A project of ``--items`` texts, each with a true curve (ξ ~ U(20, 150), ω ~ U(4, 20),
α ~ U(−3, 3)), is annotated by ``--annotators`` simulated annotators. Annotator a draws item i's
curve as ξ + b_a + N(0, σ_a² + d_i²), ω·κ_a·e^{N(0, 0.15²)}, α + N(0, 0.7²) (clipped to the
fit's bounds): b the bias, σ the noise, κ the width ratio (confidence), d the item's difficulty
(half the items 0, half U(0, 6)). Two panels:

* **varied** — b ~ U(−8, 8), σ ~ U(1, 9), κ log-uniform on [0.5, 2] (about a third of the
  pairs flagged);
* **moderate** — b ~ U(−4, 4), σ ~ U(1, 6), κ log-uniform on [0.7, 1.4];
* **equal** — every annotator b = 0, σ = 4, κ = 1.

Every annotator also answers ``--seeds`` seed items (warm-up and gold checks) whose realisation
is the true curve's half-gone point plus N(0, 2²) (a lead's careful gold is not the truth either).

**Pooling rules** (k = 2 random annotators per item): equally (the mean of ξ, ω, α), by
calibration (Cooke's calibration × information on the seeds: the tool's
:func:`annotation.quality.expert_scores.score_annotators`) and by the annotator model (the tool's
cross-fitted :func:`annotation.quality.annotator_model.cross_fit` on the production annotations,
:func:`annotation.quality.weighted_gold.pooled_gold`). Printed: mean W1 (log-time units) from the
gold to the true curve with a bootstrap 95 % interval over items, and each weighted rule's change
against equal weights with a paired bootstrap interval. Targets: when quality varies a weighted
rule lowers the W1 by ≥ 15 %; when all are equal it is no more than 2 % worse.

**A third annotator** (the equal rule, the project's default flag thresholds): fixed k = 2
(every flagged item goes to a lead), k = 3 everywhere and the adaptive rule (a flagged pair, or
one the model leaves wider than the setting's SD, gets one more annotator; three settle when some
pair of them raises no flag, :mod:`annotation.quality.third_annotator`). A lead case's gold is
the pooled proposal of its annotators — a lead adjudicates between versions and does not know the
truth — so "gold error" compares what the annotations can give. Printed: lead cases, annotations
spent and gold W1 with intervals. Target: the adaptive rule sends ≥ 40 % fewer cases to a lead
than k = 2 at equal or lower gold error, for ≤ 15 % more annotations.

    python bench/weighted_gold.py [--items 600] [--annotators 12] [--seeds 30] [--rng 0 1 2]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.curves.distance import curve_distances  # noqa: E402
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS  # noqa: E402
from annotation.quality.annotator_model import cross_fit, observations_from_curves  # noqa: E402
from annotation.quality.expert_scores import (  # noqa: E402
    Seed,
    calibration_weights,
    curve_quantiles,
    realisation_of_gold,
    score_annotators,
)
from annotation.review.deviation import parameter_spread  # noqa: E402
from annotation.review.flags import automatic_flags  # noqa: E402
from annotation.review.resolution import AnnotatorVersion  # noqa: E402
from annotation.quality.weighted_gold import (  # noqa: E402
    CALIBRATION,
    EQUAL,
    MODEL,
    POOLING_PRIOR_STRENGTH,
    GoldWeighting,
    gold_sd,
    pooled_gold,
)
from annotation.segmentation import Segmentation  # noqa: E402
from annotation.settings import ProjectSettings  # noqa: E402

SETTINGS = ProjectSettings()
_ONE = Segmentation((0,), 4)


def panel(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, 3) of (bias, noise, width ratio)."""
    if kind == "equal":
        return np.tile([0.0, 4.0, 1.0], (n, 1))
    if kind == "moderate":
        return np.column_stack([rng.uniform(-4, 4, n), rng.uniform(1, 6, n),
                                np.exp(rng.uniform(np.log(0.7), np.log(1.4), n))])
    return np.column_stack([rng.uniform(-8, 8, n), rng.uniform(1, 9, n), np.exp(rng.uniform(np.log(0.5), np.log(2), n))])


def truths(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    curves = np.column_stack([rng.uniform(20, 150, n), rng.uniform(4, 20, n), rng.uniform(-3, 3, n)])
    difficulty = np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0, 6, n))
    return curves, difficulty


def draw(truth: np.ndarray, d: float, who: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    b, sigma, kappa = who
    xi = truth[0] + b + rng.normal(0, np.sqrt(sigma ** 2 + d ** 2))
    omega = truth[1] * kappa * np.exp(rng.normal(0, 0.15))
    alpha = truth[2] + rng.normal(0, 0.7)
    return (float(np.clip(xi, *XI_BOUNDS)), float(np.clip(omega, *OMEGA_BOUNDS)), float(np.clip(alpha, *ALPHA_BOUNDS)))


def version(annotator: int, curve: tuple[float, float, float]) -> AnnotatorVersion:
    return AnnotatorVersion(annotator, _ONE, ("main",), *curve)


def flagged(curves: list[tuple[float, float, float]], spread) -> bool:  # type: ignore[no-untyped-def]
    return bool(automatic_flags([None] * len(curves), curves, spread, pk_max=SETTINGS.flag_pk_max,
                                sigma=SETTINGS.flag_sigma, fixed_max=SETTINGS.deviation_max,
                                w1_max=SETTINGS.flag_w1_max))


def some_pair_agrees(curves: list[tuple[float, float, float]], spread) -> bool:  # type: ignore[no-untyped-def]
    return any(not flagged([curves[i], curves[j]], spread) for i, j in itertools.combinations(range(len(curves)), 2))


def mean_ci(values: np.ndarray, rng: np.random.Generator, n_boot: int = 2000) -> tuple[float, float, float]:
    idx = rng.integers(0, len(values), (n_boot, len(values)))
    means = values[idx].mean(axis=1)
    return float(values.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def change_ci(ours: np.ndarray, ref: np.ndarray, rng: np.random.Generator, n_boot: int = 2000) -> tuple[float, float, float]:
    idx = rng.integers(0, len(ours), (n_boot, len(ours)))
    rel = ours[idx].mean(axis=1) / ref[idx].mean(axis=1) - 1
    return float(ours.mean() / ref.mean() - 1), float(np.percentile(rel, 2.5)), float(np.percentile(rel, 97.5))


def w1_to_truth(golds: list[tuple[float, float, float]], truth: np.ndarray) -> np.ndarray:
    return curve_distances(np.asarray(golds, dtype=float), truth)[0]


def run(kind: str, args: argparse.Namespace, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    people = panel(kind, args.annotators, rng)
    truth, difficulty = truths(args.items, rng)
    seed_truth, seed_difficulty = truths(args.seeds, rng)
    # seeds: every annotator answers every seed item; realisation = truth's half-gone + lead noise
    seeds = []
    for j in range(args.seeds):
        x = realisation_of_gold(tuple(seed_truth[j])) + rng.normal(0, 2)
        for a in range(args.annotators):
            q = curve_quantiles([draw(seed_truth[j], seed_difficulty[j], people[a], rng)])[0]
            seeds.append(Seed(a, ("seed", j), tuple(float(v) for v in q), float(x)))
    calibration = calibration_weights(score_annotators(seeds, replicates=1))
    # production: k = 2 random annotators, a third (never one of the two) drawn in advance
    who = np.array([rng.choice(args.annotators, 3, replace=False) for _ in range(args.items)])
    curves = [[draw(truth[i], difficulty[i], people[a], rng) for a in who[i]] for i in range(args.items)]
    rows = [(int(who[i][k]), i, *curves[i][k]) for i in range(args.items) for k in range(2)]
    model = cross_fit(observations_from_curves(rows), prior_strength=POOLING_PRIOR_STRENGTH)
    spread = parameter_spread({p: [c[k] for cs in curves for c in cs[:2]] for k, p in enumerate(("xi", "omega", "alpha"))})
    weightings = {EQUAL: GoldWeighting(), CALIBRATION: GoldWeighting(CALIBRATION, calibration),
                  MODEL: GoldWeighting(MODEL, {}, model)}

    def gold(i: int, n: int, rule: str) -> tuple[float, float, float]:
        g = pooled_gold([version(int(who[i][k]), curves[i][k]) for k in range(n)], weightings[rule], i)
        return (g.xi, g.omega, g.alpha)  # type: ignore[return-value]

    out: dict = {"rules": {}, "third": {}}
    for rule in (EQUAL, CALIBRATION, MODEL):
        out["rules"][rule] = w1_to_truth([gold(i, 2, rule) for i in range(args.items)], truth)
    # a third annotator: fixed k = 2, k = 3 everywhere, adaptive
    flags2 = np.array([flagged(curves[i][:2], spread) for i in range(args.items)])
    agree3 = np.array([some_pair_agrees(curves[i], spread) for i in range(args.items)])
    wide = np.array([(gold_sd([version(int(who[i][k]), curves[i][k]) for k in range(2)], weightings[MODEL], i) or 0)
                     > SETTINGS.third_annotator_sd_max for i in range(args.items)])
    third = flags2 | wide
    for rule in (EQUAL, MODEL):
        g2 = [gold(i, 2, rule) for i in range(args.items)]
        g3 = [gold(i, 3, rule) for i in range(args.items)]
        adaptive = [g3[i] if third[i] else g2[i] for i in range(args.items)]
        out["third"][rule] = {
            "k = 2": (int(flags2.sum()), 2 * args.items, w1_to_truth(g2, truth)),
            "k = 3": (int((~agree3).sum()), 3 * args.items, w1_to_truth(g3, truth)),
            "adaptive": (int((third & ~agree3).sum()), 2 * args.items + int(third.sum()), w1_to_truth(adaptive, truth)),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=600)
    ap.add_argument("--annotators", type=int, default=12)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--rng", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args(argv)
    started = time.perf_counter()
    print(f"weighted gold: {args.items} items, {args.annotators} annotators, {args.seeds} seeds, "
          f"seeds {args.rng}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    boot = np.random.default_rng(12345)
    for kind in ("varied", "moderate", "equal"):
        runs = [run(kind, args, s) for s in args.rng]
        print(f"\n== {kind} annotators: mean W1 from the gold to the truth (log-time units), 95 % interval ==")
        ref = np.concatenate([r["rules"][EQUAL] for r in runs])
        for rule in (EQUAL, CALIBRATION, MODEL):
            vals = np.concatenate([r["rules"][rule] for r in runs])
            m, lo, hi = mean_ci(vals, boot)
            line = f"  {rule:<12} {m:6.3f} [{lo:.3f}, {hi:.3f}]  n = {len(vals)}"
            if rule != EQUAL:
                c, clo, chi = change_ci(vals, ref, boot)
                target = ("target ≤ +2 %" if kind == "equal" else "target ≤ −15 %")
                ok = (c <= 0.02) if kind == "equal" else (c <= -0.15)
                line += f"   vs equal {c:+.1%} [{clo:+.1%}, {chi:+.1%}]  ({target}: {'met' if ok else 'NOT met'})"
            print(line)
            for s, r in zip(args.rng, runs):
                print(f"      seed {s}: {r['rules'][rule].mean():.3f}")
        for rule in (EQUAL, MODEL):
            print(f"  third annotator, gold pooled {rule}: lead cases, annotations, gold W1 to truth [95 %]")
            base_cases = sum(r["third"][rule]["k = 2"][0] for r in runs)
            base_ann = sum(r["third"][rule]["k = 2"][1] for r in runs)
            base_w1 = np.concatenate([r["third"][rule]["k = 2"][2] for r in runs])
            for name in ("k = 2", "k = 3", "adaptive"):
                cases = sum(r["third"][rule][name][0] for r in runs)
                spent = sum(r["third"][rule][name][1] for r in runs)
                vals = np.concatenate([r["third"][rule][name][2] for r in runs])
                m, lo, hi = mean_ci(vals, boot)
                c, clo, chi = change_ci(vals, base_w1, boot)
                print(f"    {name:<9} cases {cases:5d} ({cases / base_cases - 1:+.0%})  annotations {spent:6d} "
                      f"({spent / base_ann - 1:+.1%})  W1 {m:.3f} [{lo:.3f}, {hi:.3f}] ({c:+.1%} [{clo:+.1%}, {chi:+.1%}])")
            cases = sum(r["third"][rule]["adaptive"][0] for r in runs)
            spent = sum(r["third"][rule]["adaptive"][1] for r in runs)
            vals = np.concatenate([r["third"][rule]["adaptive"][2] for r in runs])
            ok = cases <= 0.6 * base_cases and spent <= 1.15 * base_ann and vals.mean() <= base_w1.mean()
            print(f"    adaptive target (≥ 40 % fewer cases, ≤ 15 % more annotations, W1 ≤ k = 2): "
                  f"{'met' if ok else 'NOT met'}")
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
