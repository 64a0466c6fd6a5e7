"""Workbench latency as an annotator feels it, in real Chromium (the SPEC's targets, below).

The script starts the app itself (``streamlit run app.py``) on a temporary SQLite database with
an admin, one annotator and the demo project (made with the project's own services, as the
browser tests do), drives ``/usr/bin/chromium`` headless with Playwright, and prints p50 / p95 /
max and n per interaction:

* **sign-in**: press "Sign in" → the "My queue" heading is drawn (a new browser context each
  time: no cookie, a new Streamlit session);
* **sidebar navigation**: click "My account" / "My queue" in the sidebar → that page's heading;
* **edit → visible** and **edit → acknowledged** for a gap click (a segment boundary), an axis
  click, a chart click (add a point) and a step change;
* **submit → next sample visible**;
* a context pair's steps (``bench/ui_latency_pairs.py``): chart clicks on the target's curve,
  the step to the follow-up (Alt+→ → the follow-up drawn, → acknowledged), chart clicks on the
  second curve, the change choice (key 1) and submit → the next pair visible.

How the time is taken. Every figure is measured inside the page with ``performance.now()``, so
Playwright's round trips (tens of ms each, more on a loaded machine) are not in them: before an
action the script arms a measurement (``bench/ui_latency_probe.js``, installed with
``add_init_script``); *t0* is the ``timeStamp`` of the action's first input event
(``pointerdown`` or ``keydown``, seen by a capture listener on ``window``); the conditions are
checked on every DOM mutation (the document and every open shadow root are observed) and on
every animation frame. "Visible" is taken after the frame that draws the change (the next
animation frame, then a message-channel task, i.e. once that frame has been painted);
"acknowledged" is the moment the DOM says so: on the annotation surface
(``ui/components/annotation_surface.py``, whose DOM the module docstring describes)
``[data-testid="surface"]`` has ``data-pending="0"`` and ``data-acked`` ≥ the edit's seq (one
more than ``data-acked`` before the edit: the script waits for each edit's acknowledgement
before the next). Submit is one key (Alt+Enter) → the next sample's text drawn (a new
``data-annotation-id``).

The workbench before the annotation surface (Streamlit widgets, one rerun per edit) was measured by this
script's earlier version (``git log -- bench/ui_latency.py``; its figures are in
``bench/results/ui_latency_before.txt``); that workbench no longer exists, so this version
drives only the surface.

Per sample the script makes one boundary, labels both segments, places three points and
submits, waiting for each acknowledgement before the next action (this measures latency, not
fast input: ``tests/browser/test_fast_input.py`` does that).

    python bench/ui_latency.py [--samples 15] [--signins 8] [--pairs 10] [--port 0]

The load average is printed with the figures: on a busy machine the figures are slower. Exit status 0 (it is a benchmark; the targets are printed beside the figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from annotation.content import AnnotationContent  # noqa: E402
from annotation.services.accounts import accounts  # noqa: E402
from annotation.services.corpus import demo_projects, text_imports  # noqa: E402
from annotation.services.projects import projects  # noqa: E402
from annotation.services.workbench import queue, workbench_events  # noqa: E402
from annotation.workbench.edit_script import edits_between  # noqa: E402
from annotation.corpus.text_import import TextRecord  # noqa: E402
from db.engine import Database  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser import app_server  # noqa: E402
from tests.browser.flow_steps import open_annotate  # noqa: E402  (Annotate, then "Start the next sample")

PROBE_JS = (Path(__file__).resolve().parent / "ui_latency_probe.js").read_text(encoding="utf-8")
USER, PASSWORD = "ann1", "ann1-password"
START_TIMEOUT_S = 90.0
WAIT_MS = 30_000
VIEWPORT = {"width": 1440, "height": 900}
SURFACE = '[data-testid="surface"]'
PLOT = '[data-testid="curve-plot"]'
#: The three points placed on every sample (x in log-time units, y validity): a valid curve.
POINTS = ((40.0, 0.5), (58.0, 1.0), (85.0, 0.3))
AXES = ("main", "static")

#: (interaction, target in ms, which percentile the target is for) (SPEC section 10).
TARGETS = {
    "sign-in → queue visible": (1000.0, "p95"),
    "sidebar navigation → page heading": (500.0, "p95"),
    "edit → visible: gap click": (50.0, "p95"),
    "edit → visible: axis click": (50.0, "p95"),
    "edit → visible: chart click": (50.0, "p95"),
    "edit → acknowledged: gap click": (150.0, "p95"),
    "edit → acknowledged: axis click": (150.0, "p95"),
    "edit → acknowledged: chart click": (150.0, "p95"),
    "submit → next sample visible": (400.0, "p95"),
    # a boundary click on a 2,500-token text (it took 220–390 ms on 840)
    "long text: gap click → visible": (50.0, "p95"),
}
from ui_latency_long import LONG_TEXT, long_text  # noqa: E402  (the 2,500-token part)
from ui_latency_pairs import PAIR_TARGETS, annotate_pairs, seed_pairs  # noqa: E402  (the context-pairs part)
TARGETS.update(PAIR_TARGETS)


class BenchError(Exception):
    """Something the benchmark cannot go on without (message shown as is, no traceback)."""


@dataclass
class Figures:
    """Milliseconds per interaction, in the order first seen."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    timeouts: dict[str, int] = field(default_factory=dict)
    aborted: list[str] = field(default_factory=list)  # samples abandoned half-way, and why

    def add(self, name: str, ms: float | None) -> None:
        self.samples.setdefault(name, [])
        if ms is None:
            self.timeouts[name] = self.timeouts.get(name, 0) + 1
        else:
            self.samples[name].append(ms)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (no interpolation: every figure printed was measured)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


