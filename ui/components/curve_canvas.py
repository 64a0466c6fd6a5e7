"""Curve canvas: the log-time validity chart on which the annotator places, drags and removes
the curve's points (Streamlit custom component v2; its code is ``curve_canvas.js`` / ``.css``
beside this file, after the shared ``instance_cleanup.js``, ``delivery.js`` and
``curve_points.js``; SVG, no build step, no libraries).

Python stays the source of truth: the page passes the points and the fitted curve; the chart
reports each edit as one event dict, which the page applies with
:func:`annotation.workbench.curve_points.apply_point_event` and draws again. Delivery is exactly-once
(see :mod:`ui.components.events`); an edit on its way is drawn at once (optimistically).

Events (the return value, or the argument of ``on_change``)::

    {"action": "add", "x": 54.2, "y": 0.8}               # click on empty chart area
    {"action": "move", "index": 1, "x": 60.0, "y": 0.5}  # drag and release, or arrow keys
    {"action": "remove", "index": 0}                     # double-click, right-click, Delete

``x`` in ``[0, x_max]`` (log-time units), ``y`` in ``[0, 1]``, rounded to 2 decimals.
Arrow keys nudge the focused point by 1 x-unit / 0.02 y (Shift: 5 / 0.1).

Geometry for tests (inside the component's shadow root; Playwright CSS selectors pierce it):
``[data-testid="curve-plot"]`` is an SVG ``rect`` covering exactly the plot area, with
``data-x-min="0" data-x-max="<x_max>" data-y-min="0" data-y-max="1"``. With Playwright::

    box = page.locator('[data-testid="curve-plot"]').bounding_box()
    px = box["x"] + (x - x_min) / (x_max - x_min) * box["width"]
    py = box["y"] + (1 - (y - y_min) / (y_max - y_min)) * box["height"]
    page.mouse.click(px, py)            # -> {"action": "add", "x": ~x, "y": ~y}

(one pixel is about ``x_max / box["width"]`` x-units, so compare with that tolerance). Points
are ``circle[data-point="i"]`` (focusable, numbered i+1 on the chart); the chart root is
``[data-testid="curve-canvas"]`` with ``data-points`` = the drawn points as JSON, and the hint
line ``[data-testid="curve-hint"]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from annotation.curves.limits import MAX_POINTS
from annotation.timeaxis import X_MAX
from annotation.workbench.curve_points import ACTIONS
from ui.components.events import (
    DELIVERY_JS,
    TRIGGER,
    acknowledgement,
    first_new_event,
    make_callback,
)
from ui.components.sources import CURVE_POINTS_JS, component_source
from ui.components.token_boundaries import css_color

#: Most vertices sent for one curve; denser curves are thinned evenly (the chart is < 2000 px).
MAX_CURVE_VERTICES = 1200

_CSS = component_source("curve_canvas.css")
_JS = DELIVERY_JS + CURVE_POINTS_JS + component_source("curve_canvas.js")

_COMPONENT = st.components.v2.component(
    "chronocept_curve_canvas", css=_CSS, js=_JS, isolate_styles=True
)


def _finite_pairs(values: Sequence[Sequence[float]] | None) -> list[list[float]]:
    """``[[x, y], ...]`` of the finite pairs in ``values`` (JSON cannot carry NaN)."""
    pairs: list[list[float]] = []
    for value in values or []:
        try:
            x, y = float(value[0]), float(value[1])
        except (TypeError, ValueError, IndexError):
            continue
        if math.isfinite(x) and math.isfinite(y):
            pairs.append([x, y])
    return pairs


def _thinned(pairs: list[list[float]]) -> list[list[float]]:
    if len(pairs) <= MAX_CURVE_VERTICES:
        return pairs
    step = (len(pairs) - 1) / (MAX_CURVE_VERTICES - 1)
    return [pairs[round(i * step)] for i in range(MAX_CURVE_VERTICES)]


def _parse_event(action: dict[str, Any]) -> dict[str, Any] | None:
    """The public event dict (no protocol ``seq``), or None for something the chart never sends."""
    kind = action.get("action")
    if kind not in ACTIONS:
        return None
    event: dict[str, Any] = {"action": kind}
    for name in ("index", "x", "y"):
        if name in action:
            event[name] = action[name]
    return event


def curve_canvas(
    points: list[tuple[float, float]],
    *,
    curve: list[tuple[float, float]] | None = None,
    extra_curves: list[dict] | None = None,
    ticks: list[tuple[float, str]],
    x_max: float = X_MAX,
    max_points: int = MAX_POINTS,
    key: str,
    height: int = 380,
    disabled: bool = False,
    curve_label: str = "fitted curve",
    on_change: Callable[[dict[str, Any]], None] | None = None,
) -> dict | None:
    """Draw the validity chart with the annotation points and report the annotator's edits.

    Parameters
    ----------
    points
        The annotation points ``(x, y)``, in the order the page keeps them (indices in events
        refer to this order).
    curve
        The fitted proportional curve as dense ``(x, y)`` vertices, drawn as a line (optional).
    extra_curves
        More curves for comparison: ``{"points": [(x, y), ...], "color": "#hex", "label": str,
        "dash": bool}``; a legend appears when there are any.
    ticks
        ``(x, label)`` pairs for the time axis, e.g. ``(0, "1 min"), (42.96, "1 h")``.
    x_max, max_points
        The x range ``[0, x_max]`` and how many points may be placed.
    key
        Streamlit key of this instance (required).
    height
        Chart height in pixels (the width follows the container).
    disabled
        Read-only: no point can be added, moved or removed.
    curve_label
        Legend label of ``curve`` (shown only when there are ``extra_curves``).
    on_change
        Optional ``callback(event)``, run once per edit *before* the script body; when given,
        the function returns None.

    Returns
    -------
    dict | None
        One edit, once: ``{"action": "add", "x", "y"}``, ``{"action": "move", "index", "x",
        "y"}`` or ``{"action": "remove", "index"}`` (see the module docstring) when no
        ``on_change`` is given; None otherwise. Apply it with
        :func:`annotation.workbench.curve_points.apply_point_event` and ``st.rerun()``.
    """
    extras = []
    for extra in extra_curves or []:
        extras.append(
            {
                "points": _thinned(_finite_pairs(extra.get("points"))),
                "color": css_color(extra.get("color"), "#64748b"),
                "label": str(extra.get("label") or ""),
                "dash": bool(extra.get("dash", False)),
            }
        )
    data = {
        "points": _finite_pairs(points),
        "curve": _thinned(_finite_pairs(curve)),
        "extra_curves": extras,
        "ticks": [[float(x), str(label)] for x, label in ticks if math.isfinite(float(x))],
        "x_max": float(x_max),
        "max_points": int(max_points),
        "height": int(height),
        "disabled": bool(disabled),
        "curve_label": str(curve_label),
        **acknowledgement(key),  # {"client", "acked"}: see ui.components.events
    }
    result = _COMPONENT(
        key=key,
        data=data,
        on_events_change=make_callback(key, _parse_event, on_change),
    )
    if on_change is not None or disabled:
        return None
    return first_new_event(key, result.get(TRIGGER), _parse_event)
