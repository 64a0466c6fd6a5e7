"""Admission to production (SPEC section 5): who must do the warm-up first, where the queue
sends them, their figures against gold and the rule that admits them.

The warm-up set itself (which samples, their gold) is :mod:`annotation.services.review.warmup_set`;
the lead's board and decisions and the annotator's own view are
:mod:`annotation.services.quality.qualification`. The rules, as leads see them:

* **Who does it.** When the project has a warm-up set, every user who annotates — annotators,
  and leads and admins alike — is in warm-up until their :class:`~db.models.Qualification` says
  *admitted*. When the project has no warm-up set, everyone is admitted implicitly and the queue
  behaves exactly as without warm-up; annotators who worked before a set existed must then be
  admitted by a lead (or do the warm-up) once one is defined.
* **Routing** (:func:`warmup_route`, used by ``queue.next_item``). In warm-up: the annotator's open
  warm-up draft, else the oldest warm-up sample they have not had, regardless of k (everyone in
  warm-up annotates every warm-up sample); once all are submitted, nothing until admitted
  (a production draft started before the set existed waits). Admitted: production only, never
  a warm-up sample.
* **Figures** (:mod:`annotation.quality.qualification`): ICC(1,1) per parameter of annotator vs gold (the
  smallest of the three is compared), Jaccard of (token, axis) sets and Pk against gold, over the
  annotator's submitted warm-up annotations; shown to the annotator and to the lead.
* **Admission.** Automatic when the annotator has submitted the whole set and ICC >
  ``qualify_icc_min``, Jaccard > ``qualify_jaccard_min``, Pk < ``qualify_pk_max`` — checked at each
  warm-up submission and whenever a lead changes the set or its gold (:func:`recheck_all`). The
  rule only admits, it never revokes. A lead may **admit** anyone or **revoke** an admission, with a
  note (an override); the rule then leaves that person's status alone until they submit another
  warm-up annotation (a revoked annotator gets new warm-up samples when the lead adds some).
  Every decision — the rule's and the lead's — is in the audit log (entity ``qualification``).
* **Gold checks.** Admitted annotators get warm-up samples they never had as gold checks
  (:mod:`annotation.services.quality.gold_checks`); those annotations (``is_gold_check``) are not
  warm-up work and never enter these figures.
* **Isolation.** Warm-up samples never count towards k and never enter production agreement,
  automatic flags, the review queue, the parameter spread or gold resolution (the services
  filter ``Sample.is_warmup``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from sqlalchemy import false, select, true
from sqlalchemy.orm import Session

from annotation.quality.qualification import (
    QualificationFigures,
    Thresholds,
    WarmupAttempt,
    meets_thresholds,
    qualification_figures,
)
from annotation.review.resolution import Resolution
from annotation.content import AnnotationContent
from annotation.services import audit
from annotation.services.errors import ChangedMeanwhile
from annotation.services.lookup import project_settings
from annotation.services.rows import stored_gold
from annotation.settings import ProjectSettings
from db.models import (
    Annotation,
    Assignment,
    GoldAnnotation,
    Qualification,
    Sample,
    utcnow,
)

ADMITTED, WARMUP = "admitted", "warmup"


# --- routing (inside the queue's transaction) ----------------------------------------------------

@dataclass(frozen=True)
class WarmupRoute:
    """Where the queue sends one user in one project.

    ``marked``: the project has active samples marked warm-up (production must skip them);
    ``sample_ids``: the warm-up set (marked, active, with gold), oldest first;
    ``in_warmup``: the user gets warm-up samples only.
    """

    marked: bool
    sample_ids: tuple[int, ...]
    in_warmup: bool


def _warmup_rows(s: Session, project_id: int) -> list[tuple[int, int | None]]:
    # (project_id, is_warmup) is indexed (ix_samples_warmup): this stays a few index entries on
    # a project of 100k samples; "= true" rather than "IS true", which PostgreSQL cannot index.
    return list(s.execute(
        select(Sample.id, GoldAnnotation.id)
        .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
        .order_by(Sample.id)).all())


def warmup_route(s: Session, project_id: int, user_id: int) -> WarmupRoute:
    """The user's route in the project (see module docstring); two indexed look-ups."""
    rows = _warmup_rows(s, project_id)
    ids = tuple(sid for sid, gold_id in rows if gold_id is not None)
    if not ids:
        return WarmupRoute(bool(rows), (), False)
    status = s.scalar(select(Qualification.status).where(Qualification.project_id == project_id,
                                                         Qualification.user_id == user_id))
    return WarmupRoute(True, ids, status != ADMITTED)


