"""Sign-in sessions that survive a reload, a new tab and a bookmark.

At sign-in the app asks :func:`start_session` for a random token (``secrets.token_urlsafe(32)``,
256 bits) and hands it to the browser in a cookie. Only the token's SHA-256 (hex) is stored, in
``user_sessions``: a copy of the table (a backup, a leaked dump) signs nobody in. Every run of
the app turns the token back into an :class:`Actor` with :func:`resume_session`, which refuses it
— saying why — once it is

* past ``expires_at`` (a fixed lifetime from sign-in: ``CHRONOCEPT_SESSION_HOURS``, default 12;
  activity does not extend it, so a stolen cookie is worth at most that long);
* revoked: its own sign-out (:func:`end_session`); a password change or an admin's reset, a
  deactivation, a role taken away (all of that user's sessions, :func:`revoke_user_sessions`,
  called by :mod:`annotation.services.accounts.accounts` inside the same transaction as the change);
* older than the account's ``password_changed_at`` (a second guard should a change ever be made
  without revoking), or its account is inactive or gone.

``last_seen_at`` slides, but is written at most once a minute per session (:data:`TOUCH_INTERVAL`):
a page run costs one read, not a write. The table stays bounded: each sign-in deletes rows past
their expiry and keeps at most :data:`MAX_SESSIONS_PER_USER` live sessions per user (the oldest
beyond that are revoked) and as many revoked ones (kept until they expire so that a browser still
holding one is told why it was signed out).

No password is hashed here, so every transaction is short (Argon2 never runs
inside a write transaction — :func:`accounts.authenticate` checks the password first, with no
transaction open, and only then is a session started).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Mapping

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from annotation.services.authz import Actor, rank
from annotation.services.errors import AuthenticationFailed
from annotation.services.text_limits import clip
from db.config import SESSION_HOURS_ENV, config
from db.engine import Database, is_transient
from db.models import User, UserSession, utcnow

#: Environment variable: how long a sign-in lasts, in hours (read at start: db.config).
LIFETIME_ENV = SESSION_HOURS_ENV
#: ``last_seen_at`` is written when the stored value is at least this old.
TOUCH_INTERVAL = timedelta(minutes=1)
#: Live sessions one user may hold (browsers, devices); the oldest beyond are revoked.
MAX_SESSIONS_PER_USER = 20
#: Longest token accepted from a cookie (``token_urlsafe(32)`` is 43 characters).
MAX_TOKEN_LENGTH = 128

# revoked_reason codes (each fits the column) and what the signed-out browser is told
SIGNED_OUT = "signed_out"
PASSWORD_CHANGED = "password_changed"
PASSWORD_RESET = "password_reset"
DEACTIVATED = "deactivated"
ROLE_CHANGED = "role_changed"
TOO_MANY = "too_many_sessions"
REASON_MESSAGES: Mapping[str, str] = {
    SIGNED_OUT: "You signed out of this browser; please sign in again.",
    PASSWORD_CHANGED: "Your password was changed; please sign in again.",
    PASSWORD_RESET: "Your password was changed; please sign in again.",
    DEACTIVATED: "Your account is no longer active. Ask an administrator.",
    ROLE_CHANGED: "An administrator changed your role; please sign in again.",
    TOO_MANY: "You signed in on too many browsers; this one was signed out. Please sign in again.",
}
ENDED = "Your sign-in has ended; please sign in again."
EXPIRED = "Your sign-in expired; please sign in again."
INACTIVE = REASON_MESSAGES[DEACTIVATED]


@dataclass(frozen=True)
class NewSession:
    """A session just started: the token goes to the browser's cookie and nowhere else.

    ``max_age_s`` is the cookie's ``Max-Age`` (whole seconds until ``expires_at``)."""

    token: str
    actor: Actor
    expires_at: datetime
    max_age_s: int


def token_hash(token: str) -> str:
    """What is stored for ``token``: its SHA-256, 64 hex digits. The token has 256 random bits,
    so a fast hash suffices (no one can guess their way to a preimage)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _plausible(token: object) -> bool:
    return isinstance(token, str) and 0 < len(token) <= MAX_TOKEN_LENGTH and token.isascii()


def start_session(db: Database, actor: Actor, *, user_agent: str = "", now: datetime | None = None,
                  lifetime: timedelta | None = None) -> NewSession:
    """Start a session for ``actor``, who has just proved their password (:func:`accounts.authenticate`,
    ``create_first_admin`` or ``change_own_password`` made it). Refused with
    :class:`AuthenticationFailed` when the account is inactive or its password changed since
    that proof. Prunes expired rows and the user's surplus sessions in the same short write."""
    lifetime = lifetime if lifetime is not None else config().session_lifetime
    now = now or utcnow()
    token = secrets.token_urlsafe(32)
    expires_at = now + lifetime
    with db.write() as s:
        user = s.get(User, actor.user_id)
        if user is None or not user.is_active:
            raise AuthenticationFailed(INACTIVE)
        if actor.password_changed_at is not None and user.password_changed_at != actor.password_changed_at:
            raise AuthenticationFailed(REASON_MESSAGES[PASSWORD_CHANGED])
        _prune(s, user.id, now)
        s.add(UserSession(user_id=user.id, token_hash=token_hash(token), created_at=now,
                          last_seen_at=now, expires_at=expires_at,
                          user_agent=clip(user_agent, UserSession.user_agent)))
        fresh = Actor.of(user)
    return NewSession(token, fresh, expires_at, max(1, int(lifetime.total_seconds())))


