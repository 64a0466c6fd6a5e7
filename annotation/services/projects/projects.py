"""Projects and their settings. Importing texts is :mod:`annotation.services.corpus.text_imports`,
importing context pairs :mod:`annotation.services.corpus.pair_imports`, the demo projects
:mod:`annotation.services.corpus.demo_projects` (they import into a project created here).

A project's protocol (:mod:`annotation.protocols`: single texts or context pairs) is chosen when
it is created and fixed once it has samples: every sample, annotation and export of a project
follows one protocol."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.protocols import protocol_of
from annotation.services import audit
from annotation.services.review import resolving
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_row
from annotation.services.text_limits import check_length, width
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings, SettingsError
from db.engine import Database
from db.models import Annotation, ImportBatch, ParameterStats, Project, Sample

#: The sample status of an unfinished import's rows: out of the queue and of every count
#: (written by :mod:`annotation.services.corpus.import_batches`).
IMPORTING = "importing"


#: settings whose change re-evaluates the automatic flags of settled samples (and re-pools their
#: gold; the third annotator's too: turned on, a sample awaiting a lead for automatic flags alone
#: goes to one more annotator; turned off, one still waiting for its third annotator settles from its k)
FLAG_SETTINGS = frozenset({"flag_pk_max", "flag_sigma", "flag_xi_max", "flag_omega_max", "flag_alpha_max",
                           "flag_w1_max", "annotators_per_sample", "gold_pooling", "third_annotator",
                           "third_annotator_sd_max"})


@dataclass(frozen=True)
class ProjectInfo:
    id: int
    name: str
    description: str
    settings: ProjectSettings
    created_at: datetime
    n_samples: int


def _info(p: Project, n_samples: int) -> ProjectInfo:
    return ProjectInfo(p.id, p.name, p.description, ProjectSettings.from_dict(p.settings),
                       p.created_at, n_samples)


def list_projects(db: Database, actor: Actor) -> list[ProjectInfo]:
    """Every project (one team shares them), oldest first, with its sample count. A project that
    an unfinished import is creating is not listed: it appears once that import is published,
    and goes with it if the import is rolled back (:mod:`annotation.services.corpus.text_imports`)."""
    being_created = exists().where(ImportBatch.open_project_id == Project.id, ImportBatch.creates_project.is_(True))
    with db.read() as s:
        authorize(s, actor, Policy.PROJECT_READ)
        counts = dict(s.execute(select(Sample.project_id, func.count()).where(Sample.status != IMPORTING)
                                .group_by(Sample.project_id)).all())
        return [_info(p, counts.get(p.id, 0))
                for p in s.scalars(select(Project).where(~being_created).order_by(Project.id))]


@checks_numbers
def get_project(db: Database, actor: Actor, project_id: int) -> ProjectInfo:
    with db.read() as s:
        authorize(s, actor, Policy.PROJECT_READ)
        p = project_row(s, project_id)
        n = s.scalar(select(func.count()).select_from(Sample)
                     .where(Sample.project_id == p.id, Sample.status != IMPORTING)) or 0
        return _info(p, n)


def project_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidInput(f"A project name is 1–{width(Project.name)} characters.")
    return check_length(name, Project.name, "project name")


def _check_settings_text(settings: ProjectSettings) -> None:
    """Refuse settings whose text does not fit where it is copied to: the guidelines version goes
    onto each new annotation (``annotations.guidelines_version``), so a longer one would be
    stored in the project's JSON and then refused by PostgreSQL at every hand-out."""
    check_length(settings.guidelines_version, Annotation.guidelines_version, "guidelines version")


def add_project(s: Session, actor: Actor, name: str, description: str = "",
                 settings: ProjectSettings | None = None) -> Project:
    """Insert a project (checked name) in the caller's transaction (the caller checked the role)."""
    settings = settings or ProjectSettings()
    settings = protocol_of(settings).settings_of_new_project(settings)
    p = Project(name=name, description=description.strip(), settings=settings.to_dict(),
                created_by=actor.user_id)
    s.add(p)
    s.flush()
    s.add(ParameterStats(project_id=p.id))
    audit.record(s, actor.user_id, "create_project", "project", p.id, name=name)
    return p


def create_project(db: Database, actor: Actor, name: str, description: str = "",
                   settings: ProjectSettings | None = None) -> ProjectInfo:
    """Lead: create an empty project."""
    name = project_name(name)
    if settings is not None:
        _check_settings_text(settings)
    try:
        with db.write() as s:
            authorize(s, actor, Policy.PROJECT_MANAGE)
            return _info(add_project(s, actor, name, description, settings), 0)
    except IntegrityError:
        raise InvalidInput(f"A project called {name!r} already exists.") from None


def _check_protocol_free(s: Session, p: Project) -> None:
    """Refuse to change the protocol of a project that has samples (hidden ones of an import
    being written included): they, and any work on them, follow the protocol they came under."""
    s.execute(select(Project.id).where(Project.id == p.id).with_for_update())  # see text_imports.check_protocol
    n = s.scalar(select(func.count()).select_from(Sample).where(Sample.project_id == p.id)) or 0
    if n:
        raise InvalidInput(f"The protocol of {p.name!r} cannot change: it already has {n:,} samples "
                           "(create a new project for the other protocol); nothing was changed.")


@checks_numbers
def update_settings(db: Database, actor: Actor, project_id: int, **changes: Any) -> ProjectSettings:
    """Lead: change some settings; invalid values raise :class:`InvalidInput` and change nothing."""
    with db.write() as s:
        authorize(s, actor, Policy.PROJECT_MANAGE)
        p = project_row(s, project_id)
        unknown = sorted(set(changes) - set(ProjectSettings().to_dict()))
        if unknown:
            raise InvalidInput(f"Unknown setting {', '.join(unknown)}; nothing was changed.")
        try:
            new = ProjectSettings.from_dict({**(p.settings or {}), **changes})
        except (SettingsError, TypeError) as exc:
            raise InvalidInput(str(exc)) from None
        _check_settings_text(new)
        old = ProjectSettings.from_dict(p.settings)
        if new.protocol != old.protocol:
            _check_protocol_free(s, p)
        p.settings = new.to_dict()
        diff = {k: [getattr(old, k), v] for k, v in new.to_dict().items() if getattr(old, k) != v}
        audit.record(s, actor.user_id, "update_settings", "project", p.id, changes=diff)
    if FLAG_SETTINGS & set(diff):
        # thresholds changed: automatic flags and automatic gold are re-evaluated at once
        resolving.resolve_project(db, actor, project_id, recheck=True)
    return new
