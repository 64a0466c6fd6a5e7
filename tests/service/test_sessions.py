"""Sign-in sessions (issue 10, item 6): a random token stored only as its SHA-256, resumed on every
run, ended by expiry, sign-out, password change or reset, deactivation and demotion; the table
stays bounded. On SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from annotation.services.accounts import accounts, sessions
from annotation.services.errors import AuthenticationFailed
from db import config as app_config
from db.models import User, UserSession, utcnow

from service_helpers import count


def _rows(db) -> list[UserSession]:
    with db.read() as s:
        return list(s.scalars(select(UserSession).order_by(UserSession.id)))


def _row(db, token: str) -> UserSession:
    with db.read() as s:
        return s.scalar(select(UserSession).where(UserSession.token_hash == sessions.token_hash(token)))


def _refused(db, token: str, **kwargs) -> str:
    with pytest.raises(AuthenticationFailed) as exc:
        sessions.resume_session(db, token, **kwargs)
    return str(exc.value)


def test_start_stores_only_the_tokens_sha256_and_resume_signs_in(db, make_user):
    ann = make_user("ann")
    new = sessions.start_session(db, ann, user_agent="Mozilla/5.0 " + "x" * 400)
    assert len(new.token) >= 43 and new.actor.user_id == ann.user_id
    assert new.max_age_s == 12 * 3600
    [row] = _rows(db)
    assert row.token_hash == hashlib.sha256(new.token.encode()).hexdigest()
    assert new.token not in (row.token_hash, row.user_agent, row.revoked_reason)
    assert len(row.user_agent) == 255 and row.revoked_at is None
    assert row.expires_at == new.expires_at
    assert row.expires_at - row.created_at == timedelta(hours=12)
    # nothing anywhere in the table holds the token in clear
    with db.read() as s:
        dumped = [str(v) for r in s.execute(select(UserSession.__table__)).all() for v in r]
    assert not any(new.token in v for v in dumped)

    actor = sessions.resume_session(db, new.token)
    assert (actor.user_id, actor.username, actor.role) == (ann.user_id, "ann", "annotator")
    # two sign-ins get two different tokens
    assert sessions.start_session(db, ann).token != new.token


def test_unknown_or_malformed_tokens_are_refused(db, make_user):
    sessions.start_session(db, make_user("ann"))
    for token in ("", "not-a-token", "x" * 500, "ü" * 10, None, 42):
        assert _refused(db, token) == sessions.ENDED


def test_resume_applies_a_promotion_at_once(db, admin, make_user):
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    accounts.set_role(db, admin, ann.user_id, "lead")
    assert sessions.resume_session(db, new.token).role == "lead"


def test_a_session_expires_after_its_lifetime(db, make_user, monkeypatch):
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    assert sessions.resume_session(db, new.token, now=new.expires_at - timedelta(seconds=1))
    assert _refused(db, new.token, now=new.expires_at) == sessions.EXPIRED
    # the lifetime is configurable
    monkeypatch.setenv(sessions.LIFETIME_ENV, "0.5")
    assert sessions.start_session(db, ann).max_age_s == 12 * 3600  # read once, at start
    app_config.load()  # a restart reads it again
    short = sessions.start_session(db, ann)
    assert short.max_age_s == 1800
    assert _refused(db, short.token, now=utcnow() + timedelta(minutes=31)) == sessions.EXPIRED


def test_last_seen_is_written_at_most_once_a_minute(db, make_user):
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    started = _row(db, new.token).last_seen_at
    sessions.resume_session(db, new.token, now=started + timedelta(seconds=59))
    assert _row(db, new.token).last_seen_at == started  # no write for a run within the minute
    later = started + timedelta(minutes=5)
    sessions.resume_session(db, new.token, now=later)
    assert _row(db, new.token).last_seen_at == later
    sessions.resume_session(db, new.token, now=later + timedelta(seconds=30))
    assert _row(db, new.token).last_seen_at == later
    # sliding last_seen does not extend the fixed expiry
    assert _row(db, new.token).expires_at == new.expires_at


def test_sign_out_revokes_that_session_only(db, make_user):
    ann = make_user("ann")
    here, there = sessions.start_session(db, ann), sessions.start_session(db, ann)
    assert sessions.end_session(db, here.token)
    assert _refused(db, here.token) == "You signed out of this browser; please sign in again."
    assert sessions.resume_session(db, there.token).user_id == ann.user_id
    assert _row(db, here.token).revoked_reason == "signed_out"
    # signing out twice, or with a token that never existed, changes nothing
    assert not sessions.end_session(db, here.token)
    assert not sessions.end_session(db, "never-issued")


def test_password_change_revokes_every_session_and_a_new_one_can_start(db, make_user):
    ann = make_user("ann")
    here, other = sessions.start_session(db, ann), sessions.start_session(db, ann)
    changed = accounts.change_own_password(db, ann, "ann-password", "new-password-1")
    for old in (here, other):
        assert _refused(db, old.token) == "Your password was changed; please sign in again."
    # this browser signs in anew with the actor the change returned
    renewed = sessions.start_session(db, changed)
    assert sessions.resume_session(db, renewed.token).user_id == ann.user_id
    # an actor from before the change cannot start a session any more
    with pytest.raises(AuthenticationFailed, match="password was changed"):
        sessions.start_session(db, ann)


def test_admin_reset_revokes_every_session(db, admin, make_user):
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    accounts.reset_password(db, admin, ann.user_id, "reset-by-admin")
    assert _refused(db, new.token) == "Your password was changed; please sign in again."
    assert _row(db, new.token).revoked_reason == "password_reset"


def test_a_session_older_than_the_password_is_refused_even_unrevoked(db, make_user):
    """The second guard: a password changed by a path that did not revoke (e.g. a script)."""
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    with db.write() as s:
        s.get(User, ann.user_id).password_changed_at = utcnow()
    assert _row(db, new.token).revoked_at is None
    assert _refused(db, new.token) == "Your password was changed; please sign in again."


def test_deactivation_revokes_and_reactivation_does_not_restore(db, admin, make_user):
    ann = make_user("ann")
    new = sessions.start_session(db, ann)
    accounts.set_active(db, admin, ann.user_id, False)
    assert _refused(db, new.token) == "Your account is no longer active. Ask an administrator."
    assert _row(db, new.token).revoked_reason == "deactivated"
    accounts.set_active(db, admin, ann.user_id, True)
    assert _refused(db, new.token) == "Your account is no longer active. Ask an administrator."
    # an inactive account cannot start one either
    accounts.set_active(db, admin, ann.user_id, False)
    with pytest.raises(AuthenticationFailed):
        sessions.start_session(db, ann)


def test_demotion_revokes_promotion_keeps(db, admin, make_user):
    lead = make_user("lead1", "lead")
    kept = sessions.start_session(db, lead)
    accounts.set_role(db, admin, lead.user_id, "admin")
    assert sessions.resume_session(db, kept.token).role == "admin"
    accounts.set_role(db, admin, lead.user_id, "annotator")
    assert _refused(db, kept.token) == "An administrator changed your role; please sign in again."


def test_sign_in_prunes_expired_rows_and_bounds_each_users_sessions(db, make_user, monkeypatch):
    ann, bob = make_user("ann"), make_user("bob")
    old = sessions.start_session(db, bob, lifetime=timedelta(minutes=10))
    later = utcnow() + timedelta(minutes=11)
    sessions.start_session(db, ann, now=later)
    assert _row(db, old.token) is None  # expired: deleted at the next sign-in of anyone

    monkeypatch.setattr(sessions, "MAX_SESSIONS_PER_USER", 3)
    made = [sessions.start_session(db, ann, now=later + timedelta(seconds=i)) for i in range(6)]
    live = [r for r in _rows(db) if r.user_id == ann.user_id and r.revoked_at is None]
    assert len(live) == 3
    assert {r.token_hash for r in live} == {sessions.token_hash(n.token) for n in made[-3:]}
    assert _refused(db, made[0].token, now=later + timedelta(seconds=10)) == (
        "You signed in on too many browsers; this one was signed out. Please sign in again.")
    # revoked rows are kept (to say why) but bounded too
    revoked = [r for r in _rows(db) if r.user_id == ann.user_id and r.revoked_at is not None]
    assert len(revoked) <= 3
    assert count(db, UserSession) <= 6


def test_deleting_a_user_deletes_their_sessions(db, make_user):
    ann = make_user("ann")
    sessions.start_session(db, ann)
    with db.write() as s:
        s.delete(s.get(User, ann.user_id))
    assert count(db, UserSession) == 0


def test_no_password_hashing_inside_the_session_calls(db, make_user, monkeypatch):
    """Sessions never hash a password (Argon2 stays out of their write transactions)."""
    ann = make_user("ann")

    class Forbidden:
        def __getattr__(self, name):
            raise AssertionError(f"Argon2 ({name}) used by a session call")

    monkeypatch.setattr(accounts, "_hasher", Forbidden())
    new = sessions.start_session(db, ann)
    sessions.resume_session(db, new.token, now=utcnow() + timedelta(minutes=2))
    sessions.end_session(db, new.token)
