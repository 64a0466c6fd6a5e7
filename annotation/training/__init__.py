"""Baseline training on an exported Chronocept dataset (SPEC section 8) — pure, no Streamlit/SQL.

Entry points::

    from annotation.training import TrainingConfig, run_training, load_run, results_table
    results = run_training("exports/7", "runs/7-a", TrainingConfig(models=("linear", "ffnn")))
    print(results_table(results))

Importing this package is cheap: torch, scikit-learn and xgboost are imported only when a run
starts, so pages that only read past runs (:func:`load_run`) do not pay for them.
"""

from __future__ import annotations

from .ablations import ABLATIONS, apply_ablation
from .config import TrainingConfig
from .data import (
    MIN_SAMPLES_PER_SPLIT,
    SPLITS,
    TARGET_KEYS,
    ExportManifest,
    Sample,
    load_split_records,
    read_manifest,
)
from .device import DEVICE_PREFERENCES, resolve_device, seed_everything
from .encoders import ENCODER_NAMES, HashingEncoder, SbertEncoder, TextEncoder, make_encoder
from .errors import (
    BadConfigError,
    BadGridError,
    DeviceUnavailableError,
    ExportFormatError,
    ExportNotFoundError,
    NotEnoughSamplesError,
    RunFolderError,
    TrainingCancelled,
    TrainingInputError,
    UnknownModelError,
)
from .grids import BASELINE_MODELS, DEFAULT_GRIDS, MODEL_NAMES
from .results import (
    METRIC_COLUMNS,
    METRIC_LABELS,
    UNDEFINED_REASONS,
    ResultRow,
    TrainingResults,
    load_run,
    results_table,
)
from .runner import read_config, run_training
from .synthetic import write_synthetic_export

__all__ = [
    "ABLATIONS", "BASELINE_MODELS", "DEFAULT_GRIDS", "DEVICE_PREFERENCES", "ENCODER_NAMES",
    "METRIC_COLUMNS", "METRIC_LABELS", "MIN_SAMPLES_PER_SPLIT", "MODEL_NAMES", "SPLITS", "TARGET_KEYS",
    "UNDEFINED_REASONS",
    "BadConfigError", "BadGridError", "DeviceUnavailableError", "ExportFormatError",
    "ExportManifest", "ExportNotFoundError", "HashingEncoder", "NotEnoughSamplesError",
    "ResultRow", "RunFolderError", "Sample", "SbertEncoder", "TextEncoder", "TrainingCancelled",
    "TrainingConfig", "TrainingInputError", "TrainingResults", "UnknownModelError",
    "apply_ablation", "load_run", "load_split_records", "make_encoder", "read_config",
    "read_manifest", "resolve_device", "results_table", "run_training", "seed_everything",
    "write_synthetic_export",
]
