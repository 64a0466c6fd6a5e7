"""Reading the versioned annotation guidelines (``guidelines/vX.Y.md``).

The newest file is the current version; annotations record the version they were made under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GUIDELINES_DIR = Path(__file__).resolve().parent.parent / "guidelines"
_VERSION_RE = re.compile(r"^v(\d+)\.(\d+)\.md$")


@dataclass(frozen=True)
class Guidelines:
    version: str
    text: str


def available_versions(folder: Path = GUIDELINES_DIR) -> list[str]:
    """Versions present, oldest first (``["1.0", "1.1", …]``)."""
    found = []
    for path in folder.glob("v*.md"):
        m = _VERSION_RE.match(path.name)
        if m:
            found.append((int(m.group(1)), int(m.group(2))))
    return [f"{a}.{b}" for a, b in sorted(found)]


def load_guidelines(version: str, folder: Path = GUIDELINES_DIR) -> Guidelines:
    path = folder / f"v{version}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no guidelines version {version}")
    return Guidelines(version, path.read_text(encoding="utf-8"))


def guidelines_for(version: str, folder: Path = GUIDELINES_DIR) -> Guidelines | None:
    """The bundled text of ``version`` (a project's ``guidelines_version``), or None when that
    version has no file here (a version typed by a lead)."""
    return load_guidelines(version, folder) if version in available_versions(folder) else None


def current_guidelines(folder: Path = GUIDELINES_DIR) -> Guidelines:
    """The newest version."""
    versions = available_versions(folder)
    if not versions:
        raise FileNotFoundError(f"no guidelines in {folder}")
    return load_guidelines(versions[-1], folder)
