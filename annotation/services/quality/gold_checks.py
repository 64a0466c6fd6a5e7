"""Ongoing gold checks: scoring a submitted check, the pause and its lift,
and the lead's view of every annotator's accuracy against gold. The rules are
:mod:`annotation.quality.gold_checks`; handing checks out is :mod:`annotation.services.workbench.queue`.

* **Material.** A check is a sample of the project's warm-up set (active, marked warm-up, with
  the lead's gold: ``admission.WarmupRoute.sample_ids``) that the annotator has never been
  handed. Leads choose the material by adding samples to the warm-up set (Warm-up page): the
  set serves newcomers as their warm-up and admitted annotators as checks. Drawing only from
  it keeps every check out of k, flags, σ, settling, the review queue, agreement and the export
  through ``Sample.is_warmup``, which all of those already filter.
* **Marker.** A check's annotation has ``Annotation.is_gold_check = True`` (its assignment has
  ``slot = 0`` and ``n_assigned`` is not touched). The annotator sees it as production work:
  :class:`~annotation.services.workbench.queue.WorkItem` says ``is_warmup=False``, it counts towards the
  daily quota and the counters like any submission, and it is not in their warm-up figures.
* **Scores** (:func:`record_check_submission`, inside the submit transaction): W1, Jaccard and
  Pk against the sample's gold at submit, and whether the check passed, in ``gold_checks``.
  A sample whose gold is gone by then is stored unjudged (``passed`` None) and left out of
  the window; so is a check the annotator **flagged** (a text that cannot be annotated
  normally is not a failure): the lead sees its flags and note in the checks table.
* **Pause.** When the rule (:func:`annotation.quality.gold_checks.pause_due`) holds over the judged
  checks since the last lift, a ``gold_check_pauses`` row is opened and an audit event
  ``gold_check_pause`` recorded. While it is open the queue hands out nothing and production
  (and check) submits are refused; the annotator is told plainly that their recent accuracy
  against gold fell below the project's target and that a lead will be in touch — never which
  samples were checks. Warm-up work is not affected.
* **Slots at a pause** (:func:`release_empty_drafts`). When a pause starts, the annotator's open
  production drafts with nothing in them (no boundary, axis, point, curve, flag or note, never
  sent back by a lead) are deleted with their assignment and their slot is given back
  (``n_assigned - 1`` in one conditional UPDATE), so others can annotate those samples. A
  draft with any typed work is kept, and keeps its slot: nothing typed is ever lost; the pause
  on the Annotators page says how many such drafts the annotator holds (``figures``
  ``kept_drafts``; ``released_drafts`` the slots given back).
* **Lift** (:func:`lift_pause`): a lead, with a note; recorded (who, when, why; audit
  ``gold_check_lift``). The window restarts: only checks scored after the lift count, so the
  same old checks cannot pause the annotator again. A second lift of the same pause (a stale
  tab) is refused with a message and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, false, func, or_, select, true, update
from sqlalchemy.orm import Session

from annotation.quality.gold_checks import (
    CheckScores,
    CheckThresholds,
    check_passes,
    handout_seed,
    is_check_handout,
    pause_due,
    score_check,
    window_share,
)
from annotation.review.resolution import Resolution
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.text_limits import check_chars
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.content import AnnotationContent
from annotation.services.errors import ChangedMeanwhile, InvalidInput, NotFound, StaleVersion
from annotation.services.lookup import project_row, project_settings
from annotation.services.rows import annotation_content, stored_gold
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import (
    Annotation,
    Assignment,
    GoldAnnotation,
    GoldCheck,
    GoldCheckPause,
    Sample,
    User,
    utcnow,
)

#: What a paused annotator reads (queue, workbench, a refused submit).
PAUSED_MESSAGE = ("Your production work is paused: your recent accuracy against samples with a "
                  "known answer fell below the project's target. A lead will be in touch with you; "
                  "your drafts are kept.")


# --- inside the queue's and the submit's transactions ----------------------------------------------

def paused_query(project_id: int, user_id: int):
    """``EXISTS`` an open pause of the user in the project (a column to add to a select)."""
    return exists().where(GoldCheckPause.project_id == project_id, GoldCheckPause.user_id == user_id,
                          GoldCheckPause.lifted_at.is_(None))


def is_paused(s: Session, project_id: int, user_id: int) -> bool:
    return bool(s.scalar(select(paused_query(project_id, user_id))))


def check_due(s: Session, settings: ProjectSettings, project_id: int, user_id: int) -> bool:
    """Whether the user's next new hand-out in the project is a gold check: hand-outs are their
    production and check annotations, numbered in order (:func:`annotation.quality.gold_checks.is_check_handout`)."""
    if not settings.gold_check_share > 0:
        return False
    handed = s.scalar(
        select(func.count()).select_from(Annotation).join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Sample.project_id == project_id,
               or_(Sample.is_warmup == false(), Annotation.is_gold_check == true()))) or 0
    return is_check_handout(handed + 1, settings.gold_check_share, handout_seed(project_id, user_id))


def _gold_of(s: Session, smp: Sample) -> tuple[Resolution | None, tuple[Any, ...] | None]:
    """The sample's gold as a resolution, and what identifies that version of it (id, time)."""
    g = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
    if g is None:
        return None, None
    return stored_gold(g).resolution(smp.n_tokens), (g.id, g.decided_at)


