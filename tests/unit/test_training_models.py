"""Baseline models on small generated exports: every model fits and predicts, early stopping
restores the best weights, and the FFNN learns ξ from the text better than the mean does."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from annotation.training import load_split_records, write_synthetic_export
from annotation.training.encoders import HashingEncoder
from annotation.training.errors import TrainingCancelled, UnknownModelError
from annotation.training.features import embed_splits
from annotation.training.grids import MODEL_NAMES
from annotation.training.models import fit_model
from annotation.training.networks import (
    BiLstmRegressor,
    FeedForwardRegressor,
    NetworkSettings,
    train_network,
    validation_loss,
)
from annotation.training.targets import fit_target_scaler

#: the training baselines on torch (the inner loop skips them: ./test.sh -m "not slow" tests/unit)
pytestmark = pytest.mark.slow

TINY_GRIDS = {
    "mean": {},
    "linear": {"alpha": [0.0, 1.0]},
    "svr": {"C": [1.0], "epsilon": [0.1]},
    "xgboost": {"max_depth": [2], "n_estimators": [15], "learning_rate": [0.3]},
    "ffnn": {"hidden_size": [16], "hidden_layers": [1]},
    "bilstm": {"hidden_size": [8]},
}
TINY_NETS = NetworkSettings(max_epochs=4, patience=2, batch_size=16)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny networks train fastest on one thread (and do not fight other tests for cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _dataset(folder, n: int, dim: int, seed: int = 0, noise: float = 2.0):
    splits = load_split_records(write_synthetic_export(folder, n, seed=seed, noise=noise), 1)
    features = embed_splits(splits, HashingEncoder(dim=dim)).features
    gold = {s: np.array([x.targets for x in splits[s]]) for s in splits}
    scaler = fit_target_scaler(gold["train"])
    return {s: (features[s], scaler.transform(gold[s])) for s in splits}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return _dataset(tmp_path_factory.mktemp("models") / "e", 60, dim=8)


def test_grid_names_cover_the_baselines():
    assert set(TINY_GRIDS) == set(MODEL_NAMES)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_each_model_fits_predicts_and_saves(name, small, tmp_path):
    lines = []
    fitted = fit_model(name, small["train"], small["validation"], grid=TINY_GRIDS[name],
                       settings=TINY_NETS, seed=5, log=lines.append)
    x_test = small["test"][0]
    pred = fitted.predict(x_test)
    assert pred.shape == (len(x_test), 3) and np.all(np.isfinite(pred))
    assert np.isfinite(fitted.valid_mse)
    assert len(fitted.grid_scores) == len(lines) >= 1
    assert fitted.valid_mse == min(g.valid_mse for g in fitted.grid_scores)
    files = fitted.save(tmp_path / name)
    for file in files.values():
        assert (tmp_path / name / file).is_file()
    expected = {"mean": "mean.json", "linear": "model.joblib", "svr": "model.joblib",
                "xgboost": "model.json", "ffnn": "model.pt", "bilstm": "model.pt"}[name]
    assert files["weights"] == expected
    if name in ("ffnn", "bilstm"):
        assert 1 <= len(fitted.history) <= TINY_NETS.max_epochs
        arch = json.loads((tmp_path / name / "architecture.json").read_text())
        state = torch.load(tmp_path / name / "model.pt")
        module = {"ffnn": FeedForwardRegressor, "bilstm": BiLstmRegressor}[name](
            **arch["arguments"])
        module.load_state_dict(state)
        module.eval()
        with torch.no_grad():
            again = module(torch.as_tensor(x_test)).numpy()
        assert again == pytest.approx(pred, abs=1e-5)
    if name == "xgboost":
        import xgboost

        booster = xgboost.Booster()
        booster.load_model(str(tmp_path / name / "model.json"))
        assert booster.num_boosted_rounds() >= 1


def test_models_also_take_a_single_parent_text_vector(small):
    one_row = {s: (x[:, :1, :], y) for s, (x, y) in small.items()}
    for name in ("bilstm", "ffnn", "linear"):
        fitted = fit_model(name, one_row["train"], one_row["validation"],
                           grid=TINY_GRIDS[name], settings=TINY_NETS)
        assert fitted.predict(one_row["test"][0]).shape == (len(one_row["test"][0]), 3)


def test_unknown_model_is_rejected(small):
    with pytest.raises(UnknownModelError):
        fit_model("transformer", small["train"], small["validation"])


def test_same_seed_gives_the_same_network(small):
    runs = [fit_model("ffnn", small["train"], small["validation"], grid=TINY_GRIDS["ffnn"],
                      settings=TINY_NETS, seed=9).predict(small["test"][0]) for _ in range(2)]
    assert np.array_equal(runs[0], runs[1])


def test_early_stopping_restores_the_best_weights_not_the_last():
    rng = np.random.default_rng(0)
    # noise targets: the network can only overfit, so validation loss soon rises
    x_train = rng.standard_normal((64, 9, 8)).astype(np.float32)
    y_train = rng.standard_normal((64, 3))
    x_valid = rng.standard_normal((32, 9, 8)).astype(np.float32)
    y_valid = rng.standard_normal((32, 3))
    torch.manual_seed(0)
    module = FeedForwardRegressor(rows=9, dim=8, hidden_size=64, hidden_layers=2, dropout=0.0)
    fit = train_network(module, (x_train, y_train), (x_valid, y_valid),
                        settings=NetworkSettings(max_epochs=60, patience=4, batch_size=16),
                        learning_rate=3e-3, seed=0)
    losses = [h.valid_loss for h in fit.history]
    assert fit.stopped_early and fit.best_epoch < len(losses)
    assert fit.best_valid_loss == min(losses) == losses[fit.best_epoch - 1]
    assert losses[-1] > fit.best_valid_loss
    restored = validation_loss(module, x_valid, y_valid, "cpu")
    assert restored == pytest.approx(fit.best_valid_loss, rel=1e-5)
    assert restored != pytest.approx(losses[-1], rel=1e-5)


def test_network_training_stops_when_asked(small):
    calls = []

    def should_stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    module = FeedForwardRegressor(rows=9, dim=8, hidden_size=8, hidden_layers=1)
    with pytest.raises(TrainingCancelled, match="epoch 3"):
        train_network(module, small["train"], small["validation"], settings=TINY_NETS,
                      learning_rate=1e-3, should_stop=should_stop)


def test_ffnn_learns_location_from_the_text_better_than_the_mean(tmp_path):
    data = _dataset(tmp_path / "e", 300, dim=64, seed=4)
    fitted = fit_model("ffnn", data["train"], data["validation"],
                       grid={"hidden_size": [64], "hidden_layers": [1], "dropout": [0.0]},
                       settings=NetworkSettings(max_epochs=40, patience=5, batch_size=32),
                       seed=1)
    y_test = data["test"][1]
    pred = fitted.predict(data["test"][0])
    mse_xi = float(np.mean((pred[:, 0] - y_test[:, 0]) ** 2))
    mean_xi = float(data["train"][1][:, 0].mean())          # the mean predictor (z-space: ~0)
    mse_mean = float(np.mean((mean_xi - y_test[:, 0]) ** 2))
    assert mse_xi < 0.5 * mse_mean
