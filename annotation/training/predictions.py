"""The test predictions a training job keeps, and the one key format that names each series.

A job's stored result (:func:`stored_result`) holds, beside the metrics, a sample of each result
row's test predictions under the key ``"<model>__<ablation>"``; :func:`prediction_series` reads
them back as :class:`PredictionSeries`, so nothing outside this module builds or splits that key.
Like :mod:`annotation.training.results`, this module imports neither torch nor scikit-learn.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

#: predictions kept per model in the job's result, for the scatter plots
MAX_PREDICTIONS = 2000
_SEPARATOR = "__"


def prediction_key(model: str, ablation: str) -> str:
    """The key of one (model, ablation) series in a stored result.

    Examples:
        >>> prediction_key("linear", "no_axes")
        'linear__no_axes'
    """
    return f"{model}{_SEPARATOR}{ablation}"


def parse_prediction_key(key: str) -> tuple[str, str]:
    """``(model, ablation)`` of a key made by :func:`prediction_key` (ablation "" when absent).

    Examples:
        >>> parse_prediction_key("linear__no_axes")
        ('linear', 'no_axes')
    """
    model, _, ablation = key.partition(_SEPARATOR)
    return model, ablation


@dataclass(frozen=True)
class PredictionSeries:
    """The kept test predictions of one model under one ablation: rows with ``<target>_gold``
    and ``<target>_pred`` values (and the sample's ``_id``)."""

    key: str
    model: str
    ablation: str
    rows: tuple[Mapping[str, Any], ...]


def prediction_series(predictions: Mapping[str, Any]) -> list[PredictionSeries]:
    """The series of a stored result's ``predictions`` mapping, in stored order.

    Examples:
        >>> [(p.model, p.ablation, len(p.rows)) for p in prediction_series({"mean__none": [{}]})]
        [('mean', 'none', 1)]
    """
    return [PredictionSeries(key, *parse_prediction_key(key), tuple(rows))
            for key, rows in predictions.items()]


def stored_result(results, max_predictions: int = MAX_PREDICTIONS) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """What a job keeps of a run (``results``: a :class:`~annotation.training.results.TrainingResults`),
    so its page can be shown even when the run folder is on another machine: metrics, loss curves
    and at most about ``max_predictions`` test predictions per result row (every n-th one)."""
    from annotation.training.results import results_to_dict

    data = results_to_dict(results)
    predictions: dict[str, list[dict[str, Any]]] = {}
    for row in results.rows:
        rel = row.artefacts.get("predictions")
        if not rel:
            continue
        path = Path(results.run_dir, rel)
        try:
            with path.open(newline="", encoding="utf-8") as handle:
                rows = list(csv.DictReader(handle))
        except OSError:
            continue
        step = max(1, len(rows) // max_predictions)
        predictions[prediction_key(row.model, row.ablation)] = [
            {k: (v if k == "_id" else float(v)) for k, v in r.items()} for r in rows[::step]]
    data["predictions"] = predictions
    return data
