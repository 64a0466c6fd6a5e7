"""Warm-up and qualification (SPEC section 5): the warm-up set and its gold, who must do it
first, their figures against gold, and admission to production.

The rules, as leads see them:

* **The warm-up set** of a project is its active samples marked warm-up (``Sample.is_warmup``)
  that have a lead-made gold annotation (``GoldAnnotation.source == "warmup"``). A sample marked
  but without gold yet is held back from everyone: neither warm-up nor production. Only samples
  nobody has started can be marked (:func:`mark_warmup`, :func:`pick_warmup`).
* **Who does it.** When the project has a warm-up set, every user who annotates — annotators,
  and leads and admins alike — is in warm-up until their :class:`~db.models.Qualification` says
  *admitted*. When the project has no warm-up set, everyone is admitted implicitly and the queue
  behaves exactly as without this module; annotators who worked before a set existed must then be
  admitted by a lead (or do the warm-up) once one is defined.
* **Routing** (:func:`warmup_route`, used by ``queue.next_item``). In warm-up: the annotator's open
  warm-up draft, else the oldest warm-up sample they have not had, regardless of k (everyone in
  warm-up annotates every warm-up sample); once all are submitted, nothing until admitted
  (a production draft started before the set existed waits). Admitted: production only, never
  a warm-up sample.
* **Figures** (:mod:`annotation.qualification`): ICC(1,1) per parameter of annotator vs gold (the
  smallest of the three is compared), Jaccard of (token, axis) sets and Pk against gold, over the
  annotator's submitted warm-up annotations; shown to the annotator and to the lead.
* **Admission.** Automatic when the annotator has submitted the whole set and ICC >
  ``qualify_icc_min``, Jaccard > ``qualify_jaccard_min``, Pk < ``qualify_pk_max`` — checked at each
  warm-up submission and whenever a lead changes the set or its gold (:func:`recheck`). The rule
  only admits, it never revokes. A lead may **admit** anyone or **revoke** an admission, with a
  note (an override); the rule then leaves that person's status alone until they submit another
  warm-up annotation (a revoked annotator gets new warm-up samples when the lead adds some).
  Every decision — the rule's and the lead's — is in the audit log (entity ``qualification``).
* **Isolation.** Warm-up samples never count towards k and never enter production agreement,
  automatic flags, the review queue, the parameter spread or gold resolution (the services
  filter ``Sample.is_warmup``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from sqlalchemy import delete, false, func, select, true
from sqlalchemy.orm import Session

from annotation.axes import is_axis_name
from annotation.qualification import (
    QualificationFigures,
    Thresholds,
    WarmupAttempt,
    figure_checks,
    meets_thresholds,
    qualification_figures,
)
from annotation.resolution import EDITED, Resolution
from annotation.services import audit
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput, NotFound
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import (
    Annotation,
    Assignment,
    AuditEvent,
    GoldAnnotation,
    Project,
    Qualification,
    Sample,
    User,
    utcnow,
)

#: ``GoldAnnotation.source`` of a warm-up sample's lead-made gold.
WARMUP_SOURCE = "warmup"
ADMITTED, WARMUP = "admitted", "warmup"

#: Standing labels (:attr:`QualificationRow.standing`).
NOT_STARTED = "not started"
IN_WARMUP = "in warm-up"
PASSED = "admitted (passed)"
ADMITTED_BY_LEAD = "admitted by a lead"
REVOKED = "revoked by a lead"
IMPLICIT = "admitted (no warm-up set)"


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


def record_warmup_submission(s: Session, smp: Sample, user_id: int) -> str:
    """A warm-up annotation was just submitted: refresh the annotator's figures and admit them
    if the rule says so. Returns their status. Runs inside the submit transaction."""
    row = ensure_qualification(s, smp.project_id, user_id)
    _evaluate(s, _settings(s, smp.project_id), row, by_submission=True)
    return row.status


# --- figures ---------------------------------------------------------------------------------------

def _settings(s: Session, project_id: int) -> ProjectSettings:
    p = s.get(Project, project_id)
    if p is None:
        raise NotFound("No such project.")
    return ProjectSettings.from_dict(p.settings)


def _gold_resolution(g: GoldAnnotation, n_tokens: int) -> Resolution:
    return Resolution(tuple(g.boundaries), tuple(tuple(a) for a in g.segment_axes), g.xi, g.omega,
                      g.alpha, (), n_tokens, method=EDITED)


def _figures_by_user(s: Session, project_id: int,
                     user_ids: Iterable[int] | None = None) -> tuple[int, dict[int, QualificationFigures]]:
    """(size of the warm-up set, figures of every user with a submitted warm-up annotation —
    or of ``user_ids``, with empty figures for those without)."""
    golds = {smp.id: (smp.external_id, _gold_resolution(g, smp.n_tokens)) for smp, g in s.execute(
        select(Sample, GoldAnnotation).join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
        .order_by(Sample.id))}
    wanted = None if user_ids is None else set(user_ids)
    attempts: dict[int, list[WarmupAttempt]] = {uid: [] for uid in wanted or ()}
    if golds:
        stmt = (select(Annotation.annotator_id, Annotation.sample_id, Annotation.boundaries,
                       Annotation.segment_axes, Annotation.xi, Annotation.omega, Annotation.alpha)
                .where(Annotation.sample_id.in_(list(golds)), Annotation.status == "submitted")
                .order_by(Annotation.sample_id, Annotation.id))
        if wanted is not None:
            stmt = stmt.where(Annotation.annotator_id.in_(wanted))
        for uid, sid, boundaries, axes, xi, omega, alpha in s.execute(stmt):
            external_id, gold = golds[sid]
            attempts.setdefault(uid, []).append(WarmupAttempt(
                external_id, gold, tuple(boundaries or (0,)), tuple(axes or (None,)), xi, omega, alpha))
    return len(golds), {uid: qualification_figures(a, len(golds)) for uid, a in attempts.items()}


def _store_figures(s: Session, row: Qualification,
                   figures: QualificationFigures | None = None) -> QualificationFigures:
    if figures is None:
        _, by_user = _figures_by_user(s, row.project_id, [row.user_id])
        figures = by_user[row.user_id]
    row.figures = {**figures.to_json(), "evaluated_at": utcnow().isoformat()}
    return figures


def _evaluate(s: Session, settings: ProjectSettings, row: Qualification, *,
              by_submission: bool = False, figures: QualificationFigures | None = None) -> None:
    """Store the row's current figures; admit by the rule when it applies (module docstring)."""
    figures = _store_figures(s, row, figures)
    now = utcnow()
    if row.status != WARMUP:
        return
    if by_submission:
        row.overridden = False  # new warm-up work hands the decision back to the rule
    if not row.overridden and meets_thresholds(figures, Thresholds.of(settings)):
        row.status, row.decided_by, row.decided_at = ADMITTED, None, now
        audit.record(s, None, "qualification_admit_rule", "qualification", row.id,
                     project=row.project_id, user=row.user_id, figures=row.figures)


