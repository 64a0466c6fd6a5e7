"""An export read back: the folder as a ZIP archive for a download (:func:`zip_export`), its
manifest, card and records read with plain ``json`` (:func:`read_export`), its ``annotations``
config as one interchange file in base 1.1 (:func:`annotations_as_interchange`), which
``chronocept import annotations`` imports into another project, and a ``tvcp`` export's pairs as
a CSV for a spreadsheet (:func:`spreadsheet_csv`).

**Which CSV keeps its texts exactly.** The folder *is* the dataset: a model trains on its files,
so they hold every text exactly as written — a target that starts with ``=`` stays so in
``tvcp/*.csv``, and the zip is the folder byte for byte. What the app offers a *person* to open in
a spreadsheet is neutralised (:mod:`annotation.corpus.csv_safety`): the copy of the pairs
:func:`spreadsheet_csv` writes, like every table the pages offer as CSV."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from annotation.export.dataset import (
    ANNOTATIONS_CONFIG,
    CARD_FILE,
    CONFIGS,
    MANIFEST_FILE,
    SPLIT_FILES,
    ExportError,
    base_factor,
)
from annotation.export.manifest import ExportManifest
from annotation.corpus.csv_safety import safe_csv
from annotation.export.tvcp import TVCP_CONFIG, TVCP_KEYS
from annotation.corpus.splits import SPLITS
from annotation.export.records import encode_json, rescale_curves


@dataclass(frozen=True)
class ExportContents:
    """An export folder read back: its manifest, card text and records,
    ``records[config][split]`` as plain dicts in file order (each config that was read, every
    split present, possibly empty)."""

    folder: Path
    manifest: ExportManifest
    card: str
    records: Mapping[str, Mapping[str, list[dict[str, Any]]]]


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
    ``configs`` (all by default; pass the benchmark configs only to skip the annotations) that
    the export has (its manifest's counts); a ``tvcp`` export's ``tvcp`` records are read when named.
    Raises :class:`ExportError` for a folder that is not an export."""
    folder = Path(folder)
    if not (folder / MANIFEST_FILE).is_file():
        raise ExportError(f"{folder} is not a Chronocept export (no {MANIFEST_FILE})")
    known = (*CONFIGS, TVCP_CONFIG)
    unknown = [c for c in configs if c not in known]
    if unknown:
        raise ExportError(f"unknown config {', '.join(unknown)}; expected one of {', '.join(known)}")
    manifest = read_manifest(folder)
    # a config the export did not write is not read (a pairs project's export has ``tvcp`` only)
    configs = [c for c in configs if c in manifest.counts]
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


def read_manifest(folder: Path | str) -> ExportManifest:
    """The manifest of an export folder; :class:`ExportError` for a folder that is not one."""
    manifest_path = Path(folder) / MANIFEST_FILE
    if not manifest_path.is_file():
        raise ExportError(f"{folder} is not a Chronocept export (no {MANIFEST_FILE})")
    try:
        return ExportManifest.from_json(json.loads(manifest_path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        raise ExportError(f"{folder}: its {MANIFEST_FILE} cannot be read ({exc})") from None


def annotations_as_interchange(folder: Path | str) -> bytes:
    """The ``annotations`` config of the export ``folder`` as one interchange file (SPEC section
    11): its split files in split order (train, valid, test), line for line — so a line number
    counts through them in that order — with every record's ξ, ω and points' x (a context pair's
    curve given the follow-up too) taken back from the export's log base to base 1.1, the base an
    import reads. A line that is not a JSON object is left as it is, for the import to name.
    Raises :class:`ExportError` for a folder that is not an export or has no annotations config.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    if ANNOTATIONS_CONFIG not in manifest.counts:
        raise ExportError(f"export {manifest.export_id} ({folder}) has no {ANNOTATIONS_CONFIG} config")
    parts = []
    for split in SPLITS:
        path = folder / ANNOTATIONS_CONFIG / SPLIT_FILES[split]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ExportError(f"{path} cannot be read ({exc.strerror or exc})") from None
        if data and not data.endswith(b"\n"):
            data += b"\n"
        parts.append(data)
    factor = base_factor(manifest.base)
    if factor == 1.0:  # base 1.1 already: the bytes as written
        return b"".join(parts)
    # a line is split at "\n" only: a note may hold U+2028, which str.splitlines would split at
    lines = b"".join(parts).decode("utf-8").split("\n")
    return "\n".join(_in_base_11(line, 1.0 / factor) for line in lines).encode("utf-8")


def _in_base_11(line: str, back: float) -> str:
    """One exported annotation line with its curves' x, ξ and ω multiplied by ``back``."""
    try:
        record = json.loads(line) if line.strip() else None
    except (ValueError, RecursionError):
        return line
    if not isinstance(record, dict):
        return line
    try:
        return encode_json(rescale_curves(record, back))
    except (ValueError, TypeError):  # NaN or a number too large: the import refuses the line as it is
        return line


#: The column :func:`spreadsheet_csv` puts before the dataset's: which split a pair is in.
SPLIT_COLUMN = "split"


def spreadsheet_csv(folder: Path | str) -> str:
    """A ``tvcp`` export's pairs as one CSV for a person to open in a spreadsheet: a
    :data:`SPLIT_COLUMN` column, then the dataset's columns (:data:`~annotation.export.tvcp.TVCP_KEYS`),
    the splits in order, read from the JSON Lines files — every text cell neutralised
    (:func:`annotation.corpus.csv_safety.safe_csv`), numbers left numbers, an empty cell where the
    record has none. Raises :class:`ExportError` for a folder that is not a ``tvcp`` export."""
    contents = read_export(folder, configs=(TVCP_CONFIG,))
    if TVCP_CONFIG not in contents.records:
        raise ExportError(f"{folder} holds no context pairs ({TVCP_CONFIG}); its records are JSON Lines")
    rows = [[split, *(record.get(k) for k in TVCP_KEYS)]
            for split in SPLITS for record in contents.records[TVCP_CONFIG][split]]
    # object columns: an integer column with an empty cell stays integers, not 6.0
    return safe_csv(pd.DataFrame(rows, columns=[SPLIT_COLUMN, *TVCP_KEYS], dtype=object))
