"""Accounts: first admin, sign-in with throttling, user administration.

Passwords are hashed with Argon2id (argon2-cffi defaults, RFC 9106). An Argon2 hash or check
takes ~150 ms, so it never runs inside a database transaction: on SQLite a write transaction
holds the database's one write lock, and annotators' submissions would queue behind it.

Sign-in (:func:`authenticate`) is three steps:

1. a tiny write transaction checks the throttle, stores the attempt *as a failure* (pending),
   and reads the user's hash. On SQLite the write lock (``BEGIN IMMEDIATE``) and on PostgreSQL a
   transaction-scoped advisory lock make these checks one at a time, so concurrent guesses each
   see the others' pending attempts and cannot slip past the limit together;
2. the password is checked with no transaction open (and re-hashed there when the stored hash
   has outdated parameters);
3. a success is a second tiny write: the hash must be unchanged since step 1 (a password reset
   in between wins), the attempt becomes a success and this address's failures for the username
   are cleared. A failure needs no second write: its row already says so.

Throttle (policy and figures in :mod:`annotation.sign_in_throttle`): failed attempts in the last
hour are counted per username-and-address, per address, per username and overall; past each
key's free failures the next attempt waits 30 s · 2^k after the key's latest failure, capped at
15 minutes. Nothing is locked outright, so a stranger cannot lock the admin out: the owner
signing in from another address meets only the username-wide (50) and global (500) ceilings.
All state is in ``login_attempts``, so the limit holds across app servers (SPEC §9). The table
stays small: refused attempts are not stored, rows older than the window are deleted at each
attempt, and a success replaces the earlier rows of its username-and-address.

A signed-in browser holds a session (:mod:`annotation.services.accounts.sessions`): a password change or
reset, a deactivation and a role taken away revoke every session of that user in the same
transaction as the change; :func:`annotation.services.accounts.sessions.resume_session` is what each page
run calls to learn who is signed in as the database has them now.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotation import sign_in_throttle as throttle
from annotation.services import audit
from annotation.services.accounts import sessions
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import (
    AuthenticationFailed,
    InvalidInput,
    NotFound,
    PermissionDenied,
    RateLimited,
)
from annotation.services.text_limits import check_length, clip
from annotation.services.number_limits import checks_numbers
from annotation.usernames import UsernameError, check_username, find_lookalike
from db.engine import Database
from db.models import ROLES, LoginAttempt, User, utcnow

MIN_PASSWORD_LENGTH = 8
#: the throttle's figures (a module attribute so tests can shrink the ceilings)
THROTTLE = throttle.ThrottlePolicy()
#: failures a user may make from one address before the back-off starts
MAX_FAILURES = THROTTLE.free_per_pair
#: failed attempts older than this no longer count (and their rows are deleted)
FAILURE_WINDOW = THROTTLE.window
WRONG_CREDENTIALS = "Wrong username or password, or the account is inactive."
#: PostgreSQL advisory lock taken by the throttle's short transaction (any constant bigint)
_THROTTLE_LOCK = 0x43687254  # "ChrT"
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


def _check_display_name(display_name: str | None) -> str:
    """The display name as stored (surrounding spaces removed; "" stands for the username)."""
    return check_length((display_name or "").strip(), User.display_name, "display name")


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
    display_name = _check_display_name(display_name)
    _check_password(password)
    password_hash = hash_password(password)  # before the write: Argon2 never holds the lock
    with db.write() as s:
        if s.bind.dialect.name == "postgresql":
            # two first visitors at once must not both become admin
            s.execute(text("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE"))
        if s.scalar(select(func.count()).select_from(User)):
            raise PermissionDenied("An administrator already exists; sign in instead.")
        user = _add_user(s, username, password_hash, "admin", display_name)
        audit.record(s, user.id, "create_first_admin", "user", user.id, username=username)
        return Actor.of(user)


def _address_key(address: str | None) -> str:
    """The client address as stored: every attempt without one shares the key ``""``."""
    return clip(address.strip(), LoginAttempt.address) if isinstance(address, str) else ""


def _recent_failures(s: Session, username: str, address: str, since: datetime) -> dict[str, throttle.Failures]:
    """Failed attempts after ``since`` under each throttle key."""
    failed = (LoginAttempt.succeeded.is_(False), LoginAttempt.at > since)
    where = {
        "pair": (LoginAttempt.username == username, LoginAttempt.address == address),
        "address": (LoginAttempt.address == address,),
        "username": (LoginAttempt.username == username,),
        "global": (),
    }
    found = {}
    for key, conditions in where.items():
        n, latest = s.execute(select(func.count(), func.max(LoginAttempt.at))
                              .where(*failed, *conditions)).one()
        found[key] = throttle.Failures(n or 0, latest)
    return found


def _verify(password_hash: str, password: str) -> bool:
    try:
        return bool(_hasher.verify(password_hash, password))
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def authenticate(db: Database, username: str, password: str, *, address: str | None = None,
                 now: datetime | None = None) -> Actor:
    """Check a username/password pair made from client ``address``; the :class:`Actor` or raise.

    Raises :class:`RateLimited` (even for the right password) while the throttle holds this
    attempt back, and :class:`AuthenticationFailed` otherwise — the same message whether the
    username or the password was wrong. ``address`` is the client's IP address (None: unknown,
    all such attempts share one key); ``now`` is for tests. See the module docstring.
    """
    username = (username or "").strip()
    password = password or ""
    name_key = clip(username, LoginAttempt.username)  # no account has a longer name
    address_key = _address_key(address)
    policy = THROTTLE

    # 1. a tiny write: throttle, the pending attempt (counted as a failure), the stored hash
    with db.write() as s:
        if s.bind.dialect.name == "postgresql":
            # throttle checks one at a time, so parallel guesses cannot pass the limit together
            s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _THROTTLE_LOCK})
        # the clock is read under the lock, so attempts are stamped in the order they are counted
        now = now or utcnow()
        s.execute(delete(LoginAttempt).where(LoginAttempt.at <= now - policy.window))
        wait, key = throttle.wait_for(policy, _recent_failures(s, name_key, address_key,
                                                                now - policy.window), now)
        if wait > timedelta(0):
            raise RateLimited(throttle.refusal_message(wait, key))
        attempt = LoginAttempt(username=name_key, address=address_key, at=now, succeeded=False)
        s.add(attempt)
        s.flush()
        attempt_id = attempt.id
        user = s.scalar(select(User).where(User.username == username))
        user_id, stored_hash = (user.id, user.password_hash) if user is not None else (None, None)
        active = user is not None and user.is_active

    # 2. no transaction open: the slow part
    ok = _verify(stored_hash or _dummy_hash(), password) and stored_hash is not None and active
    if not ok:
        raise AuthenticationFailed(WRONG_CREDENTIALS)
    new_hash = hash_password(password) if _hasher.check_needs_rehash(stored_hash) else None

    # 3. a tiny write: the success
    with db.write() as s:
        user = s.get(User, user_id)
        if user is None or not user.is_active or user.password_hash != stored_hash:
            raise AuthenticationFailed(WRONG_CREDENTIALS)  # changed meanwhile: the attempt stays failed
        if new_hash is not None:
            user.password_hash = new_hash  # same password, stronger parameters: not a "change"
        # a success ends this address's run of failures for the username (and keeps one row)
        s.execute(delete(LoginAttempt).where(LoginAttempt.username == name_key,
                                             LoginAttempt.address == address_key,
                                             LoginAttempt.id != attempt_id))
        s.execute(update(LoginAttempt).where(LoginAttempt.id == attempt_id).values(succeeded=True))
        return Actor.of(user)


def hash_password(password: str) -> str:
    """An Argon2id hash of ``password`` (the one place passwords are hashed)."""
    return _hasher.hash(password)


def _add_user(s: Session, username: str, password_hash: str, role: str, display_name: str) -> User:
    """Insert a checked account with its hash, made before the transaction (the caller checked
    who may do it)."""
    lookalike = find_lookalike(username, s.scalars(select(User.username)))
    if lookalike is not None:
        raise InvalidInput(f"The username {username!r} looks like the existing account {lookalike!r}.")
    user = User(username=username, display_name=display_name or username,
                password_hash=password_hash, role=role, is_active=True)
    s.add(user)
    s.flush()
    return user


def _create_user(db: Database, actor: Actor | None, username: str, password: str, role: str,
                 display_name: str) -> UserInfo:
    username = _check_username(username)
    display_name = _check_display_name(display_name)
    _check_password(password)
    _check_role(role)
    password_hash = hash_password(password)  # before the write: Argon2 never holds the lock
    try:
        with db.write() as s:
            if actor is not None:
                authorize(s, actor, Policy.USERS_MANAGE)
            user = _add_user(s, username, password_hash, role, display_name)
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
        authorize(s, actor, Policy.USERS_MANAGE)
        return [_info(u) for u in s.scalars(select(User).order_by(User.username))]


def list_annotators(db: Database, actor: Actor) -> list[UserInfo]:
    """Lead: active accounts that annotate (every role may annotate)."""
    with db.read() as s:
        authorize(s, actor, Policy.ANNOTATORS_LIST)
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


@checks_numbers
def set_role(db: Database, actor: Actor, user_id: int, role: str) -> UserInfo:
    """Admin: change a user's role; the last active admin cannot demote themself. A demotion
    signs the user's browsers out (they sign in again with the lesser role)."""
    _check_role(role)
    with db.write() as s:
        authorize(s, actor, Policy.USERS_MANAGE)
        user = _target(s, user_id)
        if user.role == "admin" and role != "admin" and user.is_active and _active_admins(s) <= 1:
            raise InvalidInput("This is the last active administrator; make someone else admin first.")
        old, user.role = user.role, role
        if sessions.is_demotion(old, role):  # powers taken away: the user signs in again
            sessions.revoke_user_sessions(s, user.id, sessions.ROLE_CHANGED)
        audit.record(s, actor.user_id, "set_role", "user", user.id, old=old, new=role)
        return _info(user)


