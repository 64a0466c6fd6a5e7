"""A warm parent for the browser tests' Streamlit servers: one process per test process imports
the heavy third-party libraries once (Streamlit and its web server, numpy, pandas, scipy.stats,
SQLAlchemy, plotly, alembic, …), then forks a child for each ``streamlit run`` a test asks for.

Why: a server started with ``python -m streamlit run`` spent ~7 s of CPU importing before it
drew its first page (2-core machine; 1.6 s to answer its health check, 5.5 s more on the first
sign-in), and a browser test starts one or more. A forked child starts with those libraries in
memory: ~2 s. The app's own modules (annotation, ui, screens, db) are *not* imported here: each
server imports them itself on its first run, after its environment is set, as a fresh process
would (a module that reads a variable when imported reads the server's, and
:mod:`tests.browser.gates` patches them before anything binds them).

A child is otherwise the process ``python -m streamlit run`` would be: the working directory,
environment, ``sys.path`` (the folder it runs in, then ``PYTHONPATH``, then the interpreter's
own) and ``sys.argv`` of that command, stdout and stderr to the server's log, stdin from
``/dev/null``, default signal handlers; at exit its ``atexit`` functions run. It dies with the
zygote (``PR_SET_PDEATHSIG``), and the zygote with the test process (its stdin closes).

Protocol (JSON lines): the client writes ``{"op": "start", ...}`` or ``{"op": "poll", "pid": N}``
on the zygote's stdin; it answers ``{"pid": N}`` / ``{"code": null | int}`` on its stdout.
:class:`Zygote` is the client; ``python -m tests.browser.server_zygote`` is the zygote.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

#: What a server imports before its first page, minus the app's own modules. A name that does
#: not import is skipped (the server then imports what it needs itself, only slower).
PRELOAD = (
    "numpy", "pandas", "scipy.stats", "sqlalchemy", "sqlalchemy.orm", "plotly.graph_objects",
    "streamlit", "streamlit.web.cli", "streamlit.web.bootstrap", "streamlit.web.server",
    "streamlit.runtime", "uvicorn", "starlette.applications", "anyio", "alembic.command",
    "alembic.runtime.migration", "alembic.autogenerate", "mako.template", "pygments", "yaml",
    "argon2", "psycopg",
)
READY = "zygote ready"
PR_SET_PDEATHSIG = 1


# ----------------------------------------------------------------------------- the zygote

_exited: dict[int, int] = {}  # pid -> exit status as Popen.returncode gives it


def _reap(*_: object) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _exited[pid] = os.waitstatus_to_exitcode(status)


def _child(request: dict, base_path: list[str]) -> None:
    """In the forked child: become ``python -m streamlit ARGV`` and never return."""
    code = 1
    try:
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:  # die with the zygote, as a Popen child would not outlive a stopped test run
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), write_through=True)  # noqa: SIM115
        sys.stderr = io.TextIOWrapper(open(2, "wb", closefd=False), write_through=True)  # noqa: SIM115
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [request["cwd"], *extra, *base_path]
        sys.argv = ["streamlit", *request["argv"]]
        if request.get("preload"):
            importlib.import_module(request["preload"])
        import runpy
        runpy.run_module("streamlit", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - a crashed server says why in its log
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main() -> None:
    """The zygote: preload, then serve requests until stdin closes; then stop its children."""
    # what a fresh interpreter has on sys.path after the folder it runs in and PYTHONPATH
    own = {os.getcwd(), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)}
    base_path = [p for p in sys.path if p and p not in own]
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - skipped: the server imports it itself
            pass
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the test run, which closes stdin
    requests, replies = sys.stdin, sys.stdout
    print(READY, file=replies, flush=True)
    children: set[int] = set()
    for line in requests:
        request = json.loads(line)
        if request["op"] == "start":
            if threading.active_count() != 1:  # a fork copies only this thread: never with others
                raise RuntimeError("the zygote has other threads; it cannot fork safely")
            pid = os.fork()
            if pid == 0:
                _child(request, base_path)
            children.add(pid)
            reply = {"pid": pid}
        else:
            _reap()
            reply = {"code": _exited.get(request["pid"])}
        print(json.dumps(reply), file=replies, flush=True)
    for pid in children - set(_exited):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


# ----------------------------------------------------------------------------- the client

class ForkedServer:
    """A server forked by the zygote, with the part of ``subprocess.Popen``'s interface that
    :func:`tests.browser.app_server.stop` uses."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.returncode = self.zygote.poll(self.pid)
            except RuntimeError:  # the zygote has gone, and told its children to stop
                if not Path(f"/proc/{self.pid}").exists():
                    self.returncode = -signal.SIGTERM
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout)
            time.sleep(0.05)
        return self.returncode


class Zygote:
    """Client of one zygote process (started here, with ``env`` added to this environment and
    ``cwd`` as its working directory); thread-safe."""

    def __init__(self, cwd: Path, env: dict[str, str], timeout_s: float = 120.0) -> None:
        self.cwd = str(cwd)
        self.env = env
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.browser.server_zygote"], cwd=self.cwd,
            env={**os.environ, **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = threading.Event()
        threading.Thread(target=lambda: ready.wait(timeout_s) or self._process.kill(), daemon=True).start()
        first = self._process.stdout.readline().strip()
        ready.set()
        if first != READY:
            self.close()
            raise RuntimeError(f"the server zygote did not start (it said {first!r})")

    def _ask(self, request: dict) -> dict:
        with self._lock:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server zygote has exited ({self._process.returncode})")
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            return json.loads(self._process.stdout.readline())

    def spawn(self, argv: list[str], env: dict[str, str], log_path: Path,
              preload: str | None = None) -> ForkedServer:
        """``python -m streamlit ARGV`` in the zygote's working directory with environment
        ``env`` (the whole of it), output to ``log_path``; ``preload``: a module imported first."""
        reply = self._ask({"op": "start", "argv": argv, "env": env, "cwd": self.cwd,
                           "log": str(log_path), "preload": preload})
        return ForkedServer(self, reply["pid"])

    def poll(self, pid: int) -> int | None:
        return self._ask({"op": "poll", "pid": pid})["code"]

    def close(self) -> None:
        """Close the zygote's stdin: it stops its remaining children and exits."""
        try:
            self._process.stdin.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)


if __name__ == "__main__":
    main()
