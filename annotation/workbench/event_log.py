"""The workbench's edits as an ordered, idempotent event log — pure, no Streamlit or database.

Why: the workbench used to turn every click into a Streamlit rerun, and a click that arrived
while a rerun was in flight raced with it; points, axes and even a submit were lost. Now the
browser component owns the annotation in progress, applies each edit locally at once and numbers
it, and sends its whole queue of not-yet-acknowledged edits to the server; the server replays
them here and stores the result. The server stays the authority: every edit is applied through
:mod:`annotation.workbench.editing`, the same rules the component mirrors.

The protocol:

* An event is ``{"seq": n, "kind": ..., ...fields}`` (see :data:`KINDS`); ``seq`` counts from 1
  per *client* (one client id per sample opened in one tab). :func:`parse_events` checks the
  shape and sizes of a batch (malformed → :class:`EventError`, nothing applied).
* :func:`replay` applies, in ``seq`` order, the events whose seq is exactly one more than the last
  one applied; an event with a seq already applied is a re-send and is skipped, so sending the
  same queue twice (after a reconnect, a server restart, or two reruns racing) applies it once.
  At a gap (seq 7 arrives, 6 did not) it stops and reports ``waiting_for``: the component's next
  re-send carries the missing event and everything after it.
* Consecutive moves of one point are folded by the component into the last one, which then
  carries ``"first": m``: it stands for the edits m … seq (a move sets an absolute position, so
  the last one is what all of them make). It applies when the next number expected lies in that
  range — whether or not the server had applied some of them from an earlier send.
* An event that cannot be applied (a boundary outside the text, an unknown axis, parameters
  outside the fit's bounds, an unknown kind...) is *refused*: it changes nothing, still counts as
  applied (acknowledged, so the queue moves on) and comes back as a :class:`Refusal` whose message
  the component shows without blocking the annotator.
* ``submit`` is an event in the same stream, so it is applied after every edit before it; the
  caller (``annotation.services.workbench_events.apply_events``) performs it. Every later event
  in the same batch is refused, as the sample is then immutable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable

from annotation.workbench import editing
from annotation.axes import AXIS_NAMES, is_axis_name
from annotation.workbench.curve_points import ACTIONS
from annotation.curves import MAX_POINTS, parameter_bounds_problem
from annotation.review.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.workbench.protocol import NOTE_MAX_CHARS, AnnotationContent
from annotation.workbench.working_draft import WorkingDraft
from annotation.wording import counted

#: The kinds of edit the server applies (anything else is refused, not rejected).
KINDS: tuple[str, ...] = ("boundary", "reset_segments", "axis", "point", "params", "refit",
                          "place", "step", "flag", "submit")
#: Kinds whose outcome is a (re)fitted curve, reported as ``fit_message``.
FIT_KINDS: frozenset[str] = frozenset({"point", "params", "refit", "place"})

#: At most this many events in one batch: a component re-sends its unacknowledged queue, which
#: stays short while the server answers; a longer one is a client fault, not an annotator's work.
MAX_EVENTS = 500
#: Caps on one event's fields, so a malformed client cannot make the server hold huge payloads.
MAX_FIELDS = 16
MAX_NAME_CHARS = 64
MAX_TEXT_CHARS = 200  # any text field but the note (axis names, flag codes, actions)
MAX_LIST_ITEMS = 16

ALREADY_SUBMITTED = "Not applied: the sample was already submitted."

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


@dataclass(frozen=True)
class Refusal:
    """An event that was acknowledged but not applied, and why (shown to the annotator)."""

    seq: int
    message: str


@dataclass(frozen=True)
class SubmitRequest:
    """A ``submit`` event reached in order: submit what the events before it built."""

    seq: int
    flagged: bool
    #: the annotator confirmed a hand-tuned curve that misses the points (the surface's dialog)
    accept_misses: bool = False


@dataclass(frozen=True)
class Replay:
    """What :func:`replay` made of a batch.

    ``last_seq`` is the last event applied (refused ones included) — what to store and to
    acknowledge. ``fit_message`` is the message of the last curve edit of the batch (None when
    its fit succeeded or there was none; ``fit_edited`` tells which). ``waiting_for`` is the
    missing seq when the replay stopped at a gap.
    """

    content: AnnotationContent
    step: int
    last_seq: int
    refused: tuple[Refusal, ...] = ()
    submit: SubmitRequest | None = None
    fit_message: str | None = None
    waiting_for: int | None = None
    fit_edited: bool = False


# --- parsing ------------------------------------------------------------------------------------


def parse_events(raw: object) -> list[EditEvent]:
    """The events of a batch as sent by the component, checked for shape and size.

    Raises :class:`EventError` for a batch that is not a list of event objects, an event without
    a whole ``seq`` ≥ 1 or a text ``kind``, too many events or fields, oversized texts or lists,
    or two different events with the same seq. The kinds' own fields are checked when applied
    (a wrong value there is a refusal of that one event, not of the batch).
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
    seq = _whole(item.get("seq"))
    if seq is None or seq < 1:
        raise EventError(f"{where} has no valid sequence number; reload the sample.")
    kind = item.get("kind")
    if not isinstance(kind, str) or not 0 < len(kind) <= MAX_NAME_CHARS:
        raise EventError(f"{where} (number {seq}) has no valid kind; reload the sample.")
    first = seq
    if "first" in item:
        first = _whole(item.get("first"))
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