@checks_numbers
def set_active(db: Database, actor: Actor, user_id: int, active: bool) -> UserInfo:
    """Admin: deactivate (or reactivate) an account. Their work stays; they cannot sign in, and
    a deactivation signs out every browser they are signed in on."""
    with db.write() as s:
        authorize(s, actor, Policy.USERS_MANAGE)
        user = _target(s, user_id)
        if not active and user.role == "admin" and user.is_active and _active_admins(s) <= 1:
            raise InvalidInput("This is the last active administrator and cannot be deactivated.")
        user.is_active = active
        if not active:
            sessions.revoke_user_sessions(s, user.id, sessions.DEACTIVATED)
        audit.record(s, actor.user_id, "activate" if active else "deactivate", "user", user.id)
        return _info(user)


@checks_numbers
def reset_password(db: Database, actor: Actor, user_id: int, new_password: str) -> None:
    """Admin: set a new password for someone and clear their sign-in throttle; every browser
    they are signed in on is signed out (its session revoked)."""
    _check_password(new_password)
    with db.read() as s:
        authorize(s, actor, Policy.USERS_MANAGE)
    password_hash = hash_password(new_password)  # outside any transaction
    with db.write() as s:
        authorize(s, actor, Policy.USERS_MANAGE)
        user = _target(s, user_id)
        user.password_hash = password_hash
        user.password_changed_at = utcnow()
        s.execute(delete(LoginAttempt).where(LoginAttempt.username == user.username))
        sessions.revoke_user_sessions(s, user.id, sessions.PASSWORD_RESET)
        audit.record(s, actor.user_id, "reset_password", "user", user.id)


def change_own_password(db: Database, actor: Actor, old_password: str, new_password: str) -> Actor:
    """Anyone: change their own password, proving the old one. Every session of the account is
    revoked, this browser's too; the returned actor may start a new one for this browser
    (:func:`sessions.start_session`), which the app does so that the changer stays signed in."""
    _check_password(new_password)
    with db.read() as s:
        stored_hash = authorize(s, actor, Policy.OWN_ACCOUNT).password_hash
    # Argon2 with no transaction open
    if not _verify(stored_hash, old_password or ""):
        raise AuthenticationFailed("The current password is wrong.")
    password_hash = hash_password(new_password)
    with db.write() as s:
        user = authorize(s, actor, Policy.OWN_ACCOUNT)
        if user.password_hash != stored_hash:
            raise AuthenticationFailed("Your password was changed meanwhile; sign in again.")
        user.password_hash = password_hash
        user.password_changed_at = utcnow()
        sessions.revoke_user_sessions(s, user.id, sessions.PASSWORD_CHANGED)
        audit.record(s, actor.user_id, "change_password", "user", user.id)
        return Actor.of(user)


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
