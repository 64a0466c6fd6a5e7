"""One entry point for training the baselines on an export: :func:`run_training`.

Used by the app's job runner and by ``chronocept train``. It reads the export, embeds the texts
(cached per export and encoder when a cache folder is given), z-scores the targets with the
training split's statistics, and for every (ablation, model) grid-searches the model on the
validation split, scores the chosen one on the test split and saves it. Everything goes into one
run folder::

    RUN/config.json                       the TrainingConfig (complete grids) — rerunnable
    RUN/metrics.json                      status, export id, seed, device, encoder, target
                                          scaler, split sizes, one row per (model, ablation)
                                          (test metrics, validation MSE and NLL)
    RUN/training.log                      the log lines
    RUN/models/<model>__<ablation>/       weights (model.joblib | model.json | model.pt +
                                          architecture.json | mean.json), params.json (chosen
                                          grid point), grid_search.json (every point's
                                          validation MSE), loss_curve.csv (neural networks)
    RUN/predictions/<model>__<ablation>.csv   test split: _id, <param>_gold, <param>_pred per
                                          parameter, original units

``metrics.json`` is rewritten after every finished row; its ``status`` is "running", then
"completed", or "cancelled" (``should_stop()`` returned true: :class:`TrainingCancelled` is
raised) or "failed" (the exception is re-raised, its message stored in ``error``).
"""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from .ablations import apply_ablation
from .config import TrainingConfig
from .data import SPLITS, TARGET_KEYS, load_split_records, read_manifest
from .device import resolve_device, seed_everything
from .encoders import TextEncoder, make_encoder
from .errors import RunFolderError, TrainingCancelled
from .results import (
    CONFIG_FILE,
    METRICS_FILE,
    ResultRow,
    TrainingResults,
    write_json_atomic,
    write_results,
)
from .references import REFERENCE_LABELS, compare_mse, ranking_withheld, reference_predictions
from .targets import fit_target_scaler

Progress = Callable[[float, str], None]

#: share of the progress bar given to loading and embedding
_EMBED_SHARE = (0.02, 0.2)
#: rough relative cost of one model, to spread the rest of the progress bar
_MODEL_WEIGHT = {"mean": 0.05, "linear": 1.0, "svr": 2.0, "xgboost": 3.0, "ffnn": 2.0,
                 "bilstm": 4.0}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Reporter:
    """Progress (monotone, clamped to [0, 1]), log lines (to the callback and training.log),
    and the cancellation check."""

    def __init__(self, progress: Progress | None, log: Callable[[str], None] | None,
                 should_stop: Callable[[], bool] | None) -> None:
        self._progress, self._log, self.should_stop = progress, log, should_stop
        self._done = 0.0
        self._sent, self._sent_message = -1.0, ""
        self._log_file: Path | None = None

    def attach_log_file(self, path: Path) -> None:
        self._log_file = path

    def progress(self, fraction: float, message: str) -> None:
        # forwarded only when the message changes or the bar moves by >= 1 %, so a caller that
        # writes progress to a database is not called once per boosting round
        self._done = max(self._done, min(max(fraction, 0.0), 1.0))
        if self._progress is None:
            return
        if (message != self._sent_message or self._done - self._sent >= 0.01
                or (self._done == 1.0 and self._sent < 1.0)):
            self._sent, self._sent_message = self._done, message
            self._progress(self._done, message)

    def log(self, line: str) -> None:
        if self._log_file is not None:
            with self._log_file.open("a", encoding="utf-8") as handle:
                handle.write(f"{_now()} {line}\n")
        if self._log is not None:
            self._log(line)

    def check_stop(self, where: str) -> None:
        if self.should_stop is not None and self.should_stop():
            raise TrainingCancelled(f"cancelled {where}")


def _targets(samples) -> np.ndarray:
    return np.array([s.targets for s in samples], dtype=np.float64).reshape(-1, len(TARGET_KEYS))


def _write_predictions(path: Path, ids: list[str], gold: np.ndarray, pred: np.ndarray) -> None:
    import pandas as pd

    columns: dict[str, object] = {"_id": ids}
    for j, key in enumerate(TARGET_KEYS):
        columns[f"{key}_gold"] = gold[:, j]
        columns[f"{key}_pred"] = pred[:, j]
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(columns).to_csv(path, index=False)


