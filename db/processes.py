"""Whether a process of this host still runs: the one check behind every "is its writer gone?"
— a backup's or a restore's temporary file (:mod:`db.backup`, :mod:`db.sqlite_replace`), an
export's staging folder, an import, a background job (:func:`annotation.leftovers.writer_is_alive`).

Standard library only, and nothing of the project: ``db`` is the lowest layer, and the pure
domain may import this module (and no other of ``db``; ``tests/unit/test_layers.py``).
"""

from __future__ import annotations

import os
from pathlib import Path


def process_is_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host still runs.

    Signal 0 asks without signalling; a process of another user exists (``EPERM``). A zombie —
    a process that has exited and waits for its parent to collect its status, as a worker the
    app started does until the app polls it — runs no more, so it is gone. A number no process
    can have (0 or less names a process group to ``kill``, too large overflows) is gone too.

    Examples:
        >>> process_is_alive(os.getpid())
        True
        >>> process_is_alive(0), process_is_alive(-1), process_is_alive(2**64)
        (False, False, False)
    """
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    except (OverflowError, OSError):
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        # exited since the signal, where there is a /proc; without one, signal 0 said it exists
        return not Path("/proc/self/stat").exists()
    except OSError:
        return True
    fields = stat.rsplit(")", 1)[-1].split()  # the name, in parentheses, may hold anything
    return not fields or fields[0] != "Z"