# --------------------------------------------------------------------------------- the app

def seed_database(url: str) -> tuple[int, int]:
    """Admin, annotator ``ann1``, the demo project and a project of two 2,500-token texts,
    through the services (as the tests do); returns the two projects' ids."""
    db = Database.connect(url)
    try:
        admin = accounts.create_first_admin(db, "admin", "admin-password")
        accounts.create_user(db, admin, USER, PASSWORD, "annotator")
        demo = demo_projects.load_demo_project(db, admin).id
        long = projects.create_project(db, admin, "Long texts")
        text_imports.import_texts(db, admin, long.id, [TextRecord(LONG_TEXT, 1, f"L-{i}", i + 1) for i in range(2)])
        return demo, long.id
    finally:
        db.dispose()


def reset_open_draft(url: str, project_id: int) -> None:
    """Empty the annotator's open draft (after a sample was abandoned half-way), through the
    queue service, so the next attempt starts from a blank sample as the script expects."""
    db = Database.connect(url)
    try:
        actor = accounts.authenticate(db, USER, PASSWORD)
        item = queue.next_item(db, actor, project_id)
        if item is not None and not item.is_submitted:
            # through the workbench's one write path, as the surface would send the edits
            edits = edits_between(item.content, AnnotationContent(), step=0)
            if edits:
                workbench_events.apply_events(db, actor, item.annotation_id, uuid.uuid4().hex[:16],
                                              item.version, edits)
    finally:
        db.dispose()


# ----------------------------------------------------------------------------- measuring

def js(value: object) -> str:
    """``value`` as a JavaScript literal (selectors and texts inside check expressions)."""
    return json.dumps(value)


def measure(page, action: Callable[[], None], *, start: str, checks: dict[str, str],
            paint: tuple[str, ...] = (), base: str | None = None) -> dict[str, float | None]:
    """Arm the in-page timer, do ``action``, return {check name: ms after t0, or None on timeout}."""
    mid = page.evaluate("spec => window.__uiLatency.arm(spec)",
                        {"start": start, "checks": checks, "paint": list(paint), "base": base})
    action()
    result = page.evaluate("([id, ms]) => window.__uiLatency.wait(id, ms)", [mid, WAIT_MS])
    if result["t0"] is None:
        raise BenchError(f"the action for {sorted(checks)} produced no {start} event in the page")
    return {name: result["times"].get(name) for name in checks}


def wait_idle(page) -> None:
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT_MS)


def sign_in_once(browser, base: str, figures: Figures):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(PROBE_JS)
    page = context.new_page()
    page.goto(base)
    page.get_by_role("textbox", name="Username").wait_for(timeout=90_000)
    wait_idle(page)
    page.get_by_role("textbox", name="Username").fill(USER)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    button = page.get_by_role("button", name="Sign in")
    times = measure(page, button.click, start="pointerdown",
                    checks={"queue": "heading('My queue')"}, paint=("queue",))
    figures.add("sign-in → queue visible", times["queue"])
    wait_idle(page)
    return context, page


def navigate(page, figures: Figures) -> None:
    for title in ("My account", "My queue"):
        link = page.get_by_role("link", name=title)
        times = measure(page, link.click, start="pointerdown",
                        checks={"page": f"heading({title!r})"}, paint=("page",))
        figures.add("sidebar navigation → page heading", times["page"])
        wait_idle(page)


