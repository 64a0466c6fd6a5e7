"""The export's manifest, ``export.json``: who made it, when, with which settings, the counts and
the split membership — enough to describe the export and to repeat it exactly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.corpus.dataset_stats import DatasetStatistics
from annotation.export.dataset import BENCHMARK_CONFIGS, FORMAT_VERSION
from annotation.export.tvcp import TVCP_CONFIG
from annotation.corpus.splits import assignment_from_membership


@dataclass(frozen=True)
class ExportManifest:
    """The content of ``export.json``: enough to describe the export and to repeat it exactly.

    ``counts[config][split]`` is the number of records of each config (:data:`CONFIGS`) and
    split (:data:`SPLITS`); ``splits[benchmark config][split]`` the sorted ``_id`` lists (the
    membership); ``annotations_left_out`` the annotations given whose sample was not exported;
    ``agreement`` the figures shown on the card (plain JSON, None when not given);
    ``statistics[benchmark config]`` is :meth:`DatasetStatistics.to_json` of that benchmark.
    """

    export_id: str | int
    project: str
    created_at: str
    created_by: str
    base: float
    seed: int
    licence: str
    ratios: tuple[float, float, float]
    counts: Mapping[str, Mapping[str, int]]
    splits: Mapping[str, Mapping[str, list[str]]]
    annotations_left_out: int = 0
    agreement: Mapping[str, Any] | None = None
    statistics: Mapping[str, Any] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION

    def assignment(self) -> dict[str, str]:
        """``{_id: split}`` over both benchmarks (or the pairs of a ``tvcp`` export) — what :func:`export_hf_dataset` takes as
        ``splits`` to reproduce this export."""
        assignment: dict[str, str] = {}
        # the sample configs' membership: both benchmarks, or a pairs project's ``tvcp``
        for config in (*BENCHMARK_CONFIGS.values(), TVCP_CONFIG):
            assignment.update(assignment_from_membership(self.splits.get(config, {})))
        return assignment

    def benchmark_statistics(self, config: str) -> DatasetStatistics:
        """The statistics of one benchmark config, as stored in the manifest."""
        return DatasetStatistics.from_json(self.statistics[config])

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "export_id": self.export_id,
            "project": self.project,
            "created_at": self.created_at,
            "created_by": self.created_by,
            "base": self.base,
            "seed": self.seed,
            "licence": self.licence,
            "ratios": list(self.ratios),
            "counts": {c: dict(per_split) for c, per_split in self.counts.items()},
            "annotations_left_out": self.annotations_left_out,
            "agreement": self.agreement,
            "statistics": dict(self.statistics),
            "splits": {c: {s: list(ids) for s, ids in per_split.items()} for c, per_split in self.splits.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ExportManifest":
        return cls(
            export_id=data["export_id"],
            project=data["project"],
            created_at=data["created_at"],
            created_by=data["created_by"],
            base=float(data["base"]),
            seed=int(data["seed"]),
            licence=data["licence"],
            ratios=tuple(float(r) for r in data["ratios"]),  # type: ignore[arg-type]
            counts={c: {s: int(n) for s, n in per_split.items()} for c, per_split in data["counts"].items()},
            splits={c: {s: list(ids) for s, ids in per_split.items()} for c, per_split in data["splits"].items()},
            annotations_left_out=int(data.get("annotations_left_out", 0)),
            agreement=data.get("agreement"),
            statistics=data.get("statistics") or {},
            format_version=int(data.get("format_version", FORMAT_VERSION)),
        )
