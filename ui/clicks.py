"""A click the page did not act on is said so, never dropped without a word.

A button that names what it acts on (Review's "Accept … B1-0003", a De-duplication card's
Confirm) is drawn again only while that thing is on the page, under a key of its own. A click
made while the page redraws — "Accept … B1-0003" pressed 100 ms after Next, while the heading
already said B1-0006 — reaches a run that no longer draws that button: Streamlit then returns
nothing for it, and nothing is done, which is right (the lead no longer sees what it named). What
was missing is the word: each such button here notes its click in its ``on_click`` callback
(which Streamlit runs before the page, for any button of the page it last drew), the page
answers the click when the button comes back pressed, and :func:`say_unanswered` — called once
the page has drawn its buttons — tells the person about every click no run answered:
:data:`UNANSWERED`.

A page may also name a *view*: a session key that its navigation controls change (Review's
count of the lead's requests for another case). A button drawn under one view and clicked after
the view changed is refused even when the page draws it again — the lead asked to leave what it
names before clicking it (a box still reporting the old case can bring it back for a run).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

#: the message for a click that reached the page after it changed
UNANSWERED = "The page changed under your click; nothing was done."
#: keys of the buttons clicked and not answered yet, and of those clicked after their view changed
K_CLICKED = "clicks.unanswered"
K_REFUSED = "clicks.refused"


def _clicked(key: str, view: str | None, drawn_in: object) -> None:
    st.session_state.setdefault(K_CLICKED, set()).add(key)
    if view is not None and st.session_state.get(view) != drawn_in:
        st.session_state.setdefault(K_REFUSED, set()).add(key)


def button(where: Any, label: str, *, key: str, view: str | None = None, **kwargs: Any) -> bool:
    """``where.button(label, key=key, **kwargs)`` (``where``: ``st`` or a column), True when the
    page is to act on the click — the click is then answered; a click made after ``view`` (a
    session key) changed, or on a button this run does not draw, stays unanswered."""
    drawn_in = st.session_state.get(view) if view is not None else None
    pressed = where.button(label, key=key, on_click=_clicked, args=(key, view, drawn_in), **kwargs)
    if not pressed or key in st.session_state.get(K_REFUSED, ()):
        return False
    st.session_state.get(K_CLICKED, set()).discard(key)
    return True


def say_unanswered() -> None:
    """Tell the person about the clicks no run answered (once); call it after the page has drawn
    the buttons it acts on, and before it stops early."""
    st.session_state.pop(K_REFUSED, None)
    if st.session_state.pop(K_CLICKED, None):
        st.toast(UNANSWERED, icon=":material/touch_app:")
