"""Fast input on the annotation surface: random fast sequences (200 by default, issue 10's 500 with
``CHRONOCEPT_FAST_INPUT_PARTS=5``), not one edit lost or reordered.

Issue 10's judgement: an annotator's clicks and keys, however quick, all land, in order. Each
test drives the real app in Chromium with a seeded ``random.Random``: sequences of gap clicks
(segment boundaries), axis digit keys with focus moves between segments (Tab / Shift+Tab /
↑ / ↓), axis button clicks, chart clicks (add a point), drags (move one), double-clicks,
right-clicks and Delete (remove one), step keys (Alt+→ / Alt+←), sometimes ending with the
submit key (Alt+Enter), with random pauses of 0–120 ms between actions, the mouse button held
0–80 ms in a click, and no waiting for the app in between.

After each sequence the test waits until the surface reports no pending event
(``data-pending="0"``) and compares the **stored** annotation (read with the queue service) with
the sequence's intended result, computed by a Python model that applies the same domain
functions to the intended events: :func:`annotation.workbench.editing.toggle_boundary`,
:func:`~annotation.workbench.editing.set_segment_axis`, :func:`~annotation.workbench.editing.edit_points`
(:func:`annotation.workbench.curve_points.apply_point_event`) and the step rules. A chart click's intended
coordinates are the ones the test aims at; the pixel is computed from the plot rect's
``data-x-min/max`` / ``data-y-min/max`` and bounding box (see ``ui/components/curve_canvas.py``),
so stored points are compared within one pixel (plus the 0.01 rounding). Any difference is a lost
or reordered edit: the failure prints the seed, the sequence, both results and the page's last
input events with the surface's ``data-acked`` / ``data-pending`` at each (a test-side trace).

Timing never decides the outcome: pauses only pace the input. The stored state is polled for a
while after the surface reports nothing pending (a slow, loaded machine only makes the test
slower); a lost edit never arrives, so it still fails. What the contract leaves open is not
exercised: clicking or typing the axis a segment already has (toggle off or keep?), Tab past the
last segment, gap clicks outside the segmentation step, a point added when five are placed, and
points placed where the fit is borderline (a submit is only sent when its outcome does not
depend on pixel rounding: either something structural is missing, or the points are a set that
fits well).

Pace: one server and one database per module (per xdist worker), a fresh browser context per
test; every test annotates :data:`SAMPLES_PER_TEST` demo samples, :data:`SEQUENCES_PER_SAMPLE`
sequences each, the last of which completes the annotation and submits it (the next sample
appears). ``CHRONOCEPT_FAST_INPUT_SEED`` changes the seeds (a failure prints the one to re-run;
a test's sequences depend on the samples it gets, so re-run the whole module). The 500 sequences
took 5–6 min in one process on a 2-CPU machine whose load average was about 24.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest
from playwright.sync_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeout

from annotation.workbench import editing
from annotation.axes import AXIS_NAMES
from annotation.curves import MAX_POINTS, MIN_POINTS
from annotation.workbench.protocol import submission_problems
from annotation.content import AnnotationContent
from annotation.corpus.text_import import TextRecord
from annotation.services.accounts import accounts
from annotation.services.corpus import text_imports
from annotation.services.corpus import demo_projects
from annotation.services.workbench import queue
from db.engine import Database
from tests.browser.flow_steps import open_annotate, sign_in, wait_until

pytestmark = pytest.mark.browser

USER, PASSWORD = "fast1", "fast1-password"
SURFACE = '[data-testid="surface"]'
PLOT = f'{SURFACE} [data-testid="curve-plot"]'
#: Tests × samples × 10 sequences: the default run (CI) does 1 test of 5 samples, 50 sequences,
#: in about 35 s of worker time (the whole CI run must stay under 15 minutes);
#: ``CHRONOCEPT_FAST_INPUT_PARTS=5 CHRONOCEPT_FAST_INPUT_SAMPLES=10`` runs issue 10's full 500 on
#: the demo project's 50 texts (the parts use seeds SEED_BASE + part, so the first part's
#: sequences are the same either way).
TESTS = int(os.environ.get("CHRONOCEPT_FAST_INPUT_PARTS", "1"))
SAMPLES_PER_TEST = int(os.environ.get("CHRONOCEPT_FAST_INPUT_SAMPLES", "5"))
if not (1 <= TESTS <= 5 and 1 <= SAMPLES_PER_TEST <= 10):
    raise ValueError("CHRONOCEPT_FAST_INPUT_PARTS must be 1 to 5 and CHRONOCEPT_FAST_INPUT_SAMPLES 1 to 10 "
                     "(the demo project has 50 texts)")
SEQUENCES_PER_SAMPLE = 10
MAX_GAP_MS = 120
#: How long a mouse button stays down in a click (a person's press lasts ~50–120 ms; the
#: surface must not lose a click whose press overlaps a server answer).
MAX_PRESS_MS = 80
SEED_BASE = int(os.environ.get("CHRONOCEPT_FAST_INPUT_SEED", "20261124"))
#: How long the stored state may take to show what the surface says it acknowledged.
SETTLE_S = 20.0
#: Where chart points are placed, in data units: away from the plot's edges.
X_RANGE, Y_RANGE = (12.0, 188.0), (0.08, 0.92)
#: Two points closer than this (in data units, on both axes) could be grabbed for each other;
#: with the plot at least MIN_PLOT_PX wide/high, 12 x-units and 0.15 y are ≥ 24 px (a point's
#: circle has a radius of 8 px).
SEPARATION = (12.0, 0.15)
MIN_PLOT_PX = (400.0, 160.0)
#: Point sets a finished annotation gets before its submit: clearly single-peaked, so the fit
#: is far from failing whatever the pixel rounding.
GOOD_CURVES = (
    ((40.0, 0.5), (58.0, 0.96), (85.0, 0.3)),
    ((25.0, 0.45), (50.0, 0.95), (80.0, 0.4), (120.0, 0.12)),
    ((70.0, 0.55), (95.0, 0.93), (130.0, 0.35)),
)


#: ``find(selector)``: the first match in the document or any open shadow root (the surface lives
#: in its component's shadow root).
_FIND_JS = """
  const find = (selector, root = document) => {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      const inner = el.shadowRoot && find(selector, el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };"""
#: ``findAll(selector)``: every match in the document and all open shadow roots.
_FIND_ALL_JS = """
  const findAll = (selector, root = document, out = []) => {
    out.push(...root.querySelectorAll(selector));
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) findAll(selector, el.shadowRoot, out);
    return out;
  };"""
#: True once the surface of annotation ``id`` has no unacknowledged event, or has been replaced
#: by the next sample's (after a submit); polled every 20 ms
#: (``expect``'s back-off would add up to half a second per sequence). Right after a submit the
#: previous sample's surface can still be in the page beside the new one until Streamlit's run
#: ends, so surfaces are told apart by their annotation id.
NOTHING_PENDING_JS = "(id) => {" + _FIND_ALL_JS + """
  const all = findAll('[data-testid="surface"]');
  const mine = all.filter((s) => s.getAttribute("data-annotation-id") === String(id));
  // a submitted sample's surface is replaced by the next sample's in the same run
  if (!mine.length) return all.length > 0;
  return mine.every((s) => s.getAttribute("data-pending") === "0");
}"""
#: The annotation id of the one surface in the page once it is drawn, has nothing pending and is
#: not ``previous`` (the sample just submitted); null until then.
NEXT_SURFACE_JS = "(previous) => {" + _FIND_ALL_JS + """
  const all = findAll('[data-testid="surface"]');
  if (all.length !== 1) return null;
  const s = all[0], id = s.getAttribute("data-annotation-id");
  if (!id || id === String(previous) || s.getAttribute("data-pending") !== "0") return null;
  return s.querySelector("[data-token]") ? Number(id) : null;
}"""
#: The viewport box of the element ``selector`` now (and its ``data-x-min`` … ``data-y-max``),
#: scrolled to the middle of the view first when its centre is off screen or covered (by the
#: surface's sticky footer, say) — as a person scrolls before clicking. One step in the page:
#: the surface redraws its text and rows, so an element handle would go stale.
BOX_JS = "(selector) => {" + _FIND_JS + """
  const el = find(selector);
  if (!el) return null;
  const reachableAt = (fx, fy) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width * fx, y = r.top + r.height * fy;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const top = el.getRootNode().elementFromPoint(x, y);
    return !!top && (top === el || el.contains(top) || top.closest("[data-point]") !== null);
  };
  // the chart's whole clickable area must be reachable, other elements their centre
  const reachable = () => el.hasAttribute("data-x-max")
    ? reachableAt(0.04, 0.04) && reachableAt(0.96, 0.96) && reachableAt(0.04, 0.96) && reachableAt(0.96, 0.04)
    : reachableAt(0.5, 0.5);
  // "instant": a smooth scroll would still be moving when the box is measured
  if (!reachable()) el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  const r = el.getBoundingClientRect();
  const range = ["data-x-min", "data-x-max", "data-y-min", "data-y-max"].map((a) => Number(el.getAttribute(a)));
  // where a click reaches this element: its centre, else the nearest point (1 px steps, ±8 px
  // around it) that is not covered — a 1-px gap before a one-letter token lies under the
  // next gap's hit area at its centre
  let hit = null;
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  for (const dx of [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6, -7, 7, -8, 8]) {
    const top = el.getRootNode().elementFromPoint(cx + dx, cy);
    if (top && (top === el || el.contains(top))) { hit = [cx + dx, cy]; break; }
  }
  return { x: r.left, y: r.top, width: r.width, height: r.height, range, hit };
}"""

#: Give the element ``selector`` the keyboard focus, as Tab would; false when it is not there.
FOCUS_JS = "(selector) => {" + _FIND_JS + """
  const el = find(selector);
  if (!el) return false;
  el.focus();
  return true;
}"""


#: A trace of the page's input events for a failure message (test-side, installed with
#: ``add_init_script``): each pointer/click/key event with its target, and the surface's
#: annotation id, client, ``data-mount`` (a remount shows as a new number), version,
#: ``data-acked`` / ``data-pending`` / ``data-step`` at that moment; acknowledgements in between
#: are seen as changes of ``acked``. The last 200 are kept.
TRACE_JS = "(() => {" + _FIND_JS + """
  const trace = (window.__fastInputTrace = []);
  let surface = null;
  const describe = (t) => !t || !t.getAttribute ? String(t && t.nodeName) : t.tagName.toLowerCase()
    + ["data-gap", "data-point", "data-segment", "data-axis-option", "data-command", "data-testid"]
      .filter((a) => t.hasAttribute(a)).map((a) => `[${a}=${t.getAttribute(a)}]`).join("");
  for (const type of ["pointerdown", "pointerup", "click", "dblclick", "contextmenu", "keydown"]) {
    window.addEventListener(type, (e) => {
      if (!surface || !surface.isConnected) surface = find('[data-testid="surface"]');
      const s = surface ? ["annotation-id", "client", "mount", "version", "acked", "pending", "step"]
        .map((a) => a + "=" + surface.getAttribute("data-" + a)).join(" ") : "no surface";
      trace.push(`${performance.now().toFixed(0)} ms ${type}${e.key ? " " + e.key : ""} on ${describe(e.composedPath()[0])}`
        + (type.startsWith("pointer") || type.endsWith("click") ? ` at ${Math.round(e.clientX)},${Math.round(e.clientY)}` : "")
        + ` | ${s}`);
      if (trace.length > 200) trace.shift();
    }, true);
  }
})();"""


class ActionFailed(Exception):
    """The page had no element for an action the intended state allows (an earlier edit of the
    sequence was lost, or the surface dropped the element)."""


# ------------------------------------------------------------------------------ the model

@dataclass
class Model:
    """What the stored annotation must be after the intended events (the test's own copy)."""

    content: AnnotationContent
    step: int
    n_tokens: int
    submitted: bool = False
    focus: int | None = None  # the segment row that has keyboard focus, when the test knows it

    @property
    def n_segments(self) -> int:
        return len(self.content.segment_axes)


@dataclass(frozen=True)
class Action:
    """One user action: ``describe`` for the failure message, ``apply`` to the model, and what
    the browser does (``perform``, given the driver)."""

    name: str
    args: tuple = ()

    def describe(self) -> str:
        return f"{self.name}{self.args}" if self.args else self.name


def apply(model: Model, action: Action) -> None:
    """The intended effect of ``action``, with the domain's own functions."""
    kind, args = action.name, action.args
    c = model.content
    if kind == "gap":
        model.content = editing.toggle_boundary(c, model.n_tokens, args[0])
        model.focus = None
    elif kind == "focus_row":
        model.focus = args[0]
    elif kind == "focus_key":
        model.focus = (model.focus or 0) + args[1]
    elif kind == "axis_key":
        model.content = editing.set_segment_axis(c, model.focus, AXIS_NAMES[args[0] - 1])
    elif kind == "axis_click":
        model.content = editing.set_segment_axis(c, args[0], args[1])
        model.focus = None
    elif kind == "add":
        model.content, _ = editing.edit_points(c, {"action": "add", "x": args[0], "y": args[1]})
        model.focus = None
    elif kind == "drag":
        model.content, _ = editing.edit_points(
            c, {"action": "move", "index": args[0], "x": args[1], "y": args[2]})
        model.focus = None
    elif kind == "remove":
        model.content, _ = editing.edit_points(c, {"action": "remove", "index": args[0]})
        model.focus = None
    elif kind == "step":
        model.step = max(0, min(2, model.step + args[0]))
        model.focus = None
    elif kind == "submit":
        refit, _ = editing.refit(model.content)
        if not submission_problems(refit, model.n_tokens):
            model.content, model.submitted, model.step = refit, True, 2
    else:
        raise AssertionError(f"unknown action {kind}")


# -------------------------------------------------------------------------- the sequences

def _far_from(points, x: float, y: float, skip: int | None = None) -> bool:
    return all(abs(px - x) >= SEPARATION[0] or abs(py - y) >= SEPARATION[1]
               for i, (px, py) in enumerate(points) if i != skip)


def _free_spot(rng: random.Random, points, skip: int | None = None) -> tuple[float, float] | None:
    for _ in range(50):
        x = round(rng.uniform(*X_RANGE), 1)
        y = round(rng.uniform(*Y_RANGE), 2)
        if _far_from(points, x, y, skip):
            return x, y
    return None


def _grabbable(points) -> list[int]:
    """Points that no other point overlaps (a drag or a double-click takes the right one)."""
    return [i for i, (x, y) in enumerate(points) if _far_from(points, x, y, skip=i)]


def _random_action(rng: random.Random, m: Model) -> Action:
    """One action that makes sense in the model's state (see the module docstring for what the
    contract leaves open and is therefore not generated)."""
    if rng.random() < 0.18:
        delta = 1 if m.step < 2 and (m.step == 0 or rng.random() < 0.6) else -1
        return Action("step", (delta,))
    if m.step == 0:
        return Action("gap", (rng.randint(1, m.n_tokens - 1),))
    if m.step == 1:
        n = m.n_segments
        choice = rng.random()
        if choice < 0.35:
            j = rng.randrange(n)
            return Action("axis_click", (j, rng.choice([a for a in AXIS_NAMES if a != m.content.segment_axes[j]])))
        if m.focus is None:
            return Action("focus_row", (rng.randrange(n),))
        if choice < 0.65:
            moves = []
            if m.focus + 1 < n:
                moves += [("Tab", 1), ("ArrowDown", 1)]
            if m.focus > 0:
                moves += [("Shift+Tab", -1), ("ArrowUp", -1)]
            if moves:
                return Action("focus_key", rng.choice(moves))
        current = m.content.segment_axes[m.focus]
        digits = [d for d in range(1, len(AXIS_NAMES) + 1) if AXIS_NAMES[d - 1] != current]
        return Action("axis_key", (rng.choice(digits),))
    points = m.content.points
    choice = rng.random()
    grabbable = _grabbable(points)
    if choice < 0.45 and len(points) < MAX_POINTS:
        spot = _free_spot(rng, points)
        if spot is not None:
            return Action("add", spot)
    if choice < 0.75 and grabbable:
        i = rng.choice(grabbable)
        spot = _free_spot(rng, points, skip=i)
        if spot is not None:
            return Action("drag", (i, *spot))
    if grabbable:
        return Action("remove", (rng.choice(grabbable), rng.choice(("dblclick", "rightclick", "Delete"))))
    spot = _free_spot(rng, points)
    if spot is not None and len(points) < MAX_POINTS:
        return Action("add", spot)
    return Action("step", (-1,))


def random_sequence(rng: random.Random, m: Model) -> list[Action]:
    """1–6 random actions; one in eight ends with a submit while something structural is
    missing (an axis, enough points): the submit must be refused, the edits kept."""
    actions = []
    for _ in range(rng.randint(1, 6)):
        action = _random_action(rng, m)
        apply(m, action)
        actions.append(action)
    structural = any(a is None for a in m.content.segment_axes) or len(m.content.points) < MIN_POINTS
    if structural and rng.random() < 0.125:
        action = Action("submit")
        apply(m, action)
        actions.append(action)
    return actions


def finishing_sequence(rng: random.Random, m: Model) -> list[Action]:
    """Label every segment, replace the points by a well-fitting set, submit — still fast."""
    actions: list[Action] = []

    def do(action: Action) -> None:
        apply(m, action)
        actions.append(action)

    while m.step != 1:
        do(Action("step", (1 if m.step < 1 else -1,)))
    for j, axis in enumerate(m.content.segment_axes):
        if axis is not None:
            continue
        if rng.random() < 0.5:
            do(Action("axis_click", (j, rng.choice(AXIS_NAMES))))
        else:
            if m.focus != j:
                do(Action("focus_row", (j,)))
            do(Action("axis_key", (rng.randint(1, len(AXIS_NAMES)),)))
    do(Action("step", (1,)))
    while m.content.points:
        do(Action("remove", (rng.randrange(len(m.content.points)),
                             rng.choice(("dblclick", "rightclick", "Delete")))))
    for x, y in rng.choice(GOOD_CURVES):
        do(Action("add", (x + rng.uniform(-2, 2), y)))
    do(Action("submit"))
    assert m.submitted, "the test's finishing sequence must make a submittable annotation"
    return actions


# ---------------------------------------------------------------------------- the browser

@dataclass
class Driver:
    """Performs actions on the page as fast as real input goes: no waiting between actions."""

    page: object
    rng: random.Random
    #: one pixel in data units (plus the 0.01 rounding of stored coordinates), from the last
    #: time the chart was measured; before that, what the smallest allowed plot would give
    tol: tuple[float, float] = (200.0 / MIN_PLOT_PX[0] + 0.011, 1.0 / MIN_PLOT_PX[1] + 0.011)

    def box(self, selector: str) -> dict:
        """The element's box in the viewport, scrolled into view first (as a person would)."""
        box = self.page.evaluate(BOX_JS, selector)
        if box is None:
            raise ActionFailed(f"{selector} is not on the page")
        return box

    def target(self, selector: str) -> tuple[float, float]:
        """Where a click reaches the element ``selector`` (see :data:`BOX_JS`)."""
        box = self.box(selector)
        if box["hit"] is None:
            raise ActionFailed(f"no point of {selector} can be clicked: other elements cover it")
        return box["hit"][0], box["hit"][1]

    def click(self, x: float, y: float, button: str = "left") -> None:
        """Press and release at (x, y), holding the button 0–:data:`MAX_PRESS_MS` ms."""
        page = self.page
        page.mouse.move(x, y)
        page.mouse.down(button=button)
        press = self.rng.randint(0, MAX_PRESS_MS)
        if press:
            page.wait_for_timeout(press)
        page.mouse.up(button=button)

    def focus(self, selector: str) -> None:
        if not self.page.evaluate(FOCUS_JS, selector):
            raise ActionFailed(f"{selector} is not on the page")

    def geometry(self) -> dict:
        box = self.box(PLOT)
        if not box["width"] or not box["height"]:
            raise ActionFailed("the chart is not shown")
        assert box["width"] >= MIN_PLOT_PX[0] and box["height"] >= MIN_PLOT_PX[1], (
            f"the plot is {box['width']:.0f}×{box['height']:.0f} px: too small for the test's "
            f"point spacing (needs {MIN_PLOT_PX[0]:.0f}×{MIN_PLOT_PX[1]:.0f})")
        ranges = box["range"]
        self.tol = ((ranges[1] - ranges[0]) / box["width"] + 0.011,
                    (ranges[3] - ranges[2]) / box["height"] + 0.011)
        return {"box": box, "x": (ranges[0], ranges[1]), "y": (ranges[2], ranges[3])}

    def pixel(self, x: float, y: float, g: dict | None = None) -> tuple[float, float]:
        g = g or self.geometry()
        box = g["box"]
        (x0, x1), (y0, y1) = g["x"], g["y"]
        return (box["x"] + (x - x0) / (x1 - x0) * box["width"],
                box["y"] + (1 - (y - y0) / (y1 - y0)) * box["height"])

    def perform(self, action: Action, model_before: Model) -> None:
        page, kind, args = self.page, action.name, action.args
        if kind == "gap":
            self.click(*self.target(f"{SURFACE} [data-gap='{args[0]}']"))
        elif kind == "focus_row":
            self.focus(f"{SURFACE} [data-segment='{args[0]}']")
        elif kind == "focus_key":
            page.keyboard.press(args[0])
        elif kind == "axis_key":
            page.keyboard.press(str(args[0]))
        elif kind == "axis_click":
            self.click(*self.target(f"{SURFACE} [data-segment='{args[0]}'] [data-axis-option='{args[1]}']"))
        elif kind == "add":
            self.click(*self.pixel(*args))
        elif kind == "drag":
            g = self.geometry()  # one measurement for both ends: the drag must not scroll
            start = self.pixel(*model_before.content.points[args[0]], g)
            end = self.pixel(args[1], args[2], g)
            page.mouse.move(*start)
            page.mouse.down()
            page.mouse.move(*end, steps=2)
            page.mouse.up()
        elif kind == "remove":
            index, how = args
            if how == "Delete":
                self.focus(f"{SURFACE} circle[data-point='{index}']")
                page.keyboard.press("Delete")
            else:
                px, py = self.pixel(*model_before.content.points[index])
                if how == "dblclick":
                    page.mouse.dblclick(px, py)
                else:
                    self.click(px, py, button="right")
        elif kind == "step":
            page.keyboard.press("Alt+ArrowRight" if args[0] > 0 else "Alt+ArrowLeft")
        elif kind == "submit":
            page.keyboard.press("Alt+Enter")
        else:
            raise AssertionError(f"unknown action {kind}")


# ------------------------------------------------------------------------------ comparing

def differences(item: queue.WorkItem, model: Model, tol: tuple[float, float]) -> list[str]:
    """What the stored annotation has that the intended result does not (empty: the same)."""
    out = []
    c, want = item.content, model.content
    if (item.status == "submitted") != model.submitted:
        out.append(f"status {item.status!r}, intended {'submitted' if model.submitted else 'draft'}")
    if tuple(c.boundaries) != tuple(want.boundaries):
        out.append(f"boundaries {list(c.boundaries)}, intended {list(want.boundaries)}")
    if tuple(c.segment_axes) != tuple(want.segment_axes):
        out.append(f"segment_axes {list(c.segment_axes)}, intended {list(want.segment_axes)}")
    if len(c.points) != len(want.points) or any(
            abs(a[0] - b[0]) > tol[0] or abs(a[1] - b[1]) > tol[1] for a, b in zip(c.points, want.points)):
        out.append(f"points {[tuple(p) for p in c.points]}, intended {[tuple(p) for p in want.points]} "
                   f"(± {tol[0]:.3f}, {tol[1]:.3f})")
    if not model.submitted and item.step != model.step:
        out.append(f"step {item.step}, intended {model.step}")
    if c.flags:
        out.append(f"flags {list(c.flags)}, intended none")
    return out


def describe_model(model: Model) -> str:
    return (f"status={'submitted' if model.submitted else 'draft'} step={model.step} "
            f"boundaries={list(model.content.boundaries)} axes={list(model.content.segment_axes)} "
            f"points={[tuple(p) for p in model.content.points]}")


def describe_item(item: queue.WorkItem | None) -> str:
    if item is None:
        return "—"
    return (f"status={item.status} step={item.step} boundaries={list(item.content.boundaries)} "
            f"axes={list(item.content.segment_axes)} points={[tuple(p) for p in item.content.points]}")


# ------------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def fast_app(tmp_path_factory, run_streamlit_module):
    """One app and database for the module: the demo project and annotator ``fast1``."""
    url = f"sqlite:///{tmp_path_factory.mktemp('fast-input') / 'fast.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, USER, PASSWORD, "annotator")
    demo = demo_projects.load_demo_project(db, admin)
    # a few texts beyond the demo's 50, so the last submit still has a next sample to show
    text_imports.import_texts(db, admin, demo.id, [
        TextRecord(f"Spare text number {i}: the ferry leaves at noon on weekdays.", 1, f"FAST-{i}", i)
        for i in range(1, 6)], source="test_fast_input")
    actor = accounts.authenticate(db, USER, PASSWORD)
    base = run_streamlit_module("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    yield base, db, actor
    db.dispose()


def open_surface(page, previous: int | None = None) -> int:
    """The annotation id the surface shows once it alone is drawn, has nothing pending and is
    not ``previous``."""
    handle = page.wait_for_function(NEXT_SURFACE_JS, arg=previous, polling=50, timeout=60_000)
    return int(handle.json_value())


def model_of(item: queue.WorkItem) -> Model:
    assert item.status != "submitted", f"annotation {item.annotation_id} is already submitted"
    return Model(content=item.content, step=item.step, n_tokens=item.n_tokens)


# ---------------------------------------------------------------------------------- test

@pytest.mark.parametrize("part", range(TESTS))
def test_fast_random_sequences_lose_and_reorder_nothing(chromium_browser, fast_app, part):
    base, db, actor = fast_app
    seed = SEED_BASE + part
    rng = random.Random(seed)
    context = chromium_browser.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(30_000)
    context.add_init_script(TRACE_JS)
    page = context.new_page()
    try:
        sign_in(page, base, USER, PASSWORD)
        open_annotate(page)
        driver = Driver(page, random.Random(seed + 1_000_000))
        aid = None
        for sample in range(SAMPLES_PER_TEST):
            aid = open_surface(page, aid)
            item = queue.open_item(db, actor, aid)
            model = model_of(item)
            for number in range(SEQUENCES_PER_SAMPLE):
                before = Model(model.content, model.step, model.n_tokens, focus=model.focus)
                last = number == SEQUENCES_PER_SAMPLE - 1
                actions = (finishing_sequence if last else random_sequence)(rng, model)
                trouble = run_sequence(page, driver, rng, before, actions, aid)
                check_stored(page, db, actor, aid, model, driver.tol, seed=seed, sample=sample,
                             number=number, before=before, actions=actions, trouble=trouble)
                if model.submitted:
                    break
    finally:
        context.close()


def run_sequence(page, driver: Driver, rng: random.Random, before: Model,
                 actions: list[Action], aid: int) -> str | None:
    """Do ``actions`` with random 0–120 ms pauses, then wait until nothing is pending. Returns
    what went wrong on the way (an action without its element, events never acknowledged)."""
    replay = Model(before.content, before.step, before.n_tokens, focus=before.focus)
    for i, action in enumerate(actions):
        if i:
            pause = rng.randint(0, MAX_GAP_MS)
            if pause:
                page.wait_for_timeout(pause)
        try:
            driver.perform(action, replay)
        except ActionFailed as exc:
            return f"action {i + 1} could not be done: {exc}"
        apply(replay, action)
    try:
        page.wait_for_function(NOTHING_PENDING_JS, arg=aid, polling=20, timeout=SETTLE_S * 1000)
    except PlaywrightTimeout:
        return f"the surface still had unacknowledged events after {SETTLE_S:.0f} s"
    return None


def check_stored(page, db, actor, aid: int, model: Model, tol, *, seed: int, sample: int, number: int,
                 before: Model, actions: list[Action], trouble: str | None) -> None:
    """Poll the stored annotation until it is the intended one; fail with everything needed to
    reproduce it otherwise, or when the sequence ran into ``trouble``."""
    seen: list[queue.WorkItem] = []

    def same() -> bool:
        item = queue.open_item(db, actor, aid)
        seen[:] = [item]
        return not differences(item, model, tol)

    try:
        wait_until(same, timeout=0.5 if trouble else SETTLE_S, what="the intended annotation")
        if not trouble:
            return
    except AssertionError:
        pass
    item = seen[0] if seen else None
    diff = differences(item, model, tol) if item else ["nothing read"]
    if trouble:
        diff.append(trouble)
    steps = "\n".join(f"  {k + 1:>2}. {a.describe()}" for k, a in enumerate(actions))
    try:
        trace = page.evaluate("() => (window.__fastInputTrace || []).slice(-60)")
    except PlaywrightError as exc:
        trace = [f"(no trace: {exc})"]
    pytest.fail(
        f"lost or reordered edit — seed {seed} (CHRONOCEPT_FAST_INPUT_SEED={SEED_BASE}), "
        f"sample {sample + 1} (annotation {aid}), sequence {number + 1}:\n"
        f"start:    {describe_model(before)}\n{steps}\n"
        f"stored:   {describe_item(item)}\nintended: {describe_model(model)}\n"
        f"differences: " + "; ".join(diff)
        + "\nlast input events in the page (time, event, target | surface state):\n  "
        + "\n  ".join(trace), pytrace=False)
