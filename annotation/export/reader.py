"""An export read back: the folder as a ZIP archive for a download (:func:`zip_export`), and its
manifest, card and records read with plain ``json`` (:func:`read_export`)."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.export.dataset import CARD_FILE, CONFIGS, MANIFEST_FILE, SPLIT_FILES, ExportError
from annotation.export.manifest import ExportManifest
from annotation.export.tvcp import TVCP_CONFIG
from annotation.corpus.splits import SPLITS


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
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        raise ExportError(f"{folder} is not a Chronocept export (no {MANIFEST_FILE})")
    known = (*CONFIGS, TVCP_CONFIG)
    unknown = [c for c in configs if c not in known]
    if unknown:
        raise ExportError(f"unknown config {', '.join(unknown)}; expected one of {', '.join(known)}")
    manifest = ExportManifest.from_json(json.loads(manifest_path.read_text(encoding="utf-8")))
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
