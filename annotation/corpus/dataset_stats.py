"""Descriptive statistics of one exported benchmark: the figures of the dataset card and of the
statistics page (one source for both).

Input is the export's records (SPEC section 7), grouped by split::

    {"train": [{"_id": ..., "parent_text": ..., "axes": {...}, "target_values": {...}}, ...],
     "validation": [...], "test": [...]}

For every split and for all splits together: the number of samples, how many samples use each
axis (a non-empty axis field) and their share, the token length of the parent text (tokens of
:func:`annotation.segmentation.tokenize`, the project's one tokenizer) and the mean and standard
deviation of each target value (location ξ, scale ω, skewness α, in the export's log base).

Standard deviations are *sample* standard deviations (n − 1 in the denominator); a figure that
cannot be computed (a mean of no values, an SD of fewer than two) is None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.axes import EXPORT_KEYS
from annotation.segmentation import tokenize
from annotation.corpus.splits import SPLITS

#: Keys of a record's ``target_values``, in record order (consumers read them positionally),
#: with the skew-normal parameter each one holds: location ξ, scale ω, skewness (shape) α.
TARGET_KEYS: tuple[str, str, str] = ("location", "scale", "skewness")
PARAMETER_OF_TARGET: Mapping[str, str] = {"location": "xi", "scale": "omega", "skewness": "alpha"}


@dataclass(frozen=True)
class MeanSD:
    """Mean and sample standard deviation (n − 1) of ``n`` values; None where undefined."""

    n: int
    mean: float | None
    sd: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> "MeanSD":
        n = len(values)
        if n == 0:
            return cls(0, None, None)
        mean = math.fsum(values) / n
        if n == 1:
            return cls(1, mean, None)
        variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        return cls(n, mean, math.sqrt(variance))

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "mean": self.mean, "sd": self.sd}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "MeanSD":
        return cls(int(data["n"]), data.get("mean"), data.get("sd"))


@dataclass(frozen=True)
class SplitStatistics:
    """The figures of one split (or of all splits together).

    ``axis_counts`` / ``axis_shares``: samples using each axis and their share of ``n_samples``
    (0.0 for an empty split), keyed by export key in :data:`annotation.axes.AXES` order;
    ``token_length``: tokens per parent text; ``targets``: one :class:`MeanSD` per key of
    :data:`TARGET_KEYS` (in the export's log base, skewness unitless).
    """

    n_samples: int
    axis_counts: Mapping[str, int]
    axis_shares: Mapping[str, float]
    token_length: MeanSD
    targets: Mapping[str, MeanSD]

    def to_json(self) -> dict[str, Any]:
        return {
            "n_samples": self.n_samples,
            "axis_counts": dict(self.axis_counts),
            "axis_shares": dict(self.axis_shares),
            "token_length": self.token_length.to_json(),
            "targets": {key: figure.to_json() for key, figure in self.targets.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SplitStatistics":
        return cls(
            n_samples=int(data["n_samples"]),
            axis_counts={key: int(data["axis_counts"][key]) for key in EXPORT_KEYS},
            axis_shares={key: float(data["axis_shares"][key]) for key in EXPORT_KEYS},
            token_length=MeanSD.from_json(data["token_length"]),
            targets={key: MeanSD.from_json(data["targets"][key]) for key in TARGET_KEYS},
        )


@dataclass(frozen=True)
class DatasetStatistics:
    """Statistics of one benchmark: ``overall`` over all its samples and ``by_split`` for each
    split of :data:`annotation.corpus.splits.SPLITS` (in that order, empty splits included)."""

    overall: SplitStatistics
    by_split: Mapping[str, SplitStatistics]

    @property
    def split_sizes(self) -> dict[str, int]:
        """Samples per split, in :data:`SPLITS` order."""
        return {split: figures.n_samples for split, figures in self.by_split.items()}

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (None for undefined figures)."""
        return {
            "split_sizes": self.split_sizes,
            "overall": self.overall.to_json(),
            "by_split": {split: figures.to_json() for split, figures in self.by_split.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DatasetStatistics":
        return cls(
            overall=SplitStatistics.from_json(data["overall"]),
            by_split={split: SplitStatistics.from_json(data["by_split"][split]) for split in SPLITS},
        )


def dataset_statistics(
    records_by_split: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    token_lengths: Mapping[str, int] | None = None,
) -> DatasetStatistics:
    """The statistics of one benchmark from its export records grouped by split.

    ``records_by_split`` maps split names of :data:`SPLITS` to export records; a missing split
    counts as empty, an unknown split name raises ValueError. ``token_lengths`` optionally maps
    ``_id`` to the token count of its parent text when the caller already has it (the export
    does), sparing a second tokenization; ids missing from it are tokenized here.
    """
    unknown = sorted(set(records_by_split) - set(SPLITS))
    if unknown:
        raise ValueError(f"unknown split {', '.join(map(repr, unknown))}; expected {', '.join(SPLITS)}")
    lengths = token_lengths or {}
    by_split: dict[str, SplitStatistics] = {}
    columns_by_split: dict[str, tuple[list[int], dict[str, int], dict[str, list[float]]]] = {}
    for split in SPLITS:
        records = records_by_split.get(split, ())
        token_counts = [
            lengths[r["_id"]] if r["_id"] in lengths else len(tokenize(r["parent_text"]))
            for r in records
        ]
        axis_counts = {key: 0 for key in EXPORT_KEYS}
        for record in records:
            for key, text in record["axes"].items():
                if key not in axis_counts:
                    raise ValueError(f"record {record['_id']!r}: unknown axis key {key!r}")
                if text:
                    axis_counts[key] += 1
        targets = {key: [float(r["target_values"][key]) for r in records] for key in TARGET_KEYS}
        columns_by_split[split] = (token_counts, axis_counts, targets)
        by_split[split] = _split_statistics(len(records), token_counts, axis_counts, targets)

    all_tokens = [n for split in SPLITS for n in columns_by_split[split][0]]
    all_axes = {key: sum(columns_by_split[split][1][key] for split in SPLITS) for key in EXPORT_KEYS}
    all_targets = {key: [v for split in SPLITS for v in columns_by_split[split][2][key]] for key in TARGET_KEYS}
    overall = _split_statistics(len(all_tokens), all_tokens, all_axes, all_targets)
    return DatasetStatistics(overall=overall, by_split=by_split)


def _split_statistics(
    n_samples: int,
    token_counts: Sequence[int],
    axis_counts: Mapping[str, int],
    targets: Mapping[str, Sequence[float]],
) -> SplitStatistics:
    return SplitStatistics(
        n_samples=n_samples,
        axis_counts=dict(axis_counts),
        axis_shares={key: (axis_counts[key] / n_samples if n_samples else 0.0) for key in EXPORT_KEYS},
        token_length=MeanSD.of(token_counts),
        targets={key: MeanSD.of(targets[key]) for key in TARGET_KEYS},
    )
