"""The layers of the house (ARCHITECTURE.md), checked on the imports of every module.

Arrows point one way: screens and the other front ends → services → the pure domain and ``db``.
Every module of a layer is parsed with :mod:`ast` and each import statement in it — ``import x``,
``from x import y``, relative imports, wherever they stand (inside a function, under
``if TYPE_CHECKING:``) — is compared with the layer's rule in :data:`RULES`. A type-only import
counts: it still ties the two modules together for every reader and every type checker. Only
import statements are read; the project imports nothing by name at run time.

Choices the rules encode:

* ``ui/`` is the shared UI shell, not a screen: it may keep what it needs of ``db`` (``ui/session.py``
  opens the database once per server and hands it to the screens; ``ui/preferences.py`` types
  it). A screen under ``screens/`` must go through services, so it has the ``db`` rule. ``app.py``
  (the Streamlit entry point) and ``cli/`` (the ``chronocept`` command) are front ends too: they
  open, upgrade and back up the database themselves, so they carry no rule of their own; the
  rules below keep every lower layer from importing any front end.
* ``db/`` imports nothing of the project. A fact the layers above share with the database is
  defined in ``db``, beside the column that stores it: the role names (``db.models.ROLES``) are
  the values the ``users.role`` check constraint accepts. The services publish what front ends
  need of it (``annotation.services.authz.ROLES``), so a screen or the CLI never reaches into
  ``db`` for it and ``db`` never imports the domain for it.
* One module of ``db`` is the domain's too: ``db.processes``, whether a process of this host
  still runs. Backups and restores (``db``) and the domain's leftovers of killed exports ask the
  same question, so one check answers both; it imports the standard library only (checked below),
  so the domain stays free of SQL and of the database.

Besides the rules, the domain must have no import cycle (a type-only one included): one module
of a cycle cannot be read, tested or moved without the other.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

#: The project's front ends: nothing below them may import them.
FRONT_ENDS: tuple[str, ...] = ("app", "screens", "ui", "cli")


@dataclass(frozen=True)
class Rule:
    """What one layer must not import.

    ``files`` are the path prefixes (relative to the repository root, ``/``-separated) of the
    layer's modules, less those under ``except_files`` (a sub-layer with a rule of its own).
    ``forbidden`` are module prefixes: ``"db"`` forbids ``db`` and every ``db.…`` module, not
    ``dbm``. ``allowed`` are module prefixes inside a forbidden one that the layer may import
    all the same. ``reason`` is what the failure says.
    """

    layer: str
    files: tuple[str, ...]
    except_files: tuple[str, ...]
    forbidden: tuple[str, ...]
    reason: str
    allowed: tuple[str, ...] = ()

    def covers(self, path: str) -> bool:
        return path.startswith(self.files) and not path.startswith(self.except_files)

    def broken_by(self, imported: tuple[str, ...]) -> str | None:
        """The forbidden prefix one of the ``imported`` module names falls under, if any."""
        checked = [name for name in imported if not _under(name, self.allowed)]
        for prefix in self.forbidden:
            if any(_under(name, (prefix,)) for name in checked):
                return prefix
        return None


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    """Whether module ``name`` is one of ``prefixes`` or inside one."""
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


RULES: tuple[Rule, ...] = (
    Rule("domain", ("annotation/",), ("annotation/services/",),
         ("streamlit", "sqlalchemy", "alembic", "db", "annotation.services", *FRONT_ENDS),
         "the domain is pure Python, data in and data out: no Streamlit, no SQL, no database, "
         "no services, no front end", allowed=("db.processes",)),
    Rule("db", ("db/",), (),
         ("annotation", *FRONT_ENDS),
         "db/ is persistence only and imports nothing of the project; facts it shares with the "
         "layers above are defined in db and published by the services"),
    Rule("services", ("annotation/services/",), (),
         ("streamlit", *FRONT_ENDS),
         "services are called by the front ends (screens, ui, app, cli), never the other way "
         "round, and draw nothing"),
    Rule("screens", ("screens/",), (),
         ("db", "sqlalchemy", "alembic"),
         "screens go through services; only ui/ (the shared shell) holds the database"),
)


@dataclass(frozen=True)
class Import:
    """One import statement: its line, the statement as written, and the module names it
    reaches — the module itself and, for ``from m import n``, also ``m.n`` (``n`` may be a
    submodule)."""

    line: int
    text: str
    modules: tuple[str, ...]


def module_name(path: str) -> str:
    """Dotted module name of a repository path: ``annotation/training/__init__.py`` →
    ``annotation.training``."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: str, source: str) -> list[Import]:
    """Every import statement of ``source`` (the text of the module at ``path``), in line
    order, relative imports resolved against ``path``'s package."""
    here = module_name(path)
    package = here if path.endswith("__init__.py") else here.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(node.lineno, f"import {alias.name}", (alias.name,)))
        elif isinstance(node, ast.ImportFrom):
            names = ", ".join(alias.name for alias in node.names)
            text = f"from {'.' * node.level}{node.module or ''} import {names}"
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    raise ValueError(f"{path}:{node.lineno}: {text} climbs above the top level")
                base = parts[:len(parts) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            reached = [module] + [f"{module}.{a.name}" if module else a.name
                                  for a in node.names if a.name != "*"]
            found.append(Import(node.lineno, text, tuple(m for m in reached if m)))
    return sorted(found, key=lambda i: i.line)


def layer_violations(path: str, source: str, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """One line per import of the module at ``path`` (text ``source``) that breaks the rule of
    its layer: ``path:line: statement — the <layer> layer must not import <prefix>: <reason>``."""
    applying = [rule for rule in rules if rule.covers(path)]
    if not applying:
        return []
    problems = []
    for imp in imports_of(path, source):
        for rule in applying:
            prefix = rule.broken_by(imp.modules)
            if prefix is not None:
                problems.append(f"{path}:{imp.line}: {imp.text} — the {rule.layer} layer must not "
                                f"import {prefix}: {rule.reason}")
    return problems


def import_cycles(sources: Mapping[str, str]) -> list[str]:
    """The import cycles among the modules ``sources`` maps (path → text), one line each:
    its modules, then every import inside the cycle as ``path:line: statement``.

    An import of ``a.b.c`` also reaches the packages ``a.b`` and ``a`` (Python runs their
    ``__init__`` first) unless they contain the importing module itself, whose own packages are
    already being set up. Cycles are the strongly connected components of that graph with more
    than one module (Tarjan's algorithm)."""
    by_module = {module_name(path): path for path in sources}
    edges: dict[str, dict[str, Import]] = {m: {} for m in by_module}
    for path, source in sources.items():
        me = module_name(path)
        own_packages = {me.rsplit(".", k)[0] for k in range(me.count(".") + 1)}
        for imp in imports_of(path, source):
            for name in imp.modules:
                parts = name.split(".")
                for n in range(1, len(parts) + 1):
                    target = ".".join(parts[:n])
                    if target in by_module and target not in own_packages:
                        edges[me].setdefault(target, imp)

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)

    lines = []
    for component in sorted(components):
        inside = [f"{by_module[a]}:{imp.line}: {imp.text}"
                  for a in component for b, imp in edges[a].items() if b in component]
        lines.append(f"import cycle {' ↔ '.join(component)} ({'; '.join(inside)})")
    return lines


def project_sources(*roots: str) -> dict[str, str]:
    """Path → text of every module under the given top-level folders of the repository."""
    return {path.relative_to(REPO_ROOT).as_posix(): path.read_text(encoding="utf-8")
            for root in roots for path in sorted((REPO_ROOT / root).rglob("*.py"))}


def _layer_roots() -> tuple[str, ...]:
    return tuple(sorted({prefix.split("/")[0] for rule in RULES for prefix in rule.files}))


def _domain_sources() -> dict[str, str]:
    domain = next(rule for rule in RULES if rule.layer == "domain")
    return {p: s for p, s in project_sources(*_layer_roots()).items() if domain.covers(p)}


# --- the house as it is --------------------------------------------------------------------------


def test_every_module_keeps_to_the_rule_of_its_layer():
    problems = [line for path, source in project_sources(*_layer_roots()).items()
                for line in layer_violations(path, source)]
    assert not problems, "imports that break the layers:\n" + "\n".join(problems)


def test_every_rule_covers_modules():
    """A renamed folder must not leave a rule checking nothing."""
    paths = list(project_sources(*_layer_roots()))
    empty = [rule.layer for rule in RULES if not any(rule.covers(p) for p in paths)]
    assert not empty, f"rules that cover no module: {empty}"


def test_the_module_of_db_the_domain_may_import_imports_the_standard_library_only():
    """``db.processes`` is allowed to the domain (module docstring) only while it brings nothing
    else with it: no SQLAlchemy, no other module of ``db``."""
    import sys

    domain = next(rule for rule in RULES if rule.layer == "domain")
    for module in domain.allowed:
        path = module.replace(".", "/") + ".py"
        imported = {name.split(".")[0] for imp in imports_of(path, (REPO_ROOT / path).read_text(encoding="utf-8"))
                    for name in imp.modules[:1]}
        assert imported <= set(sys.stdlib_module_names) | {"__future__"}, (path, imported)


def test_the_domain_has_no_import_cycle():
    cycles = import_cycles(_domain_sources())
    assert not cycles, "\n".join(cycles)


# --- the checker itself --------------------------------------------------------------------------


@pytest.mark.parametrize("path, source, line, layer, prefix", [
    ("annotation/timeaxis.py", "import math\nimport streamlit as st\n", 2, "domain", "streamlit"),
    ("annotation/curves/fit.py", "from sqlalchemy.orm import Session\n", 1, "domain", "sqlalchemy"),
    ("annotation/export/writer.py", "from annotation import services\n", 1, "domain", "annotation.services"),
    ("annotation/training/data.py", "from ..services.queue import WorkItem\n", 1, "domain",
     "annotation.services"),
    ("annotation/review/flags.py",
     "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from db.models import Sample\n",
     4, "domain", "db"),
    ("annotation/corpus/duplicates.py", "def embed():\n    import streamlit\n    return streamlit\n", 2, "domain",
     "streamlit"),
    ("annotation/corpus/splits.py", "from cli import main\n", 1, "domain", "cli"),
    ("annotation/leftovers.py", "from db.processes import process_is_alive\nfrom db.backup import ABANDONED_AFTER_S\n",
     2, "domain", "db"),
    ("annotation/leftovers.py", "from db import processes\n", 1, "domain", "db"),
    ("db/models.py", "from annotation.axes import AXIS_NAMES\n", 1, "db", "annotation"),
    ("db/migrations/versions/0009_new.py", "import ui.session\n", 1, "db", "ui"),
    ("annotation/services/workbench/queue.py", "import streamlit as st\n", 1, "services", "streamlit"),
    ("annotation/services/review/review.py", "from screens import review\n", 1, "services", "screens"),
    ("screens/users.py", "import pandas as pd\nfrom db.models import ROLES\n", 2, "screens", "db"),
])
def test_the_checker_reports_a_forbidden_import(path, source, line, layer, prefix):
    problems = layer_violations(path, source)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}:{line}: ")
    assert f"the {layer} layer must not import {prefix}: " in problems[0]


