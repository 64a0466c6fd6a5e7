"""Scoring predicted change labels on the test split of a context-pairs (``tvcp``) export, by the
two metrics of Wenzel & Jatowt's Temporal Validity Change Prediction paper:

* **accuracy** — the share of test pairs whose predicted change is the gold one;
* **exact match** — the share of test *targets* all of whose follow-ups are predicted right.

**The file.** JSON Lines (``.jsonl``, ``.ndjson``, ``.json``) or CSV (``.csv``), UTF-8, one line per
test pair::

    {"_id": "P-007-inc", "change": "increased"}

    _id,change
    P-007-inc,increased

``change`` is a label (decreased, neutral, increased) or its index in the TVCP reader's label map
(0, 1, 2). The whole file is refused — one line, naming the line and the reason — as a curve
predictions file is (:mod:`annotation.training.submissions`): an unknown extension, no lines, too
large, not UTF-8, other columns, a missing, unknown (not in the test split) or repeated ``_id``,
and a label that is none of those.

**Intervals.** A percentile bootstrap over the test *targets* (all follow-ups of a drawn target
come with it, since they are not independent; the export keeps a target in one split), seeded, as
the curve scores' are; none on fewer than :data:`MIN_INTERVAL_TARGETS` targets.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from annotation.agreement.intervals import DEFAULT_SEED, SumStatistic, bootstrap_intervals, default_resamples
from annotation.pairs.change import CHANGE_LABELS

from .data import read_manifest
from .errors import ExportFormatError, NotEnoughSamplesError
from .scoring import CONFIDENCE, Figure, ModelScore
from .submissions import PredictionFileError, ScoredFile, _shown_id, prediction_rows

#: the "benchmark" of a change-label score (its kept document and leaderboard)
TVCP = "tvcp"
#: the figures of a change-label score, in table order, and their labels
CHANGE_METRICS: tuple[str, ...] = ("accuracy", "exact_match")
CHANGE_METRIC_LABELS: Mapping[str, str] = {"accuracy": "Accuracy", "exact_match": "Exact match"}
#: fewest test targets an interval is given for
MIN_INTERVAL_TARGETS = 10
NO_INTERVAL_FEW_TARGETS = f"a bootstrap interval needs ≥ {MIN_INTERVAL_TARGETS} test targets"
NO_PAIRS = "no test pair to score"
_COLUMNS = ("_id", "change")
_TEST_FILE = Path(TVCP) / "test.json"


@dataclass(frozen=True)
class ChangePredictions:
    """The predictions of a file: pair ids, label indices (0 decreased, 1 neutral, 2 increased)
    and the line each came from, in the file's order."""

    ids: tuple[str, ...]
    labels: tuple[int, ...]
    lines: tuple[int, ...]


def change_label_index(value: object, line: int) -> int:
    """The index of a predicted change: a label or its index (an integer or digits).

    Examples:
        >>> change_label_index("increased", 1), change_label_index(0, 1), change_label_index(" 1 ", 1)
        (2, 0, 1)
        >>> change_label_index("up", 4)
        Traceback (most recent call last):
        ...
        annotation.training.submissions.PredictionFileError: line 4: change must be one of decreased, neutral, increased (or 0, 1, 2), got 'up'
    """
    if isinstance(value, str):
        text = value.strip()
        if text in CHANGE_LABELS:
            return CHANGE_LABELS.index(text)
        if text in ("0", "1", "2"):
            return int(text)
    elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(CHANGE_LABELS):
        return value
    raise PredictionFileError(line, f"change must be one of {', '.join(CHANGE_LABELS)} (or 0, 1, 2), "
                                    f"got {_shown_id(value)}")


def parse_change_predictions(data: bytes, filename: str) -> ChangePredictions:
    """Read a change predictions file (module docstring); raises :class:`PredictionFileError`
    on the first problem, so nothing of a bad file is used.

    Examples:
        >>> parse_change_predictions(b"_id,change\\na,increased\\nb,0\\n", "p.csv").labels
        (2, 0)
        >>> parse_change_predictions(b'{"_id": "a", "change": "neutral"}\\n{"_id": "a", "change": 1}', "p.jsonl")
        Traceback (most recent call last):
        ...
        annotation.training.submissions.PredictionFileError: line 2: _id 'a' also appears on line 1
    """
    ids: list[str] = []
    labels: list[int] = []
    lines: list[int] = []
    for line, pair_id, (raw_change,) in prediction_rows(data, filename, _columns_of):
        ids.append(pair_id)
        labels.append(change_label_index(raw_change, line))
        lines.append(line)
    if not ids:
        raise PredictionFileError(0, "the file holds no predictions")
    return ChangePredictions(tuple(ids), tuple(labels), tuple(lines))


def _columns_of(columns: Sequence[str]) -> tuple[str, ...] | str:
    if sorted(columns) == sorted(_COLUMNS):
        return ("change",)
    shown = ", ".join(repr(c[:40]) for c in list(columns)[:10]) + (", …" if len(columns) > 10 else "")
    return f"the columns must be _id, change; got {shown or 'none'}"


