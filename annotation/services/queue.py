"""The annotator's queue and workbench: next sample, drafts, submit.

Blindness: every query here is filtered to the acting annotator's own rows; nothing in this
module can return another person's annotation.

Assignment is a pull queue (as Label Studio's and Potato's overlap settings): when an annotator
asks for work they first get back any sample they have started and not submitted; otherwise the
oldest active sample that has fewer than k annotators and is not theirs is handed to them. The
hand-over is one conditional ``UPDATE samples SET n_assigned = n_assigned + 1 WHERE n_assigned < k``
so two annotators racing for the last slot cannot both get it, on SQLite or PostgreSQL.

Warm-up (``annotation.services.admission``): in a project with a warm-up set, a user who is
not admitted yet gets warm-up samples only (not subject to k), an admitted one never gets them;
a warm-up submission updates the annotator's qualification instead of settling the sample.
Projects without warm-up samples take exactly the paths they took before.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace
from datetime import datetime, time, timedelta, timezone

from sqlalchemy import func, select, true, union_all, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.curves import (
    MAX_POINTS, MIN_POINTS, CurveFitError, fit_curve, fit_scale_for, parameter_bounds_problem,
)
from annotation import event_log
from annotation.protocol import AnnotationContent, ContentError, submission_problems
from annotation.segmentation import Segmentation, SegmentationError
from annotation.services import admission, audit, settling
from annotation.services.authz import Actor, require_role
from annotation.services.errors import (
    AlreadySubmitted,
    InvalidInput,
    NotFound,
    QuotaReached,
    ServiceError,
    StaleVersion,
)
from annotation.settings import ProjectSettings
from annotation.wording import counted
from db.engine import Database
from db.models import Annotation, Assignment, ParameterStats, Project, Sample, User, utcnow

#: Time between two saves longer than this counts as this much: the annotator was away.
IDLE_CAP_SECONDS = 300.0
_CANDIDATES = 20


@dataclass(frozen=True)
class QueueStatus:
    submitted_today: int
    daily_quota: int
    submitted_total: int
    in_progress: int

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

    @property
    def is_submitted(self) -> bool:
        return self.status == "submitted"


@dataclass(frozen=True)
class HistoryRow:
    annotation_id: int
    external_id: str
    benchmark: int
    status: str
    flags: tuple[str, ...]
    seconds_spent: float
    updated_at: datetime
    submitted_at: datetime | None


def _settings(s: Session, project_id: int) -> ProjectSettings:
    p = s.get(Project, project_id)
    if p is None:
        raise NotFound("No such project.")
    return ProjectSettings.from_dict(p.settings)


def day_bounds(now: datetime, settings: ProjectSettings) -> tuple[datetime, datetime]:
    """Start and end (UTC) of the quota's calendar day containing ``now``.

    The end is the next local midnight, so a day with a daylight-saving change is 23 or 25 hours.
    """
    zone = settings.timezone
    today = now.astimezone(zone).date()
    start = datetime.combine(today, time(0), tzinfo=zone)
    end = datetime.combine(today + timedelta(days=1), time(0), tzinfo=zone)
    return start.astimezone(timezone.utc), end.astimezone(timezone.utc)


def _submitted_between_query(user_id: int, project_id: int, start: datetime, end: datetime):
    return (
        select(func.count()).select_from(Annotation)
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Annotation.status == "submitted",
               Annotation.submitted_at >= start, Annotation.submitted_at < end,
               Sample.project_id == project_id)
    )


def _submitted_between(s: Session, user_id: int, project_id: int, start: datetime, end: datetime) -> int:
    return s.scalar(_submitted_between_query(user_id, project_id, start, end)) or 0


def queue_status(db: Database, actor: Actor, project_id: int) -> QueueStatus:
    """The annotator's counters for one project: today's submissions against the quota, etc."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        settings = _settings(s, project_id)
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
        return QueueStatus(today, settings.daily_quota, rows.get("submitted", 0), rows.get("draft", 0))