def _window_results(s: Session, project_id: int, user_id: int) -> list[bool]:
    """The user's judged checks since their last lift, oldest first (passed or not)."""
    lifted = s.scalar(select(func.max(GoldCheckPause.lifted_at)).where(
        GoldCheckPause.project_id == project_id, GoldCheckPause.user_id == user_id))
    stmt = (select(GoldCheck.passed).where(GoldCheck.project_id == project_id,
                                           GoldCheck.user_id == user_id, GoldCheck.passed.is_not(None))
            .order_by(GoldCheck.scored_at, GoldCheck.id))
    if lifted is not None:
        stmt = stmt.where(GoldCheck.scored_at > lifted)
    return [bool(p) for p in s.scalars(stmt)]


@dataclass(frozen=True)
class PreparedCheck:
    """A gold check's score against gold, computed by :func:`prepare_check` before the submit's
    write, with the version of the gold it was scored against."""

    sample: Sample
    settings: ProjectSettings
    gold_key: tuple[Any, ...] | None
    scores: CheckScores | None  # None: the sample has no gold

    def apply(self, s: Session, a: Annotation) -> GoldCheck:
        """Store the score and pause the annotator when the rule says so (module docstring);
        :class:`ChangedMeanwhile` when the gold changed since it was scored against."""
        key = s.execute(select(GoldAnnotation.id, GoldAnnotation.decided_at)
                        .where(GoldAnnotation.sample_id == self.sample.id)).first()
        if (None if key is None else tuple(key)) != self.gold_key:
            raise ChangedMeanwhile("the gold of the check changed since it was scored against")
        return record_check_submission(s, a, self.sample, self.settings, self.scores)


def prepare_check(s: Session, a: Annotation, smp: Sample, settings: ProjectSettings,
                  work: AnnotationContent) -> PreparedCheck:
    """Score a gold check's content against the sample's gold (read now; no lock held)."""
    gold, key = _gold_of(s, smp)
    scores = None
    if gold is not None:
        scores = score_check(gold, work.boundaries, work.segment_axes,
                             (work.xi, work.omega, work.alpha))
    return PreparedCheck(smp, settings, key, scores)


