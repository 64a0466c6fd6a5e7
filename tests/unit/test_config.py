"""The deployment's settings (``db.config``): every environment variable read in one place, into one
frozen object, checked at start; README's Configuration table is that object's table."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from db import config as app_config
from db.config import VARIABLES, Config, ConfigError

REPO = Path(__file__).resolve().parents[2]
CODE = ("annotation", "db", "cli", "ui", "screens")


@pytest.mark.parametrize("raw", ["abc", "0", "-3", "nan", "inf", "100000", "0.08"])
def test_a_session_lifetime_out_of_range_is_one_line_naming_the_variable(raw):
    with pytest.raises(ConfigError, match=r"^CHRONOCEPT_SESSION_HOURS must be a number of hours from "
                                          r"0\.0833 to 720; it is .*\. Ask the administrator\.$"):
        Config.from_environ({"CHRONOCEPT_SESSION_HOURS": raw})


def test_defaults_and_values():
    assert Config.from_environ({}) == Config()
    assert Config.from_environ({}).session_lifetime == timedelta(hours=12)
    got = Config.from_environ({
        "CHRONOCEPT_DATABASE_URL": " sqlite:///x.db ", "CHRONOCEPT_SESSION_HOURS": " 1.5 ",
        "CHRONOCEPT_EXPORT_DIR": "/e", "CHRONOCEPT_RUNS_DIR": "/r", "CHRONOCEPT_JOB_LAUNCHER": " ssh gpu ",
        "CHRONOCEPT_BACKUP_DIR": "/b", "CHRONOCEPT_UPGRADE_WITHOUT_BACKUP": "1"})
    assert got == Config("sqlite:///x.db", 1.5, Path("/e"), Path("/r"), "ssh gpu", Path("/b"), True)
    assert got.session_lifetime == timedelta(minutes=90)
    # blank is unset; only "1" opts out of the backup
    assert Config.from_environ({"CHRONOCEPT_BACKUP_DIR": "  ", "CHRONOCEPT_UPGRADE_WITHOUT_BACKUP": "yes"}) == Config()


def test_read_once_a_change_is_seen_after_a_new_load(monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", "/first")
    assert app_config.config().runs_dir == Path("/first")
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", "/second")
    assert app_config.config().runs_dir == Path("/first")
    assert app_config.load().runs_dir == Path("/second") == app_config.config().runs_dir


def test_a_bad_value_at_load_changes_nothing(monkeypatch):
    before = app_config.load({})
    with pytest.raises(ConfigError):
        app_config.load({"CHRONOCEPT_SESSION_HOURS": "-1"})
    assert app_config.config() is before


def test_only_db_config_reads_the_projects_variables():
    """No module reads a CHRONOCEPT_ variable from the environment but db/config.py (a child
    process's environment may still be *built* with one)."""
    reading = re.compile(r"(os\.environ\.get|os\.getenv|environ\.get|os\.environ\[)\(?\s*[\"']?(CHRONOCEPT_|[A-Z_]+_ENV\b)")
    files = [p for folder in CODE for p in (REPO / folder).rglob("*.py")] + [REPO / "app.py"]
    found = [f"{p.relative_to(REPO)}:{n}" for p in files if p != REPO / "db" / "config.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if reading.search(line)]
    assert not found, f"read the setting through db.config.config(): {found}"


def _table_rows() -> list[tuple[str, str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Configuration\n(.*?)^## ", text, re.S | re.M)
    assert match, "README has no Configuration section"
    return re.findall(r"^\| `(CHRONOCEPT_[A-Z_]+)` \| ([^|]+) \| ([^|]+) \|$", match.group(1), re.M)


def test_readme_table_is_the_settings_table():
    assert [(name, default.strip(), meaning.strip()) for name, default, meaning in _table_rows()] == list(VARIABLES)


def test_every_variable_the_code_names_is_in_the_table():
    files = [p for folder in CODE for p in (REPO / folder).rglob("*.py")] + [REPO / "app.py"]
    in_code = {v for p in files for v in re.findall(r"CHRONOCEPT_[A-Z_]+", p.read_text(encoding="utf-8"))}
    assert "CHRONOCEPT_DATABASE_URL" in in_code  # the walk found the code
    assert in_code <= {name for name, _, _ in _table_rows()}, "add the variable to db.config.VARIABLES and README"


def test_a_bad_session_lifetime_does_not_stand_in_the_way_of_the_cli(monkeypatch, capsys, tmp_path):
    """The CLI starts no sign-in session: a restore (recovery) is not refused for a lifetime."""
    from cli import main

    monkeypatch.setenv("CHRONOCEPT_SESSION_HOURS", "forever")
    monkeypatch.setenv("CHRONOCEPT_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    assert main(["restore", str(tmp_path / "missing.db")]) == 1
    err = capsys.readouterr().err
    assert "CHRONOCEPT_SESSION_HOURS" not in err and err.startswith("chronocept: ") and err.count("\n") == 1
    assert app_config.config().session_hours == 12.0
    assert Config.from_environ({"CHRONOCEPT_SESSION_HOURS": "forever"}, signs_in=False).session_hours == 12.0
