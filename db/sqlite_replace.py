"""Put one SQLite database file in place of another so that a process killed at any instruction
leaves, under the database's name, the old database or the new one — each whole — and the next
start finishes or undoes what was cut short, before anything opens the database.

The steps of :func:`replace_database_file` (the caller holds the database exclusively,
:func:`db.presence.held_exclusively`; it has made step 1):

1. the new database is a complete, checked file ``.<name>.restore-<host>-<pid>-<random>`` beside
   the database (the same folder, so that step 5's rename is atomic), flushed to the disk;
2. the current database is *copied*, never moved (:func:`keep_copy`): through SQLite's backup
   API, so what its ``-wal`` holds is in the copy, into a temporary file of the backup folder
   (a folder it makes has its name flushed into its parent too), flushed, then named
   ``<stem>-<UTC time>-before-restore<suffix>`` — whole before it has its name;
3. the intent marker ``<name>.restoring`` is written beside the database (temporary file,
   flushed, renamed, folder flushed): it names the copy of step 1 (and its size) and step 2's;
4. the current database is made self-contained (its ``-wal`` folded in) and its ``-wal``,
   ``-shm`` and ``-journal`` are removed — they would be replayed into the new file;
5. the copy is renamed over the database, the folder flushed;
6. the marker is removed, the folder flushed.

What a start finds (:func:`settle`), and does:

* no marker — killed in steps 1–2 (the database was not touched) or after step 6: the copies
  those steps left are removed (a copy kept whole in step 2 stays: it is a good backup);
* a marker and the whole copy — killed in steps 3–5: steps 4–6 are done now. The old database's
  ``-wal`` and the like go without being folded in: step 2 kept all of it;
* a marker and no copy — killed after step 5: the new database is in place; a ``-wal``,
  ``-shm`` or ``-journal`` beside it goes (nothing opened the new file while the marker was
  there, so one can only be the old database's, whose removal in step 4 a power cut undid, and
  SQLite would replay it into the new file); then the marker;
* a marker and a copy that is not whole — never after a kill (the copy was flushed before the
  marker named it), only after a disk fault: the restore is undone (marker, then copy removed);
* no database file and a ``.restore-<pid>-…`` file beside it — what a killed restore of an older
  version left (it *moved* the database aside, into the backup folder, before renaming that
  copy of the backup in place): refused, naming where the data is — never a new, empty database
  in its place (:class:`DatabaseMissing`). A missing file without that trace was removed or moved
  on purpose (this version's restore never leaves it missing), and gets a new, empty database,
  however many ``-before-restore`` copies the backup folder holds: every restore leaves one.
"""

from __future__ import annotations

import glob
import json
import os
import re
import secrets
import shutil
import socket
import sqlite3
from pathlib import Path

from db.backup import copy_sqlite_file, process_is_alive, stamped_names, temporary_prefix
from db.config import backup_folder_of
from db.durable import (flush_file, flush_folder, make_folder_durably, remove_durably, rename_without_replacing,
                        temporary_prefix_of, write_whole)

SQLITE_MAGIC = b"SQLite format 3\x00"
#: the files SQLite keeps beside a database, which belong to that file alone
COMPANIONS = ("-wal", "-shm", "-journal")
#: the copies of the backup that restores of older versions put beside the database before moving
#: it aside: ``.restore-<pid>-<random><suffix>``; one is there in every state such a restore, killed,
#: left without a database file (it goes only once the copy has the database's name)
_OLD_COPY = re.compile(r"\.restore-(?P<pid>\d+)-[0-9a-f]{8}(?:\.[^.]*)?(?:-journal)?")


class DatabaseMissing(Exception):
    """The database file is gone: a killed restore of an older version moved it away (one line)."""


def marker_path(database: Path) -> Path:
    """The intent marker of a replace of ``database`` under way (step 3)."""
    return database.with_name(f"{database.name}.restoring")


def new_copy_path(database: Path) -> Path:
    """Where a restore writes the new database (step 1): hidden, beside ``database``, named by
    the database and by the writing process."""
    return database.with_name(f".{database.name}.restore-{socket.gethostname()}-{os.getpid()}-"
                              f"{secrets.token_hex(4)}")


def _is_copy_of(database: Path, name: str) -> bool:
    prefix = f".{database.name}.restore-"
    return name.startswith(prefix) and re.fullmatch(
        r".+-\d+-[0-9a-f]{8}(?:-wal|-shm|-journal)?", name[len(prefix):]) is not None


def remove_copy(copy: Path) -> None:
    """Remove a copy of step 1 and what SQLite kept beside it."""
    for extra in ("", *COMPANIONS):
        Path(f"{copy}{extra}").unlink(missing_ok=True)


def interrupted(database: Path) -> bool:
    """Whether a replace of ``database`` was cut short (its marker is there)."""
    return marker_path(database).exists()


def needs_settling(database: Path) -> bool:
    """Whether :func:`settle` has anything to do (a stat and one listing of the folder)."""
    if interrupted(database):
        return True
    try:
        names = os.listdir(database.parent)
    except OSError:
        names = []
    marker_tmp = temporary_prefix_of(marker_path(database))
    return any(_is_copy_of(database, n) or n.startswith(marker_tmp) or _OLD_COPY.fullmatch(n) for n in names)


# ----------------------------------------------------------------------------------------- steps


