"""Open each review case at its top (Streamlit custom component v2, ``case_top.js``; no build).

Streamlit keeps the page's scroll position across reruns: after a decision at the foot of a case
the next case would open scrolled down to its decision buttons. This component is drawn once per
case with the case's id; when the id differs from the one the browser showed last, it scrolls the
page to the top, so the next case opens with its heading, flags and annotations in view. The same
case drawn again (any widget on it reruns the page) never moves the page.

DOM for tests (inside the component's shadow root): ``[data-testid="case-top"]`` with
``data-case`` = the case drawn last and ``data-scrolled`` = the last case it scrolled for.
"""

from __future__ import annotations

import streamlit as st

from ui.components.sources import component_source

_HTML = '<span data-testid="case-top" hidden></span>'

_COMPONENT = st.components.v2.component(
    "chronocept_case_top", html=_HTML, js=component_source("case_top.js"), isolate_styles=True
)


def case_top(case_id: int | str, *, key: str = "case_top") -> None:
    """Scroll to the page's top when case ``case_id`` replaces another one. Draws nothing."""
    _COMPONENT(key=key, data={"case": str(case_id)})
