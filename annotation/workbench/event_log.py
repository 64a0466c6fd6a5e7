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
  caller (``annotation.services.workbench.workbench_events.apply_events``) performs it. Every later event
  in the same batch is refused, as the sample is then immutable.
* What the project's protocol allows comes as :class:`EditRules`: the steps an annotator may go
  to, and whether a sample is a context pair. A pair's curve edits (``point``, ``params``,
  ``refit``, ``place``) carry ``"curve": "context"`` to edit the second curve, the target given
  the follow-up — made on the content with its curves swapped, so the fit and its rules are the
  first curve's; a ``step`` to the pair's last step (:data:`CONTEXT_STEP`) while the second
  curve has no points starts it as a copy of the first; a ``change`` sets the annotator's change
  label (``""``: the one derived from the two curves). A single-text project refuses all three.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Callable

from annotation.workbench import editing
from annotation.axes import AXIS_NAMES, is_axis_name
from annotation.workbench.curve_points import ACTIONS
from annotation.curves import MAX_POINTS, parameter_bounds_problem
from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.workbench.protocol import CONTEXT_STEP, STEPS
from annotation.content import CHANGE_CHOICES, CONFIRM_DERIVED, CONTEXT, AnnotationContent
from annotation.workbench import event_batch
from annotation.workbench.event_batch import EditEvent, whole as _whole
from annotation.workbench.working_draft import WorkingDraft
from annotation.wording import counted

#: The kinds of edit the server applies (anything else is refused, not rejected).
KINDS: tuple[str, ...] = ("boundary", "reset_segments", "axis", "point", "params", "refit",
                          "place", "step", "flag", "change", "submit")
#: Kinds whose outcome is a (re)fitted curve, reported as ``fit_message``.
FIT_KINDS: frozenset[str] = frozenset({"point", "params", "refit", "place"})
#: Every edit event a workbench may send (a protocol accepts some: ``ProjectProtocol.event_kinds``),
#: and those only a protocol with a change between two curves accepts.
EVENT_KINDS: frozenset[str] = frozenset({*FIT_KINDS, "boundary", "reset_segments", "axis", "step", "flag",
                                         "change", "submit"})
PAIR_EVENT_KINDS: frozenset[str] = frozenset({"change"})
# the batch's own names (annotation.workbench.event_batch), reached through this module
MAX_EVENTS = event_batch.MAX_EVENTS
EventError = event_batch.EventError
parse_events = event_batch.parse_events

ALREADY_SUBMITTED = "Not applied: the sample was already submitted."
#: The value of a curve edit's ``curve`` field that edits a pair's second curve.
CONTEXT_CURVE = "context"


@dataclass(frozen=True)
class EditRules:
    """What the project's protocol allows (:class:`annotation.protocols.ProjectProtocol`): the
    ``steps`` an annotator may go to, the event ``kinds`` it accepts and the content ``parts``
    its annotations use (:data:`annotation.content.CONTENT_PARTS`: a second curve, a change)."""

    steps: range = range(len(STEPS))
    kinds: frozenset[str] = EVENT_KINDS - PAIR_EVENT_KINDS
    parts: frozenset[str] = frozenset()

    @property
    def second_curve(self) -> bool:
        """Whether a curve edit may name the curve given the follow-up."""
        return CONTEXT in self.parts


SINGLE_TEXT_RULES = EditRules()


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


# --- replay ---------------------------------------------------------------------------------------


def replay(content: AnnotationContent, step: int, n_tokens: int, last_seq: int,
           events: Sequence[EditEvent], *, stop_at_submit: bool = False,
           rules: EditRules = SINGLE_TEXT_RULES) -> Replay:
    """Apply the batch's new events in seq order on top of ``content``/``step`` (see the module
    docstring); ``last_seq`` is the last event already applied for this client (0 for none);
    ``rules``: what the project's protocol allows (single texts by default).

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
        applied = _apply(draft, step, event, rules)
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


def _apply(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        return _Applied(step, f"Not applied: unknown edit {event.kind!r}.")
    if event.kind in FIT_KINDS:
        curve = event.data.get("curve")
        if curve is not None and curve != CONTEXT_CURVE:
            return _refused(step, f"unknown curve {curve!r}; a pair's second curve is {CONTEXT_CURVE!r}")
        if curve is not None and not rules.second_curve:
            return _refused(step, NO_FOLLOW_UPS)
    elif event.kind not in rules.kinds:  # an event of another protocol's workbench
        return _refused(step, NO_FOLLOW_UPS)
    try:
        return handler(draft, step, event, rules)
    except (ValueError, TypeError, ArithmeticError) as exc:
        # the editing functions catch what they expect; anything else refuses this one edit
        return _refused(step, str(exc))


def _refused(step: int, message: str) -> _Applied:
    return _Applied(step, f"Not applied: {message.rstrip('.')}.")


NO_FOLLOW_UPS = "this project's samples have no follow-up, so no second curve and no change"


def _on_context(event: EditEvent) -> bool:
    """Whether a curve edit is of a pair's second curve (checked by :func:`_apply`)."""
    return event.data.get("curve") == CONTEXT_CURVE


