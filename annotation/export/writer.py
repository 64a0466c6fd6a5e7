"""The writer of the export: JSON Lines files, the card and the manifest written into a hidden
staging folder beside the destination and renamed into place when complete.

**Atomic.** An exception removes the staging folder and leaves the destination as it was. A
process killed meanwhile cannot remove it: the folder holds a marker naming its writer (host,
process id, start time, :data:`WRITER_MARKER`, removed just before the rename), so
:func:`remove_abandoned_staging` can later tell an abandoned folder from one a live export (this
server's or another's) still writes."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.agreement.published import FIGURE_NEEDS
from annotation.export.dataset import AGREEMENT_FILE, CARD_FILE, CONFIGS, MANIFEST_FILE, SPLIT_FILES
from annotation.export.manifest import ExportManifest
from annotation.leftovers import ABANDONED_AFTER_SECONDS, writer_is_alive
from annotation.publishable import Needs
from annotation.corpus.splits import SPLITS


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


def write_export(
    out_dir: Path,
    lines: Mapping[str, Mapping[str, Sequence[str]]],
    card: str,
    manifest: ExportManifest,
    overwrite: bool,
) -> None:
    """Write the export folder ``out_dir`` atomically: every config's split files from the encoded
    ``lines[config][split]`` (an empty file for none), the card and the manifest."""

    def write(folder: Path) -> None:
        for config in CONFIGS:
            (folder / config).mkdir()
            for split in SPLITS:
                write_json_lines(folder / config / SPLIT_FILES[split], lines[config][split])

    write_folder(out_dir, write, card, manifest, overwrite)


def write_folder(out_dir: Path, write_configs: Callable[[Path], None], card: str, manifest: ExportManifest,
                 overwrite: bool, *, rules: Mapping[str, Needs] = FIGURE_NEEDS) -> None:
    """Write an export folder atomically: ``write_configs(staging folder)`` writes the
    configurations' files, then the card, the manifest and (when the export has agreement
    figures) ``agreement.json`` with the figures' ``rules`` are added and the folder is moved
    into place (every export layout goes through here)."""

    def write(folder: Path) -> None:
        write_configs(folder)
        _write_text(folder / CARD_FILE, card)
        _write_text(folder / MANIFEST_FILE,
                    json.dumps(manifest.to_json(), ensure_ascii=False, indent=1, allow_nan=False) + "\n")
        if manifest.agreement is not None:
            _write_text(folder / AGREEMENT_FILE,
                        json.dumps(agreement_document(manifest, rules), ensure_ascii=False, indent=1,
                                   allow_nan=False) + "\n")

    _write_atomically(out_dir, write, overwrite)


def agreement_document(manifest: ExportManifest, rules: Mapping[str, Needs] = FIGURE_NEEDS) -> dict[str, Any]:
    """``agreement.json``: the card's agreement figures as the manifest holds them (per config:
    before adjudication, ``settled``, ``excluded``, ``discarded``; ``adjudication``), with the
    export they belong to and the rule each figure was held to (``rules``, by figure name: the
    single-text card's headline figures unless told otherwise; :data:`annotation.publishable.NEEDS`)."""
    return {"export_id": manifest.export_id, "project": manifest.project, "created_at": manifest.created_at,
            "log_base": manifest.base, "figures": manifest.agreement,
            "rules": {name: needs.to_json() for name, needs in rules.items()}}


def check_destination(out_dir: Path, overwrite: bool) -> None:
    """Raise FileExistsError unless ``out_dir`` is new, an empty folder, or (with ``overwrite``)
    a folder to replace."""
    if out_dir.is_symlink() or out_dir.exists():
        if not out_dir.is_dir() or out_dir.is_symlink():
            raise FileExistsError(f"{out_dir} exists and is not a folder; choose another place")
        if not overwrite and any(out_dir.iterdir()):
            raise FileExistsError(
                f"{out_dir} is not empty; choose an empty or new folder, or overwrite it"
            )


#: The file inside a staging folder that names its writer (removed before the folder goes live).
WRITER_MARKER = ".chronocept-writer.json"
_STAGING_RANDOM = r"[a-z0-9_]{8}"  # tempfile.mkdtemp's 8 random characters


def staging_prefix(out_dir: Path | str) -> str:
    """Name prefix of the hidden staging folders of ``out_dir`` (they sit beside it)."""
    return f".{Path(out_dir).name}.tmp-"


def writer_identity() -> dict[str, Any]:
    """This process as the writer of an export: host name and process id."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


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
        check_destination(out_dir, overwrite)  # again: something may have appeared meanwhile
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
