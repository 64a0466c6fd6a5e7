"""The annotator's queue: the next sample to annotate, their counters and their history.

Blindness: every query here is filtered to the acting annotator's own rows; nothing in this
module can return another person's annotation.

Assignment is a pull queue (as Label Studio's and Potato's overlap settings): when an annotator
asks for work they first get back any sample they have started and not submitted; otherwise the
oldest active sample that has fewer than k annotators and is not theirs is handed to them. The
hand-over is one conditional ``UPDATE samples SET n_assigned = n_assigned + 1 WHERE n_assigned <
k + extra_annotators`` so two annotators racing for the last slot cannot both get it, on SQLite or
PostgreSQL. ``extra_annotators`` is 1 for a sample that settling handed to one more annotator
(the ``third_annotator`` setting: :mod:`annotation.services.review.settle_plan`), 0 otherwise; the
third annotator is never one who was handed the sample before (their assignment stays, released
or not) and sees nothing of the others' work, and the hand-out counts against their quota like
any other.

Warm-up (``annotation.services.quality.admission``): in a project with a warm-up set, a user who is
not admitted yet gets warm-up samples only (not subject to k), an admitted one never gets them;
a warm-up submission updates the annotator's qualification instead of settling the sample.

Gold checks (:mod:`annotation.services.quality.gold_checks`): with ``gold_check_share`` > 0, some new
hand-outs of an admitted annotator (:func:`annotation.quality.gold_checks.is_check_handout`) are a
warm-up sample with gold they never had, marked ``Annotation.is_gold_check`` and shown exactly
as production work; it takes no slot (``n_assigned`` unchanged, assignment ``slot`` 0). A paused
annotator gets nothing.

Saving drafts and submitting are :mod:`annotation.services.workbench.submission`; the workbench's
numbered edits are :mod:`annotation.services.workbench.workbench_events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlalchemy import false, func, or_, select, true, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.project_day import day_bounds
from annotation.content import AnnotationContent
from annotation.services.quality import admission, gold_checks
from annotation.services import audit
from annotation.services.workbench.hand_out_order import ordered_candidates
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize, authorize_user
from annotation.services.errors import NotFound, StaleVersion
from annotation.services.lookup import project_settings
from annotation.services.rows import annotation_content
from annotation.services.protocols import services_of
from annotation.services.protocols.sample_pairs import follow_ups_of
from annotation.services.number_limits import checks_numbers
from annotation.protocols import protocol_of
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Annotation, Assignment, Sample, User, utcnow




@dataclass(frozen=True)
class QueueStatus:
    submitted_today: int
    daily_quota: int
    submitted_total: int
    in_progress: int
    paused: bool = False  # paused by the gold-check rule until a lead lifts it

    @property
    def quota_reached(self) -> bool:
        return self.submitted_today >= self.daily_quota


@dataclass(frozen=True)
class WorkItem:
    """One annotation of the acting annotator, with its sample (the workbench's data)."""

    annotation_id: int
    version: int
    status: str
    step: int
    content: AnnotationContent
    seconds_spent: float
    guidelines_version: str
    updated_at: datetime
    submitted_at: datetime | None
    sample_id: int
    project_id: int
    external_id: str
    benchmark: int
    parent_text: str
    n_tokens: int
    returned_note: str = ""  # the lead's message when the sample was sent back
    is_warmup: bool = False  # a warm-up sample: scored against the lead's gold
    #: a context pair's follow-up statement (None for a single text) — nothing else of the
    #: pair: never a reference label nor an author's intended change (annotators stay blind)
    follow_up: str | None = None

    @property
    def is_submitted(self) -> bool:
        return self.status == "submitted"


@dataclass(frozen=True)
class HistoryRow:
    annotation_id: int
    number: int  # the annotator's own sample number in the project (:func:`sample_numbers`)
    external_id: str
    benchmark: int
    status: str
    flags: tuple[str, ...]
    seconds_spent: float
    updated_at: datetime
    submitted_at: datetime | None


def submitted_between_query(user_id: int, project_id: int, start: datetime, end: datetime):
    """The count of the user's annotations in the project submitted in ``[start, end)``."""
    return (
        select(func.count()).select_from(Annotation)
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Annotation.status == "submitted",
               Annotation.submitted_at >= start, Annotation.submitted_at < end,
               Sample.project_id == project_id)
    )


