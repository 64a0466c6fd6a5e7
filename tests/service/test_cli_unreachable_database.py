"""Every ``chronocept`` command pointed at a PostgreSQL server that does not answer says so in
one line on stderr and exits non-zero — never a traceback (SPEC section 11). Real processes."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cli
from db.engine import ENV_VAR

ROOT = Path(__file__).resolve().parents[2]
#: nothing listens on port 1; the password must not be shown either
UNREACHABLE = "postgresql+psycopg://postgres:S3cretPW@127.0.0.1:1/chronocept"
#: runs each command line of argv[1] (a JSON list) through cli.main with its own stdin (a
#: password line), stdout and stderr; prints their exit codes and output as JSON; an exception
#: that escapes cli.main is a traceback on that command's stderr
RUNNER = r"""
import contextlib, io, json, sys, traceback
import cli
results = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO("password-123\n")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            traceback.print_exc()
            code = None
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
print(json.dumps(results))
"""


def _commands() -> set[str]:
    parser = cli.build_parser()
    names = set()
    for action in parser._subparsers._group_actions:  # noqa: SLF001 - argparse has no public list
        for name, sub in action.choices.items():
            nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
            names |= {f"{name} {inner}" for a in nested for inner in a.choices} if nested else {name}
    return names


@pytest.fixture
def archive(postgres_url, tmp_path) -> Path:
    """A real ``chronocept backup`` of a PostgreSQL database, so that restore gets as far as
    connecting to the (unreachable) one it is asked to replace."""
    path = tmp_path / "real.dump"
    done = subprocess.run([sys.executable, "-m", "cli", "backup", str(path)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, ENV_VAR: postgres_url}, timeout=120)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.postgres
def test_every_command_says_in_one_line_that_the_database_cannot_be_reached(tmp_path, archive):
    texts = tmp_path / "texts.txt"
    texts.write_text("The shop is closed this week.\n")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("target,follow_up\nThe shop is closed this week.,It reopened today.\n")
    invocations = {
        "create-user": ["create-user", "bob", "--role", "annotator"],
        "import texts": ["import", "texts", str(texts)],
        "import pairs": ["import", "pairs", str(pairs)],
        "import annotations": ["import", "annotations", str(texts)],
        "agreement": ["agreement", "--json"],
        "resolve": ["resolve"],
        "dedup": ["dedup", "--quiet"],
        "export": ["export", str(tmp_path / "out"), "--quiet"],
        "exports": ["exports"],
        "jobs": ["jobs"],
        "run-job": ["run-job", "1"],
        "demo": ["demo"],
        "backup": ["backup", str(tmp_path / "backup.dump")],
        "restore": ["restore", str(archive)],
        "predict": ["predict", str(tmp_path)],
        "audit": ["audit"],
    }
    # train and score read an export folder and need no database (train only records its run in
    # one that holds its export, and says so when it cannot); classical-model reads EXCALIBUR files
    assert set(invocations) | {"train", "score", "classical-model"} == _commands()
    env = {**os.environ, ENV_VAR: UNREACHABLE}
    # one process runs every command in turn (each through cli.main, as `python -m cli` does):
    # a process per command spent a minute of the suite importing the same modules 16 times
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(list(invocations.values()))],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    for name, result in zip(invocations, json.loads(done.stdout.splitlines()[-1])):
        lines = result["stderr"].strip().splitlines()
        assert result["code"] == 1 and len(lines) == 1, (name, result["stderr"])
        assert lines[0].startswith("chronocept: cannot reach the database postgresql+psycopg://postgres:***@"
                                   "127.0.0.1:1/chronocept: "), (name, lines[0])
        assert "S3cretPW" not in result["stderr"] + result["stdout"]