def plot_point(page, x: float, y: float) -> tuple[float, float]:
    """Pixel position of (x, y) on the chart, from the plot rect's data range and box."""
    plot = page.locator(PLOT)
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    x_min, x_max = float(plot.get_attribute("data-x-min")), float(plot.get_attribute("data-x-max"))
    y_min, y_max = float(plot.get_attribute("data-y-min")), float(plot.get_attribute("data-y-max"))
    return (box["x"] + (x - x_min) / (x_max - x_min) * box["width"],
            box["y"] + (1 - (y - y_min) / (y_max - y_min)) * box["height"])


#: The gap nearest the middle of the text whose centre a click reaches (a narrow gap between a
#: word and punctuation can lie under its neighbour's hit area).
SPLIT_GAP_JS = """(root) => {
  const gaps = window.__uiLatency.qa(root + " [data-gap]");
  const middle = (gaps.length + 1) / 2;
  const reachable = (el) => {
    const r = el.getBoundingClientRect();
    const top = el.getRootNode().elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!top && (top === el || el.contains(top));
  };
  const order = gaps.map((el) => Number(el.getAttribute("data-gap")))
    .sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle));
  for (const g of order) {
    const el = gaps.find((x) => Number(x.getAttribute("data-gap")) === g);
    if (reachable(el)) return g;
  }
  return null;
}"""


def split_gap(page, root: str) -> int:
    """A gap near the middle of the text: the boundary this sample gets."""
    gap = page.evaluate(SPLIT_GAP_JS, root)
    if gap is None:
        raise BenchError("no gap of the sample's text can be clicked")
    return gap


# -- new surface: the browser owns the annotation, edits are an acknowledged event log

def _surface_ack() -> str:
    return (f"(s => s && s.dataset.pending === '0' && Number(s.dataset.acked) >= base.acked + 1)"
            f"(q({js(SURFACE)}))")


def _surface_base(extra: str = "") -> str:
    return (f"(s => ({{acked: Number(s.dataset.acked), aid: s.dataset.annotationId, "
            f"step: s.dataset.step{extra}}}))(q({js(SURFACE)}))")


def new_sample(page, figures: Figures) -> None:
    page.locator(f"{SURFACE} [data-token]").first.wait_for()
    page.locator(f"{SURFACE}[data-pending='0']").wait_for()
    surface = page.locator(SURFACE)
    gap = split_gap(page, SURFACE)
    text_sel = js(f"{SURFACE} [data-testid='surface-text']")

    t = measure(page, page.locator(f"{SURFACE} [data-gap='{gap}']").click, start="pointerdown",
                base=_surface_base(f", text: sig(q({text_sel}))"),
                checks={"visible": f"sig(q({text_sel})) !== base.text", "ack": _surface_ack()},
                paint=("visible",))
    figures.add("edit → visible: gap click", t["visible"])
    figures.add("edit → acknowledged: gap click", t["ack"])

    def step_key() -> None:
        t = measure(page, lambda: page.keyboard.press("Alt+ArrowRight"), start="keydown",
                    base=_surface_base(),
                    checks={"visible": f"q({js(SURFACE)}).dataset.step !== base.step", "ack": _surface_ack()},
                    paint=("visible",))
        figures.add("step change → visible (Alt+→)", t["visible"])
        figures.add("step change → acknowledged", t["ack"])

    if surface.get_attribute("data-layout") == "steps":
        step_key()
    for j, axis in enumerate(AXES):
        row = f"{SURFACE} [data-segment='{j}']"
        option = page.locator(f"{row} [data-axis-option='{axis}']")
        row = js(row)
        t = measure(page, option.click, start="pointerdown",
                    base=_surface_base(f", row: sig(q({row}))"),
                    checks={"visible": f"sig(q({row})) !== base.row", "ack": _surface_ack()},
                    paint=("visible",))
        figures.add("edit → visible: axis click", t["visible"])
        figures.add("edit → acknowledged: axis click", t["ack"])
    if surface.get_attribute("data-layout") == "steps":
        step_key()

    for i, (x, y) in enumerate(POINTS):
        px, py = plot_point(page, x, y)
        point = js(f"{SURFACE} circle[data-point='{i}']")
        t = measure(page, lambda: page.mouse.click(px, py), start="pointerdown", base=_surface_base(),
                    checks={"visible": f"!!q({point})", "ack": _surface_ack()},
                    paint=("visible",))
        figures.add("edit → visible: chart click", t["visible"])
        figures.add("edit → acknowledged: chart click", t["ack"])

    page.mouse.move(1, 1)  # the submit key works wherever focus is; leave the chart alone
    t = measure(page, lambda: page.keyboard.press("Alt+Enter"), start="keydown", base=_surface_base(),
                checks={"next": f"(s => s && s.dataset.annotationId !== base.aid && "
                                f"!!s.querySelector('[data-token]'))(q({js(SURFACE)}))"},
                paint=("next",))
    figures.add("submit → next sample visible", t["next"])