def warmup_candidates(s: Session, route: WarmupRoute, user_id: int) -> list[int]:
    """Warm-up samples of ``route`` not yet handed to the user, oldest first."""
    if not route.sample_ids:
        return []
    had = set(s.scalars(select(Assignment.sample_id).where(Assignment.user_id == user_id,
                                                           Assignment.sample_id.in_(route.sample_ids))))
    return [sid for sid in route.sample_ids if sid not in had]


def ensure_qualification(s: Session, project_id: int, user_id: int) -> Qualification:
    """The user's qualification row in the project, created in warm-up when missing."""
    row = s.scalar(select(Qualification).where(Qualification.project_id == project_id,
                                               Qualification.user_id == user_id))
    if row is None:
        row = Qualification(project_id=project_id, user_id=user_id, status=WARMUP, figures={},
                            overridden=False)
        s.add(row)
        s.flush()
    return row


def _warmup_key(s: Session, project_id: int, user_id: int, own_id: int) -> tuple[Any, ...]:
    """What a user's warm-up figures are computed from, in three light reads: the set's gold
    versions (sample, gold id, decided at), the user's other submitted warm-up annotations and
    the samples they had as gold checks."""
    golds = tuple(tuple(r) for r in s.execute(
        select(Sample.id, GoldAnnotation.id, GoldAnnotation.decided_at)
        .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
        .order_by(Sample.id)))
    mine = tuple(tuple(r) for r in s.execute(
        select(Annotation.id, Annotation.is_gold_check).join(Sample, Sample.id == Annotation.sample_id)
        .where(Annotation.annotator_id == user_id, Sample.project_id == project_id,
               Sample.is_warmup == true(), Annotation.id != own_id,
               (Annotation.status == "submitted") | (Annotation.is_gold_check == true()))
        .order_by(Annotation.id)))
    return golds, mine


@dataclass(frozen=True)
class PreparedWarmup:
    """A warm-up submit's new figures against gold, computed by :func:`prepare_warmup` before
    the write, with what they were computed from."""

    sample: Sample
    user_id: int
    key: tuple[Any, ...]
    figures: QualificationFigures

    def apply(self, s: Session, a: Annotation) -> str:
        """Store the figures and admit the annotator if the rule says so; returns their status.
        :class:`ChangedMeanwhile` when the set, its gold or the user's warm-up work changed."""
        if _warmup_key(s, self.sample.project_id, self.user_id, a.id) != self.key:
            raise ChangedMeanwhile("the warm-up set or its gold changed since the figures were computed")
        row = ensure_qualification(s, self.sample.project_id, self.user_id)
        _evaluate(s, project_settings(s, self.sample.project_id), row, by_submission=True,
                  figures=self.figures)
        return row.status


def prepare_warmup(s: Session, smp: Sample, user_id: int, annotation_id: int,
                   work: AnnotationContent) -> PreparedWarmup:
    """The user's warm-up figures once ``work`` is submitted as the annotation
    ``annotation_id`` of the warm-up sample ``smp`` (read now, computed now: no lock held)."""
    key = _warmup_key(s, smp.project_id, user_id, annotation_id)  # first: see PreparedWarmup
    _, by_user = figures_by_user(s, smp.project_id, [user_id],
                                 pending=(user_id, annotation_id, smp.id, work))
    return PreparedWarmup(smp, user_id, key, by_user[user_id])


# --- figures ---------------------------------------------------------------------------------------



def _gold_resolution(g: GoldAnnotation, n_tokens: int) -> Resolution:
    return stored_gold(g).resolution(n_tokens)


