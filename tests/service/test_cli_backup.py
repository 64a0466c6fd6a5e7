"""``chronocept backup FILE`` never replaces a file silently: an existing FILE is refused, in one
line that names ``--overwrite``, and left as it was; with ``--overwrite`` it is replaced in one
step, so a backup killed on its way (a real process, SIGKILL) leaves the earlier FILE whole or
the new one whole — never a half file. On SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

import cli
from annotation.services.accounts import accounts
from db.engine import ENV_VAR
from kill_points import killed_after_event
from service_helpers import backup_replaced_only_with_overwrite


def _chronocept(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _holds(backup: Path, username: str, is_sqlite: bool) -> bool:
    """Whether ``backup`` is a whole backup whose users include ``username``."""
    if is_sqlite:
        con = sqlite3.connect(f"{backup.as_uri()}?mode=ro", uri=True)
        try:
            assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            return con.execute("SELECT count(*) FROM users WHERE username = ?", (username,)).fetchone()[0] == 1
        finally:
            con.close()
    data = subprocess.run([shutil.which("pg_restore"), "--data-only", "--table", "users", "--file", "-",
                           str(backup)], capture_output=True, text=True, check=True).stdout
    return f"\t{username}\t" in data


@pytest.fixture
def url(db, monkeypatch) -> str:
    url = db.engine.url.render_as_string(hide_password=False)
    monkeypatch.setenv(ENV_VAR, url)
    return url


def test_an_existing_backup_is_replaced_only_with_overwrite(db, url, tmp_path):
    accounts.create_first_admin(db, "admin", "admin-password")
    target = tmp_path / "team.backup"
    done, _ = backup_replaced_only_with_overwrite(db, target)
    assert done == (0, f"backup written to {target} (the earlier file there replaced)\n", "")
    assert _holds(target, "latecomer", db.is_sqlite)
    assert not list(tmp_path.glob(".backup-*"))  # no temporary file left


def _opened_temporary(event: str, args: tuple) -> bool:
    return event == "open" and ".backup-" in str(args[0])


def _copying(event: str, args: tuple) -> bool:
    return (event == "sqlite3.connect" and ".backup-" in str(args[0])) or event == "subprocess.Popen"


def test_a_backup_killed_while_it_replaces_a_file_leaves_a_whole_one(db, url, tmp_path):
    accounts.create_first_admin(db, "admin", "admin-password")
    target = tmp_path / "team.backup"
    assert cli.main(["backup", str(target)]) == 0
    first = target.read_bytes()
    accounts.create_user(db, accounts.actor_for_script(db), "latecomer", "password-123", "annotator")
    overwrite = ["backup", str(target), "--overwrite"]

    for kill_after in (_opened_temporary, _copying):  # the new copy begun, half written
        assert killed_after_event(kill_after, lambda: cli.main(overwrite)) == -signal.SIGKILL
        assert target.read_bytes() == first, kill_after.__name__

    def renamed(event: str, args: tuple) -> bool:
        return event == "os.rename" and str(args[1]) == str(target)

    assert killed_after_event(renamed, lambda: cli.main(overwrite)) == -signal.SIGKILL
    assert target.read_bytes() != first and _holds(target, "latecomer", db.is_sqlite)
