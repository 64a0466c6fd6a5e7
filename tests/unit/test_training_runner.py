"""run_training end to end on tiny generated exports: the run folder, training-only z-scoring,
the ablation inputs, the embedding cache, cancellation, errors, reading a run back, and the
SBERT feature layout."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

import annotation.training.models as models_module
import annotation.training.runner as runner_module
from annotation.axes import EXPORT_KEYS
from annotation.training import (
    METRIC_COLUMNS,
    TrainingCancelled,
    TrainingConfig,
    load_run,
    load_split_records,
    read_config,
    results_table,
    run_training,
    write_synthetic_export,
)
from annotation.training.encoders import HashingEncoder, SbertEncoder
from annotation.training.errors import (
    DeviceUnavailableError,
    ExportNotFoundError,
    NotEnoughSamplesError,
    RunFolderError,
)
from annotation.training.features import embed_splits
from annotation.training.metrics import pooled_gaussian_nll
from annotation.training.results import row_to_dict
from annotation.training.targets import TargetScaler

TINY = dict(
    encoder="hashing", max_epochs=3, patience=2, batch_size=16, seed=7,
    grids={"linear": {"alpha": [1.0]}, "svr": {"C": [1.0]},
           "xgboost": {"max_depth": [2], "n_estimators": [10]},
           "ffnn": {"hidden_size": [8], "hidden_layers": [1]}, "bilstm": {"hidden_size": [4]}},
)

#: the training baselines on torch (the inner loop skips them: ./test.sh -m "not slow" tests/unit)
pytestmark = pytest.mark.slow

ALL_MODELS = ("mean", "linear", "svr", "xgboost", "ffnn", "bilstm")


class CountingEncoder(HashingEncoder):
    """HashingEncoder that counts encode calls (class-level, across instances)."""

    calls = 0

    def encode(self, texts):
        type(self).calls += 1
        return super().encode(texts)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return write_synthetic_export(tmp_path_factory.mktemp("run") / "export", 40, seed=2,
                                  export_id=17)


@pytest.fixture(scope="module")
def full_run(export, tmp_path_factory):
    """One run of every model and ablation, with the callbacks recorded."""
    run_dir = tmp_path_factory.mktemp("run") / "r1"
    progress, lines = [], []
    config = TrainingConfig(models=ALL_MODELS, ablations=("none", "no_axes", "shuffled_axes"),
                            **TINY)
    results = run_training(export, run_dir, config, progress=lambda f, m: progress.append((f, m)),
                           log=lines.append, encoder=HashingEncoder(dim=8))
    return run_dir, results, progress, lines


def test_run_folder_holds_config_metrics_weights_curves_and_predictions(full_run, export):
    run_dir, results, _, _ = full_run
    assert results.status == "completed" and results.export_id == "17"
    assert results.device == "cpu" and results.encoder == "hashing-8-seed0"
    assert read_config(run_dir) == results.config
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["status"] == "completed" and metrics["export_id"] == "17"
    assert metrics["seed"] == 7 and "z-scored" in metrics["metric_scale"]
    assert (run_dir / "training.log").read_text().count("\n") >= 18
    assert len(results.rows) == 18
    test_ids = [s.id for s in load_split_records(export, 1)["test"]]
    for row in results.rows:
        for path in row.artefacts.values():
            assert (run_dir / path).is_file(), path
        predictions = pd.read_csv(run_dir / row.artefacts["predictions"])
        assert list(predictions.columns) == ["_id", "location_gold", "location_pred",
                                             "scale_gold", "scale_pred", "skewness_gold",
                                             "skewness_pred"]
        assert list(predictions["_id"]) == test_ids
        if row.model in ("ffnn", "bilstm"):
            curve = pd.read_csv(run_dir / row.artefacts["loss_curve"])
            assert list(curve.columns) == ["epoch", "train_loss", "valid_loss"]
            assert len(curve) == len(row.loss_curve) >= 1
            assert row.artefacts["weights"].endswith("model.pt")
        assert np.isfinite(row.mse) and np.isfinite(row.curve_nll) and np.isfinite(row.curve_crps)
        assert np.isfinite(row.valid_nll)
    # the validation NLL is the pooled Gaussian NLL of the chosen point's validation residuals:
    # the mean model predicts z = 0 (the training mean), so its residuals are the z-scores
    scaler = TargetScaler.from_dict(results.target_scaler)
    valid = [s.targets for s in load_split_records(export, 1)["validation"]]
    assert results.row("mean").valid_nll == pytest.approx(
        pooled_gaussian_nll(scaler.transform(np.array(valid))), abs=1e-9)
    assert results.row("xgboost", "no_axes").artefacts["weights"].endswith("model.json")
    assert results.row("svr").artefacts["weights"].endswith("model.joblib")


def test_progress_and_log_callbacks(full_run):
    _, _, progress, lines = full_run
    fractions = [f for f, _ in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and fractions[0] < 0.1
    assert all(isinstance(m, str) and m for _, m in progress)
    assert any("bilstm (shuffled_axes): test MSE" in line for line in lines)


def test_load_run_and_results_table(full_run):
    run_dir, results, _, _ = full_run
    again = load_run(run_dir)
    # NaN ≠ NaN, so compare the JSON forms (NaN → null); floats round-trip exactly
    assert [row_to_dict(r) for r in again.rows] == [row_to_dict(r) for r in results.rows]
    assert again.config == results.config
    assert again.status == "completed" and again.target_scaler == results.target_scaler
    table = results_table(again)
    assert list(table.index) == list(ALL_MODELS) and list(table.columns) == list(METRIC_COLUMNS)
    assert table.loc["linear", "mse"] == results.row("linear").mse
    assert np.isnan(table.loc["mean", "spearman"])          # constant predictions
    everything = results_table(again, ablation=None)
    assert len(everything) == 18 and everything.index.names == ["model", "ablation"]
    assert list(results_table(again, "no_axes").index) == list(ALL_MODELS)


def test_a_run_folder_is_not_reused(full_run, export):
    run_dir, _, _, _ = full_run
    with pytest.raises(RunFolderError, match="already holds"):
        run_training(export, run_dir, TrainingConfig(models=("mean",), **TINY))


def test_targets_are_z_scored_with_training_statistics_only(export, tmp_path, monkeypatch):
    # a second export identical in its training split, but with validation/test targets moved
    other = write_synthetic_export(tmp_path / "other", 40, seed=2, export_id=17)
    for name in ("valid.json", "test.json"):
        path = other / "benchmark_1" / name
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for r in records:
            r["target_values"]["location"] += 1000.0
            r["target_values"]["scale"] *= 50.0
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    seen = []
    real_fit = runner_module.fit_target_scaler
    monkeypatch.setattr(runner_module, "fit_target_scaler",
                        lambda y: seen.append(np.array(y)) or real_fit(y))
    config = TrainingConfig(models=("mean",), **TINY)
    a = run_training(export, tmp_path / "a", config, encoder=HashingEncoder(dim=4))
    b = run_training(other, tmp_path / "b", config, encoder=HashingEncoder(dim=4))
    train = np.array([s.targets for s in load_split_records(export, 1)["train"]])
    assert len(seen) == 2 and all(np.array_equal(s, train) for s in seen)
    assert a.target_scaler == b.target_scaler
    assert a.target_scaler["location"]["mean"] == pytest.approx(train[:, 0].mean())
    assert a.target_scaler["scale"]["std"] == pytest.approx(train[:, 1].std())
    # the mean model predicts the training mean in both runs, so b is far worse on its test set
    assert b.row("mean").mse > 100 * a.row("mean").mse


def test_model_inputs_follow_the_ablation(export, tmp_path, monkeypatch):
    seen = {}
    real_fit = models_module.fit_model

    def spy(name, train, valid, **kwargs):
        seen[name] = (train[0].copy(), valid[0].copy())
        return real_fit(name, train, valid, **kwargs)

    monkeypatch.setattr(models_module, "fit_model", spy)
    splits = load_split_records(export, 1)
    full = embed_splits(splits, HashingEncoder(dim=4)).features
    for ablation in ("none", "no_axes", "shuffled_axes"):
        seen.clear()
        config = TrainingConfig(models=("mean", "bilstm"), ablations=(ablation,), **TINY)
        run_training(export, tmp_path / ablation, config, encoder=HashingEncoder(dim=4))
        for model in ("mean", "bilstm"):
            train, valid = seen[model]
            if ablation == "no_axes":
                assert train.shape == (len(full["train"]), 1, 4)      # a sequence of one
                assert np.array_equal(train[:, 0], full["train"][:, 0])
                assert np.array_equal(valid[:, 0], full["validation"][:, 0])
            else:
                assert np.array_equal(valid, full["validation"])    # fixed order kept
                same = np.array_equal(train, full["train"])
                assert same == (ablation == "none")
                if ablation == "shuffled_axes":
                    assert np.array_equal(train[:, 0], full["train"][:, 0])
                    assert np.array_equal(np.sort(train[:, 1:], axis=1),
                                          np.sort(full["train"][:, 1:], axis=1))
        assert np.array_equal(seen["mean"][0], seen["bilstm"][0])  # one shuffle per ablation


def test_second_run_reuses_the_cached_embeddings(export, tmp_path):
    cache = tmp_path / "cache"
    config = TrainingConfig(models=("mean",), **TINY)
    CountingEncoder.calls = 0
    run_training(export, tmp_path / "a", config, cache_dir=cache, encoder=CountingEncoder(dim=4))
    assert CountingEncoder.calls >= 1
    assert len(list(cache.glob("17__*.npz"))) == 1
    CountingEncoder.calls = 0
    lines = []
    run_training(export, tmp_path / "b", config, cache_dir=cache, encoder=CountingEncoder(dim=4),
                 log=lines.append)
    assert CountingEncoder.calls == 0
    assert any("cache hit" in line for line in lines)


def test_cancellation_raises_and_leaves_a_cancelled_run(export, tmp_path):
    stop = {"now": False}

    def log(line: str) -> None:
        if line.startswith("linear (none): test MSE"):
            stop["now"] = True

    config = TrainingConfig(models=("mean", "linear", "ffnn", "bilstm"), **TINY)
    with pytest.raises(TrainingCancelled):
        run_training(export, tmp_path / "r", config, log=log, should_stop=lambda: stop["now"],
                     encoder=HashingEncoder(dim=4))
    results = load_run(tmp_path / "r")
    assert results.status == "cancelled" and results.finished_at
    assert [r.model for r in results.rows] == ["mean", "linear"]
    assert not (tmp_path / "r" / "models" / "ffnn__none").exists()
    assert "cancelled" in (tmp_path / "r" / "training.log").read_text()

    with pytest.raises(TrainingCancelled):
        run_training(export, tmp_path / "early", config, should_stop=lambda: True,
                     encoder=HashingEncoder(dim=4))
    early = load_run(tmp_path / "early")
    assert early.status == "cancelled" and early.rows == ()


def test_input_errors_are_raised_before_anything_is_written(export, tmp_path, monkeypatch):
    config = TrainingConfig(models=("mean",), **TINY)
    with pytest.raises(ExportNotFoundError):
        run_training(tmp_path / "missing", tmp_path / "r1", config)
    with pytest.raises(NotEnoughSamplesError):
        run_training(export, tmp_path / "r2", TrainingConfig(models=("mean",), benchmark=2,
                                                             **{k: v for k, v in TINY.items()}))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cuda = TrainingConfig(models=("mean",), **{**TINY, "device": "cuda"})
    with pytest.raises(DeviceUnavailableError):
        run_training(export, tmp_path / "r3", cuda)
    assert not any((tmp_path / name).exists() for name in ("r1", "r2", "r3"))
    with pytest.raises(RunFolderError):
        load_run(tmp_path / "r1")


def test_torch_threads_are_set_for_training_and_restored(export, tmp_path, monkeypatch):
    during = []
    real_fit = models_module.fit_model

    def spy(*args, **kwargs):
        during.append(torch.get_num_threads())
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(models_module, "fit_model", spy)
    torch.set_num_threads(2)
    try:
        run_training(export, tmp_path / "r", TrainingConfig(models=("mean",), **TINY),
                     encoder=HashingEncoder(dim=4))
        assert during == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(1)


def test_a_failing_model_leaves_a_failed_run(export, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(models_module, "fit_model", broken)
    with pytest.raises(RuntimeError):
        run_training(export, tmp_path / "r", TrainingConfig(models=("mean",), **TINY),
                     encoder=HashingEncoder(dim=4))
    failed = load_run(tmp_path / "r")
    assert failed.status == "failed" and "out of memory" in failed.error


def test_sbert_features_are_nine_rows_of_384(tmp_path):
    folder = write_synthetic_export(tmp_path / "e", 6, seed=0)
    splits = load_split_records(folder, 1, min_samples=1)
    encoder = SbertEncoder()
    block = embed_splits(splits, encoder).features["train"]
    sample = splits["train"][0]
    assert block.shape == (len(splits["train"]), 9, 384) and block.dtype == np.float32
    assert np.allclose(block[0, 0], encoder.encode([sample.parent_text])[0], atol=1e-5)
    empty = encoder.encode([""])[0]
    for j, key in enumerate(EXPORT_KEYS):
        expected = encoder.encode([sample.axes[j]])[0] if sample.axes[j] else empty
        assert np.allclose(block[0, j + 1], expected, atol=1e-5), key
