"""The annotator's writes to one of their own annotations: saving a draft and submitting it.

Every write is one versioned ``UPDATE … RETURNING`` (:func:`bump_version`): a save from a tab
that opened an older version is refused (:class:`StaleVersion`), and a submitted annotation is
immutable. A submit is checked whole before anything is written (:func:`plan_submit`: the
sample is active, the content complete once refitted, today's quota has room), then written
with its consequences (:func:`store_submission`): the gold-check score
(:mod:`annotation.services.gold_checks`), the warm-up score
(:mod:`annotation.services.admission`) or the project's counts and settling
(:mod:`annotation.services.settling`). A gold check counts towards the quota like production
work; while the annotator is paused by the gold checks, production and check submits are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from annotation.curves import (
    MAX_POINTS, MIN_POINTS, CurveFitError, fit_curve, fit_scale_for, parameter_bounds_problem,
)
from annotation.project_day import day_bounds
from annotation.protocol import AnnotationContent, ContentError, submission_problems
from annotation.segmentation import Segmentation, SegmentationError
from annotation.services import admission, audit, gold_checks, settling
from annotation.services.authz import Actor, require_role
from annotation.services.errors import (
    AlreadySubmitted,
    InvalidInput,
    NotFound,
    QuotaReached,
    ServiceError,
    StaleVersion,
)
from annotation.services.queue import (
    WorkItem,
    own_annotation,
    submitted_between_query,
    work_item,
)
from annotation.settings import ProjectSettings
from annotation.wording import counted
from db.engine import Database
from db.models import Annotation, ParameterStats, Project, Sample, User, utcnow

#: Time between two saves longer than this counts as this much: the annotator was away.
IDLE_CAP_SECONDS = 300.0


def own_with_project(s: Session, actor: Actor, annotation_id: int, *,
                     lock_user: bool = False) -> tuple[Annotation, Sample, Project]:
    """:func:`own_annotation` (locked) with the sample's project and the actor's user row in the
    same statement (one round trip); the user's role is checked as :func:`require_role` does.

    With ``lock_user`` the user row is locked too (FOR UPDATE on PostgreSQL; SQLite's BEGIN
    IMMEDIATE already serialises writers): one person's submits then run one after another, so
    two tabs cannot both take the last slot of today's quota.
    """
    locked = [Annotation, User] if lock_user else [Annotation]
    row = s.execute(
        select(Annotation, Sample, Project, User).join(Sample, Sample.id == Annotation.sample_id)
        .join(Project, Project.id == Sample.project_id)
        .join(User, User.id == Annotation.annotator_id)
        .where(Annotation.id == annotation_id, Annotation.annotator_id == actor.user_id)
        .with_for_update(of=locked)
    ).first()
    # the role check finds the user row read above in the session (no second query while
    # ``row`` holds it); without a row, a user who lost the role hears that, not "not found"
    require_role(s, actor, "annotator")
    if row is None:
        raise NotFound("That annotation does not exist or is not yours.")
    return row[0], row[1], row[2]


def checked_content(content: AnnotationContent, smp: Sample) -> AnnotationContent:
    """``content`` when it is well formed for the sample's text, else :class:`InvalidInput`."""
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


def refuse_if_submitted(a: Annotation) -> None:
    """:class:`AlreadySubmitted` for a submitted annotation (it can no longer change)."""
    if a.status == "submitted":
        when = a.submitted_at.strftime("%Y-%m-%d %H:%M UTC") if a.submitted_at else "earlier"
        raise AlreadySubmitted(f"This annotation was already submitted ({when}); it can no longer be changed.")


def _guard(a: Annotation, expected_version: int) -> None:
    refuse_if_submitted(a)
    if a.version != expected_version:
        raise StaleVersion(
            "This sample was saved from another tab or window after you opened it "
            f"(version {a.version}, yours {expected_version}). Reload to continue with the newer work."
        )


def bump_version(s: Session, a: Annotation, expected_version: int, **values: object) -> None:
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


def content_values(content: AnnotationContent) -> dict[str, object]:
    """The annotation columns that store ``content``, as UPDATE values."""
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
        a, smp = own_annotation(s, actor, annotation_id, lock=True)
        _guard(a, expected_version)
        checked = checked_content(content, smp)
        spent = a.seconds_spent + clamp_seconds(seconds_delta)
        bump_version(s, a, expected_version, step=max(0, min(2, int(step))), seconds_spent=spent,
                     **content_values(checked))  # refreshes ``a`` (UPDATE … RETURNING)
        return work_item(a, smp)

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
class Refit:
    """A content with its parameters recomputed from its points (:func:`refit`), or cleared
    with the fit's ``problem`` when the points support no curve."""

    content: AnnotationContent
    problem: str | None = None


def refit(content: AnnotationContent) -> Refit:
    """Refit ``content`` for a submit. Pure (no database): :func:`submit` runs it before its
    write transaction, so no lock is held while the curve is fitted."""
    try:
        return Refit(_refit(content))
    except CurveFitError as exc:
        # Never store parameters the points do not support (a flagged sample may be
        # submitted with an unfinished curve, an unflagged one may not).
        cleared = replace(content, xi=None, omega=None, alpha=None, scale=None, rmse=None)
        return Refit(cleared, f"Curve: {exc}")


@dataclass(frozen=True)
class SubmitPlan:
    """A submit that passed every check: the content to store (refitted), and what the
    writes need (the project's settings, the time, the running sums if already loaded)."""

    work: AnnotationContent
    settings: ProjectSettings
    now: datetime
    stats: ParameterStats | None


