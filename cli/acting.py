"""Who a command acts as, and on which project: ``--user`` (default: the first active admin, so
the audit log names a real person) and ``--project`` (left out while there is one project)."""

from __future__ import annotations

from annotation.services.accounts import accounts
from annotation.services.authz import Actor
from cli.output import CliError
from db.engine import Database


def acting_user(db: Database, username: str | None) -> Actor:
    """The active user named, or the first active admin."""
    actor = accounts.actor_for_script(db, username)
    if actor is None:
        raise CliError(f"no active user {username!r}" if username else
                       "no active admin yet; create one with: chronocept create-user NAME --role admin")
    return actor


def named_project_id(db: Database, actor: Actor, name: str | None) -> int:
    """The project named, or the only one. Never creates one: ``import texts`` and ``import
    pairs`` create their project inside their own all-or-nothing import (:mod:`cli.imports`)."""
    from annotation.services.projects import projects  # on use (LAZY, see cli/__init__.py)
    all_projects = projects.list_projects(db, actor)
    if name:
        for p in all_projects:
            if p.name == name:
                return p.id
        raise CliError(f"no project called {name!r}")
    if len(all_projects) == 1:
        return all_projects[0].id
    raise CliError("several projects exist; name one with --project" if all_projects
                   else "no project yet; import texts first")


def new_project_name(db: Database, actor: Actor, name: str | None) -> str:
    """The project an import may create: the one named, or "Default project" when none exists."""
    from annotation.services.projects import projects  # on use (LAZY, see cli/__init__.py)
    if name:
        return name
    if not projects.list_projects(db, actor):
        return "Default project"
    raise CliError("several projects exist; name one with --project")
