"""A small Streamlit app that hosts the annotation surface for the browser tests, without the
real screen or a database.

It holds one sample's content in session state and applies the surface's event batches with a
minimal reducer written here on :mod:`annotation.editing` (seq dedupe, stop at a gap, refusals
acknowledged, submit after everything before it) — the real one is
``annotation.event_log`` / ``annotation.services.queue.apply_events``. After a successful submit
it loads the "next sample" (new annotation id and client), as the screen does.

Query parameters configure a page: ``confirm=1`` (confirm dialog on), ``layout=single``,
``ro=1`` (read-only), ``notice=1`` (a notice with markup-like text), ``delay=0.15`` (seconds
each batch takes on the "server", to keep reruns in flight), ``text=long``.
The state is printed as JSON in an ``st.code`` block for the tests to read.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

from annotation import editing  # noqa: E402
from annotation.axes import AXES, is_axis_name  # noqa: E402
from annotation.curves import (  # noqa: E402
    MAX_POINTS,
    MIN_POINTS,
    CurveFitError,
    describe_curve,
    half_validity_range,
    proportional_curve,
)
from annotation.flags import ANNOTATOR_FLAGS  # noqa: E402
from annotation.protocol import AnnotationContent, submission_problems  # noqa: E402
from annotation.segmentation import spaces_after, token_texts  # noqa: E402
from annotation.timeaxis import X_MAX, humanize_x, minutes_to_x, tick_positions  # noqa: E402
from ui.components.annotation_surface import annotation_surface  # noqa: E402
from ui.display import curve_polyline  # noqa: E402

st.set_page_config(page_title="Surface harness", layout="wide")

TEXTS = {
    "short": "The bakery on Elm Street is closed for renovation this week, and the owner plans "
             "to reopen with a bigger oven.",
    "long": "The city council said on Tuesday that the old bridge will stay closed until the "
            "inspection is finished, which could take several weeks; meanwhile buses will "
            "run every ten minutes, and residents who usually cycle to work are advised to use "
            "the ferry, although many of them think the detour is far too long.",
}
params = st.query_params
TEXT = TEXTS.get(params.get("text", "short"), TEXTS["short"])
TOKENS = token_texts(TEXT)
SPACES = spaces_after(TEXT)
N = len(TOKENS)
CONFIRM = params.get("confirm") == "1"
LAYOUT = "single" if params.get("layout") == "single" else "steps"
READ_ONLY = params.get("ro") == "1"
DELAY = float(params.get("delay", "0") or 0)

ss = st.session_state
if "sample" not in ss:
    ss.sample = 1
    ss.client = secrets.token_hex(8)
    ss.content = AnnotationContent()
    ss.step = 0
    ss.version = 1
    ss.last_seq = 0
    ss.applied = []          # [seq, kind] in the order applied, this sample
    ss.submitted = []        # [{sample, content, flagged}]
    ss.notices = []
    ss.fit_message = None
    ss.batches = 0
    if READ_ONLY:
        content = AnnotationContent(boundaries=(0, 6), segment_axes=("main", "intention"),
                                    points=((40.0, 0.3), (76.3, 1.0), (110.0, 0.4)))
        ss.content, _ = editing.refit(content)
    if params.get("notice") == "1":
        ss.notices = [{"level": "warning", "text": "Refused: <b>bold</b> and **stars** stay as typed"}]


def _next_sample() -> None:
    ss.sample += 1
    ss.client = secrets.token_hex(8)
    ss.content = AnnotationContent()
    ss.step = 0
    ss.version = 1
    ss.last_seq = 0
    ss.applied = []
    ss.fit_message = None


def on_events(batch: dict) -> None:
    """The harness's reducer: apply new events in seq order, stop at a gap."""
    ss.batches += 1
    if DELAY:
        time.sleep(DELAY)
    if batch["client"] != ss.client:
        return
    notices: list[dict] = []
    changed = False
    submitted = False
    for event in sorted(batch["events"], key=lambda e: e.get("seq", 0) if isinstance(e.get("seq"), int) else 0):
        seq = event.get("seq")
        if not isinstance(seq, int) or seq <= ss.last_seq:
            continue
        if seq != ss.last_seq + 1:
            break  # a gap: wait for the re-send
        ss.last_seq = seq
        kind = event.get("kind")
        ss.applied.append([seq, kind])
        if submitted:
            notices.append({"level": "error", "text": "Not applied: the sample was already submitted."})
            continue
        before = (ss.content, ss.step)
        content = ss.content
        if kind == "boundary" and isinstance(event.get("gap"), int) and 0 < event["gap"] < N:
            content = editing.toggle_boundary(content, N, event["gap"])
        elif kind == "reset_segments":
            content = editing.reset_segmentation(content)
        elif kind == "axis" and (event.get("axis") is None or is_axis_name(event.get("axis"))):
            content = editing.set_segment_axis(content, int(event.get("segment", -1)), event.get("axis"))
        elif kind == "point":
            content, ss.fit_message = editing.edit_points(content, event)
        elif kind == "params":
            content, ss.fit_message = editing.set_parameters(content, event["xi"], event["omega"], event["alpha"])
        elif kind == "refit":
            content, ss.fit_message = editing.refit(content)
        elif kind == "step" and event.get("step") in (0, 1, 2):
            ss.step = event["step"]
        elif kind == "flag":
            content = editing.set_flags(content, list(event.get("flags") or []), str(event.get("note") or ""))
        elif kind == "submit":
            problems = submission_problems(content, N)
            if problems:
                notices.append({"level": "error", "text": "Not submitted: " + " ".join(problems)})
            else:
                ss.submitted.append({"sample": ss.sample, "content": content.to_json(),
                                     "flagged": bool(event.get("flagged"))})
                submitted = True
        else:
            notices.append({"level": "warning", "text": f"Event {seq} ({kind}) was refused."})
        ss.content = content
        changed = changed or (ss.content, ss.step) != before
    if changed:
        ss.version += 1
    if submitted:
        done = ss.sample
        _next_sample()
        notices.append({"level": "success", "text": f"Submitted sample {done}."})
    ss.notices = notices


