"""Who may do what: every action a service checks, with the least role allowed to do it.

One place answers "may this role do that?": the services call :func:`authorize` with a named
action (``authorize(s, actor, Policy.REVIEW)``) instead of spelling a role, and the navigation
lists a page for a role when the page's action allows it (``ui.navigation.PAGES``). Roles keep
their order annotator < lead < admin (:mod:`annotation.services.authz`): an action a lead may take,
an admin may too. The refusal is :func:`authz.check_role`'s, so a message names the role needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from annotation.services.authz import ROLES, Actor, check_role, require_role
from db.models import User


@dataclass(frozen=True)
class Action:
    """A thing a user may ask of the services, and the least role that may ask it."""

    name: str
    role: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r} for {self.name}")


class Policy:
    """The actions, by room. Every role may annotate, so the annotator's actions are anyone's."""

    # accounts
    OWN_ACCOUNT = Action("change one's own password and preferences", "annotator")
    ANNOTATORS_LIST = Action("list the active accounts that annotate", "lead")
    USERS_MANAGE = Action("create accounts, set roles, (de)activate, reset passwords", "admin")
    UPGRADE_NOTICE = Action("be told the database schema awaits an upgrade", "admin")
    # the pages
    BACK_OFFICE = Action("open the back office's pages", "lead")
    # workbench
    ANNOTATE = Action("see one's queue, open items, annotate and read the guidelines", "annotator")
    SEE_EXTERNAL_IDS = Action("see a sample's external id on the workbench", "lead")
    # projects
    PROJECT_READ = Action("list and open projects", "annotator")
    PROJECT_MANAGE = Action("create projects, the demo projects, and change their settings", "lead")
    # corpus
    CORPUS_IMPORT = Action("import texts, pairs and annotations", "lead")
    DUPLICATES = Action("run de-duplication and decide its pairs", "lead")
    FOLLOW_UPS_WRITE = Action("write follow-up texts", "annotator")
    FOLLOW_UPS_VALIDATE = Action("read the follow-ups' validation by author", "lead")
    # quality
    OWN_FEEDBACK = Action("read one's own feedback and qualification", "annotator")
    QUALITY_READ = Action("read agreement, consistency, dashboards, experts and gold checks", "lead")
    PAUSE_LIFT = Action("lift an annotator's gold-check pause", "lead")
    QUALIFICATION_DECIDE = Action("decide and re-check annotators' qualification", "lead")
    # review
    REVIEW = Action("review, adjudicate and settle samples", "lead")
    WARMUP_SET = Action("choose the warm-up samples and their gold", "lead")
    # export, jobs, model
    EXPORT = Action("export the dataset and read its statistics", "lead")
    JOBS_RUN = Action("launch, list and cancel training jobs", "lead")
    MODEL_LOOP = Action("read the model's disagreements, curves and scores", "lead")


#: every action, in the order :class:`Policy` names them
ACTIONS: tuple[Action, ...] = tuple(v for v in vars(Policy).values() if isinstance(v, Action))


def authorize(session: Session, actor: Actor, action: Action) -> User:
    """The actor's current user row if it is active and its role may take ``action``; else
    :class:`~annotation.services.errors.PermissionDenied` naming the role needed."""
    return require_role(session, actor, action.role)


def authorize_user(user: User | None, action: Action) -> User:
    """:func:`authorize` on the actor's user row the caller has just read (None: no row)."""
    return check_role(user, action.role)


def allows(actor: Actor, action: Action) -> bool:
    """Whether the actor's role (as signed in; the services re-read it) may take ``action``.

    >>> allows(Actor(1, "ann", "annotator"), Policy.REVIEW), allows(Actor(2, "root", "admin"), Policy.REVIEW)
    (False, True)
    """
    return actor.has_role(action.role)