def _recheck(s: Session, project_id: int) -> int:
    """Re-evaluate every qualification row of the project (after the set or its gold changed)."""
    settings = _settings(s, project_id)
    rows = list(s.scalars(select(Qualification).where(Qualification.project_id == project_id)
                          .order_by(Qualification.id)))
    if not rows:
        return 0
    _, by_user = _figures_by_user(s, project_id, [r.user_id for r in rows])
    for row in rows:
        _evaluate(s, settings, row, figures=by_user[row.user_id])
    return len(rows)


def recheck(db: Database, actor: Actor, project_id: int) -> int:
    """Lead: refresh everyone's figures and apply the admission rule with the current thresholds
    (e.g. after changing them). Returns the number of qualification rows checked."""
    with db.write() as s:
        require_role(s, actor, "lead")
        n = _recheck(s, project_id)
        audit.record(s, actor.user_id, "qualification_recheck", "project", project_id, rows=n)
        return n


# --- the warm-up set -------------------------------------------------------------------------------

@dataclass(frozen=True)
class GoldValues:
    boundaries: tuple[int, ...]
    segment_axes: tuple[tuple[str, ...], ...]
    xi: float
    omega: float
    alpha: float
    decided_at: datetime
    decided_by: str
    note: str


@dataclass(frozen=True)
class WarmupSample:
    """One sample marked warm-up, with its gold (None until the lead gives it one)."""

    sample_id: int
    external_id: str
    benchmark: int
    parent_text: str
    n_tokens: int
    gold: GoldValues | None
    n_submitted: int
    n_drafts: int


