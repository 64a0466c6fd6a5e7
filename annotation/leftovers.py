"""What a killed export leaves behind, and whether its writer still runs — light enough for
every process to import at its start (the app's first run, each ``chronocept`` command): the
export package itself pulls in pandas and scipy (1.3 s) and is imported only where an export is
written or read.

* a staging folder's or an export row's *writer* (host and process id): :func:`writer_is_alive`;
  where a process id names one process (the host, its boot, its pid namespace): :func:`pid_scope`;
* the folders the figures processes share with their export, in the system temp folder
  (``chronocept-figures-<host>-<pid>-<random>``): :func:`remove_abandoned_figure_folders`.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# the one check whether a process of this host runs, shared with db's backups and restores
from db.processes import process_is_alive

#: How a job or an export whose worker died (its process gone, or its heartbeat stale) reads in
#: every listing.
WORKER_GONE = "the worker stopped without finishing"

#: A staging folder whose writer cannot be checked (another host, no marker) is abandoned when
#: untouched for this long. An export of 100k samples writes for about 15 s, so an hour is far
#: beyond any live export while still cleaning up within the day.
ABANDONED_AFTER_SECONDS = 3600.0


def _boot_and_pid_namespace() -> tuple[str, int] | None:
    """This kernel's boot id and the inode of this process's pid namespace, where Linux tells them."""
    try:
        return (Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip(),
                os.stat("/proc/self/ns/pid").st_ino)
    except (OSError, ValueError):
        return None


def pid_scope() -> str:
    """Where this process's id names this process and no other: the host's name, then on Linux
    the boot id and the pid namespace (``app1/9d1515d5-…-6f74187772fd/4026531836``; at most
    64 + 48 characters). Containers that share a host name but not a pid namespace, or two boots
    of one host, differ here, so one never judges the other's writer by a process id that means
    nothing to it. Where Linux does not tell them, the host's name alone.

    >>> pid_scope().split("/")[0] == socket.gethostname()
    True
    """
    host = socket.gethostname()
    known = _boot_and_pid_namespace()
    return host if known is None else f"{host}/{known[0]}/{known[1]}"


def writer_is_alive(writer: Mapping[str, Any] | None, started: float, *, now: float | None = None,
                    max_age: float = ABANDONED_AFTER_SECONDS) -> bool:
    """Whether the export written by ``writer`` (:func:`writer_identity`) since ``started``
    (epoch seconds) may still be running. On this host the process is checked (a dead process
    means abandoned; this very process, e.g. another export thread of this app server, is live
    until ``max_age``); another host's process cannot be checked (several app servers share one
    database and one export disk), so its export counts as live until ``max_age``.

    "This host" is the writer's ``host`` when it is this process's :func:`pid_scope` (an
    import's writer records it), or the bare host name (an export's writer records that, as did
    rows recorded before the scope was): a writer recorded with another scope — another
    container with the same host name, an earlier boot — is not checked by its process id."""
    now = time.time() if now is None else now
    if now - started > max_age:
        return False
    if not writer or writer.get("host") not in (pid_scope(), socket.gethostname()):
        return True
    pid = writer.get("pid")
    if pid == os.getpid():
        return True
    return isinstance(pid, int) and process_is_alive(pid)


#: The folders of the figures processes, in the system temp folder:
#: ``chronocept-figures-<host>-<pid>-<random>``, ``pid`` the export's process (who removes it)
FOLDER_PREFIX = "chronocept-figures-"
_FOLDER = re.compile(re.escape(FOLDER_PREFIX) + r"(?:(?P<host>.+)-(?P<pid>\d+)-)?[a-z0-9_]{8}")


def figures_folder_prefix(host: str, pid: int) -> str:
    """The name prefix (for ``tempfile.mkdtemp``) of the folder that the export of process
    ``pid`` on ``host`` shares with its figures process.

    Examples:
        >>> figures_folder_prefix("app1", 4242)
        'chronocept-figures-app1-4242-'
    """
    return f"{FOLDER_PREFIX}{host}-{pid}-"


def remove_abandoned_figure_folders(parent: str | Path, *, now: float | None = None,
                                    max_age: float = ABANDONED_AFTER_SECONDS) -> list[Path]:
    """Remove the figures folders in ``parent`` (the system temp folder) that an export killed
    with its figures process left behind; return them. A folder counts as abandoned once the
    export's process is gone (:func:`writer_is_alive`: checked on this host) or, when it cannot
    be checked (another host, a folder named before the name carried its owner), after
    ``max_age`` seconds untouched; a folder of another user is never touched.

    Examples:
        >>> import os, socket, tempfile
        >>> parent = Path(tempfile.mkdtemp())
        >>> dead = parent / (figures_folder_prefix(socket.gethostname(), 2**22 + 7) + "abcd1234")
        >>> live = parent / (figures_folder_prefix(socket.gethostname(), os.getpid()) + "abcd1234")
        >>> dead.mkdir(); live.mkdir(); (parent / "chronocept-figures-notes").mkdir()
        >>> [p.name for p in remove_abandoned_figure_folders(parent)] == [dead.name]
        True
        >>> sorted(p.name.split("-")[-1] for p in parent.iterdir())
        ['abcd1234', 'notes']
        >>> import shutil; shutil.rmtree(parent)
    """
    import os
    import shutil

    removed: list[Path] = []
    try:
        entries = sorted(Path(parent).iterdir())
    except OSError:
        return removed
    for folder in entries:
        match = _FOLDER.fullmatch(folder.name)
        if match is None or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            info = folder.stat()
        except OSError:
            continue
        if info.st_uid != os.getuid():
            continue
        owner = {"host": match["host"], "pid": int(match["pid"])} if match["pid"] else None
        if writer_is_alive(owner, info.st_mtime, now=now, max_age=max_age):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed
