"""Files that are whole whenever they have their name, after a kill or a power cut.

A rename is atomic, but what it points at is only on the disk once the file's data has been
flushed (``fsync``), and the rename itself only once its folder has been flushed. So a file that
something relies on is written under a temporary name, flushed, renamed, and its folder flushed.
"""

from __future__ import annotations

import os
from pathlib import Path


def flush_file(path: Path) -> None:
    """The data of the file at ``path`` on the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def flush_folder(folder: Path) -> None:
    """The folder's entries (a rename, a new or removed name) on the disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temporary_prefix_of(path: Path) -> str:
    """How the names start under which :func:`write_whole` writes ``path`` before naming it:
    hidden, beside it (``.<name>.tmp-``, then the writing process's id)."""
    return f".{path.name}.tmp-"


def temporary_name(path: Path) -> Path:
    return path.with_name(f"{temporary_prefix_of(path)}{os.getpid()}")


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent or holds all of it."""
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    flush_folder(path.parent)


def remove_durably(path: Path) -> None:
    """Remove ``path`` (if there) and flush its folder, so the removal survives a power cut."""
    path.unlink(missing_ok=True)
    flush_folder(path.parent)
