"""Target scaling: ξ, ω, α z-scored with the statistics of the training split only.

The Chronocept baselines regress z-scored targets so the three parameters, whose units differ
(log steps for ξ and ω, a dimensionless shape for α), weigh equally in the loss and in metrics
averaged over them. The mean and standard deviation come from the training split and are
applied unchanged to validation and test — computing them per split would leak the evaluation
targets into the predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .data import TARGET_KEYS


@dataclass(frozen=True)
class TargetScaler:
    """Per-parameter mean and standard deviation (population, ddof=0) of the training targets,
    in the export's units, in :data:`TARGET_KEYS` order."""

    mean: tuple[float, float, float]
    std: tuple[float, float, float]

    def transform(self, targets: np.ndarray) -> np.ndarray:
        """Original units → z-scores: ``(y − mean) / std`` column-wise."""
        y = np.asarray(targets, dtype=np.float64)
        return (y - np.asarray(self.mean)) / np.asarray(self.std)

    def inverse_transform(self, z: np.ndarray) -> np.ndarray:
        """z-scores → original units: ``z · std + mean`` column-wise."""
        return np.asarray(z, dtype=np.float64) * np.asarray(self.std) + np.asarray(self.mean)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"location": {"mean": .., "std": ..}, ...}``."""
        return {key: {"mean": m, "std": s} for key, m, s in zip(TARGET_KEYS, self.mean, self.std)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, float]]) -> "TargetScaler":
        """Inverse of :meth:`to_dict`."""
        mean = tuple(float(data[key]["mean"]) for key in TARGET_KEYS)
        std = tuple(float(data[key]["std"]) for key in TARGET_KEYS)
        return cls(mean=mean, std=std)  # type: ignore[arg-type]


def fit_target_scaler(train_targets: np.ndarray) -> TargetScaler:
    """Scaler from the *training* targets (n, 3). A constant column gets std 1 (its z-scores
    are then just centred), so a degenerate split never divides by zero."""
    y = np.asarray(train_targets, dtype=np.float64)
    if y.ndim != 2 or y.shape[1] != len(TARGET_KEYS) or y.shape[0] == 0:
        raise ValueError(f"training targets must have shape (n>0, 3), got {y.shape}")
    mean = y.mean(axis=0)
    std = y.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return TargetScaler(mean=tuple(float(v) for v in mean),  # type: ignore[arg-type]
                        std=tuple(float(v) for v in std))  # type: ignore[arg-type]
