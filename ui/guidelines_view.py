"""The annotation guidelines as a project annotates under them: the Guidelines page and the
workbench's "Guidelines" popover show the same text, that of the project's
``guidelines_version`` (the version every new annotation records), so the header's "guidelines
v1.0" and the text shown never disagree."""

from __future__ import annotations

from functools import lru_cache

import streamlit as st

from annotation.guidelines import Guidelines, current_guidelines, guidelines_for
from ui.display import plain


@lru_cache(maxsize=16)
def _bundled(version: str | None) -> tuple[Guidelines | None, Guidelines]:
    """(the text of ``version``, or None; the newest) — the bundled files do not change while
    the server runs, and the workbench header draws them on every edit's rerun."""
    newest = current_guidelines()
    return (guidelines_for(version) if version is not None else newest), newest


def show_guidelines(version: str | None, *, height: int | None = None) -> None:
    """Draw the guidelines of ``version`` (None: no project — the newest), under a caption that
    names the version; a version with no bundled text shows the newest and says so. ``height``:
    scroll inside a box of that many pixels."""
    guide, newest = _bundled(version)
    if guide is None:
        st.caption(f"This project records guidelines version “{plain(version)}”, which has no text "
                   f"here; the newest, version {newest.version}, is shown.")
        guide = newest
    else:
        st.caption(f"Guidelines version {guide.version}")
        if guide.version != newest.version:
            st.caption(f"Version {newest.version} is newer: a lead can move the project to it in "
                       "the project's settings (new samples then record it).")
    (st.container(height=height) if height else st.container()).markdown(guide.text)