def _prune(s: Session, user_id: int, now: datetime) -> None:
    """Delete every expired row; of ``user_id``'s rows keep the newest live ones (revoking the
    rest, which leaves room for the one about to be added) and the newest revoked ones."""
    s.execute(delete(UserSession).where(UserSession.expires_at <= now))
    live = list(s.scalars(select(UserSession.id).where(UserSession.user_id == user_id,
                                                       UserSession.revoked_at.is_(None))
                          .order_by(UserSession.created_at.desc(), UserSession.id.desc())))
    surplus = live[MAX_SESSIONS_PER_USER - 1:]
    if surplus:
        s.execute(update(UserSession).where(UserSession.id.in_(surplus))
                  .values(revoked_at=now, revoked_reason=TOO_MANY))
    revoked = list(s.scalars(select(UserSession.id).where(UserSession.user_id == user_id,
                                                          UserSession.revoked_at.is_not(None))
                             .order_by(UserSession.revoked_at.desc(), UserSession.id.desc())))
    if len(revoked) > MAX_SESSIONS_PER_USER:
        s.execute(delete(UserSession).where(UserSession.id.in_(revoked[MAX_SESSIONS_PER_USER:])))


def resume_session(db: Database, token: str, *, now: datetime | None = None) -> Actor:
    """The :class:`Actor` that ``token`` (from the browser's cookie) signs in, as the database has
    them now (a role change applies at once). Raises :class:`AuthenticationFailed` with a message
    fit to show on the sign-in page when the token is unknown, expired or revoked, when the
    account is inactive, or when the password changed after the session started.

    One read per call; ``last_seen_at`` is written only when it is at least
    :data:`TOUCH_INTERVAL` old."""
    if not _plausible(token):
        raise AuthenticationFailed(ENDED)
    now = now or utcnow()
    with db.read() as s:
        row = s.execute(select(UserSession, User).join(User, User.id == UserSession.user_id)
                        .where(UserSession.token_hash == token_hash(token))).first()
        if row is None:
            raise AuthenticationFailed(ENDED)
        session, user = row
        if session.revoked_at is not None:
            raise AuthenticationFailed(REASON_MESSAGES.get(session.revoked_reason, ENDED))
        if session.expires_at <= now:
            raise AuthenticationFailed(EXPIRED)
        if not user.is_active:
            raise AuthenticationFailed(INACTIVE)
        if user.password_changed_at is not None and session.created_at < user.password_changed_at:
            raise AuthenticationFailed(REASON_MESSAGES[PASSWORD_CHANGED])
        actor = Actor.of(user)
        session_id, last_seen = session.id, session.last_seen_at
    if now - last_seen >= TOUCH_INTERVAL:
        try:
            with db.write() as s:
                s.execute(update(UserSession).where(UserSession.id == session_id,
                                                    UserSession.revoked_at.is_(None))
                          .values(last_seen_at=now))
        except Exception as exc:  # noqa: BLE001 — only a busy database is forgiven here
            # last_seen is bookkeeping: a database busy with an import must not stop the page
            # (the next run tries again); anything else is a real fault and is raised
            if not is_transient(exc):
                raise
    return actor


def end_session(db: Database, token: str, *, reason: str = SIGNED_OUT,
                now: datetime | None = None) -> bool:
    """Revoke the one session of ``token`` (sign-out). True when a live session was revoked;
    an unknown, expired or already revoked token changes nothing (signing out twice is fine)."""
    if not _plausible(token):
        return False
    now = now or utcnow()
    with db.write() as s:
        done = s.execute(update(UserSession)
                         .where(UserSession.token_hash == token_hash(token),
                                UserSession.revoked_at.is_(None))
                         .values(revoked_at=now,
                                 revoked_reason=clip(reason, UserSession.revoked_reason)))
        return bool(done.rowcount)


def revoke_user_sessions(s: Session, user_id: int, reason: str, now: datetime | None = None) -> int:
    """Inside the caller's transaction: revoke every live session of ``user_id`` (password change
    or reset, deactivation, role taken away); the number revoked."""
    done = s.execute(update(UserSession)
                     .where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None))
                     .values(revoked_at=now or utcnow(),
                             revoked_reason=clip(reason, UserSession.revoked_reason)))
    return int(done.rowcount or 0)


def is_demotion(old_role: str, new_role: str) -> bool:
    """True when ``new_role`` ranks below ``old_role`` (the user loses powers: sign them out)."""
    return rank(new_role) < rank(old_role)