@dataclass(frozen=True)
class SubmitBlocked:
    """Why a submit cannot be done: the error :func:`submit` raises, and the reasons one by one
    (what :func:`annotation.services.workbench_events.apply_events` reports while keeping the
    edits)."""

    error: type[ServiceError]
    message: str
    problems: tuple[str, ...]


def plan_submit(s: Session, actor: Actor, smp: Sample, project: Project,
                content: AnnotationContent, *, flagged: bool | None = None,
                refitted: Refit | None = None, gold_check: bool = False) -> SubmitPlan | SubmitBlocked:
    """Every check of a submit, before anything is written: the sample is active, the content
    is complete once refitted (a flagged one may be unfinished) and today's quota has room.

    ``flagged`` is the workbench's "submit as flagged": it needs a flag reason. ``refitted``:
    :func:`refit` of ``content`` when the caller has already run it; ``gold_check``: the
    annotation is a gold check (``Annotation.is_gold_check``). Raises
    :class:`InvalidInput` only for malformed content (``checked_content``).
    """
    if smp.status != "active":
        message = "This sample was withdrawn from annotation by a lead; it cannot be submitted."
        return SubmitBlocked(InvalidInput, message, (message,))
    work = checked_content(content, smp)
    done = refitted if refitted is not None else refit(work)
    work, fit_problem = done.content, done.problem
    if flagged and not work.flags:
        problems = ["Flag: choose why this sample cannot be annotated normally."]
    else:
        problems = submission_problems(work, smp.n_tokens)
    if problems:
        if fit_problem and MIN_POINTS <= len(work.points) <= MAX_POINTS:
            # the fit's own message says more than "the points do not define a curve"
            problems = [p for p in problems if not p.startswith("Curve:")] + [fit_problem]
        return SubmitBlocked(InvalidInput, "Not submitted yet: " + " ".join(problems), tuple(problems))
    settings = ProjectSettings.from_dict(project.settings)
    now = utcnow()
    start, end = day_bounds(now, settings)
    quota_query = submitted_between_query(actor.user_id, smp.project_id, start, end)
    stats = None
    paused = False
    if smp.is_warmup and not gold_check:
        submitted_today = s.scalar(quota_query) or 0
    else:
        # the project's running sums and the gold-check pause come with the quota count (one
        # round trip); ``stats`` is held so that settling.ensure_stats / count_parameters find
        # it without a query
        paused_column = gold_checks.paused_query(smp.project_id, actor.user_id)
        row = None
        if not gold_check:
            row = s.execute(select(ParameterStats, quota_query.scalar_subquery(), paused_column)
                            .where(ParameterStats.project_id == smp.project_id)).first()
        if row is not None:
            stats, submitted_today, paused = row[0], row[1] or 0, bool(row[2])
        else:
            counts = s.execute(select(quota_query.scalar_subquery(), paused_column)).one()
            submitted_today, paused = counts[0] or 0, bool(counts[1])
    if paused:
        return SubmitBlocked(InvalidInput, gold_checks.PAUSED_MESSAGE, (gold_checks.PAUSED_MESSAGE,))
    if submitted_today >= settings.daily_quota:
        message = (f"You reached today's quota of {counted(settings.daily_quota, 'submission')}. "
                   "Your draft stays open; submit it tomorrow.")
        return SubmitBlocked(QuotaReached, message, (message,))
    return SubmitPlan(work, settings, now, stats)


def store_submission(s: Session, actor: Actor, a: Annotation, smp: Sample, plan: SubmitPlan,
                     expected_version: int, **values: object) -> None:
    """Write a planned submit: the row (status, content, ``values``) in one versioned UPDATE,
    the audit event, and the gold-check score, the warm-up score or the project's counts and
    settling."""
    if not smp.is_warmup and not a.is_gold_check and plan.stats is None:
        settling.ensure_stats(s, smp.project_id)  # before the row counts as submitted
    bump_version(s, a, expected_version, status="submitted", submitted_at=plan.now, step=2,
                 **values, **content_values(plan.work))  # refreshes ``a``
    audit.record(s, actor.user_id, "submit", "annotation", a.id, sample=smp.external_id,
                 flags=list(plan.work.flags))
    if a.is_gold_check:  # scored against gold, may pause; never counted, flagged or settled
        gold_checks.record_check_submission(s, a, smp, plan.settings)
    elif smp.is_warmup:  # scored against gold; never counted, flagged or settled
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
    # they can be (annotation + sample + project + user, locked; quota + running sums; the
    # sample's annotations + gold + open review item), writes return what they wrote, and no
    # row is read twice. tests/service/test_queue.py bounds the count of statements.
    try:
        content.check_shape()
        refitted: Refit | None = refit(content)  # before the transaction: no lock held meanwhile
    except ContentError:
        refitted = None  # malformed: plan_submit says why

    def attempt(s: Session) -> WorkItem:
        a, smp, project = own_with_project(s, actor, annotation_id, lock_user=True)
        _guard(a, expected_version)
        plan = plan_submit(s, actor, smp, project, content, refitted=refitted,
                           gold_check=a.is_gold_check)
        if isinstance(plan, SubmitBlocked):
            raise plan.error(plan.message)
        spent = a.seconds_spent + clamp_seconds(seconds_delta)
        store_submission(s, actor, a, smp, plan, expected_version, seconds_spent=spent)
        return work_item(a, smp)

    return db.run_write(attempt)  # re-run whole on a transient lock, deadlock or pool error


def clamp_seconds(seconds: float) -> float:
    """Seconds of work to add: 0 for nonsense, at most :data:`IDLE_CAP_SECONDS`."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return 0.0
    if value != value or value < 0:
        return 0.0
    return min(value, IDLE_CAP_SECONDS)
