"""The workbench's event log on the server: a batch of numbered edits to one of the
annotator's drafts, applied once (see :mod:`annotation.event_log` for the protocol), with a
``submit`` event submitting exactly as :func:`annotation.services.submission.submit` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace

from sqlalchemy.orm import Session

from annotation import event_log
from annotation.services.authz import Actor
from annotation.services.errors import InvalidInput, ServiceError, StaleVersion
from annotation.services.queue import WorkItem, next_item, stored_content, work_item
from annotation.services.submission import (
    SubmitPlan,
    bump_version,
    checked_content,
    clamp_seconds,
    content_values,
    own_with_project,
    plan_submit,
    refuse_if_submitted,
    store_submission,
)
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
    the workbench then asks :func:`~annotation.services.queue.next_item` itself);
    ``waiting_for`` the missing seq when the batch stopped at a gap.
    """

    item: WorkItem
    last_seq: int
    refused: tuple[event_log.Refusal, ...] = ()
    fit_message: str | None = None
    submitted: bool = False
    submit_problems: tuple[str, ...] = ()
    next_item: WorkItem | None = None
    waiting_for: int | None = None


#: The longest client id kept (the column's width; the workbench makes 16 hex characters).
CLIENT_MAX_CHARS = 64


def apply_events(db: Database, actor: Actor, annotation_id: int, client: str, base_version: int,
                 events: object, *, seconds_delta: float = 0.0) -> EventOutcome:
    """Apply a batch of the workbench's numbered edits to one of the actor's drafts
    (see :mod:`annotation.event_log` for the protocol) in one write transaction.

    ``events`` are the component's raw event dicts (or parsed ``EditEvent`` objects). The last
    applied seq is stored with the client on the row, so a re-sent batch — after a reconnect,
    a server restart or a rerun racing another — is applied once. A client other than the one
    stored takes the draft over only when ``base_version`` (the version it started from) is
    the stored version; otherwise :class:`StaleVersion`, nothing changed. A batch that applies
    nothing new writes nothing; otherwise the row is written once, with one version bump.

    A ``submit`` event submits exactly as :func:`~annotation.services.submission.submit` (same
    checks and writes) what the events before it built; when the content is incomplete, the
    quota is reached or the sample was withdrawn, the edits are stored, the submit is not done
    and ``submit_problems`` says why, and the rest of the batch is applied. Raises
    :class:`InvalidInput` for a malformed batch or client id, :class:`AlreadySubmitted` for a
    submitted annotation, :class:`NotFound` for one that is not the actor's.
    """
    if not isinstance(client, str) or not 0 < len(client) <= CLIENT_MAX_CHARS:
        raise InvalidInput("The workbench sent its edits without a valid client id; reload the sample.")
    if isinstance(base_version, bool) or not isinstance(base_version, int):
        raise InvalidInput("The workbench sent its edits without the version it started from; "
                           "reload the sample.")
    if isinstance(events, (list, tuple)) and all(isinstance(e, event_log.EditEvent) for e in events):
        parsed = list(events)
    else:
        try:
            parsed = event_log.parse_events(events)
        except event_log.EventError as exc:
            raise InvalidInput(str(exc)) from None
    wants_submit = any(e.kind == "submit" for e in parsed)

    def attempt(s: Session) -> tuple[EventOutcome, int | None]:
        a, smp, project = own_with_project(s, actor, annotation_id, lock_user=wants_submit)
        refuse_if_submitted(a)
        if client == a.event_client:
            start = a.event_seq
        elif base_version == a.version:
            start = 0  # a new client (tab, reload) that started from the stored state takes over
        else:
            raise StaleVersion(
                "This sample was changed in another tab or window after you opened it here "
                f"(version {a.version}, yours {base_version}). Reload to continue with the newer work."
            )
        r = event_log.replay(stored_content(a), a.step, smp.n_tokens, start, parsed, stop_at_submit=True)
        refused, fit_message = list(r.refused), r.fit_message
        problems: tuple[str, ...] = ()
        plan: SubmitPlan | None = None
        while r.submit is not None:
            checked = plan_submit(s, actor, smp, project, r.content, flagged=r.submit.flagged,
                                  gold_check=a.is_gold_check)
            if isinstance(checked, SubmitPlan):
                plan, problems = checked, ()
                break
            problems = checked.problems  # not submitted: keep the edits, go on with the batch
            r = event_log.replay(r.content, r.step, smp.n_tokens, r.last_seq, parsed,
                                 stop_at_submit=True)
            refused.extend(r.refused)
            if r.fit_edited:
                fit_message = r.fit_message
        last_seq = r.last_seq
        if plan is not None:  # the sample is submitted: nothing later in the batch applies
            rest, last_seq = event_log.refuse_rest(parsed, last_seq)
            refused.extend(rest)
        if last_seq == start:  # only re-sent events, or a gap right away: nothing to write
            return EventOutcome(work_item(a, smp), start, waiting_for=r.waiting_for), None
        values: dict[str, object] = dict(
            seconds_spent=a.seconds_spent + clamp_seconds(seconds_delta),
            event_client=client, event_seq=last_seq)
        if plan is not None:
            store_submission(s, actor, a, smp, plan, a.version, **values)  # refreshes ``a``
        else:
            bump_version(s, a, a.version, step=r.step, **values,
                         **content_values(checked_content(r.content, smp)))  # refreshes ``a``
        outcome = EventOutcome(work_item(a, smp), last_seq, tuple(refused), fit_message,
                               submitted=plan is not None, submit_problems=problems,
                               waiting_for=r.waiting_for)
        return outcome, smp.project_id if plan is not None else None

    outcome, next_project = db.run_write(attempt)  # re-run whole on a transient error
    if next_project is None:
        return outcome
    try:
        following = next_item(db, actor, next_project)
    except ServiceError:
        following = None  # submitted all the same; the workbench asks for the next one itself
    return replace(outcome, next_item=following)
