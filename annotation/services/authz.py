"""Who is acting, and the role check every service call makes against the database.

Roles are ordered annotator < lead < admin: a lead may do all an annotator may, an admin all a
lead may. The check re-reads the user row, so a deactivated or demoted user loses access at their
next action even if their browser session still holds an old :class:`Actor`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from annotation.services.errors import PermissionDenied
from db import models
from db.models import User

#: The roles, lowest first: annotator < lead < admin. The users table defines them
#: (``db.models.ROLES``, the values its check constraint accepts); front ends list them from
#: here, so no screen and no command reaches into ``db`` for them.
ROLES: tuple[str, ...] = models.ROLES

_RANK = {role: i for i, role in enumerate(ROLES)}


def rank(role: str) -> int:
    """The role's place in annotator < lead < admin (-1 for an unknown role)."""
    return _RANK.get(role, -1)


@dataclass(frozen=True)
class Actor:
    """The person calling a service (what a page keeps after login).

    ``password_changed_at`` is the account's as it was at sign-in: a session older than a later
    change (an admin's reset, or the user's own change in another session) no longer signs in
    (``sessions.resume_session``).
    """

    user_id: int
    username: str
    role: str
    display_name: str = ""
    password_changed_at: datetime | None = None

    def has_role(self, role: str) -> bool:
        return _RANK.get(self.role, -1) >= _RANK[role]

    @classmethod
    def of(cls, user: User) -> "Actor":
        return cls(user.id, user.username, user.role, user.display_name or user.username,
                   user.password_changed_at)


def require_role(session: Session, actor: Actor, role: str) -> User:
    """Return the actor's current user row if it is active and has at least ``role``."""
    return check_role(session.get(User, actor.user_id), role)


def check_role(user: User | None, role: str) -> User:
    """:func:`require_role` on the actor's user row the caller has just read (None: no row)."""
    if user is None or not user.is_active:
        raise PermissionDenied("Your account is not active. Ask an administrator.")
    if _RANK.get(user.role, -1) < _RANK[role]:
        raise PermissionDenied(f"This needs the {role} role; you are signed in as {user.role}.")
    return user