@pytest.mark.parametrize("path, source", [
    ("annotation/timeaxis.py", "import streamlit_extras\nimport dbm\nfrom annotation.axes import AXES\n"),
    ("annotation/services/workbench/queue.py", "from db.models import Sample\nfrom annotation import protocol\n"),
    ("screens/queue.py", "import streamlit as st\nfrom annotation.services import queue\n"
                         "from ui.session import get_database\n"),
    ("ui/session.py", "from db.engine import Database\n"),
    ("db/engine.py", "from db.upgrade import upgrade_schema\nfrom .models import Base\n"),
    ("annotation/leftovers.py", "from db.processes import process_is_alive\n"),
])
def test_the_checker_lets_allowed_imports_pass(path, source):
    assert layer_violations(path, source) == []


def test_relative_imports_resolve_against_the_package():
    found = imports_of("annotation/training/config.py",
                       "from .errors import BadConfigError\nfrom .. import axes\nfrom . import grids\n")
    assert [i.modules for i in found] == [
        ("annotation.training.errors", "annotation.training.errors.BadConfigError"),
        ("annotation", "annotation.axes"),
        ("annotation.training", "annotation.training.grids"),
    ]
    in_init = imports_of("annotation/training/__init__.py", "from .config import TrainingConfig\n")
    assert in_init[0].modules[0] == "annotation.training.config"


