"""The benchmarks call what exists: every ``module.name`` a script in ``bench/`` reads from one of
the project's modules is there. Benchmarks run by hand, not in the suite, so a service renamed
under them (``submission.save_draft`` when the workbench moved to one write path) would only show
when someone next measured; this finds it at once."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("annotation", "db", "ui", "cli")


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    """Names bound to the project's modules: ``from annotation.services import queue`` and
    ``import annotation.x as y``."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROJECT_PACKAGES:
            for name in node.names:
                full = f"{node.module}.{name.name}"
                try:
                    importlib.import_module(full)
                except ImportError:
                    continue  # a function or class, not a module
                aliases[name.asname or name.name] = full
        elif isinstance(node, ast.Import):
            for name in node.names:
                if name.name.split(".")[0] in PROJECT_PACKAGES and name.asname:
                    aliases[name.asname] = name.name
    return aliases


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "bench").glob("*.py")))
def test_every_project_name_a_benchmark_reads_exists(script):
    tree = ast.parse((ROOT / "bench" / script).read_text())
    aliases = _module_aliases(tree)
    missing = sorted({f"{aliases[node.value.id]}.{node.attr}" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id in aliases
                      and not hasattr(importlib.import_module(aliases[node.value.id]), node.attr)})
    assert not missing, f"bench/{script} reads names that do not exist: {missing}"
