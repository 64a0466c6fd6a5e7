"""Decoding one line of a JSON Lines file that a user uploaded, without ever raising past it.

``json.loads`` can fail in three ways on hostile input: malformed JSON (``JSONDecodeError``),
nesting deeper than the interpreter's recursion limit (``[[[[…``: ``RecursionError``, which
is not a ValueError) and an integer longer than Python's 4300-digit limit (a plain
``ValueError``). All three become the caller's own line-numbered error, so the text import and
the annotation import refuse the file with a message instead of a traceback.
"""

from __future__ import annotations

import json
from typing import Any, Callable, NoReturn

#: ``error(line, reason)`` builds the caller's exception (ImportFileError, InterchangeError).
LineError = Callable[[int, str], Exception]


def numbered_json_lines(text: str) -> list[tuple[int, str]]:
    r"""The non-blank lines of a JSON Lines text with their 1-based numbers. A line ends at
    "\n" (or "\r\n") only, as JSON Lines says: a text or a note may hold U+2028 or another
    character :meth:`str.splitlines` would split at, and ``json.dumps(..., ensure_ascii=False)``
    (the export) writes it as it is.

    Examples:
        >>> numbered_json_lines('{"a": 1}\r\n\n{"b": "x\u2028y"}\n')
        [(1, '{"a": 1}'), (3, '{"b": "x\u2028y"}')]
    """
    return [(n, raw.removesuffix("\r")) for n, raw in enumerate(text.split("\n"), start=1) if raw.strip()]


def decode_json_line(raw: str, line: int, error: LineError) -> Any:
    """The decoded value of ``raw``, or ``error(line, reason)`` raised."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        _fail(error, line, f"not valid JSON ({exc.msg})")
    except RecursionError:
        _fail(error, line, "the JSON is nested too deeply")
    except ValueError as exc:  # an integer of more than 4300 digits
        reason = "a number has too many digits" if "digits" in str(exc) else str(exc)
        _fail(error, line, f"not valid JSON ({reason})")


def _fail(error: LineError, line: int, reason: str) -> NoReturn:
    raise error(line, reason) from None
