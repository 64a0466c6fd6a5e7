"""The HuggingFace dataset export (SPEC section 7): gold samples and annotations → a folder that
``datasets.load_dataset(folder, "benchmark_1")`` loads offline.

Shaped like doccano's export pipeline — **dataset → formatter → writer** — with one short task
function, :func:`export_hf_dataset`, driving it:

* *dataset*: the plain input values the service builds from the database
  (:class:`GoldSample`, :class:`ExportAnnotation` or interchange dicts, :class:`ExportSettings`,
  :class:`ExportMeta`) and the split assignment (:func:`annotation.splits.stratified_split`);
* *formatters*: :func:`benchmark_record` (one gold sample → one benchmark record),
  :func:`annotation_record` (one annotation → one interchange record, SPEC section 11),
  :func:`dataset_card` (the README.md);
* *writer*: :func:`write_json_lines`, and the atomic move into place.

Folder layout (the public Chronocept release's, plus the ``annotations`` config and a manifest)::

    OUT/README.md                         dataset card, YAML header declaring the configs
    OUT/benchmark_1/train.json valid.json test.json      JSON Lines, one record per sample
    OUT/benchmark_2/train.json valid.json test.json
    OUT/annotations/train.json valid.json test.json      every individual annotation of the
                                                         samples of that split
    OUT/export.json                       manifest: who/when/settings/counts/split membership

Benchmark record (key order fixed; consumers read ``axes`` and ``target_values`` positionally)::

    {"_id": "B1-00042", "parent_text": "...",
     "axes": {"main_outcome_axis": "...", "static_axis": "", ..., "recurrent_axis": ""},
     "target_values": {"location": 54.1, "scale": 11.2, "skewness": -0.4}}

Each axis field is the text of the segments carrying that axis, in text order, joined by one
space, "" when none; a segment's text runs from its first token's start to its last token's end
(tokens of :func:`annotation.segmentation.tokenize`). A gold segment can carry several axes and
then contributes to each. Stored parameters are on the base-1.1 log-minute axis; an export in
base b multiplies location and scale — and the annotation points' x — by ln(1.1)/ln(b)
(:func:`annotation.timeaxis.convert_base`); skewness is unchanged.

**Empty splits.** ``datasets`` 5.2 cannot load a declared split that has no rows ("Instruction
... corresponds to no data", huggingface/datasets PR #8401, open). So every split file is always
written — possibly empty — and counted in the manifest, but the card's YAML declares only the
splits that have rows, and only the configs that have rows. Loading an export without benchmark-2
samples as ``"benchmark_2"`` therefore raises datasets' "BuilderConfig 'benchmark_2' not found"
error; a config with an empty test split loads without a ``test`` key. :func:`read_export` reads
every file, empty ones included.

**Atomic.** Everything is written into a hidden sibling folder ``.OUT.tmp-…`` and renamed into
place when complete; an exception removes it and leaves OUT as it was. A process killed meanwhile
cannot remove it: the folder holds a marker naming its writer (host, process id, start time,
:data:`WRITER_MARKER`, removed just before the rename), so :func:`remove_abandoned_staging` can
later tell an abandoned folder from one a live export (this server's or another's) still writes.
"""

from __future__ import annotations

import gc
import io
import json
import math
import os
import re
import shutil
import socket
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from annotation.axes import AXES, AXIS_NAMES, EXPORT_KEYS
from annotation.dataset_stats import (
    PARAMETER_OF_TARGET,
    TARGET_KEYS,
    DatasetStatistics,
    dataset_statistics,
)
from annotation.interchange import parse_submitted_at, to_interchange
from annotation.protocol import AnnotationContent
from annotation.segmentation import token_spans
from annotation.splits import (
    DEFAULT_RATIOS,
    SPLITS,
    assignment_from_membership,
    check_ratios,
    stratified_split,
)
from annotation.timeaxis import DEFAULT_BASE, convert_base, minutes_to_x
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
#: Version of the folder layout and manifest written here.
FORMAT_VERSION = 1
DEFAULT_LICENCE = "cc-by-4.0"
DEFAULT_SEED = 0
LICENCE_MAX_CHARS = 64

