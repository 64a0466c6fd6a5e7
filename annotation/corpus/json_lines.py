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
