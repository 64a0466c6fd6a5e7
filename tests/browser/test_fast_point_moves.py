"""A chart point moved fast: a held arrow key and drag after drag of one point, at 10–30 ms
between inputs while every server answer lags behind them. Nothing may be lost, the point stored
is exactly where the chart shows it, and the queue the surface sends stays short: consecutive
moves of one point fold into the last (``ui/components/edit_queue.js``; the server applies such a
move as ``first`` … ``seq``, ``annotation.workbench.event_log``).

Two tests: one in the surface harness (``harness_surface.py``, whose "server" answers 0.1 s late
and records every batch it receives and every folded event it applies), one in the real app
(the stored draft read from the database). In both, a test-side observer records the surface's
``data-pending`` after every input (the length of the queue just sent): a held key on one point
never makes it more than one event, where without folding it grows by one per key repeat until
an answer arrives.
"""

from __future__ import annotations

import math
import random

import pytest

from annotation.services.accounts import accounts
from annotation.services.corpus import demo_projects
from annotation.services.workbench import queue
from db.engine import Database
from tests.browser.flow_steps import open_annotate, read_state, sign_in, wait_until
from tests.browser.test_annotation_surface import (
    HARNESS,
    open_surface,
    plot_position,
    settled,
    step_to,
    tolerance,
)

pytestmark = pytest.mark.browser

SURFACE = '[data-testid="surface"]'
PLOT = f'{SURFACE} [data-testid="curve-plot"]'
SEED = 20260512
#: Milliseconds between two inputs: a key's auto-repeat (~30/s) and faster.
PACE_MS = (10, 30)
#: The points placed before the moves: far enough apart that a drag grabs the one it aims at.
START = ((30.0, 0.3), (90.0, 0.35), (150.0, 0.25))

#: Records the surface's data-pending each time the surface sets it (it does on every render,
#: and a push renders right after it sends): window.__pendingSeen, and the mount it watched.
WATCH_PENDING_JS = """(root) => {
  window.__pendingSeen = [];
  window.__pendingMount = root.getAttribute("data-mount");
  if (window.__pendingObserver) window.__pendingObserver.disconnect();
  window.__pendingObserver = new MutationObserver(() => {
    window.__pendingSeen.push(Number(root.getAttribute("data-pending")));
  });
  window.__pendingObserver.observe(root, { attributes: true, attributeFilter: ["data-pending"] });
}"""
#: What the chart shows: the surface's points (data-points) and, from each circle's centre, the
#: point in data units (the plot rect's x, y, width, height and data-x-max map them).
SHOWN_JS = """(root) => {
  const plot = root.querySelector('[data-testid="curve-plot"]');
  const [left, top, w, h, xMax] = ["x", "y", "width", "height", "data-x-max"].map((a) => Number(plot.getAttribute(a)));
  const circles = [...root.querySelectorAll("circle[data-point]")];
  return {
    points: JSON.parse(root.querySelector('[data-testid="curve-canvas"]').getAttribute("data-points")),
    circles: circles.map((c) => [(Number(c.getAttribute("cx")) - left) / w * xMax, 1 - (Number(c.getAttribute("cy")) - top) / h]),
    mount: root.getAttribute("data-mount"),
  };
}"""

# ------------------------------------------------------------------------------ the model


def round2(v: float) -> float:
    """JS ``Math.round(v * 100) / 100`` (half up, as the surface rounds)."""
    return math.floor(v * 100 + 0.5) / 100


#: The surface's nudges: the key and the change of (x, y) it makes.
NUDGE = {"ArrowUp": (0.0, 0.02), "ArrowDown": (0.0, -0.02), "ArrowRight": (1.0, 0.0),
         "ArrowLeft": (-1.0, 0.0), "Shift+ArrowUp": (0.0, 0.1), "Shift+ArrowLeft": (-5.0, 0.0)}


def nudged(point: tuple[float, float], key: str, x_max: float = 200.0) -> tuple[float, float]:
    """Where one press of ``key`` puts ``point`` (the surface's own arithmetic)."""
    dx, dy = NUDGE[key]
    return (round2(min(max(point[0] + dx, 0.0), x_max)), round2(min(max(point[1] + dy, 0.0), 1.0)))


# ------------------------------------------------------------------------------ the input


