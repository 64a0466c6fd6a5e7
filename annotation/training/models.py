"""The baseline regressors and the grid search that tunes them on the validation split.

Each baseline is a small plug-in (:class:`Baseline`): it fits one grid point, predicts, and saves
its weights. :func:`fit_model` expands the grid, fits every combination on the training split,
scores it by validation MSE on z-scored targets and keeps the best (it is not refitted on
train + validation, so the test split stays untouched and the validation split is only used
for selection, as in the Chronocept baselines). Every model reads feature blocks (n, k, d);
all but the Bi-LSTM flatten them to k·d numbers.

* ``linear`` — scikit-learn ``LinearRegression`` (alpha 0, ordinary least squares) or ``Ridge``.
* ``svr`` — scikit-learn ``SVR`` with an RBF kernel (gamma "scale"), one per target.
* ``xgboost`` — ``xgboost.XGBRegressor`` (hist trees with :data:`XGB_MAX_BIN` bins, one tree
  per target per round, ``colsample_bytree`` of the features per tree) with early stopping on
  the validation split after :data:`XGB_EARLY_STOPPING_ROUNDS` rounds without improvement;
  ``n_estimators`` is the cap.
* ``ffnn`` / ``bilstm`` — :mod:`annotation.training.networks`, early stopping on validation loss.
* ``mean`` — predicts the training mean (z = 0): the floor every model should beat.

Weights on disk: ``model.joblib`` (scikit-learn), ``model.json`` (xgboost's native format),
``model.pt`` (a torch ``state_dict``) with ``architecture.json`` (constructor arguments),
``mean.json``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

import numpy as np
import torch

from .device import seed_everything
from .errors import TrainingCancelled
from .grids import check_grid, expand_grid
from . import networks
from .networks import EpochLoss, NetworkSettings

#: rounds without validation improvement after which xgboost stops
XGB_EARLY_STOPPING_ROUNDS = 30
#: histogram bins per feature. With thousands of embedding features and ~1k samples, building
#: and subtracting the per-node histograms dominates; 64 bins instead of xgboost's 256 made a
#: round about 3.5× faster (measured on 910 × 3456 features, the size of the bench's input)
XGB_MAX_BIN = 64

Arrays = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class FitContext:
    """What a baseline needs besides data: device ("cpu"/"cuda"), seed, neural-network
    settings, a cancellation check and a progress callback (fraction of this grid point)."""

    device: str = "cpu"
    seed: int = 13
    settings: NetworkSettings = NetworkSettings()
    should_stop: Callable[[], bool] | None = None
    progress: Callable[[float], None] | None = None

    def check_stop(self, where: str) -> None:
        """Raise :class:`TrainingCancelled` when the caller asked to stop."""
        if self.should_stop is not None and self.should_stop():
            raise TrainingCancelled(f"cancelled {where}")

    def report(self, fraction: float) -> None:
        if self.progress is not None:
            self.progress(min(max(fraction, 0.0), 1.0))


@dataclass(frozen=True)
class CandidateFit:
    """One fitted grid point: the estimator, its validation MSE (z-scored targets) and, for
    neural networks, the loss curve and best epoch."""

    estimator: Any
    valid_mse: float
    history: tuple[EpochLoss, ...] = ()
    best_epoch: int | None = None


class Baseline(Protocol):
    """A baseline model family."""

    name: str

    def fit(self, params: Mapping[str, Any], train: Arrays, valid: Arrays,
            ctx: FitContext) -> CandidateFit: ...

    def predict(self, estimator: Any, blocks: np.ndarray, device: str) -> np.ndarray: ...

    def save(self, estimator: Any, folder: Path) -> dict[str, str]: ...


def _flat(blocks: np.ndarray) -> np.ndarray:
    return np.asarray(blocks, dtype=np.float32).reshape(len(blocks), -1)


def _mse(pred: np.ndarray, target: np.ndarray) -> float:
    return float(np.mean((np.asarray(pred, dtype=np.float64) - target) ** 2))


def _save_joblib(estimator: Any, folder: Path) -> dict[str, str]:
    import joblib

    joblib.dump(estimator, folder / "model.joblib")
    return {"weights": "model.joblib"}


class MeanBaseline:
    """Predicts the mean of the training targets for every sample."""

    name = "mean"

    def fit(self, params, train, valid, ctx):
        mean = np.asarray(train[1], dtype=np.float64).mean(axis=0)
        return CandidateFit(mean, _mse(np.broadcast_to(mean, valid[1].shape), valid[1]))

    def predict(self, estimator, blocks, device):
        return np.tile(estimator, (len(blocks), 1))

    def save(self, estimator, folder):
        (folder / "mean.json").write_text(json.dumps([float(v) for v in estimator]))
        return {"weights": "mean.json"}


class LinearBaseline:
    """Ordinary least squares (alpha 0) or ridge regression on the flattened features."""

    name = "linear"

    def fit(self, params, train, valid, ctx):
        from sklearn.linear_model import LinearRegression, Ridge

        alpha = float(params["alpha"])
        model = LinearRegression() if alpha == 0 else Ridge(alpha=alpha)
        model.fit(_flat(train[0]), train[1])
        return CandidateFit(model, _mse(model.predict(_flat(valid[0])), valid[1]))

    def predict(self, estimator, blocks, device):
        return np.asarray(estimator.predict(_flat(blocks)), dtype=np.float64)

    def save(self, estimator, folder):
        return _save_joblib(estimator, folder)


class SvrBaseline:
    """RBF support-vector regression, one independent SVR per target (ξ, ω, α)."""

    name = "svr"

    def fit(self, params, train, valid, ctx):
        from sklearn.svm import SVR

        x_train, x_valid = _flat(train[0]), _flat(valid[0])
        models = []
        for j in range(train[1].shape[1]):
            ctx.check_stop("during SVR training")
            svr = SVR(kernel="rbf", gamma="scale", C=float(params["C"]),
                      epsilon=float(params["epsilon"]), cache_size=512)
            models.append(svr.fit(x_train, train[1][:, j]))
            ctx.report((j + 1) / train[1].shape[1])
        return CandidateFit(models, _mse(self.predict(models, x_valid, ctx.device), valid[1]))

    def predict(self, estimator, blocks, device):
        flat = _flat(blocks)
        return np.column_stack([m.predict(flat) for m in estimator]).astype(np.float64)

    def save(self, estimator, folder):
        return _save_joblib(estimator, folder)


class XgboostBaseline:
    """Gradient-boosted trees (xgboost, hist method) with early stopping on validation."""

    name = "xgboost"

    def fit(self, params, train, valid, ctx):
        import xgboost

        n_rounds = int(params["n_estimators"])

        class _Watch(xgboost.callback.TrainingCallback):
            def after_iteration(self, model, epoch, evals_log) -> bool:
                ctx.report((epoch + 1) / n_rounds)
                return bool(ctx.should_stop is not None and ctx.should_stop())

        model = xgboost.XGBRegressor(
            n_estimators=n_rounds, max_depth=int(params["max_depth"]),
            learning_rate=float(params["learning_rate"]),
            colsample_bytree=float(params["colsample_bytree"]), tree_method="hist",
            max_bin=XGB_MAX_BIN,
            device="cuda" if ctx.device == "cuda" else "cpu", random_state=ctx.seed,
            n_jobs=os.cpu_count() or 1, early_stopping_rounds=XGB_EARLY_STOPPING_ROUNDS,
            eval_metric="rmse", callbacks=[_Watch()])
        x_valid = _flat(valid[0])
        model.fit(_flat(train[0]), train[1], eval_set=[(x_valid, valid[1])], verbose=False)
        ctx.check_stop("during xgboost training")
        return CandidateFit(model, _mse(self.predict(model, valid[0], ctx.device), valid[1]),
                            best_epoch=int(model.best_iteration) + 1)

    def predict(self, estimator, blocks, device):
        pred = np.asarray(estimator.predict(_flat(blocks)), dtype=np.float64)
        return pred.reshape(len(blocks), -1)

    def save(self, estimator, folder):
        estimator.get_booster().save_model(str(folder / "model.json"))
        return {"weights": "model.json"}


@dataclass(frozen=True)
class _NetworkBaseline:
    """Shared fit/predict/save of the two torch baselines; ``build`` makes the module."""

    name: str
    architecture: Callable[[Mapping[str, Any], tuple[int, ...]], dict[str, Any]]
    module_class_name: str

    def build(self, arch: Mapping[str, Any]):
        return getattr(networks, self.module_class_name)(**arch)

    def fit(self, params, train, valid, ctx):
        arch = self.architecture(params, tuple(np.shape(train[0])[1:]))
        module = self.build(arch)
        settings = ctx.settings

        def on_epoch(record: EpochLoss) -> None:
            ctx.report(record.epoch / max(settings.max_epochs, 1))

        result = networks.train_network(module, train, valid, settings=settings,
                                        learning_rate=float(params["learning_rate"]),
                                        weight_decay=float(params["weight_decay"]),
                                        device=ctx.device, seed=ctx.seed,
                                        should_stop=ctx.should_stop, on_epoch=on_epoch)
        module.architecture = arch   # kept with the module so save() can write it
        return CandidateFit(module, result.best_valid_loss, history=result.history,
                            best_epoch=result.best_epoch)

    def predict(self, estimator, blocks, device):
        return networks.predict_network(estimator, np.asarray(blocks, dtype=np.float32), device)

    def save(self, estimator, folder):
        state = {key: value.detach().cpu() for key, value in estimator.state_dict().items()}
        torch.save(state, folder / "model.pt")
        (folder / "architecture.json").write_text(json.dumps(
            {"class": self.module_class_name, "arguments": estimator.architecture}, indent=2))
        return {"weights": "model.pt", "architecture": "architecture.json"}


def _ffnn_architecture(params: Mapping[str, Any], shape: tuple[int, ...]) -> dict[str, Any]:
    rows, dim = shape
    return {"rows": rows, "dim": dim, "hidden_size": int(params["hidden_size"]),
            "hidden_layers": int(params["hidden_layers"]), "dropout": float(params["dropout"])}


def _bilstm_architecture(params: Mapping[str, Any], shape: tuple[int, ...]) -> dict[str, Any]:
    _, dim = shape
    return {"dim": dim, "hidden_size": int(params["hidden_size"]),
            "num_layers": int(params["num_layers"]), "dropout": float(params["dropout"])}


BASELINES: Mapping[str, Baseline] = {
    "linear": LinearBaseline(),
    "svr": SvrBaseline(),
    "xgboost": XgboostBaseline(),
    "ffnn": _NetworkBaseline("ffnn", _ffnn_architecture, "FeedForwardRegressor"),
    "bilstm": _NetworkBaseline("bilstm", _bilstm_architecture, "BiLstmRegressor"),
    "mean": MeanBaseline(),
}


@dataclass(frozen=True)
class GridPointScore:
    """Validation MSE of one grid point (and its best epoch / boosting round, if any)."""

    params: Mapping[str, Any]
    valid_mse: float
    best_epoch: int | None
    seconds: float


@dataclass(frozen=True)
class FittedModel:
    """The best grid point of a model: its parameters, estimator, validation MSE, loss curve
    (neural networks), and the scores of every grid point tried."""

    name: str
    params: Mapping[str, Any]
    estimator: Any
    valid_mse: float
    device: str
    history: tuple[EpochLoss, ...] = ()
    best_epoch: int | None = None
    grid_scores: tuple[GridPointScore, ...] = field(default_factory=tuple)
    seconds: float = 0.0

    def predict(self, blocks: np.ndarray) -> np.ndarray:
        """z-scored predictions (n, 3) for feature blocks (n, k, d)."""
        return BASELINES[self.name].predict(self.estimator, blocks, self.device)

    def save(self, folder: str | Path) -> dict[str, str]:
        """Write the weights into ``folder`` (created); returns artefact kind → file name."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return BASELINES[self.name].save(self.estimator, folder)