#: Keys of a benchmark record, in record order.
RECORD_KEYS: tuple[str, str, str, str] = ("_id", "parent_text", "axes", "target_values")
#: Keys of an annotation record, in record order: those of the interchange record (SPEC
#: section 11), read off :func:`annotation.interchange.to_interchange`, which defines them.
ANNOTATION_KEYS: tuple[str, ...] = tuple(to_interchange("", "", AnnotationContent(), None))

_EXPORT_KEY_OF_AXIS: Mapping[str, str] = {axis.name: axis.export_key for axis in AXES}
_AXIS_NAME_SET = frozenset(AXIS_NAMES)
# One encoder for every line: non-ASCII text kept as is, NaN refused (it is not JSON).
_encode_json = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


class ExportError(ValueError):
    """Input that cannot be exported (message is user-facing)."""


# --- dataset: the input values ----------------------------------------------------------------


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
        for name in ("xi", "omega", "alpha"):
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
    the submission time. Written as :func:`annotation.interchange.to_interchange` writes it.

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
        """``{_id: split}`` over both benchmarks — what :func:`export_hf_dataset` takes as
        ``splits`` to reproduce this export."""
        assignment: dict[str, str] = {}
        for config in BENCHMARK_CONFIGS.values():
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


@dataclass(frozen=True)
class ExportContents:
    """An export folder read back: its manifest, card text and records,
    ``records[config][split]`` as plain dicts in file order (each config that was read, every
    split present, possibly empty)."""

    folder: Path
    manifest: ExportManifest
    card: str
    records: Mapping[str, Mapping[str, list[dict[str, Any]]]]


# --- formatters -------------------------------------------------------------------------------


def axis_texts(
    parent_text: str,
    boundaries: Sequence[int],
    segment_axes: Sequence[Sequence[str]],
) -> tuple[dict[str, str], int]:
    """The ``axes`` field of a record and the text's token count.

    For every axis (export key, AXES order): the text of the segments carrying it, in text
    order, joined by a space; "" when none. A segment's text is ``parent_text`` from its first
    token's start to its last token's end. Raises :class:`ExportError` when the boundaries do not
    partition the tokens (first 0, strictly increasing, inside the text) or an axis is unknown.
    """
    spans = token_spans(parent_text)
    n_tokens = len(spans)
    previous = -1
    for start in boundaries:
        if isinstance(start, bool) or not isinstance(start, int) or start <= previous or start >= n_tokens:
            raise ExportError(
                f"boundaries {list(boundaries)} do not partition a text of {n_tokens} tokens"
            )
        previous = start
    if not boundaries or boundaries[0] != 0:
        raise ExportError(f"boundaries {list(boundaries)} must start at token 0")
    parts: dict[str, list[str]] = {}
    ends = (*boundaries[1:], n_tokens)
    for start, end, names in zip(boundaries, ends, segment_axes):
        if not names:
            continue
        text = parent_text[spans[start][0] : spans[end - 1][1]]
        for name in names:
            parts.setdefault(name, []).append(text)
    if not parts.keys() <= _AXIS_NAME_SET:
        unknown = sorted(parts.keys() - _AXIS_NAME_SET)
        raise ExportError(f"unknown axis {', '.join(map(repr, unknown))}; expected one of {', '.join(AXIS_NAMES)}")
    return {
        key: " ".join(parts[name]) if name in parts else ""
        for name, key in _EXPORT_KEY_OF_AXIS.items()
    }, n_tokens


def base_factor(base: float) -> float:
    """What location, scale and a point's x are multiplied by to go from the stored base 1.1 to
    log base ``base``: ln(1.1)/ln(base) (:func:`annotation.timeaxis.convert_base`; 1.0 for
    base 1.1, ≈ 0.0953 for base e). Raises ValueError unless ``base`` > 1."""
    return convert_base(1.0, 1.0, 0.0, DEFAULT_BASE, base)[0]


def benchmark_record(sample: GoldSample, base: float = DEFAULT_BASE) -> tuple[dict[str, Any], int]:
    """One gold sample as a benchmark record (key order :data:`RECORD_KEYS`), its parameters
    rewritten in log base ``base``, and the parent text's token count."""
    return _benchmark_record(sample, base_factor(base))