# --- replay ---------------------------------------------------------------------------------------


def replay(content: AnnotationContent, step: int, n_tokens: int, last_seq: int,
           events: Sequence[EditEvent], *, stop_at_submit: bool = False) -> Replay:
    """Apply the batch's new events in seq order on top of ``content``/``step`` (see the module
    docstring); ``last_seq`` is the last event already applied for this client (0 for none).

    With ``stop_at_submit`` the replay ends right after a submit event, leaving the later events
    unapplied and unrefused, for a caller that may find the submit impossible (incomplete, quota)
    and then replays the rest on top (``replay(r.content, r.step, n, r.last_seq, events)``);
    without it they are refused as :data:`ALREADY_SUBMITTED`.

    The cost is bounded per event whatever the draft's size (:class:`WorkingDraft`): a boundary
    toggle is a binary search, point edits wait for one fit at the end (or before an edit that
    reads the curve), so a batch of 500 moves of one point fits the curve once.
    """
    draft = WorkingDraft(content, n_tokens)
    refused: list[Refusal] = []
    fit_message: str | None = None
    fit_edited = point_fit_last = False
    waiting_for: int | None = None
    submit: SubmitRequest | None = None
    pending = [e for e in sorted(events, key=lambda e: e.seq) if e.seq > last_seq]
    for i, event in enumerate(pending):
        if event.seq <= last_seq:
            continue  # the same event twice in one batch
        if event.first > last_seq + 1:
            waiting_for = last_seq + 1
            break
        if event.kind not in _DRAFT_KINDS and draft.fit_stale:
            draft.take_fit_message()  # this edit may read the curve: fit the points first
        applied = _apply(draft, step, event)
        last_seq = event.seq
        if applied.refusal is not None:
            refused.append(Refusal(event.seq, applied.refusal))
            continue
        step = applied.step
        if event.kind in FIT_KINDS:
            fit_edited, point_fit_last = True, event.kind == "point"
            fit_message = applied.fit_message
        if applied.submit is not None:
            submit = applied.submit
            if not stop_at_submit:
                rest, last_seq = refuse_rest(pending[i + 1:], last_seq)
                refused.extend(rest)
            break
    if point_fit_last:
        fit_message = draft.take_fit_message()
    return Replay(draft.content(), step, last_seq, tuple(refused), submit, fit_message,
                  waiting_for, fit_edited)


def refuse_rest(events: Sequence[EditEvent], last_seq: int) -> tuple[tuple[Refusal, ...], int]:
    """Refuse every event after ``last_seq`` (gaps included: the sample was submitted, nothing
    later can apply); returns the refusals and the new last seq (the highest one)."""
    refused: list[Refusal] = []
    for event in sorted(events, key=lambda e: e.seq):
        if event.seq > last_seq:
            refused.append(Refusal(event.seq, ALREADY_SUBMITTED))
            last_seq = event.seq
    return tuple(refused), last_seq


@dataclass(frozen=True)
class _Applied:
    step: int
    refusal: str | None = None
    fit_message: str | None = None
    submit: SubmitRequest | None = None


