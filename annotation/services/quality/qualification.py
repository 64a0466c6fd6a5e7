"""Qualification (SPEC section 5): the lead's board of everyone's standing in a project, the
lead's decisions (admit, revoke, re-check) and the annotator's view of their own standing.

The rules — who must do the warm-up, the figures against gold, automatic admission — are
:mod:`annotation.services.quality.admission`; the warm-up set and its gold are
:mod:`annotation.services.review.warmup_set`. A lead may **admit** anyone or **revoke** an admission,
with a note (an override); the rule then leaves that person's status alone until they submit
another warm-up annotation. Every decision is in the audit log (entity ``qualification``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from sqlalchemy import func, select, true
from sqlalchemy.orm import Session

from annotation.agreement import Verdict, verdicts_summary
from annotation.quality.qualification import QualificationFigures, Thresholds, figure_verdicts
from annotation.services import audit
from annotation.services.quality.admission import (
    ADMITTED,
    WARMUP,
    ensure_qualification,
    figures_by_user,
    recheck_all,
    store_figures,
    warmup_route,
)
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.text_limits import check_chars
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.lookup import project_row, project_settings
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import AuditEvent, Qualification, Sample, User, utcnow

#: Standing labels (:attr:`QualificationRow.standing`).
NOT_STARTED = "not started"
IN_WARMUP = "in warm-up"
PASSED = "admitted (passed)"
ADMITTED_BY_LEAD = "admitted by a lead"
REVOKED = "revoked by a lead"
IMPLICIT = "admitted (no warm-up set)"


# --- the lead's board and decisions ------------------------------------------------------------------

@dataclass(frozen=True)
class QualificationRow:
    """One person's standing: status, figures against gold (live) with their verdicts (the
    same :func:`~annotation.quality.qualification.figure_verdicts` the admission rule applies), the
    last decision."""

    user_id: int
    username: str
    display_name: str
    role: str
    standing: str  # one of the standing labels above
    figures: QualificationFigures
    verdicts: dict[str, Verdict]
    decided_by: str
    decided_at: datetime | None
    note: str

    @property
    def checks(self) -> dict[str, bool]:
        """Whether each figure passes (an undefined one does not)."""
        return {name: v.passes is True for name, v in self.verdicts.items()}

    @property
    def admitted(self) -> bool:
        return self.standing in (PASSED, ADMITTED_BY_LEAD, IMPLICIT)

    @property
    def passes(self) -> bool:
        return all(self.checks.values())

    @property
    def overridden(self) -> bool:
        """A lead's decision, not the rule's, set the standing."""
        return self.standing in (ADMITTED_BY_LEAD, REVOKED)

    @property
    def standing_text(self) -> str:
        """The standing in words, naming the lead of an override: "admitted by lea (override)"."""
        if self.overridden and self.decided_by:
            verb = "admitted" if self.standing == ADMITTED_BY_LEAD else "revoked"
            return f"{verb} by {self.decided_by} (override)"
        return self.standing

    @property
    def figures_text(self) -> str:
        """The figures' verdicts in one table cell: "✓ all pass", "✗ Pk · — ICC", and for a
        person a lead admitted whatever the figures, that this is an override."""
        summary = verdicts_summary(self.verdicts)
        if self.standing == ADMITTED_BY_LEAD and not self.passes:
            return f"{summary} (admitted by {self.decided_by or 'a lead'}, override)"
        return summary


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


@checks_numbers
def qualification_board(db: Database, actor: Actor, project_id: int) -> QualificationBoard:
    """Lead: every active annotator, and anyone else with a qualification row, with live figures
    against gold, progress and standing."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALIFICATION_DECIDE)
        settings = project_settings(s, project_id)
        quals = {q.user_id: q for q in s.scalars(select(Qualification).where(Qualification.project_id == project_id))}
        users = list(s.scalars(select(User).where(
            (User.id.in_(list(quals))) | ((User.role == "annotator") & (User.is_active == true())))
            .order_by(User.username)))
        n_total, by_user = figures_by_user(s, project_id, [u.id for u in users])
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
            figures, figure_verdicts(figures, thresholds), _decider(q, deciders),
            q.decided_at if q else None, notes.get(q.id, "") if q else ""))
    return QualificationBoard(thresholds, n_total, n_marked, tuple(rows))


