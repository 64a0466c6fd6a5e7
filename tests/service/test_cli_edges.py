"""The ``chronocept`` command at its edges: its help, the README's table of commands, and a reader
of its output that goes away (``chronocept audit --json | head -1``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cli
from cli.output import READER_GONE
from db.engine import ENV_VAR

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> dict[str, object]:
    """Every command's parser by its name as typed ("import texts" for a kind of import)."""
    found = {}

    def walk(parser, prefix: str) -> None:
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, sub in action.choices.items():
                    found[f"{prefix}{name}"] = sub
                    walk(sub, f"{prefix}{name} ")

    walk(cli.build_parser(), "")
    return found


def _options(parser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings}


def test_the_help_is_plain_text_and_says_when_a_project_must_be_named():
    shown = cli.build_parser().format_help()
    assert "``" not in shown and "SPEC" not in shown, shown
    assert "--project NAME, which may be left out only while there is one project" in " ".join(shown.split())


def test_the_readme_shows_project_on_every_command_that_takes_it():
    readme = (ROOT / "README.md").read_text()
    table = re.search(r"^## Command line\n(.*?)^### ", readme, re.S | re.M).group(1)
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `chronocept ([a-z-]+(?: [a-z]+)?)\b.*$", table, re.M)}
    taking = [name for name, parser in _commands().items() if "--project" in _options(parser)]
    assert taking and set(taking) <= set(rows), set(taking) - set(rows)
    assert [name for name in taking if "--project P" not in rows[name]] == []
    assert "only while there is one project" in " ".join(table.split())


def _reader_gone_after_its_line() -> tuple[int, bytes]:
    """The write end of a pipe into ``head -1`` that has read its line and exited — what a
    command's output meets in ``| head -1`` once the first line has gone by — and what head
    printed."""
    read, write = os.pipe()
    head = subprocess.Popen(["head", "-1"], stdin=read, stdout=subprocess.PIPE)
    os.close(read)
    os.write(write, b"the first line\n")
    printed, _ = head.communicate(timeout=60)
    return write, printed


def test_a_command_whose_reader_has_gone_ends_quietly(tmp_path):
    """A real process, so that what Python does at exit is part of it; every command prints
    through the same place (``cli.output.emit``)."""
    write, printed = _reader_gone_after_its_line()
    try:
        done = subprocess.run([sys.executable, "-m", "cli", "create-user", "boss", "--role", "admin"],
                              input="long-enough-password\n", stdout=write, stderr=subprocess.PIPE, cwd=ROOT,
                              text=True, timeout=120, env={**os.environ, ENV_VAR: f"sqlite:///{tmp_path / 'c.db'}"})
    finally:
        os.close(write)
    assert printed == b"the first line\n"
    assert (done.returncode, done.stderr) == (READER_GONE, "")


@pytest.mark.parametrize("argv", [["--help"], ["resolve", "--help"]])
def test_help_still_prints_and_exits_as_argparse_does(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 0 and "usage: chronocept" in capsys.readouterr().out
