"""What a command prints, how it fails (:class:`CliError`: one line on stderr, exit status 1),
and how it ends when the reader of its output has gone.

``chronocept audit --json | head -1``: ``head`` closes the pipe after its first line, and the next
write — or Python's last flush of standard output at exit — fails with EPIPE. The command then
ends as one stopped by SIGPIPE does in a shell pipeline: status 141 (128 + SIGPIPE), nothing on
stderr, no traceback. SIGPIPE itself stays ignored, as Python sets it: its default action would
also end a worker without a word when a socket breaks.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from typing import Sequence

#: The status a shell reports for a command stopped by SIGPIPE.
READER_GONE = 128 + signal.SIGPIPE


class CliError(Exception):
    """A failure reported as one line on stderr with exit status :attr:`exit_status` (1)."""

    exit_status = 1


class InputError(CliError):
    """An input file that cannot be read or used (``classical-model``): one line, exit status 2."""

    exit_status = 2


def reader_gone() -> int:
    """Point standard output at the null device — Python flushes it once more at exit, and what
    is still buffered then goes nowhere instead of failing again — and return :data:`READER_GONE`."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # standard output is no file (a test's buffer): nothing is flushed at exit
    return READER_GONE


def emit(text: str) -> int:
    """Print a command's result and flush it now, while a closed pipe can still be answered:
    0, or :data:`READER_GONE` when the reader has gone."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        return reader_gone()
    return 0


def parse_arguments(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser.parse_args(argv)``, with what ``--help`` printed flushed before argparse exits,
    so that a closed pipe ends it with :data:`READER_GONE` too."""
    try:
        try:
            return parser.parse_args(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(reader_gone()) from None
