"""The verdict of ``bench/team_load.py`` (a benchmark, run by hand): a target is met only on
calls that were measured — a run with no calls, or with none of one kind the target covers, is
"not met", never "met" for want of anything over the limit."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "team_load.py"


@pytest.fixture(scope="module")
def team_load():
    spec = importlib.util.spec_from_file_location("team_load_bench", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


FAST = {"next": [12.0, 20.0], "edit": [8.0, 9.0], "submit": [30.0], "batch500": [60.0]}


def test_zero_measured_calls_is_not_met(team_load):
    for mode in team_load.TARGETS:
        ok, reasons = team_load.verdict(mode, {}, {}, [])
        assert not ok and reasons[0] == "no next call measured", mode


def test_a_kind_of_call_never_measured_is_not_met(team_load):
    ok, reasons = team_load.verdict("think", {k: v for k, v in FAST.items() if k != "submit"}, {}, [])
    assert (ok, reasons) == (False, ["no submit call measured"])
    # the batch sender's calls count in the batch mode only
    assert team_load.verdict("think", {k: v for k, v in FAST.items() if k != "batch500"}, {}, []) == (True, [])
    assert team_load.verdict("batch", {k: v for k, v in FAST.items() if k != "batch500"}, {}, []) == (
        False, ["no batch500 call measured"])


def test_calls_within_target_with_no_error_and_every_check_held_are_met(team_load):
    for mode in team_load.TARGETS:
        assert team_load.verdict(mode, FAST, {}, []) == (True, []), mode


def test_a_slow_call_an_error_or_a_broken_check_is_not_met(team_load):
    slow = {**FAST, "edit": [8.0] * 19 + [1200.0]}  # p95 within, max over 1 s
    assert team_load.verdict("think", slow, {}, []) == (False, ["edit over target"])
    assert team_load.verdict("nothink", slow, {}, []) == (True, [])  # only the 2 s max there
    assert team_load.verdict("think", FAST, {"next: database is locked": 2}, ["an annotator holds a sample twice"]) == (
        False, ["2 errors", "an annotator holds a sample twice"])


def test_the_docstring_examples_hold(team_load):
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(team_load.verdict, "verdict", globs={"verdict": team_load.verdict}):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
