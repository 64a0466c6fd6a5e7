"""Importing existing annotations in the interchange format (``chronocept import annotations``).

All or nothing: the file is validated record by record against the project's samples, then
written in one transaction. Annotators are matched to accounts by username (the rules of
``create-user``, :mod:`annotation.usernames`: surrounding whitespace is removed, so ``"lead1 "``
is ``lead1``); a name without an account gets a deactivated account of its own (it cannot sign in;
an admin can activate it and set a password), so imported work keeps a stable, pseudonymous
owner — unless the name looks like an existing account's (``Lead1`` beside ``lead1``), which
refuses the file. Re-importing the same file
is harmless: an identical annotation already stored counts as already present, a different one
for the same (sample, annotator) is refused.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.interchange import InterchangeError, InterchangeRecord, parse_interchange
from annotation.services import audit, projects, settling
from annotation.services.accounts import hash_password
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_row
from annotation.settings import ProjectSettings
from annotation.usernames import find_lookalike
from db.engine import Database
from db.models import Annotation, Assignment, Sample, User, utcnow


@dataclass(frozen=True)
class AnnotationImportSummary:
    added: int
    already_present: int
    new_accounts: tuple[str, ...]


def _same(a: Annotation, r: InterchangeRecord) -> bool:
    c = r.content
    return (a.status == "submitted" and list(a.boundaries) == list(c.boundaries)
            and list(a.segment_axes) == list(c.segment_axes)
            and [list(p) for p in a.points] == [list(p) for p in c.points]
            and (a.xi, a.omega, a.alpha) == (c.xi, c.omega, c.alpha)
            and list(a.flags) == list(c.flags))


def _refuse_lookalikes(s: Session, records: list[InterchangeRecord], known: set[str],
                       source: str) -> None:
    """A name that is not an account but looks like one (``Lead1``, ``lead1`` with a Cyrillic
    letter, ``leadl``…) is refused rather than given a second account of its own."""
    new = {}
    for r in records:
        if r.annotator not in known:
            new.setdefault(r.annotator, r.line)
    if not new:
        return
    existing = list(s.scalars(select(User.username)))
    for name, line in sorted(new.items(), key=lambda item: item[1]):
        other = find_lookalike(name, existing)
        if other is not None:
            raise InvalidInput(f"{source or 'file'}: line {line}: annotator {name!r} looks like the "
                               f"existing account {other!r}; use its exact name. Nothing was imported.")


def import_annotations(db: Database, actor: Actor, project_id: int, data: bytes,
                       source: str = "") -> AnnotationImportSummary:
    """Lead: import an interchange file into a project's samples (see module docstring)."""
    # Accounts the import creates are inactive, with a random password nobody knows (an admin
    # sets one to let them sign in). One Argon2 hash, made before the write lock is taken, serves
    # them all: hashing per account inside the transaction held the lock ~150 ms per account.
    unusable_hash = hash_password(secrets.token_urlsafe(32))
    with db.write() as s:
        require_role(s, actor, "lead")
        project = project_row(s, project_id)
        settings = ProjectSettings.from_dict(project.settings)
        samples = {smp.external_id: smp for smp in s.scalars(
            select(Sample).where(Sample.project_id == project_id,
                                 Sample.status != projects.IMPORTING))}
        try:
            records = parse_interchange(data, {k: v.n_tokens for k, v in samples.items()})
        except InterchangeError as exc:
            raise InvalidInput(f"{source or 'file'}: {exc}. Nothing was imported.") from None
        settling.ensure_stats(s, project_id)
        users = {u.username: u for u in s.scalars(
            select(User).where(User.username.in_({r.annotator for r in records})))}
        _refuse_lookalikes(s, records, set(users), source)
        new_accounts = []
        for name in sorted({r.annotator for r in records} - set(users)):
            user = User(username=name, display_name=name, role="annotator", is_active=False,
                        password_hash=unusable_hash)
            s.add(user)
            users[name] = user
            new_accounts.append(name)
        s.flush()
        added = present = 0
        added_samples: list[tuple[Sample, object]] = []
        for r in sorted(records, key=lambda rec: (rec.submitted_at, rec.line)):
            smp, user = samples[r.sample_id], users[r.annotator]
            existing = s.scalar(select(Annotation).where(Annotation.sample_id == smp.id,
                                                         Annotation.annotator_id == user.id))
            if existing is not None:
                if _same(existing, r):
                    present += 1
                    continue
                raise InvalidInput(
                    f"{source or 'file'}: line {r.line}: {r.annotator} already has a different "
                    f"annotation of {r.sample_id}. Nothing was imported.")
            smp.n_assigned += 1
            s.add(Assignment(sample_id=smp.id, user_id=user.id, slot=smp.n_assigned,
                             assigned_at=r.submitted_at))
            c = r.content
            s.add(Annotation(
                sample_id=smp.id, annotator_id=user.id, status="submitted", version=1, step=2,
                boundaries=list(c.boundaries), segment_axes=list(c.segment_axes),
                points=[[float(x), float(y)] for x, y in c.points], xi=c.xi, omega=c.omega,
                alpha=c.alpha, scale=c.scale, rmse=c.rmse, params_source=c.params_source,
                flags=list(c.flags), note=c.note, guidelines_version=settings.guidelines_version,
                seconds_spent=0.0, created_at=utcnow(), updated_at=utcnow(),
                submitted_at=r.submitted_at))
            added += 1
            added_samples.append((smp, c))
        s.flush()
        production = [(smp, c) for smp, c in added_samples if not smp.is_warmup]
        for smp, c in production:  # count every parameter before judging any deviation
            settling.count_parameters(s, smp.project_id, c, +1)
        for smp in {id(smp): smp for smp, _ in production}.values():
            settling.settle(s, smp, settings)
        audit.record(s, actor.user_id, "import_annotations", "project", project_id,
                     source=source, added=added, already_present=present, new_accounts=new_accounts)
        return AnnotationImportSummary(added, present, tuple(new_accounts))