def fit_model(name: str, train: Arrays, valid: Arrays, *,
              grid: Mapping[str, Any] | None = None, device: str = "cpu", seed: int = 13,
              settings: NetworkSettings = NetworkSettings(),
              should_stop: Callable[[], bool] | None = None,
              progress: Callable[[float], None] | None = None,
              log: Callable[[str], None] | None = None) -> FittedModel:
    """Grid-search model ``name`` on (feature blocks, z-scored targets) and return the best.

    Every grid point starts from the same seed (so it does not matter which points came
    before). ``progress`` receives the fraction of this model's grid done; ``log`` one line per
    grid point; ``should_stop`` is checked between grid points and inside long fits.
    """
    complete = check_grid(name, grid)
    baseline = BASELINES[name]
    points = expand_grid(complete)
    started = time.perf_counter()
    best: tuple[dict[str, Any], CandidateFit] | None = None
    scores: list[GridPointScore] = []
    for i, params in enumerate(points):
        def report(fraction: float, i: int = i) -> None:
            if progress is not None:
                progress((i + fraction) / len(points))

        ctx = FitContext(device=device, seed=seed, settings=settings, should_stop=should_stop,
                         progress=report)
        ctx.check_stop(f"before {name} grid point {i + 1}")
        seed_everything(seed)
        point_started = time.perf_counter()
        candidate = baseline.fit(params, train, valid, ctx)
        scores.append(GridPointScore(params=params, valid_mse=candidate.valid_mse,
                                     best_epoch=candidate.best_epoch,
                                     seconds=time.perf_counter() - point_started))
        if log is not None:
            shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"
            unit = "round" if name == "xgboost" else "epoch"
            epoch = f", best {unit} {candidate.best_epoch}" if candidate.best_epoch else ""
            log(f"{name} [{shown}]: validation MSE {candidate.valid_mse:.4f}{epoch}")
        score = candidate.valid_mse if math.isfinite(candidate.valid_mse) else math.inf
        if best is None or score < (best[1].valid_mse if math.isfinite(best[1].valid_mse)
                                    else math.inf):
            best = (params, candidate)
        report(1.0)
    assert best is not None   # a grid always has at least one point
    params, chosen = best
    return FittedModel(name=name, params=params, estimator=chosen.estimator,
                       valid_mse=chosen.valid_mse, device=device, history=chosen.history,
                       best_epoch=chosen.best_epoch, grid_scores=tuple(scores),
                       seconds=time.perf_counter() - started)
