"""Results of a training run: one row per (model, ablation), the paper-style table, and reading
a past run back from its folder.

The run's ``metrics.json`` holds everything :class:`TrainingResults` has (the configuration,
export id, device, encoder, target scaler, status, one entry per finished row with its metrics,
best grid point, loss curve and artefact paths). It is rewritten after every finished row, so a
run in progress, a cancelled run and a failed run can all be read with :func:`load_run`.
Non-finite numbers are stored as JSON ``null`` and read back as NaN.

This module imports neither torch nor scikit-learn, so pages can show past runs cheaply.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from annotation.publishable import NEEDS

from .ablations import check_ablation
from .config import TrainingConfig
from .data import MIN_SAMPLES_PER_SPLIT
from .errors import RunFolderError

#: metric columns of the results table, in order (see :mod:`annotation.training.metrics`)
METRIC_COLUMNS: tuple[str, ...] = ("mse", "mae", "r2", "spearman", "nll", "curve_nll",
                                   "curve_crps")
#: display labels of the metric columns
METRIC_LABELS: Mapping[str, str] = {
    "mse": "MSE", "mae": "MAE", "r2": "R²", "spearman": "Spearman ρ", "nll": "NLL",
    "curve_nll": "Curve NLL", "curve_crps": "Curve CRPS",
}
METRICS_FILE = "metrics.json"
CONFIG_FILE = "config.json"
#: values of :attr:`TrainingResults.status`
STATUSES: tuple[str, ...] = ("running", "completed", "cancelled", "failed")
#: how the metrics are scaled (stored with every run)
#: why a metric without a value has none, shown beside its "—" (see
#: :func:`annotation.training.metrics.point_metrics`)
UNDEFINED_REASONS: dict[str, str] = {
    "r2": f"needs ≥ {MIN_SAMPLES_PER_SPLIT} test samples whose gold values differ (in every parameter)",
    "spearman": f"needs ≥ {MIN_SAMPLES_PER_SPLIT} test samples whose gold values and predictions both vary",
}
#: the metrics that read a relation across the test samples (a correlation, a share of variance
#: explained): withheld below the rule's minimum of test samples (:func:`metric_withheld`). The error
#: means (MSE, MAE, NLL, the curve scores) describe the samples they average and are shown with
#: their n and interval; ranking on any of them needs the same minimum
#: (:func:`annotation.training.references.ranking_withheld`).
RULED_METRICS: tuple[str, ...] = ("r2", "spearman")


def metric_withheld(name: str, n_test: int) -> str:
    """Why metric ``name`` on ``n_test`` test samples is not shown ("" when it is).

    >>> metric_withheld("spearman", 3)
    '— needs ≥ 30 test samples (n = 3)'
    >>> metric_withheld("spearman", 30), metric_withheld("mse", 3)
    ('', '')
    """
    needs = NEEDS["test_metric"]
    if name in RULED_METRICS and n_test < needs.min_n:
        return f"— {needs.rule} (n = {n_test:,})"
    return ""


METRIC_SCALE_NOTE = ("mse, mae, r2, spearman, nll: z-scored targets (training-split mean/std), "
                     "averaged over location, scale, skewness; curve_nll, curve_crps: original "
                     "log-time units of the export's base, mean over test samples")


@dataclass(frozen=True)
class ResultRow:
    """Test-split results of one model under one ablation.

    Metric columns as in :data:`METRIC_COLUMNS`; ``per_parameter`` maps ``location``/``scale``/
    ``skewness`` to their own mse, mae, r2, spearman, nll and mae_original. ``params`` is the
    grid point chosen on validation (``valid_mse`` its validation MSE, ``valid_nll`` the pooled
    Gaussian NLL of its validation residuals, both on z-scores; NaN in runs recorded before the
    NLL was); ``loss_curve`` holds
    (epoch, train loss, validation loss) per epoch for neural networks (empty otherwise);
    ``artefacts`` maps "weights", "predictions", "loss_curve", ... to paths relative to the run
    folder.
    """

    model: str
    ablation: str
    mse: float
    mae: float
    r2: float
    spearman: float
    nll: float
    curve_nll: float
    curve_crps: float
    per_parameter: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    valid_mse: float = math.nan
    valid_nll: float = math.nan
    best_epoch: int | None = None
    loss_curve: tuple[tuple[int, float, float], ...] = ()
    n_test: int = 0
    n_scale_clipped: int = 0
    fit_seconds: float = 0.0
    artefacts: Mapping[str, str] = field(default_factory=dict)
    #: every figure with its bootstrap interval (:meth:`annotation.training.scoring.ModelScore.to_dict`;
    #: empty in runs recorded before intervals were)
    score: Mapping[str, Any] = field(default_factory=dict)
    #: reference name → :meth:`annotation.training.references.Comparison.to_dict` (empty for a
    #: reference row and in runs recorded before)
    vs_reference: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def metrics(self) -> dict[str, float]:
        """The metric columns as a dict."""
        return {name: getattr(self, name) for name in METRIC_COLUMNS}


@dataclass(frozen=True)
class TrainingResults:
    """Everything a run produced, as read from (and written to) ``metrics.json``."""

    run_dir: Path
    export_id: str
    benchmark: int
    seed: int
    config: TrainingConfig
    status: str
    device: str
    encoder: str
    rows: tuple[ResultRow, ...] = ()
    target_scaler: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    split_sizes: Mapping[str, int] = field(default_factory=dict)
    export_manifest: Mapping[str, Any] = field(default_factory=dict)
    embedding_seconds: float = math.nan
    total_seconds: float = math.nan
    started_at: str | None = None
    finished_at: str | None = None
    error: str | None = None
    #: the trivial references (:mod:`annotation.training.references`), scored as the models are
    references: tuple[ResultRow, ...] = ()
    #: why the test split cannot rank the models ("" when it can; None in runs recorded before)
    ranking: str | None = None

    def row(self, model: str, ablation: str = "none") -> ResultRow:
        """The row of ``model`` under ``ablation`` (KeyError if the run has none)."""
        for row in self.rows:
            if row.model == model and row.ablation == ablation:
                return row
        raise KeyError(f"no result for model {model!r} with ablation {ablation!r}")


def results_table(results: TrainingResults, ablation: str | None = "none") -> pd.DataFrame:
    """The paper-style table: one row per model (index ``model``, in run order), the metric
    columns of :data:`METRIC_COLUMNS` (labels in :data:`METRIC_LABELS`).

    ``ablation`` picks the rows of one ablation (empty table if the run has none yet);
    ``None`` keeps every row, indexed by (model, ablation).
    """
    if ablation is None:
        rows = list(results.rows)
        index = pd.MultiIndex.from_tuples([(r.model, r.ablation) for r in rows],
                                          names=["model", "ablation"])
    else:
        check_ablation(ablation)
        rows = [r for r in results.rows if r.ablation == ablation]
        index = pd.Index([r.model for r in rows], name="model")
    return pd.DataFrame([r.metrics() for r in rows], index=index,
                        columns=list(METRIC_COLUMNS), dtype="float64")


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _finite_or_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(v) for v in value]
    return value


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def row_to_dict(row: ResultRow) -> dict[str, Any]:
    """JSON-ready form of a row (NaN → null)."""
    return _finite_or_none({
        "model": row.model, "ablation": row.ablation, **row.metrics(),
        "per_parameter": row.per_parameter, "params": dict(row.params),
        "valid_mse": row.valid_mse, "valid_nll": row.valid_nll, "best_epoch": row.best_epoch,
        "loss_curve": [list(p) for p in row.loss_curve], "n_test": row.n_test,
        "n_scale_clipped": row.n_scale_clipped, "fit_seconds": row.fit_seconds,
        "artefacts": dict(row.artefacts), "score": dict(row.score),
        "vs_reference": {k: dict(v) for k, v in row.vs_reference.items()},
    })


def row_from_dict(data: Mapping[str, Any]) -> ResultRow:
    """Inverse of :func:`row_to_dict`."""
    return ResultRow(
        model=str(data["model"]), ablation=str(data["ablation"]),
        **{name: _float(data.get(name)) for name in METRIC_COLUMNS},
        per_parameter={p: {k: _float(v) for k, v in m.items()}
                       for p, m in (data.get("per_parameter") or {}).items()},
        params=dict(data.get("params") or {}), valid_mse=_float(data.get("valid_mse")),
        valid_nll=_float(data.get("valid_nll")), best_epoch=data.get("best_epoch"),
        loss_curve=tuple((int(e), _float(t), _float(v))
                         for e, t, v in data.get("loss_curve") or ()),
        n_test=int(data.get("n_test") or 0), n_scale_clipped=int(data.get("n_scale_clipped") or 0),
        fit_seconds=_float(data.get("fit_seconds")), artefacts=dict(data.get("artefacts") or {}),
        score=dict(data.get("score") or {}),
        vs_reference={str(k): dict(v) for k, v in (data.get("vs_reference") or {}).items()},
    )


def results_to_dict(results: TrainingResults) -> dict[str, Any]:
    """JSON-ready form of a run's results (what ``metrics.json`` holds)."""
    return _finite_or_none({
        "status": results.status, "export_id": results.export_id,
        "benchmark": results.benchmark, "seed": results.seed, "device": results.device,
        "encoder": results.encoder, "metric_scale": METRIC_SCALE_NOTE,
        "started_at": results.started_at, "finished_at": results.finished_at,
        "error": results.error, "embedding_seconds": results.embedding_seconds,
        "total_seconds": results.total_seconds, "split_sizes": dict(results.split_sizes),
        "target_scaler": results.target_scaler, "export_manifest": results.export_manifest,
        "config": results.config.to_dict(), "rows": [row_to_dict(r) for r in results.rows],
        "references": [row_to_dict(r) for r in results.references], "ranking": results.ranking,
    })