def _submitted_between(s: Session, user_id: int, project_id: int, start: datetime, end: datetime) -> int:
    return s.scalar(submitted_between_query(user_id, project_id, start, end)) or 0


@checks_numbers
def queue_status(db: Database, actor: Actor, project_id: int) -> QueueStatus:
    """The annotator's counters for one project: today's submissions against the quota, etc."""
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATE)
        settings = project_settings(s, project_id)
        start, end = day_bounds(utcnow(), settings)
        today = _submitted_between(s, actor.user_id, project_id, start, end)
        # Start from the annotator's own rows (index on annotator_id) and look each one's project
        # up by primary key. A plain join let the planner start from the project's samples
        # instead (SQLite without statistics; a hash join on PostgreSQL), reading the whole
        # project on every call.
        project_of = (select(Sample.project_id).where(Sample.id == Annotation.sample_id)
                      .scalar_subquery())
        rows = dict(s.execute(
            select(Annotation.status, func.count())
            .where(Annotation.annotator_id == actor.user_id, project_of == project_id)
            .group_by(Annotation.status)).all())
        paused = gold_checks.is_paused(s, project_id, actor.user_id)
        return QueueStatus(today, settings.daily_quota, rows.get("submitted", 0), rows.get("draft", 0),
                           paused)


@checks_numbers
def pool_size(db: Database, actor: Actor, project_id: int) -> int:
    """How many more annotations the project's pool still needs (open slots over active samples,
    a third annotator's slot included)."""
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATE)
        settings = project_settings(s, project_id)
        k = settings.annotators_per_sample
        # the extra slots are open (and counted) only with the setting on, as the hand-out offers
        # them; without it the count stays one range of ix_samples_pool (n_assigned < k)
        wanted = k + Sample.extra_annotators if settings.third_annotator else k
        total = int(s.scalar(
            select(func.coalesce(func.sum(wanted - Sample.n_assigned), 0))
            .where(Sample.project_id == project_id, Sample.status == "active", Sample.n_assigned < wanted)
        ) or 0)
        # warm-up samples are not production slots (indexed: ix_samples_warmup)
        warmup = int(s.scalar(
            select(func.coalesce(func.sum(wanted - Sample.n_assigned), 0))
            .where(Sample.project_id == project_id, Sample.is_warmup == true(),
                   Sample.status == "active", Sample.n_assigned < wanted)
        ) or 0)
        return total - warmup


def work_item(a: Annotation, smp: Sample, follow_up: str | None = None) -> WorkItem:
    """The workbench's data of one annotation and its sample (a gold check reads as production:
    nothing in it tells the two apart), with a pair's follow-up (``follow_up``, read by
    :func:`annotation.services.protocols.sample_pairs.follow_ups_of`: the follow-up text alone)."""
    return WorkItem(a.id, a.version, a.status, a.step, annotation_content(a), a.seconds_spent,
                    a.guidelines_version, a.updated_at, a.submitted_at, smp.id, smp.project_id,
                    smp.external_id, smp.benchmark, smp.parent_text, smp.n_tokens,
                    a.returned_note or "", bool(smp.is_warmup) and not a.is_gold_check, follow_up)


def _work_item(s: Session, a: Annotation, smp: Sample,
               settings: ProjectSettings | None = None) -> WorkItem:
    """:func:`work_item` with the sample's follow-up read in ``s`` (one primary-key lookup,
    skipped when the project's ``settings`` are known and its samples have no follow-up)."""
    read = follow_ups_of if settings is None else services_of(settings).annotator_facts
    return work_item(a, smp, read(s, [smp.id]).get(smp.id))