def _benchmark_record(sample: GoldSample, factor: float) -> tuple[dict[str, Any], int]:
    try:
        axes, n_tokens = axis_texts(sample.parent_text, sample.boundaries, sample.segment_axes)
    except ExportError as exc:
        raise ExportError(f"sample {sample.external_id}: {exc}") from None
    record = {
        "_id": sample.external_id,
        "parent_text": sample.parent_text,
        "axes": axes,
        "target_values": {
            "location": float(sample.xi) * factor,
            "scale": float(sample.omega) * factor,
            "skewness": float(sample.alpha),
        },
    }
    return record, n_tokens


def annotation_record(
    annotation: ExportAnnotation | Mapping[str, Any], base: float = DEFAULT_BASE
) -> dict[str, Any]:
    """One annotation as an interchange record (SPEC section 11, key order
    :data:`ANNOTATION_KEYS`) with ξ, ω and the points' x rewritten in log base ``base``
    (α and the points' y unchanged). Accepts an :class:`ExportAnnotation` or an interchange dict
    in base 1.1 (its ``submitted_at`` rewritten as ``YYYY-MM-DDTHH:MM:SSZ``, the form
    ``datasets`` reads as the declared ``timestamp[s, tz=UTC]``)."""
    return _annotation_record(annotation, base_factor(base))


def _annotation_record(annotation: ExportAnnotation | Mapping[str, Any], factor: float) -> dict[str, Any]:
    if isinstance(annotation, ExportAnnotation):
        record = to_interchange(annotation.sample_id, annotation.annotator, annotation.content,
                                annotation.submitted_at)
    else:
        missing = [k for k in ANNOTATION_KEYS if k not in annotation]
        if missing:
            raise ExportError(f"annotation record lacks {', '.join(missing)}")
        record = {key: annotation[key] for key in ANNOTATION_KEYS}
        if record["submitted_at"] is not None:  # the one timestamp form the card declares
            try:
                moment = parse_submitted_at(record["submitted_at"])
            except ValueError as exc:
                raise ExportError(f"annotation of {record['sample_id']}: {exc}") from None
            record["submitted_at"] = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if factor != 1.0:
        record["points"] = [[x * factor, y] for x, y in record["points"] or ()]
        for key in ("xi", "omega"):
            if record[key] is not None:
                record[key] = record[key] * factor
    return record


# --- writer -----------------------------------------------------------------------------------