def _project(s: Session, project_id: int) -> Project:
    p = s.get(Project, project_id)
    if p is None:
        raise NotFound("No such project.")
    return p


def warmup_samples(db: Database, actor: Actor, project_id: int) -> list[WarmupSample]:
    """Lead: the active samples marked warm-up, oldest first, with gold and progress counts."""
    with db.read() as s:
        require_role(s, actor, "lead")
        _project(s, project_id)
        rows = s.execute(
            select(Sample, GoldAnnotation, User.username)
            .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .outerjoin(User, User.id == GoldAnnotation.decided_by)
            .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
            .order_by(Sample.id)).all()
        counts: dict[tuple[int, str], int] = {}
        if rows:
            for sid, status, n in s.execute(
                    select(Annotation.sample_id, Annotation.status, func.count())
                    .where(Annotation.sample_id.in_([smp.id for smp, _, _ in rows]))
                    .group_by(Annotation.sample_id, Annotation.status)):
                counts[(sid, status)] = n
    out = []
    for smp, g, who in rows:
        gold = None
        if g is not None:
            gold = GoldValues(tuple(g.boundaries), tuple(tuple(a) for a in g.segment_axes), g.xi,
                              g.omega, g.alpha, g.decided_at, who or "", g.note or "")
        out.append(WarmupSample(smp.id, smp.external_id, smp.benchmark, smp.parent_text, smp.n_tokens,
                                gold, counts.get((smp.id, "submitted"), 0), counts.get((smp.id, "draft"), 0)))
    return out


def _samples_by_external_id(s: Session, project_id: int, external_ids: Sequence[str]) -> list[Sample]:
    wanted = list(dict.fromkeys(e.strip() for e in external_ids if e and e.strip()))
    if not wanted:
        raise InvalidInput("Name at least one sample id.")
    found = {smp.external_id: smp for smp in s.scalars(
        select(Sample).where(Sample.project_id == project_id, Sample.external_id.in_(wanted)))}
    missing = [e for e in wanted if e not in found]
    if missing:
        raise InvalidInput(f"No sample {', '.join(missing[:10])}{' …' if len(missing) > 10 else ''} "
                           "in this project; nothing was changed.")
    return [found[e] for e in wanted]


def _annotated_ids(s: Session, sample_ids: Sequence[int]) -> set[int]:
    if not sample_ids:
        return set()
    return set(s.scalars(select(Annotation.sample_id).where(Annotation.sample_id.in_(list(sample_ids)))
                         .distinct()))


def _mark(s: Session, actor: Actor, project_id: int, samples: Sequence[Sample], how: str) -> list[str]:
    started = _annotated_ids(s, [smp.id for smp in samples])
    refused = [smp.external_id for smp in samples
               if smp.status != "active" or smp.id in started or smp.n_assigned > 0]
    if refused:
        raise InvalidInput(
            f"{', '.join(refused[:10])}{' …' if len(refused) > 10 else ''}: only active samples that "
            "nobody has started can become warm-up samples; nothing was changed.")
    marked = []
    for smp in samples:
        if not smp.is_warmup:
            smp.is_warmup = True
            marked.append(smp.external_id)
    audit.record(s, actor.user_id, "warmup_mark", "project", project_id, how=how, samples=marked)
    return marked


