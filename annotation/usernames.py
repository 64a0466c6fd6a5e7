"""Usernames: the one set of rules for every path that makes or names an account.

``create-user``, the first-admin form, the Users page and the annotation import (whose
``annotator`` names become accounts) all go through :func:`check_username`, and refuse a new name
that :func:`find_lookalike` says looks like an existing one.

Decisions:

* **Normalisation** is only the removal of surrounding whitespace (``str.strip``), as
  ``create-user`` always did: ``"lead1 "`` *is* ``lead1``. Nothing else is rewritten — a name is
  never silently changed into another valid name (case, width, look-alike letters are refused,
  not folded).
* **Validation**: 2–64 characters, ASCII letters, digits, dots, dashes and underscores. So
  markup (``<script>``), spaces inside, control, format and bidi characters (``admin\\u202e``),
  and non-Latin letters are refused outright.
* **Look-alikes**: two names are confusable when their :func:`username_skeleton` is equal.
  The skeleton is NFKC, without invisible/format characters (Unicode category Cf: bidi
  controls, zero-width joiners…), case-folded, with common Cyrillic and Greek letters that look
  Latin mapped to that Latin letter, and the digits ``0`` → ``o`` and ``1`` → ``l``. The last two
  are included because ``lead1``/``leadl`` and ``ann0``/``anno`` are hard to tell apart in the
  sans-serif fonts the app uses. ``i``/``l`` and the separators ``.``, ``-``, ``_`` are *not*
  folded: they are distinct enough in those fonts, and folding them would refuse many ordinary
  names. (The Cyrillic/Greek and Cf steps matter only if the character rules ever widen; today
  such names are already refused by validation.)

Everything here is pure: strings in, strings out.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

USERNAME_MIN_CHARS = 2
USERNAME_MAX_CHARS = 64
_USERNAME_RE = re.compile(rf"[A-Za-z0-9_.\-]{{{USERNAME_MIN_CHARS},{USERNAME_MAX_CHARS}}}")
USERNAME_RULE = (f"A username is {USERNAME_MIN_CHARS}–{USERNAME_MAX_CHARS} letters, digits, dots, "
                 "dashes or underscores.")

# Letters of other scripts that render like a Latin letter (after case folding), and the two
# digits that render like letters. A deliberately short list of the common confusables (Unicode
# TR 39 has the full table; these cover what a person can type by accident or on purpose).
_HOMOGLYPHS = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # digits that look like letters
    "0": "o", "1": "l",
})


class UsernameError(ValueError):
    """A name that cannot be a username (the message is user-facing)."""


def normalise_username(raw: object) -> str:
    """The name as it will be stored: surrounding whitespace removed (nothing else changes)."""
    return raw.strip() if isinstance(raw, str) else ""


def check_username(raw: object) -> str:
    """The normalised username, or :class:`UsernameError` saying what the rule is."""
    name = normalise_username(raw)
    if not _USERNAME_RE.fullmatch(name):
        raise UsernameError(USERNAME_RULE)
    return name


def username_skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons mean the names are confusable (see module
    docstring for the steps)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = unicodedata.normalize("NFKC", text.casefold())
    return text.translate(_HOMOGLYPHS)


def find_lookalike(name: str, existing: Iterable[str]) -> str | None:
    """An existing name that looks like ``name`` without being it (None when there is none)."""
    skeleton = username_skeleton(name)
    for other in existing:
        if other != name and username_skeleton(other) == skeleton:
            return other
    return None
