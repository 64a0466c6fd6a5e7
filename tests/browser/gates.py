"""Gates in a Streamlit server started for a browser test: a chosen function of the app is held
while a file exists, so the test clicks while the server is in the middle of a run — as a person
clicking while a busy server redraws does — and nothing is timed.

``CHRONOCEPT_TEST_GATES`` holds ``module:function=GATE`` entries, separated by ``;``. While the
file GATE exists, each call to that function adds a line to ``GATE.held`` and waits until the
test deletes GATE. A click made meanwhile starts a run of its own at once (Streamlit's
``runner.fastReruns``: the held run is told to stop at its next Streamlit call), which is held
there too: :func:`held_calls` going up says the click has reached the server and its callbacks
have run. The server imports this module before Streamlit starts
(``app_server.start(preload="tests.browser.gates")``); without the variable it changes nothing.
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: A test that never opens its gate fails on its own waits; the server does not hang for good.
HOLD_LIMIT_S = 60.0


def _log(gate: Path) -> Path:
    return gate.with_name(gate.name + ".held")


def held_calls(gate: Path) -> int:
    """How many calls ``gate`` has held so far."""
    log = _log(gate)
    return len(log.read_text().splitlines()) if log.exists() else 0


def _held(function: Callable[..., Any], gate: Path) -> Callable[..., Any]:
    @functools.wraps(function)
    def held(*args: Any, **kwargs: Any) -> Any:
        if gate.exists():
            with _log(gate).open("a") as log:
                log.write(f"{function.__name__}\n")
            deadline = time.monotonic() + HOLD_LIMIT_S
            while gate.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return function(*args, **kwargs)

    return held


def install(spec: str) -> None:
    """Hold each ``module:function`` of ``spec`` behind its gate file."""
    for entry in filter(None, spec.split(";")):
        target, _, gate = entry.partition("=")
        module_name, _, name = target.partition(":")
        module = importlib.import_module(module_name)
        setattr(module, name, _held(getattr(module, name), Path(gate)))


install(os.environ.get("CHRONOCEPT_TEST_GATES", ""))
