"""A Streamlit app as a subprocess, for the browser tests (``conftest.streamlit_server``) and the
browser benchmark (``bench/ui_latency.py``): ``python -m streamlit run APP`` on a local port
(cwd = repository root, the repository on ``PYTHONPATH``), waited for until ``/_stcore/health``
answers, and stopped by its own PID. With a :class:`~tests.browser.server_zygote.Zygote` the
server is forked from that warm parent instead of started afresh (same command, environment and
working directory; ~5 s less CPU per server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.browser.server_zygote import ForkedServer, Zygote

REPO_ROOT = Path(__file__).resolve().parents[2]


class AppNotStarted(RuntimeError):
    """The server did not answer its health check in time (the message ends with its log)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def stop(process: subprocess.Popen | ForkedServer) -> None:
    """Stop a server started here, by its own PID: terminate, then kill."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def server_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """A server's whole environment: this process's, the repository on ``PYTHONPATH``, ``env``."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }


def start(app: Path, port: int, log_path: Path, env: dict[str, str] | None = None, *,
          timeout_s: float = 60.0, preload: str | None = None,
          zygote: Zygote | None = None) -> tuple[subprocess.Popen | ForkedServer, str]:
    """Start ``app`` (a path under the repository root, or absolute) on ``port`` with ``env``
    added to this process's environment, its output going to ``log_path``; returns the process
    and its base URL once healthy. ``preload``: a module the server imports before Streamlit
    starts (e.g. ``tests.browser.gates``); ``zygote``: fork it from there. Raises
    :class:`AppNotStarted` (the server stopped) when it exits or stays unhealthy for
    ``timeout_s``."""
    app = app if app.is_absolute() else REPO_ROOT / app
    full_env = server_env(env)
    argv = [
        "run", str(app),
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.fileWatcherType", "none",
    ]
    if zygote is not None:
        process = zygote.spawn(argv, full_env, log_path, preload)
    else:
        launcher = ["-m", "streamlit"] if preload is None else [
            "-c", f"import {preload}, runpy; runpy.run_module('streamlit', run_name='__main__', alter_sys=True)"]
        with log_path.open("w") as log:
            process = subprocess.Popen([sys.executable, *launcher, *argv], cwd=REPO_ROOT, env=full_env,
                                       stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while not healthy(f"{base}/_stcore/health"):
        if process.poll() is not None or time.monotonic() > deadline:
            code = process.poll()
            stop(process)
            raise AppNotStarted(
                f"Streamlit did not become healthy within {timeout_s:.0f} s (exit code {code}). "
                f"Log:\n{log_path.read_text(errors='replace')[-20_000:]}")
        time.sleep(0.25)
    return process, base
