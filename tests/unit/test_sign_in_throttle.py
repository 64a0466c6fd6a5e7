"""The throttle's rule (annotation.sign_in_throttle): only a key past its free failures waits,
however its latest failure is stamped."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from annotation import sign_in_throttle as throttle

POLICY = throttle.ThrottlePolicy()
T = datetime(2026, 3, 1, 9, 0, 0)


@pytest.mark.parametrize("key", throttle.KEYS)
@pytest.mark.parametrize("later", [timedelta(0), timedelta(milliseconds=3), timedelta(minutes=5)])
def test_a_key_below_its_free_failures_never_waits(key, later):
    # pending rows of attempts made at the same moment, stamped just after this attempt's clock
    below = throttle.Failures(POLICY.free(key) - 1, T + later)
    assert throttle.wait_for(POLICY, {key: below}, T) == (timedelta(0), "")


@pytest.mark.parametrize("key", throttle.KEYS)
def test_a_key_at_its_free_failures_waits_the_base_wait(key):
    at_free = throttle.Failures(POLICY.free(key), T)
    assert throttle.wait_for(POLICY, {key: at_free}, T + timedelta(seconds=10)) == (
        POLICY.base_wait - timedelta(seconds=10), key)


def test_a_failure_stamped_after_now_counts_as_made_now():
    """Another app server's clock, or a concurrent pending row, cannot stretch a wait past the
    back-off (nor past the cap)."""
    ahead = throttle.Failures(POLICY.free_per_pair + 20, T + timedelta(minutes=10))
    assert throttle.wait_for(POLICY, {"pair": ahead}, T) == (POLICY.max_wait, "pair")


def test_the_longest_wait_of_all_keys_wins():
    failures = {
        "pair": throttle.Failures(POLICY.free_per_pair + 1, T),           # 60 s after T
        "address": throttle.Failures(POLICY.free_per_address - 1, T),     # below: no wait
        "username": throttle.Failures(POLICY.free_per_username + 3, T),   # 240 s after T
        "global": throttle.Failures(3, T + timedelta(seconds=1)),         # below: no wait
    }
    assert throttle.wait_for(POLICY, failures, T) == (timedelta(seconds=240), "username")
    assert throttle.wait_for(POLICY, failures, T + timedelta(seconds=300)) == (timedelta(0), "")
