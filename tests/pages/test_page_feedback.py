"""Feedback (annotator): the trend, the page of samples and one sample against its gold — and
never the other annotator's version."""

from __future__ import annotations

import re

import pytest

from annotation.services.quality import feedback
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import review
from annotation.corpus.text_import import TextRecord
from page_helpers import (
    SPLIT_A,
    SPLIT_B,
    annotate,
    infos,
    markdown_text,
    metric_values,
    nav_titles,
    run,
    shown,
    titles,
)

FAR = tuple((x + 30.0, y) for x, y in ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2)))
NOTE = "Read **the second clause** :red[again] <b>please</b>"
EMPTY = "No feedback yet: once a sample you annotated is settled, it appears here."


@pytest.fixture
def settled(db, lead, pair):
    """ann_a and ann_b annotate S-000 alike (automatic gold) and S-001 differently: the lead takes
    ann_b's version with a note (Markdown in it, to be shown literally)."""
    a, b = pair
    p = projects.create_project(db, lead, "Feedback project")
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"Sample number {i} says the shop on street {i} is closed this week.", 1, f"S-{i:03d}", i + 1)
        for i in range(3)])
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_A)
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_B, points=FAR, flags=("other",), note="ann_b's own private remark")
    [row] = review.review_queue(db, lead, p.id)
    case = review.open_case(db, lead, row.item_id)
    theirs = next(v for v in case.versions if v.annotator == "ann_b")
    review.decide(db, lead, row.item_id, "take_version", annotation_id=theirs.annotation_id, note=NOTE,
                  confidence=4, error_type="annotator_error")
    return p


def _open(make_app, actor):
    at = run(make_app(actor))
    at.switch_page("screens/feedback.py")
    return run(at)


def _everything(at) -> str:
    parts = [markdown_text(at), *(c.value for c in at.caption), *(e.value for e in at.info),
             *(e.value for e in at.success)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [frame.value.to_csv() for frame in at.dataframe]
    return shown("\n".join(parts))


def test_an_annotator_sees_their_sample_against_the_gold_and_the_leads_note(make_app, settled, pair):
    a, _ = pair
    at = _open(make_app, a)
    assert titles(at) == ["Feedback"]
    metrics = metric_values(at)
    assert metrics["Settled samples"] == "2"
    assert len(at.get("plotly_chart")) == 2  # the weekly trend and the chosen sample's curves
    [table, axes] = at.dataframe
    assert list(table.value["sample"]) == ["#2", "#1"]  # newest gold first; their own numbers, not ids
    assert table.value["lead's note"][0] == NOTE  # a dataframe cell: literal
    # the newest is open: the taken gold, described as the gold, the lead's note shown literally
    assert any(m.value == "### Sample #2" for m in at.markdown)
    text = _everything(at)
    assert "A lead chose the gold" in text
    assert re.search(r"The gold curve sits ≈ ×\d+\.\d later than yours", text)
    assert NOTE in text and any(m.value.startswith("Read \\*\\*the second") for m in at.markdown)
    assert "**Boundaries only in yours:** before “the”" in text
    assert "**Boundaries only in the gold:** before “on”" in text
    assert list(axes.value.columns) == ["words", "your axis", "gold axes"]
    # blindness: never the other's name or note
    assert "ann_b" not in text and "private remark" not in text


def test_choosing_another_row_opens_that_sample(make_app, settled, pair):
    a, _ = pair
    at = _open(make_app, a)
    # AppTest cannot click a row: the selection the browser would report, as the Review tests do
    at.session_state["feedback.table.1"] = {"selection": {"rows": [1], "columns": []}}
    run(at)
    assert any(m.value == "### Sample #1" for m in at.markdown)
    assert "Your segments and axes are the gold's." in [shown(s.value) for s in at.success]
    assert "Settled automatically" in _everything(at)


def test_no_feedback_yet(make_app, settled, make_user):
    newcomer = make_user("newcomer")
    at = _open(make_app, newcomer)
    assert EMPTY in infos(at)
    assert not at.dataframe and not at.get("plotly_chart")


def test_the_page_is_in_the_annotation_menu(make_app, pair):
    a, _ = pair
    at = run(make_app(a))
    assert nav_titles(at) == ["My queue", "Annotate", "Write follow-ups", "Feedback", "Guidelines", "My account"]


def test_a_long_history_comes_in_pages(db, make_app, lead, pair):
    a, b = pair
    p = projects.create_project(db, lead, "Busy project")
    n = feedback.PAGE_SIZE + 2
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"Text {i} says the shop on street {i} is closed this week.", 1, f"T-{i:03d}", i + 1)
        for i in range(n)])
    for _ in range(n):
        annotate(db, a, p.id, **SPLIT_A)
        annotate(db, b, p.id, **SPLIT_A)
    at = _open(make_app, a)
    assert metric_values(at)["Settled samples"] == str(n)
    assert len(at.dataframe[0].value) == feedback.PAGE_SIZE
    assert at.dataframe[0].value["sample"][0] == f"#{n}"  # newest first
    at.number_input(key="feedback.page").set_value(2)
    run(at)
    assert list(at.dataframe[0].value["sample"]) == ["#2", "#1"]
    assert any(m.value == "### Sample #2" for m in at.markdown)
    assert any("Samples 21–22 of 22" in c.value for c in at.caption)