# ----------------------------------------------------------------------------------- report

def load_line() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        one, five, fifteen = os.getloadavg()
        return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"


def report(figures: Figures, args: argparse.Namespace, chromium: str,
           load_before: str, load_after: str) -> str:
    lines = [
        f"ui_latency — {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC — annotation surface",
        f"{platform.node()} · {os.cpu_count()} CPUs · Chromium {chromium} headless · "
        f"viewport {VIEWPORT['width']}×{VIEWPORT['height']} · {args.samples} samples, {args.signins} sign-ins",
        f"uptime before: {load_before}",
        f"uptime after:  {load_after}",
        "",
        f"{'interaction':<46} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  target",
    ]
    for name, values in figures.samples.items():
        target = TARGETS.get(name)
        aim = ""
        if target and values:
            limit, which = target
            value = percentile(values, 95)
            aim = f"{which} ≤ {limit:.0f}  {'met' if value <= limit else 'NOT met'}"
        lost = figures.timeouts.get(name, 0)
        if lost:
            aim += f"  ({lost} timed out after {WAIT_MS / 1000:.0f} s, not counted)"
        if values:
            lines.append(f"{name:<46} {len(values):>4} {percentile(values, 50):>8.1f} "
                         f"{percentile(values, 95):>8.1f} {max(values):>8.1f}  {aim}")
        else:
            lines.append(f"{name:<46} {0:>4} {'—':>8} {'—':>8} {'—':>8}  {aim}")
    for reason in figures.aborted:
        lines.append(f"sample abandoned and started again: {reason}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> str:
    from playwright.sync_api import Error as PlaywrightError, sync_playwright

    if not Path(CHROMIUM).exists():
        raise BenchError(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")
    figures = Figures()
    load_before = load_line()
    with tempfile.TemporaryDirectory(prefix="ui-latency-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        project_id, long_project_id = seed_database(url)
        pairs_project_id = seed_pairs(url, args.pairs) if args.pairs else None
        log_path = Path(tmp) / "streamlit.log"
        try:
            process, base = app_server.start(Path("app.py"), args.port or app_server.free_port(), log_path,
                                             {"CHRONOCEPT_DATABASE_URL": url}, timeout_s=START_TIMEOUT_S)
        except app_server.AppNotStarted as exc:
            raise BenchError(str(exc)) from None
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    # the first sign-in warms the server up (imports, caches) and is not counted
                    context, page = sign_in_once(browser, base, Figures())
                    for _ in range(args.signins):
                        context.close()
                        context, page = sign_in_once(browser, base, figures)
                    for _ in range(args.samples):
                        navigate(page, figures)
                    open_annotate(page)
                    done = 0
                    while done < args.samples and len(figures.aborted) < args.samples:
                        try:
                            new_sample(page, figures)
                            done += 1
                        except PlaywrightError as exc:
                            # a step that never came (a lost edit would be a bug, or a
                            # loaded machine): note it, start this sample again from blank
                            figures.aborted.append(str(exc).splitlines()[0])
                            context.close()
                            reset_open_draft(url, project_id)
                            context, page = sign_in_once(browser, base, Figures())
                            open_annotate(page)
                    if args.long_clicks:
                        long_text(page, base, long_project_id, args.long_clicks, figures)
                    if args.pairs:
                        annotate_pairs(page, base, pairs_project_id, args.pairs, figures)
                    chromium = browser.version
                finally:
                    browser.close()
        except PlaywrightError as exc:
            raise BenchError(f"the browser step failed: {str(exc).splitlines()[0]}\n"
                             f"app log (tail):\n{log_path.read_text(errors='replace')[-3000:]}") from None
        finally:
            app_server.stop(process)
    return report(figures, args, chromium, load_before, load_line())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=15,
                        help="samples annotated and submitted (the demo project has 50); default 15")
    parser.add_argument("--signins", type=int, default=8, help="sign-ins timed; default 8")
    parser.add_argument("--port", type=int, default=0, help="the app's port (default: a free one)")
    parser.add_argument("--long-clicks", type=int, default=20,
                        help="boundary clicks timed on a 2,500-token text (0: none); default 20")
    parser.add_argument("--pairs", type=int, default=10,
                        help="context pairs annotated and submitted (0: none); default 10")
    args = parser.parse_args(argv)
    if not 1 <= args.samples <= 45:
        parser.error("--samples must be between 1 and 45 (the demo project has 50 texts)")
    if not 1 <= args.signins <= 200:
        parser.error("--signins must be between 1 and 200")
    if not 0 <= args.pairs <= 100:
        parser.error("--pairs must be between 0 and 100")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    try:
        print(run(args))
    except BenchError as exc:
        print(f"ui_latency: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
