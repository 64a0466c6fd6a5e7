"""A small Streamlit app that hosts the annotation surface for the browser tests, without the
real screen or a database.

It holds one sample's content in session state and applies the surface's event batches with a
minimal reducer written here on :mod:`annotation.workbench.editing` (seq dedupe, stop at a gap, refusals
acknowledged, submit after everything before it, a folded run of point moves ``"first": m``
applied when the next number lies in m … seq) — the real one is
``annotation.workbench.event_log`` / ``annotation.services.workbench.workbench_events.apply_events``. After a
successful submit it loads the "next sample" (new annotation id and client), as the screen does.

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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

from annotation.workbench import editing  # noqa: E402
from annotation.axes import is_axis_name  # noqa: E402
from annotation.curves import (  # noqa: E402
    CurveFitError,
    describe_curve,
    half_validity_range,
    proportional_curve,
)
from annotation.workbench.protocol import submission_problems
from annotation.content import AnnotationContent
from annotation.services.workbench.submission import hand_tuned_misses  # noqa: E402
from annotation.segmentation import spaces_after, token_texts  # noqa: E402
from annotation.timeaxis import humanize_x, minutes_to_x, tick_positions  # noqa: E402
from ui.components.annotation_surface import annotation_surface  # noqa: E402
from ui.display import curve_polyline  # noqa: E402
from ui.workbench_view import surface_rules  # noqa: E402

st.set_page_config(page_title="Surface harness", layout="wide")

TEXTS = {
    "short": "The bakery on Elm Street is closed for renovation this week, and the owner plans "
             "to reopen with a bigger oven.",
    "long": "The city council said on Tuesday that the old bridge will stay closed until the "
            "inspection is finished, which could take several weeks; meanwhile buses will "
            "run every ten minutes, and residents who usually cycle to work are advised to use "
            "the ferry, although many of them think the detour is far too long.",
}
# 2,500 tokens within the import's 5,000 characters: one-letter words, each with a comma
TEXTS["huge"] = ", ".join("abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(1250)) + "."
params = st.query_params
TEXT = TEXTS.get(params.get("text", "short"), TEXTS["short"])
TOKENS = token_texts(TEXT)
SPACES = spaces_after(TEXT)
N = len(TOKENS)
CONFIRM = params.get("confirm") == "1"
LAYOUT = "single" if params.get("layout") == "single" else "steps"
READ_ONLY = params.get("ro") == "1"
DELAY = float(params.get("delay", "0") or 0)
DROP = int(params.get("drop", "0") or 0)  # ignore the first DROP batches (lost payloads)



@dataclass
class Server:
    """The "server" of one browser session: one plain object, mutated in place.

    Why not separate session-state keys: in Streamlit 1.67 every ``st.session_state`` read or
    write checks for a pending rerun request and raises the rerun exception right there, so a
    callback that wrote several keys could stop halfway (an event counted as applied while its
    effect was lost). The reducer touches session state once, before it starts.

    It also holds a lock: with ``runner.fastReruns`` (on by default) a new rerun starts a new
    script thread at once while the previous one may still be inside its callback, so two
    batches of one session can be applied concurrently (the real service needs a row lock or
    its version check for the same reason).
    """

    sample: int = 1
    client: str = field(default_factory=lambda: secrets.token_hex(8))
    content: AnnotationContent = field(default_factory=AnnotationContent)
    step: int = 0
    version: int = 1
    last_seq: int = 0
    applied: list = field(default_factory=list)      # [seq, kind] in the order applied, this sample
    folded: list = field(default_factory=list)       # [first, seq] of each folded event applied
    received: list = field(default_factory=list)     # [[seq, first], ...] of each batch received
    malformed: list = field(default_factory=list)    # batches refused whole (a bad "first")
    event_log: list = field(default_factory=list)    # every event applied (for failure messages)
    submitted: list = field(default_factory=list)    # [{sample, content, flagged, applied}]
    notices: list = field(default_factory=list)
    fit_message: str | None = None
    batches: int = 0
    shortcut_presses: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def next_sample(self) -> None:
        self.sample += 1
        self.client = secrets.token_hex(8)
        self.content = AnnotationContent()
        self.step = 0
        self.version = 1
        self.last_seq = 0
        self.applied = []
        self.folded = []
        self.received = []
        self.fit_message = None


if "server" not in st.session_state:
    server = Server()
    if READ_ONLY:
        start = AnnotationContent(boundaries=(0, 6), segment_axes=("main", "intention"),
                                  points=((40.0, 0.3), (76.3, 1.0), (110.0, 0.4)))
        server.content, _ = editing.refit(start)
    if params.get("notice") == "1":
        server.notices = [{"level": "warning", "text": "Refused: <b>bold</b> and **stars** stay as typed"}]
    st.session_state.server = server


def on_events(batch: dict) -> None:
    """The harness's reducer: apply new events in seq order, stop at a gap."""
    srv: Server = st.session_state.server  # the only session-state access (see Server)
    with srv.lock:
        _apply(srv, batch)


