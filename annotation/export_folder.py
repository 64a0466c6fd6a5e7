"""The names of export folders: the default offered for a new export, a repeat's name, and which
names a lead may type (one path component, no hidden or parent folders)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

#: a folder name: letters, digits, '.', '_', '-'; starting with a letter or digit; ≤ 100 chars
FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
FOLDER_NAME_RULE = "The folder name may use letters, digits, '.', '_' and '-' (up to 100 characters)."


def _stamp(now: datetime | None) -> str:
    return f"{now or datetime.now(timezone.utc):%Y%m%d-%H%M%S}"


def default_folder_name(project_name: str, now: datetime | None = None) -> str:
    """The project's name as a slug (at most 60 characters, "project" when nothing is left) and
    the UTC time of the export.

    Examples:
        >>> default_folder_name("Chronocept — Spring 2026!", datetime(2026, 5, 1, 9, 30))
        'chronocept-spring-2026-20260501-093000'
        >>> default_folder_name("ßß", datetime(2026, 5, 1))
        'project-20260501-000000'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", project_name.lower()).strip("-") or "project"
    return f"{slug[:60]}-{_stamp(now)}"


def repeat_folder_name(original_folder: str, now: datetime | None = None) -> str:
    """The folder of a repeat of the export in ``original_folder`` (its last path component).

    Examples:
        >>> repeat_folder_name("/data/exports/demo-20260501-093000", datetime(2026, 5, 2, 8, 0))
        'demo-20260501-093000-repeat-20260502-080000'
    """
    return f"{Path(original_folder).name}-repeat-{_stamp(now)}"


def is_folder_name(name: str) -> bool:
    """Whether ``name`` (surrounding blanks ignored) is a folder name a lead may choose.

    Examples:
        >>> is_folder_name(" demo_v1.2 "), is_folder_name("../etc"), is_folder_name(".hidden")
        (True, False, False)
    """
    return FOLDER_NAME.match(name.strip()) is not None
