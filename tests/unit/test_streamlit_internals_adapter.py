"""Streamlit's private testing internals are used in one file, tests/pages/streamlit_internals.py,
so a Streamlit upgrade that changes them is one file's change."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ADAPTER = REPO / "tests" / "pages" / "streamlit_internals.py"
PRIVATE = re.compile(r"\._tree\b|\._page_hash\b|\._registered_pages\b|\._widget_state\b|\bat\._run\(|"
                     r"STREAMLIT_INTERNAL_KEY_\{")


def test_only_the_adapter_touches_streamlits_testing_internals():
    users = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").rglob("*.py")
                   if p != ADAPTER and p != Path(__file__).resolve() and PRIVATE.search(p.read_text(encoding="utf-8")))
    assert not users, f"use tests/pages/streamlit_internals.py instead: {users}"
    assert PRIVATE.search(ADAPTER.read_text(encoding="utf-8"))  # the pattern still finds them
