"""Opt-in pytest plugin: the CPU seconds each test cost, its own process's and those of every
process under it (Streamlit servers, Chromium, the PostgreSQL server is not one), like
``--durations`` but steady on a shared, busy machine where wall times are not.

    python -m pytest -p tests.cpu_times [--cpu-times=N] tests/browser

prints the N most expensive tests (default 30) and each folder's total after the run (with xdist
too: the workers attach their figures to the reports). A process that ended is counted in its
parent's children's times once its parent reaped it, so a test is charged what its processes
used while it ran, set-up and teardown included; a test during which a process tree ended
without being reaped (the session's Chromium, at the last test's teardown) is left out, as its
figure is lost. Linux only (``/proc``).
"""

from __future__ import annotations

import os
from collections import defaultdict

import pytest

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
KEY = "cpu_s"


def _tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its descendants alive now, their reaped children included."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(v) for v in fields[11:15]) / TICK
    total = 0.0
    for pid, cpu in times.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor]
        if ancestor == root:
            total += cpu
    return total


def pytest_addoption(parser):
    parser.addoption("--cpu-times", type=int, default=30, metavar="N",
                     help="show the N tests that cost the most CPU (tests.cpu_times)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = _tree_cpu(os.getpid())
    item.user_properties.append((KEY, before))  # replaced below, before the teardown's report
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    if call.when == "teardown":
        for n, (name, value) in enumerate(item.user_properties):
            if name == KEY:
                item.user_properties[n] = (KEY, round(_tree_cpu(os.getpid()) - value, 2))
    return (yield)


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    costs: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "teardown":
                continue
            for name, value in getattr(report, "user_properties", ()):
                if name == KEY and value >= 0:
                    costs[report.nodeid] = value
    if not costs:
        return
    folders: dict[str, float] = defaultdict(float)
    for nodeid, cost in costs.items():
        folders["/".join(nodeid.split("::")[0].split("/")[:2])] += cost
    terminalreporter.write_sep("=", f"CPU seconds: {sum(costs.values()):.0f} in all")
    for folder, cost in sorted(folders.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{cost:9.1f}  {folder}")
    terminalreporter.write_sep("-", f"the {config.getoption('cpu_times')} most expensive tests")
    for nodeid, cost in sorted(costs.items(), key=lambda kv: -kv[1])[:config.getoption("cpu_times")]:
        terminalreporter.write_line(f"{cost:9.2f}  {nodeid}")
