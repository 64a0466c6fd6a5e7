"""The flag vocabulary (SPEC sections 3 and 5): every reason a sample can go to a lead.

Two kinds of flag share it (:data:`FLAG_REASONS`, :data:`FLAG_LABELS`, :func:`flag_label`):

* **annotator flags** (SPEC section 3) — the reasons an annotator can give instead of finishing a
  sample (:data:`ANNOTATOR_FLAGS`);
* **automatic flags** (SPEC section 5) — raised by the rules of :mod:`annotation.review.flags` once at
  least two annotations of a sample are in (:data:`AUTOMATIC_FLAGS`), and for context pairs by
  :mod:`annotation.review.pair_settling` (:data:`PAIR_FLAGS`).

The vocabulary stands apart from the rules so that :mod:`annotation.workbench.protocol`, which checks the
flags an annotation carries, and :mod:`annotation.review.flags`, whose rules read annotations, need
not import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from annotation.parameters import PARAMETERS


@dataclass(frozen=True)
class FlagReason:
    """One reason a sample can be flagged: its stored code, the label shown to people, whether
    the annotator must explain it in the note, and whether the back office raises it itself."""

    code: str
    label: str
    needs_note: bool = False
    automatic: bool = False


ANNOTATOR_FLAGS: tuple[FlagReason, ...] = (
    FlagReason("no_main_timeline", "No clear main timeline"),
    FlagReason("not_present_tense", "Not present tense"),
    FlagReason("multiple_peaks", "Needs more than one peak"),
    FlagReason("other", "Other (explain in the note)", needs_note=True),
)
ANNOTATOR_FLAG_CODES: tuple[str, ...] = tuple(f.code for f in ANNOTATOR_FLAGS)

#: The curve parameters compared by the deviation rules (base-1.1 log minutes for ξ and ω).

SEGMENTATION_MISMATCH = "segmentation_mismatch"
PK_ABOVE_THRESHOLD = "pk_above_threshold"
#: Two annotators' curves further apart (Wasserstein-1 on the log-time axis) than ``flag_w1_max``.
CURVE_DISTANCE = "curve_distance"
#: On a segment of the union of boundaries the annotators chose different axes: the gold keeps one
#: axis per segment, so a lead chooses (:mod:`annotation.review.gold_rules`).
AXES_DIFFER = "axes_differ"
#: Deviation flag code of each parameter, e.g. ``DEVIATION_CODES["xi"] == "xi_deviation"``.
DEVIATION_CODES: Mapping[str, str] = {p: f"{p}_deviation" for p in PARAMETERS}

AUTOMATIC_FLAGS: tuple[FlagReason, ...] = (
    FlagReason(SEGMENTATION_MISMATCH, "Segmentation mismatch", automatic=True),
    FlagReason(PK_ABOVE_THRESHOLD, "Pk above threshold", automatic=True),
    FlagReason(DEVIATION_CODES["xi"], "Location ξ deviates", automatic=True),
    FlagReason(DEVIATION_CODES["omega"], "Scale ω deviates", automatic=True),
    FlagReason(DEVIATION_CODES["alpha"], "Skewness α deviates", automatic=True),
    FlagReason(CURVE_DISTANCE, "Curves far apart", automatic=True),
    FlagReason(AXES_DIFFER, "Axes differ on a segment", automatic=True),
)
AUTOMATIC_FLAG_CODES: tuple[str, ...] = tuple(f.code for f in AUTOMATIC_FLAGS)

#: Context pairs (``annotation.review.pair_settling``): the annotators' change labels differ; an
#: annotator overrode the label derived from their two curves; an authored pair's settled change
#: is not the change its author intended; and the curve rules again on the second curve (the
#: target given the follow-up), under codes of their own so both curves' hits reach the lead.
CHANGE_DISAGREEMENT = "change_disagreement"
CHANGE_OVERRIDDEN = "change_overridden"
INTENT_DIFFERS = "intent_differs"
#: The code of a curve rule's hit on the second curve, by the first curve's code.
GIVEN_CODES: Mapping[str, str] = {c: f"given_{c}" for c in (*DEVIATION_CODES.values(), CURVE_DISTANCE)}
PAIR_FLAGS: tuple[FlagReason, ...] = (
    FlagReason(CHANGE_DISAGREEMENT, "Change labels disagree", automatic=True),
    FlagReason(CHANGE_OVERRIDDEN, "Change label overridden", automatic=True),
    FlagReason(INTENT_DIFFERS, "Change differs from the author's intent", automatic=True),
    *(FlagReason(GIVEN_CODES[r.code], f"Given the follow-up: {r.label[0].lower()}{r.label[1:]}", automatic=True)
      for r in AUTOMATIC_FLAGS if r.code in GIVEN_CODES),
)
PAIR_FLAG_CODES: tuple[str, ...] = tuple(f.code for f in PAIR_FLAGS)

#: A lead opened the case from Review's "Model disagrees" list (a cross-fitted model's curve lies
#: far from the gold's): neither the annotator's nor automatic, so a recomputation never drops it.
MODEL_DISAGREES = "model_disagrees"
LEAD_REASONS: tuple[FlagReason, ...] = (FlagReason(MODEL_DISAGREES, "The model disagrees with the gold"),)

#: Every flag reason, annotator reasons first (the order hits and filters are listed in).
FLAG_REASONS: tuple[FlagReason, ...] = ANNOTATOR_FLAGS + AUTOMATIC_FLAGS + PAIR_FLAGS + LEAD_REASONS
FLAG_CODES: tuple[str, ...] = tuple(f.code for f in FLAG_REASONS)
#: Code → human label, for both kinds.
FLAG_LABELS: Mapping[str, str] = {f.code: f.label for f in FLAG_REASONS}
_BY_CODE = {f.code: f for f in FLAG_REASONS}


def flag_label(code: str) -> str:
    """Human label of a flag code of either kind (the code itself when unknown)."""
    reason = _BY_CODE.get(code)
    return reason.label if reason else code


def flag_needs_note(code: str) -> bool:
    """Whether the annotator must explain flag ``code`` in the note (only "other")."""
    reason = _BY_CODE.get(code)
    return bool(reason and reason.needs_note)


def is_automatic_flag(code: str) -> bool:
    """True for a flag the back office raises itself (not an annotator's reason)."""
    reason = _BY_CODE.get(code)
    return bool(reason and reason.automatic)
