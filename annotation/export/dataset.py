"""The *dataset* stage of the export: the folder layout's names, the plain input values the
service builds from the database (:class:`GoldSample`, :class:`ExportAnnotation`,
:class:`ExportSettings`, :class:`ExportMeta`), the log-base factor and the split assignment
(:func:`split_assignment`, by :func:`annotation.corpus.splits.stratified_split`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from annotation.parameters import PARAMETERS
from annotation.content import AnnotationContent
from annotation.corpus.splits import DEFAULT_RATIOS, SPLITS, check_ratios, stratified_split
from annotation.timeaxis import DEFAULT_BASE, convert_base
from annotation.wording import counted

#: The benchmarks of the Chronocept family: 1 = single sentences, 2 = multi-sentence passages.
BENCHMARKS: tuple[int, int] = (1, 2)
#: Config name of each benchmark in the dataset card.
BENCHMARK_CONFIGS: Mapping[int, str] = {1: "benchmark_1", 2: "benchmark_2"}
#: The config with every individual annotation (interchange records).
ANNOTATIONS_CONFIG = "annotations"
#: Every config, in card order; each is a folder of the export.
CONFIGS: tuple[str, str, str] = ("benchmark_1", "benchmark_2", ANNOTATIONS_CONFIG)
#: File of each split inside a config folder (the public release names validation "valid").
SPLIT_FILES: Mapping[str, str] = {"train": "train.json", "validation": "valid.json", "test": "test.json"}
CARD_FILE = "README.md"
MANIFEST_FILE = "export.json"
#: The card's agreement figures, machine-readable, beside the card (when the export has them).
AGREEMENT_FILE = "agreement.json"
#: Version of the folder layout and manifest written here.
FORMAT_VERSION = 1
DEFAULT_LICENCE = "cc-by-4.0"
DEFAULT_SEED = 0
LICENCE_MAX_CHARS = 64


class ExportError(ValueError):
    """Input that cannot be exported (message is user-facing)."""


#: Keys of a record's ``provenance`` (after the public keys), in order.
PROVENANCE_KEYS: tuple[str, ...] = ("w1", "pk", "jaccard", "resolution", "confidence", "error_type", "pooling",
                                    "pool_weights")


@dataclass(frozen=True)
class Provenance:
    """Where a sample's gold came from: ``w1`` (largest W1 between two annotators' curves, base-1.1
    log-time units), ``pk`` (largest Pk between two segmentations), ``jaccard`` (lowest token-axis
    Jaccard of two annotations), ``resolution`` (automatic / edited / taken / pooled), and the
    lead's ``confidence`` (1–5) and ``error_type`` — None where unknown or no lead decided; the rule
    that pooled the annotators' curves (``pooling``: equal / calibration / model) and each
    annotator's weight in it (``pool_weights``: JSON text, annotator pseudonym → weight) — None for
    a gold no rule pooled (a lead's edit or choice of one version, gold from before the rule was
    recorded)."""

    w1: float | None = None
    pk: float | None = None
    jaccard: float | None = None
    resolution: str | None = None
    confidence: int | None = None
    error_type: str | None = None
    pooling: str | None = None
    pool_weights: str | None = None

    def to_json(self, factor: float = 1.0) -> dict[str, Any]:
        """The record's ``provenance`` (:data:`PROVENANCE_KEYS` order), W1 rewritten with the
        export's log-base ``factor`` like location and scale.

        Examples:
            >>> Provenance(12.0, 0.1, 0.8, "pooled", 4, "guideline_gap").to_json(0.5)["w1"]
            6.0
        """
        finite = {k: (None if v is None or not math.isfinite(v) else float(v))
                  for k, v in (("w1", self.w1), ("pk", self.pk), ("jaccard", self.jaccard))}
        return {
            "w1": None if finite["w1"] is None else finite["w1"] * factor,
            "pk": finite["pk"],
            "jaccard": finite["jaccard"],
            "resolution": self.resolution,
            "confidence": self.confidence,
            "error_type": self.error_type or None,
            "pooling": self.pooling or None,
            "pool_weights": self.pool_weights or None,
        }


@dataclass(frozen=True)
class GoldSample:
    """One sample's settled (gold) values, as the service reads them from the database.

    ``external_id`` becomes the record's ``_id``; ``benchmark`` is 1 or 2; ``boundaries`` are the
    token indices where segments start (first 0); ``segment_axes[j]`` is the tuple of axis names
    (``"main"``, …) of segment j — a resolved segment may carry several, or none; ξ, ω, α are in
    base-1.1 log minutes (α unitless), ω > 0. Lists are accepted and stored as tuples.
    """

    external_id: str
    benchmark: int
    parent_text: str
    boundaries: tuple[int, ...]
    segment_axes: tuple[tuple[str, ...], ...]
    xi: float
    omega: float
    alpha: float
    provenance: Provenance = Provenance()

    def __post_init__(self) -> None:
        if not isinstance(self.external_id, str) or not self.external_id:
            raise ExportError(f"a sample needs a non-empty text id, got {self.external_id!r}")
        if self.benchmark not in BENCHMARKS:
            raise ExportError(f"sample {self.external_id}: benchmark must be 1 or 2, got {self.benchmark!r}")
        if not isinstance(self.parent_text, str):
            raise ExportError(f"sample {self.external_id}: the text must be a string")
        object.__setattr__(self, "boundaries", tuple(self.boundaries))
        axes = []
        for names in self.segment_axes:
            if isinstance(names, str):
                raise ExportError(
                    f"sample {self.external_id}: each segment needs a tuple of axis names, not {names!r}"
                )
            axes.append(tuple(names))
        object.__setattr__(self, "segment_axes", tuple(axes))
        if len(self.segment_axes) != len(self.boundaries):
            raise ExportError(
                f"sample {self.external_id}: {counted(len(self.segment_axes), 'axis set')} for "
                f"{counted(len(self.boundaries), 'segment')}"
            )
        for name in PARAMETERS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ExportError(f"sample {self.external_id}: {name} must be a finite number, got {value!r}")
        if self.omega <= 0:
            raise ExportError(f"sample {self.external_id}: the scale ω must be positive, got {self.omega!r}")

    @property
    def axis_names(self) -> frozenset[str]:
        """The axes the sample uses (the labels its split is stratified on)."""
        return frozenset(name for names in self.segment_axes for name in names)


@dataclass(frozen=True)
class ExportAnnotation:
    """One individual annotation for the ``annotations`` config: the annotator's pseudonym
    (never a user name), the stored content (parameters and points in base-1.1 log minutes) and
    the submission time. Written as :func:`annotation.corpus.interchange.to_interchange` writes it.

    Where the service already holds interchange dicts (``to_interchange``'s output, base 1.1),
    it may pass those to :func:`export_hf_dataset` instead.
    """

    sample_id: str
    annotator: str
    content: AnnotationContent
    submitted_at: datetime | None


@dataclass(frozen=True)
class ExportSettings:
    """What the lead chooses at export: the log base of the exported values (> 1; stored values
    are base 1.1), the split seed, the licence (an SPDX-style id such as ``cc-by-4.0``, written
    to the card's ``license:``) and the split ratios (train, validation, test)."""

    base: float = DEFAULT_BASE
    seed: int = DEFAULT_SEED
    licence: str = DEFAULT_LICENCE
    ratios: tuple[float, float, float] = DEFAULT_RATIOS

    def __post_init__(self) -> None:
        base_factor(self.base)  # raises ValueError unless base > 1
        object.__setattr__(self, "base", float(self.base))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ExportError(f"the seed must be a whole number, got {self.seed!r}")
        licence = self.licence.strip() if isinstance(self.licence, str) else ""
        if not licence or len(licence) > LICENCE_MAX_CHARS or any(c.isspace() for c in licence):
            raise ExportError(
                f"the licence must be an identifier such as {DEFAULT_LICENCE} "
                f"(1–{LICENCE_MAX_CHARS} characters, no spaces), got {self.licence!r}"
            )
        object.__setattr__(self, "licence", licence)
        object.__setattr__(self, "ratios", check_ratios(self.ratios))


@dataclass(frozen=True)
class ExportMeta:
    """Who and what the export is: its id (the database row's), the project's name, who made it
    (a user name or pseudonym) and when (a datetime, written as ISO 8601 UTC, or such a string)."""

    export_id: str | int
    project: str
    created_by: str
    created_at: datetime | str

    @property
    def created_at_text(self) -> str:
        if isinstance(self.created_at, datetime):
            moment = self.created_at
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return str(self.created_at)

    @classmethod
    def of(cls, meta: "ExportMeta | Mapping[str, Any]") -> "ExportMeta":
        """Accept an ExportMeta or a mapping with the same keys."""
        if isinstance(meta, ExportMeta):
            return meta
        missing = [k for k in ("export_id", "project", "created_by", "created_at") if k not in meta]
        if missing:
            raise ExportError(f"export metadata lacks {', '.join(missing)}")
        return cls(meta["export_id"], str(meta["project"]), str(meta["created_by"]), meta["created_at"])


def base_factor(base: float) -> float:
    """What location, scale and a point's x are multiplied by to go from the stored base 1.1 to
    log base ``base``: ln(1.1)/ln(base) (:func:`annotation.timeaxis.convert_base`; 1.0 for
    base 1.1, ≈ 0.0953 for base e). Raises ValueError unless ``base`` > 1."""
    return convert_base(1.0, 1.0, 0.0, DEFAULT_BASE, base)[0]


def split_assignment(
    ordered: Sequence[GoldSample], settings: ExportSettings, splits: Mapping[str, str] | None
) -> dict[str, str]:
    """``{_id: split}`` for every sample: the given one, or a stratified split per benchmark."""
    seen: set[str] = set()
    for sample in ordered:
        if sample.external_id in seen:
            raise ExportError(f"sample id {sample.external_id!r} appears more than once")
        seen.add(sample.external_id)
    if splits is not None:
        assignment: dict[str, str] = {}
        missing = []
        for sample in ordered:
            split = splits.get(sample.external_id)
            if split is None:
                missing.append(sample.external_id)
            elif split not in SPLITS:
                raise ExportError(f"sample {sample.external_id}: unknown split {split!r}")
            else:
                assignment[sample.external_id] = split
        if missing:
            shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
            raise ExportError(f"{len(missing)} samples have no split in the given assignment: {shown}")
        return assignment
    assignment = {}
    for benchmark in BENCHMARKS:
        members = [s for s in ordered if s.benchmark == benchmark]
        assignment.update(stratified_split(
            [s.external_id for s in members], [s.axis_names for s in members],
            seed=settings.seed, ratios=settings.ratios,
        ))
    return assignment
