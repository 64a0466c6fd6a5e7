"""README's Configuration table names every environment variable the app and the CLI read, with
its default, so none is found only by reading the code."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODE = ("annotation", "db", "cli", "ui", "screens")


def _table() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Configuration\n(.*?)^## ", text, re.S | re.M)
    assert match, "README has no Configuration section"
    return match.group(1)


def test_every_variable_the_code_reads_is_in_the_table():
    files = [p for folder in CODE for p in (REPO / folder).rglob("*.py")] + [REPO / "app.py"]
    in_code = {v for p in files for v in re.findall(r"CHRONOCEPT_[A-Z_]+", p.read_text(encoding="utf-8"))}
    assert "CHRONOCEPT_DATABASE_URL" in in_code  # the walk found the code
    rows = set(re.findall(r"^\| `(CHRONOCEPT_[A-Z_]+)` \| [^|]+ \| [^|]+ \|$", _table(), re.M))
    assert in_code <= rows, f"add to README's Configuration table: {sorted(in_code - rows)}"