def test_the_cycle_finder_reports_a_type_only_cycle():
    sources = {
        "annotation/a.py": "from annotation.b import B\n",
        "annotation/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from annotation.a import A\n",
        "annotation/c.py": "from annotation import a, b\n",
    }
    assert import_cycles(sources) == [
        "import cycle annotation.a ↔ annotation.b (annotation/a.py:1: from annotation.b import B; "
        "annotation/b.py:3: from annotation.a import A)"
    ]


def test_the_cycle_finder_follows_package_initialisation():
    """Importing a submodule runs its package's ``__init__`` first: a cycle through it counts,
    while a submodule importing its own sibling does not cycle through its package."""
    sources = {
        "annotation/agreement/__init__.py": "from annotation.agreement.report import Report\n",
        "annotation/agreement/report.py": "from annotation.agreement.ratings import Rating\n"
                                          "from annotation.review.flags import FlagHit\n",
        "annotation/agreement/ratings.py": "",
        "annotation/review/flags.py": "from annotation.agreement.ratings import Rating\n",
    }
    cycles = import_cycles(sources)
    assert len(cycles) == 1
    assert cycles[0].startswith(
        "import cycle annotation.agreement ↔ annotation.agreement.report ↔ annotation.review.flags (")
    without = {**sources, "annotation/agreement/report.py": "from annotation.agreement.ratings import Rating\n"}
    assert import_cycles(without) == []