def _decide(db: Database, actor: Actor, project_id: int, user_id: int, note: str, admit: bool) -> str:
    note = check_chars((note or "").strip(), NOTE_MAX_CHARS, "note")
    if not note:
        raise InvalidInput("Say why in the note: it is kept with the decision.")
    with db.write() as s:
        authorize(s, actor, Policy.QUALIFICATION_DECIDE)
        project_row(s, project_id)
        target = s.get(User, user_id)
        if target is None:
            raise NotFound("No such user.")
        row = ensure_qualification(s, project_id, user_id)
        if admit and row.status == ADMITTED:
            raise InvalidInput(f"{target.username} is already admitted.")
        if not admit and row.status != ADMITTED:
            raise InvalidInput(f"{target.username} is not admitted; there is nothing to revoke.")
        store_figures(s, row)  # the figures at the time of the decision, kept with it
        row.status = ADMITTED if admit else WARMUP
        row.overridden, row.decided_by, row.decided_at = True, actor.user_id, utcnow()
        action = "qualification_admit" if admit else "qualification_revoke"
        audit.record(s, actor.user_id, action, "qualification", row.id, project=project_id,
                     user=user_id, username=target.username, note=note, figures=row.figures)
        return row.status


@checks_numbers
def admit(db: Database, actor: Actor, project_id: int, user_id: int, note: str) -> str:
    """Lead: admit a person to production whatever their figures (an override, with a note)."""
    return _decide(db, actor, project_id, user_id, note, admit=True)


@checks_numbers
def revoke(db: Database, actor: Actor, project_id: int, user_id: int, note: str) -> str:
    """Lead: send an admitted person back to warm-up (an override, with a note)."""
    return _decide(db, actor, project_id, user_id, note, admit=False)


@checks_numbers
def recheck(db: Database, actor: Actor, project_id: int) -> int:
    """Lead: refresh everyone's figures and apply the admission rule with the current thresholds
    (e.g. after changing them). Returns the number of qualification rows checked."""
    with db.write() as s:
        authorize(s, actor, Policy.QUALIFICATION_DECIDE)
        n = recheck_all(s, project_id)
        audit.record(s, actor.user_id, "qualification_recheck", "project", project_id, rows=n)
        return n


@checks_numbers
def decision_history(db: Database, actor: Actor, project_id: int, user_id: int) -> list[dict]:
    """Lead: the qualification decisions about one person in a project, oldest first."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALIFICATION_DECIDE)
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
    verdicts: dict[str, Verdict]
    thresholds: Thresholds

    @property
    def checks(self) -> dict[str, bool]:
        """Whether each figure passes (an undefined one does not)."""
        return {name: v.passes is True for name, v in self.verdicts.items()}

    @property
    def remaining(self) -> int:
        return max(0, self.n_total - self.n_done)


@checks_numbers
def my_qualification(db: Database, actor: Actor, project_id: int) -> MyQualification:
    """The acting user's warm-up progress and figures against gold (their own only)."""
    with db.read() as s:
        authorize(s, actor, Policy.OWN_FEEDBACK)
        settings = project_settings(s, project_id)
        route = warmup_route(s, project_id, actor.user_id)
        row = s.scalar(select(Qualification).where(Qualification.project_id == project_id,
                                                   Qualification.user_id == actor.user_id))
        n_total, by_user = figures_by_user(s, project_id, [actor.user_id])
    thresholds = Thresholds.of(settings)
    figures = by_user[actor.user_id]
    return MyQualification(bool(route.sample_ids), route.in_warmup, _standing(row, n_total > 0),
                           figures.n_done, figures.n_total,  # their own total: less their checks
                           figures, figure_verdicts(figures, thresholds), thresholds)


__all__ = [
    "ADMITTED_BY_LEAD",
    "IMPLICIT",
    "IN_WARMUP",
    "NOT_STARTED",
    "PASSED",
    "REVOKED",
    "MyQualification",
    "QualificationBoard",
    "QualificationRow",
    "admit",
    "decision_history",
    "my_qualification",
    "qualification_board",
    "recheck",
    "revoke",
]
