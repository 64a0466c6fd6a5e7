"""How long a text may be where the database stores it in a ``String(n)`` column.

The width of the column in :mod:`db.models` is the one definition of the limit: the services
read it from the column (:func:`width`) rather than repeat the number, so the check and the
column cannot drift apart, and the check is the same on SQLite (which stores any length) and
PostgreSQL (whose ``varchar(n)`` refuses a longer value with a ``DataError`` — a traceback, and
for a copied value such as the guidelines version, a failure of every later call that copies it).
``db`` imports nothing of the project, so the number cannot live in the domain for ``db`` to
read; reading it here keeps the layers' arrows as they are.

Two kinds of text reach such a column:

* **typed by a person or read from a file** (a display name, a project name, the guidelines
  version, an import's file name): :func:`check_length` refuses one that is too long with a
  message naming the field and the limit, before anything is written;
* **made by the code** (status codes, hashes, a host name) is short by construction; what comes
  from outside without being typed (a browser's user agent, a client address) is cut to the
  column with :func:`clip`, since nobody could act on a refusal.

A few limits are part of what a value *is* and belong to the domain, whose parsers run with no
database: a username (:data:`annotation.usernames.USERNAME_MAX_CHARS`), a text's id
(:data:`annotation.corpus.text_import.MAX_ID_CHARS`), an export's licence
(:data:`annotation.export.dataset.LICENCE_MAX_CHARS`). Their columns are declared at the same
width, and ``tests/service/test_text_limits.py`` holds each pair equal and walks every String
column for its rule.
"""

from __future__ import annotations

from typing import Any

from annotation.services.errors import InvalidInput


def width(column: Any) -> int:
    """The number of characters ``column`` (a model attribute such as ``User.display_name``)
    holds: the ``n`` of its ``String(n)``."""
    length = column.property.columns[0].type.length
    if length is None:
        raise TypeError(f"{column} has no width: it is not a String(n) column")
    return int(length)


def check_length(value: str, column: Any, field: str) -> str:
    """``value`` when it fits ``column``; otherwise :class:`InvalidInput` naming ``field`` as the
    user knows it ("guidelines version") and the limit. Call it before the write: nothing is
    changed."""
    return check_chars(value, width(column), field)


def check_chars(value: str, limit: int, field: str) -> str:
    """``value`` when it has at most ``limit`` characters; otherwise :class:`InvalidInput` naming
    ``field`` and the limit. For a rule of :mod:`annotation.text_limits` (a note stored in a Text
    column, which would take any length), the same number the page caps its input with."""
    if len(value) > limit:
        raise InvalidInput(f"The {field} can be at most {limit} characters (yours has {len(value)}).")
    return value


def clip(value: str | None, column: Any) -> str:
    """``value`` cut to ``column``'s width: for text from outside that nobody typed (a user
    agent, a client address), stored for information, where a refusal would help no one."""
    return (value or "")[:width(column)]


def require_fit(value: str, column: Any) -> str:
    """``value``, made by the code, when it fits ``column``; a longer one is a defect, raised
    as :class:`ValueError` on SQLite too (which would store it, where PostgreSQL refuses it)."""
    if len(value) > width(column):
        raise ValueError(f"{value!r} is longer than {column} ({width(column)} characters)")
    return value
