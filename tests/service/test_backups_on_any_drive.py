"""Backups and restores on any drive, kept through a power cut (db.backup, db.restore, db.durable).

* a file system without hard links (FAT, exFAT, many SMB mounts: ``link`` fails with EPERM or
  ENOTSUP): ``chronocept backup`` writes there, still never over an existing file without
  ``--overwrite``, and a restore keeps the current database there — whether the kernel renames
  without replacing (``renameat2``) or, lacking that too, the name is checked first;
* any other failure of the drive is one line, nothing left behind, the database unchanged.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import errno
import os

import pytest
from sqlalchemy import select

import cli
from annotation.services import accounts
from db import durable
from db.config import BACKUP_DIR_ENV
from db.engine import ENV_VAR, Database
from db.models import User

def _chronocept(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _no_hard_links(code: int):
    def link(*_args, **_kwargs):
        raise OSError(code, os.strerror(code))
    return link


def _without_renameat2(source, target):
    raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), str(source), None, str(target))


@pytest.fixture
def url(db, monkeypatch) -> str:
    accounts.create_first_admin(db, "admin", "admin-password")
    url = db.engine.url.render_as_string(hide_password=False)
    monkeypatch.setenv(ENV_VAR, url)
    return url


@pytest.mark.parametrize("renames", ["without replacing", "after a check"])
@pytest.mark.parametrize("refusal", [errno.EPERM, errno.EOPNOTSUPP])
def test_a_backup_onto_a_drive_without_hard_links(db, url, tmp_path, capsys, monkeypatch, refusal, renames):
    monkeypatch.setattr(os, "link", _no_hard_links(refusal))
    if renames == "after a check":  # an old kernel, or a file system without RENAME_NOREPLACE
        monkeypatch.setattr(durable, "rename_noreplace", _without_renameat2)
    usb = tmp_path / "usb"
    usb.mkdir()
    target = usb / "team.backup"
    assert _chronocept(capsys, "backup", str(target)) == (0, f"backup written to {target}\n", "")
    first = target.read_bytes()
    accounts.create_user(db, accounts.actor_for_script(db), "latecomer", "password-123", "annotator")

    assert _chronocept(capsys, "backup", str(target)) == (
        1, "", f"chronocept: {target} already exists; add --overwrite to replace it\n")
    assert target.read_bytes() == first
    assert _chronocept(capsys, "backup", str(target), "--overwrite")[0] == 0
    assert target.read_bytes() != first
    assert sorted(p.name for p in usb.iterdir()) == ["team.backup"]  # no temporary file left


def test_a_drive_that_fails_otherwise_is_one_line(db, url, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(os, "link", _no_hard_links(errno.EIO))
    target = tmp_path / "usb" / "team.backup"
    assert _chronocept(capsys, "backup", str(target)) == (
        1, "", f"chronocept: the backup could not be written to {target}: Input/output error\n")
    assert list((tmp_path / "usb").iterdir()) == []


def _users(url: str) -> list[str]:
    db = Database.connect(url, upgrade=False)
    try:
        with db.read() as s:
            return list(s.scalars(select(User.username).order_by(User.id)))
    finally:
        db.dispose()


def test_a_restore_keeps_the_current_database_on_a_drive_without_hard_links(db, url, tmp_path, capsys,
                                                                            monkeypatch):
    backup = tmp_path / "team.backup"
    assert _chronocept(capsys, "backup", str(backup))[0] == 0
    accounts.create_user(db, accounts.actor_for_script(db), "latecomer", "password-123", "annotator")
    db.dispose()
    later = _users(url)
    usb = tmp_path / "usb"
    monkeypatch.setenv(BACKUP_DIR_ENV, str(usb))

    if db.is_sqlite:  # a drive that fails: nothing changes
        monkeypatch.setattr(os, "link", _no_hard_links(errno.EIO))
        code, out, err = _chronocept(capsys, "restore", str(backup))
        assert (code, out) == (1, "")
        assert err.startswith("chronocept: not restoring without a copy of the current database: ")
        assert "Input/output error" in err and err.count("\n") == 1
        assert _users(url) == later
        assert list(usb.iterdir()) == []

    monkeypatch.setattr(os, "link", _no_hard_links(errno.EPERM))  # FAT: restored, the copy kept there
    code, out, err = _chronocept(capsys, "restore", str(backup))
    assert (code, err) == (0, ""), err
    kept = list(usb.iterdir())
    assert len(kept) == 1 and kept[0].name.endswith("-before-restore" + (".db" if db.is_sqlite else ".dump"))
    assert f"the previous database is kept at {kept[0]}" in out
    assert "latecomer" not in _users(url)
