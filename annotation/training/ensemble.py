"""The model in the loop: K copies of a run's best model, each trained on a bootstrap resample of
the gold, predicting every sample's curve with an uncertainty (SPEC section 12).

* :class:`ModelSpec` names what to train: a baseline of :mod:`~annotation.training.models`, its
  chosen grid point, the encoder and the input ablation (plus the run's network settings).
  :func:`best_model_of_run` reads it from a finished run folder — the row with the lowest
  **validation NLL**, the pooled Gaussian NLL of the chosen grid point's validation residuals on
  z-scores (recorded by the runner as ``valid_nll``). Runs recorded before that have only the
  validation MSE; for them the NLL is ``½ ln(2πe · MSE)``, the Gaussian NLL with σ² = MSE, which
  equals the pooled NLL when the residuals average zero and is otherwise a lower bound of it
  (every row of such a run is scored the same way, so the choice is the lowest-MSE row). No
  model is refitted to choose: that would need the export and would redo the run's work.
* :func:`fit_ensemble` trains the K members. Member m draws its bootstrap resample (n of the n
  training samples, with replacement) from seed + m and trains with seed + m; the samples it did
  not draw (out of bag, about 37 %) are its validation set for early stopping. Targets are
  z-scored with the statistics of the *whole* training set, as the runner does with the training
  split, so every member predicts on one scale.
* :class:`EnsemblePrediction` holds the members' curves (K, n, 3) in the targets' units, clipped
  to the fit's bounds (:mod:`annotation.curves.limits`) so each is a curve the workbench could
  draw; ``mean`` is the **mean of the members' parameters** — the bagged estimate (Breiman 1996)
  and the same rule by which two annotators' curves are resolved into gold (a mixture of K
  skew-normals is no skew-normal, and fitting one to it would be a fit per sample);
  ``spread_w1`` the mean W1 between the members' curves
  (:func:`~annotation.training.ensemble_curves.members_spread_w1`); ``half_gone`` the mean
  curve's half-gone time in minutes and ``half_gone_interval`` the **smallest and largest of the
  members'** (with K ≈ 5, any percentile interval is an interpolation between those order
  statistics; "every member says between … and …" is what a lead can read).

A *text* is a sample's parent text (a ``str``: its eight axis rows embed "", as for a sample
not yet annotated), a :class:`~annotation.training.data.Sample`, or nine strings (the parent
text, then the axes in :data:`annotation.axes.EXPORT_KEYS` order). Train and predict with the
same kind. torch and scikit-learn are imported only when a fit starts.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from annotation.axes import EXPORT_KEYS
from annotation.corpus.embeddings import SBERT_MODEL_NAME
from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS

from .ablations import apply_ablation, check_ablation
from .data import Sample
from .device import resolve_device
from .encoders import HashingEncoder, SbertEncoder, TextEncoder
from .ensemble_curves import half_gone_minutes, members_spread_w1
from .errors import BadConfigError, RunFolderError, TrainingCancelled
from .grids import check_grid
from .results import ResultRow, load_run
from .targets import TargetScaler, fit_target_scaler

Progress = Callable[[float, str], None]
Text = str | Sample | Sequence[str]

#: the fit's bounds, the clip of every member's curve: rows (ξ, ω, α), columns (low, high)
CURVE_BOUNDS = np.array([XI_BOUNDS, OMEGA_BOUNDS, ALPHA_BOUNDS], dtype=float)
#: texts embedded and predicted at once by :meth:`Ensemble.predict` (bounds memory on big pools)
PREDICT_CHUNK = 4096
_HASHING_NAME = re.compile(r"hashing-(\d+)-seed(\d+)")


@dataclass(frozen=True)
class ModelSpec:
    """What an ensemble trains: ``model`` (a baseline name), ``params`` (one complete grid point;
    parameters left out take their default when it is a single value), ``encoder`` (``"sbert"``,
    ``"hashing"`` or an encoder's recorded name such as ``"hashing-256-seed0"``), ``ablation``,
    and the network settings of the run (used by ``ffnn`` and ``bilstm`` only).

    Examples:
        >>> spec = ModelSpec("linear", {"alpha": 1}, "hashing")
        >>> spec.params, spec.ablation
        ({'alpha': 1.0}, 'none')
        >>> ModelSpec.from_dict(spec.to_dict()) == spec
        True
    """

    model: str
    params: Mapping[str, Any]
    encoder: str
    ablation: str = "none"
    max_epochs: int = 100
    patience: int = 10
    batch_size: int = 32

    def __post_init__(self) -> None:
        check_ablation(self.ablation)
        if not isinstance(self.params, Mapping):
            raise BadConfigError(f"params of {self.model!r} must be a mapping, got {self.params!r}")
        grid = check_grid(self.model, {name: [value] for name, value in self.params.items()})
        open_ = [name for name, values in grid.items() if len(values) != 1]
        if open_:
            raise BadConfigError(f"params of {self.model!r} must give one value for "
                                 f"{', '.join(open_)}")
        object.__setattr__(self, "params", {name: values[0] for name, values in grid.items()})
        for name in ("max_epochs", "patience", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadConfigError(f"{name} must be a positive integer, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what a job stores)."""
        return {"model": self.model, "params": dict(self.params), "encoder": self.encoder,
                "ablation": self.ablation, "max_epochs": self.max_epochs,
                "patience": self.patience, "batch_size": self.batch_size}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ModelSpec":
        """Inverse of :meth:`to_dict`."""
        return cls(**{key: data[key] for key in data if key in cls.__dataclass_fields__})


def validation_nll(row: ResultRow) -> float:
    """The validation NLL that ranks a run's rows: the recorded ``valid_nll``, else
    ``½ ln(2πe · valid_mse)`` (see the module docstring); NaN when neither is known.

    Examples:
        >>> row = ResultRow("linear", "none", *[math.nan] * 7, valid_mse=1.0)
        >>> round(validation_nll(row), 4)           # ½ ln(2πe): a unit-variance Gaussian
        1.4189
    """
    if math.isfinite(row.valid_nll):
        return float(row.valid_nll)
    if math.isfinite(row.valid_mse) and row.valid_mse > 0:
        return 0.5 * math.log(2.0 * math.pi * math.e * row.valid_mse)
    return math.nan


def best_model_of_run(run_dir: str | Path) -> ModelSpec:
    """The :class:`ModelSpec` of a completed run's best model by validation NLL.

    Raises :class:`RunFolderError` with a one-line reason when the folder holds no readable
    run, the run did not complete, it has no rows, a row's model folder lacks its
    ``params.json`` or weights, or no row has a validation score. Ties go to the first row.

    Examples:
        >>> best_model_of_run("/nonexistent")
        Traceback (most recent call last):
        ...
        annotation.training.errors.RunFolderError: '/nonexistent' holds no training run (metrics.json missing)
    """
    run_dir = Path(run_dir)
    results = load_run(run_dir)
    if results.status != "completed":
        raise RunFolderError(f"{str(run_dir)!r} is a {results.status} run; only a completed run "
                             "can be applied")
    if not results.rows:
        raise RunFolderError(f"{str(run_dir)!r} holds no trained model")
    params: dict[tuple[str, str], dict] = {}
    for row in results.rows:
        folder = run_dir / "models" / f"{row.model}__{row.ablation}"
        weights = row.artefacts.get("weights")
        if not (folder / "params.json").is_file() or not weights \
                or not (run_dir / weights).is_file():
            raise RunFolderError(f"{str(run_dir)!r}: the model {row.model} ({row.ablation}) is "
                                 f"missing from {folder}")
        try:
            params[row.model, row.ablation] = json.loads(
                (folder / "params.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunFolderError(f"{folder / 'params.json'}: not readable ({exc})") from None
    recorded = all(math.isfinite(r.valid_nll) for r in results.rows)
    scores = [validation_nll(r) if recorded
              else validation_nll(ResultRow(r.model, r.ablation, *[math.nan] * 7,
                                            valid_mse=r.valid_mse)) for r in results.rows]
    finite = [(s, i) for i, s in enumerate(scores) if math.isfinite(s)]
    if not finite:
        raise RunFolderError(f"{str(run_dir)!r}: no model has a validation score")
    best = results.rows[min(finite)[1]]
    config = results.config
    try:
        return ModelSpec(best.model, params[best.model, best.ablation], results.encoder,
                         best.ablation, max_epochs=config.max_epochs, patience=config.patience,
                         batch_size=config.batch_size)
    except BadConfigError as exc:
        raise RunFolderError(f"{str(run_dir)!r}: {exc}") from None


def encoder_named(name: str, device: str = "cpu") -> TextEncoder:
    """The encoder a :class:`ModelSpec` names: ``"sbert"`` or the SBERT model's name, or
    ``"hashing"`` / ``"hashing-<dim>-seed<seed>"``; :class:`BadConfigError` otherwise.

    Examples:
        >>> encoder_named("hashing-64-seed3").name
        'hashing-64-seed3'
    """
    if name in ("sbert", SBERT_MODEL_NAME):
        return SbertEncoder(device=device)
    if name == "hashing":
        return HashingEncoder()
    match = _HASHING_NAME.fullmatch(name)
    if match:
        return HashingEncoder(dim=int(match.group(1)), seed=int(match.group(2)))
    raise BadConfigError(f"unknown encoder {name!r}; expected sbert, hashing or "
                         "hashing-<dim>-seed<seed> (or pass the encoder itself)")


def _nine_texts(text: Text) -> tuple[str, ...]:
    if isinstance(text, str):
        return (text, *("",) * len(EXPORT_KEYS))
    if isinstance(text, Sample):
        return (text.parent_text, *text.axes)
    texts = tuple(text)
    if len(texts) != 1 + len(EXPORT_KEYS) or not all(isinstance(t, str) for t in texts):
        raise ValueError("a text is a string, a Sample or nine strings (parent text, then the "
                         f"eight axes), got {text!r}")
    return texts


def text_blocks(texts: Sequence[Text], encoder: TextEncoder) -> np.ndarray:
    """Feature blocks (n, 9, d), float32, for texts (see the module docstring), each distinct
    string embedded once.

    Examples:
        >>> text_blocks(["The ferry runs every hour.", "Open today."], HashingEncoder(dim=4)).shape
        (2, 9, 4)
    """
    unique: dict[str, int] = {}
    index = np.array([[unique.setdefault(t, len(unique)) for t in _nine_texts(text)]
                      for text in texts], dtype=np.int64).reshape(len(texts), -1)
    vectors = np.asarray(encoder.encode(list(unique)), dtype=np.float32)
    return vectors.reshape(len(unique), encoder.dim)[index]


@dataclass(frozen=True)
class EnsemblePrediction:
    """K members' curves for n samples and what they say together (units: ξ, ω in base-1.1
    log minutes, α dimensionless; W1 in log-minute units; half-gone times in minutes, ``inf``
    when more than half is still valid at the chart's end). Build it with :meth:`from_members`.

    Examples:
        >>> one = np.array([[50.0, 10.0, 0.0]])
        >>> p = EnsemblePrediction.from_members(np.stack([one, one + [4.0, 0.0, 0.0]]))
        >>> p.mean.tolist(), np.round(p.spread_w1, 3).tolist()
        ([[52.0, 10.0, 0.0]], [4.0])
        >>> np.round(p.half_gone_interval / p.half_gone[:, None], 3).tolist()   # 1.1 ** ±2
        [[0.826, 1.21]]
    """

    members: np.ndarray
    mean: np.ndarray
    spread_w1: np.ndarray
    half_gone: np.ndarray
    half_gone_interval: np.ndarray

    @classmethod
    def from_members(cls, members: np.ndarray) -> "EnsemblePrediction":
        """The prediction of members (K ≥ 2, n, 3), clipped to the fit's bounds."""
        m = np.asarray(members, dtype=float)
        if m.ndim != 3 or m.shape[2] != 3 or m.shape[0] < 2:
            raise ValueError(f"members must have shape (K>=2, n, 3), got {m.shape}")
        m = np.clip(m, CURVE_BOUNDS[:, 0], CURVE_BOUNDS[:, 1])
        mean = m.mean(axis=0)
        gone = half_gone_minutes(m.reshape(-1, 3)).reshape(m.shape[:2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # a sample with no defined member
            interval = np.stack([np.nanmin(gone, axis=0), np.nanmax(gone, axis=0)], axis=1)
        return cls(members=m, mean=mean, spread_w1=members_spread_w1(m),
                   half_gone=half_gone_minutes(mean), half_gone_interval=interval)

    def __len__(self) -> int:
        return int(self.mean.shape[0])


@dataclass(frozen=True)
class Ensemble:
    """K fitted members of one :class:`ModelSpec`, the target scaler they share, the encoder
    they read and each member's bootstrap indices into the training texts."""

    spec: ModelSpec
    members: tuple[Any, ...]
    scaler: TargetScaler
    encoder: TextEncoder
    device: str
    bootstrap_indices: tuple[np.ndarray, ...] = field(default_factory=tuple)

    def member_curves(self, blocks: np.ndarray) -> np.ndarray:
        """Each member's (ξ, ω, α), unclipped, for feature blocks (n, 9, d) made by
        :func:`text_blocks`: shape (K, n, 3), in the targets' units."""
        inputs = apply_ablation(blocks, self.spec.ablation, split="test")
        z = np.stack([member.predict(inputs) for member in self.members])
        return self.scaler.inverse_transform(z)

    def predict_blocks(self, blocks: np.ndarray) -> EnsemblePrediction:
        """The prediction for feature blocks (n, 9, d) made by :func:`text_blocks`."""
        return EnsemblePrediction.from_members(self.member_curves(blocks))

    def predict(self, texts: Sequence[Text]) -> EnsemblePrediction:
        """The prediction for texts, embedded and predicted :data:`PREDICT_CHUNK` at a time."""
        if not len(texts):
            raise ValueError("no texts to predict")
        parts = [self.predict_blocks(text_blocks(texts[s:s + PREDICT_CHUNK], self.encoder))
                 for s in range(0, len(texts), PREDICT_CHUNK)]
        if len(parts) == 1:
            return parts[0]
        return EnsemblePrediction(*(np.concatenate([getattr(p, f) for p in parts], axis=axis)
                                    for f, axis in (("members", 1), ("mean", 0), ("spread_w1", 0),
                                                    ("half_gone", 0),
                                                    ("half_gone_interval", 0))))


def _targets(targets: np.ndarray, n: int) -> np.ndarray:
    y = np.asarray(targets, dtype=np.float64)
    if y.shape != (n, 3) or not np.isfinite(y).all():
        raise ValueError(f"targets must be finite with shape ({n}, 3) as (ξ, ω, α), "
                         f"got {y.shape}")
    return y


def fit_ensemble_blocks(blocks: np.ndarray, targets: np.ndarray, *, spec: ModelSpec,
                        encoder: TextEncoder, k: int = 5, seed: int = 0, device: str = "cpu",
                        progress: Progress | None = None,
                        should_stop: Callable[[], bool] | None = None) -> Ensemble:
    """:func:`fit_ensemble` on feature blocks already embedded by ``encoder`` (so a caller that
    fits several ensembles on one pool, as the cross-fitting does, embeds it once).

    Examples:
        >>> encoder = HashingEncoder(dim=8)
        >>> blocks = text_blocks(["a b", "c d", "e f", "g h"], encoder)
        >>> y = np.array([[10.0, 5.0, 0.0], [20.0, 5.0, 0.0], [30.0, 5.0, 0.0], [40.0, 5.0, 0.0]])
        >>> ens = fit_ensemble_blocks(blocks, y, spec=ModelSpec("mean", {}, "hashing"),
        ...                           encoder=encoder, k=2, seed=0)
        >>> [i.tolist() for i in ens.bootstrap_indices]      # 4 of the 4, with replacement
        [[1, 2, 2, 3], [1, 2, 3, 3]]
        >>> ens.bootstrap_indices[1].tolist() == sorted(np.random.default_rng(0 + 1).integers(0, 4, 4))
        True
    """
    from .models import fit_model
    from .networks import NetworkSettings

    blocks = np.asarray(blocks, dtype=np.float32)
    n = len(blocks)
    y = _targets(targets, n)
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise BadConfigError(f"an ensemble needs k >= 2 members, got {k!r}")
    if n < 2:
        raise ValueError(f"an ensemble needs at least 2 training samples, got {n}")
    device = resolve_device(device)
    scaler = fit_target_scaler(y)   # the whole training set's statistics, shared by the members
    z = scaler.transform(y)
    settings = NetworkSettings(max_epochs=spec.max_epochs, patience=spec.patience,
                               batch_size=spec.batch_size)
    grid = {name: [value] for name, value in spec.params.items()}
    members, drawn = [], []
    for m in range(k):
        if should_stop is not None and should_stop():
            raise TrainingCancelled(f"cancelled before ensemble member {m + 1} of {k}")
        rng = np.random.default_rng(seed + m)
        index = np.sort(rng.integers(0, n, size=n))
        out_of_bag = np.setdiff1d(np.arange(n), index)
        check = out_of_bag if len(out_of_bag) else index
        train = apply_ablation(blocks[index], spec.ablation, split="train", rng=rng)
        valid = apply_ablation(blocks[check], spec.ablation, split="validation")

        def report(fraction: float, m: int = m) -> None:
            if progress is not None:
                progress((m + fraction) / k, f"training ensemble member {m + 1} of {k}")

        report(0.0)
        members.append(fit_model(spec.model, (train, z[index]), (valid, z[check]), grid=grid,
                                 device=device, seed=seed + m, settings=settings,
                                 should_stop=should_stop, progress=report))
        drawn.append(index)
    if progress is not None:
        progress(1.0, f"trained {k} ensemble members")
    return Ensemble(spec=spec, members=tuple(members), scaler=scaler, encoder=encoder,
                    device=device, bootstrap_indices=tuple(drawn))


def fit_ensemble(train_texts: Sequence[Text], train_targets: np.ndarray, *, spec: ModelSpec,
                 k: int = 5, seed: int = 0, device: str = "cpu",
                 encoder: TextEncoder | None = None, progress: Progress | None = None,
                 should_stop: Callable[[], bool] | None = None) -> Ensemble:
    """Train K members of ``spec`` on bootstrap resamples of the training texts.

    ``train_targets`` is (n, 3): ξ, ω, α in base-1.1 log minutes. ``device`` "cpu", "cuda" or
    "auto" (CUDA when torch has it); ``encoder`` overrides the one ``spec`` names;
    ``progress(fraction, message)`` reports per member; ``should_stop()`` is polled between and
    inside members (:class:`TrainingCancelled`).

    Examples:
        >>> texts = [f"open for {w}" for w in ("minutes", "hours", "days", "weeks")] * 3
        >>> y = np.array([[24.2, 8.0, 0.0], [54.5, 8.0, 0.0], [87.9, 8.0, 0.0],
        ...               [104.0, 8.0, 0.0]] * 3)
        >>> ens = fit_ensemble(texts, y, spec=ModelSpec("linear", {"alpha": 0.01}, "hashing"),
        ...                    k=3, seed=1)
        >>> p = ens.predict(["open for days"])
        >>> p.members.shape, bool(abs(p.mean[0, 0] - 87.9) < 1.0), bool(p.spread_w1[0] < 1.0)
        ((3, 1, 3), True, True)
    """
    encoder = encoder if encoder is not None else encoder_named(spec.encoder,
                                                                resolve_device(device))
    if progress is not None:
        progress(0.0, f"embedding {len(train_texts)} texts")
    blocks = text_blocks(train_texts, encoder)
    return fit_ensemble_blocks(blocks, train_targets, spec=spec, encoder=encoder, k=k,
                               seed=seed, device=device, progress=progress,
                               should_stop=should_stop)


__all__ = ["CURVE_BOUNDS", "Ensemble", "EnsemblePrediction", "ModelSpec", "best_model_of_run",
           "encoder_named", "fit_ensemble", "fit_ensemble_blocks", "text_blocks",
           "validation_nll"]