def write_json_lines(path: Path, lines: Sequence[str]) -> None:
    """Write already-encoded JSON lines to ``path`` (UTF-8, "\\n" after each; empty file for
    none) in one buffered write."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        if lines:
            handle.write("\n".join(lines))
            handle.write("\n")


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


# --- the task ---------------------------------------------------------------------------------


def export_hf_dataset(
    out_dir: Path | str,
    samples: Iterable[GoldSample],
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]],
    settings: ExportSettings,
    *,
    meta: ExportMeta | Mapping[str, Any],
    agreement: Mapping[str, Any] | None = None,
    splits: Mapping[str, str] | None = None,
    overwrite: bool = False,
) -> ExportManifest:
    """Write the HuggingFace dataset folder ``out_dir`` (layout in the module docstring) and
    return its manifest.

    ``samples``: the gold samples of both benchmarks (ids unique). ``annotations``: the
    individual annotations (:class:`ExportAnnotation` or interchange dicts); those whose sample
    is not among ``samples`` are left out and counted. ``splits``: ``{_id: split}`` to reproduce
    a stored export exactly (every sample must have one; extra ids are ignored); when None each
    benchmark is split by :func:`annotation.splits.stratified_split` over the axes its samples
    use, with ``settings.seed`` and ``settings.ratios``. ``agreement``: figures for the card
    (e.g. ``{"icc_xi": 0.93, "jaccard": 0.81, "pk": 0.12}`` or nested mappings), rendered as
    given. ``meta``: :class:`ExportMeta` or a mapping with its keys.

    Atomic: written into a hidden temporary sibling of ``out_dir`` and renamed into place when
    complete. Raises FileExistsError when ``out_dir`` exists and is not an empty folder (unless
    ``overwrite``, which replaces it), :class:`ExportError` (a ValueError) for bad input; after
    any exception ``out_dir`` is as it was and no temporary folder is left.
    """
    out_dir = Path(os.path.abspath(out_dir))
    if not out_dir.name:
        raise ExportError(f"cannot export into {out_dir}")
    _check_destination(out_dir, overwrite)
    meta = ExportMeta.of(meta)
    # Formatting allocates a few million small, acyclic objects next to the caller's large input;
    # the cyclic collector would rescan that heap again and again (measured: 2–3× slower at
    # 100k samples). Nothing here makes cycles, so collection waits until the export is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _export(out_dir, samples, annotations, settings, meta, agreement, splits, overwrite)
    finally:
        if collecting:
            gc.enable()


def _export(
    out_dir: Path,
    samples: Iterable[GoldSample],
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]],
    settings: ExportSettings,
    meta: ExportMeta,
    agreement: Mapping[str, Any] | None,
    splits: Mapping[str, str] | None,
    overwrite: bool,
) -> ExportManifest:
    factor = base_factor(settings.base)

    ordered = sorted(samples, key=lambda s: s.external_id)
    split_of = _split_assignment(ordered, settings, splits)

    # Formatters: one pass over the samples and one over the annotations, encoding as they go.
    records, lines, token_lengths = _format_samples(ordered, split_of, factor)
    lines[ANNOTATIONS_CONFIG], left_out = _format_annotations(annotations, split_of, factor)

    statistics = {
        config: dataset_statistics(records[config], token_lengths=token_lengths).to_json()
        for config in BENCHMARK_CONFIGS.values()
    }
    manifest = ExportManifest(
        export_id=meta.export_id,
        project=meta.project,
        created_at=meta.created_at_text,
        created_by=meta.created_by,
        base=settings.base,
        seed=settings.seed,
        licence=settings.licence,
        ratios=settings.ratios,
        counts={c: {s: len(lines[c][s]) for s in SPLITS} for c in CONFIGS},
        splits={
            config: {s: [r["_id"] for r in records[config][s]] for s in SPLITS}
            for config in BENCHMARK_CONFIGS.values()
        },
        annotations_left_out=left_out,
        agreement=_plain_json(agreement) if agreement is not None else None,
        statistics=statistics,
    )
    card = dataset_card(manifest)

    def write(folder: Path) -> None:
        for config in CONFIGS:
            (folder / config).mkdir()
            for split in SPLITS:
                write_json_lines(folder / config / SPLIT_FILES[split], lines[config][split])
        _write_text(folder / CARD_FILE, card)
        _write_text(folder / MANIFEST_FILE,
                    json.dumps(manifest.to_json(), ensure_ascii=False, indent=1, allow_nan=False) + "\n")

    _write_atomically(out_dir, write, overwrite)
    return manifest


def _format_samples(
    ordered: Sequence[GoldSample], split_of: Mapping[str, str], factor: float
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], dict[str, dict[str, list[str]]], dict[str, int]]:
    """Records and encoded lines per benchmark config and split (in ``ordered`` order), and the
    token count of every sample's text."""
    records: dict[str, dict[str, list[dict[str, Any]]]] = {
        c: {s: [] for s in SPLITS} for c in BENCHMARK_CONFIGS.values()
    }
    lines: dict[str, dict[str, list[str]]] = {c: {s: [] for s in SPLITS} for c in BENCHMARK_CONFIGS.values()}
    token_lengths: dict[str, int] = {}
    for sample in ordered:
        record, n_tokens = _benchmark_record(sample, factor)
        config, split = BENCHMARK_CONFIGS[sample.benchmark], split_of[sample.external_id]
        records[config][split].append(record)
        lines[config][split].append(_encode_line(record, sample.external_id))
        token_lengths[sample.external_id] = n_tokens
    return records, lines, token_lengths


def _format_annotations(
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]], split_of: Mapping[str, str], factor: float
) -> tuple[dict[str, list[str]], int]:
    """Encoded annotation lines per split of their sample, ordered by (sample, submission time,
    annotator) whatever the input order, and how many were left out (sample not exported)."""
    keyed: dict[str, list[tuple[str, str, str, str]]] = {s: [] for s in SPLITS}
    left_out = 0
    for annotation in annotations:
        record = _annotation_record(annotation, factor)
        split = split_of.get(record["sample_id"])
        if split is None:
            left_out += 1
            continue
        line = _encode_line(record, record["sample_id"])
        keyed[split].append((record["sample_id"], record["submitted_at"] or "", record["annotator"], line))
    lines = {}
    for split in SPLITS:
        keyed[split].sort()
        lines[split] = [item[3] for item in keyed[split]]
    return lines, left_out


