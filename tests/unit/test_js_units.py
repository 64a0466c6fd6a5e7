"""The components' pure JS state logic, unit-tested with ``node --test`` (``tests/js/*.test.js``):
run here so that the suite covers them. Needs Node.js 18 or later on the PATH (no npm packages);
without ``node`` the test is skipped and says why (it fails instead when ``CI`` is set:
``test.sh`` installs Node.js where it can)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = sorted((ROOT / "tests" / "js").glob("*.test.js"))


def test_there_are_js_unit_tests():
    assert JS_TESTS, "tests/js/ holds no *.test.js"


@pytest.mark.parametrize("path", JS_TESTS, ids=[p.name for p in JS_TESTS])
def test_node_unit_tests_pass(path: Path):
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):  # test.sh installs Node.js: in CI a missing node is a failure
            pytest.fail("node is not installed: the JS unit tests in tests/js/ cannot run")
        pytest.skip("node is not installed (apt-get install nodejs): the JS unit tests in "
                    "tests/js/ did not run")
    done = subprocess.run([node, "--test", str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (
        f"node --test {path.relative_to(ROOT)} failed (exit {done.returncode}):\n"
        f"{done.stdout[-8000:]}\n{done.stderr[-4000:]}")