def _open_draft(s: Session, user_id: int, project_id: int,
                warmup: bool | None = None) -> tuple[Annotation, Sample] | None:
    # A draft never has a submitted_at (only submit() sets it, together with the status), so
    # "submitted_at IS NULL" adds nothing but an index path: the (annotator_id, submitted_at)
    # index finds the annotator's few drafts directly. Without it SQLite scanned every sample of
    # the project and PostgreSQL the status of every annotation.
    stmt = (
        select(Annotation, Sample).join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Annotation.status == "draft",
               Annotation.submitted_at.is_(None),
               Sample.project_id == project_id, Sample.status == "active")
        .order_by(Annotation.id).limit(1)
    )
    if warmup is True:  # only warm-up drafts; a gold check's draft waits, like production work,
        # for a revoked annotator's re-admission (it is never warm-up work)
        stmt = stmt.where(Sample.is_warmup == true(), Annotation.is_gold_check == false())
    elif warmup is False:  # only production drafts, gold checks included
        stmt = stmt.where(or_(Sample.is_warmup == false(), Annotation.is_gold_check == true()))
    row = s.execute(stmt).first()
    return (row[0], row[1]) if row else None


def _new_draft(s: Session, user_id: int, smp: Sample, settings: ProjectSettings, *,
               gold_check: bool = False) -> Annotation:
    # a pairs project that does not segment its targets opens at the curve
    step = protocol_of(settings).first_step(settings)
    a = Annotation(sample_id=smp.id, annotator_id=user_id, status="draft", version=1, step=step,
                   is_gold_check=gold_check,
                   boundaries=[0], segment_axes=[None], points=[], flags=[], note="",
                   guidelines_version=settings.guidelines_version, seconds_spent=0.0,
                   created_at=utcnow(), updated_at=utcnow())
    s.add(a)
    s.flush()
    return a


@dataclass(frozen=True)
class _Looked:
    """What :func:`next_item` found with no lock held, when it has to hand something out."""

    settings: ProjectSettings
    route: admission.WarmupRoute
    check_due: bool
    candidates: tuple[int, ...]


def _look(s: Session, actor: Actor, project_id: int) -> WorkItem | _Looked | None:
    """The read half of :func:`next_item`: the annotator's open draft when there is one (then
    nothing is written at all), None when they get nothing (paused), else what to hand out."""
    authorize(s, actor, Policy.ANNOTATE)
    settings = project_settings(s, project_id)
    route = admission.warmup_route(s, project_id, actor.user_id)
    if route.in_warmup:
        return _Looked(settings, route, False, ())
    if gold_checks.is_paused(s, project_id, actor.user_id):
        return None  # paused from production until a lead lifts it (queue_status says so)
    found = _open_draft(s, actor.user_id, project_id, warmup=False if route.marked else None)
    if found:
        return _work_item(s, *found, settings)
    start, end = day_bounds(utcnow(), settings)
    if _submitted_between(s, actor.user_id, project_id, start, end) >= settings.daily_quota:
        return None  # today's quota is reached: nothing new until tomorrow (queue_status says so)
    due = bool(route.sample_ids) and gold_checks.check_due(s, settings, project_id, actor.user_id)
    candidates = ordered_candidates(s, actor.user_id, project_id, settings, exclude_warmup=route.marked)
    return _Looked(settings, route, due, tuple(candidates))


@checks_numbers
def open_draft_item(db: Database, actor: Actor, project_id: int) -> WorkItem | None:
    """The draft :func:`next_item` would return first, or None — read only: opening Annotate
    shows it and assigns nothing; a sample is handed out only when the annotator asks."""
    def read(s: Session) -> WorkItem | None:
        authorize(s, actor, Policy.ANNOTATE)
        route = admission.warmup_route(s, project_id, actor.user_id)
        if not route.in_warmup and gold_checks.is_paused(s, project_id, actor.user_id):
            return None
        found = _open_draft(s, actor.user_id, project_id,
                            warmup=True if route.in_warmup else (False if route.marked else None))
        return _work_item(s, *found) if found else None
    return db.run_read(read)


