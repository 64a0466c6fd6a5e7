"""The docstring examples of every module run and pass, and every public function of the listed
domain modules has one.

The modules with examples are found by walking the packages (:data:`WITH_EXAMPLES`: every module
of annotation/, ui/, db/ and cli/ whose text holds a ``>>>``), so an example written anywhere
runs; they are collected here rather than with pytest's ``--doctest-modules``, so the suite's
options in pyproject.toml stay as they are. :data:`MODULES` lists the modules whose every public
function needs an ``Examples`` block with at least one ``>>>`` line
(:func:`test_every_public_function_has_an_example`).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
from pathlib import Path
from types import ModuleType

import pytest

MODULES: tuple[str, ...] = (
    "annotation.timeaxis",
    "annotation.curves.density",
    "annotation.curves.points",
    "annotation.curves.residuals",
    "annotation.curves.shape",
    "annotation.curves.fit",
    "annotation.curves.compare",
    "annotation.curves.distance",
    "annotation.curves.half_gone",
    "annotation.quality.expert_scores",
    "annotation.quality.weighted_gold",
    "annotation.pairs.duration_classes",
    "annotation.pairs.change",
    "annotation.pairs.authoring",
    "annotation.quality.author_validation",
    "annotation.quality.annotator_stats",
    "annotation.quality.annotator_fit",
    "annotation.quality.annotator_model",
    "annotation.quality.classical_model",
    "annotation.quality.classical_dm",
    "annotation.quality.classical_robustness",
    "annotation.corpus.excalibur",
    "annotation.protocols",
    "annotation.protocols.pairs",
    "annotation.protocols.protocol",
    "annotation.review.pooling",
    "annotation.review.adjudication",
    "annotation.quality.gold_checks",
    "annotation.quality.gold_feedback",
    "annotation.quality.expert_scores",
    "annotation.segmentation",
    "annotation.review.resolution",
    "annotation.project_day",
    "annotation.export_folder",
    "annotation.export.figures",
    "annotation.export.tvcp",
    "annotation.export.tvcp_card",
    "annotation.export.tvcp_agreement",
    "annotation.export.card_scopes",
    "annotation.export.card_agreement",
    "annotation.export.card_experts",
    "annotation.review.sample_disagreement",
    "annotation.agreement.curve_agreement",
    "annotation.agreement.published",
    "annotation.publishable",
    "annotation.agreement.catalogue",
    "annotation.agreement.change_agreement",
    "annotation.agreement.pair_agreement",
    "annotation.agreement.reference_agreement",
    "annotation.agreement.icc",
    "annotation.agreement.icc_measure",
    "annotation.agreement.intervals",
    "annotation.agreement.jaccard",
    "annotation.agreement.kappa",
    "annotation.agreement.krippendorff_alpha",
    "annotation.agreement.measure",
    "annotation.agreement.ratings",
    "annotation.agreement.report",
    "annotation.agreement.segment_agreement",
    "annotation.agreement.tables",
    "annotation.agreement.verdict",
    "annotation.corpus.consistency",
    "annotation.sign_in_throttle",
    "annotation.corpus.text_import",
    "annotation.corpus.pair_import",
    "annotation.workbench.edit_script",
    "annotation.workbench.event_batch",
    "ui.pair_view",
    "annotation.review.pair_figures",
    "annotation.review.pair_settling",
    "annotation.review.deviation",
    "annotation.review.gold_rules",
    "annotation.quality.third_annotator",
    "annotation.services.rows",
    "annotation.training.scoring",
    "annotation.training.submissions",
    "annotation.training.change_scoring",
    "annotation.training.ensemble",
    "annotation.training.ensemble_curves",
    "annotation.training.audit",
    "annotation.training.calibration",
    "db.config",
)

ROOT = Path(__file__).resolve().parents[2]
AGREEMENT_DIR = ROOT / "annotation" / "agreement"


def _modules_with_examples() -> tuple[str, ...]:
    """Every module of the app's packages (migrations aside) whose source holds a ``>>>``."""
    names = []
    for top in ("annotation", "ui", "db", "cli"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts or ">>>" not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return tuple(names)


#: the modules whose examples run, found by walking the packages
WITH_EXAMPLES: tuple[str, ...] = _modules_with_examples()


def _doctests(module: ModuleType) -> list[doctest.DocTest]:
    return doctest.DocTestFinder().find(module)


def _public_functions(module: ModuleType) -> list[str]:
    """Names of the module-level functions defined in ``module`` (not imported into it) without
    a leading underscore; decorated ones (``lru_cache``) are unwrapped."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or inspect.isclass(value) or not callable(value):
            continue
        target = inspect.unwrap(value)
        if inspect.isfunction(target) and target.__module__ == module.__name__:
            names.append(name)
    return names


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(verbose=False)
    report = io.StringIO()
    failed = attempted = 0
    for test in _doctests(module):
        result = runner.run(test, out=report.write)
        failed += result.failed
        attempted += result.attempted
    assert attempted > 0, f"{name} has no docstring examples"
    assert failed == 0, f"{failed} of {attempted} examples in {name} failed:\n{report.getvalue()}"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_function_has_an_example(name):
    module = importlib.import_module(name)
    functions = _public_functions(module)
    assert functions, f"found no public functions in {name}"
    with_examples = {test.name for test in _doctests(module) if test.examples}
    missing = [f for f in functions if f"{name}.{f}" not in with_examples]
    assert not missing, f"public functions of {name} without a >>> example in their docstring: {missing}"


def test_every_agreement_module_is_listed():
    # A new measure is a new file in annotation/agreement (measure.py): it gets examples too.
    on_disk = {f"annotation.agreement.{p.stem}" for p in AGREEMENT_DIR.glob("*.py") if p.stem != "__init__"}
    assert on_disk <= set(MODULES), f"add to MODULES: {sorted(on_disk - set(MODULES))}"


def test_the_walk_finds_every_listed_module_and_more():
    assert set(MODULES) <= set(WITH_EXAMPLES)
    assert len(WITH_EXAMPLES) > len(set(MODULES))
    assert "annotation.services.process_cache" in WITH_EXAMPLES and "db.processes" in WITH_EXAMPLES
