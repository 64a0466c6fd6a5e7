"""The context-pairs part of ``bench/ui_latency.py``: a pair's two-step annotation in a pairs
project that does not segment its targets — a chart click on the target's curve, the step to
the follow-up (Alt+→: the follow-up and the copied curve drawn), chart clicks on the second
curve (→ visible, → acknowledged), the change choice (key 1: an
override, → visible and → acknowledged) and the submit (Alt+Enter → the next pair's surface
drawn). Each edit waits for its acknowledgement before the next, as the single-text part does."""

from __future__ import annotations

from annotation.corpus.pair_import import PairRecord
from annotation.services.accounts import accounts
from annotation.services.corpus import pair_imports
from db.engine import Database

#: The target's curve (x in log-time units, y validity), and the points the second curve (its
#: copy) gets on the follow-up's step: a longer tail, still single-peaked.
POINTS = ((40.0, 0.5), (58.0, 1.0), (85.0, 0.3))
MORE = ((120.0, 0.12), (25.0, 0.2))
#: (interaction, target in ms, which percentile) — a pair keeps the workbench's targets.
PAIR_TARGETS = {
    "pair: target chart click → visible": (50.0, "p95"),
    "pair: target chart click → acknowledged": (150.0, "p95"),
    "pair: step to the follow-up → visible": (50.0, "p95"),
    "pair: step to the follow-up → acknowledged": (150.0, "p95"),
    "pair: follow-up chart click → visible": (50.0, "p95"),
    "pair: follow-up chart click → acknowledged": (150.0, "p95"),
    "pair: change choice (key) → visible": (50.0, "p95"),
    "pair: change choice (key) → acknowledged": (150.0, "p95"),
    "pair: submit → next pair visible": (400.0, "p95"),
}


def seed_pairs(url: str, n: int) -> int:
    """A pairs project of ``n`` + 1 pairs (the last submit still shows a next one), through the
    services; returns its id."""
    db = Database.connect(url)
    try:
        admin = accounts.authenticate(db, "admin", "admin-password")
        # through the pairs import, as a lead adds pairs (a pairs project takes no texts)
        summary = pair_imports.import_pairs(db, admin, None, [
            PairRecord(f"Target {i}: the job interview is tomorrow morning, wish me luck.",
                       f"Follow-up {i}: they just moved it to next Friday.", f"P-{i}", f"P-{i}", i + 1)
            for i in range(n + 1)], source="ui_latency", new_project="Pairs")
        return summary.project_id
    finally:
        db.dispose()


def annotate_pairs(page, base: str, project_id: int, pairs: int, figures) -> None:
    """Annotate and submit ``pairs`` pairs, timing each step (see the module docstring)."""
    from ui_latency import SURFACE, WAIT_MS, _surface_ack, _surface_base, js, measure, plot_point

    page.wait_for_function("() => document.cookie.includes('chronocept_session=')", timeout=WAIT_MS)
    page.goto(f"{base}/workbench?project={project_id}")
    page.get_by_role("button", name="Start the next sample").click()
    surface = js(SURFACE)

    def click_point(i: int, x: float, y: float, name: str) -> None:
        """Click point ``i`` at (x, y) on the chart shown; time it → visible and → acknowledged."""
        px, py = plot_point(page, x, y)
        point = js(f"{SURFACE} circle[data-point='{i}']")
        t = measure(page, lambda: page.mouse.click(px, py), start="pointerdown", base=_surface_base(),
                    checks={"visible": f"!!q({point})", "ack": _surface_ack()}, paint=("visible",))
        figures.add(f"{name} → visible", t["visible"])
        figures.add(f"{name} → acknowledged", t["ack"])

    for _ in range(pairs):
        page.locator(f"{SURFACE}[data-step='2'] [data-token]").first.wait_for(timeout=WAIT_MS)
        page.locator(f"{SURFACE}[data-pending='0']").wait_for(timeout=WAIT_MS)
        for i, (x, y) in enumerate(POINTS):
            click_point(i, x, y, "pair: target chart click")
        follow = js(f"{SURFACE} [data-testid='follow-up-text']")
        t = measure(page, lambda: page.keyboard.press("Alt+ArrowRight"), start="keydown", base=_surface_base(),
                    checks={"visible": f"(e => !!e && e.textContent.length > 0)(q({follow}))",
                            "ack": _surface_ack()}, paint=("visible",))
        figures.add("pair: step to the follow-up → visible", t["visible"])
        figures.add("pair: step to the follow-up → acknowledged", t["ack"])
        for i, (x, y) in enumerate(MORE, start=len(POINTS)):  # the second curve: two more points
            click_point(i, x, y, "pair: follow-up chart click")
        choice = js(f"{SURFACE} [data-change-option='decreased']")
        t = measure(page, lambda: page.keyboard.press("1"), start="keydown", base=_surface_base(),
                    checks={"visible": f"q({choice}).getAttribute('aria-checked') === 'true'",
                            "ack": _surface_ack()}, paint=("visible",))
        figures.add("pair: change choice (key) → visible", t["visible"])
        figures.add("pair: change choice (key) → acknowledged", t["ack"])
        page.mouse.move(1, 1)
        t = measure(page, lambda: page.keyboard.press("Alt+Enter"), start="keydown", base=_surface_base(),
                    checks={"next": f"(s => s && s.dataset.annotationId !== base.aid && "
                                    f"!!s.querySelector('[data-token]'))(q({surface}))"},
                    paint=("next",))
        figures.add("pair: submit → next pair visible", t["next"])
