"""Training benchmark: every baseline end to end on a generated 1,300-sample export (SPEC §8).

Writes a synthetic export (:func:`annotation.training.write_synthetic_export`) with ``--n``
samples (70/20/10 split), then runs :func:`annotation.training.run_training` with all five
baselines (linear, SVR, xgboost, FFNN, Bi-LSTM), ablation "none", the default grids and the
SBERT encoder on the CPU (``--device`` to change). Prints the SBERT load time, the embedding time
(reported apart from training), each model's training time (grid search included), the total,
and the paper-style results table. Seeded, so runs are comparable.

    python bench/training.py [--n 1300] [--seed 13] [--encoder sbert|hashing]
                             [--models linear svr xgboost ffnn bilstm] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.training import (  # noqa: E402
    BASELINE_MODELS,
    TrainingConfig,
    results_table,
    run_training,
    write_synthetic_export,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1300, help="samples in the generated export")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--encoder", choices=("sbert", "hashing"), default="sbert")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu")
    parser.add_argument("--models", nargs="+", default=list(BASELINE_MODELS))
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the export and run folder here instead of a temporary folder")
    args = parser.parse_args(argv)

    if args.keep is not None:
        return run(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="bench-training-") as folder:
        return run(args, Path(folder))


def run(args: argparse.Namespace, work: Path) -> int:
    """Generate the export under ``work``, train, print the figures."""
    import torch

    export = write_synthetic_export(work / "export", args.n, seed=args.seed)
    config = TrainingConfig(models=tuple(args.models), encoder=args.encoder, device=args.device,
                            seed=args.seed)
    print(f"export: {args.n} samples (synthetic), encoder {args.encoder}, device {args.device}, "
          f"torch threads {torch.get_num_threads()}")

    load_seconds = 0.0
    if args.encoder == "sbert":
        from annotation.corpus.embeddings import load_sbert

        started = time.perf_counter()
        load_sbert("cuda" if args.device == "cuda" else "cpu")
        load_seconds = time.perf_counter() - started

    started = time.perf_counter()
    results = run_training(export, work / "run", config)
    total = time.perf_counter() - started

    print(f"SBERT model load:        {load_seconds:8.2f} s")
    print(f"embedding (9 texts/sample, {sum(results.split_sizes.values())} samples): "
          f"{results.embedding_seconds:8.2f} s")
    for row in results.rows:
        epochs = f", best epoch {row.best_epoch} of {len(row.loss_curve)}" if row.loss_curve else ""
        print(f"train {row.model:<8} {row.fit_seconds:8.2f} s   chosen {dict(row.params)}{epochs}")
    training = sum(row.fit_seconds for row in results.rows)
    print(f"training, all models:    {training:8.2f} s")
    print(f"end to end (run_training, embedding + training + scoring + saving): {total:8.2f} s")
    print()
    print("test split (point metrics on z-scores, curve scores in log-time steps):")
    print(results_table(results).round(4).to_string())
    if args.keep is not None:
        print(f"\nrun folder: {results.run_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
