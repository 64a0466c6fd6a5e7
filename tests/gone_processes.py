"""A process id that names no process, for tests of "is its writer gone?".

A child that was started and reaped is not one: under load the kernel can hand its id to a new
process before the check, and the writer then reads as alive (a flaky test). An id above the
kernel's ``pid_max`` is never handed out.
"""

from __future__ import annotations

from pathlib import Path


def pid_of_no_process() -> int:
    """A process id no process of this host has: above the kernel's ``pid_max``."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
