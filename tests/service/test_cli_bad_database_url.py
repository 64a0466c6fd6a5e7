"""Every ``chronocept`` command given a database URL that cannot hold the team's work — another
kind of database, an in-memory SQLite (``sqlite:///`` is one too), a folder that cannot be
made — says so in one line naming the variable, exits 1 and creates nothing: never a traceback,
never "created admin boss" in a database that is gone when the command ends."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import cli
from db.config import Config, ConfigError
from db.engine import ENV_VAR

MEMORY = "names an in-memory SQLite database, which is gone when the process ends"
BAD_URLS = {
    "mysql://boss@db.example.org/chronocept": "names a mysql database, which Chronocept does not support",
    "sqlite:////proc/nope/x.db": "names /proc/nope/x.db, but nothing can be written in /proc "
                                 "(No such file or directory)",
    "sqlite:///": MEMORY,
    "sqlite:///:memory:": MEMORY,
    "postgresql+asyncpg://boss@db.example.org/chronocept": "names the asynchronous driver asyncpg",
    "sqlite:///file:team.db?mode=memory&uri=true": MEMORY,
    "not a url": "is not a database URL",
}


def _invocations() -> dict[str, list[str]]:
    """Every command of the parser (``import texts`` for a nested one), with its positional
    arguments and required options filled in so that it parses: the settings are read next."""
    def filled(sub: argparse.ArgumentParser) -> list[str]:
        argv: list[str] = []
        for action in sub._actions:  # noqa: SLF001 - argparse has no public list
            value = (str(next(iter(action.choices))) if action.choices
                     else "1" if action.type in (int, float) else "x")
            if not action.option_strings:
                argv.append(value)
            elif action.required:
                argv += [action.option_strings[0], value]
        return argv

    found = {}
    for action in cli.build_parser()._subparsers._group_actions:  # noqa: SLF001
        for name, sub in action.choices.items():
            nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
            if not nested:
                found[name] = [name, *filled(sub)]
            for group in nested:
                found |= {f"{name} {inner}": [name, inner, *filled(p)] for inner, p in group.choices.items()}
    return found


@pytest.mark.parametrize("url", BAD_URLS)
def test_the_settings_refuse_a_database_url_that_cannot_hold_the_work(url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as refused:
        Config.from_environ({ENV_VAR: url})
    assert str(refused.value) == (f"{ENV_VAR} {BAD_URLS[url]}; give sqlite:///path/to/file.db or "
                                  "postgresql+psycopg://user@host/dbname. Ask the administrator.")
    assert list(tmp_path.iterdir()) == []


def test_good_urls_pass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for url in ("", "sqlite:///team.db", f"sqlite:///{tmp_path}/new/folder/team.db",
                "postgresql+psycopg://boss:secret@db.example.org/chronocept", "postgresql://boss@db/chronocept"):
        assert Config.from_environ({ENV_VAR: url}).database_url == url
    assert list(tmp_path.iterdir()) == []  # whether the new folder could be made left nothing


def test_every_command_refuses_a_bad_database_url_in_one_line_and_creates_nothing(tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    invocations = _invocations()
    assert {"create-user", "import texts", "backup", "restore", "train", "score", "run-job"} <= set(invocations)
    monkeypatch.chdir(work)
    for url, why in BAD_URLS.items():
        monkeypatch.setenv(ENV_VAR, url)
        for name, argv in invocations.items():
            capsys.readouterr()
            code = cli.main(argv)
            out, err = capsys.readouterr()
            assert (code, out) == (1, ""), (url, name, out, err)
            assert err == (f"chronocept: {ENV_VAR} {why}; give sqlite:///path/to/file.db or "
                           "postgresql+psycopg://user@host/dbname. Ask the administrator.\n"), (url, name)
    assert list(work.iterdir()) == [] and not Path("/proc/nope").exists()
