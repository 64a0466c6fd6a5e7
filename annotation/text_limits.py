"""How long the text people type may be: one rule per field, shared by every layer.

The services check each limit before a write and the pages and the surface cap their inputs with
the same number (the surface gets it in its payload), so a text that a page accepts is never
refused by the database or cut short (a String column's own width is checked by
:mod:`annotation.services.text_limits`).

>>> MAX_TEXT_CHARS, NOTE_MAX_CHARS, SHORT_NOTE_MAX_CHARS
(5000, 2000, 500)
"""

from __future__ import annotations

#: A text to annotate (a sample's text, a pair's target or follow-up, an authored follow-up).
MAX_TEXT_CHARS = 5000
#: A note that explains: an annotation's flag note, a lead's review note, a pause lifted.
NOTE_MAX_CHARS = 2000
#: A short remark beside a choice (why a warm-up gold was chosen).
SHORT_NOTE_MAX_CHARS = 500

__all__ = ["MAX_TEXT_CHARS", "NOTE_MAX_CHARS", "SHORT_NOTE_MAX_CHARS"]
