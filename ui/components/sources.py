"""The components' browser code: the ``.js`` and ``.css`` files beside this module.

Each component module reads its files once, at import, and hands the text to
``st.components.v2.component`` (no build step, no bundler). A component's ES module cannot import
another's, so code that several components share stays in one file of its own and is put in
front of each component's code at import: the teardown rule and the event queue
(``ui.components.events``), the chart's point helpers and the keys between a text's gaps (below).
A component's pure state logic has a file of its own too (the annotation surface's edit queue
and local state, below), so that ``node --test`` can test it without a browser (``tests/js/``).
A large component is written in parts, each a file of plain declarations put in front of its
module the same way (the annotation surface's parts: ``SURFACE_PARTS_JS``).
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def component_source(name: str) -> str:
    """The text of ``name``, a ``.js`` or ``.css`` file in ``ui/components/``, read as UTF-8."""
    return (_HERE / name).read_text(encoding="utf-8")


def joined_sources(*names: str) -> str:
    """The files ``names`` in that order, each on lines of its own (as one module's text)."""
    return "\n".join(component_source(name) for name in names)


#: The small DOM helpers (``h``, ``el``: an HTML or SVG element with its attributes; what an
#: event's target is), shared by the curve canvas and the annotation surface.
DOM_HELPERS_JS = component_source("dom_helpers.js")
#: The validity chart's point rules, shared by the curve canvas and the annotation surface.
CURVE_POINTS_JS = component_source("curve_points.js")
#: The pointer and the keys on a chart's points (place, drag, remove, nudge) and the points
#: drawn, shared by the curve canvas and the annotation surface (after ``CURVE_POINTS_JS`` and
#: ``DOM_HELPERS_JS``).
POINT_DRAG_JS = component_source("point_drag.js")
#: The grid a validity chart draws its points on (the validity lines, the time ticks), shared by
#: the curve canvas and the annotation surface.
CHART_GRID_JS = component_source("chart_grid.js")
#: A chart's point editing as a component puts it in front of its own module: the DOM helpers,
#: the point rules, the pointer and the grid.
CHART_POINTS_JS = "\n".join((DOM_HELPERS_JS, CURVE_POINTS_JS, POINT_DRAG_JS, CHART_GRID_JS))
#: The keys that move between the gaps of a text, shared by the token boundary editor and the
#: annotation surface.
TEXT_GAPS_JS = component_source("text_gaps.js")
#: How a new edit joins the annotation surface's queue of unacknowledged edits (consecutive
#: moves of one point fold into the last).
EDIT_QUEUE_JS = component_source("edit_queue.js")
#: The surface's local state: the view's and the content's types and their readers
#: (``surface_view.js``), then how each edit changes what the surface draws before the server
#: answers, and the edits still on their way re-applied on top of a new view (after
#: ``CURVE_POINTS_JS``).
SURFACE_STATE_JS = joined_sources("surface_view.js", "surface_state.js")
#: Which neutral tint each unlabelled segment of the surface's text gets (kept through splits).
SEGMENT_TINTS_JS = component_source("segment_tints.js")
#: Where the surface breaks a long text into paragraphs (each laid out and painted on its own).
TEXT_PARAGRAPHS_JS = component_source("text_paragraphs.js")
#: The annotation surface's parts, in the order they are put in front of its module: the
#: configuration and types they share, the text (segmentation), the axis rows, the chart (curve
#: editing), a context pair's panel, the submit (flag panel, confirmation) and the steps and
#: footer. Each is made with the surface's context (``surface_config.js``).
SURFACE_PART_FILES: tuple[str, ...] = ("surface_config.js", "surface_text.js", "surface_axes.js", "surface_chart.js",
                                       "surface_pair.js", "surface_submit.js", "surface_footer.js")
SURFACE_PARTS_JS = joined_sources(*SURFACE_PART_FILES)
