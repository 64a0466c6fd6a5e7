"""The components' browser code: the ``.js`` and ``.css`` files beside this module.

Each component module reads its files once, at import, and hands the text to
``st.components.v2.component`` (no build step, no bundler). A component's ES module cannot import
another's, so code that several components share stays in one file of its own and is put in
front of each component's code at import: the teardown rule and the event queue
(``ui.components.events``), the chart's point helpers and the keys between a text's gaps (below).
A component's pure state logic has a file of its own too (the annotation surface's edit queue
and local state, below), so that ``node --test`` can test it without a browser (``tests/js/``).
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def component_source(name: str) -> str:
    """The text of ``name``, a ``.js`` or ``.css`` file in ``ui/components/``, read as UTF-8."""
    return (_HERE / name).read_text(encoding="utf-8")


#: The validity chart's point rules and drawing steps, shared by the curve canvas and the
#: annotation surface.
CURVE_POINTS_JS = component_source("curve_points.js")
#: The keys that move between the gaps of a text, shared by the token boundary editor and the
#: annotation surface.
TEXT_GAPS_JS = component_source("text_gaps.js")
#: How a new edit joins the annotation surface's queue of unacknowledged edits (consecutive
#: moves of one point fold into the last).
EDIT_QUEUE_JS = component_source("edit_queue.js")
#: The surface's local state: how each edit changes what it draws before the server answers, and
#: the edits still on their way re-applied on top of a new view (after ``CURVE_POINTS_JS``).
SURFACE_STATE_JS = component_source("surface_state.js")
#: Which neutral tint each unlabelled segment of the surface's text gets (kept through splits).
SEGMENT_TINTS_JS = component_source("segment_tints.js")
#: Where the surface breaks a long text into paragraphs (each laid out and painted on its own).
TEXT_PARAGRAPHS_JS = component_source("text_paragraphs.js")
