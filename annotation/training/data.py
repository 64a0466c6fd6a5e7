"""Reading an export folder for training: the manifest and the JSON Lines splits of a benchmark.

Layout (written by the exporter, SPEC section 7)::

    EXPORT/export.json                      manifest: "export_id", "base", "seed", ...
    EXPORT/benchmark_N/train.json           JSON Lines, one record per sample
    EXPORT/benchmark_N/valid.json
    EXPORT/benchmark_N/test.json

Record::

    {"_id": "B1-00042", "parent_text": "...",
     "axes": {"main_outcome_axis": "...", ..., "recurrent_axis": ""},
     "target_values": {"location": 54.1, "scale": 11.2, "skewness": -0.4}}

The targets are the skew-normal location ξ, scale ω (> 0) and shape α on the log-time axis in
the export's base. A folder without ``export.json`` but with ``benchmark_N/train.json`` (e.g. a
copy of the public Chronocept release) is accepted too: its export id is the folder name and
its base 1.1. Axis keys come from :data:`annotation.axes.EXPORT_KEYS`; an axis missing from a
record counts as empty.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from annotation.axes import EXPORT_KEYS
from annotation.timeaxis import DEFAULT_BASE

from .errors import ExportFormatError, ExportNotFoundError, NotEnoughSamplesError

# The export's layout is defined once, in the exporter: reused, never retyped.
from annotation.corpus.dataset_stats import TARGET_KEYS  # noqa: E402  (location ξ, scale ω, skewness α)
from annotation.export import MANIFEST_FILE, SPLIT_FILES  # noqa: E402
from annotation.corpus.splits import SPLITS  # noqa: E402

#: Fewest samples a split may have for training to make sense (R², ρ, σ need two points).
#: the fewest samples in each of train, validation and test: R² and Spearman ρ on the test split
#: mean nothing on fewer (on 2 test samples R² came out as −2·10²⁸)
MIN_SAMPLES_PER_SPLIT = 3


@dataclass(frozen=True)
class ExportManifest:
    """What training needs from ``export.json``: the export id (always a string), the log base
    of the targets and the split seed (``None`` when not recorded); ``raw`` is the whole file."""

    export_id: str
    base: float
    seed: int | None
    raw: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sample:
    """One exported sample: its id, text, the eight axis texts in :data:`EXPORT_KEYS` order
    ("" for an unused axis) and its targets (ξ, ω, α) in the export's base."""

    id: str
    parent_text: str
    axes: tuple[str, ...]
    targets: tuple[float, float, float]


def benchmark_folder(export_dir: str | Path, benchmark: int) -> Path:
    """The folder of benchmark ``benchmark`` inside an export: ``EXPORT/benchmark_N``."""
    return Path(export_dir) / f"benchmark_{int(benchmark)}"


def read_manifest(export_dir: str | Path) -> ExportManifest:
    """Read ``export.json`` of an export folder.

    Raises :class:`ExportNotFoundError` when the folder is missing or holds neither a manifest
    nor any ``benchmark_N/train.json``, and :class:`ExportFormatError` for a manifest that is
    not a JSON object.
    """
    folder = Path(export_dir)
    if not folder.is_dir():
        raise ExportNotFoundError(f"export folder {str(folder)!r} does not exist")
    path = folder / MANIFEST_FILE
    if not path.is_file():
        if any(folder.glob("benchmark_*/train.json")):
            return ExportManifest(export_id=folder.resolve().name, base=DEFAULT_BASE, seed=None)
        raise ExportNotFoundError(
            f"{str(folder)!r} is not a Chronocept export: it has no {MANIFEST_FILE} and no "
            "benchmark_N/train.json")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportFormatError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ExportFormatError(f"{path}: the manifest must be a JSON object")
    export_id = raw.get("export_id")
    if export_id is None or isinstance(export_id, (bool, dict, list)) or str(export_id) == "":
        raise ExportFormatError(f"{path}: missing or invalid 'export_id'")
    base = raw.get("base", DEFAULT_BASE)
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1:
        raise ExportFormatError(f"{path}: 'base' must be a number greater than 1, got {base!r}")
    seed = raw.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        seed = None
    return ExportManifest(export_id=str(export_id), base=float(base), seed=seed, raw=raw)


def _parse_record(obj: object, where: str) -> Sample:
    if not isinstance(obj, dict):
        raise ExportFormatError(f"{where}: a record must be a JSON object")
    sample_id, text = obj.get("_id"), obj.get("parent_text")
    if not isinstance(sample_id, (str, int)) or isinstance(sample_id, bool):
        raise ExportFormatError(f"{where}: missing or invalid '_id'")
    if not isinstance(text, str):
        raise ExportFormatError(f"{where}: missing or invalid 'parent_text'")
    axes = obj.get("axes", {})
    if not isinstance(axes, dict):
        raise ExportFormatError(f"{where}: 'axes' must be an object")
    axis_texts = []
    for key in EXPORT_KEYS:
        value = axes.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise ExportFormatError(f"{where}: axis {key!r} must be a string")
        axis_texts.append(value)
    target_values = obj.get("target_values")
    if not isinstance(target_values, dict):
        raise ExportFormatError(f"{where}: missing 'target_values'")
    targets = []
    for key in TARGET_KEYS:
        value = target_values.get(key)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value)):
            raise ExportFormatError(
                f"{where}: target {key!r} must be a finite number, got {value!r}")
        targets.append(float(value))
    if targets[1] <= 0:
        raise ExportFormatError(f"{where}: target 'scale' must be > 0, got {targets[1]!r}")
    return Sample(id=str(sample_id), parent_text=text, axes=tuple(axis_texts),
                  targets=(targets[0], targets[1], targets[2]))


def read_split_file(path: str | Path) -> list[Sample]:
    """Parse one JSON Lines split file; blank lines are skipped; errors name file and line."""
    path = Path(path)
    samples: list[Sample] = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"{path}, line {number}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ExportFormatError(f"{where}: not valid JSON ({exc.msg})") from None
                samples.append(_parse_record(obj, where))
    except UnicodeDecodeError:
        raise ExportFormatError(f"{path}: not UTF-8 text") from None
    return samples


def load_split_records(export_dir: str | Path, benchmark: int, *,
                       min_samples: int = MIN_SAMPLES_PER_SPLIT) -> dict[str, list[Sample]]:
    """The samples of benchmark ``benchmark`` by split: ``{"train": [...], "validation": [...],
    "test": [...]}``, in file order.

    Raises :class:`ExportNotFoundError` when the folder is not an export,
    :class:`ExportFormatError` when a split file is missing or malformed and
    :class:`NotEnoughSamplesError` when a split has fewer than ``min_samples`` samples.
    """
    manifest = read_manifest(export_dir)
    folder = benchmark_folder(export_dir, benchmark)
    splits: dict[str, list[Sample]] = {}
    for split in SPLITS:
        path = folder / SPLIT_FILES[split]
        if not path.is_file():
            raise ExportFormatError(
                f"export {manifest.export_id!r} has no benchmark_{benchmark}/{SPLIT_FILES[split]}")
        splits[split] = read_split_file(path)
    short = [f"{name}: {len(rows)}" for name, rows in splits.items() if len(rows) < min_samples]
    if short:
        raise NotEnoughSamplesError(
            f"benchmark {benchmark} of export {manifest.export_id!r} has too few samples "
            f"({', '.join(short)}); training needs at least {min_samples} in each of "
            "train, validation and test (export more gold)")
    return splits