@checks_numbers
def next_item(db: Database, actor: Actor, project_id: int) -> WorkItem | None:
    """The annotator's next sample: their oldest unfinished draft, else a newly assigned sample.

    In a project with a warm-up set, a user not admitted yet gets warm-up samples only
    (:func:`_next_warmup`) and an admitted one production samples only.
    Returns None when the pool has nothing left for them, and when they reached today's quota:
    nothing new is handed out past it (an open draft is still returned; a submit enforces the
    quota again) — pages tell the two apart by :func:`queue_status`.

    The looking is done in a read transaction (:func:`_look`): an open draft is returned
    without any write. A hand-out then takes the write lock only for its few statements: the
    user (locked on PostgreSQL, so one person's tabs ask one at a time), the draft check again
    (another tab may have just made one), the conditional claim of a slot and the new rows.
    """
    looked = db.run_read(lambda s: _look(s, actor, project_id))
    if not isinstance(looked, _Looked):
        return looked

    def attempt(s: Session) -> WorkItem | None:
        user_row = select(User).where(User.id == actor.user_id)
        if s.bind.dialect.name == "postgresql":
            # One person's requests one at a time, so two tabs asking at once get the
            # same draft rather than two samples (SQLite's BEGIN IMMEDIATE does this).
            user_row = user_row.with_for_update()
        authorize_user(s.execute(user_row).scalar(), Policy.ANNOTATE)
        settings, route = looked.settings, looked.route
        if route.in_warmup:
            return _next_warmup(s, actor, project_id, settings, route)
        found = _open_draft(s, actor.user_id, project_id, warmup=False if route.marked else None)
        if found:
            return _work_item(s, *found, settings)
        if looked.check_due:
            check = _hand_out_check(s, actor, settings, route)
            if check is not None:
                return check  # else no check material left: production as usual
        k = settings.annotators_per_sample
        candidates = list(looked.candidates)
        while candidates:
            for sample_id in candidates:
                smp = s.execute(
                    update(Sample).where(Sample.id == sample_id, Sample.n_assigned < k + Sample.extra_annotators)
                    .values(n_assigned=Sample.n_assigned + 1).returning(Sample),
                    execution_options={"synchronize_session": False, "populate_existing": True},
                ).scalar()
                if smp is None:
                    continue  # someone took the last slot meanwhile
                s.add(Assignment(sample_id=smp.id, user_id=actor.user_id, slot=smp.n_assigned,
                                 assigned_at=utcnow()))
                a = _new_draft(s, actor.user_id, smp, settings)
                audit.record(s, actor.user_id, "assign", "sample", smp.id, slot=smp.n_assigned)
                return _work_item(s, a, smp, settings)
            # Every candidate filled up since they were looked up (a busy pool): the pool is
            # not empty, so look again rather than report it empty.
            candidates = ordered_candidates(s, actor.user_id, project_id, settings, exclude_warmup=route.marked)
        return None

    for _attempt in range(3):
        try:
            # the whole hand-out re-runs on a transient lock, deadlock or pool error
            return db.run_write(attempt)
        except IntegrityError:
            continue  # the same person asked twice at once (two tabs); the retry finds the draft
    raise StaleVersion("Could not hand out a sample right now; please try again.")


def _hand_out_check(s: Session, actor: Actor, settings: ProjectSettings,
                    route: admission.WarmupRoute) -> WorkItem | None:
    """A gold check for an admitted annotator: the oldest warm-up sample with gold they were
    never handed, or None. It takes no slot (``n_assigned`` unchanged, assignment slot 0)."""
    for sample_id in admission.warmup_candidates(s, route, actor.user_id):
        smp = s.get(Sample, sample_id)
        if smp is None or smp.status != "active":
            continue
        s.add(Assignment(sample_id=smp.id, user_id=actor.user_id, slot=0, assigned_at=utcnow()))
        a = _new_draft(s, actor.user_id, smp, settings, gold_check=True)
        audit.record(s, actor.user_id, "assign", "sample", smp.id, slot=0, gold_check=True)
        return _work_item(s, a, smp, settings)
    return None


