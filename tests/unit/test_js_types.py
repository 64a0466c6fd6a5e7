"""The components' browser code and its node tests are type-checked: ``tsc --noEmit --checkJs``
over ``tsconfig.json`` (every ``.js`` in ``ui/components/`` and ``tests/js/``; ``noImplicitAny``, so
every function states its parameters' types in JSDoc). No build step: nothing is emitted, the
browser gets the files as they are. TypeScript is the one npm package the project uses
(``package.json``, pinned in ``package-lock.json``); ``test.sh`` installs it with ``npm ci``.
Without it the test is skipped and says why (it fails instead when ``CI`` is set)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TSC = ROOT / "node_modules" / ".bin" / "tsc"
JS_FILES = sorted([*(ROOT / "ui" / "components").glob("*.js"), *(ROOT / "tests" / "js").glob("*.js")])


def test_every_js_file_asks_to_be_checked_and_none_opts_out():
    missing = [p.relative_to(ROOT).as_posix() for p in JS_FILES
               if not p.read_text(encoding="utf-8").lstrip().startswith("// @ts-check")]
    assert not missing, f"these JS files do not begin with // @ts-check: {missing}"
    opting_out = [p.relative_to(ROOT).as_posix() for p in JS_FILES
                  if re.search(r"@ts-(nocheck|ignore)", p.read_text(encoding="utf-8"))]
    assert not opting_out, f"these JS files switch the type check off: {opting_out}"


def test_tsc_finds_no_type_error():
    if not TSC.exists() or shutil.which("node") is None:
        if os.environ.get("CI"):  # test.sh installs TypeScript: in CI a missing tsc is a failure
            pytest.fail("TypeScript is not installed (npm ci): the JS type check cannot run")
        pytest.skip("TypeScript is not installed (npm ci in the repository): the JS type check did not run")
    done = subprocess.run([str(TSC), "--noEmit", "-p", str(ROOT / "tsconfig.json")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"tsc --noEmit --checkJs found type errors:\n{done.stdout[-12000:]}\n{done.stderr[-2000:]}"