def results_from_dict(data: Mapping[str, Any], run_dir: str | Path) -> TrainingResults:
    """Inverse of :func:`results_to_dict`."""
    return TrainingResults(
        run_dir=Path(run_dir), export_id=str(data["export_id"]),
        benchmark=int(data["benchmark"]), seed=int(data["seed"]),
        config=TrainingConfig.from_dict(data["config"]), status=str(data["status"]),
        device=str(data.get("device") or ""), encoder=str(data.get("encoder") or ""),
        rows=tuple(row_from_dict(r) for r in data.get("rows") or ()),
        target_scaler=data.get("target_scaler") or {},
        split_sizes={k: int(v) for k, v in (data.get("split_sizes") or {}).items()},
        export_manifest=data.get("export_manifest") or {},
        embedding_seconds=_float(data.get("embedding_seconds")),
        total_seconds=_float(data.get("total_seconds")),
        started_at=data.get("started_at"), finished_at=data.get("finished_at"),
        error=data.get("error"),
        references=tuple(row_from_dict(r) for r in data.get("references") or ()),
        ranking=data.get("ranking"),
    )


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` through a temporary file and a rename, so a reader (the app's
    results view) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, allow_nan=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_results(results: TrainingResults) -> Path:
    """(Re)write ``metrics.json`` of the run folder; returns its path."""
    path = results.run_dir / METRICS_FILE
    write_json_atomic(path, results_to_dict(results))
    return path


def load_run(run_dir: str | Path) -> TrainingResults:
    """Read a run folder's ``metrics.json`` back (any status: running, completed, cancelled,
    failed). Raises :class:`RunFolderError` when the folder holds no readable run."""
    path = Path(run_dir) / METRICS_FILE
    if not path.is_file():
        raise RunFolderError(f"{str(run_dir)!r} holds no training run ({METRICS_FILE} missing)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return results_from_dict(data, run_dir)
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise RunFolderError(f"{path}: not a readable training run ({exc})") from None