def _write_loss_curve(path: Path, history) -> None:
    lines = ["epoch,train_loss,valid_loss"]
    lines += [f"{h.epoch},{h.train_loss!r},{h.valid_loss!r}" for h in history]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_training(export_dir: str | Path, run_dir: str | Path,
                 config: TrainingConfig = TrainingConfig(), *,
                 progress: Progress | None = None,
                 log: Callable[[str], None] | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 cache_dir: str | Path | None = None,
                 encoder: TextEncoder | None = None) -> TrainingResults:
    """Train and evaluate the configured baselines on ``export_dir``; write ``run_dir``.

    ``progress(fraction, message)`` gets a non-decreasing fraction in [0, 1]; ``log(line)``
    one line per step and grid point; ``should_stop()`` is polled between steps, grid points,
    epochs and boosting rounds — when it returns true, :class:`TrainingCancelled` is raised
    and ``metrics.json`` says "cancelled". ``cache_dir`` enables the embedding cache.
    ``encoder`` overrides ``config.encoder`` with any :class:`TextEncoder` (its name is
    recorded).

    Input problems raise before anything is written: :class:`ExportNotFoundError`,
    :class:`ExportFormatError`, :class:`NotEnoughSamplesError`, :class:`DeviceUnavailableError`,
    and :class:`RunFolderError` when ``run_dir`` already holds a run.
    """
    import torch

    from .features import embed_splits
    from .metrics import pooled_gaussian_nll
    from .models import fit_model
    from .networks import NetworkSettings

    started = time.perf_counter()
    threads_before = torch.get_num_threads()
    reporter = _Reporter(progress, log, should_stop)
    run_dir = Path(run_dir)
    manifest = read_manifest(export_dir)
    splits = load_split_records(export_dir, config.benchmark)
    device = resolve_device(config.device)
    if (run_dir / METRICS_FILE).exists():
        raise RunFolderError(f"{str(run_dir)!r} already holds a training run; use a new folder")
    run_dir.mkdir(parents=True, exist_ok=True)
    reporter.attach_log_file(run_dir / "training.log")
    (run_dir / CONFIG_FILE).write_text(config.to_json(), encoding="utf-8")

    encoder = encoder if encoder is not None else make_encoder(config.encoder, device)
    results = TrainingResults(
        run_dir=run_dir, export_id=manifest.export_id, benchmark=config.benchmark,
        seed=config.seed, config=config, status="running", device=device,
        encoder=encoder.name, split_sizes={s: len(splits[s]) for s in SPLITS},
        export_manifest=dict(manifest.raw), started_at=_now())
    write_results(results)

    def finish(status: str, error: str | None = None) -> TrainingResults:
        final = dataclasses.replace(results, status=status, error=error, finished_at=_now(),
                                    total_seconds=time.perf_counter() - started)
        write_results(final)
        return final

    try:
        reporter.log(f"export {manifest.export_id!r}, benchmark {config.benchmark}: "
                     + ", ".join(f"{s} {len(splits[s])}" for s in SPLITS)
                     + f"; device {device}; encoder {encoder.name}; seed {config.seed}")
        reporter.progress(_EMBED_SHARE[0], "embedding texts")
        seed_everything(config.seed)

        def on_embed(done: int, total: int) -> None:
            share = done / total if total else 1.0
            reporter.progress(_EMBED_SHARE[0] + share * (_EMBED_SHARE[1] - _EMBED_SHARE[0]),
                              f"embedding texts ({done}/{total})")

        embedded = embed_splits(splits, encoder, cache_dir=cache_dir,
                                export_id=manifest.export_id, progress=on_embed,
                                should_stop=should_stop)
        reporter.log(f"embedded {embedded.n_unique_texts} distinct texts in "
                     f"{embedded.seconds:.1f} s" + (" (cache hit)" if embedded.cache_hit else ""))
        results = dataclasses.replace(results, embedding_seconds=embedded.seconds)

        gold = {s: _targets(splits[s]) for s in SPLITS}
        scaler = fit_target_scaler(gold["train"])   # training split only — never per split
        z = {s: scaler.transform(gold[s]) for s in SPLITS}
        min_scale = float(gold["train"][:, 1].min())
        # the trivial references, scored as every model is; the split decides whether models rank
        references = reference_predictions(gold["train"], [s.axes for s in splits["train"]],
                                           [s.axes for s in splits["test"]])
        z_references = {name: scaler.transform(pred) for name, pred in references.items()}
        n_total = sum(len(splits[s]) for s in SPLITS)
        reference_rows = tuple(
            _scored_row(name, "none", gold, z, pred, z_references[name], min_scale, manifest.base, {})
            for name, pred in references.items())
        for row in reference_rows:
            reporter.log(f"{REFERENCE_LABELS[row.model]}: test MSE {row.mse:.4f}, MAE {row.mae:.4f}, "
                         f"curve NLL {row.curve_nll:.3f}")
        ranking = ranking_withheld(len(splits["test"]), len(splits["test"]) / n_total)
        if ranking:
            reporter.log(ranking)
        results = dataclasses.replace(results, target_scaler=scaler.to_dict(), references=reference_rows,
                                      ranking=ranking)
        write_results(results)

        settings = NetworkSettings(max_epochs=config.max_epochs, patience=config.patience,
                                   batch_size=config.batch_size)
        if config.torch_threads:
            torch.set_num_threads(config.torch_threads)
        units = [(a, m) for a in config.ablations for m in config.models]
        weights = [_MODEL_WEIGHT.get(m, 1.0) for _, m in units]
        total_weight = sum(weights)
        done_weight = 0.0
        for (ablation, model), weight in zip(units, weights):
            reporter.check_stop(f"before {model} ({ablation})")
            low = _EMBED_SHARE[1] + (1 - _EMBED_SHARE[1]) * done_weight / total_weight
            span = (1 - _EMBED_SHARE[1]) * weight / total_weight
            label = f"{model} ({ablation})"
            reporter.progress(low, f"training {label}")
            rng = np.random.default_rng([config.seed, config.ablations.index(ablation)])
            inputs = {s: apply_ablation(embedded.features[s], ablation, split=s, rng=rng)
                      for s in SPLITS}
            fitted = fit_model(
                model, (inputs["train"], z["train"]), (inputs["validation"], z["validation"]),
                grid=config.grids.get(model), device=device, seed=config.seed,
                settings=settings, should_stop=should_stop,
                progress=lambda f, low=low, span=span, label=label: reporter.progress(
                    low + span * f, f"training {label}"),
                log=reporter.log)

            # the validation NLL of the chosen grid point: what picks the run's best model for
            # the model in the loop (annotation.training.ensemble.best_model_of_run)
            valid_nll = pooled_gaussian_nll(z["validation"] - fitted.predict(inputs["validation"]))
            z_pred = fitted.predict(inputs["test"])
            pred = scaler.inverse_transform(z_pred)
            scored = _scored_row(model, ablation, gold, z, pred, z_pred, min_scale, manifest.base, z_references)

            name = f"{model}__{ablation}"
            folder = run_dir / "models" / name
            artefacts = {kind: f"models/{name}/{file}"
                         for kind, file in fitted.save(folder).items()}
            write_json_atomic(folder / "params.json", dict(fitted.params))
            write_json_atomic(folder / "grid_search.json", [
                {"params": dict(g.params),
                 "valid_mse": g.valid_mse if np.isfinite(g.valid_mse) else None,
                 "best_epoch": g.best_epoch, "seconds": g.seconds} for g in fitted.grid_scores])
            artefacts["params"] = f"models/{name}/params.json"
            artefacts["grid_search"] = f"models/{name}/grid_search.json"
            if fitted.history:
                _write_loss_curve(folder / "loss_curve.csv", fitted.history)
                artefacts["loss_curve"] = f"models/{name}/loss_curve.csv"
            _write_predictions(run_dir / "predictions" / f"{name}.csv",
                               [s.id for s in splits["test"]], gold["test"], pred)
            artefacts["predictions"] = f"predictions/{name}.csv"

            row = dataclasses.replace(
                scored, params=dict(fitted.params), valid_mse=float(fitted.valid_mse),
                valid_nll=float(valid_nll), best_epoch=fitted.best_epoch,
                loss_curve=tuple((h.epoch, h.train_loss, h.valid_loss) for h in fitted.history),
                fit_seconds=fitted.seconds, artefacts=artefacts)
            results = dataclasses.replace(results, rows=(*results.rows, row))
            write_results(results)
            reporter.log(f"{label}: test MSE {row.mse:.4f}, MAE {row.mae:.4f}, R² {row.r2:.3f}, "
                         f"curve NLL {row.curve_nll:.3f}, curve CRPS {row.curve_crps:.3f} "
                         f"({row.fit_seconds:.1f} s)")
            done_weight += weight
        reporter.progress(1.0, "done")
        return finish("completed")
    except TrainingCancelled as exc:
        reporter.log(f"cancelled: {exc}")
        finish("cancelled", str(exc))
        raise
    except Exception as exc:
        reporter.log(f"failed: {type(exc).__name__}: {exc}")
        finish("failed", f"{type(exc).__name__}: {exc}")
        raise
    finally:
        torch.set_num_threads(threads_before)


