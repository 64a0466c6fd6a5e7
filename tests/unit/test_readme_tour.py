"""README's tour of the layout names every module of the app's packages, so it matches the
tree (issue 11: "the README tour matches the tree")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: every package of the app's code, found by walking the tree (a new room is in the tour at once)
PACKAGES = tuple(sorted(
    path.parent.relative_to(ROOT).as_posix()
    for top in ("annotation", "ui", "db", "cli")
    for path in (ROOT / top).rglob("__init__.py")
    if "migrations" not in path.parts))


def _tour() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"^## A tour of the layout\n+```\n(.*?)```", text, re.S | re.M)
    assert match, "README has no tour block"
    return match.group(1)


def test_every_module_and_package_is_in_the_tour():
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", _tour()))
    missing = []
    for package in PACKAGES:
        folder = ROOT / package
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.py")):
            if path.stem.startswith("_"):
                continue
            if path.stem not in words:
                missing.append(f"{package}/{path.name}")
        for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
            if sub.name not in words:
                missing.append(f"{package}/{sub.name}/")
    assert not missing, f"README's tour does not name: {missing}"


def test_every_top_level_folder_of_code_is_in_the_tour():
    tour = _tour()
    for folder in ("annotation", "screens", "ui", "db", "cli", "bench", "tests", "scripts", "guidelines"):
        assert re.search(rf"^{folder}/", tour, re.M), folder
