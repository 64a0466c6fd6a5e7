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
* ``page`` — a fresh browser context and page per test (a new page is a new Streamlit session);
  ``module_page``: one page for a module's tests, each opening its URL anew (the component
  harnesses, which need no fresh cookies: far less Chromium work than a new context each).
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


VIEWPORT = {"width": 1100, "height": 1400}
TRACES = os.environ.get("CHRONOCEPT_BROWSER_TRACES")


def _new_context(browser):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(15_000)
    if TRACES:
        context.tracing.start(screenshots=True, snapshots=True)
    return context


def _watch_console(page) -> list[str]:
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"[{msg.type}] {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"[pageerror] {err}"))
    return console


def _failed(request) -> bool:
    report = getattr(request.node, "rep_call", None)
    return report is not None and report.failed


def _after_test(request, context, console: list[str], *, chunk: bool) -> None:
    """On failure print the browser console; with CHRONOCEPT_BROWSER_TRACES save the test's trace
    (``chunk``: the test's part of a context's trace) when it failed."""
    failed = _failed(request)
    if failed and console:
        print("---- browser console ----")
        print("\n".join(console[-80:]))
    if TRACES:
        stop = context.tracing.stop_chunk if chunk else context.tracing.stop
        if failed:  # open with `playwright show-trace FILE`
            Path(TRACES).mkdir(parents=True, exist_ok=True)
            trace = Path(TRACES) / f"{request.node.name}-{time.strftime('%H%M%S')}.zip"
            stop(path=str(trace))
            print(f"---- playwright trace: {trace} ----")
        else:
            stop()


@pytest.fixture
def page(chromium_browser, request) -> Iterator[object]:
    context = _new_context(chromium_browser)
    page = context.new_page()
    console = _watch_console(page)
    try:
        yield page
    finally:
        _after_test(request, context, console, chunk=False)
        context.close()


@pytest.fixture(scope="module")
def module_browser_context(chromium_browser) -> Iterator[dict]:
    """A browser context for a module's tests, and the page they share (:func:`module_page`)."""
    context = _new_context(chromium_browser)
    shared = {"context": context, "page": None, "console": []}
    try:
        yield shared
    finally:
        if TRACES:
            context.tracing.stop()
        context.close()


@pytest.fixture
def module_page(module_browser_context, request) -> Iterator[object]:
    """The page a module's tests share, for pages without sign-in or cookies (the component
    harnesses): each test opens its URL anew (a new Streamlit session) in the page the last test
    left, at the default viewport. A new context's first page costs Chromium ~4 s of CPU on a
    2-core machine, the same page opened again ~1.5 s. After a failed test the next one gets a
    new page (nothing the failure left, a key held down say, carries over); after a passing one
    the page is left on ``about:blank``, which ends its Streamlit session."""
    shared = module_browser_context
    context = shared["context"]
    if shared["page"] is None or shared["page"].is_closed():
        shared["page"] = context.new_page()
        shared["console"] = _watch_console(shared["page"])
    page = shared["page"]
    page.set_viewport_size(VIEWPORT)
    shared["console"].clear()
    if TRACES:
        context.tracing.start_chunk()
    try:
        yield page
    finally:
        _after_test(request, context, shared["console"], chunk=True)
        try:
            if _failed(request):
                page.close()
            else:
                page.goto("about:blank")
        except Exception:  # noqa: BLE001 - a page that cannot even do that is not reused
            page.close()


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
