"""User text is shown literally on every page (issue 9, item 7) and CSV downloads cannot start a
spreadsheet formula (item 8).

Texts, external ids, display names, the project's name and description, a flag note, a lead's
send-back note and an upload's file name all carry Markdown, Streamlit directives, maths and
HTML. On every page, no element that renders Markdown may hold one of those fragments
unescaped; where a page shows one, it shows it through ``ui.display.plain`` (whose output
renders as the literal text: tests/unit/test_markdown_literal.py) or in an element that never
renders Markdown (a dataframe cell, a selectbox option).
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from annotation.segmentation import Segmentation, segment_texts, token_texts
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import review
from annotation.services.authz import Actor
from annotation.settings import ProjectSettings
from annotation.corpus.text_import import TextRecord
from page_helpers import PASSWORD, SPLIT_A, SPLIT_B, annotate, markdown_values, run, toasts
from surface_driver import send, view
from ui.display import plain

HOSTILE = "# heading $$x^2$$ :red[alarm] **bold** <b>tag</b> <script>alert(1)</script> [link](http://x)"
#: Fragments that must never reach a Markdown-rendering element unescaped. (``# heading`` is
#: checked by a pattern: its escaped form ``\\# heading`` contains it.)
FRAGMENTS = ("$$x^2$$", ":red[alarm]", "**bold**", "<b>tag</b>", "<script>", "[link](http://x)")
NAME = "**Boss** :red[alarm] $$x^2$$ <b>tag</b>"
PROJECT = "Proj **bold** :red[alarm] $$x^2$$ <script>alert(1)</script>"
NOTE = "Note **bold** :red[alarm] $$x^2$$ <b>tag</b> [link](http://x)"
SEND_BACK = "Look again: **bold** :red[alarm] $$x^2$$ <script>alert(1)</script>"
TEXTS = [  # (external id, text): the ids also start formulas for the CSV check
    ("=HYPERLINK(\"http://x\")", f"{HOSTILE} says the shop is closed this week."),
    ("**id**:red[x]$$y$$", f"The bakery {HOSTILE} opens again next Monday."),
    ("@SUM(1)", f"Rain {HOSTILE} is expected every Friday this month."),
]


@pytest.fixture
def hostile(db):
    """An admin with a hostile display name, annotators "-ann" (a CSV formula) and "ann_b", a
    hostile project; S0 flagged by ann_b with a hostile note (open review), S1 sent back with a
    hostile note, S2 settled by agreement."""
    admin = accounts.create_first_admin(db, "admin", PASSWORD, NAME)
    for name in ("-ann", "ann_b"):
        accounts.create_user(db, admin, name, PASSWORD, "annotator", f"{name} {NAME}")
    a = accounts.authenticate(db, "-ann", PASSWORD)
    b = accounts.authenticate(db, "ann_b", PASSWORD)
    p = projects.create_project(db, admin, PROJECT, f"About {HOSTILE}", ProjectSettings(review_rate=0.0))
    text_imports.import_texts(db, admin, p.id, [TextRecord(text, 1, ext, i + 1) for i, (ext, text) in enumerate(TEXTS)])
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_A, flags=("other",), note=NOTE)
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_B)
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_A)
    items = {r.external_id: r.item_id for r in review.review_queue(db, admin, p.id)}
    review.decide(db, admin, items[TEXTS[1][0]], "send_back", confidence=4, error_type="ambiguous_text", note=SEND_BACK)
    return admin, a, b, p


def _assert_nothing_raw(at, page: str) -> None:
    for value in markdown_values(at):
        for fragment in FRAGMENTS:
            assert fragment not in value, f"{page}: {fragment!r} unescaped in {value!r}"
        assert not re.search(r"(?<!\\)# heading", value), f"{page}: '# heading' unescaped in {value!r}"


def _open(make_app, actor: Actor, page: str):
    at = run(make_app(actor))
    at.switch_page(page)
    return run(at)


LEAD_PAGES = ("screens/queue.py", "screens/review.py", "screens/projects.py", "screens/duplicates.py",
              "screens/agreement.py", "screens/warmup.py", "screens/annotators.py", "screens/export.py",
              "screens/statistics.py", "screens/training.py", "screens/users.py", "screens/account.py",
              "screens/guidelines.py")


@pytest.mark.parametrize("page", LEAD_PAGES)
def test_no_page_renders_user_text_as_markdown(make_app, hostile, page):
    admin, *_ = hostile
    at = _open(make_app, admin, page)
    _assert_nothing_raw(at, page)
    # the sidebar shows the display name literally
    assert at.sidebar.markdown[0].value == f"**{plain(NAME)}** · admin"


def test_review_shows_segments_ids_and_the_flag_note_literally(make_app, hostile):
    admin, *_ = hostile
    at = _open(make_app, admin, "screens/review.py")
    ext, text = TEXTS[0]
    assert f"### Sample {plain(ext)}" in [m.value for m in at.markdown]
    segments = [list(t.value["segment"]) for t in at.table]
    expected = segment_texts(text, Segmentation.from_boundaries(SPLIT_A["boundaries"], len(token_texts(text))))
    assert segments[0] == [plain(t) for t in expected] and "$$x^2$$" in "".join(expected)
    assert any(w.value.endswith(f" — {plain(NOTE)}") for w in at.warning)  # ann_b's flag note
    _assert_nothing_raw(at, "review")
    at.button_group(key="review.action").set_value("take")
    run(at)
    labels = [b.label for b in at.button]
    assert plain(f"Take -ann's version of {ext}") in labels
    _assert_nothing_raw(at, "review, take a version")


def test_project_name_and_upload_file_name_read_literally(make_app, hostile):
    admin, *_ = hostile
    at = _open(make_app, admin, "screens/projects.py")
    assert [s.value for s in at.subheader][0] == f"Import texts into “{plain(PROJECT)}”"
    name = "**bad** :red[x] $$y$$ <b>t</b>.jsonl"
    at.file_uploader(key="projects.upload").set_value((name, b'{"text": ""}\n', "application/jsonl"))
    run(at)
    assert [e.value for e in at.error] == [plain(f"{name}: line 1: the text is missing or empty. "
                                                 "Nothing will be imported.")]
    _assert_nothing_raw(at, "projects, bad upload")


def test_workbench_shows_the_send_back_note_and_the_submit_toast_literally(make_app, db, hostile):
    _, a, _, _ = hostile
    at = _open(make_app, a, "screens/workbench.py")
    ext, _ = TEXTS[1]  # the annotator's second sample: they see its number, not the id
    assert "### Sample #2" in [m.value for m in at.markdown]
    assert not [m for m in markdown_values(at) if plain(ext) in m or ext in m]
    assert [w.value for w in at.warning] == [f"A lead sent this sample back to you: {plain(SEND_BACK)}"]
    assert plain(PROJECT) in at.caption[0].value
    _assert_nothing_raw(at, "workbench")
    # the surface gets the note and the number as data (it sets them with textContent)
    assert view(at)["sample"]["returned_note"] == SEND_BACK
    assert view(at)["sample"]["number"] == 2 and "external_id" not in view(at)["sample"]
    # submit the returned sample (the surface's submit event): the toast names it literally
    send(at, [{"seq": 1, "kind": "submit", "flagged": False}])
    assert toasts(at) == ["Submitted your sample #2"]
    _assert_nothing_raw(at, "workbench after submit")


def test_queue_shows_the_project_name_literally(make_app, hostile):
    _, a, _, _ = hostile
    at = _open(make_app, a, "screens/queue.py")
    assert at.caption[0].value.startswith(f"Project **{plain(PROJECT)}** · ")
    _assert_nothing_raw(at, "queue (annotator)")


# --- CSV downloads (item 8) -------------------------------------------------------------------------

def _csv_rows(data) -> list[dict[str, str]]:
    text = data.decode() if isinstance(data, bytes) else data
    return list(csv.DictReader(io.StringIO(text)))


def _no_formula(rows: list[dict[str, str]]) -> None:
    for row in rows:
        for column, value in row.items():
            assert not (value or "").startswith(("=", "+", "@", "\t", "\r")), (column, value)
            if value.startswith("-"):  # only a number may start with a minus
                float(value)


def test_agreement_csv_neutralises_formula_ids(make_app, hostile, downloads):
    admin, *_ = hostile
    _open(make_app, admin, "screens/agreement.py")
    (name,) = [n for n in downloads if n.endswith(".csv")]
    rows = _csv_rows(downloads[name])
    assert sorted(r["sample_id"] for r in rows) == sorted("'" + TEXTS[i][0] for i in (0, 2))  # S1 went back
    assert rows[0]["annotators"] == "'-ann, ann_b"
    _no_formula(rows)


def test_annotators_csv_neutralises_formula_usernames(make_app, hostile, downloads):
    admin, *_ = hostile
    _open(make_app, admin, "screens/annotators.py")
    (name,) = [n for n in downloads if n.endswith(".csv")]
    rows = _csv_rows(downloads[name])
    assert sorted(r["annotator"] for r in rows) == ["'-ann", "ann_b"]
    assert all(float(r["submitted"]) == 2 for r in rows)  # numbers stay numbers
    _no_formula(rows)


def test_feedback_shows_the_settled_text_literally(make_app, hostile):
    _, a, _, _ = hostile
    at = _open(make_app, a, "screens/feedback.py")  # S2 (hostile id and text) is settled
    _assert_nothing_raw(at, "screens/feedback.py")
    assert any(m.value == "### Sample #3" for m in at.markdown)  # their third: a number, not the id


def test_review_names_the_next_and_previous_cases_literally_in_their_tooltips(make_app, db):
    """Previous and Next say which case they open in a tooltip, which renders Markdown."""
    admin = accounts.create_first_admin(db, "admin", PASSWORD)
    ann = []
    for name in ("ann_a", "ann_b"):
        accounts.create_user(db, admin, name, PASSWORD, "annotator")
        ann.append(accounts.authenticate(db, name, PASSWORD))
    p = projects.create_project(db, admin, "Tooltips", "", ProjectSettings(review_rate=0.0))
    ids = ("[next](http://x)", "**prev**:red[x]$$y$$", "<b>third</b>")
    text_imports.import_texts(db, admin, p.id, [TextRecord(f"Text {i} says the shop is closed this week.", 1, ext, i + 1)
                                            for i, ext in enumerate(ids)])
    for _ in ids:  # every sample flagged by its second annotator: three open cases
        annotate(db, ann[0], p.id, **SPLIT_A)
        annotate(db, ann[1], p.id, **SPLIT_A, flags=("other",), note="unsure")
    at = _open(make_app, admin, "screens/review.py")
    at.button(key="review.next").click()
    run(at)
    tips = {at.button(key=k).help for k in ("review.previous", "review.next")}
    assert len(tips) == 2 and tips <= {f"Open {plain(ext)}" for ext in ids}, tips
    _assert_nothing_raw(at, "review, a case between two others")
