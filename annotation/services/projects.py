"""Projects and their settings, importing texts into the annotation pool, the demo project."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Any, Sequence

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.segmentation import tokenize
from annotation.services import audit, review
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput, NotFound
from annotation.settings import ProjectSettings, SettingsError
from annotation.text_import import ImportFileError, TextRecord, parse_texts
from db.engine import Database
from db.models import ParameterStats, Project, Sample

DEMO_PROJECT_NAME = "Demo project"
#: settings whose change re-evaluates the automatic flags of settled samples
FLAG_SETTINGS = frozenset({"flag_pk_max", "flag_sigma", "annotators_per_sample"})


@dataclass(frozen=True)
class ProjectInfo:
    id: int
    name: str
    description: str
    settings: ProjectSettings
    created_at: datetime
    n_samples: int


@dataclass(frozen=True)
class ImportSummary:
    added: int
    already_present: int
    benchmark_counts: dict[int, int]
    project_id: int = 0


def _info(p: Project, n_samples: int) -> ProjectInfo:
    return ProjectInfo(p.id, p.name, p.description, ProjectSettings.from_dict(p.settings),
                       p.created_at, n_samples)


def list_projects(db: Database, actor: Actor) -> list[ProjectInfo]:
    """Every project (one team shares them), oldest first, with its sample count."""
    with db.read() as s:
        require_role(s, actor, "annotator")
        counts = dict(s.execute(select(Sample.project_id, func.count()).group_by(Sample.project_id)).all())
        return [_info(p, counts.get(p.id, 0)) for p in s.scalars(select(Project).order_by(Project.id))]


def get_project(db: Database, actor: Actor, project_id: int) -> ProjectInfo:
    with db.read() as s:
        require_role(s, actor, "annotator")
        p = s.get(Project, project_id)
        if p is None:
            raise NotFound("No such project.")
        n = s.scalar(select(func.count()).select_from(Sample).where(Sample.project_id == p.id)) or 0
        return _info(p, n)


def _project_name(name: str) -> str:
    name = (name or "").strip()
    if not 1 <= len(name) <= 128:
        raise InvalidInput("A project name is 1–128 characters.")
    return name


def _add_project(s: Session, actor: Actor, name: str, description: str = "",
                 settings: ProjectSettings | None = None) -> Project:
    """Insert a project (checked name) in the caller's transaction (the caller checked the role)."""
    p = Project(name=name, description=description.strip(),
                settings=(settings or ProjectSettings()).to_dict(), created_by=actor.user_id)
    s.add(p)
    s.flush()
    s.add(ParameterStats(project_id=p.id))
    audit.record(s, actor.user_id, "create_project", "project", p.id, name=name)
    return p


def create_project(db: Database, actor: Actor, name: str, description: str = "",
                   settings: ProjectSettings | None = None) -> ProjectInfo:
    """Lead: create an empty project."""
    name = _project_name(name)
    try:
        with db.write() as s:
            require_role(s, actor, "lead")
            return _info(_add_project(s, actor, name, description, settings), 0)
    except IntegrityError:
        raise InvalidInput(f"A project called {name!r} already exists.") from None


def update_settings(db: Database, actor: Actor, project_id: int, **changes: Any) -> ProjectSettings:
    """Lead: change some settings; invalid values raise :class:`InvalidInput` and change nothing."""
    with db.write() as s:
        require_role(s, actor, "lead")
        p = s.get(Project, project_id)
        if p is None:
            raise NotFound("No such project.")
        unknown = sorted(set(changes) - set(ProjectSettings().to_dict()))
        if unknown:
            raise InvalidInput(f"Unknown setting {', '.join(unknown)}; nothing was changed.")
        try:
            new = ProjectSettings.from_dict({**(p.settings or {}), **changes})
        except (SettingsError, TypeError) as exc:
            raise InvalidInput(str(exc)) from None
        old = ProjectSettings.from_dict(p.settings)
        p.settings = new.to_dict()
        diff = {k: [getattr(old, k), v] for k, v in new.to_dict().items() if getattr(old, k) != v}
        audit.record(s, actor.user_id, "update_settings", "project", p.id, changes=diff)
    if FLAG_SETTINGS & set(diff):
        # thresholds changed: automatic flags and automatic gold are re-evaluated at once
        review.resolve_project(db, actor, project_id, recheck=True)
    return new


