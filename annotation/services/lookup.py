"""The project row every service looks up by id, with the one "not found" answer they all give
(:class:`~annotation.services.errors.NotFound`, "No such project.")."""

from __future__ import annotations

from sqlalchemy.orm import Session

from annotation.services.errors import NotFound
from annotation.settings import ProjectSettings
from db.models import Project

NO_SUCH_PROJECT = "No such project."


def project_row(s: Session, project_id: int | None) -> Project:
    """The project's row; :class:`NotFound` when there is none."""
    project = s.get(Project, project_id) if project_id is not None else None
    if project is None:
        raise NotFound(NO_SUCH_PROJECT)
    return project


def project_settings(s: Session, project_id: int | None) -> ProjectSettings:
    """The project's settings; :class:`NotFound` when there is no such project."""
    return ProjectSettings.from_dict(project_row(s, project_id).settings)
