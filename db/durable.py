"""Files that are whole whenever they have their name, after a kill or a power cut.

A rename is atomic, but what it points at is only on the disk once the file's data has been
flushed (``fsync``), and the rename itself only once its folder has been flushed. So a file that
something relies on is written under a temporary name, flushed, renamed, and its folder flushed;
a folder made for it has its own name flushed into its parent (:func:`make_folder_durably`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from functools import cache
from pathlib import Path
from typing import Callable


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


def make_folder_durably(folder: Path) -> None:
    """``folder`` made, with the folders above it that are missing, each new folder's name flushed
    into its parent: a file flushed into a new folder is on the disk only once the folder is too,
    or a power cut takes the file with its folder."""
    missing = []
    walk = Path(folder)
    while not walk.is_dir() and walk.parent != walk:
        missing.append(walk)
        walk = walk.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:  # made by another process meanwhile (flushed all the same), or a file
            if not path.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)) from None
        flush_folder(path.parent)


#: how a file system without hard links (FAT, exFAT, many SMB mounts) refuses one
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})
#: how a kernel or file system without ``renameat2``'s ``RENAME_NOREPLACE`` refuses it
_NO_NOREPLACE = frozenset({errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP})
_AT_FDCWD = -100  # Linux's "relative to the working folder"
_RENAME_NOREPLACE = 1


@cache
def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    """The C library's ``renameat2`` (Linux, glibc 2.28 and later), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


def rename_noreplace(source: Path, target: Path) -> None:
    """``rename(source, target)`` that fails (:class:`FileExistsError`) where ``target`` exists,
    in one step (``renameat2`` with ``RENAME_NOREPLACE``); :class:`OSError` with ``EINVAL`` or
    ``ENOSYS`` where the kernel or the file system cannot."""
    function = _renameat2()
    if function is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), str(target))
    if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(source), None, str(target))


def rename_without_replacing(source: Path, target: Path) -> None:
    """Give the file ``source`` the name ``target`` (same folder) only where nothing has that
    name — :class:`FileExistsError` otherwise, and ``source`` is left as it was — so that two
    writers never take one name. The caller flushes the folder.

    A hard link cannot take an existing name, and works almost everywhere; where the file system
    has none (FAT, exFAT, many SMB mounts), ``renameat2(RENAME_NOREPLACE)`` does the same in one
    step (those file systems have it, on Linux). Where neither exists the name is checked, then
    the file renamed: a file another process gives ``target`` between the two would be replaced
    — the callers choose names no other writer chooses (a time stamp, a number, a person's own
    file), so that gap only matters where two writers race for one name within microseconds."""
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
    else:
        os.unlink(source)
        return
    try:
        rename_noreplace(source, target)
        return
    except OSError as exc:
        if exc.errno not in _NO_NOREPLACE:
            raise
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))
    os.replace(source, target)


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
