"""Username rules (annotation.usernames): one validation, one normalisation, look-alikes."""

import pytest

from annotation.usernames import (
    UsernameError,
    check_username,
    find_lookalike,
    normalise_username,
    username_skeleton,
)


def test_surrounding_whitespace_is_removed_and_nothing_else_changes():
    assert normalise_username("  lead1 \t") == "lead1"
    assert check_username("lead1 ") == "lead1"
    assert check_username("Ann_03.x-y") == "Ann_03.x-y"


@pytest.mark.parametrize("bad", [
    "<script>alert(1)</script>", "admin\u202e", "ad\u200bmin", "аdmin",  # Cyrillic а
    "two words", "x", "a" * 65, "", "   ", None, 42, "lead1\n2",
])
def test_names_outside_the_rules_are_refused(bad):
    with pytest.raises(UsernameError, match="2–64 letters, digits"):
        check_username(bad)


@pytest.mark.parametrize("a, b", [
    ("lead1", "Lead1"), ("lead1", "LEAD1"), ("lead1", "leadl"), ("ann0", "anno"),
    ("admin", "admin\u202e"), ("admin", "ad\u200bmin"), ("admin", "аdmin"),  # Cyrillic а
    ("paypal", "раураl"), ("omega", "οmega"),  # Cyrillic, Greek
    ("admin", "ａｄｍｉｎ"),  # full-width (NFKC)
])
def test_look_alikes_share_a_skeleton(a, b):
    assert a != b and username_skeleton(a) == username_skeleton(b)


@pytest.mark.parametrize("a, b", [("lead1", "lead2"), ("ali", "all"), ("lead.1", "lead_1"), ("ann", "anne")])
def test_distinct_names_do_not(a, b):
    assert username_skeleton(a) != username_skeleton(b)


def test_find_lookalike_ignores_the_name_itself():
    assert find_lookalike("Lead1", ["boss", "lead1"]) == "lead1"
    assert find_lookalike("lead1", ["boss", "lead1"]) is None
    assert find_lookalike("ann2", ["boss", "lead1"]) is None