def pool_size(db: Database, actor: Actor, project_id: int) -> int:
    """How many more annotations the project's pool still needs (open slots over active samples)."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        k = _settings(s, project_id).annotators_per_sample
        total = int(s.scalar(
            select(func.coalesce(func.sum(k - Sample.n_assigned), 0))
            .where(Sample.project_id == project_id, Sample.status == "active", Sample.n_assigned < k)
        ) or 0)
        # warm-up samples are not production slots (indexed: ix_samples_warmup)
        warmup = int(s.scalar(
            select(func.coalesce(func.sum(k - Sample.n_assigned), 0))
            .where(Sample.project_id == project_id, Sample.is_warmup == true(),
                   Sample.status == "active", Sample.n_assigned < k)
        ) or 0)
        return total - warmup


def _content(a: Annotation) -> AnnotationContent:
    return AnnotationContent(
        boundaries=tuple(a.boundaries or (0,)),
        segment_axes=tuple(a.segment_axes or (None,)),
        points=tuple((float(x), float(y)) for x, y in (a.points or ())),
        xi=a.xi, omega=a.omega, alpha=a.alpha, scale=a.scale, rmse=a.rmse,
        params_source=a.params_source, flags=tuple(a.flags or ()), note=a.note or "",
    )


def _item(a: Annotation, smp: Sample) -> WorkItem:
    return WorkItem(a.id, a.version, a.status, a.step, _content(a), a.seconds_spent,
                    a.guidelines_version, a.updated_at, a.submitted_at, smp.id, smp.project_id,
                    smp.external_id, smp.benchmark, smp.parent_text, smp.n_tokens,
                    a.returned_note or "", bool(smp.is_warmup))


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
    if warmup is not None:  # only warm-up drafts (True) or only production drafts (False)
        stmt = stmt.where(Sample.is_warmup == warmup)
    row = s.execute(stmt).first()
    return (row[0], row[1]) if row else None


def _new_draft(s: Session, user_id: int, smp: Sample, settings: ProjectSettings) -> Annotation:
    a = Annotation(sample_id=smp.id, annotator_id=user_id, status="draft", version=1, step=0,
                   boundaries=[0], segment_axes=[None], points=[], flags=[], note="",
                   guidelines_version=settings.guidelines_version, seconds_spent=0.0,
                   created_at=utcnow(), updated_at=utcnow())
    s.add(a)
    s.flush()
    return a


def _candidate_ids(s: Session, user_id: int, project_id: int, k: int,
                   exclude_warmup: bool = False) -> list[int]:
    """Ids of the oldest active samples with fewer than k annotators that are not the user's.

    One range of ``ix_samples_pool`` (project_id, status, n_assigned, id) per ``n_assigned``
    value 0 … k-1 is already in id order, so each branch stops after its first few rows; the
    oldest of their union are the answer. A single ``n_assigned < k`` range is not in id order:
    SQLite sorted the whole open pool and PostgreSQL walked the primary key past every full
    sample, both growing with the project.

    "Not the user's" is a count per row on the (sample_id, user_id) unique index; written as
    NOT EXISTS, PostgreSQL planned a merge anti-join that read that whole index for the user.
    """
    mine = (select(func.count()).select_from(Assignment)
            .where(Assignment.sample_id == Sample.id, Assignment.user_id == user_id)
            .scalar_subquery())
    extra = [Sample.is_warmup.is_(False)] if exclude_warmup else []
    branches = [
        select(Sample.id).where(Sample.project_id == project_id, Sample.status == "active",
                                Sample.n_assigned == n, mine == 0, *extra)
        .order_by(Sample.id).limit(_CANDIDATES).subquery()
        for n in range(k)
    ]
    pool = union_all(*(select(b.c.id) for b in branches)).subquery()
    return list(s.scalars(select(pool.c.id).order_by(pool.c.id).limit(_CANDIDATES)))


def next_item(db: Database, actor: Actor, project_id: int) -> WorkItem | None:
    """The annotator's next sample: their oldest unfinished draft, else a newly assigned sample.

    In a project with a warm-up set, a user not admitted yet gets warm-up samples only
    (:func:`_next_warmup`) and an admitted one production samples only.
    Returns None when the pool has nothing left for them. Does not check the quota (a draft may
    be prepared; :func:`submit` enforces it) — pages show the quota from :func:`queue_status`.
    """
    def attempt(s: Session) -> WorkItem | None:
        user = require_role(s, actor, "annotator")
        if s.bind.dialect.name == "postgresql":
            # One person's requests one at a time, so two tabs asking at once get the
            # same draft rather than two samples (SQLite's BEGIN IMMEDIATE does this).
            s.execute(select(User.id).where(User.id == user.id).with_for_update())
        settings = _settings(s, project_id)
        route = admission.warmup_route(s, project_id, actor.user_id)
        if route.in_warmup:
            return _next_warmup(s, actor, project_id, settings, route)
        found = _open_draft(s, actor.user_id, project_id,
                            warmup=False if route.marked else None)
        if found:
            return _item(*found)
        k = settings.annotators_per_sample
        while True:
            candidates = _candidate_ids(s, actor.user_id, project_id, k,
                                        exclude_warmup=route.marked)
            if not candidates:
                return None
            for sample_id in candidates:
                claimed = s.execute(
                    update(Sample).where(Sample.id == sample_id, Sample.n_assigned < k)
                    .values(n_assigned=Sample.n_assigned + 1)
                    .returning(Sample.n_assigned)
                ).scalar()
                if claimed is None:
                    continue  # someone took the last slot meanwhile
                smp = s.get(Sample, sample_id, populate_existing=True)
                s.add(Assignment(sample_id=smp.id, user_id=actor.user_id, slot=claimed,
                                 assigned_at=utcnow()))
                a = _new_draft(s, actor.user_id, smp, settings)
                audit.record(s, actor.user_id, "assign", "sample", smp.id, slot=claimed)
                return _item(a, smp)
            # Every candidate filled up while we waited for its row (PostgreSQL, busy
            # pool): the pool is not empty, so look again rather than report it empty.

    for _attempt in range(3):
        try:
            # the whole hand-out re-runs on a transient lock, deadlock or pool error
            return db.run_write(attempt)
        except IntegrityError:
            continue  # the same person asked twice at once (two tabs); the retry finds the draft
    raise StaleVersion("Could not hand out a sample right now; please try again.")


def _next_warmup(s: Session, actor: Actor, project_id: int, settings: ProjectSettings,
                 route: admission.WarmupRoute) -> WorkItem | None:
    """A user in warm-up: their open warm-up draft, else the oldest warm-up sample they have not
    had (no k limit: everyone in warm-up annotates every warm-up sample), else None."""
    admission.ensure_qualification(s, project_id, actor.user_id)
    found = _open_draft(s, actor.user_id, project_id, warmup=True)
    if found:
        return _item(*found)
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
        return _item(a, smp)
    return None


def _own(s: Session, actor: Actor, annotation_id: int, *, lock: bool = False) -> tuple[Annotation, Sample]:
    stmt = (select(Annotation, Sample).join(Sample, Sample.id == Annotation.sample_id)
            .where(Annotation.id == annotation_id, Annotation.annotator_id == actor.user_id))
    if lock:
        stmt = stmt.with_for_update(of=Annotation)
    row = s.execute(stmt).first()
    if row is None:
        # Same message whether it does not exist or belongs to someone else (blindness).
        raise NotFound("That annotation does not exist or is not yours.")
    return row[0], row[1]


def _own_with_project(s: Session, actor: Actor, annotation_id: int) -> tuple[Annotation, Sample, Project]:
    """:func:`_own` (locked) with the sample's project in the same statement (one round trip)."""
    row = s.execute(
        select(Annotation, Sample, Project).join(Sample, Sample.id == Annotation.sample_id)
        .join(Project, Project.id == Sample.project_id)
        .where(Annotation.id == annotation_id, Annotation.annotator_id == actor.user_id)
        .with_for_update(of=Annotation)
    ).first()
    if row is None:
        raise NotFound("That annotation does not exist or is not yours.")
    return row[0], row[1], row[2]


