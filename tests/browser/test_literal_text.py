"""Hostile user text reads literally in Chromium (issue 9, item 7).

A text, its external id and an annotator's flag note carry Markdown, Streamlit directives, maths
and HTML. The lead opens it on Review: the page's visible text holds each hostile string as
typed, and none of them became bold, a formula (KaTeX), a coloured span, a link or a script.
Screenshots go to screenshots/literal_review*.png for a look. A link to Review carries the same
in its ``?case=`` and ``?project=`` values.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from annotation.content import AnnotationContent
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from tests.browser.flow_steps import sign_in
import workbench_writes

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SHOTS = REPO_ROOT / "screenshots"
TEXT = ("The shop $$x^2$$ :red[alarm] **bold** <b>tag</b> <script>alert(1)</script> "
        "[link](http://x) -- is closed :smile: this week.")
EXT_ID = "**B1**:red[x]$$y$$"
NOTE = "# heading **not bold** :red[alarm] $$x^2$$"
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))


@pytest.fixture
def hostile_case(tmp_path):
    url = f"sqlite:///{tmp_path / 'literal.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead", "Lead **One** :red[x]")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    project = projects.create_project(db, lead, "Hostile **project** $$p$$")
    text_imports.import_texts(db, lead, project.id, [TextRecord(TEXT, 1, EXT_ID, 1)])
    for name, flags, note in (("ann1", (), ""), ("ann2", ("other",), NOTE)):
        accounts.create_user(db, admin, name, f"{name}-password", "annotator")
        user = accounts.authenticate(db, name, f"{name}-password")
        item = queue.next_item(db, user, project.id)
        workbench_writes.submit(db, user, item.annotation_id, item.version,
                          AnnotationContent(boundaries=(0, 4), segment_axes=("main", "static"), points=POINTS,
                                            flags=flags, note=note))
    yield url
    db.dispose()


def test_review_shows_hostile_text_literally(run_streamlit, page, hostile_case):
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": hostile_case})
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, base, "lead1", "lead1-password")
    page.get_by_role("link", name="Review").click()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("History of this sample")).to_be_visible(timeout=30_000)
    # both segment tables drawn (st.table; a bare "table" would also count the data grids'
    # accessibility tables, which appear whenever their lazily loaded code has arrived)
    expect(main.locator('[data-testid="stTable"]')).to_have_count(2, timeout=15_000)
    # the segment tables are folded (a case fits about 1.5 screens): open both to read them
    for expander in main.locator('[data-testid="stExpander"]').filter(has_text="Segments and axes").all():
        expander.locator("summary").click()
    expect(main.locator('[data-testid="stTable"]').first).to_be_visible()
    expect(main.locator('[data-testid="stTable"]').last).to_be_visible()

    visible = main.inner_text().replace("\u2060", "")  # the word joiner is invisible
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text().replace("\u2060", "")
    for literal in ("$$x^2$$", ":red[alarm]", "**bold**", "<b>tag</b>", "<script>alert(1)</script>",
                    "[link](http://x)", " -- ", ":smile:", f"Sample {EXT_ID}", "# heading **not bold**"):
        assert literal in visible, literal
    assert "Lead **One** :red[x]" in sidebar
    # nothing of the user's text became markup
    def holding(selector: str, text: str) -> list:
        return [e for e in main.locator(selector).all() if text in (e.text_content() or "")]

    assert main.locator(".katex").count() == 0
    assert not holding("strong", "bold")
    assert not holding("script", "alert(1)")
    assert main.locator("a[href='http://x']").count() == 0
    assert not holding("h1, h2", "heading")
    assert not holding(".stMarkdownColoredText", "alarm")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "literal_review.png"), full_page=True)
    main.locator("[data-testid=\"stTable\"]").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "literal_review_segments.png"))


URL_VALUES = ("[x](http://evil.example/)", "![i](http://evil.example/i.png)", "<img src=x onerror=alert(1)>",
              "**bold**", ":red[x]")


def test_a_link_to_review_shows_its_values_literally(run_streamlit, page, hostile_case):
    """``/review?case=…&project=…`` with Markdown and HTML in both: the page names both values as
    typed, and neither became a link, an image (the browser fetching an outside address) or bold."""
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": hostile_case})
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, base, "lead1", "lead1-password")
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url)
            if "evil" in (urlsplit(request.url).hostname or "") else None)
    main = page.locator('[data-testid="stMain"]')
    for value in URL_VALUES:
        page.goto(f"{base}/review?{urlencode({'case': value, 'project': value})}")
        notice = main.get_by_text("has no open review case here")
        expect(notice).to_be_visible(timeout=30_000)
        expect(main.get_by_text("The link names project")).to_be_visible()
        visible = main.inner_text().replace("\u2060", "")
        assert f"Sample {value} has no open review case here" in visible
        assert f"The link names project “{value}”" in visible
        assert page.locator("a[href*='evil']").count() == 0
        assert page.locator("img[src*='evil'], img[src='x'], [onerror]").count() == 0
        assert not [e for e in main.locator("strong").all() if (e.text_content() or "") == "bold"]
        assert not [e for e in main.locator(".stMarkdownColoredText").all() if (e.text_content() or "") == "x"]
    assert fetched == []
    page.screenshot(path=str(SHOTS / "literal_review_link.png"))
