"""A context pair's view (ui.workbench_view.build_view with a pairs project's settings and
ui.pair_view): the protocol's rules, the follow-up, the second curve, the change read on the
server, and a single text's view unchanged by it."""

from __future__ import annotations

from dataclasses import replace

import json
from datetime import datetime, timezone

from annotation.pairs.change import read_change
from annotation.services.workbench.queue import WorkItem
from annotation.settings import ProjectSettings
from annotation.workbench import editing
from annotation.content import AnnotationContent
from ui.pair_view import change_reading
from ui.workbench_view import SessionFacts, build_view

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc)
TARGET = "Job interview tomorrow, wish me luck"
FOLLOW_UP = "They just moved it to <b>next Friday</b> **really**"
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41))
LATER = tuple((x + 12.0, y) for x, y in POINTS)
PAIRS = ProjectSettings(protocol="pairs", change_factor=1.5)


def _item(content=AnnotationContent(), step=2, follow_up=FOLLOW_UP, **changes) -> WorkItem:
    values = dict(annotation_id=9, version=2, status="draft", step=step, content=content,
                  seconds_spent=0.0, guidelines_version="1.0", updated_at=NOW, submitted_at=None,
                  sample_id=4, project_id=2, external_id="P-0004", benchmark=1,
                  parent_text=TARGET, n_tokens=7, follow_up=follow_up)
    values.update(changes)
    return WorkItem(**values)


def _both() -> AnnotationContent:
    first = editing.refit(AnnotationContent(points=POINTS))[0]
    second = editing.refit(AnnotationContent(points=LATER))[0]
    return AnnotationContent(points=first.points, xi=first.xi, omega=first.omega, alpha=first.alpha,
                             scale=first.scale, rmse=first.rmse, context_points=second.points,
                             context_xi=second.xi, context_omega=second.omega,
                             context_alpha=second.alpha, context_scale=second.scale,
                             context_rmse=second.rmse)


def test_a_pair_view_carries_the_protocol_the_follow_up_and_both_curves():
    v = build_view(_item(_both(), step=3), SessionFacts(client="c", layout="single", settings=PAIRS))
    assert json.loads(json.dumps(v)) == v
    assert v["steps"][-1] == "Given the follow-up" and len(v["steps"]) == 4
    assert (v["first_step"], v["segmented"], v["pair"], v["context_step"]) == (2, False, True, 3)
    assert v["change_options"] == ["derived", "decreased", "neutral", "increased"]
    assert v["change_confirm"] == "derived"
    assert v["layout"] == "steps"  # a pair is shown step by step, whatever the preference
    assert v["pair_panel"]["follow_up"] == FOLLOW_UP  # as typed: the surface sets textContent
    assert v["context_curve"] and v["context_curve"] != v["curve"]
    assert v["context_fit"]["params"]["xi"] == v["content"]["context_xi"]
    # no segmentation, no axes asked of an unsegmented pair; the change is still to be chosen
    assert v["problems"] == ["Given the follow-up: confirm the change the curves give, or choose another."]
    confirmed = build_view(_item(replace(_both(), change="derived"), step=3),
                           SessionFacts(client="c", layout="single", settings=PAIRS))
    assert confirmed["problems"] == []


def test_the_derived_change_is_the_server_reading_of_the_stored_curves():
    content = _both()
    v = build_view(_item(content, step=3), SessionFacts(client="c", settings=PAIRS))
    expected = read_change((content.xi, content.omega, content.alpha),
                           (content.context_xi, content.context_omega, content.context_alpha), 1.5)
    reading = v["pair_panel"]["reading"]
    assert (reading["label"], reading["words"]) == (expected.label, expected.words)
    assert reading["label"] == "increased" and "longer" in reading["words"]
    assert reading["alone_class"]["name"] == expected.alone_class.name
    assert reading["given_class"]["index"] == expected.given_class.index
    # the project's factor decides: a threshold above the shift reads as neutral
    wide = build_view(_item(content, step=3), SessionFacts(client="c", settings=ProjectSettings(
        protocol="pairs", change_factor=100.0)))
    assert wide["pair_panel"]["reading"]["label"] == "neutral"
    assert wide["pair_panel"]["threshold"] == "×100"


def test_without_a_second_curve_there_is_no_reading_and_the_submit_says_why():
    first = editing.refit(AnnotationContent(points=POINTS))[0]
    v = build_view(_item(first, step=0), SessionFacts(client="c", settings=PAIRS))
    assert v["step"] == 2  # a stored step before the pair's first opens at the first
    assert v["pair_panel"]["reading"] is None and change_reading(first, PAIRS) is None
    assert v["problems"] == ["Given the follow-up: place 3 to 5 points (now 0).",
                             "Given the follow-up: confirm the change the curves give, or choose another."]
    assert v["context_curve"] == []


def test_a_single_text_view_has_no_pair_and_its_old_rules():
    v = build_view(_item(follow_up=None, step=1), SessionFacts(client="c", layout="single"))
    assert v["pair_panel"] is None and "context_curve" not in v
    assert (v["first_step"], v["segmented"], v["pair"], v["context_step"], v["change_options"]) == (
        0, True, False, None, [])
    assert len(v["steps"]) == 3 and v["layout"] == "single"


def test_nothing_of_references_or_intent_reaches_the_view():
    v = build_view(_item(_both(), step=3), SessionFacts(client="c", settings=PAIRS))
    text = json.dumps(v)
    for word in ("reference", "intended", "authored"):
        assert word not in text