def open_item(db: Database, actor: Actor, annotation_id: int) -> WorkItem:
    """One of the actor's own annotations (draft or submitted)."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        return _item(*_own(s, actor, annotation_id))


def _checked(content: AnnotationContent, smp: Sample) -> AnnotationContent:
    try:
        content.check_shape()
        Segmentation.from_boundaries(content.boundaries, smp.n_tokens)
    except (ContentError, SegmentationError) as exc:
        raise InvalidInput(f"Not saved: {exc}") from None
    return content


def _write_content(a: Annotation, content: AnnotationContent) -> None:
    a.boundaries = list(content.boundaries)
    a.segment_axes = list(content.segment_axes)
    a.points = [[float(x), float(y)] for x, y in content.points]
    a.xi, a.omega, a.alpha = content.xi, content.omega, content.alpha
    a.scale, a.rmse = content.scale, content.rmse
    a.params_source = content.params_source
    a.flags = list(content.flags)
    a.note = content.note


def _refuse_if_submitted(a: Annotation) -> None:
    if a.status == "submitted":
        when = a.submitted_at.strftime("%Y-%m-%d %H:%M UTC") if a.submitted_at else "earlier"
        raise AlreadySubmitted(f"This annotation was already submitted ({when}); it can no longer be changed.")


def _guard(a: Annotation, expected_version: int) -> None:
    _refuse_if_submitted(a)
    if a.version != expected_version:
        raise StaleVersion(
            "This sample was saved from another tab or window after you opened it "
            f"(version {a.version}, yours {expected_version}). Reload to continue with the newer work."
        )


def _bump(s: Session, a: Annotation, expected_version: int, **values: object) -> None:
    """Write with the version check done by the database itself (safe across servers).

    The UPDATE returns the written row, which refreshes ``a`` in the same round trip (no
    ``refresh`` SELECT afterwards)."""
    done = s.execute(
        update(Annotation).where(Annotation.id == a.id, Annotation.version == expected_version,
                                 Annotation.status == "draft")
        .values(version=expected_version + 1, updated_at=utcnow(), **values)
        .returning(Annotation),
        execution_options={"synchronize_session": False, "populate_existing": True},
    ).scalars().all()
    if len(done) != 1:
        raise StaleVersion("This sample was saved from another tab or window; reload to continue.")


def _content_values(content: AnnotationContent) -> dict[str, object]:
    probe = Annotation()
    _write_content(probe, content)
    return {k: getattr(probe, k) for k in ("boundaries", "segment_axes", "points", "xi", "omega",
                                           "alpha", "scale", "rmse", "params_source", "flags", "note")}


def save_draft(db: Database, actor: Actor, annotation_id: int, expected_version: int,
               content: AnnotationContent, *, step: int, seconds_delta: float = 0.0) -> WorkItem:
    """Save the annotator's work in progress; returns the item with its new version.

    Raises :class:`StaleVersion` if another tab saved since ``expected_version`` and
    :class:`AlreadySubmitted` after a submit.
    """
    def attempt(s: Session) -> WorkItem:
        require_role(s, actor, "annotator")
        a, smp = _own(s, actor, annotation_id, lock=True)
        _guard(a, expected_version)
        checked = _checked(content, smp)
        spent = a.seconds_spent + _clamp_seconds(seconds_delta)
        _bump(s, a, expected_version, step=max(0, min(2, int(step))), seconds_spent=spent,
              **_content_values(checked))  # refreshes ``a`` (UPDATE … RETURNING)
        return _item(a, smp)

    return db.run_write(attempt)  # re-run whole on a transient lock, deadlock or pool error


def _refit(content: AnnotationContent) -> AnnotationContent:
    """Recompute the stored parameters from the points, so what is stored is what the points say."""
    if content.params_source == "manual" and content.has_parameters:
        # hand-tuned values obey the fit's own bounds: the server, not the page's inputs, decides
        problem = parameter_bounds_problem(content.xi, content.omega, content.alpha)
        if problem is not None:
            raise CurveFitError(f"The hand-tuned curve cannot be stored: {problem}.")
        scale, rmse = fit_scale_for(content.points, content.xi, content.omega, content.alpha)
        return replace(content, scale=scale, rmse=rmse)
    fit = fit_curve(content.points)
    return replace(content, xi=fit.xi, omega=fit.omega, alpha=fit.alpha, scale=fit.scale,
                   rmse=fit.rmse, params_source="fit")


@dataclass(frozen=True)
class _SubmitPlan:
    """A submit that passed every check: the content to store (refitted), and what the
    writes need (the project's settings, the time, the running sums if already loaded)."""

    work: AnnotationContent
    settings: ProjectSettings
    now: datetime
    stats: ParameterStats | None


@dataclass(frozen=True)
class _SubmitBlocked:
    """Why a submit cannot be done: the error :func:`submit` raises, and the reasons one by one
    (what :func:`apply_events` reports while keeping the edits)."""

    error: type[ServiceError]
    message: str
    problems: tuple[str, ...]


def _plan_submit(s: Session, actor: Actor, smp: Sample, project: Project,
                 content: AnnotationContent, *, flagged: bool | None = None) -> _SubmitPlan | _SubmitBlocked:
    """Every check of a submit, before anything is written: the sample is active, the content
    is complete once refitted (a flagged one may be unfinished) and today's quota has room.

    ``flagged`` is the workbench's "submit as flagged": it needs a flag reason. Raises
    :class:`InvalidInput` only for malformed content (``_checked``).
    """
    if smp.status != "active":
        message = "This sample was withdrawn from annotation by a lead; it cannot be submitted."
        return _SubmitBlocked(InvalidInput, message, (message,))
    work = _checked(content, smp)
    fit_problem = None
    try:
        work = _refit(work)
    except CurveFitError as exc:
        # Never store parameters the points do not support (a flagged sample may be
        # submitted with an unfinished curve, an unflagged one may not).
        fit_problem = f"Curve: {exc}"
        work = replace(work, xi=None, omega=None, alpha=None, scale=None, rmse=None)
    if flagged and not work.flags:
        problems = ["Flag: choose why this sample cannot be annotated normally."]
    else:
        problems = submission_problems(work, smp.n_tokens)
    if problems:
        if fit_problem and MIN_POINTS <= len(work.points) <= MAX_POINTS:
            # the fit's own message says more than "the points do not define a curve"
            problems = [p for p in problems if not p.startswith("Curve:")] + [fit_problem]
        return _SubmitBlocked(InvalidInput, "Not submitted yet: " + " ".join(problems), tuple(problems))
    settings = ProjectSettings.from_dict(project.settings)
    now = utcnow()
    start, end = day_bounds(now, settings)
    quota_query = _submitted_between_query(actor.user_id, smp.project_id, start, end)
    stats = None
    if smp.is_warmup:
        submitted_today = s.scalar(quota_query) or 0
    else:
        # the project's running sums come with the quota count (one round trip); ``stats``
        # is held so that settling.ensure_stats / count_parameters find it without a query
        row = s.execute(select(ParameterStats, quota_query.scalar_subquery())
                        .where(ParameterStats.project_id == smp.project_id)).first()
        if row is not None:
            stats, submitted_today = row[0], row[1] or 0
        else:
            submitted_today = s.scalar(quota_query) or 0
    if submitted_today >= settings.daily_quota:
        message = (f"You reached today's quota of {counted(settings.daily_quota, 'submission')}. "
                   "Your draft stays open; submit it tomorrow.")
        return _SubmitBlocked(QuotaReached, message, (message,))
    return _SubmitPlan(work, settings, now, stats)


def _store_submission(s: Session, actor: Actor, a: Annotation, smp: Sample, plan: _SubmitPlan,
                      expected_version: int, **values: object) -> None:
    """Write a planned submit: the row (status, content, ``values``) in one versioned UPDATE,
    the audit event, and the warm-up score or the project's counts and settling."""
    if not smp.is_warmup and plan.stats is None:
        settling.ensure_stats(s, smp.project_id)  # before the row counts as submitted
    _bump(s, a, expected_version, status="submitted", submitted_at=plan.now, step=2,
          **values, **_content_values(plan.work))  # refreshes ``a``
    audit.record(s, actor.user_id, "submit", "annotation", a.id, sample=smp.external_id,
                 flags=list(plan.work.flags))
    if smp.is_warmup:  # scored against gold; never counted, flagged or settled
        admission.record_warmup_submission(s, smp, actor.user_id)
    else:
        settling.record_submission(s, smp, plan.work, plan.settings)


def submit(db: Database, actor: Actor, annotation_id: int, expected_version: int,
           content: AnnotationContent, *, seconds_delta: float = 0.0) -> WorkItem:
    """Submit an annotation: validated, counted against today's quota, then immutable.

    A flagged annotation may be incomplete. Raises :class:`InvalidInput` listing what is missing,
    :class:`QuotaReached`, :class:`StaleVersion` or :class:`AlreadySubmitted`; nothing changes then.
    """
    # Every statement is a round trip (PostgreSQL over the network): reads are combined where
    # they can be (user + lock, annotation + sample + project, quota + running sums), writes
    # return what they wrote, and no row is read twice. tests/service/test_queue.py bounds the
    # count of statements.
    def attempt(s: Session) -> WorkItem:
        _submitter(s, actor, lock=True)
        a, smp, project = _own_with_project(s, actor, annotation_id)
        _guard(a, expected_version)
        plan = _plan_submit(s, actor, smp, project, content)
        if isinstance(plan, _SubmitBlocked):
            raise plan.error(plan.message)
        spent = a.seconds_spent + _clamp_seconds(seconds_delta)
        _store_submission(s, actor, a, smp, plan, expected_version, seconds_spent=spent)
        return _item(a, smp)

    return db.run_write(attempt)  # re-run whole on a transient lock, deadlock or pool error


def _submitter(s: Session, actor: Actor, *, lock: bool) -> User:
    """The acting annotator's user row (role checked). With ``lock`` on PostgreSQL the row is
    read FOR UPDATE, serialising one person's submits so two tabs cannot both take the last
    quota slot (SQLite's BEGIN IMMEDIATE already does); require_role then finds the row in the
    session without a second query (it must still be referenced then: the session holds rows
    weakly)."""
    locked = None
    if lock and s.bind.dialect.name == "postgresql":
        locked = s.get(User, actor.user_id, with_for_update=True)  # noqa: F841 (held)
    user = require_role(s, actor, "annotator")  # ``locked`` is held until here
    return user


# --- the workbench's event log ---------------------------------------------------------------


@dataclass(frozen=True)
class EventOutcome:
    """What :func:`apply_events` did with a batch of the workbench's edits.

    ``item`` is the annotation as stored afterwards; ``last_seq`` the last event of this client
    applied (acknowledge up to it); ``refused`` the events acknowledged but not applied, with
    their messages; ``fit_message`` the last curve edit's message (None when it fitted, or
    without curve edits); ``submitted`` whether a submit in the batch was done, else
    ``submit_problems`` says why a requested one was not (the edits are kept); ``next_item`` the
    next sample once submitted (None when the pool has none left, or handing one out failed:
    the workbench then asks :func:`next_item` itself); ``waiting_for`` the missing seq when the
    batch stopped at a gap.
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

    A ``submit`` event submits exactly as :func:`submit` (same checks and writes) what the
    events before it built; when the content is incomplete, the quota is reached or the
    sample was withdrawn, the edits are stored, the submit is not done and
    ``submit_problems`` says why, and the rest of the batch is applied. Raises
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
        _submitter(s, actor, lock=wants_submit)
        a, smp, project = _own_with_project(s, actor, annotation_id)
        _refuse_if_submitted(a)
        if client == a.event_client:
            start = a.event_seq
        elif base_version == a.version:
            start = 0  # a new client (tab, reload) that started from the stored state takes over
        else:
            raise StaleVersion(
                "This sample was changed in another tab or window after you opened it here "
                f"(version {a.version}, yours {base_version}). Reload to continue with the newer work."
            )
        r = event_log.replay(_content(a), a.step, smp.n_tokens, start, parsed, stop_at_submit=True)
        refused, fit_message = list(r.refused), r.fit_message
        problems: tuple[str, ...] = ()
        plan: _SubmitPlan | None = None
        while r.submit is not None:
            checked = _plan_submit(s, actor, smp, project, r.content, flagged=r.submit.flagged)
            if isinstance(checked, _SubmitPlan):
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
            return EventOutcome(_item(a, smp), start, waiting_for=r.waiting_for), None
        values: dict[str, object] = dict(
            seconds_spent=a.seconds_spent + _clamp_seconds(seconds_delta),
            event_client=client, event_seq=last_seq)
        if plan is not None:
            _store_submission(s, actor, a, smp, plan, a.version, **values)  # refreshes ``a``
        else:
            _bump(s, a, a.version, step=r.step, **values,
                  **_content_values(_checked(r.content, smp)))  # refreshes ``a``
        outcome = EventOutcome(_item(a, smp), last_seq, tuple(refused), fit_message,
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


def my_history(db: Database, actor: Actor, project_id: int, limit: int = 100) -> list[HistoryRow]:
    """The actor's own annotations in a project, most recently touched first."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        rows = s.execute(
            select(Annotation, Sample.external_id, Sample.benchmark)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Annotation.annotator_id == actor.user_id, Sample.project_id == project_id)
            .order_by(Annotation.updated_at.desc(), Annotation.id.desc()).limit(limit)
        ).all()
        return [HistoryRow(a.id, ext, bench, a.status, tuple(a.flags or ()), a.seconds_spent,
                           a.updated_at, a.submitted_at) for a, ext, bench in rows]


def _clamp_seconds(seconds: float) -> float:
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return 0.0
    if value != value or value < 0:
        return 0.0
    return min(value, IDLE_CAP_SECONDS)

