"""What ``chronocept train`` prints of a finished run: the paper-style table with the trivial
references beside the models (:mod:`annotation.training.references`), how each model reads
against them on an interval, and the ranking — or why the test split cannot rank."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from annotation.training import METRIC_LABELS, UNDEFINED_REASONS, results_table
from annotation.training.references import REFERENCE_LABELS, comparison_lines, ranked
from annotation.training.results import METRIC_COLUMNS, TrainingResults, metric_withheld


def row_label(row) -> str:  # type: ignore[no-untyped-def]
    """A row as the report names it: the model, and its inputs unless they are the full ones."""
    if row.model in REFERENCE_LABELS:
        return REFERENCE_LABELS[row.model]
    return row.model if row.ablation == "none" else f"{row.model} ({row.ablation})"


def baselines_report(results: TrainingResults, run_dir: Path) -> str:
    """The whole report (module docstring)."""
    table = results_table(results, ablation=None)
    if results.references:
        references = pd.DataFrame([r.metrics() for r in results.references], columns=list(METRIC_COLUMNS),
                                  index=pd.MultiIndex.from_tuples([(REFERENCE_LABELS[r.model], "—")
                                                                   for r in results.references],
                                                                  names=["model", "ablation"]), dtype="float64")
        table = pd.concat([table, references])
    n_test = max([r.n_test for r in results.rows] or [int(results.split_sizes.get("test") or 0)])
    header = (f"export {results.export_id} · benchmark {results.benchmark} · {n_test:,} test samples · "
              f"{results.encoder} on {results.device} · {results.total_seconds:.1f} s · run folder {run_dir}\n"
              "metrics on the test split (z-scored targets, mean over location/scale/skewness; "
              "curve scores in log-time units); the references use no text: the training split's "
              "mean curve, and the mean curve of the training samples sharing each axis")
    withheld = {c: why for c in METRIC_COLUMNS if (why := metric_withheld(c, n_test))}
    for column in withheld:
        table[column] = float("nan")
    lines = [header, table.to_string(float_format=lambda v: f"{v:.4f}", na_rep="—")]
    lines += [f"— {METRIC_LABELS[c]}: withheld, {why.removeprefix('— ')}" for c, why in withheld.items()]
    undefined = [c for c in table.columns if table[c].isna().any() and c not in withheld]
    lines += [f"— {METRIC_LABELS[c]}: undefined, {UNDEFINED_REASONS.get(c, 'cannot be computed on these samples')}"
              for c in undefined]
    compared = comparison_lines(results.rows, row_label)
    if compared:
        lines += ["against the references (MSE difference on the same test samples, 95 % bootstrap interval):",
                  *compared]
    if results.ranking:
        lines.append(results.ranking)
    elif results.ranking is not None and results.rows:
        lines.append("ranked by the upper end of each model's MSE interval (not its point value): "
                     + ", ".join(f"{i}. {row_label(r)}" for i, r in enumerate(ranked(results.rows), start=1)))
    return "\n".join(lines)


__all__ = ["baselines_report", "row_label"]