def _apply(srv: Server, batch: dict) -> None:
    srv.batches += 1
    if srv.batches <= DROP:
        return  # as if the payload never arrived: the surface must re-send it
    if DELAY:
        time.sleep(DELAY)
    if batch["client"] != srv.client:
        return
    srv.received.append([[e.get("seq"), e.get("first", e.get("seq"))] for e in batch["events"]])
    problem = _fold_problem(batch["events"])
    if problem:  # as annotation.workbench.event_log.parse_events: the whole batch is refused
        srv.malformed.append(problem)
        srv.notices = [{"level": "error", "text": problem}]
        return
    notices: list[dict] = []
    changed = False
    submitted = False
    for event in sorted(batch["events"], key=lambda e: e["seq"] if isinstance(e.get("seq"), int) else 0):
        seq = event.get("seq")
        if not isinstance(seq, int) or seq <= srv.last_seq:
            continue
        first = event.get("first", seq)
        if first > srv.last_seq + 1:
            break  # a gap: wait for the re-send
        if first != seq:
            srv.folded.append([first, seq])
        kind = event.get("kind")
        before = (srv.content, srv.step)
        content, step, fit_message = srv.content, srv.step, srv.fit_message
        if submitted:
            notices.append({"level": "error", "text": "Not applied: the sample was already submitted."})
        elif kind == "boundary" and isinstance(event.get("gap"), int) and 0 < event["gap"] < N:
            content = editing.toggle_boundary(content, N, event["gap"])
        elif kind == "reset_segments":
            content = editing.reset_segmentation(content)
        elif (kind == "axis" and isinstance(event.get("segment"), int)
              and (event.get("axis") is None or is_axis_name(event.get("axis")))):
            content = editing.set_segment_axis(content, event["segment"], event.get("axis"))
        elif kind == "point":
            content, fit_message = editing.edit_points(content, event)
        elif kind == "params":
            content, fit_message = editing.set_parameters(content, event["xi"], event["omega"], event["alpha"])
        elif kind == "refit":
            content, fit_message = editing.refit(content)
        elif kind == "step" and event.get("step") in (0, 1, 2):
            step = event["step"]
        elif kind == "flag":
            content = editing.set_flags(content, list(event.get("flags") or []), str(event.get("note") or ""))
        elif kind == "submit":
            problems = submission_problems(content, N)
            if not problems and not event.get("flagged") and event.get("accept_misses") is not True:
                problems = [m for m in (hand_tuned_misses(content),) if m]
            if problems:
                notices.append({"level": "error", "text": "Not submitted: " + " ".join(problems)})
            else:
                submitted = True
        else:
            notices.append({"level": "warning", "text": f"Event {seq} ({kind}) was refused."})
        srv.content, srv.step, srv.fit_message, srv.last_seq = content, step, fit_message, seq
        srv.applied.append([seq, kind])
        srv.event_log.append(event)
        if submitted and kind == "submit":
            srv.submitted.append({"sample": srv.sample, "content": content.to_json(),
                                  "flagged": bool(event.get("flagged")), "applied": list(srv.applied)})
        changed = changed or (srv.content, srv.step) != before
    if changed:
        srv.version += 1
    if submitted:
        done = srv.sample
        srv.next_sample()
        notices.append({"level": "success", "text": f"Submitted sample {done}."})
    srv.notices = notices


def _fold_problem(events: list) -> str | None:
    """Why ``events`` break the fold rule of ``annotation.workbench.event_log.parse_events`` (``first``:
    a whole number 1 … seq, only on point moves, no two events standing for one number), or None."""
    covered = 0
    for event in sorted(events, key=lambda e: e["seq"] if isinstance(e.get("seq"), int) else 0):
        seq, first = event.get("seq"), event.get("first", event.get("seq"))
        if not isinstance(seq, int) or not isinstance(first, int) or not 1 <= first <= seq:
            return f"Malformed fold: {event}"
        if first < seq and (event.get("kind") != "point" or event.get("action") != "move"):
            return f"Folds edits that are not point moves: {event}"
        if first <= covered:
            return f"Two edits stand for the number {covered}: {event}"
        covered = seq
    return None


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


def build_view(ss: Server) -> dict:
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
        "hand_tuned_misses": None if READ_ONLY else hand_tuned_misses(content),
        **surface_rules(),  # the steps, axes, flags, limits and units, as the workbench sends them
        "curve": [[float(x), float(y)] for x, y in curve if math.isfinite(x) and math.isfinite(y)],
        "ticks": [[float(x), label] for x, label in tick_positions()],
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
        "sample": {"number": ss.sample, "benchmark": "demo", "project": "Harness",
                   "guidelines_version": 1, "returned_note": None, "is_warmup": False},
    }


ss: Server = st.session_state.server
st.caption(f"Sample S-{ss.sample} · harness")
if params.get("shortcut") == "1":
    # a Streamlit button bound to the surface's own key: the surface must keep it from firing
    if st.button("Streamlit next", shortcut="Alt+Right", key="st_next"):
        ss.shortcut_presses += 1
annotation_surface(build_view(ss), key=f"surface.{1000 + ss.sample}", on_events=on_events)

state = {
    "sample": ss.sample,
    "client": ss.client,
    "version": ss.version,
    "last_seq": ss.last_seq,
    "step": ss.step,
    "content": ss.content.to_json(),
    "applied": ss.applied,
    "folded": ss.folded,
    "received": ss.received,
    "malformed": ss.malformed,
    "submitted": ss.submitted,
    "batches": ss.batches,
    "shortcut_presses": ss.shortcut_presses,
    "event_log": ss.event_log[-20:],
}
with st.expander("state", expanded=params.get("state", "1") == "1"):
    st.code(json.dumps(state), language="json", wrap_lines=True)
