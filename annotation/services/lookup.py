"""The project row every service looks up by id, with the one "not found" answer they all give
(:class:`~annotation.services.errors.NotFound`, "No such project.")."""

from __future__ import annotations

from sqlalchemy.orm import Session

from annotation.services.errors import NotFound
from annotation.services.text_limits import clip, width
from annotation.settings import ProjectSettings
from db.models import Annotation, Project, Sample

NO_SUCH_PROJECT = "No such project."


def production(project_id: int) -> tuple:  # type: ignore[type-arg]
    """The filter of a project's production samples (active, not warm-up): what an export writes."""
    return (Sample.project_id == project_id, Sample.status == "active", Sample.is_warmup.is_(False))


def project_row(s: Session, project_id: int | None) -> Project:
    """The project's row; :class:`NotFound` when there is none."""
    project = s.get(Project, project_id) if project_id is not None else None
    if project is None:
        raise NotFound(NO_SUCH_PROJECT)
    return project


def project_settings(s: Session, project_id: int | None) -> ProjectSettings:
    """The project's settings; :class:`NotFound` when there is no such project.

    A guidelines version longer than the annotations' column (stored before the settings
    refused one) is read cut to that width: every hand-out copies it onto a new annotation, and
    PostgreSQL would refuse each one. The settings page still shows it whole and asks for a
    shorter one at the next save."""
    settings = ProjectSettings.from_dict(project_row(s, project_id).settings)
    if len(settings.guidelines_version) > width(Annotation.guidelines_version):
        version = clip(settings.guidelines_version, Annotation.guidelines_version)
        settings = settings.updated(guidelines_version=version)
    return settings
