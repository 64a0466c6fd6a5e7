"""The eight temporal axes of the Chronocept protocol — defined once, used everywhere.

The tuple :data:`AXES` is in the *export order* of the public Chronocept release
(``main_outcome_axis, static_axis, generic_axis, hypothetical_axis, negation_axis,
intention_axis, opinion_axis, recurrent_axis``). That order is also the fixed feature order
for the baselines, so nothing else in the project may re-type the list.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Axis:
    """One temporal axis: its short name (stored, interchange format), its export key and
    the text shown to annotators."""

    name: str
    label: str
    export_key: str
    definition: str
    key_question: str
    color: str


AXES: tuple[Axis, ...] = (
    Axis(
        "main",
        "Main",
        "main_outcome_axis",
        "The core, checkable event or state the text reports: the main timeline.",
        "What is the text mainly reporting as happening?",
        "#4C78A8",
    ),
    Axis(
        "static",
        "Static",
        "static_axis",
        "A state that holds unchanged throughout this situation, but belongs to it.",
        "Is this a fixed state of this particular situation?",
        "#72B7B2",
    ),
    Axis(
        "generic",
        "Generic",
        "generic_axis",
        "A timeless truth or general habit, true beyond this situation.",
        "Would this still hold if this situation ended?",
        "#54A24B",
    ),
    Axis(
        "hypothetical",
        "Hypothetical",
        "hypothetical_axis",
        "A conditional, possible or imagined event.",
        "Does this only happen if / might / would?",
        "#B279A2",
    ),
    Axis(
        "negation",
        "Negation",
        "negation_axis",
        "An event stated as not happening or not done.",
        "Is this said NOT to happen?",
        "#E45756",
    ),
    Axis(
        "intention",
        "Intention",
        "intention_axis",
        "A plan, goal or wish: something someone means to do.",
        "Is this something someone wants or plans to do?",
        "#F58518",
    ),
    Axis(
        "opinion",
        "Opinion",
        "opinion_axis",
        "A judgement, belief or evaluation.",
        "Is this someone's view rather than a fact?",
        "#EECA3B",
    ),
    Axis(
        "recurrent",
        "Recurrent",
        "recurrent_axis",
        "An event that repeats on a pattern or schedule.",
        "Does this happen again and again?",
        "#9D755D",
    ),
)

AXIS_NAMES: tuple[str, ...] = tuple(a.name for a in AXES)
EXPORT_KEYS: tuple[str, ...] = tuple(a.export_key for a in AXES)
_BY_NAME = {a.name: a for a in AXES}
_BY_EXPORT_KEY = {a.export_key: a for a in AXES}

#: The pair annotators confuse most; agreement is also reported with the two merged.
CONFUSABLE_PAIR: tuple[str, str] = ("generic", "static")


class UnknownAxisError(ValueError):
    """Raised for an axis name that is not one of the eight."""


def axis_by_name(name: str) -> Axis:
    """Return the axis called ``name`` (e.g. ``"main"``); also accepts an export key."""
    axis = _BY_NAME.get(name) or _BY_EXPORT_KEY.get(name)
    if axis is None:
        raise UnknownAxisError(
            f"unknown axis {name!r}; expected one of {', '.join(AXIS_NAMES)}"
        )
    return axis


def is_axis_name(name: object) -> bool:
    """True when ``name`` is one of the eight short axis names."""
    return isinstance(name, str) and name in _BY_NAME