def _encode_line(record: Mapping[str, Any], sample_id: str) -> str:
    try:
        return _encode_json(record)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"sample {sample_id}: cannot write the record as JSON ({exc})") from None


def _split_assignment(
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


def _check_destination(out_dir: Path, overwrite: bool) -> None:
    if out_dir.is_symlink() or out_dir.exists():
        if not out_dir.is_dir() or out_dir.is_symlink():
            raise FileExistsError(f"{out_dir} exists and is not a folder; choose another place")
        if not overwrite and any(out_dir.iterdir()):
            raise FileExistsError(
                f"{out_dir} is not empty; choose an empty or new folder, or overwrite it"
            )


#: The file inside a staging folder that names its writer (removed before the folder goes live).
WRITER_MARKER = ".chronocept-writer.json"
#: A staging folder whose writer cannot be checked (another host, no marker) is abandoned when
#: untouched for this long. An export of 100k samples writes for about 15 s, so an hour is far
#: beyond any live export while still cleaning up within the day.
ABANDONED_AFTER_SECONDS = 3600.0
_STAGING_RANDOM = r"[a-z0-9_]{8}"  # tempfile.mkdtemp's 8 random characters


def staging_prefix(out_dir: Path | str) -> str:
    """Name prefix of the hidden staging folders of ``out_dir`` (they sit beside it)."""
    return f".{Path(out_dir).name}.tmp-"


def writer_identity() -> dict[str, Any]:
    """This process as the writer of an export: host name and process id."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


def process_is_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (signal 0 checks without signalling)."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except (OverflowError, ValueError, OSError):
        return False
    return True


def writer_is_alive(writer: Mapping[str, Any] | None, started: float, *, now: float | None = None,
                    max_age: float = ABANDONED_AFTER_SECONDS) -> bool:
    """Whether the export written by ``writer`` (:func:`writer_identity`) since ``started``
    (epoch seconds) may still be running. On this host the process is checked (a dead process
    means abandoned; this very process, e.g. another export thread of this app server, is live
    until ``max_age``); another host's process cannot be checked (several app servers share one
    database and one export disk), so its export counts as live until ``max_age``."""
    now = time.time() if now is None else now
    if now - started > max_age:
        return False
    if not writer or writer.get("host") != socket.gethostname():
        return True
    pid = writer.get("pid")
    if pid == os.getpid():
        return True
    return isinstance(pid, int) and process_is_alive(pid)


def remove_abandoned_staging(out_dir: Path | str, *, now: float | None = None,
                             max_age: float = ABANDONED_AFTER_SECONDS) -> list[Path]:
    """Remove the hidden staging folders of ``out_dir`` left by killed exports; return them.

    Only folders named like this module's staging folders of ``out_dir`` (``.NAME.tmp-XXXXXXXX``)
    are considered, and of those only the ones whose writer is gone (:func:`writer_is_alive` on
    their marker; without a readable marker, the folder's age alone decides). Everything else
    beside ``out_dir`` is left alone, including ``.NAME.old-…`` (a previous export moved aside
    during an overwrite: it may be the only copy).
    """
    out_dir = Path(os.path.abspath(out_dir))
    parent, prefix = out_dir.parent, staging_prefix(out_dir)
    removed: list[Path] = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for folder in entries:
        name = folder.name
        if not re.fullmatch(re.escape(prefix) + _STAGING_RANDOM, name):
            continue
        if folder.is_symlink() or not folder.is_dir():
            continue
        try:
            started = folder.stat().st_mtime
            writer = json.loads((folder / WRITER_MARKER).read_text(encoding="utf-8"))
            started = float(writer.get("started", started))
        except (OSError, ValueError, AttributeError, TypeError):
            writer = None
            try:
                started = folder.stat().st_mtime
            except OSError:
                continue
        if writer_is_alive(writer if isinstance(writer, dict) else None, started, now=now,
                           max_age=max_age):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed


def _write_atomically(out_dir: Path, write: Callable[[Path], None], overwrite: bool) -> None:
    """Run ``write(folder)`` on a fresh hidden sibling of ``out_dir`` and move it into place."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out_dir), dir=out_dir.parent))
    try:
        os.chmod(staging, 0o755)  # mkdtemp makes it private; an export is meant to be read
        marker = staging / WRITER_MARKER
        marker.write_text(json.dumps({**writer_identity(), "started": time.time()}), encoding="utf-8")
        write(staging)
        marker.unlink()
        _check_destination(out_dir, overwrite)  # again: something may have appeared meanwhile
        if out_dir.is_dir() and any(out_dir.iterdir()):
            retired = out_dir.with_name(f".{out_dir.name}.old-{uuid.uuid4().hex[:8]}")
            os.replace(out_dir, retired)
            try:
                os.replace(staging, out_dir)
            except BaseException:
                os.replace(retired, out_dir)
                raise
            shutil.rmtree(retired, ignore_errors=True)
        else:
            if out_dir.is_dir():
                out_dir.rmdir()
            os.replace(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


# --- the dataset card -------------------------------------------------------------------------


# Column types of the configs in the card's ``dataset_info`` (datasets' YAML feature syntax).
_BENCHMARK_FEATURE_TYPES: Mapping[str, Mapping[str, Any]] = {
    "_id": {"dtype": "string"},
    "parent_text": {"dtype": "string"},
    "axes": {"struct": [{"name": key, "dtype": "string"} for key in EXPORT_KEYS]},
    "target_values": {"struct": [{"name": key, "dtype": "float64"} for key in TARGET_KEYS]},
}
_ANNOTATION_FEATURE_TYPES: Mapping[str, Mapping[str, Any]] = {
    "sample_id": {"dtype": "string"},
    "annotator": {"dtype": "string"},
    "boundaries": {"list": "int64"},
    "segment_axes": {"list": "string"},
    "points": {"list": {"list": "float64"}},
    "xi": {"dtype": "float64"},
    "omega": {"dtype": "float64"},
    "alpha": {"dtype": "float64"},
    "flags": {"list": "string"},
    "note": {"dtype": "string"},
    # pyarrow's JSON reader turns ISO timestamps into timestamps before datasets casts the
    # column; declared as a string it would come back as "2026-11-20 10:31:00".
    "submitted_at": {"dtype": "timestamp[s, tz=UTC]"},
}


def _features(config: str) -> list[dict[str, Any]]:
    """The ``features`` list of one config, in record key order (a KeyError here means the
    record gained a key without a declared type)."""
    if config == ANNOTATIONS_CONFIG:
        return [{"name": key, **_ANNOTATION_FEATURE_TYPES[key]} for key in ANNOTATION_KEYS]
    return [{"name": key, **_BENCHMARK_FEATURE_TYPES[key]} for key in RECORD_KEYS]


def card_header(manifest: ExportManifest) -> dict[str, Any]:
    """The YAML header of the card: licence, and for every config with rows its data files (only
    splits with rows — see the module docstring) and its features (``dataset_info``), so column
    order and types are fixed. The first benchmark with rows is the default config."""
    configs, infos = [], []
    for config in CONFIGS:
        present = [s for s in SPLITS if manifest.counts.get(config, {}).get(s, 0) > 0]
        if not present:
            continue
        entry: dict[str, Any] = {"config_name": config}
        if not configs and config != ANNOTATIONS_CONFIG:
            entry["default"] = True
        entry["data_files"] = [{"split": s, "path": f"{config}/{SPLIT_FILES[s]}"} for s in present]
        configs.append(entry)
        infos.append({"config_name": config, "features": _features(config)})
    header: dict[str, Any] = {
        "pretty_name": manifest.project,
        "license": manifest.licence,
        "language": ["en"],
        "tags": ["temporal-validity", "chronocept"],
    }
    if configs:
        header["configs"] = configs
        header["dataset_info"] = infos
    return header


def dataset_card(manifest: ExportManifest) -> str:
    """The README.md of the export: YAML header (:func:`card_header`), then the project, counts
    per benchmark and split, axis distribution and parameter mean/SD per benchmark, the log base
    and how to convert it, agreement figures (when given), licence, record schema, how to load."""
    header = yaml.safe_dump(card_header(manifest), sort_keys=False, allow_unicode=True, width=1000)
    stats = {config: DatasetStatistics.from_json(manifest.statistics[config])
             for config in BENCHMARK_CONFIGS.values() if config in manifest.statistics}
    b = manifest.base
    out: list[str] = ["---", header.rstrip("\n"), "---", ""]
    out += [
        f"# {_one_line(manifest.project)} — temporal validity dataset",
        "",
        "Short English texts annotated with how long what they say stays valid, in the Chronocept "
        "format: each text is split into segments labelled with eight temporal axes, and its "
        "validity over time is a skew-normal curve on a logarithmic time axis, given by its "
        "location, scale and skewness. The values here are the project's gold values: independent "
        "annotations resolved automatically or adjudicated by a lead.",
        "",
        f"Exported with Chronocept Studio on {_one_line(manifest.created_at)} by "
        f"{_one_line(manifest.created_by)} (export {_one_line(str(manifest.export_id))}).",
        "",
        "## Contents",
        "",
        "| config | train | validation | test | total |",
        "|---|---:|---:|---:|---:|",
    ]
    for config in CONFIGS:
        counts = manifest.counts.get(config, {})
        row = [counts.get(s, 0) for s in SPLITS]
        out.append(f"| `{config}` | " + " | ".join(str(n) for n in row) + f" | {sum(row)} |")
    out += [
        "",
        "`benchmark_1` holds single sentences, `benchmark_2` multi-sentence passages; `annotations` "
        "holds every individual annotation of the samples of each split (annotators by pseudonym).",
        f"Splits: train/validation/test = {' / '.join(f'{r:.0%}' for r in manifest.ratios)} of each "
        "benchmark, stratified over the set of axes each sample uses by iterative stratification "
        "(Sechidis, Tsoumakas & Vlahavas 2011, *On the stratification of multi-label data*), "
        f"seed {manifest.seed}. `export.json` lists the `_id`s of every split.",
    ]
    if manifest.annotations_left_out:
        out.append(f"{manifest.annotations_left_out} annotations of samples outside this export were left out.")
    out += ["", "## Axis distribution", "",
            "Share of samples using each axis (a non-empty axis field), with counts.", ""]
    if stats:
        names = list(stats)
        out.append("| axis | " + " | ".join(f"`{n}`" for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for axis in AXES:
            cells = []
            for name in names:
                overall = stats[name].overall
                cells.append(f"{overall.axis_shares[axis.export_key]:.1%} ({overall.axis_counts[axis.export_key]})"
                             if overall.n_samples else "—")
            out.append(f"| {axis.label} (`{axis.export_key}`) | " + " | ".join(cells) + " |")
        out += ["", "## Target values and text length", "",
                f"Mean ± standard deviation over all splits (location and scale in base-{b:g} "
                "log minutes, skewness unitless; text length in tokens).", ""]
        out.append("| | " + " | ".join(f"`{n}`" for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for key in TARGET_KEYS:
            symbol = {"xi": "ξ", "omega": "ω", "alpha": "α"}[PARAMETER_OF_TARGET[key]]
            out.append(f"| {key} ({symbol}) | "
                       + " | ".join(_mean_sd(stats[n].overall.targets[key]) for n in names) + " |")
        out.append("| tokens per text | " + " | ".join(_mean_sd(stats[n].overall.token_length) for n in names) + " |")
    out += [
        "",
        "## Time axis",
        "",
        f"Times are minutes since publication t on the axis x = ln(t) / ln({b:g}) "
        f"(1 hour ≈ {minutes_to_x(60.0, b):.2f}, 1 day ≈ {minutes_to_x(1440.0, b):.2f}, "
        f"1 week ≈ {minutes_to_x(10080.0, b):.2f}); x = 0 is one minute. Location and scale are on "
        f"this axis, so t = {b:g}^x. To use another base c, multiply location and scale by "
        f"ln({b:g}) / ln(c); skewness does not change. The curve is the skew-normal density "
        "f(x) = (2/ω) φ((x−ξ)/ω) Φ(α(x−ξ)/ω) with ξ = location, ω = scale, α = skewness.",
        "",
        "## Agreement",
        "",
    ]
    if manifest.agreement:
        out += _agreement_lines(manifest.agreement)
    else:
        out.append("No agreement figures were given with this export.")
    out += [
        "",
        "## Licence",
        "",
        f"`{manifest.licence}`.",
        "",
        "## Record schema",
        "",
        "Each line of `benchmark_N/*.json` is one JSON object with keys in exactly this order "
        "(`axes` and `target_values` keys too — consumers may read them positionally):",
        "",
        "```json",
        _encode_json({
            "_id": "B1-00042", "parent_text": "...",
            "axes": {key: "..." if key == EXPORT_KEYS[0] else "" for key in EXPORT_KEYS},
            "target_values": dict(zip(TARGET_KEYS, (54.1, 11.2, -0.4))),
        }),
        "```",
        "",
        "Each axis field is the text of the segments carrying that axis, in text order, joined by "
        "one space, or \"\" when no segment carries it; a segment may carry several axes. "
        "Each line of `annotations/*.json` is one annotation: "
        + ", ".join(f"`{k}`" for k in ANNOTATION_KEYS)
        + " — `boundaries` are the token indices where segments start, `segment_axes` one axis name "
        f"per segment, `points` the annotator's [x, relative validity] points (x, `xi` and `omega` in "
        f"base {b:g}), `submitted_at` ISO 8601 UTC (read by `datasets` as a UTC timestamp).",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        'benchmark_1 = load_dataset("path/to/this/folder", "benchmark_1")',
        'annotations = load_dataset("path/to/this/folder", "annotations")',
        "```",
        "",
        "Every split file exists, but a split or config without rows is not declared above "
        "(`datasets` cannot load an empty split); `export.json` has the counts.",
        "",
    ]
    return "\n".join(out)


def _mean_sd(figure: Any) -> str:
    if figure.mean is None:
        return "—"
    if figure.sd is None:
        return f"{figure.mean:.2f}"
    return f"{figure.mean:.2f} ± {figure.sd:.2f}"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _agreement_lines(figures: Mapping[str, Any], depth: int = 0) -> list[str]:
    lines = []
    for key, value in figures.items():
        label = f"{'  ' * depth}- **{_one_line(str(key))}**"
        if isinstance(value, Mapping):
            lines.append(f"{label}:")
            lines += _agreement_lines(value, depth + 1)
        elif isinstance(value, (list, tuple)):
            lines.append(f"{label}: " + ", ".join(_figure(v) for v in value))
        else:
            lines.append(f"{label}: {_figure(value)}")
    return lines


def _figure(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return _one_line(str(value))


def _plain_json(value: Any) -> Any:
    """``value`` made JSON-safe: mappings and sequences copied, non-finite floats → None,
    numpy scalars → Python numbers, anything else → its text."""
    if isinstance(value, Mapping):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "item"):  # numpy scalars
        return _plain_json(value.item())
    return str(value)


# --- download and read back -------------------------------------------------------------------


def zip_export(folder: Path | str) -> bytes:
    """The export folder as a ZIP archive (deflated) whose entries sit under the folder's name,
    files in sorted order — for a download button."""
    folder = Path(folder)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


def read_export(folder: Path | str, configs: Sequence[str] = CONFIGS) -> ExportContents:
    """Read an export folder back with plain ``json``: the manifest, the card and the records of
    ``configs`` (all by default; pass the benchmark configs only to skip the annotations).
    Raises :class:`ExportError` for a folder that is not an export."""
    folder = Path(folder)
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        raise ExportError(f"{folder} is not a Chronocept export (no {MANIFEST_FILE})")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise ExportError(f"unknown config {', '.join(unknown)}; expected one of {', '.join(CONFIGS)}")
    manifest = ExportManifest.from_json(json.loads(manifest_path.read_text(encoding="utf-8")))
    card_path = folder / CARD_FILE
    card = card_path.read_text(encoding="utf-8") if card_path.is_file() else ""
    records: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for config in configs:
        records[config] = {}
        for split in SPLITS:
            path = folder / config / SPLIT_FILES[split]
            with open(path, encoding="utf-8") as handle:
                records[config][split] = [json.loads(line) for line in handle if line.strip()]
    return ExportContents(folder=folder, manifest=manifest, card=card, records=records)


__all__ = [
    "ANNOTATIONS_CONFIG", "ANNOTATION_KEYS", "BENCHMARKS", "BENCHMARK_CONFIGS", "CARD_FILE", "CONFIGS",
    "DEFAULT_LICENCE", "DEFAULT_SEED", "ExportAnnotation", "ExportContents", "ExportError",
    "ExportManifest", "ExportMeta", "ExportSettings", "FORMAT_VERSION", "GoldSample", "MANIFEST_FILE",
    "RECORD_KEYS", "SPLIT_FILES", "TARGET_KEYS", "annotation_record", "axis_texts", "benchmark_record",
    "base_factor", "card_header", "dataset_card", "export_hf_dataset", "read_export", "write_json_lines", "zip_export",
]