def _scored_row(model: str, ablation: str, gold: dict[str, np.ndarray], z: dict[str, np.ndarray],
                pred: np.ndarray, z_pred: np.ndarray, min_scale: float, base: float,
                z_references: dict[str, np.ndarray]) -> ResultRow:
    """The test-split row of one set of predictions: the metrics as the paper's table has them,
    every figure with its bootstrap interval (:func:`~annotation.training.scoring.score_predictions`,
    what ``chronocept score`` gives a model built elsewhere), and the comparison with each
    reference in ``z_references`` (:func:`~annotation.training.references.compare_mse`)."""
    from .metrics import curve_scores, point_metrics
    from .scoring import score_predictions

    points = point_metrics(z["test"], z_pred, y_true_original=gold["test"], y_pred_original=pred)
    curves = curve_scores(gold["test"], pred, min_scale=min_scale)
    score = score_predictions(gold["test"], pred, gold["train"], base=base)
    return ResultRow(
        model=model, ablation=ablation, mse=points.mse, mae=points.mae, r2=points.r2,
        spearman=points.spearman, nll=points.nll, curve_nll=curves.curve_nll,
        curve_crps=curves.curve_crps, per_parameter=points.per_parameter,
        n_test=len(gold["test"]), n_scale_clipped=curves.n_scale_clipped, score=score.to_dict(),
        vs_reference={name: compare_mse(z["test"], z_pred, z_ref, reference=name).to_dict()
                      for name, z_ref in z_references.items()})


def read_config(run_dir: str | Path) -> TrainingConfig:
    """The configuration saved in a run folder's ``config.json``."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise RunFolderError(f"{str(run_dir)!r} has no {CONFIG_FILE}")
    return TrainingConfig.from_json(path.read_text(encoding="utf-8"))

