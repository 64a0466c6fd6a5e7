"""Accounts service: first admin, login and its rate limit, password hashing, user administration,
and role checks made against the database on every call (SPEC sections 2 and 10)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.authz import Actor
from annotation.services.errors import (
    AuthenticationFailed,
    InvalidInput,
    NotFound,
    PermissionDenied,
    RateLimited,
)
from db.models import AuditEvent, LoginAttempt, User

from service_helpers import complete_content, count
import workbench_writes


def _user(db, username: str) -> User:
    with db.read() as s:
        return s.scalar(select(User).where(User.username == username))


def _users_snapshot(db) -> list[tuple]:
    with db.read() as s:
        return [(u.id, u.username, u.role, u.is_active, u.password_hash)
                for u in s.scalars(select(User).order_by(User.id))]


# --- first admin -----------------------------------------------------------------------------


def test_first_admin_only_while_the_database_is_empty(db):
    assert accounts.needs_first_admin(db)
    first = accounts.create_first_admin(db, "root", "root-password")
    assert first.role == "admin" and first.username == "root"
    assert not accounts.needs_first_admin(db)

    with pytest.raises(PermissionDenied):
        accounts.create_first_admin(db, "intruder", "intruder-password")
    assert count(db, User) == 1
    assert _user(db, "intruder") is None
    # the first admin can sign in
    assert accounts.authenticate(db, "root", "root-password").user_id == first.user_id


def test_first_admin_validates_username_and_password(db):
    with pytest.raises(InvalidInput):
        accounts.create_first_admin(db, "x", "long-enough-password")  # too short a name
    with pytest.raises(InvalidInput):
        accounts.create_first_admin(db, "root", "short")
    with pytest.raises(InvalidInput):
        accounts.create_first_admin(db, "has space", "long-enough-password")
    assert accounts.needs_first_admin(db)


# --- authenticate ----------------------------------------------------------------------------


def test_authenticate_ok_returns_actor_of_that_user(db, admin, make_user):
    ann = make_user("ann", "annotator")
    again = accounts.authenticate(db, "ann", "ann-password")
    assert again == ann
    assert again.role == "annotator" and again.username == "ann"
    # surrounding whitespace in the username is tolerated
    assert accounts.authenticate(db, "  ann ", "ann-password").user_id == ann.user_id


@pytest.mark.parametrize("username,password", [
    ("ann", "wrong-password"),
    ("nobody", "ann-password"),
    ("ann", ""),
    ("", ""),
    ("ANN", "ann-password"),  # usernames are case-sensitive
])
def test_authenticate_refuses_wrong_credentials(db, make_user, username, password):
    make_user("ann", "annotator")
    with pytest.raises(AuthenticationFailed) as exc:
        accounts.authenticate(db, username, password)
    # same message whichever part was wrong
    assert str(exc.value) == "Wrong username or password, or the account is inactive."


def test_authenticate_refuses_inactive_user_even_with_right_password(db, admin, make_user):
    ann = make_user("ann", "annotator")
    accounts.set_active(db, admin, ann.user_id, False)
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "ann-password")
    accounts.set_active(db, admin, ann.user_id, True)
    assert accounts.authenticate(db, "ann", "ann-password").user_id == ann.user_id


def test_every_attempt_is_recorded(db, make_user):
    make_user("ann", "annotator")  # one successful login inside the factory
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "nope-nope")
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ghost", "nope-nope")
    assert count(db, LoginAttempt, LoginAttempt.username == "ann",
                 LoginAttempt.succeeded.is_(True)) == 1
    assert count(db, LoginAttempt, LoginAttempt.username == "ann",
                 LoginAttempt.succeeded.is_(False)) == 1
    assert count(db, LoginAttempt, LoginAttempt.username == "ghost",
                 LoginAttempt.succeeded.is_(False)) == 1


def test_rate_limit_after_five_failures_even_with_right_password(db, make_user):
    make_user("ann", "annotator")
    for i in range(accounts.MAX_FAILURES):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ann", f"wrong-{i}-password")
        assert count(db, LoginAttempt, LoginAttempt.username == "ann",
                     LoginAttempt.succeeded.is_(False)) == i + 1
    with pytest.raises(RateLimited) as exc:
        accounts.authenticate(db, "ann", "ann-password")
    assert str(exc.value) == "Too many sign-in attempts from here. Try again in 30 seconds."
    with pytest.raises(RateLimited):
        accounts.authenticate(db, "ann", "wrong-again-password")
    # the back-off is per username and address: others can still sign in from here
    make_user("bob", "annotator")
    assert accounts.authenticate(db, "bob", "bob-password").username == "bob"
    # the rate-limited attempts were not successes
    assert count(db, LoginAttempt, LoginAttempt.username == "ann",
                 LoginAttempt.succeeded.is_(True)) == 1  # the factory's own login only


def test_a_successful_sign_in_ends_the_run_of_failures(db, make_user):
    make_user("ann", "annotator")
    for _ in range(accounts.MAX_FAILURES - 1):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ann", "typo-password")
    accounts.authenticate(db, "ann", "ann-password")
    # four more typos after the good sign-in do not lock the account
    for _ in range(accounts.MAX_FAILURES - 1):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ann", "typo-password")
    assert accounts.authenticate(db, "ann", "ann-password").username == "ann"


def test_rate_limit_counts_unknown_usernames_too(db, admin):
    for _ in range(accounts.MAX_FAILURES):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ghost", "whatever-password")
    with pytest.raises(RateLimited):
        accounts.authenticate(db, "ghost", "whatever-password")


def test_rate_limit_ends_when_failures_leave_the_window(db, make_user):
    make_user("ann", "annotator")
    for _ in range(accounts.MAX_FAILURES):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ann", "wrong-password")
    with pytest.raises(RateLimited):
        accounts.authenticate(db, "ann", "ann-password")
    # age the failures past the window (as if 16 minutes had gone by)
    with db.write() as s:
        for attempt in s.scalars(select(LoginAttempt).where(LoginAttempt.username == "ann")):
            attempt.at = attempt.at - accounts.FAILURE_WINDOW - timedelta(minutes=1)
    assert accounts.authenticate(db, "ann", "ann-password").username == "ann"


def test_password_hashes_are_argon2id_and_never_the_password(real_kdf, db, admin, make_user):
    make_user("ann", "annotator")
    accounts.reset_password(db, admin, _user(db, "ann").id, "reset-password-1")
    lead = make_user("lead", "lead")
    accounts.change_own_password(db, lead, "lead-password", "changed-password")
    hashes = {u.username: u.password_hash for u in
              (_user(db, "admin"), _user(db, "ann"), _user(db, "lead"))}
    passwords = {"admin": "admin-password", "ann": "reset-password-1", "lead": "changed-password"}
    for name, h in hashes.items():
        assert h.startswith("$argon2id$"), name
        assert passwords[name] not in h
        assert h != passwords[name]
    # salted: the same password twice gives different hashes
    accounts.create_user(db, admin, "twin1", "same-password", "annotator")
    accounts.create_user(db, admin, "twin2", "same-password", "annotator")
    assert _user(db, "twin1").password_hash != _user(db, "twin2").password_hash
    # a modern cost: at least argon2-cffi's RFC 9106 low-memory profile (64 MiB, t=3)
    params = real_kdf.check_needs_rehash(hashes["admin"])
    assert params is False
    assert real_kdf.memory_cost >= 64 * 1024 and real_kdf.time_cost >= 3


def test_hash_with_outdated_parameters_is_upgraded_at_login(db, admin):
    """A hash made with weaker parameters verifies and is re-hashed with the current ones."""
    from argon2 import PasswordHasher

    weak = PasswordHasher(time_cost=1, memory_cost=512, parallelism=1)
    with db.write() as s:
        s.add(User(username="old", display_name="old", password_hash=weak.hash("old-password"),
                   role="annotator", is_active=True))
    assert accounts.authenticate(db, "old", "old-password").username == "old"
    new_hash = _user(db, "old").password_hash
    assert new_hash.startswith("$argon2id$")
    assert not accounts._hasher.check_needs_rehash(new_hash)
    assert accounts.authenticate(db, "old", "old-password").username == "old"


# --- role checks -----------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["annotator", "lead"])
def test_non_admins_cannot_administer_accounts(db, admin, make_user, role):
    caller = make_user("caller", role)
    victim = make_user("victim", "annotator")
    before = _users_snapshot(db)
    audit_before = count(db, AuditEvent)

    with pytest.raises(PermissionDenied):
        accounts.create_user(db, caller, "newbie", "newbie-password", "admin")
    with pytest.raises(PermissionDenied):
        accounts.list_users(db, caller)
    with pytest.raises(PermissionDenied):
        accounts.set_role(db, caller, caller.user_id, "admin")
    with pytest.raises(PermissionDenied):
        accounts.set_role(db, caller, victim.user_id, "lead")
    with pytest.raises(PermissionDenied):
        accounts.set_active(db, caller, victim.user_id, False)
    with pytest.raises(PermissionDenied):
        accounts.set_active(db, caller, admin.user_id, False)
    with pytest.raises(PermissionDenied):
        accounts.reset_password(db, caller, victim.user_id, "hijacked-password")
    with pytest.raises(PermissionDenied):
        accounts.reset_password(db, caller, admin.user_id, "hijacked-password")

    assert _users_snapshot(db) == before
    assert count(db, AuditEvent) == audit_before
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "victim", "hijacked-password")


def test_a_forged_actor_role_is_not_trusted(db, make_user):
    """The role is re-read from the database; an Actor claiming admin does not make one."""
    ann = make_user("ann", "annotator")
    forged = Actor(ann.user_id, ann.username, "admin")
    with pytest.raises(PermissionDenied):
        accounts.list_users(db, forged)
    with pytest.raises(PermissionDenied):
        accounts.set_role(db, forged, ann.user_id, "admin")
    assert _user(db, "ann").role == "annotator"


def test_lead_may_list_annotators_but_annotator_may_not(db, admin, make_user):
    lead = make_user("lead", "lead")
    ann = make_user("ann", "annotator")
    names = [u.username for u in accounts.list_annotators(db, lead)]
    assert names == sorted(["admin", "ann", "lead"])
    with pytest.raises(PermissionDenied):
        accounts.list_annotators(db, ann)


def test_deactivated_users_old_actor_is_refused_everywhere(db, admin, make_user, make_project):
    project_id = make_project(5)
    ann = make_user("ann", "annotator")
    item = queue.next_item(db, ann, project_id)
    accounts.set_active(db, admin, ann.user_id, False)

    calls = [
        lambda: queue.next_item(db, ann, project_id),
        lambda: queue.open_item(db, ann, item.annotation_id),
        lambda: workbench_writes.save_draft(db, ann, item.annotation_id, item.version, complete_content(), step=1),
        lambda: workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content()),
        lambda: queue.my_history(db, ann, project_id),
        lambda: queue.queue_status(db, ann, project_id),
        lambda: queue.pool_size(db, ann, project_id),
        lambda: projects.list_projects(db, ann),
        lambda: projects.get_project(db, ann, project_id),
        lambda: accounts.change_own_password(db, ann, "ann-password", "new-password-1"),
    ]
    for call in calls:
        with pytest.raises(PermissionDenied):
            call()
    # nothing moved
    with db.read() as s:
        from db.models import Annotation
        a = s.get(Annotation, item.annotation_id)
        assert (a.status, a.version) == ("draft", 1)


def test_deactivated_admin_and_lead_lose_their_powers(db, admin, make_user):
    lead = make_user("lead", "lead")
    admin2 = make_user("admin2", "admin")
    accounts.set_active(db, admin, lead.user_id, False)
    accounts.set_active(db, admin, admin2.user_id, False)
    with pytest.raises(PermissionDenied):
        projects.create_project(db, lead, "Sneaky")
    with pytest.raises(PermissionDenied):
        accounts.list_users(db, admin2)
    with pytest.raises(PermissionDenied):
        accounts.create_user(db, admin2, "sneaky", "sneaky-password", "admin")
    assert _user(db, "sneaky") is None


def test_demoted_lead_loses_lead_powers_at_next_call(db, admin, make_user):
    lead = make_user("lead", "lead")
    projects.create_project(db, lead, "Allowed")
    accounts.set_role(db, admin, lead.user_id, "annotator")
    with pytest.raises(PermissionDenied):
        projects.create_project(db, lead, "Not allowed")
    # still an annotator: may list projects
    assert [p.name for p in projects.list_projects(db, lead)] == ["Allowed"]


# --- administration --------------------------------------------------------------------------


def test_admin_creates_lists_and_changes_users(db, admin):
    info = accounts.create_user(db, admin, "ann", "ann-password", "annotator", display_name=" Ann A ")
    assert (info.username, info.role, info.is_active, info.display_name) == ("ann", "annotator", True, "Ann A")
    assert [u.username for u in accounts.list_users(db, admin)] == ["admin", "ann"]
    assert accounts.set_role(db, admin, info.id, "lead").role == "lead"
    assert _user(db, "ann").role == "lead"
    assert accounts.set_active(db, admin, info.id, False).is_active is False
    assert _user(db, "ann").is_active is False
    with db.read() as s:
        actions = [e.action for e in s.scalars(
            select(AuditEvent).where(AuditEvent.entity == "user", AuditEvent.entity_id == str(info.id))
            .order_by(AuditEvent.id))]
    assert actions == ["create_user", "set_role", "deactivate"]


def test_duplicate_username_is_invalid_input(db, admin):
    accounts.create_user(db, admin, "ann", "ann-password", "annotator")
    with pytest.raises(InvalidInput, match="taken"):
        accounts.create_user(db, admin, "ann", "other-password", "lead")
    with pytest.raises(InvalidInput, match="taken"):
        accounts.create_user_from_cli(db, "ann", "other-password", "lead")
    assert count(db, User, User.username == "ann") == 1
    assert _user(db, "ann").role == "annotator"
    # the failed attempts left the database usable
    accounts.create_user(db, admin, "bob", "bob-password", "annotator")
    assert count(db, User) == 3


@pytest.mark.parametrize("username,password,role", [
    ("a", "long-enough", "annotator"),
    ("bad name", "long-enough", "annotator"),
    ("x" * 65, "long-enough", "annotator"),
    ("fine", "short", "annotator"),
    ("fine", "long-enough", "superuser"),
])
def test_create_user_validates(db, admin, username, password, role):
    with pytest.raises(InvalidInput):
        accounts.create_user(db, admin, username, password, role)
    assert count(db, User) == 1


def test_set_role_and_set_active_on_missing_user(db, admin):
    with pytest.raises(NotFound):
        accounts.set_role(db, admin, 99999, "lead")
    with pytest.raises(NotFound):
        accounts.set_active(db, admin, 99999, False)
    with pytest.raises(NotFound):
        accounts.reset_password(db, admin, 99999, "long-enough-password")
    with pytest.raises(InvalidInput):
        accounts.set_role(db, admin, admin.user_id, "overlord")


def test_last_admin_cannot_be_demoted_or_deactivated(db, admin):
    with pytest.raises(InvalidInput):
        accounts.set_role(db, admin, admin.user_id, "lead")
    with pytest.raises(InvalidInput):
        accounts.set_active(db, admin, admin.user_id, False)
    u = _user(db, "admin")
    assert (u.role, u.is_active) == ("admin", True)
    # with a second active admin the first may step down …
    other = accounts.create_user(db, admin, "admin2", "admin2-password", "admin")
    accounts.set_role(db, admin, admin.user_id, "lead")
    assert _user(db, "admin").role == "lead"
    # … and now admin2 is the last one
    admin2 = accounts.authenticate(db, "admin2", "admin2-password")
    with pytest.raises(InvalidInput):
        accounts.set_active(db, admin2, other.id, False)
    with pytest.raises(InvalidInput):
        accounts.set_role(db, admin2, other.id, "annotator")
    assert _user(db, "admin2").role == "admin" and _user(db, "admin2").is_active


def test_inactive_admin_does_not_count_as_remaining_admin(db, admin):
    other = accounts.create_user(db, admin, "admin2", "admin2-password", "admin")
    accounts.set_active(db, admin, other.id, False)
    with pytest.raises(InvalidInput):
        accounts.set_role(db, admin, admin.user_id, "annotator")
    with pytest.raises(InvalidInput):
        accounts.set_active(db, admin, admin.user_id, False)


def test_reset_password_sets_new_password_and_clears_lock(db, admin, make_user):
    ann = make_user("ann", "annotator")
    for _ in range(accounts.MAX_FAILURES):
        with pytest.raises(AuthenticationFailed):
            accounts.authenticate(db, "ann", "wrong-password")
    with pytest.raises(RateLimited):
        accounts.authenticate(db, "ann", "ann-password")

    accounts.reset_password(db, admin, ann.user_id, "fresh-password")
    assert accounts.authenticate(db, "ann", "fresh-password").user_id == ann.user_id
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "ann-password")
    with pytest.raises(InvalidInput):
        accounts.reset_password(db, admin, ann.user_id, "short")


def test_change_own_password(db, make_user):
    ann = make_user("ann", "annotator")
    before = _user(db, "ann").password_hash
    with pytest.raises(AuthenticationFailed):
        accounts.change_own_password(db, ann, "not-my-password", "new-password-1")
    with pytest.raises(InvalidInput):
        accounts.change_own_password(db, ann, "ann-password", "short")
    assert _user(db, "ann").password_hash == before

    accounts.change_own_password(db, ann, "ann-password", "new-password-1")
    assert accounts.authenticate(db, "ann", "new-password-1").user_id == ann.user_id
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "ann-password")
    assert count(db, AuditEvent, AuditEvent.action == "change_password",
                 AuditEvent.entity_id == str(ann.user_id)) == 1


def test_no_service_leaks_password_hashes(db, admin, make_user):
    make_user("ann", "annotator")
    for info in accounts.list_users(db, admin):
        assert not any("argon2" in str(v) for v in vars(info).values())


def test_stale_actor_of_deleted_user_is_refused(db, admin):
    ghost = Actor(12345, "ghost", "admin")
    with pytest.raises(PermissionDenied):
        accounts.list_users(db, ghost)


def test_audit_rows_for_account_changes(db, admin):
    info = accounts.create_user(db, admin, "ann", "ann-password", "annotator")
    accounts.reset_password(db, admin, info.id, "other-password")
    with db.read() as s:
        ev = s.scalars(select(AuditEvent).where(AuditEvent.action == "reset_password")).one()
    assert (ev.actor_id, ev.entity, ev.entity_id) == (admin.user_id, "user", str(info.id))
    # the audit detail never holds the password
    with db.read() as s:
        for e in s.scalars(select(AuditEvent)):
            assert "other-password" not in str(e.detail)
            assert "ann-password" not in str(e.detail)


def test_user_row_update_by_others_takes_effect(db, admin, make_user):
    """A role raised directly in the database is honoured at the next call (no cached role)."""
    ann = make_user("ann", "annotator")
    with pytest.raises(PermissionDenied):
        accounts.list_users(db, ann)
    with db.write() as s:
        s.execute(update(User).where(User.id == ann.user_id).values(role="admin"))
    assert len(accounts.list_users(db, ann)) == 2


# --- no Argon2 while the database is locked (issue 9, item 4) --------------------------------


class _LockProbe:
    """Wraps the hasher: every verify/hash made while ``armed`` first checks that no transaction
    is open on the database — on SQLite a second connection must get the write lock at once
    (``BEGIN IMMEDIATE`` with timeout 0), on PostgreSQL no other session may sit inside a
    transaction. It also records how many failed attempts were already stored at that moment."""

    def __init__(self, inner, db):
        self.inner, self.db = inner, db
        self.armed = False
        self.checks: list[str] = []
        self.failures_seen: list[int] = []

    def _check(self, what: str) -> None:
        if not self.armed:
            return
        if self.db.is_sqlite:
            import sqlite3

            con = sqlite3.connect(self.db.engine.url.database, timeout=0, isolation_level=None)
            try:
                con.execute("BEGIN IMMEDIATE")  # raises "database is locked" under a write
                con.execute("ROLLBACK")
            finally:
                con.close()
        else:
            from sqlalchemy import create_engine, text

            probe = create_engine(self.db.engine.url, poolclass=__import__("sqlalchemy.pool").pool.NullPool)
            try:
                with probe.connect() as conn:
                    busy = conn.execute(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'")).scalar()
                assert busy == 0, f"{busy} transaction(s) open during {what}"
            finally:
                probe.dispose()
        self.checks.append(what)
        self.failures_seen.append(count(self.db, LoginAttempt, LoginAttempt.succeeded.is_(False)))

    def verify(self, hash_, password):
        self._check("verify")
        return self.inner.verify(hash_, password)

    def hash(self, password):
        self._check("hash")
        return self.inner.hash(password)

    def check_needs_rehash(self, hash_):
        return self.inner.check_needs_rehash(hash_)


@pytest.fixture
def lock_probe(db, monkeypatch):
    # The dummy hash (unknown usernames) is made once per process, by whichever test gets there
    # first: make it now, so what the probe records does not depend on the order tests run in.
    accounts._dummy_hash()
    probe = _LockProbe(accounts._hasher, db)
    monkeypatch.setattr(accounts, "_hasher", probe)
    return probe


def test_password_check_runs_with_no_transaction_open(db, make_user, lock_probe):
    make_user("ann", "annotator")
    lock_probe.armed = True
    assert accounts.authenticate(db, "ann", "ann-password").username == "ann"
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "wrong-password")
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ghost", "wrong-password")  # the dummy-hash path
    assert lock_probe.checks == ["verify", "verify", "verify"]


def test_rehash_at_login_runs_with_no_transaction_open(db, admin, lock_probe):
    from argon2 import PasswordHasher

    weak = PasswordHasher(time_cost=1, memory_cost=512, parallelism=1)
    with db.write() as s:
        s.add(User(username="old", display_name="old", password_hash=weak.hash("old-password"),
                   role="annotator", is_active=True))
    lock_probe.armed = True
    assert accounts.authenticate(db, "old", "old-password").username == "old"
    assert lock_probe.checks == ["verify", "hash"]
    assert not lock_probe.inner.check_needs_rehash(_user(db, "old").password_hash)


def test_a_pending_attempt_counts_while_its_password_is_checked(db, make_user, lock_probe):
    """Race safety: the attempt is stored (as a failure) before the slow check, so guesses made
    at the same time from other sessions count against the limit."""
    make_user("ann", "annotator")
    lock_probe.armed = True
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "wrong-password")
    assert accounts.authenticate(db, "ann", "ann-password").username == "ann"
    assert lock_probe.failures_seen == [1, 2]
    # afterwards the good attempt is a success, the earlier failure from here is cleared
    assert count(db, LoginAttempt, LoginAttempt.succeeded.is_(False)) == 0


def test_password_changed_during_the_check_is_not_accepted(db, admin, make_user, monkeypatch):
    """The hash is read before the slow check; a reset landing meanwhile wins."""
    ann = make_user("ann", "annotator")
    inner = accounts._hasher

    class ResetDuringVerify:
        def verify(self, hash_, password):
            monkeypatch.setattr(accounts, "_hasher", inner)
            accounts.reset_password(db, admin, ann.user_id, "brand-new-password")
            return inner.verify(hash_, password)

    monkeypatch.setattr(accounts, "_hasher", ResetDuringVerify())
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", "ann-password")
    assert accounts.authenticate(db, "ann", "brand-new-password").user_id == ann.user_id


# --- throttle per address, per username, overall; bounded table (issue 9, item 5) ------------

ATTACKER, OWNER = "203.0.113.9", "198.51.100.7"


def _fail(db, username, address, at, password="wrong-password"):
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, username, password, address=address, now=at)


def _refused(db, username, address, at, password="wrong-password") -> str:
    with pytest.raises(RateLimited) as exc:
        accounts.authenticate(db, username, password, address=address, now=at)
    return str(exc.value)


def test_a_stranger_cannot_lock_the_admin_out(db, admin):
    t = accounts.utcnow()
    for i in range(accounts.MAX_FAILURES):
        _fail(db, "admin", ATTACKER, t + timedelta(seconds=i))
    # 30 s after the latest failure (at t + 4 s)
    assert _refused(db, "admin", ATTACKER, t + timedelta(seconds=6), "admin-password") == (
        "Too many sign-in attempts from here. Try again in 28 seconds.")
    # the owner, from their own address, signs in at once
    assert accounts.authenticate(db, "admin", "admin-password", address=OWNER,
                                 now=t + timedelta(seconds=7)).user_id == admin.user_id
    # and that success does not clear the stranger's back-off
    _refused(db, "admin", ATTACKER, t + timedelta(seconds=8))


def test_back_off_doubles_after_each_further_failure_and_is_capped(db, admin):
    t = accounts.utcnow()
    for _ in range(accounts.MAX_FAILURES):
        _fail(db, "admin", ATTACKER, t)
    expected = ["30 seconds", "1 minute", "2 minutes", "4 minutes", "8 minutes", "15 minutes",
                "15 minutes"]
    for wait_text in expected:
        message = _refused(db, "admin", ATTACKER, t)
        assert message == f"Too many sign-in attempts from here. Try again in {wait_text}."
        wait = accounts.THROTTLE.base_wait * 2 ** expected.index(wait_text)
        wait = min(wait, accounts.THROTTLE.max_wait)
        _refused(db, "admin", ATTACKER, t + wait - timedelta(seconds=1))
        t = t + wait
        _fail(db, "admin", ATTACKER, t)  # allowed once the wait is over (and fails again)
    # the right password after the wait gets in, and ends the run of failures from here
    t += accounts.THROTTLE.max_wait
    assert accounts.authenticate(db, "admin", "admin-password", address=ATTACKER, now=t).username == "admin"
    _fail(db, "admin", ATTACKER, t)


def test_one_address_trying_many_usernames_is_held_back(db, admin):
    t = accounts.utcnow()
    free = accounts.THROTTLE.free_per_address
    for i in range(free):
        _fail(db, f"guess{i}", ATTACKER, t)
    assert _refused(db, "another-name", ATTACKER, t).startswith("Too many sign-in attempts from here.")
    # other addresses are not affected
    assert accounts.authenticate(db, "admin", "admin-password", address=OWNER, now=t).username == "admin"


def test_distributed_guessing_of_one_username_meets_a_ceiling(db, admin, make_user, monkeypatch):
    from dataclasses import replace

    monkeypatch.setattr(accounts, "THROTTLE", replace(accounts.THROTTLE, free_per_username=8))
    t = accounts.utcnow()
    for i in range(8):
        _fail(db, "admin", f"192.0.2.{i}", t)
    assert _refused(db, "admin", OWNER, t, "admin-password") == (
        "Too many sign-in attempts for this username. Try again in 30 seconds.")
    make_user("ann", "annotator")  # other accounts are unaffected
    assert accounts.authenticate(db, "admin", "admin-password", address=OWNER,
                                 now=t + timedelta(seconds=30)).username == "admin"


def test_global_ceiling(db, admin, monkeypatch):
    from dataclasses import replace

    monkeypatch.setattr(accounts, "THROTTLE", replace(accounts.THROTTLE, free_global=10))
    t = accounts.utcnow()
    for i in range(10):
        _fail(db, f"user{i}", f"192.0.2.{i}", t)
    assert _refused(db, "admin", OWNER, t, "admin-password") == (
        "Too many sign-in attempts right now. Try again in 30 seconds.")
    assert accounts.authenticate(db, "admin", "admin-password", address=OWNER,
                                 now=t + timedelta(seconds=30)).username == "admin"


def test_unknown_usernames_do_not_grow_the_table_without_bound(db, admin):
    t = accounts.utcnow()
    for i in range(200):
        try:
            accounts.authenticate(db, f"nobody{i}", "wrong-password", address=ATTACKER, now=t)
        except (AuthenticationFailed, RateLimited):
            pass
    # refused attempts are not stored: the address's free failures and nothing more
    assert count(db, LoginAttempt) == accounts.THROTTLE.free_per_address
    # rows older than the window are deleted at the next attempt
    later = t + accounts.THROTTLE.window + timedelta(seconds=1)
    _fail(db, "nobody", OWNER, later)
    assert count(db, LoginAttempt) == 1


def test_a_success_keeps_one_row_per_username_and_address(db, make_user):
    make_user("ann", "annotator")
    for _ in range(3):
        accounts.authenticate(db, "ann", "ann-password", address=OWNER)
    assert count(db, LoginAttempt, LoginAttempt.username == "ann", LoginAttempt.address == OWNER) == 1
    assert count(db, LoginAttempt, LoginAttempt.username == "ann", LoginAttempt.address == "") == 1


def test_throttle_policy_waits():
    from annotation import sign_in_throttle as throttle

    policy = throttle.ThrottlePolicy()
    assert [throttle.backoff(policy, n, 5).total_seconds() for n in range(4, 12)] == [
        0, 30, 60, 120, 240, 480, 900, 900]
    assert throttle.backoff(policy, 10_000, 5) == policy.max_wait
    assert throttle.describe_wait(timedelta(seconds=0.2)) == "1 second"
    assert throttle.describe_wait(timedelta(seconds=61)) == "2 minutes"
