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
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from sqlalchemy.orm import Session

from annotation.services.authz import Actor, require_role
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

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise InvalidInput(f"Unknown choice {value!r} for {name.replace('_', ' ')}; "
                                   f"expected one of {', '.join(allowed)}.")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_stored(cls, data: Mapping[str, Any] | None) -> "Preferences":
        """What a stored JSON object says, tolerantly: unknown keys are ignored and a value that
        is not allowed reads as the default (a preference never stops a page from opening)."""
        if not isinstance(data, Mapping):
            return cls()
        known: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            if value in _CHOICES.get(f.name, ()):
                known[f.name] = value
        return cls(**known)


_NAMES = frozenset(f.name for f in fields(Preferences))


def get_preferences(db: Database, actor: Actor) -> Preferences:
    """The acting user's preferences (defaults for anything never chosen)."""
    with db.read() as s:
        user = require_role(s, actor, "annotator")  # any active user: the lowest role
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
        locked = s.get(User, actor.user_id, with_for_update=True)  # noqa: F841 (held)
        user = require_role(s, actor, "annotator")
        new = Preferences(**{**Preferences.from_stored(user.preferences).to_dict(), **changes})
        user.preferences = new.to_dict()  # a new object: SQLAlchemy sees the JSON change
        return new

    return db.run_write(attempt)  # re-run whole on a transient lock, deadlock or pool error