def record_check_submission(s: Session, a: Annotation, smp: Sample, settings: ProjectSettings,
                            scores: CheckScores | None) -> GoldCheck:
    """A gold check was just submitted: store its ``scores`` against gold (None: the sample has
    no gold), and pause the annotator when the rule says so (module docstring)."""
    thresholds = CheckThresholds.of(settings)
    row = GoldCheck(project_id=smp.project_id, user_id=a.annotator_id, sample_id=smp.id,
                    annotation_id=a.id, scored_at=utcnow())
    flagged = bool(a.flags)
    if scores is not None:
        row.w1, row.jaccard, row.pk = scores.w1, scores.jaccard, scores.pk
        # a flagged check is kept unjudged: the lead reads the flag and note, the window skips it
        row.passed = None if flagged else check_passes(scores, thresholds)
    s.add(row)
    s.flush()
    audit.record(s, None, "gold_check_scored", "annotation", a.id, project=smp.project_id,
                 user=a.annotator_id, sample=smp.external_id, w1=row.w1, jaccard=row.jaccard,
                 pk=row.pk, passed=row.passed, flags=list(a.flags or ()))
    if row.passed is not None and not is_paused(s, smp.project_id, a.annotator_id):
        results = _window_results(s, smp.project_id, a.annotator_id)
        if pause_due(results, thresholds.window, thresholds.min_pass):
            share = window_share(results, thresholds.window)
            figures = {"window": thresholds.window, "passed": sum(results[-thresholds.window:]),
                       "share": share, "min_pass": thresholds.min_pass}
            released, kept = release_empty_drafts(s, smp.project_id, a.annotator_id)
            figures |= {"released_drafts": released, "kept_drafts": kept}
            pause = GoldCheckPause(project_id=smp.project_id, user_id=a.annotator_id,
                                   paused_at=utcnow(), figures=figures, lift_note="")
            s.add(pause)
            s.flush()
            audit.record(s, None, "gold_check_pause", "gold_check_pause", pause.id,
                         project=smp.project_id, user=a.annotator_id, **figures)
    return row


def _has_work(a: Annotation) -> bool:
    """Whether a draft holds anything the annotator typed (or a lead's send-back)."""
    work = annotation_content(a)
    return bool(a.step or a.returned_note or work.points or work.flags or work.note.strip()
                or work.xi is not None or any(work.boundaries)
                or any(x is not None for x in work.segment_axes))


def release_empty_drafts(s: Session, project_id: int, user_id: int) -> tuple[int, int]:
    """At a pause: give back the slots of the user's open production drafts that hold no work
    (delete draft and assignment, ``n_assigned - 1``); keep every draft with work, and its slot.
    Returns (released, kept)."""
    rows = s.execute(
        select(Annotation, Sample).join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Annotation.status == "draft",
               Annotation.submitted_at.is_(None), Annotation.is_gold_check == false(),
               Sample.project_id == project_id, Sample.is_warmup == false())
        .order_by(Annotation.id).with_for_update(of=Annotation)).all()
    released = kept = 0
    for draft, smp in rows:
        if _has_work(draft):
            kept += 1
            continue
        s.execute(delete(Assignment).where(Assignment.sample_id == smp.id, Assignment.user_id == user_id))
        s.delete(draft)
        s.execute(update(Sample).where(Sample.id == smp.id, Sample.n_assigned > 0)
                  .values(n_assigned=Sample.n_assigned - 1))
        audit.record(s, None, "release_slot", "sample", smp.id, project=project_id, user=user_id,
                     reason="gold_check_pause", annotation=draft.id)
        released += 1
    s.flush()
    return released, kept


# --- the lead's side ------------------------------------------------------------------------------

@dataclass(frozen=True)
class CheckRow:
    """One scored check, for the accuracy trend; ``flags`` and ``note``: what the annotator
    flagged it with (a flagged check is unjudged, ``passed`` None)."""

    user_id: int
    annotator: str
    external_id: str
    scored_at: datetime
    w1: float | None
    jaccard: float | None
    pk: float | None
    passed: bool | None
    flags: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class PauseRow:
    pause_id: int
    user_id: int
    annotator: str
    paused_at: datetime
    figures: dict[str, Any]


@dataclass(frozen=True)
class AnnotatorChecks:
    """One annotator's standing: checks in all, judged since the last lift, the window's pass
    share (None until a full window), and their open pause (None: not paused)."""

    user_id: int
    annotator: str
    n_checks: int
    n_since_lift: int
    window_share: float | None
    pause: PauseRow | None


@dataclass(frozen=True)
class GoldCheckOverview:
    share: float
    thresholds: CheckThresholds
    checks: tuple[CheckRow, ...]  # oldest first
    annotators: tuple[AnnotatorChecks, ...]
    lifts: dict[int, tuple[datetime, ...]] = field(default_factory=dict)  # user id -> lift times

    @property
    def pauses(self) -> tuple[PauseRow, ...]:
        return tuple(a.pause for a in self.annotators if a.pause is not None)


