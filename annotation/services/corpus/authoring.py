"""Authoring follow-ups in a context-pairs project, and how well each author's follow-ups do
what they meant (the domain is :mod:`annotation.pairs.authoring` and
:mod:`annotation.quality.author_validation`).

An authoring task is one target with a settled curve that the author has not written for yet,
the one with the fewest authored follow-ups first. Saving writes the three follow-ups as three
new pair samples of the project (a ``samples`` row whose ``parent_text`` is the target, and its
``sample_pairs`` row with the intent, the author and their curve), which the queue then hands
to *other* annotators (:mod:`annotation.services.workbench.hand_out_order` never hands an author a pair
they wrote; annotators' screens read :func:`annotation.services.protocols.sample_pairs.follow_ups_of`,
never the intent).

One authoring per author and target: a second save — a double click, another tab on the same
task — is refused with nothing written, so two tabs never make six samples. The write holds the
author's user row (PostgreSQL; SQLite's write lock does the same) while it checks and inserts.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.pairs.authoring import (
    Curve,
    FollowUpDraft,
    TargetGold,
    follow_up_problem,
    next_target,
    settled_curves,
)
from annotation.protocols import protocol_of
from annotation.quality.author_validation import AuthoredPair, AuthorValidation, author_validation
from annotation.segmentation import tokenize
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize, authorize_user
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_settings
from annotation.services.text_limits import require_fit
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import GoldAnnotation, Sample, SamplePair, User, utcnow

NOT_PAIRS = "Writing follow-ups belongs to context-pairs projects; this project has single texts."
ALREADY_WRITTEN = ("You have already written follow-ups for this target (perhaps in another tab); "
                   "nothing was saved again.")


@dataclass(frozen=True)
class AuthoringTask:
    """A target to write follow-ups for: its key, the sample whose gold is its settled curve,
    the target text, and the project's change threshold (a time factor)."""

    project_id: int
    target_key: str
    target_sample_id: int
    target_text: str
    benchmark: int
    settled_curve: Curve
    change_factor: float
    authored_so_far: int


def _pairs_settings(s: Session, project_id: int) -> ProjectSettings:
    settings = project_settings(s, project_id)
    if not protocol_of(settings).authored_samples:
        raise InvalidInput(NOT_PAIRS)
    return settings


def _target_golds(s: Session, project_id: int, target_key: str | None = None) -> list[TargetGold]:
    """Every gold of an active pair sample of the project (of one target with ``target_key``)."""
    stmt = (select(Sample.id, SamplePair.target_key, GoldAnnotation.decided_at, GoldAnnotation.xi,
                   GoldAnnotation.omega, GoldAnnotation.alpha)
            .join(SamplePair, SamplePair.sample_id == Sample.id)
            .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .where(Sample.project_id == project_id, Sample.status == "active"))
    if target_key is not None:
        stmt = stmt.where(SamplePair.target_key == target_key)
    return [TargetGold(i, key, at, (xi, omega, alpha)) for i, key, at, xi, omega, alpha in s.execute(stmt)]


def _authored(project_id: int):  # type: ignore[no-untyped-def]
    """The project's authored pairs (a select to narrow)."""
    return (select(SamplePair.target_key).join(Sample, Sample.id == SamplePair.sample_id)
            .where(Sample.project_id == project_id, SamplePair.authored_by.is_not(None)))


def _written_by(s: Session, project_id: int, user_id: int, target_key: str | None = None) -> set[str]:
    stmt = _authored(project_id).where(SamplePair.authored_by == user_id).distinct()
    if target_key is not None:
        stmt = stmt.where(SamplePair.target_key == target_key)
    return set(s.scalars(stmt))


def _task(s: Session, project_id: int, settings: ProjectSettings, gold: TargetGold) -> AuthoringTask:
    target = s.get(Sample, gold.sample_id)
    so_far = s.scalar(select(func.count()).select_from(_authored(project_id)
                                                        .where(SamplePair.target_key == gold.target_key)
                                                        .subquery())) or 0
    return AuthoringTask(project_id, gold.target_key, gold.sample_id, target.parent_text, target.benchmark,
                         gold.curve, settings.change_factor, int(so_far))


@checks_numbers
def authoring_task(db: Database, actor: Actor, project_id: int,
                   target_key: str | None = None) -> AuthoringTask | None:
    """The author's task: the target ``target_key`` (the one a page already shows) when it is
    settled and not written for by them yet, else — without a key — the settled target they have
    not written for with the fewest authored follow-ups; None when there is none."""
    def read(s: Session) -> AuthoringTask | None:
        authorize(s, actor, Policy.FOLLOW_UPS_WRITE)
        settings = _pairs_settings(s, project_id)
        settled = settled_curves(_target_golds(s, project_id, target_key))
        mine = _written_by(s, project_id, actor.user_id, target_key)
        if target_key is not None:
            gold = settled.get(target_key)
            return None if gold is None or target_key in mine else _task(s, project_id, settings, gold)
        counts = dict(s.execute(select(SamplePair.target_key, func.count())
                                .join(Sample, Sample.id == SamplePair.sample_id)
                                .where(Sample.project_id == project_id, SamplePair.authored_by.is_not(None))
                                .group_by(SamplePair.target_key)).all())
        gold = next_target(settled, counts, mine)
        return None if gold is None else _task(s, project_id, settings, gold)
    return db.run_read(read)