def _feedback(content: AnnotationContent) -> dict | None:
    if not content.has_parameters:
        return None
    try:
        lo, hi = half_validity_range(content.xi, content.omega, content.alpha)
        marks = [("1 h", 60), ("1 d", 1440), ("1 w", 10080), ("1 mo", 43200), ("1 y", 525960)]
        xs = np.array([minutes_to_x(m) for _, m in marks])
        _, ys = proportional_curve(content.xi, content.omega, content.alpha, xs)
    except CurveFitError:
        return None
    return {
        "lines": [f"still ≥ 50 % valid from ≈ {humanize_x(lo)} until ≈ {humanize_x(hi)}",
                  f"half of its validity is gone by ≈ {humanize_x(hi)}"],
        "left_after": [[label, f"{round(100 * float(y))} %"] for (label, _), y in zip(marks, ys)],
    }


def build_view() -> dict:
    content: AnnotationContent = ss.content
    curve = curve_polyline(content.xi, content.omega, content.alpha) or []
    summary: list[str] = []
    if content.has_parameters:
        try:
            summary = [describe_curve(content.xi, content.omega, content.alpha).capitalize()]
        except CurveFitError as exc:
            summary = [str(exc)]
    return {
        "annotation_id": 1000 + ss.sample,
        "client": ss.client,
        "version": ss.version,
        "acked": ss.last_seq,
        "step": ss.step,
        "layout": LAYOUT,
        "confirm_submit": CONFIRM,
        "read_only": READ_ONLY,
        "quota_reached": False,
        "tokens": TOKENS,
        "spaces": SPACES,
        "content": content.to_json(),
        "axes": [{"name": a.name, "label": a.label, "color": a.color, "key_question": a.key_question,
                  "digit": str(i + 1)} for i, a in enumerate(AXES)],
        "flags": [{"code": f.code, "label": f.label, "needs_note": f.needs_note} for f in ANNOTATOR_FLAGS],
        "curve": [[float(x), float(y)] for x, y in curve if math.isfinite(x) and math.isfinite(y)],
        "ticks": [[float(x), label] for x, label in tick_positions()],
        "x_max": X_MAX,
        "max_points": MAX_POINTS,
        "min_points": MIN_POINTS,
        "fit": {
            "message": ss.fit_message,
            "summary": summary,
            "params": ({"xi": content.xi, "omega": content.omega, "alpha": content.alpha,
                        "rmse": content.rmse, "source": content.params_source}
                       if content.has_parameters else None),
            "residuals": None,
        },
        "feedback": _feedback(content),
        "problems": submission_problems(content, N),
        "notices": ss.notices,
        "sample": {"external_id": f"S-{ss.sample}", "benchmark": "demo", "project": "Harness",
                   "guidelines_version": 1, "returned_note": None, "is_warmup": False},
    }


st.caption(f"Sample S-{ss.sample} · harness")
annotation_surface(build_view(), key=f"surface.{1000 + ss.sample}", on_events=on_events)

state = {
    "sample": ss.sample,
    "client": ss.client,
    "version": ss.version,
    "last_seq": ss.last_seq,
    "step": ss.step,
    "content": ss.content.to_json(),
    "applied": ss.applied,
    "submitted": ss.submitted,
    "batches": ss.batches,
}
with st.expander("state", expanded=params.get("state", "1") == "1"):
    st.code(json.dumps(state), language="json", wrap_lines=True)