class FastHand:
    """Input at :data:`PACE_MS` between events, no waiting for the app; counts the edits made."""

    def __init__(self, page, rng: random.Random) -> None:
        self.page, self.rng, self.edits = page, rng, 0

    def pause(self) -> None:
        self.page.wait_for_timeout(self.rng.randint(*PACE_MS))

    def hold(self, key: str, repeats: int) -> None:
        """Hold ``key`` down for ``repeats`` key repeats (keydown with ``repeat``), then let go."""
        keyboard = self.page.keyboard
        modifier, _, key = key.rpartition("+")
        if modifier:
            keyboard.down(modifier)
        for _ in range(repeats):
            keyboard.down(key)  # a second down without an up is an auto-repeat
            self.edits += 1
            self.pause()
        keyboard.up(key)
        if modifier:
            keyboard.up(modifier)

    def drag(self, index: int, to: tuple[float, float], moves: int = 12) -> None:
        """Drag point ``index`` from where the chart shows it now to ``to`` (data units) in
        ``moves`` pointer moves."""
        box = self.page.locator(f"{SURFACE} circle[data-point='{index}']").bounding_box()
        self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.page.mouse.down()
        self.page.mouse.move(*plot_position(self.page, *to), steps=moves)
        self.page.mouse.up()
        self.edits += 1
        self.pause()


def watch_pending(page) -> None:
    page.locator(SURFACE).evaluate(WATCH_PENDING_JS)


def pending_seen(page) -> list[int]:
    return page.evaluate("() => window.__pendingSeen.slice()")


def shown(page) -> dict:
    return page.locator(SURFACE).evaluate(SHOWN_JS)


def assert_shown_is_stored(page, stored: list, mount: str) -> None:
    """The chart shows exactly the stored points: its own list and every circle's centre."""
    screen = shown(page)
    assert screen["mount"] == mount, "the surface was mounted anew: the observer saw another root"
    assert len(screen["points"]) == len(stored), (screen, stored)
    for (sx, sy), (cx, cy), (x, y) in zip(screen["points"], screen["circles"], stored):
        assert abs(sx - x) < 1e-9 and abs(sy - y) < 1e-9, (screen["points"], stored)
        assert abs(cx - x) < 1e-6 and abs(cy - y) < 1e-6, (screen["circles"], stored)


def assert_close(actual, expected, tol) -> None:
    assert abs(actual[0] - expected[0]) <= tol[0] and abs(actual[1] - expected[1]) <= tol[1], (actual, expected)


# ------------------------------------------------------------------------------ the harness


@pytest.fixture(scope="module")
def harness_url(run_streamlit_module) -> str:
    return run_streamlit_module(HARNESS)


def test_a_held_arrow_key_and_drag_after_drag_fold_and_lose_nothing(page, harness_url):
    open_surface(page, harness_url, "delay=0.1")  # each batch takes the "server" 0.1 s
    step_to(page, 2)
    for x, y in START:
        page.mouse.click(*plot_position(page, x, y))
    state = settled(page)
    made = state["last_seq"]  # two steps and three adds
    assert made == 5 and len(state["content"]["points"]) == 3
    batches = [len(state["received"])]  # where each part's batches begin
    mount = page.locator(SURFACE).get_attribute("data-mount")
    hand = FastHand(page, random.Random(SEED))

    # 1. a held key on one point, from a settled start: the queue never holds more than one event
    points = [tuple(p) for p in state["content"]["points"]]
    watch_pending(page)
    page.locator(f"{SURFACE} circle[data-point='1']").focus()
    for key, repeats in (("ArrowUp", 25), ("ArrowRight", 30), ("Shift+ArrowLeft", 4), ("ArrowDown", 12)):
        hand.hold(key, repeats)
        for _ in range(repeats):
            points[1] = nudged(points[1], key)
    held = pending_seen(page)
    state = settled(page)
    batches.append(len(state["received"]))
    made += hand.edits
    assert held and max(held) == 1, f"queue lengths while the key was held: {held}"
    assert state["last_seq"] == made, f"{made} edits made, {state['last_seq']} acknowledged"
    assert [tuple(p) for p in state["content"]["points"]] == points  # exact: nudges add exact steps
    assert_shown_is_stored(page, state["content"]["points"], mount)

    # 2. drag after drag of the same point with key nudges between, then another point (no
    # fold across it) and back: three runs of moves, so at most three events pending
    watch_pending(page)
    edits_before = hand.edits
    intended = [tuple(p) for p in state["content"]["points"]]
    for target in ((60.0, 0.6), (70.0, 0.7), (66.0, 0.8), (80.0, 0.75)):
        hand.drag(1, target)
        intended[1] = target
    hand.hold("ArrowUp", 6)
    hand.drag(1, (75.0, 0.5))
    hand.hold("ArrowDown", 5)
    intended[1] = (75.0, 0.5 - 5 * 0.02)
    hand.drag(2, (160.0, 0.4))  # another point: not folded into point 1's run
    intended[2] = (160.0, 0.4)
    hand.hold("ArrowLeft", 8)
    intended[2] = (152.0, 0.4)
    hand.drag(1, (100.0, 0.6))
    intended[1] = (100.0, 0.6)
    dragged = pending_seen(page)
    state = settled(page)
    made += hand.edits - edits_before
    assert state["last_seq"] == made, f"{made} edits made, {state['last_seq']} acknowledged"
    tol = tolerance(page)
    for actual, expected in zip(state["content"]["points"], intended):
        assert_close(actual, expected, tol)
    assert_shown_is_stored(page, state["content"]["points"], mount)
    # one event per run of moves of one point (1, 2, 1), however fast the moves came
    assert dragged and max(dragged) <= 3, f"queue lengths while dragging: {dragged}"
    batches.append(len(state["received"]))

    # what the "server" saw: short batches, folded runs of moves, no number skipped
    state = read_state(page)
    assert state["malformed"] == []
    part1 = state["received"][batches[0]:batches[1]]
    part2 = state["received"][batches[1]:batches[2]]
    assert part1 and all(len(batch) == 1 for batch in part1), part1
    assert part2 and all(len(batch) <= 3 for batch in part2), part2
    assert state["folded"], "no folded move reached the server"
    # the server got runs of moves as one event each: at least one stood for three or more
    assert max(seq - first for first, seq in state["folded"]) >= 2, state["folded"]
    first_of = {seq: first for first, seq in state["folded"]}
    last = 0
    for seq, kind in state["applied"]:  # each applied event takes up where the last one ended
        assert seq > last and first_of.get(seq, seq) <= last + 1, (seq, last, state["folded"])
        assert seq == first_of.get(seq, seq) or kind == "point"
        last = seq
    assert last == made


