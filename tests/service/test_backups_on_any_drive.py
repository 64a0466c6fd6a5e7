"""Backups and restores on any drive, kept through a power cut (db.backup, db.restore, db.durable).

* a file system without hard links (FAT, exFAT, many SMB mounts: ``link`` fails with EPERM or
  ENOTSUP): ``chronocept backup`` writes there, still never over an existing file without
  ``--overwrite``, and a restore keeps the current database there — whether the kernel renames
  without replacing (``renameat2``) or, lacking that too, the name is checked first;
* any other failure of the drive is one line, nothing left behind, the database unchanged;
* a folder made for a file that must survive (the backup's, the kept copy's, the database's own)
  has its name flushed into its parent: every fsync is watched (the path of its descriptor).
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import errno
import os

import pytest
from sqlalchemy import select

import cli
from annotation.services.accounts import accounts
from db import durable
from db.config import BACKUP_DIR_ENV
from db.engine import ENV_VAR, Database
from db.models import User
from service_helpers import backup_replaced_only_with_overwrite

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
    done, first = backup_replaced_only_with_overwrite(db, target)
    assert done[0] == 0
    assert target.read_bytes() != first
    assert sorted(p.name for p in usb.iterdir()) == ["team.backup"]  # no temporary file left


def test_a_drive_that_fails_otherwise_is_one_line(db, url, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(os, "link", _no_hard_links(errno.EIO))
    target = tmp_path / "usb" / "team.backup"
    assert _chronocept(capsys, "backup", str(target)) == (
        1, "", f"chronocept: the backup could not be written to {target}: Input/output error\n")
    assert list((tmp_path / "usb").iterdir()) == []

    in_the_way = tmp_path / "usb" / "nightly"  # a file where the backup's folder would go
    in_the_way.write_text("not a folder")
    target = in_the_way / "team.backup"
    assert _chronocept(capsys, "backup", str(target)) == (
        1, "", f"chronocept: the backup could not be written to {target}: Not a directory\n")
    assert in_the_way.read_text() == "not a folder"


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

    monkeypatch.setattr(os, "link", _no_hard_links(errno.EIO))  # a drive that fails: nothing changes
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


@pytest.fixture
def flushed(monkeypatch) -> list[str]:
    """The paths of every file and folder flushed (fsync) from now on."""
    paths: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        paths.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return paths


def test_a_folder_made_for_a_backup_is_itself_on_the_disk(db, url, tmp_path, capsys, flushed):
    tmp_path = tmp_path.resolve()
    target = tmp_path / "usb" / "nightly" / "team.backup"
    assert _chronocept(capsys, "backup", str(target))[0] == 0
    # the backup's name in its folder, and each new folder's name in the folder above it
    assert {str(tmp_path), str(tmp_path / "usb"), str(tmp_path / "usb" / "nightly")} <= set(flushed)


def test_folders_made_by_a_restore_are_on_the_disk(tmp_path, monkeypatch, capsys, flushed):
    tmp_path = tmp_path.resolve()
    source = tmp_path / "source.db"
    Database.connect(f"sqlite:///{source}").dispose()
    backup = tmp_path / "team.backup"
    monkeypatch.setenv(ENV_VAR, f"sqlite:///{source}")
    assert _chronocept(capsys, "backup", str(backup))[0] == 0

    target = tmp_path / "new" / "team" / "chronocept.db"  # a restore into a folder not yet there
    monkeypatch.setenv(ENV_VAR, f"sqlite:///{target}")
    flushed.clear()
    assert _chronocept(capsys, "restore", str(backup))[0] == 0
    assert {str(tmp_path), str(tmp_path / "new")} <= set(flushed)

    monkeypatch.setenv(BACKUP_DIR_ENV, str(tmp_path / "kept" / "restores"))
    flushed.clear()
    assert _chronocept(capsys, "restore", str(backup))[0] == 0  # the kept copy's new folder
    assert {str(tmp_path), str(tmp_path / "kept")} <= set(flushed)
