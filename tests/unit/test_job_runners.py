"""Each kind of background job is run by the runner its module registers with
``annotation.services.jobs.jobs`` (``RUNNERS``): jobs never imports the modules of the other kinds, so
the two import each other in one direction only, and the worker command (``chronocept run-job``)
imports every module that registers a runner. The command's modules share the acting user and
the project through ``cli.acting``, not through private names of the ``cli`` package."""

from __future__ import annotations

import ast
from pathlib import Path

from test_layers import import_cycles, imports_of, project_sources

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_of_job_has_its_runner():
    from annotation.services.jobs import jobs
    from annotation.services.model import model_jobs

    assert set(jobs.RUNNERS) == {jobs.TRAINING, *model_jobs.MODEL_KINDS}
    assert jobs.RUNNERS[model_jobs.PREDICT] is model_jobs.run_model_job


def test_jobs_and_the_job_kinds_import_each_other_in_one_direction():
    services = project_sources("annotation/services")
    cycles = [c for c in import_cycles(services) if "annotation.services.jobs.jobs" in c.split(" (")[0]]
    assert not cycles, "\n".join(cycles)


def _registering_modules() -> set[str]:
    """The services modules that register a runner (a call of ``register_runner`` at their top level)."""
    found = set()
    for path in sorted((ROOT / "annotation/services").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [node.value.func for node in tree.body
                 if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)]
        if any(getattr(f, "attr", getattr(f, "id", None)) == "register_runner" for f in calls):
            found.add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


def test_the_worker_command_imports_every_module_that_registers_a_runner():
    tree = ast.parse((ROOT / "cli/__init__.py").read_text(encoding="utf-8"))
    (worker,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "cmd_run_job"]
    imported = {name for imp in imports_of("cli/__init__.py", ast.unparse(worker)) for name in imp.modules}
    registering = _registering_modules()
    assert {"annotation.services.jobs.jobs", "annotation.services.model.model_jobs"} <= registering
    assert registering <= imported, registering - imported


def test_no_command_module_imports_the_cli_package_itself():
    """``from cli import _acting_user`` inside a command module's function dodged the cycle
    cli ↔ cli.model; what the modules share lives in a module of its own. (``cli/__main__.py``,
    what ``python -m cli`` runs, is no module of the package's: it calls ``cli.main``.)"""
    offenders = [f"{path}:{imp.line}: {imp.text}"
                 for path, source in project_sources("cli").items()
                 if not path.endswith(("__init__.py", "__main__.py"))
                 for imp in imports_of(path, source) if imp.modules[0] == "cli"]
    assert not offenders, "\n".join(offenders)
