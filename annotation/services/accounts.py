"""Accounts: first admin, login with rate limiting, user administration.

Passwords are hashed with Argon2id (argon2-cffi defaults, RFC 9106). Failed logins are counted
per username in the database over a sliding window, so the limit holds across app servers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation.services import audit
from annotation.services.authz import Actor, require_role
from annotation.services.errors import (
    AuthenticationFailed,
    InvalidInput,
    NotFound,
    PermissionDenied,
    RateLimited,
)
from annotation.usernames import UsernameError, check_username, find_lookalike
from db.engine import Database
from db.models import ROLES, LoginAttempt, User, utcnow

MIN_PASSWORD_LENGTH = 8
MAX_FAILURES = 5
FAILURE_WINDOW = timedelta(minutes=15)
_hasher = PasswordHasher()


@cache
def _dummy_hash() -> str:
    """Verifying against a dummy hash when the user does not exist keeps the timing the same."""
    return _hasher.hash("not-a-real-password")


@dataclass(frozen=True)
class UserInfo:
    id: int
    username: str
    display_name: str
    role: str
    is_active: bool
    created_at: datetime


def _info(u: User) -> UserInfo:
    return UserInfo(u.id, u.username, u.display_name or u.username, u.role, u.is_active, u.created_at)


def _check_username(username: str) -> str:
    try:  # the rules live in annotation.usernames (shared with the annotation import)
        return check_username(username)
    except UsernameError as exc:
        raise InvalidInput(str(exc)) from None


def _check_password(password: str) -> None:
    if len(password or "") < MIN_PASSWORD_LENGTH:
        raise InvalidInput(f"A password needs at least {MIN_PASSWORD_LENGTH} characters.")
    if len(password) > 1024:
        raise InvalidInput("That password is too long.")


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise InvalidInput(f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")
    return role


def needs_first_admin(db: Database) -> bool:
    """True while the database has no user at all (the first visitor creates the admin)."""
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(User)) == 0


def create_first_admin(db: Database, username: str, password: str, display_name: str = "") -> Actor:
    """Create the first account, an admin; refused once any user exists."""
    username = _check_username(username)
    _check_password(password)
    with db.write() as s:
        if s.bind.dialect.name == "postgresql":
            # two first visitors at once must not both become admin
            s.execute(text("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE"))
        if s.scalar(select(func.count()).select_from(User)):
            raise PermissionDenied("An administrator already exists; sign in instead.")
        user = _add_user(s, username, password, "admin", display_name)
        audit.record(s, user.id, "create_first_admin", "user", user.id, username=username)
        return Actor.of(user)


def authenticate(db: Database, username: str, password: str) -> Actor:
    """Check a username/password pair; returns the :class:`Actor` or raises.

    After ``MAX_FAILURES`` failures within ``FAILURE_WINDOW`` the username is locked until the
    oldest of those failures leaves the window (:class:`RateLimited`, even for the right password).
    """
    username = (username or "").strip()
    now = utcnow()
    with db.write() as s:
        if s.bind.dialect.name == "postgresql":
            # attempts on one username one at a time, so parallel guesses cannot pass the limit
            s.execute(text("SELECT pg_advisory_xact_lock(hashtext(:u))"), {"u": username})
        since = now - FAILURE_WINDOW
        failures = list(s.scalars(
            select(LoginAttempt.at).where(LoginAttempt.username == username,
                                          LoginAttempt.succeeded.is_(False),
                                          LoginAttempt.at > since)
            .order_by(LoginAttempt.at)))
        if len(failures) >= MAX_FAILURES:
            wait = failures[-MAX_FAILURES] + FAILURE_WINDOW - now
            minutes = max(1, int(wait.total_seconds() // 60) + 1)
            raise RateLimited(f"Too many failed sign-ins. Try again in {minutes} minute"
                              f"{'s' if minutes > 1 else ''}.")
        user = s.scalar(select(User).where(User.username == username))
        ok = False
        try:
            ok = _hasher.verify(user.password_hash if user else _dummy_hash(), password or "")
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            ok = False
        ok = ok and user is not None and user.is_active
        s.add(LoginAttempt(username=username[:64], at=now, succeeded=ok))
        if not ok:
            raise_after = AuthenticationFailed("Wrong username or password, or the account is inactive.")
        else:
            if _hasher.check_needs_rehash(user.password_hash):
                user.password_hash = hash_password(password)
            # a successful sign-in ends the run of failures (and old rows are of no use)
            s.execute(delete(LoginAttempt).where(LoginAttempt.username == username,
                                                 LoginAttempt.succeeded.is_(False)))
            return Actor.of(user)
    raise raise_after


def hash_password(password: str) -> str:
    """An Argon2id hash of ``password`` (the one place passwords are hashed)."""
    return _hasher.hash(password)


def _add_user(s: Session, username: str, password: str, role: str, display_name: str) -> User:
    """Insert a checked, hashed account (the caller checked who may do it)."""
    lookalike = find_lookalike(username, s.scalars(select(User.username)))
    if lookalike is not None:
        raise InvalidInput(f"The username {username!r} looks like the existing account {lookalike!r}.")
    user = User(username=username, display_name=display_name.strip() or username,
                password_hash=hash_password(password), role=role, is_active=True)
    s.add(user)
    s.flush()
    return user


def _create_user(db: Database, actor: Actor | None, username: str, password: str, role: str,
                 display_name: str) -> UserInfo:
    username = _check_username(username)
    _check_password(password)
    _check_role(role)
    try:
        with db.write() as s:
            if actor is not None:
                require_role(s, actor, "admin")
            user = _add_user(s, username, password, role, display_name)
            audit.record(s, actor.user_id if actor else None,
                         "create_user" if actor else "create_user_cli", "user", user.id,
                         username=username, role=role)
            return _info(user)
    except IntegrityError:
        raise InvalidInput(f"The username {username!r} is taken.") from None


def create_user(db: Database, actor: Actor, username: str, password: str, role: str,
                display_name: str = "") -> UserInfo:
    """Admin: create an account."""
    return _create_user(db, actor, username, password, role, display_name)


def create_user_from_cli(db: Database, username: str, password: str, role: str,
                         display_name: str = "") -> UserInfo:
    """Scripted deployments: whoever can run the CLI against the database is trusted."""
    return _create_user(db, None, username, password, role, display_name)


def list_users(db: Database, actor: Actor) -> list[UserInfo]:
    """Admin: every account, by username."""
    with db.read() as s:
        require_role(s, actor, "admin")
        return [_info(u) for u in s.scalars(select(User).order_by(User.username))]


def list_annotators(db: Database, actor: Actor) -> list[UserInfo]:
    """Lead: active accounts that annotate (every role may annotate)."""
    with db.read() as s:
        require_role(s, actor, "lead")
        return [_info(u) for u in s.scalars(select(User).where(User.is_active.is_(True))
                                            .order_by(User.username))]


def _target(s: Session, user_id: int) -> User:
    user = s.get(User, user_id)
    if user is None:
        raise NotFound("No such user.")
    return user


def _active_admins(s: Session) -> int:
    return s.scalar(select(func.count()).select_from(User)
                    .where(User.role == "admin", User.is_active.is_(True))) or 0


def set_role(db: Database, actor: Actor, user_id: int, role: str) -> UserInfo:
    """Admin: change a user's role; the last active admin cannot demote themself."""
    _check_role(role)
    with db.write() as s:
        require_role(s, actor, "admin")
        user = _target(s, user_id)
        if user.role == "admin" and role != "admin" and user.is_active and _active_admins(s) <= 1:
            raise InvalidInput("This is the last active administrator; make someone else admin first.")
        old, user.role = user.role, role
        audit.record(s, actor.user_id, "set_role", "user", user.id, old=old, new=role)
        return _info(user)


