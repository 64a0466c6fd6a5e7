"""Sample flags: the reasons an annotator can give instead of finishing a sample.

The automatic flags computed once both annotations are in (SPEC section 5) join the same
vocabulary here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlagReason:
    code: str
    label: str
    needs_note: bool = False


ANNOTATOR_FLAGS: tuple[FlagReason, ...] = (
    FlagReason("no_main_timeline", "No clear main timeline"),
    FlagReason("not_present_tense", "Not present tense"),
    FlagReason("multiple_peaks", "Needs more than one peak"),
    FlagReason("other", "Other (explain in the note)", needs_note=True),
)
ANNOTATOR_FLAG_CODES: tuple[str, ...] = tuple(f.code for f in ANNOTATOR_FLAGS)
_BY_CODE = {f.code: f for f in ANNOTATOR_FLAGS}


def flag_label(code: str) -> str:
    """Human label of a flag code (the code itself when unknown)."""
    reason = _BY_CODE.get(code)
    return reason.label if reason else code


def flag_needs_note(code: str) -> bool:
    reason = _BY_CODE.get(code)
    return bool(reason and reason.needs_note)
