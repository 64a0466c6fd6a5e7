"""The workbench's event log on the server — the one write path of the annotator's work: a
batch of numbered edits to one of the annotator's drafts, applied once (see
:mod:`annotation.workbench.event_log` for the protocol), a ``submit`` event submitting what the edits
before it built.

Compute, then write: the draft is read without a lock, the batch replayed and a submit planned
(refit, checks, flags, gold, scores: :mod:`annotation.services.workbench.submission`) before any write
transaction; the write is one versioned statement for a draft, a few for a submit. When the
draft or anything a submit planned on changed in between, nothing is written and the batch is
replayed on what is stored now (:class:`~annotation.services.errors.ChangedMeanwhile`).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace

from annotation.workbench import event_log
from annotation.services.authz import Actor
from annotation.services.errors import (
    Busy,
    ChangedMeanwhile,
    InvalidInput,
    ServiceError,
    StaleVersion,
)
from annotation.services.workbench.queue import WorkItem, next_item, work_item
from annotation.services.rows import annotation_content
from annotation.services.workbench.submission import (
    Draft,
    SubmitPlan,
    checked_content,
    clamp_seconds,
    plan_submit,
    read_draft,
    refit,
    refuse_if_submitted,
    store_submission,
    write_draft,
)
from annotation.services.number_limits import EDIT_NUMBER, checks_numbers
from db.engine import Database


@dataclass(frozen=True)
class EventOutcome:
    """What :func:`apply_events` did with a batch of the workbench's edits.

    ``item`` is the annotation as stored afterwards; ``last_seq`` the last event of this client
    applied (acknowledge up to it); ``refused`` the events acknowledged but not applied, with
    their messages; ``fit_message`` the last curve edit's message (None when it fitted, or
    without curve edits); ``submitted`` whether a submit in the batch was done, else
    ``submit_problems`` says why a requested one was not (the edits are kept); ``next_item`` the
    next sample once submitted (None when the pool has none left, or handing one out failed:
    the workbench then asks :func:`~annotation.services.workbench.queue.next_item` itself);
    ``waiting_for`` the missing seq when the batch stopped at a gap; ``submit_error`` the error
    a refused submit stands for, with its message (:class:`QuotaReached`, :class:`InvalidInput`).
    """

    item: WorkItem
    last_seq: int
    refused: tuple[event_log.Refusal, ...] = ()
    fit_message: str | None = None
    submitted: bool = False
    submit_problems: tuple[str, ...] = ()
    next_item: WorkItem | None = None
    waiting_for: int | None = None
    submit_error: ServiceError | None = None


#: The longest client id kept (the column's width; the workbench makes 16 hex characters).
CLIENT_MAX_CHARS = 64
#: Plans made again at most this often when the stored state keeps moving under a batch (other
#: tabs of the same annotator, the other annotator's submit of the same sample); then "busy".
MAX_PLANS = 8


@dataclass(frozen=True)
class _Planned:
    """A batch replayed on a draft, with its submit planned (or why it could not be)."""

    replayed: event_log.Replay
    start: int
    refused: tuple[event_log.Refusal, ...]
    fit_message: str | None
    problems: tuple[str, ...]
    error: ServiceError | None
    plan: SubmitPlan | None


def _plan(db: Database, actor: Actor, draft: Draft, client: str, base_version: int,
          events: list[event_log.EditEvent]) -> _Planned:
    """Replay the batch on the draft as read and plan its submit — outside any transaction but
    the read transactions of the submit's checks."""
    a, smp = draft.annotation, draft.sample
    refuse_if_submitted(a)
    if client == a.event_client:
        start = a.event_seq
    elif base_version == a.version:
        start = 0  # a new client (tab, reload) that started from the stored state takes over
    else:
        raise StaleVersion(
            "Another tab saved newer work on this sample (version "
            f"{a.version}; this tab has {base_version}). Load the newer version to go on from it."
        )
    rules = draft.protocol.edit_rules(draft.settings)
    r = event_log.replay(annotation_content(a), a.step, smp.n_tokens, start, events,
                         stop_at_submit=True, rules=rules)
    refused, fit_message = list(r.refused), r.fit_message
    problems: tuple[str, ...] = ()
    error: ServiceError | None = None
    plan: SubmitPlan | None = None
    while r.submit is not None:
        refitted = refit(r.content)  # the curve fit, before the read transaction
        flagged, accept_misses = r.submit.flagged, r.submit.accept_misses
        checked = db.run_read(lambda s: plan_submit(s, actor, draft, r.content, flagged=flagged,
                                                    accept_misses=accept_misses,
                                                    refitted=refitted))
        if isinstance(checked, SubmitPlan):
            plan, problems, error = checked, (), None
            break
        # not submitted: keep the edits, go on with the batch
        problems, error = checked.problems, checked.error(checked.message)
        r = event_log.replay(r.content, r.step, smp.n_tokens, r.last_seq, events,
                             stop_at_submit=True, rules=rules)
        refused.extend(r.refused)
        if r.fit_edited:
            fit_message = r.fit_message
    if plan is not None:  # the sample is submitted: nothing later in the batch applies
        rest, last_seq = event_log.refuse_rest(events, r.last_seq)
        refused.extend(rest)
        r = replace(r, last_seq=last_seq)
    return _Planned(r, start, tuple(refused), fit_message, problems, error, plan)


