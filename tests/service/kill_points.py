"""Kill a real process at a chosen instruction: a forked child (everything is imported already,
so each try costs a fork, not an interpreter's start) runs a function and SIGKILLs itself at the
chosen point. The parent gets the child's fate back; what the kill left is for the test to check."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from typing import Callable

#: a comprehension's later iterations are not kill points of their own (:func:`killed_at_line`)
COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})


def _in_child(run: Callable[[], int], install: Callable[[], None]) -> int:
    """Fork; the child installs its kill point and runs ``run`` (never returning into pytest).
    The child's fate: ``-SIGKILL`` when it was killed, else its exit status (1 after an
    exception, whose traceback is on stderr)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            install()
            code = run()
        except BaseException:  # noqa: BLE001 - said on stderr; the parent sees the exit status
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def killed_at_line(k: int, files: frozenset[str], run: Callable[[], object],
                   kill_here: Callable[[object], bool] = lambda _frame: True) -> bool:
    """Run ``run`` in a child that SIGKILLs itself at its k-th line event in ``files`` (paths as
    in ``co_filename``) among those where ``kill_here(frame)`` holds. True: killed; False: it
    finished first (k is past its last line).

    A comprehension's later iterations do not count: in the code this kills, they only read
    (table names, row counts, the names in a folder), so a kill there leaves what a kill at its
    first iteration leaves, and they were a third of the line events."""
    def install() -> None:
        seen = 0
        iterating: set[int] = set()

        def on_line(frame, event, _arg):  # type: ignore[no-untyped-def]
            nonlocal seen
            if event == "return":
                iterating.discard(id(frame))  # a later frame may have the same id
            if event != "line" or not kill_here(frame):
                return on_line
            if frame.f_code.co_name in COMPREHENSIONS:
                if id(frame) in iterating:
                    return on_line
                iterating.add(id(frame))
            seen += 1
            if seen == k:
                os.kill(os.getpid(), signal.SIGKILL)
            return on_line

        sys.settrace(lambda frame, _e, _a: on_line if frame.f_code.co_filename in files else None)

    def finish() -> int:
        run()
        return 0

    fate = _in_child(finish, install)
    assert fate in (0, -signal.SIGKILL), f"the child failed without being killed (exit status {fate})"
    return fate != 0


def killed_after_event(kill_after: Callable[[str, tuple], bool], run: Callable[[], int]) -> int:
    """Run ``run`` in a child that SIGKILLs itself at the first audited event (``sys.audit``:
    opening, renaming, linking a file, connecting to SQLite…) after one for which
    ``kill_after(event, args)`` holds; the child's fate (see :func:`_in_child`)."""
    def install() -> None:
        armed = False

        def hook(event, args):  # type: ignore[no-untyped-def]
            nonlocal armed
            if armed:
                armed = False  # os.kill is audited too: this hook runs again, and lets it be
                os.kill(os.getpid(), signal.SIGKILL)
            elif kill_after(event, args):
                armed = True

        sys.addaudithook(hook)

    return _in_child(run, install)