def mark_warmup(db: Database, actor: Actor, project_id: int, external_ids: Sequence[str]) -> list[str]:
    """Lead: mark samples (by external id) as warm-up samples; returns the ids newly marked.

    All or nothing: an unknown id, a discarded sample, or one somebody has already started
    (assigned or annotated) refuses the whole request. They enter the warm-up set once they have
    gold (:func:`set_warmup_gold`).
    """
    with db.write() as s:
        require_role(s, actor, "lead")
        _project(s, project_id)
        return _mark(s, actor, project_id, _samples_by_external_id(s, project_id, external_ids), "ids")


def pick_warmup(db: Database, actor: Actor, project_id: int, n: int | None = None,
                seed: int | None = None) -> list[str]:
    """Lead: mark ``n`` random active samples that nobody has started as warm-up samples
    (default: enough to bring the marked set to ``settings.warmup_size``). Returns their ids.

    ``seed`` makes the choice reproducible.
    """
    with db.write() as s:
        require_role(s, actor, "lead")
        settings = ProjectSettings.from_dict(_project(s, project_id).settings)
        if n is None:
            marked = s.scalar(select(func.count()).select_from(Sample).where(
                Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")) or 0
            n = settings.warmup_size - marked
            if n <= 0:
                raise InvalidInput(f"The warm-up set already has {marked} samples "
                                   f"(the project's warm-up size is {settings.warmup_size}).")
        if n < 1:
            raise InvalidInput("Pick at least one sample.")
        pool = list(s.scalars(
            select(Sample.id).where(Sample.project_id == project_id, Sample.status == "active",
                                    Sample.is_warmup == false(), Sample.n_assigned == 0)
            .where(~select(Annotation.id).where(Annotation.sample_id == Sample.id).exists())
            .order_by(Sample.id)))
        if not pool:
            raise InvalidInput("No sample is left that nobody has started.")
        chosen = sorted(random.Random(seed).sample(pool, min(n, len(pool))))
        samples = list(s.scalars(select(Sample).where(Sample.id.in_(chosen)).order_by(Sample.id)))
        return _mark(s, actor, project_id, samples, "random")


@dataclass(frozen=True)
class UnmarkSummary:
    """``returned``: back in the production pool (nobody had started them);
    ``retired``: annotated in warm-up already, so withdrawn (discarded) instead."""

    returned: tuple[str, ...]
    retired: tuple[str, ...]


def unmark_warmup(db: Database, actor: Actor, project_id: int, external_ids: Sequence[str]) -> UnmarkSummary:
    """Lead: take samples out of the warm-up set.

    A sample nobody has started goes back to the production pool (its warm-up gold is deleted).
    One with warm-up annotations cannot join production (it has more annotators than k and
    annotators who saw it in warm-up): it is retired — discarded, gold and annotations kept for
    the record, and it no longer counts in anyone's figures. Figures and admissions are then
    re-checked.
    """
    with db.write() as s:
        require_role(s, actor, "lead")
        _project(s, project_id)
        samples = _samples_by_external_id(s, project_id, external_ids)
        not_warmup = [smp.external_id for smp in samples if not smp.is_warmup or smp.status != "active"]
        if not_warmup:
            raise InvalidInput(f"{', '.join(not_warmup[:10])}: not in the warm-up set; nothing was changed.")
        started = _annotated_ids(s, [smp.id for smp in samples])
        returned, retired = [], []
        for smp in samples:
            if smp.id in started or smp.n_assigned > 0:
                smp.status = "discarded"
                retired.append(smp.external_id)
            else:
                smp.is_warmup = False
                s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
                returned.append(smp.external_id)
        s.flush()
        audit.record(s, actor.user_id, "warmup_unmark", "project", project_id, returned=returned,
                     retired=retired)
        _recheck(s, project_id)
        return UnmarkSummary(tuple(returned), tuple(retired))


def _normalised_axes(segment_axes: Sequence) -> tuple[tuple[str, ...], ...]:
    out = []
    for axes in segment_axes:
        if axes is None:
            out.append(())
        elif isinstance(axes, str):
            out.append((axes,))
        else:
            out.append(tuple(axes))
    return tuple(out)


def set_warmup_gold(db: Database, actor: Actor, sample_id: int, resolution: Resolution | None = None, *,
                    boundaries: Sequence[int] | None = None, segment_axes: Sequence | None = None,
                    xi: float | None = None, omega: float | None = None, alpha: float | None = None,
                    note: str = "") -> GoldValues:
    """Lead: store the gold of a warm-up sample, from a :class:`Resolution` or from plain values
    (``segment_axes``: one axis name, or a list of axis names, per segment).

    Every segment needs at least one axis and the curve must be valid (ω > 0). The figures of
    everyone who annotated the sample are re-checked against the new gold.
    """
    with db.write() as s:
        require_role(s, actor, "lead")
        smp = s.get(Sample, sample_id)
        if smp is None:
            raise NotFound("No such sample.")
        if not smp.is_warmup or smp.status != "active":
            raise InvalidInput(f"{smp.external_id} is not in the warm-up set; mark it as a warm-up sample first.")
        if resolution is None:
            if boundaries is None or segment_axes is None:
                raise InvalidInput("Give the gold's boundaries and the axes of each segment.")
            try:
                resolution = Resolution(tuple(boundaries), _normalised_axes(segment_axes), xi, omega, alpha,
                                        (actor.username,), smp.n_tokens, method=EDITED)
            except (ValueError, TypeError) as exc:  # SegmentationError is a ValueError
                raise InvalidInput(f"Not stored: {exc}") from None
        if resolution.n_tokens != smp.n_tokens:
            raise InvalidInput("The gold does not fit this text (different number of tokens).")
        if any(not axes for axes in resolution.segment_axes):
            raise InvalidInput("Every segment of the gold needs at least one axis.")
        for a in (x for axes in resolution.segment_axes for x in axes):
            if not is_axis_name(a):
                raise InvalidInput(f"Unknown axis {a!r}.")
        params = (resolution.xi, resolution.omega, resolution.alpha)
        if None in params or not all(math.isfinite(float(p)) for p in params):  # type: ignore[arg-type]
            raise InvalidInput("The gold needs a curve: ξ, ω and α as numbers.")
        if not float(resolution.omega) > 0:  # type: ignore[arg-type]
            raise InvalidInput("The curve's width ω must be greater than zero.")
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
        if gold is None:
            gold = GoldAnnotation(sample_id=smp.id)
            s.add(gold)
        gold.boundaries = list(resolution.boundaries)
        gold.segment_axes = [list(axes) for axes in resolution.segment_axes]
        gold.xi, gold.omega, gold.alpha = (float(p) for p in params)  # type: ignore[arg-type]
        gold.source, gold.decided_by, gold.decided_at = WARMUP_SOURCE, actor.user_id, utcnow()
        gold.note, gold.source_annotation_id = (note or "").strip(), None
        s.flush()
        audit.record(s, actor.user_id, "warmup_gold", "sample", smp.id, sample=smp.external_id,
                     boundaries=gold.boundaries, segment_axes=gold.segment_axes,
                     xi=gold.xi, omega=gold.omega, alpha=gold.alpha, note=gold.note)
        _recheck(s, smp.project_id)
        return GoldValues(tuple(gold.boundaries), tuple(tuple(a) for a in gold.segment_axes), gold.xi,
                          gold.omega, gold.alpha, gold.decided_at, actor.username, gold.note)


# --- the lead's board and decisions ------------------------------------------------------------------

@dataclass(frozen=True)
class QualificationRow:
    """One person's standing: status, figures against gold (live), the last decision."""

    user_id: int
    username: str
    display_name: str
    role: str
    standing: str  # one of the standing labels above
    figures: QualificationFigures
    checks: dict[str, bool]
    decided_by: str
    decided_at: datetime | None
    note: str

    @property
    def admitted(self) -> bool:
        return self.standing in (PASSED, ADMITTED_BY_LEAD, IMPLICIT)

    @property
    def passes(self) -> bool:
        return all(self.checks.values())


@dataclass(frozen=True)
class QualificationBoard:
    """The lead's view: thresholds, the warm-up set's size and everyone's row."""

    thresholds: Thresholds
    n_total: int  # warm-up samples with gold (the set)
    n_marked: int  # marked warm-up samples, with or without gold
    rows: tuple[QualificationRow, ...]

    @property
    def has_set(self) -> bool:
        return self.n_total > 0


def _standing(row: Qualification | None, has_set: bool) -> str:
    if row is None:
        return NOT_STARTED if has_set else IMPLICIT
    if row.status == ADMITTED:
        return ADMITTED_BY_LEAD if row.overridden else PASSED
    if row.overridden:
        return REVOKED
    return IN_WARMUP if has_set else IMPLICIT


def _decider(row: Qualification | None, names: dict[int, str]) -> str:
    if row is None or row.decided_at is None:
        return ""
    return names.get(row.decided_by, "") if row.decided_by else "rule"


def _last_notes(s: Session, row_ids: Sequence[int]) -> dict[int, str]:
    notes: dict[int, str] = {}
    if not row_ids:
        return notes
    for entity_id, detail in s.execute(
            select(AuditEvent.entity_id, AuditEvent.detail)
            .where(AuditEvent.entity == "qualification",
                   AuditEvent.entity_id.in_([str(r) for r in row_ids]),
                   AuditEvent.action.in_(("qualification_admit", "qualification_revoke")))
            .order_by(AuditEvent.id)):
        notes[int(entity_id)] = (detail or {}).get("note", "")
    return notes


def qualification_board(db: Database, actor: Actor, project_id: int) -> QualificationBoard:
    """Lead: every active annotator, and anyone else with a qualification row, with live figures
    against gold, progress and standing."""
    with db.read() as s:
        require_role(s, actor, "lead")
        settings = ProjectSettings.from_dict(_project(s, project_id).settings)
        quals = {q.user_id: q for q in s.scalars(select(Qualification).where(Qualification.project_id == project_id))}
        users = list(s.scalars(select(User).where(
            (User.id.in_(list(quals))) | ((User.role == "annotator") & (User.is_active == true())))
            .order_by(User.username)))
        n_total, by_user = _figures_by_user(s, project_id, [u.id for u in users])
        n_marked = s.scalar(select(func.count()).select_from(Sample).where(
            Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")) or 0
        deciders = dict(s.execute(select(User.id, User.username).where(
            User.id.in_([q.decided_by for q in quals.values() if q.decided_by])
        )).all()) if quals else {}
        notes = _last_notes(s, [q.id for q in quals.values()])
    thresholds = Thresholds.of(settings)
    rows = []
    for u in users:
        q = quals.get(u.id)
        figures = by_user[u.id]
        rows.append(QualificationRow(
            u.id, u.username, u.display_name or u.username, u.role, _standing(q, n_total > 0),
            figures, figure_checks(figures, thresholds), _decider(q, deciders),
            q.decided_at if q else None, notes.get(q.id, "") if q else ""))
    return QualificationBoard(thresholds, n_total, n_marked, tuple(rows))


def _decide(db: Database, actor: Actor, project_id: int, user_id: int, note: str, admit: bool) -> str:
    note = (note or "").strip()
    if not note:
        raise InvalidInput("Say why in the note: it is kept with the decision.")
    with db.write() as s:
        require_role(s, actor, "lead")
        _project(s, project_id)
        target = s.get(User, user_id)
        if target is None:
            raise NotFound("No such user.")
        row = ensure_qualification(s, project_id, user_id)
        if admit and row.status == ADMITTED:
            raise InvalidInput(f"{target.username} is already admitted.")
        if not admit and row.status != ADMITTED:
            raise InvalidInput(f"{target.username} is not admitted; there is nothing to revoke.")
        _store_figures(s, row)  # the figures at the time of the decision, kept with it
        row.status = ADMITTED if admit else WARMUP
        row.overridden, row.decided_by, row.decided_at = True, actor.user_id, utcnow()
        action = "qualification_admit" if admit else "qualification_revoke"
        audit.record(s, actor.user_id, action, "qualification", row.id, project=project_id,
                     user=user_id, username=target.username, note=note, figures=row.figures)
        return row.status


def admit(db: Database, actor: Actor, project_id: int, user_id: int, note: str) -> str:
    """Lead: admit a person to production whatever their figures (an override, with a note)."""
    return _decide(db, actor, project_id, user_id, note, admit=True)


def revoke(db: Database, actor: Actor, project_id: int, user_id: int, note: str) -> str:
    """Lead: send an admitted person back to warm-up (an override, with a note)."""
    return _decide(db, actor, project_id, user_id, note, admit=False)


def decision_history(db: Database, actor: Actor, project_id: int, user_id: int) -> list[dict]:
    """Lead: the qualification decisions about one person in a project, oldest first."""
    with db.read() as s:
        require_role(s, actor, "lead")
        row = s.scalar(select(Qualification).where(Qualification.project_id == project_id,
                                                   Qualification.user_id == user_id))
        if row is None:
            return []
        events = audit.history(s, "qualification", row.id)
        names = dict(s.execute(select(User.id, User.username).where(
            User.id.in_([e.actor_id for e in events if e.actor_id]))).all()) if events else {}
        return [{"at": e.at, "who": names.get(e.actor_id, "rule") if e.actor_id else "rule",
                 "what": e.action, "note": (e.detail or {}).get("note", ""),
                 "figures": (e.detail or {}).get("figures", {})} for e in events]


# --- the annotator's own view --------------------------------------------------------------------------

@dataclass(frozen=True)
class MyQualification:
    """What the annotator sees of their own standing in a project."""

    has_set: bool
    in_warmup: bool
    standing: str
    n_done: int
    n_total: int
    figures: QualificationFigures
    checks: dict[str, bool]
    thresholds: Thresholds

    @property
    def remaining(self) -> int:
        return max(0, self.n_total - self.n_done)


def my_qualification(db: Database, actor: Actor, project_id: int) -> MyQualification:
    """The acting user's warm-up progress and figures against gold (their own only)."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        settings = ProjectSettings.from_dict(_project(s, project_id).settings)
        route = warmup_route(s, project_id, actor.user_id)
        row = s.scalar(select(Qualification).where(Qualification.project_id == project_id,
                                                   Qualification.user_id == actor.user_id))
        n_total, by_user = _figures_by_user(s, project_id, [actor.user_id])
    thresholds = Thresholds.of(settings)
    figures = by_user[actor.user_id]
    return MyQualification(bool(route.sample_ids), route.in_warmup, _standing(row, n_total > 0),
                           figures.n_done, n_total, figures, figure_checks(figures, thresholds), thresholds)


__all__ = [
    "ADMITTED_BY_LEAD",
    "IMPLICIT",
    "IN_WARMUP",
    "NOT_STARTED",
    "PASSED",
    "REVOKED",
    "WARMUP_SOURCE",
    "GoldValues",
    "MyQualification",
    "QualificationBoard",
    "QualificationRow",
    "UnmarkSummary",
    "WarmupRoute",
    "WarmupSample",
    "admit",
    "decision_history",
    "ensure_qualification",
    "mark_warmup",
    "my_qualification",
    "pick_warmup",
    "qualification_board",
    "recheck",
    "record_warmup_submission",
    "revoke",
    "set_warmup_gold",
    "unmark_warmup",
    "warmup_candidates",
    "warmup_route",
    "warmup_samples",
]
