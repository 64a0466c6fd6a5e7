"""``chronocept score EXPORT_DIR PREDICTIONS``: score a model built elsewhere on an export's test
split, with no database — the baselines' metrics and the mean W1 to the gold, each with its
seeded bootstrap interval (:mod:`annotation.training.submissions`). ``--save NAME`` keeps the
score in the export's folder (``EXPORT/scores/``), where the Training page's leaderboard shows it
beside the baselines; ``--json`` prints the document that is (or would be) kept.

A context-pairs export (one with the ``tvcp`` configuration) is recognised by its folder: the file
then holds predicted change labels (``_id``, ``change``) for its test pairs, scored by accuracy and
exact match (:mod:`annotation.training.change_scoring`); ``--benchmark`` does not apply.
"""

from __future__ import annotations

import argparse
import getpass
import json
import math
from datetime import datetime, timezone
from pathlib import Path

from cli.output import CliError


def _who() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):   # no login name in this environment
        return "unknown"


def _change_lines(scored, score) -> list[str]:  # type: ignore[no-untyped-def]
    """The report of a change-label score (a context-pairs export's tvcp test split)."""
    from annotation.training.change_scoring import CHANGE_METRIC_LABELS, CHANGE_METRICS

    lines = [f"export {scored.export_id} · change labels (tvcp) · {score.n_test} test pairs · "
             f"{100 * score.confidence:g}% bootstrap intervals over the targets "
             f"({score.resamples} resamples, seed {score.seed})",
             "accuracy over the test pairs; exact match over the test targets (all of a target's "
             "follow-ups right)"]
    lines += _figure_lines(score, CHANGE_METRICS, CHANGE_METRIC_LABELS)
    lines += [f"— {CHANGE_METRIC_LABELS[name]}: no interval, {score.figures[name].no_interval}"
              for name in CHANGE_METRICS
              if math.isfinite(score.figures[name].value) and score.figures[name].no_interval]
    return lines


def _figure_lines(score, names, labels) -> list[str]:  # type: ignore[no-untyped-def]
    """A score's figures as the report's table rows, then why any of them is undefined."""
    from annotation.training.scoring import figure_text

    lines = [f"  {labels[name]:<12} {figure_text(score.figures[name])}" for name in names]
    return lines + [f"— {labels[name]}: undefined, {score.figures[name].undefined}" for name in names
                    if not math.isfinite(score.figures[name].value)]


def _reference_lines(scored) -> list[str]:  # type: ignore[no-untyped-def]
    """The trivial references on the same test split, the file against each, and whether the
    split is large enough to rank models on (:mod:`annotation.training.references`)."""
    from annotation.training.references import REFERENCE_LABELS, ranking_withheld
    from annotation.training.scoring import SCORE_LABELS, figure_text

    if not scored.references:
        return []
    lines = ["references on the same test split (no text: the training split's mean curve; the mean "
             "curve of the training samples sharing each axis):"]
    for name, ref in scored.references.items():
        lines.append(f"  {REFERENCE_LABELS[name]}: " + " · ".join(
            f"{SCORE_LABELS[m]} {figure_text(ref.figures[m])}" for m in ("mse", "mae", "curve_nll", "w1")))
    words = list(dict.fromkeys(c.words() for c in scored.vs_reference.values()))  # "not compared" once
    lines.append("this file against them (MSE difference on the same samples, 95 % bootstrap interval): "
                 + "; ".join(words))
    n_test = scored.score.n_test
    withheld = ranking_withheld(n_test, 0.1)
    if withheld:
        lines.append(f"{withheld.removeprefix('not ranked: ')}: the figures describe these samples and "
                     "rank nothing")
    return lines


def cmd_score(_db: None, args: argparse.Namespace) -> str:
    from annotation.training.errors import TrainingInputError
    from annotation.training.scoring import SCORE_LABELS, SCORE_METRICS, ModelScore
    from annotation.training.submissions import (
        MAX_PREDICTION_BYTES,
        PredictionFileError,
        score_export,
        submission_record,
        write_submission,
    )
    from annotation.training.change_scoring import is_tvcp_export, score_tvcp_export

    path = Path(args.predictions)
    if not path.is_file():
        raise CliError(f"{path}: no such file")
    if path.stat().st_size > MAX_PREDICTION_BYTES:   # before reading it
        raise CliError(f"{path.name}: the file is larger than {MAX_PREDICTION_BYTES // 2**20} MB; "
                       "nothing was scored")
    data = path.read_bytes()
    tvcp = is_tvcp_export(args.export_dir)   # a context-pairs export: its change labels are scored
    try:
        scored = (score_tvcp_export(args.export_dir, data, path.name) if tvcp else
                  score_export(args.export_dir, data, path.name, args.benchmark))
        record = submission_record(scored, name=args.save or path.name[:80], submitted_by=_who(),
                                   file_name=path.name, via="command line", when=datetime.now(timezone.utc))
    except PredictionFileError as exc:
        raise CliError(f"{path.name}: {exc}; nothing was scored") from None
    except TrainingInputError as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:   # the name given to --save
        raise CliError(f"--save: {exc}") from None
    kept = write_submission(args.export_dir, record) if args.save else None
    if args.json:
        references = {"references": {k: v.to_dict() for k, v in scored.references.items()},
                      "vs_reference": {k: v.to_dict() for k, v in scored.vs_reference.items()}} if not tvcp else {}
        return json.dumps({**record, **references, "kept": str(kept) if kept else None}, indent=2,
                          ensure_ascii=False)
    score: ModelScore = scored.score
    if tvcp:
        return "\n".join(_change_lines(scored, score) + ([f"kept as {kept}"] if kept else []))
    lines = [f"export {scored.export_id} · benchmark {scored.benchmark} · {score.n_test} test samples · "
             f"base {scored.base:g} · {100 * score.confidence:g}% bootstrap intervals "
             f"({score.resamples} resamples, seed {score.seed})",
             "point metrics on z-scored targets (training-split mean/SD), mean over location/scale/"
             "skewness; curve scores and W1 in log-time units of the export's base"]
    lines += _figure_lines(score, SCORE_METRICS, SCORE_LABELS)
    no_interval = {f.no_interval for f in score.figures.values()
                   if math.isfinite(f.value) and f.no_interval}
    lines += [f"— no interval: {why}" for why in sorted(no_interval)]
    lines += _reference_lines(scored)
    if score.n_scale_clipped:
        lines.append(f"{score.n_scale_clipped} predicted ω below the training split's smallest were "
                     "raised to it for the curve scores (as for the baselines)")
    if kept:
        lines.append(f"kept as {kept}")
    return "\n".join(lines)