@checks_numbers
def gold_check_overview(db: Database, actor: Actor, project_id: int) -> GoldCheckOverview:
    """Lead: every scored check of the project, each annotator's window and the open pauses."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        settings = project_settings(s, project_id)
        thresholds = CheckThresholds.of(settings)
        checks = tuple(CheckRow(user_id=g.user_id, annotator=name, external_id=ext, scored_at=g.scored_at,
                                w1=g.w1, jaccard=g.jaccard, pk=g.pk, passed=g.passed,
                                flags=tuple(flags or ()), note=note or "")
                       for g, name, ext, flags, note in s.execute(
            select(GoldCheck, User.username, Sample.external_id, Annotation.flags, Annotation.note)
            .join(User, User.id == GoldCheck.user_id).join(Sample, Sample.id == GoldCheck.sample_id)
            .join(Annotation, Annotation.id == GoldCheck.annotation_id)
            .where(GoldCheck.project_id == project_id).order_by(GoldCheck.scored_at, GoldCheck.id)))
        pauses = {p.user_id: PauseRow(pause_id=p.id, user_id=p.user_id, annotator=name, paused_at=p.paused_at,
                                      figures=dict(p.figures or {}))
                  for p, name in s.execute(
            select(GoldCheckPause, User.username).join(User, User.id == GoldCheckPause.user_id)
            .where(GoldCheckPause.project_id == project_id, GoldCheckPause.lifted_at.is_(None))
            .order_by(GoldCheckPause.id))}
        names = {c.user_id: c.annotator for c in checks} | {u: p.annotator for u, p in pauses.items()}
        people = []
        for uid in sorted(names, key=lambda u: names[u].lower()):
            results = _window_results(s, project_id, uid)
            people.append(AnnotatorChecks(uid, names[uid], sum(1 for c in checks if c.user_id == uid),
                                          len(results), window_share(results, thresholds.window),
                                          pauses.get(uid)))
        lifts: dict[int, tuple[datetime, ...]] = {}
        for uid, lifted_at in s.execute(
                select(GoldCheckPause.user_id, GoldCheckPause.lifted_at)
                .where(GoldCheckPause.project_id == project_id, GoldCheckPause.lifted_at.is_not(None))
                .order_by(GoldCheckPause.lifted_at)):
            lifts[uid] = lifts.get(uid, ()) + (lifted_at,)
    return GoldCheckOverview(settings.gold_check_share, thresholds, checks, tuple(people), lifts)


@checks_numbers
def paused_annotators(db: Database, actor: Actor, project_id: int) -> tuple[str, ...]:
    """Lead: the usernames of the project's annotators paused by gold checks now (the notice
    every back-office page shows, so the lead is told wherever they are)."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        return tuple(s.scalars(
            select(User.username).join(GoldCheckPause, GoldCheckPause.user_id == User.id)
            .where(GoldCheckPause.project_id == project_id, GoldCheckPause.lifted_at.is_(None))
            .order_by(User.username)))


@checks_numbers
def lift_pause(db: Database, actor: Actor, pause_id: int, note: str) -> None:
    """Lead: lift a pause, saying why. The annotator's window restarts after the lift."""
    note = check_chars((note or "").strip(), NOTE_MAX_CHARS, "note")
    with db.write() as s:
        authorize(s, actor, Policy.PAUSE_LIFT)
        pause = s.scalar(select(GoldCheckPause).where(GoldCheckPause.id == pause_id).with_for_update())
        if pause is None:
            raise NotFound("No such pause.")
        project_row(s, pause.project_id)
        if pause.lifted_at is not None:
            who = s.scalar(select(User.username).where(User.id == pause.lifted_by)) or "a lead"
            raise StaleVersion(f"This pause was already lifted by {who} at "
                               f"{pause.lifted_at:%Y-%m-%d %H:%M} UTC; nothing was changed.")
        if not note:
            raise InvalidInput("Say why the pause is lifted (a note for the record).")
        pause.lifted_at, pause.lifted_by, pause.lift_note = utcnow(), actor.user_id, note
        audit.record(s, actor.user_id, "gold_check_lift", "gold_check_pause", pause.id,
                     project=pause.project_id, user=pause.user_id, note=note)


__all__ = [
    "PAUSED_MESSAGE",
    "AnnotatorChecks",
    "CheckRow",
    "GoldCheckOverview",
    "PauseRow",
    "check_due",
    "gold_check_overview",
    "is_paused",
    "lift_pause",
    "paused_annotators",
    "paused_query",
    "record_check_submission",
    "release_empty_drafts",
]
