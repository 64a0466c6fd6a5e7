"""Per-user preferences: small UI choices that follow the person, not the browser tab.

Stored as JSON in ``users.preferences`` (migration 0008), so a choice made on one machine holds
on every other and survives sign-out. Only known keys are read and written, each with its type
and allowed values: a stored value that is unknown or out of range (a hand-edited row, a key a
later version dropped) reads as the default instead of breaking a page, and a write of an
unknown key or a wrong value is refused with a message and changes nothing.

Keys:

* ``workbench_layout`` — ``"steps"`` (one step at a time: segmentation, axes, curve; the
  default, for learning the protocol) or ``"single"`` (all three steps on one screen, for
  experienced annotators).
* ``last_project_id`` — the project the user last worked in (a positive id, or absent): a new
  browser session without a project in its URL opens it, when it still exists. The app checks
  that; a stale id only falls back to the first project.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from sqlalchemy.orm import Session

from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from db.engine import Database
from db.models import User

#: The workbench's layouts, the default first.
WORKBENCH_LAYOUTS: tuple[str, ...] = ("steps", "single")
#: Allowed values of each preference whose values are a closed set.
_CHOICES: dict[str, tuple[str, ...]] = {"workbench_layout": WORKBENCH_LAYOUTS}


@dataclass(frozen=True)
class Preferences:
    """One user's preferences (the defaults are what a new user sees)."""

    workbench_layout: str = "steps"
    last_project_id: int | None = None

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise InvalidInput(f"Unknown choice {value!r} for {name.replace('_', ' ')}; "
                                   f"expected one of {', '.join(allowed)}.")
        if self.last_project_id is not None and not _is_id(self.last_project_id):
            raise InvalidInput(f"{self.last_project_id!r} is not a project id for the last project.")

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON object: a preference never set (None) is left out."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_stored(cls, data: Mapping[str, Any] | None) -> "Preferences":
        """What a stored JSON object says, tolerantly: unknown keys are ignored and a value that
        is not allowed reads as the default (a preference never stops a page from opening)."""
        if not isinstance(data, Mapping):
            return cls()
        known: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            if f.name in _CHOICES:
                if value in _CHOICES[f.name]:
                    known[f.name] = value
            elif _is_id(value):
                known[f.name] = value
        return cls(**known)


def _is_id(value: object) -> bool:
    """A database id: a positive int (JSON's true is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


_NAMES = frozenset(f.name for f in fields(Preferences))


def get_preferences(db: Database, actor: Actor) -> Preferences:
    """The acting user's preferences (defaults for anything never chosen)."""
    with db.read() as s:
        user = authorize(s, actor, Policy.OWN_ACCOUNT)  # any active user: the lowest role
        return Preferences.from_stored(user.preferences)


def set_preferences(db: Database, actor: Actor, **changes: Any) -> Preferences:
    """Change some of the acting user's preferences; returns them all as stored.

    Raises :class:`InvalidInput` (nothing changed) for an unknown key or a value that is not
    allowed. Only known keys are written back, so the column never collects stray keys.
    """
    unknown = sorted(set(changes) - _NAMES)
    if unknown:
        raise InvalidInput(f"Unknown preference {', '.join(unknown)}; nothing was changed.")

    def attempt(s: Session) -> Preferences:
        # locked on PostgreSQL so two tabs changing different preferences cannot lose one
        s.get(User, actor.user_id, with_for_update=True)  # the row lock is held until the commit
        user = authorize(s, actor, Policy.OWN_ACCOUNT)
        new = Preferences(**{**Preferences.from_stored(user.preferences).to_dict(), **changes})
        user.preferences = new.to_dict()  # a new object: SQLAlchemy sees the JSON change
        return new

    return db.run_write(attempt)  # re-run whole on a transient lock, deadlock or pool error
