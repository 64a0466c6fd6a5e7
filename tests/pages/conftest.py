"""Fixtures for the page tests: the whole app (``app.py``) driven by Streamlit's AppTest.

Every test gets its own SQLite file: ``CHRONOCEPT_DATABASE_URL`` points at ``tmp_path`` before
the app runs, and the cached :func:`ui.session.get_database` is cleared before and after the
test, so the app opens that test's database. Seed data with the services through the ``db``
fixture (a second :class:`Database` on the same file).

Two things differ from production on purpose:

* **Fast Argon2** (same algorithm and code paths, minimal cost), as in the service tests.
* **MPA v1 emulation off.** ``AppTest`` resets ``PagesManager.uses_pages_directory`` before
  *every* run, and because this repository has a ``pages/`` folder next to ``app.py`` the flag
  becomes True again, so Streamlit's legacy MPA v1 emulation takes over: a run that asks for the
  page the previous run finished on executes ``pages/<name>.py`` *directly* (the v1 page of the
  same URL path has the same hash), skipping ``app.py`` — no navigation, no sidebar, no role
  gating, and the welcome page stays on screen after the first admin signs in. A real server
  sets the flag once per process: the first ``st.navigation`` call turns it off for good (checked
  with Chromium: after "Create administrator" the browser lands on "My queue"). The fixture
  below keeps the flag off for every AppTest run, as on a running server.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# ``screens`` and ``ui`` are not installed packages: the app runs from the repository root.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import pytest  # noqa: E402
from argon2 import PasswordHasher
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

from annotation.services.accounts import accounts, sessions
from annotation.services.corpus import demo_projects
from annotation.services.authz import Actor
from db.engine import Database
from ui.session import ACTOR_KEY, SESSION_TOKEN_KEY, get_database

from page_helpers import APP_PATH, PASSWORD, TIMEOUT  # noqa: E402  (shared with the tests)


class _NavigationOnlyPagesManager(PagesManager):
    """PagesManager for AppTest runs that never falls back to the MPA v1 ``pages/`` emulation."""

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        PagesManager.uses_pages_directory = False


@pytest.fixture(autouse=True)
def _navigation_like_a_server(monkeypatch):
    monkeypatch.setattr(app_test_module, "PagesManager", _NavigationOnlyPagesManager)
    monkeypatch.setattr(PagesManager, "uses_pages_directory", False)


@pytest.fixture(autouse=True)
def fast_password_hashing(monkeypatch):
    fast = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(accounts, "_hasher", fast)
    dummy = fast.hash("not-a-real-password")
    if hasattr(accounts, "_DUMMY_HASH"):
        monkeypatch.setattr(accounts, "_DUMMY_HASH", dummy)
    if hasattr(accounts, "_dummy_hash"):
        monkeypatch.setattr(accounts, "_dummy_hash", lambda: dummy)


@pytest.fixture
def db_url(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("CHRONOCEPT_DATABASE_URL", url)
    get_database.clear()
    yield url
    get_database.clear()


@pytest.fixture
def db(db_url, sqlite_template) -> Database:
    """The test's database (migrated: a copy of the session's template), for seeding and for
    checking what the pages stored."""
    path = Path(db_url.split("///", 1)[1])
    if not path.exists():
        shutil.copyfile(sqlite_template, path)
    database = Database.connect(db_url)
    yield database
    database.dispose()


@pytest.fixture
def admin(db) -> Actor:
    return accounts.create_first_admin(db, "admin", PASSWORD, "Ada Admin")


@pytest.fixture
def make_user(db, admin):
    """Factory: an account with ``role`` (password PASSWORD), returned signed in."""

    def _make(username: str, role: str = "annotator") -> Actor:
        accounts.create_user(db, admin, username, PASSWORD, role)
        return accounts.authenticate(db, username, PASSWORD)

    return _make


@pytest.fixture
def lead(make_user) -> Actor:
    return make_user("lead1", "lead")


@pytest.fixture
def ann(make_user) -> Actor:
    """One annotator, ann."""
    return make_user("ann")


@pytest.fixture
def demo(db, admin):  # type: ignore[no-untyped-def]
    """The demo project (its 50 sample texts), made by the admin."""
    return demo_projects.load_demo_project(db, admin)


@pytest.fixture
def pair(make_user) -> tuple[Actor, Actor]:
    """Two annotators, ann_a and ann_b."""
    return make_user("ann_a"), make_user("ann_b")


@pytest.fixture
def make_app(db_url, request):
    """Factory: an AppTest of the whole app, optionally already signed in as ``actor`` — with a
    session of its own in the database, as the sign-in page would have started. (The database
    is opened only then: a test of the start-up upgrade leaves it to the app.)"""

    def _make(actor: Actor | None = None) -> AppTest:
        at = AppTest.from_file(APP_PATH, default_timeout=TIMEOUT)
        if actor is not None:
            new = sessions.start_session(request.getfixturevalue("db"), actor)
            at.session_state[ACTOR_KEY] = new.actor
            at.session_state[SESSION_TOKEN_KEY] = new.token
        return at

    return _make


@pytest.fixture
def downloads(monkeypatch):
    """The data of every ``st.download_button`` of a run, by file name."""
    seen: dict[str, bytes | str] = {}
    original = MediaFileManager.add

    def _add(self, path_or_data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        if file_name is not None:
            seen[file_name] = path_or_data
        return original(self, path_or_data, mimetype, coordinates, file_name, is_for_static_download)

    monkeypatch.setattr(MediaFileManager, "add", _add)
    return seen
