"""The workbench in a context-pairs project (AppTest): a pair opens at its curve with the
target alone; the follow-up belongs to the last step only; the second curve, the derived change
and an override go through the surface's event batches; a submit hands out the next pair; and
nothing of a pair's references or its author's intent reaches an annotator's page.

The surface itself is JavaScript AppTest does not run (see :mod:`surface_driver`): what it is
given is the view, and the view's step decides what it draws — the follow-up only on the pair's
last step (``tests/browser/test_fast_pairs.py`` checks the drawing in Chromium).
"""

from __future__ import annotations

import json

import pytest

from annotation.services.projects import projects
from db.models import Annotation
from pair_data import pairs_from_texts
from page_helpers import ask_for_work, run, text_records
from surface_driver import send, view

POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
FOLLOW_UP = "Update {id}: they moved it to *next* <b>Friday</b>."
#: what a pair's rows hold that annotators must never be shown (the guidelines speak of a
#: sarcastic text's "intended meaning": the words here are the pair's own)
SECRET_WORDS = ("reference", "intended change", "intended_change", "intent:", "authored",
                "context_only_tv", "combined_tv")


@pytest.fixture
def pairs(db, lead):
    """A pairs project of four targets, each a pair with reference labels and an author's intent."""
    pid = pairs_from_texts(db, lead, "Pairs pilot", text_records(4), lambda smp: FOLLOW_UP.format(id=smp.id),
                           settings={"change_factor": 1.5}, reference_alone=3, reference_given=9,
                           reference_change="increased", intended_change="decreased")
    return projects.get_project(db, lead, pid)


def _page_text(at) -> str:
    """Everything Streamlit draws outside the surface, as one text."""
    kinds = ("markdown", "caption", "title", "header", "subheader", "text", "info", "warning",
             "error", "success", "toast", "metric", "button", "expander", "code")
    parts = []
    for kind in kinds:
        for element in at.get(kind):
            for name in ("value", "label", "body"):
                value = getattr(element, name, None)
                if isinstance(value, str):
                    parts.append(value)
    return "\n".join(parts)


def _open(make_app, ann):
    at = run(make_app(ann))
    ask_for_work(at)
    return run(at)


def _row(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)


def _numbered(events: list[dict], start: int) -> list[dict]:
    return [{"seq": start + i, **e} for i, e in enumerate(events)]


def test_a_pair_opens_at_its_curve_the_follow_up_kept_for_the_last_step(make_app, ann, pairs):
    at = _open(make_app, ann)
    v = view(at)
    item = at.session_state["wb.state"].item
    assert (v["step"], v["first_step"], v["pair"], v["context_step"], v["layout"]) == (2, 2, True, 3, "steps")
    assert v["steps"][v["context_step"]] == "Given the follow-up"
    assert v["pair_panel"]["follow_up"] == FOLLOW_UP.format(id=item.sample_id)  # as written
    assert v["pair_panel"]["reading"] is None
    # before the last step nothing on the page shows the follow-up; the surface draws it on
    # the last step only (its contract), and the view says the pair is at step 2
    assert "moved it to" not in _page_text(at)
    assert v["problems"] == ["Curve: place 3 to 5 points (now 0).",
                             "Given the follow-up: place 3 to 5 points (now 0).",
                             "Given the follow-up: confirm the change the curves give, or choose another."]
    # the layout switch is not offered: a pair is shown step by step
    assert not [t for t in at.toggle if "single" in (t.label or "").lower()]

    at = send(at, _numbered([*({"kind": "point", "action": "add", "x": x, "y": y} for x, y in POINTS),
                             {"kind": "step", "step": 3}], 1))
    v = view(at)
    assert v["step"] == 3 and v["acked"] == 6
    assert v["content"]["context_points"] == v["content"]["points"]  # started as a copy
    assert v["pair_panel"]["reading"]["label"] == "neutral"  # the same curve twice
    assert v["pair_panel"]["reading"]["alone_class"] == v["pair_panel"]["reading"]["given_class"]
    assert v["context_curve"] == v["curve"]
    assert "moved it to" not in _page_text(at)  # still only in the surface


def test_both_curves_an_override_and_the_submit_then_the_next_pair(make_app, db, ann, pairs):
    at = _open(make_app, ann)
    first = at.session_state["wb.state"].item
    events = [*({"kind": "point", "action": "add", "x": x, "y": y} for x, y in POINTS),
              {"kind": "submit", "flagged": False}]
    at = send(at, _numbered(events, 1))
    v = view(at)
    texts = [n["text"] for n in v["notices"]]
    assert "Given the follow-up: place 3 to 5 points (now 0)." in texts  # refused, with the reason
    assert _row(db, first.annotation_id).status == "draft"

    later = [{"kind": "point", "action": "move", "index": i, "x": x + 20, "y": y, "curve": "context"}
             for i, (x, y) in enumerate(POINTS)]
    at = send(at, _numbered([{"kind": "step", "step": 3}, *later], 7))
    v = view(at)
    reading = v["pair_panel"]["reading"]
    assert reading["label"] == "increased" and reading["words"].startswith("The follow-up makes it valid ≈ ×")
    assert reading["given_class"]["index"] > reading["alone_class"]["index"]
    at = send(at, _numbered([{"kind": "change", "change": "neutral"}, {"kind": "submit", "flagged": False}], 13))
    row = _row(db, first.annotation_id)
    assert row.status == "submitted" and row.change == "neutral"
    assert [tuple(p) for p in row.context_points] == [(x + 20, y) for x, y in POINTS]
    nxt = at.session_state["wb.state"].item
    assert nxt.sample_id != first.sample_id and nxt.step == 2
    v = view(at)
    assert v["pair_panel"]["follow_up"] == FOLLOW_UP.format(id=nxt.sample_id)
    assert v["content"]["context_points"] == [] and v["content"]["change"] == ""


def test_no_reference_or_intent_on_an_annotator_s_pages(make_app, ann, pairs):
    at = _open(make_app, ann)
    at = send(at, _numbered([*({"kind": "point", "action": "add", "x": x, "y": y} for x, y in POINTS),
                             {"kind": "step", "step": 3}], 1))
    v = view(at)
    item = at.session_state["wb.state"].item
    for word in SECRET_WORDS:
        assert word not in json.dumps(v).lower(), word
        assert word not in _page_text(at).lower(), word
    assert not hasattr(item, "reference_change") and not hasattr(item, "intended_change")
    at.switch_page("screens/queue.py")
    at = run(at)
    for word in SECRET_WORDS:
        assert word not in _page_text(at).lower(), word
