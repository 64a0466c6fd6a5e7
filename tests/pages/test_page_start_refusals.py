"""The app refuses to start, in one line and creating nothing, where starting would put the
team's work somewhere it cannot stay: a database URL that cannot hold it (another kind of
database, an in-memory SQLite, a folder that cannot be made), or a database file that is gone
while an interrupted restore left its data elsewhere — never the first-run page on a new, empty
database."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from db import config as app_config
from db.engine import ENV_VAR, Database
from gone_processes import pid_of_no_process
from page_helpers import APP_PATH, TIMEOUT, run, shown
from ui.session import get_database

BAD_URLS = {
    "mysql://boss@db.example.org/chronocept": "names a mysql database, which Chronocept does not support",
    "sqlite:////proc/nope/x.db": "names /proc/nope/x.db, but nothing can be written in /proc",
    "sqlite:///": "names an in-memory SQLite database",
    "sqlite:///:memory:": "names an in-memory SQLite database",
}


def _start(url: str, folder: Path, monkeypatch) -> AppTest:
    monkeypatch.chdir(folder)  # where a relative default would be created
    monkeypatch.setenv(ENV_VAR, url)
    app_config.reset()  # a server started with it
    get_database.clear()
    return run(AppTest.from_file(APP_PATH, default_timeout=TIMEOUT))


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_database_url_that_cannot_hold_the_work_stops_the_app_in_one_line(url, tmp_path, monkeypatch):
    at = _start(url, tmp_path, monkeypatch)
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert errors[0].startswith("The app's configuration has a bad value, so it cannot start: "
                                f"{ENV_VAR} {BAD_URLS[url]}")
    assert not at.text_input  # no first-run or sign-in form
    assert list(tmp_path.iterdir()) == []
    assert not Path("/proc/nope").exists()


def test_a_database_a_killed_restore_moved_away_is_not_replaced_by_a_first_run(tmp_path, monkeypatch):
    target = tmp_path / "chronocept.db"
    Database.connect(f"sqlite:///{target}").dispose()  # its -wal folded in as the last connection closed
    kept = tmp_path / "backups" / "chronocept-20261124T091500Z-before-restore.db"
    kept.parent.mkdir()
    shutil.move(target, kept)  # where an older version's restore left it when killed ...
    old_copy = tmp_path / f".restore-{pid_of_no_process()}-0123abcd.db"  # ... beside its copy of the backup
    old_copy.write_bytes(b"SQLite format 3\x00")
    at = _start(f"sqlite:///{target}", tmp_path, monkeypatch)
    assert [shown(e.value) for e in at.error] == [
        f"The app cannot start: the database file {target} is missing, but an interrupted restore left "
        f"its data in {kept} (and 1 other file(s)); put it back with: chronocept restore {kept} — no new, "
        "empty database is made in its place (to start one, move those files away)"]
    assert not at.text_input
    assert sorted(os.listdir(tmp_path)) == [old_copy.name, "backups", "chronocept.db.lock"]
    get_database.clear()
