"""The annotator's writes to one of their own annotations: planned first, then written short.

There is one write path for the annotator's work, the workbench's event log
(:func:`annotation.services.workbench.workbench_events.apply_events`); this module is its two halves.

* **Plan, with no lock held.** :func:`read_draft` reads the annotation, its sample and project
  in a read transaction; the caller replays the edits on it; a submit is refitted
  (:func:`refit`, pure) and checked and prepared by :func:`plan_submit` in a read transaction:
  the sample is active, the content complete, today's quota has room, and what the submit does to
  the rest of the project is computed now — the sample's flags and gold
  (:func:`annotation.services.review.settling.prepare_submission`), the warm-up figures
  (:func:`annotation.services.quality.admission.prepare_warmup`) or the gold-check score
  (:func:`annotation.services.quality.gold_checks.prepare_check`).
* **Write, verifying what the plan read.** :func:`write_draft` is one versioned ``UPDATE …
  RETURNING``; :func:`store_submission` checks today's quota again, writes the row the same way
  and applies the prepared consequences, each checking that what it was computed from is
  unchanged. No fit, replay or statistic runs in the write transaction, so on SQLite the write
  lock is held for a few statements, whatever the batch or the project's size.

When anything a plan read has changed by the time it is written — the draft saved by another
request, a quota filled by another tab, another annotator's submit of the same sample — the
write raises :class:`~annotation.services.errors.ChangedMeanwhile`, rolls back, and the caller
reads and plans again. A gold check counts towards the quota like production work; while the
annotator is paused by the gold checks, production and check submits are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import exists, select, update
from sqlalchemy.orm import Session

from annotation.curves import (
    MAX_POINTS, MIN_POINTS, CurveFitError, curve_residuals, fit_curve, fit_scale_for,
    parameter_bounds_problem, passes_through, residual_message,
)
from annotation.project_day import day_bounds
from annotation.protocols import ProjectProtocol, protocol_of
from annotation.workbench.protocol import CONTEXT_STEP, PAIR_STEPS
from annotation.content import AnnotationContent, ContentError
from annotation.segmentation import Segmentation, SegmentationError
from annotation.services.quality import admission, gold_checks
from annotation.services import audit
from annotation.services.review import settling
from annotation.services.authz import ROLES, Actor, rank
from annotation.services.policy import Policy, authorize
from annotation.services.errors import (
    AlreadySubmitted,
    ChangedMeanwhile,
    InvalidInput,
    NotFound,
    QuotaReached,
    ServiceError,
)
from annotation.services.workbench.queue import submitted_between_query
from annotation.services.rows import content_values
from annotation.settings import ProjectSettings
from annotation.wording import counted
from db.models import Annotation, ParameterStats, Project, Sample, SamplePair, User, utcnow

#: Time between two saves longer than this counts as this much: the annotator was away.
IDLE_CAP_SECONDS = 300.0


@dataclass(frozen=True)
class Draft:
    """One of the actor's annotations as read for planning (no lock held): the row, its sample
    and project, the annotator's username (for the flags' wording) and, for a context pair,
    the follow-up statement (all the annotator's screen may know of the pair)."""

    annotation: Annotation
    sample: Sample
    project: Project
    username: str
    follow_up: str | None = None

    @property
    def settings(self) -> ProjectSettings:
        return ProjectSettings.from_dict(self.project.settings)

    @property
    def protocol(self) -> ProjectProtocol:
        return protocol_of(self.settings)


def read_draft(s: Session, actor: Actor, annotation_id: int) -> Draft:
    """The actor's annotation with its sample, project and user in one statement; the role is
    checked as :func:`~annotation.services.policy.authorize` does. :class:`NotFound` for one that is not the actor's."""
    row = s.execute(
        select(Annotation, Sample, Project, User, SamplePair.follow_up)
        .join(Sample, Sample.id == Annotation.sample_id)
        .join(Project, Project.id == Sample.project_id)
        .join(User, User.id == Annotation.annotator_id)
        .outerjoin(SamplePair, SamplePair.sample_id == Sample.id)  # the follow-up text alone
        .where(Annotation.id == annotation_id, Annotation.annotator_id == actor.user_id)
    ).first()
    # the role check finds the user row read above in the session (no second query); without a
    # row, a user who lost the role hears that, not "not found"
    authorize(s, actor, Policy.ANNOTATE)
    if row is None:
        raise NotFound("That annotation does not exist or is not yours.")
    return Draft(row[0], row[1], row[2], row[3].username, row[4])


def checked_content(content: AnnotationContent, smp: Sample) -> AnnotationContent:
    """``content`` when it is well formed for the sample's text, else :class:`InvalidInput`."""
    try:
        content.check_shape()
        Segmentation.from_boundaries(content.boundaries, smp.n_tokens)
    except (ContentError, SegmentationError) as exc:
        raise InvalidInput(f"Not saved: {exc}") from None
    return content


def refuse_if_submitted(a: Annotation) -> None:
    """:class:`AlreadySubmitted` for a submitted annotation (it can no longer change)."""
    if a.status == "submitted":
        when = a.submitted_at.strftime("%Y-%m-%d %H:%M UTC") if a.submitted_at else "earlier"
        raise AlreadySubmitted(f"This annotation was already submitted ({when}); it can no longer be changed.")


def _still_allowed(actor: Actor):  # type: ignore[no-untyped-def]
    """``EXISTS`` the actor's account, active and at least an annotator (a WHERE clause: a
    demotion or deactivation between the plan and the write stops the write)."""
    allowed = [r for r in ROLES if rank(r) >= rank("annotator")]
    return exists().where(User.id == actor.user_id, User.is_active.is_(True), User.role.in_(allowed))


def bump_version(s: Session, actor: Actor, a: Annotation, expected_version: int,
                 **values: object) -> Annotation:
    """Write the draft with the version check done by the database itself (safe across
    servers): one ``UPDATE … RETURNING`` that only matches the draft as the plan read it.
    Returns the written row; :class:`ChangedMeanwhile` when it no longer matches."""
    done = s.execute(
        update(Annotation).where(Annotation.id == a.id, Annotation.annotator_id == actor.user_id,
                                 Annotation.version == expected_version,
                                 Annotation.status == "draft", _still_allowed(actor))
        .values(version=expected_version + 1, updated_at=utcnow(), **values)
        .returning(Annotation),
        execution_options={"synchronize_session": False, "populate_existing": True},
    ).scalars().all()
    if len(done) != 1:
        raise ChangedMeanwhile("the draft changed since it was read")
    return done[0]


def write_draft(s: Session, actor: Actor, draft: Draft, content: AnnotationContent, *,
                step: int, **values: object) -> Annotation:
    """Store a replayed draft (checked beforehand with :func:`checked_content`)."""
    return bump_version(s, actor, draft.annotation, draft.annotation.version, step=step,
                        **values, **content_values(content))


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
    """Refit ``content`` for a submit — both curves of a pair. Pure (no database): run before
    any transaction."""
    first = _refit_one(content, "Curve")
    if not first.content.context_points:
        return first
    second = _refit_one(first.content.swapped_curves(), PAIR_STEPS[CONTEXT_STEP])
    return Refit(second.content.swapped_curves(), first.problem or second.problem)


def _refit_one(content: AnnotationContent, name: str) -> Refit:
    try:
        return Refit(_refit(content))
    except CurveFitError as exc:
        # Never store parameters the points do not support (a flagged sample may be
        # submitted with an unfinished curve, an unflagged one may not).
        cleared = replace(content, xi=None, omega=None, alpha=None, scale=None, rmse=None)
        return Refit(cleared, f"{name}: {exc}")


class Consequence(Protocol):
    """What a submit does beyond its own row, prepared before the write (settling a production
    sample, a warm-up score, a gold-check score). ``apply`` raises
    :class:`ChangedMeanwhile` when what it was computed from has changed."""

    def apply(self, s: Session, a: Annotation) -> Any: ...


@dataclass(frozen=True)
class SubmitPlan:
    """A submit that passed every check: the content to store (refitted), the project's
    settings, the time, and its prepared consequence."""

    work: AnnotationContent
    settings: ProjectSettings
    now: datetime
    consequence: Consequence


@dataclass(frozen=True)
class SubmitBlocked:
    """Why a submit cannot be done: the error class and its message, and the reasons one by one
    (what :func:`~annotation.services.workbench.workbench_events.apply_events` reports while keeping the
    edits)."""

    error: type[ServiceError]
    message: str
    problems: tuple[str, ...]


def _quota_and_pause(actor: Actor, smp: Sample, settings: ProjectSettings, now: datetime):  # type: ignore[no-untyped-def]
    """A select of (today's submissions of the actor in the project, paused by gold checks)."""
    start, end = day_bounds(now, settings)
    return (submitted_between_query(actor.user_id, smp.project_id, start, end).scalar_subquery(),
            gold_checks.paused_query(smp.project_id, actor.user_id))


def _quota_message(settings: ProjectSettings) -> str:
    return (f"You reached today's quota of {counted(settings.daily_quota, 'submission')}. "
            "Your draft stays open; submit it tomorrow.")


def hand_tuned_misses(content: AnnotationContent, name: str = "Curve") -> str | None:
    """Why a hand-tuned curve needs the annotator's confirmation at submit — it misses their own
    points by more than the fit's tolerance (``PASS_TOLERANCE``) — else None. Such a curve is
    stored as it is (``params_source`` "manual") once confirmed; a fitted one is refitted.
    ``name`` starts the message (a pair's second curve: see :func:`pair_hand_tuned_misses`).

    Examples:
        >>> hand_tuned_misses(AnnotationContent(points=((50.0, 1.0),), xi=50.0, omega=10.0,
        ...     alpha=0.0, scale=10.0, params_source="manual"))[:48]
        'Curve: the hand-tuned curve misses the points by'
    """
    if content.params_source != "manual" or not content.has_parameters or content.scale is None:
        return None
    residuals = curve_residuals(content.points, content.xi, content.omega, content.alpha, content.scale)
    if not residuals or passes_through(residuals):
        return None
    message = residual_message(residuals, hand_tuned=True) or ""
    return f"{name}: t" + message[1:] + " Or confirm to submit it as it is."


def pair_hand_tuned_misses(content: AnnotationContent) -> str | None:
    """:func:`hand_tuned_misses` of the first curve, else of a pair's second curve (named by
    its step); None when neither is a hand-tuned curve that misses its points."""
    return hand_tuned_misses(content) or (
        hand_tuned_misses(content.swapped_curves(), PAIR_STEPS[CONTEXT_STEP])
        if content.context_points else None)


def plan_submit(s: Session, actor: Actor, draft: Draft, content: AnnotationContent, *,
                refitted: Refit, flagged: bool | None = None,
                accept_misses: bool = False) -> SubmitPlan | SubmitBlocked:
    """Every check of a submit and its prepared consequence, in a read transaction: the sample
    is active, the content is complete once refitted (``refitted``: :func:`refit` of
    ``content``, run before; a flagged one may be unfinished), today's quota has room and the
    annotator is not paused.

    ``flagged`` is the workbench's "submit as flagged": it needs a flag reason. A hand-tuned
    curve that misses the points (:func:`hand_tuned_misses`) needs ``accept_misses`` (the
    annotator confirmed it) unless flagged. Raises :class:`InvalidInput` only for malformed
    content (``checked_content``).
    """
    a, smp = draft.annotation, draft.sample
    if smp.status != "active":
        message = "This sample was withdrawn from annotation by a lead; it cannot be submitted."
        return SubmitBlocked(InvalidInput, message, (message,))
    checked_content(content, smp)
    work, fit_problem = refitted.content, refitted.problem
    settings = draft.settings
    if flagged and not work.flags:
        problems = ["Flag: choose why this sample cannot be annotated normally."]
    else:
        problems = draft.protocol.submission_problems(work, smp.n_tokens, settings)
        misses = None if problems or accept_misses else pair_hand_tuned_misses(work)
        if misses is not None:
            return SubmitBlocked(InvalidInput, "Not submitted yet: " + misses, (misses,))
    if problems:
        if fit_problem and MIN_POINTS <= len(work.points) <= MAX_POINTS:
            # the fit's own message says more than "the points do not define a curve"
            problems = [p for p in problems if not p.startswith("Curve:")] + [fit_problem]
        return SubmitBlocked(InvalidInput, "Not submitted yet: " + " ".join(problems), tuple(problems))
    now = utcnow()
    quota, paused = _quota_and_pause(actor, smp, settings, now)
    production = not smp.is_warmup and not a.is_gold_check
    found = None
    if production:  # the running sums come with the quota count (one round trip)
        found = s.execute(select(quota, paused, ParameterStats)
                          .where(ParameterStats.project_id == smp.project_id)).first()
    row = found if found is not None else (*s.execute(select(quota, paused)).one(), None)
    submitted_today, is_paused, stats = row[0] or 0, bool(row[1]), row[2]
    if is_paused and (production or a.is_gold_check):  # warm-up work goes on during a pause
        return SubmitBlocked(InvalidInput, gold_checks.PAUSED_MESSAGE, (gold_checks.PAUSED_MESSAGE,))
    if submitted_today >= settings.daily_quota:
        message = _quota_message(settings)
        return SubmitBlocked(QuotaReached, message, (message,))
    consequence: Consequence
    if a.is_gold_check:
        consequence = gold_checks.prepare_check(s, a, smp, settings, work)
    elif smp.is_warmup:
        consequence = admission.prepare_warmup(s, smp, actor.user_id, a.id, work)
    else:
        consequence = settling.prepare_submission(s, smp, a.id, actor.user_id, draft.username, work,
                                                  settings, stats)
    return SubmitPlan(work, settings, now, consequence)


def store_submission(s: Session, actor: Actor, draft: Draft, plan: SubmitPlan,
                     **values: object) -> Annotation:
    """Write a planned submit in the caller's write transaction: today's quota and the pause
    checked again (one statement; on PostgreSQL it locks the user's row, so one person's submits
    run one after another and two tabs cannot both take the last slot of the quota), the row
    (status, content, ``values``) in one versioned UPDATE, the audit event and the prepared
    consequence. :class:`ChangedMeanwhile` when anything planned on has changed."""
    a, smp = draft.annotation, draft.sample
    quota, paused = _quota_and_pause(actor, smp, plan.settings, plan.now)
    check = select(User.id, quota, paused).where(User.id == actor.user_id)
    if s.bind.dialect.name == "postgresql":
        check = check.with_for_update(of=User)
    row = s.execute(check).first()
    counts_pause = not smp.is_warmup or a.is_gold_check
    if row is None or (row[1] or 0) >= plan.settings.daily_quota or (bool(row[2]) and counts_pause):
        raise ChangedMeanwhile("the quota or the pause changed since the submit was planned")
    stored = bump_version(s, actor, a, a.version, status="submitted", submitted_at=plan.now,
                          step=2, **values, **content_values(plan.work))
    audit.record(s, actor.user_id, "submit", "annotation", stored.id, sample=smp.external_id,
                 flags=list(plan.work.flags))
    plan.consequence.apply(s, stored)
    return stored


def clamp_seconds(seconds: float) -> float:
    """Seconds of work to add: 0 for nonsense, at most :data:`IDLE_CAP_SECONDS`."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return 0.0
    if value != value or value < 0:
        return 0.0
    return min(value, IDLE_CAP_SECONDS)