def _next_warmup(s: Session, actor: Actor, project_id: int, settings: ProjectSettings,
                 route: admission.WarmupRoute) -> WorkItem | None:
    """A user in warm-up: their open warm-up draft, else the oldest warm-up sample they have not
    had (no k limit: everyone in warm-up annotates every warm-up sample), else None."""
    admission.ensure_qualification(s, project_id, actor.user_id)
    found = _open_draft(s, actor.user_id, project_id, warmup=True)
    if found:
        return _work_item(s, *found, settings)
    for sample_id in admission.warmup_candidates(s, route, actor.user_id):
        claimed = s.execute(
            update(Sample).where(Sample.id == sample_id, Sample.status == "active")
            .values(n_assigned=Sample.n_assigned + 1).returning(Sample.n_assigned)
        ).scalar()
        if claimed is None:
            continue  # withdrawn meanwhile
        smp = s.get(Sample, sample_id, populate_existing=True)
        s.add(Assignment(sample_id=smp.id, user_id=actor.user_id, slot=claimed, assigned_at=utcnow()))
        a = _new_draft(s, actor.user_id, smp, settings)
        audit.record(s, actor.user_id, "assign", "sample", smp.id, slot=claimed, warmup=True)
        return _work_item(s, a, smp, settings)
    return None


def own_annotation(s: Session, actor: Actor, annotation_id: int, *,
                   lock: bool = False) -> tuple[Annotation, Sample]:
    """One of the actor's own annotations with its sample (``lock``: FOR UPDATE of the row);
    :class:`NotFound` for one that does not exist or is someone else's."""
    stmt = (select(Annotation, Sample).join(Sample, Sample.id == Annotation.sample_id)
            .where(Annotation.id == annotation_id, Annotation.annotator_id == actor.user_id))
    if lock:
        stmt = stmt.with_for_update(of=Annotation)
    row = s.execute(stmt).first()
    if row is None:
        # Same message whether it does not exist or belongs to someone else (blindness).
        raise NotFound("That annotation does not exist or is not yours.")
    return row[0], row[1]


@checks_numbers
def open_item(db: Database, actor: Actor, annotation_id: int) -> WorkItem:
    """One of the actor's own annotations (draft or submitted)."""
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATE)
        return _work_item(s, *own_annotation(s, actor, annotation_id))


def _numbered(actor: Actor, project_id: int):  # type: ignore[no-untyped-def]
    """The actor's annotations in the project with their number: 1, 2, … in hand-out order."""
    return (select(Annotation.id.label("annotation_id"),
                   func.row_number().over(order_by=Annotation.id).label("number"))
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Annotation.annotator_id == actor.user_id, Sample.project_id == project_id)
            .subquery())


@checks_numbers
def sample_numbers(db: Database, actor: Actor, project_id: int,
                   annotation_ids: Iterable[int]) -> dict[int, int]:
    """The actor's own number of each of their annotations in the project ("your sample #37"):
    their hand-outs counted 1, 2, … in the order they got them, warm-up and gold checks alike.

    Annotators see this number, never a sample's external id: production is handed out in
    sample-id order and a gold check is a warm-up sample, so its external id would break the
    sequence and tell the check apart. Ids not the actor's are left out (blindness)."""
    wanted = list(annotation_ids)
    if not wanted:
        return {}
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATE)
        numbered = _numbered(actor, project_id)
        return {int(i): int(n) for i, n in s.execute(
            select(numbered.c.annotation_id, numbered.c.number)
            .where(numbered.c.annotation_id.in_(wanted)))}


@checks_numbers
def my_history(db: Database, actor: Actor, project_id: int, limit: int = 100) -> list[HistoryRow]:
    """The actor's own annotations in a project, most recently touched first."""
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATE)
        numbered = _numbered(actor, project_id)
        rows = s.execute(
            select(Annotation, numbered.c.number, Sample.external_id, Sample.benchmark)
            .join(numbered, numbered.c.annotation_id == Annotation.id)
            .join(Sample, Sample.id == Annotation.sample_id)
            .order_by(Annotation.updated_at.desc(), Annotation.id.desc()).limit(limit)
        ).all()
        return [HistoryRow(a.id, int(number), ext, bench, a.status, tuple(a.flags or ()),
                           a.seconds_spent, a.updated_at, a.submitted_at)
                for a, number, ext, bench in rows]