def import_texts(db: Database, actor: Actor, project_id: int | None, records: Sequence[TextRecord],
                 source: str = "", *, new_project: str | None = None) -> ImportSummary:
    """Lead: add texts to a project's pool in one transaction (all or nothing).

    Re-importing is harmless: a record whose id (or, without an id, whose exact text) is already
    in the project is counted as already present; an id that exists with a *different* text is
    refused. Records without an id get ``B<benchmark>-<number>`` ids continuing the project's
    numbering. With ``new_project`` (and no ``project_id``) the project of that name is created
    by the same transaction, so a refused import leaves no empty project behind; the summary's
    ``project_id`` names the project either way.
    """
    if new_project is not None:
        new_project = _project_name(new_project)
    try:
        return _import_texts(db, actor, project_id, records, source, new_project)
    except IntegrityError:
        if new_project is None:
            raise
        raise InvalidInput(f"A project called {new_project!r} already exists.") from None


def _import_texts(db: Database, actor: Actor, project_id: int | None, records: Sequence[TextRecord],
                  source: str, new_project: str | None) -> ImportSummary:
    with db.write() as s:
        require_role(s, actor, "lead")
        if new_project is not None:
            project_id = _add_project(s, actor, new_project).id
        elif project_id is None or s.get(Project, project_id) is None:
            raise NotFound("No such project.")
        existing = dict(s.execute(select(Sample.external_id, Sample.parent_text)
                                  .where(Sample.project_id == project_id)).all())
        existing_texts = set(existing.values())
        next_number = {1: 0, 2: 0}
        for ext in existing:
            prefix, _, num = ext.partition("-")
            if prefix in ("B1", "B2") and num.isdigit():
                b = int(prefix[1])
                next_number[b] = max(next_number[b], int(num))
        added, present, counts = 0, 0, {1: 0, 2: 0}
        new_texts: set[str] = set()
        # ids named later in this import must not be taken by a generated id first
        named_ids = {r.external_id for r in records if r.external_id is not None}
        for r in records:
            if r.external_id is not None and r.external_id in existing:
                if existing[r.external_id] != r.text:
                    raise InvalidInput(f"line {r.line}: id {r.external_id!r} is already used by a "
                                       "different text in this project; nothing was imported.")
                present += 1
                continue
            if r.external_id is None and (r.text in existing_texts or r.text in new_texts):
                present += 1
                continue
            ext_id = r.external_id
            if ext_id is None:
                next_number[r.benchmark] += 1
                ext_id = f"B{r.benchmark}-{next_number[r.benchmark]:05d}"
                while ext_id in existing or ext_id in named_ids:
                    next_number[r.benchmark] += 1
                    ext_id = f"B{r.benchmark}-{next_number[r.benchmark]:05d}"
            s.add(Sample(project_id=project_id, external_id=ext_id, benchmark=r.benchmark,
                         parent_text=r.text, n_tokens=len(tokenize(r.text)), source=source[:255]))
            existing[ext_id] = r.text
            new_texts.add(r.text)
            added += 1
            counts[r.benchmark] += 1
        audit.record(s, actor.user_id, "import_texts", "project", project_id,
                     source=source, added=added, already_present=present)
        return ImportSummary(added, present, counts, project_id)


def import_text_file(db: Database, actor: Actor, project_id: int | None, data: bytes, filename: str,
                     default_benchmark: int | None = None, *,
                     new_project: str | None = None) -> ImportSummary:
    """Parse and import an uploaded file; :class:`InvalidInput` names the line on bad files.
    ``new_project``: create the project of that name as part of the import (see :func:`import_texts`)."""
    try:
        records = parse_texts(data, filename, default_benchmark=default_benchmark)
    except ImportFileError as exc:
        raise InvalidInput(f"{filename}: {exc}. Nothing was imported.") from None
    return import_texts(db, actor, project_id, records, source=filename, new_project=new_project)


def demo_records() -> list[TextRecord]:
    """The bundled demo texts (annotation/demo/demo_texts.jsonl)."""
    raw = resources.files("annotation").joinpath("demo/demo_texts.jsonl").read_bytes()
    return parse_texts(raw, "demo_texts.jsonl")


def load_demo_project(db: Database, actor: Actor) -> ProjectInfo:
    """Lead: create (or top up) the demo project with the bundled texts."""
    with db.read() as s:
        require_role(s, actor, "lead")
        p = s.scalar(select(Project).where(Project.name == DEMO_PROJECT_NAME))
        project_id = p.id if p else None
    if project_id is None:
        project_id = create_project(
            db, actor, DEMO_PROJECT_NAME,
            "Short texts written for trying Chronocept Studio: benchmark 1 sentences and "
            "benchmark 2 passages.").id
    import_texts(db, actor, project_id, demo_records(), source="demo")
    return get_project(db, actor, project_id)