def set_active(db: Database, actor: Actor, user_id: int, active: bool) -> UserInfo:
    """Admin: deactivate (or reactivate) an account. Their work stays; they cannot sign in."""
    with db.write() as s:
        require_role(s, actor, "admin")
        user = _target(s, user_id)
        if not active and user.role == "admin" and user.is_active and _active_admins(s) <= 1:
            raise InvalidInput("This is the last active administrator and cannot be deactivated.")
        user.is_active = active
        audit.record(s, actor.user_id, "activate" if active else "deactivate", "user", user.id)
        return _info(user)


def reset_password(db: Database, actor: Actor, user_id: int, new_password: str) -> None:
    """Admin: set a new password for someone (and clear their failed-login lock)."""
    _check_password(new_password)
    with db.write() as s:
        require_role(s, actor, "admin")
        user = _target(s, user_id)
        user.password_hash = hash_password(new_password)
        user.password_changed_at = utcnow()
        s.execute(delete(LoginAttempt).where(LoginAttempt.username == user.username))
        audit.record(s, actor.user_id, "reset_password", "user", user.id)


def change_own_password(db: Database, actor: Actor, old_password: str, new_password: str) -> None:
    """Anyone: change their own password, proving the old one."""
    _check_password(new_password)
    with db.write() as s:
        user = require_role(s, actor, "annotator")
        try:
            _hasher.verify(user.password_hash, old_password or "")
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            raise AuthenticationFailed("The current password is wrong.") from None
        user.password_hash = hash_password(new_password)
        user.password_changed_at = utcnow()
        audit.record(s, actor.user_id, "change_password", "user", user.id)


def actor_for_script(db: Database, username: str | None = None) -> Actor | None:
    """The command line's acting user: ``username`` if active, else the first active admin.

    Whoever can run the CLI against the database is trusted; acting as a real account keeps the
    audit log honest about who did what.
    """
    with db.read() as s:
        stmt = select(User).where(User.is_active.is_(True))
        if username:
            stmt = stmt.where(User.username == username)
        else:
            stmt = stmt.where(User.role == "admin").order_by(User.id)
        user = s.scalars(stmt).first()
        return Actor.of(user) if user else None


def refresh_actor(db: Database, actor: Actor) -> Actor | None:
    """The actor as the database has them now (role changes apply at once), or None when the
    account was deactivated or deleted — the page then signs them out."""
    with db.read() as s:
        user = s.get(User, actor.user_id)
        return Actor.of(user) if user is not None and user.is_active else None