@checks_numbers
def apply_events(db: Database, actor: Actor, annotation_id: int, client: str, base_version: int,
                 events: object, *, seconds_delta: float = 0.0,
                 hand_out_next: bool = True) -> EventOutcome:
    """Apply a batch of the workbench's numbered edits to one of the actor's drafts
    (see :mod:`annotation.workbench.event_log` for the protocol): replayed and planned with no lock held,
    then written in one short transaction (module docstring).

    ``events`` are the component's raw event dicts (or parsed ``EditEvent`` objects). The last
    applied seq is stored with the client on the row, so a re-sent batch — after a reconnect,
    a server restart or a rerun racing another — is applied once. A client other than the one
    stored takes the draft over only when ``base_version`` (the version it started from) is
    the stored version; otherwise :class:`StaleVersion`, nothing changed. A batch that applies
    nothing new writes nothing; otherwise the row is written once, with one version bump.

    A ``submit`` event submits what the events before it built (refitted, checked, counted
    against today's quota, settled); when the content is incomplete, the quota is reached or
    the sample was withdrawn, the edits are stored, the submit is not done and
    ``submit_problems`` says why (``submit_error`` names the error), and the rest of the batch
    is applied. Raises :class:`InvalidInput` for a malformed batch or client id,
    :class:`AlreadySubmitted` for a submitted annotation, :class:`NotFound` for one that is not
    the actor's, :class:`Busy` when the stored state kept changing through :data:`MAX_PLANS`
    plans. After a submit the next sample is handed out in the same call (``next_item``), unless
    ``hand_out_next`` is false (a script that decides itself when to ask for work).
    """
    if not isinstance(client, str) or not 0 < len(client) <= CLIENT_MAX_CHARS:
        raise InvalidInput("The workbench sent its edits without a valid client id; reload the sample.")
    if isinstance(events, (list, tuple)) and all(isinstance(e, event_log.EditEvent) for e in events):
        parsed = list(events)
    else:
        try:
            parsed = event_log.parse_events(events)
        except event_log.EventError as exc:
            raise InvalidInput(str(exc)) from None
    for event in parsed:  # the last one applied is stored with the draft: it must fit its column
        EDIT_NUMBER.check(event.first)
        EDIT_NUMBER.check(event.seq)
    for _ in range(MAX_PLANS):
        draft = db.run_read(lambda s: read_draft(s, actor, annotation_id))
        planned = _plan(db, actor, draft, client, base_version, parsed)
        r, a, smp = planned.replayed, draft.annotation, draft.sample
        if r.last_seq == planned.start:  # only re-sent events, or a gap right away: no write
            return EventOutcome(work_item(a, smp, draft.follow_up), planned.start,
                                waiting_for=r.waiting_for)
        values: dict[str, object] = dict(seconds_spent=a.seconds_spent + clamp_seconds(seconds_delta),
                                         event_client=client, event_seq=r.last_seq)
        plan = planned.plan
        if plan is None:
            content = checked_content(r.content, smp)  # before the write: InvalidInput, nothing stored
        try:
            if plan is not None:
                stored = db.run_write(lambda s: store_submission(s, actor, draft, plan, **values))
            else:
                stored = db.run_write(lambda s: write_draft(s, actor, draft, content, step=r.step,
                                                            **values))
        except ChangedMeanwhile:
            continue  # read again and replay on what is stored now
        outcome = EventOutcome(work_item(stored, smp, draft.follow_up), r.last_seq, planned.refused,
                               planned.fit_message, submitted=plan is not None,
                               submit_problems=planned.problems, submit_error=planned.error,
                               waiting_for=r.waiting_for)
        break
    else:
        raise Busy("Your edits could not be saved: this sample kept changing (another tab?). "
                   "They are kept here; try again in a moment.")
    if plan is None or not hand_out_next:
        return outcome
    try:
        following = next_item(db, actor, smp.project_id)
    except ServiceError:
        following = None  # submitted all the same; the workbench asks for the next one itself
    return replace(outcome, next_item=following)