def _apply(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        return _Applied(step, f"Not applied: unknown edit {event.kind!r}.")
    try:
        return handler(draft, step, event)
    except (ValueError, TypeError, ArithmeticError) as exc:
        # the editing functions catch what they expect; anything else refuses this one edit
        return _refused(step, str(exc))


def _refused(step: int, message: str) -> _Applied:
    return _Applied(step, f"Not applied: {message.rstrip('.')}.")


def _boundary(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    gap = _whole(event.data.get("gap"))
    n_tokens = draft.n_tokens
    if gap is None:
        return _refused(step, "a boundary needs the number of the token it comes before")
    if not 1 <= gap < n_tokens:
        return _refused(step, f"there is no gap before token {gap} in this "
                              f"{counted(n_tokens, 'token')} text")
    draft.toggle_boundary(gap)
    return _Applied(step)


def _reset_segments(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    draft.reset_segments()
    return _Applied(step)


def _axis(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    index = _whole(event.data.get("segment"))
    n = draft.n_segments
    if index is None or not 0 <= index < n:
        shown = "?" if index is None else index + 1
        return _refused(step, f"there is no segment {shown} (the text has "
                              f"{counted(n, 'segment')})")
    axis = event.data.get("axis")
    if axis is not None and axis != "" and not is_axis_name(axis):
        return _refused(step, f"unknown axis {axis!r}; expected one of {', '.join(AXIS_NAMES)}")
    draft.set_axis(index, axis or None)
    return _Applied(step)


def _point(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    data = event.data
    action = data.get("action")
    n = len(draft.points)
    if action not in ACTIONS:
        return _refused(step, f"unknown point action {action!r}")
    if action == "add" and n >= MAX_POINTS:
        return _refused(step, f"at most {MAX_POINTS} points can be placed; remove one first")
    if action in ("move", "remove"):
        index = _whole(data.get("index"))
        if index is None or not 0 <= index < n:
            shown = "?" if index is None else index + 1
            return _refused(step, f"there is no point {shown} (the chart has "
                                  f"{counted(n, 'point')})")
    if action in ("add", "move") and (_finite(data.get("x")) is None or _finite(data.get("y")) is None):
        return _refused(step, "a point needs a finite time (x) and validity (y)")
    draft.edit_point(dict(data))  # the fit waits (replay takes its message when it runs)
    return _Applied(step)


def _on_content(edit: Callable[[AnnotationContent, EditEvent], tuple[AnnotationContent, str | None]],
                *, refuse_unchanged: bool) -> Callable[[WorkingDraft, int, EditEvent], _Applied]:
    """A handler for a curve edit that works on the whole content (rare kinds: hand-tuned
    parameters, refit, durations). With ``refuse_unchanged`` a message with the content left as
    it was is a refusal (the edit was impossible), else it says what the new curve misses."""
    def handler(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
        content = draft.content()
        new, message = edit(content, event)
        if refuse_unchanged and message is not None and new == content:
            return _refused(step, message)
        draft.set_content(new)
        return _Applied(step, fit_message=message)
    return handler


def _set_parameters(content: AnnotationContent, event: EditEvent) -> tuple[AnnotationContent, str | None]:
    xi, omega, alpha = (event.data.get(k) for k in ("xi", "omega", "alpha"))
    problem = parameter_bounds_problem(xi, omega, alpha)
    if problem is not None:
        return content, f"the hand-tuned curve cannot be used: {problem}"
    return editing.set_parameters(content, float(xi), float(omega), float(alpha))


def _place(content: AnnotationContent, event: EditEvent) -> tuple[AnnotationContent, str | None]:
    peak = _finite(event.data.get("peak_minutes"))
    half_gone = _finite(event.data.get("half_gone_minutes"))
    if peak is None or half_gone is None:
        return content, "entering durations needs the peak and the half-gone time in minutes"
    return editing.place_from_durations(content, peak, half_gone)


def _step(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    value = _whole(event.data.get("step"))
    return _Applied(editing.set_step(event.data.get("step") if value is None else value))


def _flag(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    flags = event.data.get("flags", [])
    note = event.data.get("note", "")
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        return _refused(step, "the flags must be a list of flag codes")
    unknown = [f for f in flags if f not in ANNOTATOR_FLAG_CODES]
    if unknown:
        return _refused(step, f"unknown flag {unknown[0]!r}")
    if not isinstance(note, str):
        return _refused(step, "the note must be text")
    draft.set_content(editing.set_flags(draft.content(), flags, note))
    return _Applied(step)


def _submit(draft: WorkingDraft, step: int, event: EditEvent) -> _Applied:
    flagged = event.data.get("flagged", False)
    if not isinstance(flagged, bool):
        return _refused(step, "a submit must say whether it is flagged (true or false)")
    accept_misses = event.data.get("accept_misses", False)
    if not isinstance(accept_misses, bool):
        return _refused(step, "a submit's accept_misses must be true or false")
    if not flagged:
        # as the Submit button always did: a flag chosen earlier does not ride along
        draft.set_content(editing.set_flags(draft.content(), [], ""))
    return _Applied(step, submit=SubmitRequest(event.seq, flagged, accept_misses))


_HANDLERS: Mapping[str, Callable[[WorkingDraft, int, EditEvent], _Applied]] = {
    "boundary": _boundary, "reset_segments": _reset_segments, "axis": _axis, "point": _point,
    "params": _on_content(_set_parameters, refuse_unchanged=True),
    "refit": _on_content(lambda content, event: editing.refit(content), refuse_unchanged=False),
    "place": _on_content(_place, refuse_unchanged=True), "step": _step, "flag": _flag,
    "submit": _submit,
}
#: Kinds that neither read nor change the curve: a pending fit can wait past them.
_DRAFT_KINDS: frozenset[str] = frozenset({"boundary", "reset_segments", "axis", "point", "step"})


def _whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number (JSON may deliver 2.0), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None
