"""A small Streamlit app that mounts the custom components for the browser tests.

State lives in ``st.session_state`` and is written out as JSON (``st.code``) so a test can read
what Python received. The two delivery paths are both exercised: the token editor applies its
toggles in an ``on_change`` callback (before the script body); the curve chart returns its
event, which the script applies with ``apply_point_event`` and then reruns.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `ui` is not an installed package
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402
from scipy.optimize import curve_fit  # noqa: E402
from scipy.stats import skewnorm  # noqa: E402

from annotation.workbench.curve_points import apply_point_event  # noqa: E402
from ui.components import curve_canvas, token_boundary_editor  # noqa: E402

st.set_page_config(page_title="Components harness", layout="centered")

TEXT = [
    ("The", True), ("bakery", True), ("on", True), ("Elm", True), ("Street", True),
    ("is", True), ("closed", True), ("for", True), ("renovation", True), ("this", True),
    ("week", False), (",", True), ("and", True), ("the", True), ("owner", True),
    ("plans", True), ("to", True), ("reopen", True), ("with", True), ("a", True),
    ("bigger", True), ("oven", False), (".", False),
]
if os.environ.get("HARNESS_HOSTILE_TEXT"):
    # user text must be shown as text, never parsed as HTML
    TEXT = [*TEXT[:-1], ("<img src=x onerror=\"window.__pwned=1\">", True), ("<b>bold</b>", False), (".", False)]
TOKENS = [t for t, _ in TEXT]
SPACES = [s for _, s in TEXT]
X_MAX = 200.0
TICKS = [
    (0.0, "1 min"), (28.41, "15 min"), (42.96, "1 h"), (69.04, "12 h"), (76.30, "1 day"),
    (96.72, "1 week"), (111.99, "1 month"), (138.21, "1 year"), (162.37, "1 decade"),
]

ss = st.session_state
ss.setdefault("boundaries", [0])
ss.setdefault("points", [])
ss.setdefault("curve_events", 0)
ss.setdefault("last_shortcut", None)
ss.setdefault("shortcut_count", 0)
ss.setdefault("runs", 0)
ss.runs += 1


def toggle_boundary(gap: int) -> None:
    """on_change of the token editor: runs once per click, before the script body."""
    current = set(ss.boundaries)
    current.symmetric_difference_update({gap})
    ss.boundaries = sorted(current | {0})


def proportional_curve(points: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
    """A quick skew-normal fit for the picture (the real one is annotation.curves)."""
    if len(points) < 3:
        return None
    xs, ys = np.array(points, dtype=float).T

    def model(x, scale, xi, omega, alpha):
        return scale * skewnorm.pdf(x, alpha, loc=xi, scale=omega)

    peak = xs[np.argmax(ys)]
    try:
        params, _ = curve_fit(
            model, xs, ys, p0=[20.0, peak, 15.0, 0.0], method="trf",
            bounds=([1e-6, -50, 0.5, -20], [1e4, 250, 150, 20]), maxfev=4000,
        )
    except (RuntimeError, ValueError):
        return None
    grid = np.linspace(0, X_MAX, 401)
    values = model(grid, *params)
    top = values.max()
    if not np.isfinite(top) or top <= 0:
        return None
    return list(zip(grid.tolist(), (values / top).tolist()))


st.title("Components harness")
if st.button("Reset", key="reset"):
    # a change made by Python alone: the components must redraw from the new data
    ss.boundaries = [0]
    ss.points = []

st.subheader("Segmentation")
st.caption("Click between two words to split or join segments.")
token_boundary_editor(
    TOKENS, SPACES, ss.boundaries, key="segmenter", on_change=toggle_boundary
)

segment_axes = ["Main", "Intention", "Opinion", "Static"]
st.caption("Read-only view with axis labels and colours")
token_boundary_editor(
    TOKENS,
    SPACES,
    [0, 12],
    segment_colors=["#4C78A8", "#F58518"],
    segment_labels=segment_axes[:2],
    key="segmenter_readonly",
    disabled=True,
)

st.subheader("Validity curve")
event = curve_canvas(
    ss.points,
    curve=proportional_curve(ss.points),
    extra_curves=[
        {
            "points": [(x, float(np.exp(-(((x - 90.0) / 18.0) ** 2)))) for x in range(0, 201, 2)],
            "color": "#7c8799",
            "label": "other annotator",
            "dash": True,
        }
    ],
    ticks=TICKS,
    x_max=X_MAX,
    max_points=5,
    key="curve",
    height=380,
)
if event is not None:
    ss.points = apply_point_event(ss.points, event, x_max=X_MAX, max_points=5)
    ss.curve_events += 1
    ss.last_curve_event = event
    st.rerun()

st.subheader("Shortcuts")
col_prev, col_next, col_text = st.columns([1, 1, 2])
if col_prev.button("Previous", shortcut="Alt+Left", key="prev_sample"):
    ss.last_shortcut = "previous"
    ss.shortcut_count += 1
if col_next.button("Next", shortcut="Alt+Right", key="next_sample"):
    ss.last_shortcut = "next"
    ss.shortcut_count += 1
col_text.text_input("Note", key="note", placeholder="typing here does not fire plain keys")

state = {
    "boundaries": ss.boundaries,
    "points": [list(p) for p in ss.points],
    "curve_events": ss.curve_events,
    "last_shortcut": ss.last_shortcut,
    "shortcut_count": ss.shortcut_count,
}
st.code(json.dumps(state), language="json", wrap_lines=True)
