"""Fixtures for browser tests: a headless Chromium (Playwright) and Streamlit servers.

* ``chromium_browser`` — one Playwright Chromium for the session, launched from
  ``/usr/bin/chromium`` (Playwright cannot download its own browser here). Without that binary
  the tests are skipped, except in CI (env ``CI`` set), where they fail.
* ``run_streamlit`` — a factory: ``base_url = run_streamlit("tests/browser/app.py", env={...})``
  starts ``python -m streamlit run`` on a free port (cwd = repository root), waits for
  ``/_stcore/health`` and stops the server by its own PID at teardown. The server log goes to
  a temporary file, printed when the server fails to start or a test using it fails.
  ``run_streamlit_module`` is the same with servers shared by a test module, and
  :func:`streamlit_server` the context manager underneath. ``run_streamlit(APP, env,
  preload="tests.browser.gates")`` starts a server whose chosen functions a test can hold
  (:mod:`tests.browser.gates`). Servers are forked from one warm parent per test process
  (:mod:`tests.browser.server_zygote`: the heavy libraries imported once), unless
  ``CHRONOCEPT_TEST_FORK_SERVERS=0``, which starts each one afresh.
* ``page`` — a fresh browser context and page per test (a new page is a new Streamlit session).
  With ``CHRONOCEPT_BROWSER_TRACES=DIR`` each failed test leaves a Playwright trace in DIR
  (``playwright show-trace DIR/NAME.zip``: every action, DOM snapshot and screenshot).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.browser import app_server
from tests.browser.server_zygote import Zygote

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHRONOCEPT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT_S = 60.0


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the item so fixtures can see whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        message = f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium_browser, request) -> Iterator[object]:
    context = chromium_browser.new_context(viewport={"width": 1100, "height": 1400})
    context.set_default_timeout(15_000)
    traces = os.environ.get("CHRONOCEPT_BROWSER_TRACES")
    if traces:
        context.tracing.start(screenshots=True, snapshots=True)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"[{msg.type}] {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"[pageerror] {err}"))
    try:
        yield page
    finally:
        failed = getattr(request.node, "rep_call", None)
        failed = failed is not None and failed.failed
        if failed and console:
            print("---- browser console ----")
            print("\n".join(console[-80:]))
        if traces:
            if failed:  # open with `playwright show-trace FILE`
                Path(traces).mkdir(parents=True, exist_ok=True)
                trace = Path(traces) / f"{request.node.name}-{time.strftime('%H%M%S')}.zip"
                context.tracing.stop(path=str(trace))
                print(f"---- playwright trace: {trace} ----")
            else:
                context.tracing.stop()
        context.close()


class StreamlitServer:
    """A running ``streamlit run`` subprocess: ``base_url`` and its log."""

    def __init__(self, process: subprocess.Popen | app_server.ForkedServer, base_url: str, log_path: Path) -> None:
        self.process = process
        self.base_url = base_url
        self.log_path = log_path

    def log_text(self, tail: int = 20_000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""


@pytest.fixture(scope="session")
def server_zygote() -> Iterator[Zygote | None]:
    """The warm parent the test process's servers are forked from (None: start each afresh)."""
    if os.environ.get("CHRONOCEPT_TEST_FORK_SERVERS", "1") == "0":
        yield None
        return
    zygote = Zygote(REPO_ROOT, app_server.server_env())
    try:
        yield zygote
    finally:
        zygote.close()


@contextmanager
def streamlit_server(
    app_path: str | os.PathLike[str], env: dict[str, str] | None = None, preload: str | None = None,
    zygote: Zygote | None = None,
) -> Iterator[StreamlitServer]:
    """Start ``python -m streamlit run APP`` on a free port, wait until healthy, stop it after
    (``preload``: a module the server imports first, :func:`app_server.start`; ``zygote``: fork
    it from there)."""
    log_fd, log_name = tempfile.mkstemp(prefix="streamlit-", suffix=".log")
    os.close(log_fd)
    log_path = Path(log_name)
    try:
        try:
            process, base_url = app_server.start(Path(app_path), app_server.free_port(), log_path,
                                                 env, timeout_s=SERVER_START_TIMEOUT_S, preload=preload,
                                                 zygote=zygote)
        except app_server.AppNotStarted as exc:
            pytest.fail(str(exc))
        try:
            yield StreamlitServer(process, base_url, log_path)
        finally:
            app_server.stop(process)
    finally:
        log_path.unlink(missing_ok=True)


def _server_factory(request, stack: ExitStack) -> Callable[..., str]:
    failures_before = request.session.testsfailed
    servers: list[StreamlitServer] = []
    zygote = request.getfixturevalue("server_zygote")

    def start(app_path: str | os.PathLike[str], env: dict[str, str] | None = None,
              preload: str | None = None) -> str:
        server = stack.enter_context(streamlit_server(app_path, env, preload, zygote))
        servers.append(server)
        return server.base_url

    def print_logs_on_failure() -> None:
        if request.session.testsfailed > failures_before:
            for server in servers:
                print(f"---- streamlit log ({server.base_url}) ----")
                print(server.log_text())

    stack.callback(print_logs_on_failure)  # runs before the servers stop (LIFO)
    return start


@pytest.fixture
def run_streamlit(request) -> Iterator[Callable[..., str]]:
    """Factory: ``run_streamlit(app_path, env=None) -> base_url``; servers stop after the test."""
    with ExitStack() as stack:
        yield _server_factory(request, stack)


@pytest.fixture(scope="module")
def run_streamlit_module(request) -> Iterator[Callable[..., str]]:
    """Like ``run_streamlit``, but the servers live for the whole test module."""
    with ExitStack() as stack:
        yield _server_factory(request, stack)
