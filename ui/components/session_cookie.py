"""The sign-in cookie, written and cleared in the browser (Streamlit custom component v2).

Streamlit 1.67 can only *read* cookies (``st.context.cookies``, the ones the browser sent with the
websocket's handshake when the tab connected); a page cannot send a ``Set-Cookie`` header. This
component runs a few lines of JavaScript (``session_cookie.js``) in the page (CCv2 components
live in the app's own document, not in an iframe) that set ``document.cookie``:

* ``chronocept_session=<token>; Path=/; Max-Age=<seconds left>; SameSite=Strict`` plus ``Secure``
  when the page was loaded over https. Written only when the browser does not hold that value
  already, so drawing the component on every run costs nothing.
* cleared (``Max-Age=0``) only while the cookie still holds the token being cleared: a tab that
  was signed out must not wipe the fresh cookie another tab of the same browser has just written.

A cookie written from JavaScript cannot be ``HttpOnly``; README (*Sign-in sessions*) says what
protects the token instead (only its SHA-256 is stored, it expires, any sign-out, password change
or deactivation revokes it).

DOM for tests (inside the component's shadow root): ``[data-testid="session-cookie"]`` with
``data-state`` = ``set`` (written now), ``kept`` (the browser already had it), ``cleared``,
``absent`` (nothing to clear).
"""

from __future__ import annotations

import re
from typing import Literal

import streamlit as st

from ui.components.sources import component_source

#: The cookie's name (read back by ``ui.session.handshake_cookie``).
COOKIE_NAME = "chronocept_session"
#: What a token may look like (``secrets.token_urlsafe``: URL-safe base64), so it can be written
#: into ``document.cookie`` without any escaping.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")

_HTML = '<span data-testid="session-cookie" hidden></span>'

_JS = component_source("session_cookie.js")

_COMPONENT = st.components.v2.component(
    "chronocept_session_cookie", html=_HTML, js=_JS, isolate_styles=True
)


def session_cookie(action: Literal["set", "clear"], token: str, *, max_age_s: int = 0,
                   key: str = "auth.session_cookie") -> None:
    """Make the browser hold (``"set"``, for ``max_age_s`` seconds) or drop (``"clear"``) the
    sign-in cookie carrying ``token``. Draws nothing visible. A token that is not URL-safe
    base64 is refused with ``ValueError`` (it would not survive the cookie header)."""
    if action not in ("set", "clear"):
        raise ValueError(f"unknown cookie action {action!r}")
    if not _TOKEN.fullmatch(token or ""):
        raise ValueError("a session token is 16 to 128 URL-safe base64 characters")
    _COMPONENT(
        key=key,
        data={"name": COOKIE_NAME, "action": action, "value": token,
              "max_age": max(1, int(max_age_s)) if action == "set" else 0},
    )
