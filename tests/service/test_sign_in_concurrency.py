"""Correct sign-ins made at the same moment are never throttled (SPEC section 10: the limit is
on *failed* attempts). Each attempt is stored as a pending failure before its password check, so
simultaneous sign-ins see each other's pending rows; those must never push a key that is below
its free failures into a wait. Real threads, on SQLite and PostgreSQL (the ``db`` fixture)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from annotation.services.accounts import accounts
from annotation.services.errors import AuthenticationFailed, RateLimited
from db.models import LoginAttempt
from service_helpers import count

N_USERS = 8
ROUNDS = 5


def test_simultaneous_correct_sign_ins_are_never_refused(db, admin):
    for i in range(N_USERS):
        accounts.create_user(db, admin, f"user{i}", f"user{i}-password", "annotator")
    barrier = threading.Barrier(N_USERS, timeout=30)
    outcomes: list[str] = []
    lock = threading.Lock()

    def sign_in(i: int) -> None:
        for _ in range(ROUNDS):
            barrier.wait()  # every user presses "Sign in" at the same moment
            try:
                accounts.authenticate(db, f"user{i}", f"user{i}-password", address=f"192.0.2.{i + 1}")
                outcome = "ok"
            except (RateLimited, AuthenticationFailed) as exc:
                outcome = str(exc)
            with lock:
                outcomes.append(outcome)

    with ThreadPoolExecutor(max_workers=N_USERS) as pool:
        list(pool.map(sign_in, range(N_USERS)))
    refused = [o for o in outcomes if o != "ok"]
    assert len(outcomes) == N_USERS * ROUNDS
    assert refused == [], f"{len(refused)} of {len(outcomes)} refused: {refused[:3]}"
    assert count(db, LoginAttempt, LoginAttempt.succeeded.is_(False)) == 0


def test_simultaneous_wrong_guesses_still_meet_the_limit(db, admin):
    """The other side of the rule: guesses sent at once from one address all count, so no more
    than the free failures get a password check."""
    free = accounts.THROTTLE.free_per_pair
    n = 3 * free
    barrier = threading.Barrier(n, timeout=30)
    outcomes: list[str] = []
    lock = threading.Lock()

    def guess(i: int) -> None:
        barrier.wait()
        try:
            accounts.authenticate(db, "admin", f"guess-{i}", address="203.0.113.9")
            outcome = "checked"
        except AuthenticationFailed:
            outcome = "checked"
        except RateLimited:
            outcome = "refused"
        with lock:
            outcomes.append(outcome)

    with ThreadPoolExecutor(max_workers=n) as pool:
        list(pool.map(guess, range(n)))
    assert outcomes.count("checked") == free
    assert outcomes.count("refused") == n - free