def align_changes(predictions: ChangePredictions, test_ids: Sequence[str]) -> np.ndarray:
    """The predicted label indices in the order of ``test_ids``; refuses an id not in the test
    split and a test pair without a prediction.

    Examples:
        >>> p = parse_change_predictions(b"_id,change\\nb,neutral\\na,decreased\\n", "p.csv")
        >>> align_changes(p, ["a", "b"]).tolist()
        [0, 1]
        >>> align_changes(p, ["a"])
        Traceback (most recent call last):
        ...
        annotation.training.submissions.PredictionFileError: line 2: _id 'b' is not in the test split
    """
    index = {pair_id: i for i, pair_id in enumerate(test_ids)}
    out = np.full(len(index), -1, dtype=np.int64)
    for pair_id, label, line in zip(predictions.ids, predictions.labels, predictions.lines):
        if pair_id not in index:
            raise PredictionFileError(line, f"_id {_shown_id(pair_id)} is not in the test split")
        out[index[pair_id]] = label
    missing = [pair_id for pair_id, i in index.items() if out[i] < 0]
    if missing:
        many = "s have" if len(missing) > 1 else " has"
        raise PredictionFileError(0, f"{len(missing)} test pair{many} no prediction (the first: {_shown_id(missing[0])})")
    return out


def score_changes(gold: Sequence[int], predicted: Sequence[int], targets: Sequence[str], *,
                  resamples: int | None = None, seed: int = DEFAULT_SEED,
                  confidence: float = CONFIDENCE) -> ModelScore:
    """Accuracy over the pairs and exact match over the targets (module docstring) of
    ``predicted`` against ``gold`` label indices, ``targets[i]`` the target of pair i; each with
    its bootstrap interval over the targets.

    Examples:
        >>> s = score_changes([2, 1, 0, 1], [2, 1, 0, 0], ["t1", "t1", "t1", "t2"])
        >>> s.figures["accuracy"].value, s.figures["exact_match"].value, s.n_test
        (0.75, 0.5, 4)
        >>> s.figures["accuracy"].no_interval == NO_INTERVAL_FEW_TARGETS
        True
        >>> score_changes([], [], []).figures["accuracy"].undefined
        'no test pair to score'
    """
    g = np.asarray(gold, dtype=np.int64)
    p = np.asarray(predicted, dtype=np.int64)
    if g.shape != p.shape or len(targets) != g.size:
        raise ValueError("gold, predictions and targets must have the same length")
    order = sorted(set(targets))
    position = {t: i for i, t in enumerate(order)}
    n = len(order)
    # per target: right pairs, pairs, and whether all of its pairs are right
    right = np.zeros(n)
    pairs = np.zeros(n)
    for target, ok in zip(targets, g == p):
        right[position[target]] += float(ok)
        pairs[position[target]] += 1.0
    all_right = (right == pairs).astype(float)
    statistics = {
        "accuracy": SumStatistic(np.column_stack([right, pairs]), _ratio),
        "exact_match": SumStatistic(np.column_stack([all_right, np.ones(n)]), _ratio),
    }
    few = n < MIN_INTERVAL_TARGETS
    intervals = {} if few or n == 0 else bootstrap_intervals(statistics, n, resamples=resamples, seed=seed,
                                                              confidence=confidence)
    figures = {}
    for name, statistic in statistics.items():
        value = statistic.value() if n else math.nan
        if not math.isfinite(value):
            figures[name] = Figure(math.nan, undefined=NO_PAIRS, no_interval="no interval for an undefined figure")
        elif few:
            figures[name] = Figure(value, no_interval=NO_INTERVAL_FEW_TARGETS)
        else:
            low, high = intervals[name]
            figures[name] = Figure(value, low, high)
    used = 0 if few else default_resamples(n) if resamples is None else int(resamples)
    return ModelScore(figures=figures, n_test=int(g.size), resamples=used, seed=seed, confidence=confidence)


def _ratio(sums: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, 0] / sums[:, 1]


def is_tvcp_export(export_dir: str | Path) -> bool:
    """Whether the folder is a context-pairs export (it has the ``tvcp`` configuration).

    Examples:
        >>> import tempfile
        >>> is_tvcp_export(tempfile.mkdtemp())
        False
    """
    return (Path(export_dir) / _TEST_FILE).is_file()


def score_tvcp_export(export_dir: str | Path, data: bytes, filename: str, *,
                      resamples: int | None = None) -> ScoredFile:
    """Read and check a change predictions file, then score it against the ``tvcp`` test split
    of the export in ``export_dir``. Raises :class:`PredictionFileError` for the file and a
    :class:`~annotation.training.errors.TrainingInputError` for the export.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "export.json").write_text('{"export_id": "e1"}')
        >>> score_tvcp_export(folder, b"_id,change\\na,neutral\\n", "p.csv")
        Traceback (most recent call last):
        ...
        annotation.training.errors.ExportFormatError: export 'e1' has no tvcp configuration (change labels are scored on a context-pairs export)
    """
    manifest = read_manifest(export_dir)
    path = Path(export_dir) / _TEST_FILE
    if not path.is_file():
        raise ExportFormatError(f"export {manifest.export_id!r} has no {TVCP} configuration "
                                "(change labels are scored on a context-pairs export)")
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        test = [(str(r["_id"]), str(r["target_id"]), CHANGE_LABELS.index(r["change"])) for r in rows]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise ExportFormatError(f"{path}: not a tvcp split file ({exc})") from None
    if not test:
        raise NotEnoughSamplesError(f"the {TVCP} test split of export {manifest.export_id!r} is empty; "
                                    "scoring needs at least one test pair")
    predicted = align_changes(parse_change_predictions(data, filename), [t[0] for t in test])
    score = score_changes([t[2] for t in test], predicted.tolist(), [t[1] for t in test], resamples=resamples)
    return ScoredFile(manifest.export_id, manifest.base, TVCP, hashlib.sha256(data).hexdigest(), score)  # type: ignore[arg-type]


__all__ = ["CHANGE_METRICS", "CHANGE_METRIC_LABELS", "ChangePredictions", "MIN_INTERVAL_TARGETS", "TVCP",
           "align_changes", "change_label_index", "is_tvcp_export", "parse_change_predictions",
           "score_changes", "score_tvcp_export"]