def _boundary(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    gap = _whole(event.data.get("gap"))
    n_tokens = draft.n_tokens
    if gap is None:
        return _refused(step, "a boundary needs the number of the token it comes before")
    if not 1 <= gap < n_tokens:
        return _refused(step, f"there is no gap before token {gap} in this "
                              f"{counted(n_tokens, 'token')} text")
    draft.toggle_boundary(gap)
    return _Applied(step)


def _reset_segments(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    draft.reset_segments()
    return _Applied(step)


def _axis(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
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


def _point(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    data = event.data
    action = data.get("action")
    context = _on_context(event)
    n = len(draft.points(context))
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
    draft.edit_point(dict(data), context)  # the fit waits (replay takes its message when it runs)
    return _Applied(step)


def _on_content(edit: Callable[[AnnotationContent, EditEvent], tuple[AnnotationContent, str | None]],
                *, refuse_unchanged: bool) -> Callable[[WorkingDraft, int, EditEvent, EditRules], _Applied]:
    """A handler for a curve edit that works on the whole content (rare kinds: hand-tuned
    parameters, refit, durations). With ``refuse_unchanged`` a message with the content left as
    it was is a refusal (the edit was impossible), else it says what the new curve misses.
    A pair's second curve is edited on the content with its curves swapped, then swapped back."""
    def handler(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
        context = _on_context(event)
        content = draft.content().swapped_curves() if context else draft.content()
        new, message = edit(content, event)
        if refuse_unchanged and message is not None and new == content:
            return _refused(step, message)
        draft.set_content(new.swapped_curves() if context else new)
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


def _step(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    value = _whole(event.data.get("step"))
    new = editing.set_step(event.data.get("step") if value is None else value, rules.steps)
    if rules.second_curve and new == CONTEXT_STEP and not draft.points(context=True):
        # the curve given the follow-up starts as a copy of the target's, for the annotator to
        # move; only while it has no points (parameters never stand without points here)
        draft.set_content(draft.content().with_context_copied())
    elif rules.second_curve and new < CONTEXT_STEP and draft.content().change == CONFIRM_DERIVED:
        # back at the target alone, its curve may move and with it the derived label, out of
        # sight: a confirmation of "what the curves say" is asked for again at the last step
        draft.set_content(replace(draft.content(), change=""))
    return _Applied(new)


def _change(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
    change = event.data.get("change")
    if change is None:
        change = ""
    if change not in CHANGE_CHOICES:
        labels = ", ".join(c for c in CHANGE_CHOICES if c)
        return _refused(step, f"the change must be one of {labels}, or empty for none chosen yet")
    draft.set_content(replace(draft.content(), change=change))
    return _Applied(step)


def _flag(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
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


def _submit(draft: WorkingDraft, step: int, event: EditEvent, rules: EditRules) -> _Applied:
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


_HANDLERS: Mapping[str, Callable[[WorkingDraft, int, EditEvent, EditRules], _Applied]] = {
    "boundary": _boundary, "reset_segments": _reset_segments, "axis": _axis, "point": _point,
    "params": _on_content(_set_parameters, refuse_unchanged=True),
    "refit": _on_content(lambda content, event: editing.refit(content), refuse_unchanged=False),
    "place": _on_content(_place, refuse_unchanged=True), "step": _step, "flag": _flag,
    "change": _change, "submit": _submit,
}
assert frozenset(_HANDLERS) == EVENT_KINDS, "every event kind has its handler"
#: Kinds that neither read nor change the curve: a pending fit can wait past them.
_DRAFT_KINDS: frozenset[str] = frozenset({"boundary", "reset_segments", "axis", "point", "step",
                                          "change"})


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None
