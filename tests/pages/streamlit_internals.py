"""Every use of Streamlit's private testing internals, in one place: a Streamlit upgrade that
changes them is a change to this file alone.

AppTest (Streamlit 1.67) reports only the widgets on the page and opens only the default page, so
a few page tests reach past it: to send the widget states a browser sends (a gone widget's late
report, a custom component's trigger), to ask for a page by its URL path (a deep link), and to
read the pages the app registered.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash


def widget_states(at: AppTest):  # type: ignore[no-untyped-def]
    """The WidgetStates message AppTest would send on its next run (the widgets on the page)."""
    return at._tree.get_widget_states()


def widget_state(widget):  # type: ignore[no-untyped-def]
    """The WidgetState message a browser sends for one AppTest widget right now."""
    return widget._widget_state


def run_with_states(at: AppTest, states) -> AppTest:  # type: ignore[no-untyped-def]
    """Run the app once with ``states`` (a WidgetStates message), as ``AppTest.run`` does with
    its own; fail on an exception shown by the page."""
    at._run(states)
    assert not at.exception, [e.value for e in at.exception]
    return at


def trigger_id(component_id: str, trigger: str) -> str:
    """The widget id under which a custom component (v2) delivers its ``trigger``."""
    return f"$$STREAMLIT_INTERNAL_KEY_{component_id}__{trigger}"


def ask_for_path(at: AppTest, url_path: str) -> AppTest:
    """Make the next run ask for the page at ``url_path``, as a browser's request for that URL
    does (AppTest keeps asking for it until told otherwise)."""
    at._page_hash = calc_hash(url_path)
    return at


def registered_pages(at: AppTest) -> list[dict]:
    """What the last run's ``st.navigation`` registered, a dict per page (``page_name``,
    ``url_pathname``, ``script_path`` …): the registry ``switch_page`` resolves against."""
    return list(at._registered_pages.values())