def figures_by_user(s: Session, project_id: int, user_ids: Iterable[int] | None = None, *,
                    pending: tuple[int, int, int, AnnotationContent] | None = None,
                    ) -> tuple[int, dict[int, QualificationFigures]]:
    """(size of the warm-up set, figures of every user with a submitted warm-up annotation —
    or of ``user_ids``, with empty figures for those without). Each user's figures count their
    own total: the set less the samples they had as gold checks. ``pending`` (user id,
    annotation id, sample id, content): an annotation about to be submitted, counted as if it
    were (the figures a submit will store, computed before its write)."""
    golds = {smp.id: (smp.external_id, _gold_resolution(g, smp.n_tokens)) for smp, g in s.execute(
        select(Sample, GoldAnnotation).join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
        .order_by(Sample.id))}
    wanted = None if user_ids is None else set(user_ids)
    attempts: dict[int, list[WarmupAttempt]] = {uid: [] for uid in wanted or ()}
    checks: dict[int, set[int]] = {}
    if golds:
        # A warm-up sample a user had as a gold check is never offered to them as warm-up
        # (warmup_candidates skips samples handed out), so it leaves their own total: a revoked
        # annotator who does every warm-up sample offered completes the set.
        used = (select(Annotation.annotator_id, Annotation.sample_id)
                .where(Annotation.sample_id.in_(list(golds)), Annotation.is_gold_check == true()))
        if wanted is not None:
            used = used.where(Annotation.annotator_id.in_(wanted))
        for uid, sid in s.execute(used):
            checks.setdefault(uid, set()).add(sid)
        stmt = (select(Annotation.annotator_id, Annotation.sample_id, Annotation.boundaries,
                       Annotation.segment_axes, Annotation.xi, Annotation.omega, Annotation.alpha)
                .where(Annotation.sample_id.in_(list(golds)), Annotation.status == "submitted",
                       Annotation.is_gold_check == false())  # checks are scored on their own
                .order_by(Annotation.sample_id, Annotation.id))
        if wanted is not None:
            stmt = stmt.where(Annotation.annotator_id.in_(wanted))
        rows = [tuple(r) for r in s.execute(stmt)]
        if pending is not None and pending[2] in golds:
            uid, aid, sid, c = pending
            rows = [r for r in rows if r[:2] != (uid, sid)]
            rows.append((uid, sid, c.boundaries, c.segment_axes, c.xi, c.omega, c.alpha))
            rows.sort(key=lambda r: r[1])  # sample order, as the query gives them
        for uid, sid, boundaries, axes, xi, omega, alpha in rows:
            external_id, gold = golds[sid]
            attempts.setdefault(uid, []).append(WarmupAttempt(
                external_id, gold, tuple(boundaries or (0,)), tuple(axes or (None,)), xi, omega, alpha))
    return len(golds), {uid: qualification_figures(a, len(golds) - len(checks.get(uid, ())))
                        for uid, a in attempts.items()}


def store_figures(s: Session, row: Qualification,
                  figures: QualificationFigures | None = None) -> QualificationFigures:
    """Keep the row's figures against gold (``figures``, else computed now), with the time."""
    if figures is None:
        _, by_user = figures_by_user(s, row.project_id, [row.user_id])
        figures = by_user[row.user_id]
    row.figures = {**figures.to_json(), "evaluated_at": utcnow().isoformat()}
    return figures


def _evaluate(s: Session, settings: ProjectSettings, row: Qualification, *,
              by_submission: bool = False, figures: QualificationFigures | None = None) -> None:
    """Store the row's current figures; admit by the rule when it applies (module docstring)."""
    figures = store_figures(s, row, figures)
    now = utcnow()
    if row.status != WARMUP:
        return
    if by_submission:
        row.overridden = False  # new warm-up work hands the decision back to the rule
    if not row.overridden and meets_thresholds(figures, Thresholds.of(settings)):
        row.status, row.decided_by, row.decided_at = ADMITTED, None, now
        audit.record(s, None, "qualification_admit_rule", "qualification", row.id,
                     project=row.project_id, user=row.user_id, figures=row.figures)


def recheck_all(s: Session, project_id: int) -> int:
    """Re-evaluate every qualification row of the project (after the set or its gold changed)."""
    settings = project_settings(s, project_id)
    rows = list(s.scalars(select(Qualification).where(Qualification.project_id == project_id)
                          .order_by(Qualification.id)))
    if not rows:
        return 0
    _, by_user = figures_by_user(s, project_id, [r.user_id for r in rows])
    for row in rows:
        _evaluate(s, settings, row, figures=by_user[row.user_id])
    return len(rows)


__all__ = [
    "ADMITTED",
    "WARMUP",
    "WarmupRoute",
    "ensure_qualification",
    "figures_by_user",
    "recheck_all",
    "prepare_warmup",
    "store_figures",
    "warmup_candidates",
    "warmup_route",
]
