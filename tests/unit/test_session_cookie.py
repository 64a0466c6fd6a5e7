"""The cookie component refuses what it could not write into ``document.cookie`` safely."""

from __future__ import annotations

import secrets

import pytest

from ui.components.session_cookie import _TOKEN, session_cookie


@pytest.mark.parametrize("token", ["", "short", "a b" * 10, "x;Path=/evil" * 3, "é" * 20, "a" * 129])
def test_a_token_that_is_not_url_safe_base64_is_refused(token):
    with pytest.raises(ValueError, match="URL-safe base64"):
        session_cookie("set", token, max_age_s=60)


def test_an_unknown_action_is_refused():
    with pytest.raises(ValueError, match="unknown cookie action"):
        session_cookie("keep", secrets.token_urlsafe(32))  # type: ignore[arg-type]


def test_real_tokens_are_accepted():
    assert all(_TOKEN.fullmatch(secrets.token_urlsafe(32)) for _ in range(200))