def new_external_id() -> str:
    """A new pair sample's id: random, so that nothing an annotator's screen might show of a
    sample says which intent, author or order it was written with (blind annotation)."""
    return require_fit(f"authored-{secrets.token_hex(8)}", Sample.external_id)


@checks_numbers
def save_follow_ups(db: Database, actor: Actor, project_id: int, target_key: str,
                    drafts: Sequence[FollowUpDraft]) -> list[int]:
    """Write the author's three follow-ups for ``target_key`` as three new pair samples; their
    sample ids, in the order of ``drafts``. Refused in one line, with nothing written: a user
    without the annotator role, a project that is not a pairs project, follow-ups that are not
    one per change (each with text and curve, no two the same), a target that is not settled,
    and a target the author has already written for (a double submit, a stale tab)."""
    problem = follow_up_problem(drafts)
    if problem:
        raise InvalidInput(problem)

    def read(s: Session) -> tuple[TargetGold, str, int]:
        authorize(s, actor, Policy.FOLLOW_UPS_WRITE)
        _pairs_settings(s, project_id)
        gold = settled_curves(_target_golds(s, project_id, target_key)).get(target_key)
        if gold is None:
            raise InvalidInput("This target has no settled curve yet, so it cannot have follow-ups written.")
        if _written_by(s, project_id, actor.user_id, target_key):
            raise InvalidInput(ALREADY_WRITTEN)
        target = s.get(Sample, gold.sample_id)
        return gold, target.parent_text, target.benchmark

    gold, target_text, benchmark = db.run_read(read)
    texts = [d.text.strip() for d in drafts]
    n_tokens = len(tokenize(target_text))
    ids = [new_external_id() for _ in drafts]

    def write(s: Session) -> list[int]:
        user_row = select(User).where(User.id == actor.user_id)
        if s.bind.dialect.name == "postgresql":
            user_row = user_row.with_for_update()  # one author's saves one at a time
        authorize_user(s.execute(user_row).scalar(), Policy.FOLLOW_UPS_WRITE)
        if _written_by(s, project_id, actor.user_id, target_key):
            raise InvalidInput(ALREADY_WRITTEN)
        if s.get(Sample, gold.sample_id) is None:
            raise InvalidInput("The target's sample was removed meanwhile; nothing was saved.")
        now = utcnow()
        written = []
        for draft, text, external_id in zip(drafts, texts, ids):
            smp = Sample(project_id=project_id, external_id=external_id, benchmark=benchmark,
                         parent_text=target_text, n_tokens=n_tokens, status="active",
                         source="authored", created_at=now)
            s.add(smp)
            s.flush()
            xi, omega, alpha = (float(v) for v in draft.curve)  # type: ignore[union-attr]
            s.add(SamplePair(sample_id=smp.id, target_key=target_key, follow_up=text,
                             intended_change=draft.intended_change, authored_by=actor.user_id,
                             authored_from=gold.sample_id, authored_at=now,
                             authored_xi=xi, authored_omega=omega, authored_alpha=alpha))
            written.append(smp.id)
        audit.record(s, actor.user_id, "author_follow_ups", "sample", gold.sample_id, samples=written)
        return written

    try:
        return db.run_write(write)
    except IntegrityError:
        # a random id taken meanwhile (one chance in 2^64): nothing was written
        raise InvalidInput("The follow-ups could not be saved this time; please save again.") from None


@checks_numbers
def validation_by_author(db: Database, actor: Actor, project_id: int) -> list[AuthorValidation]:
    """Per author, their authored pairs, those settled, and those whose settled change equals
    the intent (leads only; empty for a project without authored pairs)."""
    def read(s: Session) -> list[AuthoredPair]:
        authorize(s, actor, Policy.FOLLOW_UPS_VALIDATE)
        project_settings(s, project_id)
        rows = s.execute(
            select(User.username, SamplePair.intended_change, GoldAnnotation.change)
            .join(Sample, Sample.id == SamplePair.sample_id)
            .join(User, User.id == SamplePair.authored_by)
            .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == SamplePair.sample_id)
            .where(Sample.project_id == project_id, Sample.status == "active"))
        return [AuthoredPair(name, intended or "", settled or "") for name, intended, settled in rows]
    return author_validation(db.run_read(read))


__all__ = ["ALREADY_WRITTEN", "AuthoringTask", "NOT_PAIRS", "authoring_task", "new_external_id",
           "save_follow_ups", "validation_by_author"]
