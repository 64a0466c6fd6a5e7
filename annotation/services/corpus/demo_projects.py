"""The demo projects: a project of bundled texts and one of bundled context pairs, created (or
topped up) by a lead from the first-run page or the Projects page."""

from __future__ import annotations

from importlib import resources

from sqlalchemy import select

from annotation.corpus.pair_import import PairRecord, parse_pairs
from annotation.corpus.text_import import TextRecord, parse_texts
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.corpus.pair_imports import import_pairs
from annotation.services.corpus.text_imports import import_texts
from annotation.services.projects.projects import ProjectInfo, create_project, get_project
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Project

DEMO_PROJECT_NAME = "Demo project"
DEMO_PAIRS_PROJECT_NAME = "Demo pairs project"


def demo_records() -> list[TextRecord]:
    """The bundled demo texts (annotation/demo/demo_texts.jsonl)."""
    raw = resources.files("annotation").joinpath("demo/demo_texts.jsonl").read_bytes()
    return parse_texts(raw, "demo_texts.jsonl")


def demo_pair_records() -> list[PairRecord]:
    """The bundled demo pairs (annotation/demo/demo_pairs.jsonl): everyday targets, each with a
    follow-up that shortens, one that keeps and one that lengthens how long it stays valid (the
    intended change is each pair's reference label)."""
    raw = resources.files("annotation").joinpath("demo/demo_pairs.jsonl").read_bytes()
    return parse_pairs(raw, "demo_pairs.jsonl")


def _demo_project_id(db: Database, actor: Actor, name: str) -> int | None:
    with db.read() as s:
        authorize(s, actor, Policy.PROJECT_MANAGE)
        return s.scalar(select(Project.id).where(Project.name == name))


def _demo_project(db: Database, actor: Actor, name: str, description: str,
                  settings: ProjectSettings | None = None) -> int:
    """The id of the demo project called ``name``, created with ``description`` when missing."""
    project_id = _demo_project_id(db, actor, name)
    if project_id is None:
        project_id = create_project(db, actor, name, description, settings).id
    return project_id


def load_demo_project(db: Database, actor: Actor) -> ProjectInfo:
    """Lead: create (or top up) the demo project with the bundled texts."""
    project_id = _demo_project(db, actor, DEMO_PROJECT_NAME,
                               "Short texts written for trying Chronocept Studio: benchmark 1 sentences and "
                               "benchmark 2 passages.")
    import_texts(db, actor, project_id, demo_records(), source="demo")
    return get_project(db, actor, project_id)


def load_demo_pairs_project(db: Database, actor: Actor) -> ProjectInfo:
    """Lead: create (or top up) the demo context-pairs project with the bundled pairs."""
    project_id = _demo_project(db, actor, DEMO_PAIRS_PROJECT_NAME,
                               "Everyday statements, each with three follow-ups, for trying the context-pairs "
                               "protocol: the curve of a statement alone, then given a follow-up.",
                               ProjectSettings(protocol="pairs"))
    import_pairs(db, actor, project_id, demo_pair_records(), source="demo")
    return get_project(db, actor, project_id)