def keep_copy(database: Path, folder: Path) -> Path:
    """Step 2: a whole copy of ``database`` in ``folder`` as ``<stem>-<UTC time>-before-restore
    <suffix>``; its path. A database SQLite cannot read through is copied as it is, with its
    ``-wal``/``-shm``/``-journal`` beside it under the same name, so it opens as it was."""
    make_folder_durably(folder)
    tmp = {"": folder / f"{temporary_prefix()}{secrets.token_hex(4)}"}
    try:
        try:
            copy_sqlite_file(database, tmp[""])
        except sqlite3.DatabaseError:
            for extra in ("", *COMPANIONS):
                if Path(f"{database}{extra}").exists():
                    tmp.setdefault(extra, folder / f"{temporary_prefix()}{secrets.token_hex(4)}")
                    shutil.copyfile(f"{database}{extra}", tmp[extra])
                    flush_file(tmp[extra])
        for target in stamped_names(folder, database.stem, "before-restore", database.suffix or ".db"):
            if not any(Path(f"{target}{extra}").exists() for extra in COMPANIONS):
                try:  # never a name that is there: two restores never share one
                    rename_without_replacing(tmp[""], target)
                    break
                except FileExistsError:
                    pass
        for extra, path in tmp.items():
            if extra:
                os.replace(path, f"{target}{extra}")
        flush_folder(folder)
        return target
    finally:
        for path in tmp.values():
            path.unlink(missing_ok=True)


def _fold(database: Path) -> None:
    """Step 4's first half: what the ``-wal`` holds written into the database file itself (a hot
    ``-journal`` rolled back by the first read). A database SQLite cannot read is left as it is:
    step 2 kept it whole all the same."""
    try:
        con = sqlite3.connect(database)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        pass


def _remove_companions(database: Path) -> None:
    for extra in COMPANIONS:
        Path(f"{database}{extra}").unlink(missing_ok=True)


def _put_in_place(database: Path, copy: Path, marker: Path) -> None:
    """Steps 4 (second half) to 6."""
    _remove_companions(database)
    os.replace(copy, database)
    flush_folder(database.parent)
    remove_durably(marker)


def replace_database_file(database: Path, copy: Path, kept: Path | None) -> None:
    """Steps 3 to 6: put ``copy`` (step 1) in place of ``database``, whose whole copy is ``kept``
    (step 2; None when there was no database). From step 3 on, the copy belongs to the marker: an
    error leaves both for the next start to finish with."""
    marker = marker_path(database)
    intent = {"copy": copy.name, "size": copy.stat().st_size, "kept": str(kept) if kept else None}
    try:
        write_whole(marker, json.dumps(intent).encode())
    except BaseException:
        remove_copy(copy)
        raise
    if database.exists():
        _fold(database)
    _put_in_place(database, copy, marker)


# -------------------------------------------------------------------------------------- recovery


def _read_marker(marker: Path) -> dict:
    try:
        intent = json.loads(marker.read_text(encoding="utf-8"))
        return intent if isinstance(intent, dict) and isinstance(intent.get("copy"), str) else {}
    except (OSError, ValueError):
        return {}


def _whole(copy: Path, size: object) -> bool:
    try:
        with copy.open("rb") as f:
            return copy.stat().st_size == size and f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _old_copies(database: Path) -> list[Path]:
    """The copies an older version's restores left beside ``database`` (:data:`_OLD_COPY`)."""
    try:
        return [database.parent / n for n in sorted(os.listdir(database.parent)) if _OLD_COPY.fullmatch(n)]
    except OSError:
        return []


def _kept_copies(database: Path) -> list[Path]:
    """The copies of ``database`` that restores kept in the backup folder, the newest first."""
    folder = backup_folder_of(database)
    pattern = f"{glob.escape(database.stem)}-*-before-restore{glob.escape(database.suffix or '.db')}"
    return sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []


def _missing(database: Path, where: list[Path]) -> DatabaseMissing:
    first = where[0]
    return DatabaseMissing(
        f"the database file {database} is missing, but an interrupted restore left its data in "
        f"{first}{f' (and {len(where) - 1} other file(s))' if len(where) > 1 else ''}; put it back with: "
        f"chronocept restore {first} — no new, empty database is made in its place (to start one, "
        "move those files away)")


def _sweep(database: Path) -> None:
    """Remove what killed steps 1 and 3 left: copies of this database, the marker's temporary
    file, and older versions' copies whose process is gone (only while the database is there:
    otherwise they may be all that is left of it)."""
    marker_tmp = temporary_prefix_of(marker_path(database))
    try:
        names = os.listdir(database.parent)
    except OSError:
        return
    for name in names:
        path = database.parent / name
        old = _OLD_COPY.fullmatch(name)
        if (_is_copy_of(database, name) or name.startswith(marker_tmp)
                or (old and database.exists() and not process_is_alive(int(old["pid"])))):
            path.unlink(missing_ok=True)


def settle(database: Path, *, refuse_missing: bool = True) -> None:
    """Finish or undo a replace of ``database`` that was cut short, and sweep what killed ones
    left (see the module docstring). The caller holds the database exclusively.
    ``refuse_missing``: raise :class:`DatabaseMissing` when an older version's killed restore
    moved the file away (a restore, which is the way back, passes False)."""
    marker = marker_path(database)
    if marker.exists():
        intent = _read_marker(marker)
        copy = database.with_name(intent["copy"]) if intent else None
        if copy is not None and _whole(copy, intent.get("size")):
            _put_in_place(database, copy, marker)
        else:  # the copy is in place already, or not whole: undone (the copy goes below)
            if copy is not None and not os.path.lexists(copy):  # in place: see the module docstring
                _remove_companions(database)
                flush_folder(database.parent)
            remove_durably(marker)
    _sweep(database)
    if refuse_missing:
        refuse_if_moved_away(database)


def refuse_if_moved_away(database: Path) -> None:
    """:class:`DatabaseMissing` when ``database`` is gone because a killed restore of an older
    version moved it aside (its copy of the backup is still beside it); the message names the
    newest kept copy, where that restore moved it."""
    if not database.exists():
        old = _old_copies(database)
        if old:
            raise _missing(database, _kept_copies(database) + old)