# ------------------------------------------------------------------------------ the real app

USER, PASSWORD = "mover1", "mover1-password"


@pytest.fixture(scope="module")
def moves_app(tmp_path_factory, run_streamlit_module):
    """The app on its own database: the demo project and annotator ``mover1``."""
    url = f"sqlite:///{tmp_path_factory.mktemp('point-moves') / 'moves.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, USER, PASSWORD, "annotator")
    demo_projects.load_demo_project(db, admin)
    actor = accounts.authenticate(db, USER, PASSWORD)
    base = run_streamlit_module("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    yield base, db, actor
    db.dispose()


def test_the_stored_point_is_where_the_chart_shows_it(chromium_browser, moves_app):
    """The real workbench: the server replays the folded moves (annotation.workbench.event_log) and the
    draft it stores has the point exactly where the chart shows it."""
    base, db, actor = moves_app
    context = chromium_browser.new_context(viewport={"width": 1366, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        sign_in(page, base, USER, PASSWORD)
        open_annotate(page)
        page.locator(f"{SURFACE}[data-pending='0'] [data-token]").first.wait_for(timeout=60_000)
        aid = int(page.locator(SURFACE).get_attribute("data-annotation-id"))
        step_to(page, 2)
        page.locator(PLOT).scroll_into_view_if_needed()
        for x, y in START:
            page.mouse.click(*plot_position(page, x, y))
        page.locator(f"{SURFACE}[data-pending='0']").wait_for()
        made = int(page.locator(SURFACE).get_attribute("data-acked"))
        mount = page.locator(SURFACE).get_attribute("data-mount")
        hand = FastHand(page, random.Random(SEED + 1))
        points = [tuple(p) for p in shown(page)["points"]]

        watch_pending(page)
        page.locator(f"{SURFACE} circle[data-point='0']").focus()
        for key, repeats in (("ArrowUp", 30), ("ArrowRight", 25)):
            hand.hold(key, repeats)
            for _ in range(repeats):
                points[0] = nudged(points[0], key)
        held = pending_seen(page)
        intended = list(points)
        for target in ((50.0, 0.5), (45.0, 0.8), (55.0, 0.9)):
            hand.drag(0, target)
        hand.hold("ArrowDown", 10)
        intended[0] = (55.0, 0.9 - 10 * 0.02)
        made += hand.edits
        page.locator(f"{SURFACE}[data-pending='0'][data-acked='{made}']").wait_for()
        assert held and max(held) == 1, f"queue lengths while the key was held: {held}"
        assert max(pending_seen(page)) == 1, pending_seen(page)

        def stored_points() -> list:
            return [list(p) for p in queue.open_item(db, actor, aid).content.points]

        wait_until(lambda: len(stored_points()) == 3 and stored_points() == shown(page)["points"],
                   timeout=20, what="the stored points to be the ones shown")
        stored = stored_points()
        assert_shown_is_stored(page, stored, mount)
        tol = tolerance(page)
        for actual, expected in zip(stored, intended):
            assert_close(actual, expected, tol)
        assert page.locator(SURFACE).get_attribute("data-acked") == str(made)
    finally:
        context.close()
