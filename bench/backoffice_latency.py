"""The back office as a lead feels it, in real Chromium (every page within its speed target).

For a project of 200 and one of 20,000 doubly annotated texts (bulk-loaded by
``bench/annotated_pool.py``, then settled by ``resolving.resolve_project`` as ``chronocept
resolve`` does), the script starts the app (``streamlit run app.py``, SQLite), signs in as the
admin (who has every page) and prints p50 / p95 / max and n for:

* **(a) sidebar click → run finished**, for every page the admin has: the link is clicked, the
  time runs from its ``pointerdown`` until a script run that started after it has finished with
  the page's heading on screen (``--clicks`` per page, alternating with My queue);
* **(b) the page opened by URL in a new tab → run finished**: a new tab of the signed-in browser
  (its cookie resumes the session) opens ``/<url_path>``; the time runs from the navigation's
  start (``performance.timeOrigin``) until the page's first full run has finished with its
  heading — a new Streamlit session, as a lead's bookmark or a second tab is (``--tabs`` each);
* **(c) each Agreement tab → drawn**: click the tab → its panel shows its first chart or table.

Timing is done in the page with ``performance.now()`` (``bench/ui_latency_probe.js``, as
``bench/ui_latency.py`` does), so Playwright's round trips are not in the figures.

    python bench/backoffice_latency.py [--sizes 200,20000] [--clicks 5] [--tabs 3] [--port 0]

Targets (this 2-core machine, nothing else running): (a) p95 ≤ 0.5 s at 200 and ≤ 1 s at
20,000; (b) ≤ 2 s; (c) ≤ 1 s. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotated_pool import build  # noqa: E402
from ui_latency import PROBE_JS, BenchError, Figures, js, load_line, measure, percentile  # noqa: E402

from annotation.services.review import resolving  # noqa: E402
from db.engine import Database  # noqa: E402
from tests.browser import app_server  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.flow_steps import whole_page_shot  # noqa: E402
from ui.navigation import PAGES  # noqa: E402

ADMIN, PASSWORD = "admin", "admin-password-123"
VIEWPORT = {"width": 1440, "height": 900}
WAIT_MS = 60_000
#: headings that are not the page's title (the workbench is headed "Annotate" until a sample opens)
HEADINGS = {"workbench": "Annotate"}
AGREEMENT_TABS = ("Curves", "Axis labels", "Curve parameters", "Segmentation", "Over time",
                  "Annotator pairs")


def targets(size: int) -> dict[str, float]:
    return {"a": 500.0 if size <= 200 else 1000.0, "b": 2000.0, "c": 1000.0}


def seed(url: str, size: int) -> None:
    """A project of ``size`` doubly annotated texts (and a tenth as many with one annotation),
    settled into gold and review items."""
    db = Database.connect(url)
    try:
        n_single = size // 9
        setup = build(db, size + n_single + max(20, size // 10), 2 * size + n_single, 12, 20261128)
        resolving.resolve_project(db, setup.admin, setup.project_id)
    finally:
        db.dispose()


def run_finished(heading: str) -> str:
    return f"runEnded() && heading({js(heading)})"


def sign_in(browser, base: str):
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(PROBE_JS)
    page = context.new_page()
    page.goto(base)
    page.get_by_role("textbox", name="Username").fill(ADMIN)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="My queue").wait_for(timeout=WAIT_MS)
    idle(page)
    return context, page


def idle(page) -> None:
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT_MS)


def sidebar_clicks(page, pages, clicks: int, figures: Figures, shots: Path | None = None) -> None:
    """(a) for every page; ``shots``: also a whole-page screenshot of each, to look at."""
    for spec in pages:
        heading = HEADINGS.get(spec.url_path, spec.title)
        for _ in range(clicks):
            back = "Guidelines" if spec.title == "My queue" else "My queue"
            page.get_by_role("link", name=back, exact=True).click()
            page.get_by_role("heading", name=back, exact=True).first.wait_for(timeout=WAIT_MS)
            idle(page)
            link = page.get_by_role("link", name=spec.title, exact=True)
            t = measure(page, link.click, start="pointerdown", checks={"done": run_finished(heading)})
            figures.add(f"(a) {spec.title}", t["done"])
            idle(page)
        if shots is not None:
            whole_page_shot(page, shots / f"{spec.url_path}.png")


NEW_TAB_JS = """([heading]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const hs = [...document.querySelectorAll('h1, h2, h3')].filter((h) => !h.closest('[data-stale="true"]'));
  return hs.some((h) => (h.textContent || '').replace(/\\s+/g, ' ').trim() === heading) ? performance.now() : false;
}"""


def new_tabs(context, base: str, project_query: str, pages, tabs: int, figures: Figures) -> None:
    for spec in pages:
        heading = HEADINGS.get(spec.url_path, spec.title)
        for _ in range(tabs):
            page = context.new_page()
            try:
                page.goto(f"{base}/{spec.url_path}{project_query}", wait_until="commit")
                done = page.wait_for_function(NEW_TAB_JS, arg=[heading], polling="raf", timeout=WAIT_MS)
                figures.add(f"(b) {spec.title}", float(done.json_value()))
            finally:
                page.close()


def agreement_tabs(page, tabs: int, figures: Figures) -> None:
    page.get_by_role("link", name="Agreement", exact=True).click()
    page.get_by_role("heading", name="Agreement", exact=True).first.wait_for(timeout=WAIT_MS)
    idle(page)
    names = [n for n in AGREEMENT_TABS if page.get_by_role("tab", name=n, exact=True).count()]
    names = names[1:] + names[:1]  # the first is open: a click on it would run nothing
    for _ in range(tabs):
        for name in names:
            tab = page.get_by_role("tab", name=name, exact=True)
            # drawn: the tab's run is over (the tabs are lazy: a click reruns the page) and the
            # selected panel shows a chart (Plotly, Vega) or a table with a size
            check = ("runEnded() && (() => { const p = qa('[role=tabpanel]').find((x) => !x.hidden && x.offsetParent !== null"
                     " && x.getAttribute('aria-labelledby') && x.offsetHeight > 0);"
                     " if (!p) return false; const t = (q('[role=tab][aria-selected=true]') || {}).textContent || '';"
                     f" if (!t.includes({js(name)})) return false;"
                     " const el = p.querySelector('.js-plotly-plot .main-svg, canvas, [data-testid=stDataFrame],"
                     " [data-testid=stTable], [data-testid=stMetric], .vega-embed');"
                     " return !!el && el.getBoundingClientRect().height > 0; })()")
            t = measure(page, tab.click, start="pointerdown", checks={"drawn": check}, paint=("drawn",))
            figures.add(f"(c) Agreement: {name}", t["drawn"])


def report(size: int, figures: Figures, load_before: str, load_after: str) -> tuple[list[str], bool]:
    goal = targets(size)
    lines = [f"-- {size:,} doubly annotated texts · uptime before: {load_before}",
             f"   uptime after: {load_after}",
             f"{'what':<46} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  target"]
    ok = True
    for name, values in figures.samples.items():
        kind = name[1]
        limit = goal[kind]
        if values:
            p95 = percentile(values, 95)
            met = p95 <= limit
            ok &= met
            lines.append(f"{name:<46} {len(values):>3} {percentile(values, 50):>8.0f} {p95:>8.0f} "
                         f"{max(values):>8.0f}  p95 ≤ {limit:.0f} {'met' if met else 'NOT met'}")
        lost = figures.timeouts.get(name, 0)
        if lost:
            ok = False
            lines.append(f"{name:<46} {lost} timed out after {WAIT_MS / 1000:.0f} s")
    return lines, ok


def run_size(browser_type, size: int, args: argparse.Namespace) -> tuple[list[str], bool]:
    with tempfile.TemporaryDirectory(prefix="backoffice-latency-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        t = time.perf_counter()
        seed(url, size)
        seeded = time.perf_counter() - t
        log_path = Path(tmp) / "streamlit.log"
        try:
            process, base = app_server.start(Path("app.py"), args.port or app_server.free_port(), log_path,
                                             {"CHRONOCEPT_DATABASE_URL": url}, timeout_s=120)
        except app_server.AppNotStarted as exc:
            raise BenchError(str(exc)) from None
        figures = Figures()
        try:
            browser = browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                context, page = sign_in(browser, base)
                wanted = {p for p in args.pages.split(",") if p}
                pages = [p for p in PAGES if not wanted or p.url_path in wanted]
                # one untimed round first: the server's first run of each page imports its modules
                sidebar_clicks(page, pages, 1, Figures(), shots=Path(args.shots) / str(size) if args.shots else None)
                load_before = load_line()
                sidebar_clicks(page, pages, args.clicks, figures)
                query = "?" + page.url.split("?", 1)[1] if "?" in page.url else ""
                project_query = "".join(p for p in re.findall(r"project=\d+", query))
                new_tabs(context, base, f"?{project_query}" if project_query else "", pages, args.tabs, figures)
                if not wanted or "agreement" in wanted:
                    agreement_tabs(page, args.tabs, figures)
                load_after = load_line()
            finally:
                browser.close()
        finally:
            app_server.stop(process)
        lines, ok = report(size, figures, load_before, load_after)
        lines.insert(1, f"   seeded and settled in {seeded:.0f} s")
        return lines, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200,20000", help="doubly annotated texts, comma-separated")
    parser.add_argument("--clicks", type=int, default=5, help="sidebar clicks timed per page")
    parser.add_argument("--tabs", type=int, default=3, help="new tabs per page, and rounds of Agreement tabs")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pages", default="", help="only these pages (URL paths, comma-separated; default: all)")
    parser.add_argument("--shots", default="", help="a folder for a screenshot of every page (per size)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not sizes or min(sizes) < 10 or not (1 <= args.clicks <= 50 and 1 <= args.tabs <= 20):
        parser.error("sizes ≥ 10, --clicks 1–50, --tabs 1–20")
    if not Path(CHROMIUM).exists():
        print(f"backoffice_latency: Chromium not found at {CHROMIUM}", file=sys.stderr)
        return 2
    from playwright.sync_api import Error as PlaywrightError, sync_playwright

    print(f"backoffice_latency — {os.cpu_count()} CPUs · Chromium headless · viewport "
          f"{VIEWPORT['width']}×{VIEWPORT['height']} · {args.clicks} clicks, {args.tabs} tabs per page")
    all_ok = True
    try:
        with sync_playwright() as playwright:
            for size in sizes:
                lines, ok = run_size(playwright.chromium, size, args)
                all_ok &= ok
                print("\n".join(lines), flush=True)
    except (BenchError, PlaywrightError) as exc:
        print(f"backoffice_latency: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    print("all targets met" if all_ok else "some targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
