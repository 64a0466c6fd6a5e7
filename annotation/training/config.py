"""The configuration of one training run: what to train, on which inputs, how long.

A :class:`TrainingConfig` is validated when it is built (unknown model, ablation, encoder or
device, bad grid, non-positive epochs... raise a :class:`~annotation.training.errors.
TrainingInputError` with a clear message), stores *complete* grids (the user's values over the
defaults, for the chosen models only) and round-trips through JSON, so ``config.json`` in a run
folder is enough to run it again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from .ablations import check_ablation
from .device import check_device_preference
from .encoders import ENCODER_NAMES
from .errors import BadConfigError, BadGridError
from .grids import BASELINE_MODELS, check_grid, check_model_name


#: The benchmarks an export holds (``EXPORT/benchmark_1``, ``EXPORT/benchmark_2``).
BENCHMARKS = (1, 2)
#: The largest seed: what NumPy's legacy seeding, torch and xgboost all take as it is.
MAX_SEED = 2**32 - 1
#: Upper bounds of the training loop's settings. Far above any useful value (the paper's
#: networks stop early within a few hundred epochs; batches beyond a few thousand samples are
#: full-batch training on these datasets), low enough that a slip of the keyboard cannot keep a
#: worker busy for days, allocate a batch larger than memory or start a million threads.
MAX_EPOCHS = 10_000
MAX_PATIENCE = 10_000
MAX_BATCH_SIZE = 4_096
MAX_TORCH_THREADS = 256
_UPPER = {"max_epochs": MAX_EPOCHS, "patience": MAX_PATIENCE, "batch_size": MAX_BATCH_SIZE}


def _bounded_int(name: str, value: Any, low: int, high: int) -> int:
    """``value`` when it is an integer in ``[low, high]``; otherwise a one-line error."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        what = "a positive integer" if low == 1 else f"an integer from {low}"
        raise BadConfigError(f"{name} must be {what} up to {high}, got {value!r}")
    return value


def _names(what: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    try:
        names = tuple(value)
    except TypeError:
        raise BadConfigError(f"{what} must be a list of names, got {value!r}") from None
    if not names:
        raise BadConfigError(f"{what} must name at least one entry")
    if any(not isinstance(n, str) for n in names):
        raise BadConfigError(f"{what} must be a list of names, got {value!r}")
    return tuple(dict.fromkeys(names))   # drop repeats, keep order


@dataclass(frozen=True)
class TrainingConfig:
    """Settings of one training run.

    * ``benchmark``: 1 (single sentences) or 2 (passages) — reads ``EXPORT/benchmark_N``.
    * ``models``: any of ``linear``, ``svr``, ``xgboost``, ``ffnn``, ``bilstm``, ``mean``.
    * ``encoder``: ``"sbert"`` (bundled all-MiniLM-L6-v2, default) or ``"hashing"``.
    * ``ablations``: any of ``"none"``, ``"no_axes"``, ``"shuffled_axes"``.
    * ``device``: ``"auto"`` (CUDA when available), ``"cpu"`` or ``"cuda"``.
    * ``seed``: seeds Python, NumPy, torch (and CUDA), the xgboost trees and the shuffle;
      0 … 2³² − 1.
    * ``grids``: per model, parameter → list of values; missing models/parameters take the
      defaults of :data:`annotation.training.grids.DEFAULT_GRIDS`. Stored complete, for the
      selected models only (grids of other models are validated, then dropped).
    * ``max_epochs``, ``patience`` (epochs without improvement), ``batch_size``: neural networks;
      at most :data:`MAX_EPOCHS`, :data:`MAX_PATIENCE`, :data:`MAX_BATCH_SIZE`.
    * ``torch_threads``: CPU threads torch uses while the models train (``torch.set_num_threads``
      for the duration of the run, restored afterwards; 0 keeps torch's default). One by
      default: the networks are small, so threading each operation buys little, and on a
      2-core machine shared with the app server OpenMP spin-waiting made 2 threads about 10×
      slower than 1 (measured, Bi-LSTM epoch 0.41 s vs 7.5 s). Embedding is not affected.
      At most :data:`MAX_TORCH_THREADS`.
    """

    benchmark: int = 1
    models: tuple[str, ...] = BASELINE_MODELS
    encoder: str = "sbert"
    ablations: tuple[str, ...] = ("none",)
    device: str = "auto"
    seed: int = 13
    grids: Mapping[str, Mapping[str, tuple]] = field(default_factory=dict)
    max_epochs: int = 100
    patience: int = 10
    batch_size: int = 32
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if (isinstance(self.benchmark, bool) or not isinstance(self.benchmark, int)
                or self.benchmark not in BENCHMARKS):
            raise BadConfigError(f"benchmark must be 1 (single sentences) or 2 (passages), "
                                 f"got {self.benchmark!r}")
        if (isinstance(self.seed, bool) or not isinstance(self.seed, int)
                or not 0 <= self.seed <= MAX_SEED):
            raise BadConfigError(f"seed must be an integer from 0 to {MAX_SEED}, got {self.seed!r}")
        for name, high in _UPPER.items():
            _bounded_int(name, getattr(self, name), 1, high)
        _bounded_int("torch_threads", self.torch_threads, 0, MAX_TORCH_THREADS)
        models = _names("models", self.models)
        for model in models:
            check_model_name(model)
        ablations = _names("ablations", self.ablations)
        for ablation in ablations:
            check_ablation(ablation)
        if self.encoder not in ENCODER_NAMES:
            raise BadConfigError(f"unknown encoder {self.encoder!r}; expected one of "
                                 f"{', '.join(ENCODER_NAMES)}")
        check_device_preference(self.device)
        grids = self.grids if self.grids is not None else {}
        if not isinstance(grids, Mapping):
            raise BadGridError("grids must be a mapping of model name -> grid")
        for model, grid in grids.items():
            check_grid(model, grid)   # also for models not selected: a typo is still an error
        complete = {model: check_grid(model, grids.get(model)) for model in models}
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "ablations", ablations)
        object.__setattr__(self, "grids", complete)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready dictionary (tuples become lists)."""
        data = asdict(self)
        data["models"] = list(self.models)
        data["ablations"] = list(self.ablations)
        data["grids"] = {m: {p: list(v) for p, v in g.items()} for m, g in self.grids.items()}
        return data

    def to_json(self) -> str:
        """The configuration as indented JSON (what ``config.json`` holds)."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TrainingConfig":
        """Inverse of :meth:`to_dict`; unknown keys are an error, missing keys take defaults."""
        if not isinstance(data, Mapping):
            raise BadConfigError("a training configuration must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BadConfigError(f"unknown training setting(s): {', '.join(unknown)}")
        return cls(**dict(data))

    @classmethod
    def from_json(cls, text: str) -> "TrainingConfig":
        """Inverse of :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BadConfigError(f"training configuration is not valid JSON ({exc.msg})") from None
        return cls.from_dict(data)
