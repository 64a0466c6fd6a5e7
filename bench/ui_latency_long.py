"""The long-text part of ``bench/ui_latency.py``: boundary clicks on a
2,500-token text, click → the text shows the change, painted."""

from __future__ import annotations

#: A 2,500-token text within the import's 5,000 characters (one-letter words, each with a comma).
LONG_TEXT = ", ".join("abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(1250)) + "."


def long_text(page, base: str, project_id: int, clicks: int, figures) -> None:
    """Boundary clicks spread over a 2,500-token text: click → the text shows the change,
    painted (each waits for its acknowledgement before the next)."""
    from ui_latency import SURFACE, WAIT_MS, _surface_ack, _surface_base, js, measure

    # a new page load resumes the session from the sign-in cookie: wait until the browser has it
    page.wait_for_function("() => document.cookie.includes('chronocept_session=')", timeout=WAIT_MS)
    page.goto(f"{base}/workbench?project={project_id}")
    page.get_by_role("button", name="Start the next sample").click()
    page.locator(f"{SURFACE} [data-token='2499']").wait_for(timeout=WAIT_MS)
    page.locator(f"{SURFACE}[data-pending='0']").wait_for(timeout=WAIT_MS)
    for n in range(clicks):
        # spread over the text, start to end; the gaps before the commas (between two one-letter
        # words the gaps' hit areas overlap: a click aimed at the one before a letter can land on
        # the comma's, as Playwright's actionability check says)
        gap = 1 + 2 * ((n * 499) % 1249)
        target = page.locator(f"{SURFACE} [data-gap='{gap}']")
        target.scroll_into_view_if_needed()
        # the clicked gap's own attribute (the whole text is redrawn in the same task; its
        # markup, ~0.5 MB, is too big to compare on every mutation without slowing the page)
        gap_sel = js(f"{SURFACE} [data-gap='{gap}']")
        t = measure(page, target.click, start="pointerdown",
                    base=_surface_base(f", gap: q({gap_sel}).dataset.boundary"),
                    checks={"visible": f"q({gap_sel}).dataset.boundary !== base.gap", "ack": _surface_ack()},
                    paint=("visible",))
        figures.add("long text: gap click → visible", t["visible"])
        figures.add("long text: gap click → acknowledged", t["ack"])
