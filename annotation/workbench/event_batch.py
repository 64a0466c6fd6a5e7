"""A batch of the workbench's numbered edits as it arrives: checked for shape and size before any
of it is replayed (:mod:`annotation.workbench.event_log` replays it).

Why apart: what a batch may look like (its limits, a folded run of moves, two edits with one
number) is the same whatever the edits do; the replay and the rules of each kind live beside
:mod:`annotation.workbench.editing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from annotation.text_limits import NOTE_MAX_CHARS

#: At most this many events in one batch: a component re-sends its unacknowledged queue, which
#: stays short while the server answers; a longer one is a client fault, not an annotator's work.
MAX_EVENTS = 500
#: Caps on one event's fields, so a malformed client cannot make the server hold huge payloads.
MAX_FIELDS = 16
MAX_NAME_CHARS = 64
MAX_TEXT_CHARS = 200  # any text field but the note (axis names, flag codes, actions)
MAX_LIST_ITEMS = 16
_Scalar = (type(None), bool, int, float, str)


class EventError(ValueError):
    """A malformed batch of events (message is user-facing); none of it was applied."""


@dataclass(frozen=True)
class EditEvent:
    """One numbered edit: its ``kind`` and its other fields (``data``, read-only).

    ``first`` is the first number it stands for (``seq`` itself, unless the component folded
    consecutive moves of one point into their last: then it stands for ``first`` … ``seq``)."""

    seq: int
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    first: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))
        if not self.first:
            object.__setattr__(self, "first", self.seq)


def parse_events(raw: object) -> list[EditEvent]:
    """The events of a batch as sent by the component, checked for shape and size.

    Raises :class:`EventError` for a batch that is not a list of event objects, an event without
    a whole ``seq`` ≥ 1 or a text ``kind``, too many events or fields, oversized texts or lists,
    or two different events with the same seq. The kinds' own fields are checked when applied
    (a wrong value there is a refusal of that one event, not of the batch).

    >>> [(e.seq, e.kind, dict(e.data)) for e in parse_events([{"seq": 2.0, "kind": "step", "step": 3}])]
    [(2, 'step', {'step': 3})]
    >>> parse_events([{"seq": 1, "kind": "change", "change": "x" * 201}])
    Traceback (most recent call last):
    annotation.workbench.event_batch.EventError: Edit 1 of the batch (number 1), field 'change' is longer than 200 characters.
    """
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise EventError("The edits arrived malformed (not a list of events); reload the sample.")
    if len(raw) > MAX_EVENTS:
        raise EventError(f"Too many edits at once ({len(raw)}; at most {MAX_EVENTS}); "
                         "reload the sample.")
    events: list[EditEvent] = []
    by_seq: dict[int, EditEvent] = {}
    for position, item in enumerate(raw, start=1):
        event = _parse_one(item, position)
        earlier = by_seq.get(event.seq)
        if earlier is not None and earlier != event:
            raise EventError(f"Two different edits carry the number {event.seq}; reload the sample.")
        by_seq[event.seq] = event
        events.append(event)
    covered = 0
    for event in sorted(by_seq.values(), key=lambda e: e.seq):
        if event.first <= covered:  # a folded run of moves overlapping another edit
            raise EventError(f"Two edits both stand for the number {covered}; reload the sample.")
        covered = event.seq
    return events


def _parse_one(item: object, position: int) -> EditEvent:
    where = f"Edit {position} of the batch"
    if not isinstance(item, Mapping):
        raise EventError(f"{where} is malformed (not an object); reload the sample.")
    seq = whole(item.get("seq"))
    if seq is None or seq < 1:
        raise EventError(f"{where} has no valid sequence number; reload the sample.")
    kind = item.get("kind")
    if not isinstance(kind, str) or not 0 < len(kind) <= MAX_NAME_CHARS:
        raise EventError(f"{where} (number {seq}) has no valid kind; reload the sample.")
    first = seq
    if "first" in item:
        first = whole(item.get("first"))
        if first is None or not 1 <= first <= seq:
            raise EventError(f"{where} (number {seq}) stands for a malformed range of edits; "
                             "reload the sample.")
        if first < seq and (kind != "point" or item.get("action") != "move"):
            raise EventError(f"{where} (number {seq}) folds edits that are not moves of one point; "
                             "reload the sample.")
    data = {k: v for k, v in item.items() if k not in ("seq", "kind", "first")}
    if len(data) > MAX_FIELDS:
        raise EventError(f"{where} (number {seq}) has too many fields.")
    for name, value in data.items():
        if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
            raise EventError(f"{where} (number {seq}) has a malformed field name.")
        limit = NOTE_MAX_CHARS if name == "note" else MAX_TEXT_CHARS
        _check_value(value, limit, f"{where} (number {seq}), field {name!r}")
    return EditEvent(seq, kind, data, first)


def _check_value(value: object, limit: int, where: str) -> None:
    if isinstance(value, list):
        if len(value) > MAX_LIST_ITEMS:
            raise EventError(f"{where} lists more than {MAX_LIST_ITEMS} items.")
        for v in value:
            if isinstance(v, list):
                raise EventError(f"{where} is malformed (nested lists).")
            _check_value(v, MAX_TEXT_CHARS, where)
        return
    if not isinstance(value, _Scalar):
        raise EventError(f"{where} is malformed (not a number, text or list).")
    if isinstance(value, str) and len(value) > limit:
        raise EventError(f"{where} is longer than {limit} characters.")


def whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number (JSON may deliver 2.0), else None.

    >>> whole(2.0), whole(2.5), whole(True)
    (2, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None
