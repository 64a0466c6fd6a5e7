"""The event log on a context pair (annotation.workbench.event_log with a pairs project's
EditRules): edits of the second curve, the change label, the step that starts the second curve
as a copy of the first, and what a single-text project refuses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS
from annotation.settings import ProjectSettings
from annotation.workbench import editing
from annotation.workbench.event_log import EditEvent, EditRules, parse_events, replay
from annotation.workbench.protocol import submission_problems
from annotation.content import AnnotationContent

PAIRS = ProjectSettings(protocol="pairs")
RULES = CONTEXT_PAIRS.edit_rules(PAIRS)
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41))
N_TOKENS = 6


def ev(seq: int, kind: str, **data) -> EditEvent:
    return EditEvent(seq, kind, data)


def run(events, content=AnnotationContent(), step=2, rules=RULES):
    return replay(content, step, N_TOKENS, 0, events, rules=rules)


def fitted(points=POINTS) -> AnnotationContent:
    return editing.refit(AnnotationContent(points=tuple(points)))[0]


def test_the_rules_come_from_the_protocol():
    assert list(RULES.steps) == [2, 3]
    segmented = ProjectSettings(protocol="pairs", segment_targets=True)
    assert list(CONTEXT_PAIRS.open_steps(segmented)) == [0, 1, 2, 3]
    assert list(SINGLE_TEXTS.open_steps(ProjectSettings())) == [0, 1, 2]


def test_step_to_the_follow_up_copies_the_first_curve_once():
    r = run([ev(1, "step", step=3)], content=fitted())
    assert r.step == 3 and r.refused == ()
    assert r.content.context_points == POINTS
    assert (r.content.context_xi, r.content.context_omega, r.content.context_alpha) == (
        r.content.xi, r.content.omega, r.content.alpha)
    # moved afterwards, the second curve is not copied over again by another step to 3
    moved = run([ev(1, "point", action="move", index=0, x=40.0, y=0.9, curve="context"),
                 ev(2, "step", step=2), ev(3, "step", step=3)], content=r.content, step=3)
    assert moved.content.context_points[0] == (40.0, 0.9)
    assert moved.content.points == POINTS


def test_a_pending_point_edit_of_the_first_curve_is_fitted_before_the_copy():
    start = AnnotationContent(points=POINTS[:2])
    r = run([ev(1, "point", action="add", x=31.6, y=0.41), ev(2, "step", step=3)], content=start)
    assert r.content.has_parameters and r.content.has_context_parameters
    assert r.content.context_xi == r.content.xi


def test_context_curve_edits_touch_the_second_curve_alone_and_are_fitted():
    base = fitted().with_context_copied()
    r = run([ev(1, "point", action="move", index=0, x=45.0, y=0.8, curve="context"),
             ev(2, "point", action="move", index=1, x=38.0, y=0.45, curve="context"),
             ev(3, "point", action="move", index=2, x=52.0, y=0.45, curve="context")],
            content=base, step=3)
    assert r.content.points == base.points and r.content.xi == base.xi
    assert r.content.context_points == ((45.0, 0.8), (38.0, 0.45), (52.0, 0.45))
    expected = editing.refit(AnnotationContent(points=r.content.context_points))[0]
    assert r.content.context_xi == pytest.approx(expected.xi)
    assert r.fit_edited and r.fit_message is None


def test_context_params_refit_and_place_work_on_the_second_curve():
    base = fitted().with_context_copied()
    tuned = run([ev(1, "params", xi=base.xi + 3, omega=base.omega, alpha=base.alpha,
                    curve="context")], content=base, step=3)
    assert tuned.content.context_params_source == "manual"
    assert tuned.content.context_xi == pytest.approx(base.xi + 3)
    assert tuned.content.params_source == "fit" and tuned.content.xi == base.xi
    back = run([ev(1, "refit", curve="context")], content=tuned.content, step=3)
    assert back.content.context_params_source == "fit"
    assert back.content.context_xi == pytest.approx(base.xi)
    placed = run([ev(1, "place", peak_minutes=60.0, half_gone_minutes=600.0, curve="context")],
                 content=base, step=3)
    assert placed.content.points == base.points and placed.content.context_points != base.points
    assert placed.content.has_context_parameters


def test_the_change_label_is_set_and_cleared():
    r = run([ev(1, "change", change="decreased")])
    assert r.content.change == "decreased"
    r = run([ev(1, "change", change="")], content=r.content)
    assert r.content.change == ""
    r = run([ev(1, "change", change="neutral"), ev(2, "change", change=None)])
    assert r.content.change == ""


@pytest.mark.parametrize("event, fragment", [
    (ev(1, "change", change="longer"), "the change must be one of derived, decreased, neutral, increased"),
    (ev(1, "change", change=2), "the change must be one of"),
    (ev(1, "point", action="add", x=10.0, y=0.5, curve="follow_up"), "unknown curve 'follow_up'"),
    (ev(1, "step", step=1), "there is no step 1; the steps are numbered 2 to 3"),
    (ev(1, "step", step=4), "there is no step 4"),
    (ev(1, "params", xi=30.0, omega=5.0, alpha=0.0, curve="context"), "No points given"),
])
def test_impossible_pair_edits_are_refused_and_change_nothing(event, fragment):
    start = fitted()
    r = run([event], content=start)
    assert r.content == start and r.step == 2 and r.last_seq == 1
    assert len(r.refused) == 1 and fragment in r.refused[0].message


@pytest.mark.parametrize("event", [
    ev(1, "change", change="increased"),
    ev(1, "point", action="add", x=10.0, y=0.5, curve="context"),
    ev(1, "refit", curve="context"),
    ev(1, "step", step=3),
])
def test_a_single_text_project_refuses_the_pair_edits(event):
    start = fitted()
    r = run([event], content=start, rules=EditRules())
    assert r.content == start and len(r.refused) == 1
    assert "no follow-up" in r.refused[0].message or "no step 3" in r.refused[0].message


def test_a_pair_needs_both_curves_to_be_submitted_and_not_the_segmentation():
    events = parse_events([
        {"seq": 1, "kind": "point", "action": "add", "x": 27.6, "y": 0.77},
        {"seq": 2, "kind": "point", "action": "add", "x": 21.6, "y": 0.41},
        {"seq": 3, "kind": "point", "action": "add", "x": 31.6, "y": 0.41},
        {"seq": 4, "kind": "submit", "flagged": False}])
    r = replay(AnnotationContent(), 2, N_TOKENS, 0, events, stop_at_submit=True, rules=RULES)
    assert r.submit is not None
    problems = CONTEXT_PAIRS.submission_problems(r.content, N_TOKENS, PAIRS)
    assert problems == ["Given the follow-up: place 3 to 5 points (now 0).",
                        "Given the follow-up: confirm the change the curves give, or choose another."]
    r = replay(r.content, r.step, N_TOKENS, r.last_seq, parse_events([
        {"seq": 5, "kind": "step", "step": 3},
        {"seq": 6, "kind": "point", "action": "move", "index": 0, "x": 50.0, "y": 0.9,
         "curve": "context"}]), rules=RULES)
    # both curves, but no pair is labelled by silence: the change is confirmed or chosen
    assert CONTEXT_PAIRS.submission_problems(r.content, N_TOKENS, PAIRS) == [
        "Given the follow-up: confirm the change the curves give, or choose another."]
    r = replay(r.content, r.step, N_TOKENS, r.last_seq, parse_events([
        {"seq": 7, "kind": "change", "change": "derived"}]), rules=RULES)
    assert r.content.change == "derived"
    assert CONTEXT_PAIRS.submission_problems(r.content, N_TOKENS, PAIRS) == []
    assert submission_problems(r.content, N_TOKENS)  # single texts would still want axes


def test_folded_moves_of_the_second_curve_apply_as_their_last():
    base = fitted().with_context_copied()
    events = parse_events([{"seq": 3, "first": 1, "kind": "point", "action": "move", "index": 0,
                            "x": 33.0, "y": 0.7, "curve": "context"}])
    r = replay(base, 3, N_TOKENS, 0, events, rules=RULES)
    assert r.last_seq == 3 and r.content.context_points[0] == (33.0, 0.7)
    assert r.content.points == base.points


def test_back_at_the_target_alone_a_confirmed_derived_label_is_asked_for_again():
    """The first curve can move at step 2, and the derived label with it, out of sight of the
    reading: a confirmation of "what the curves say" does not survive the way back; an
    annotator's own label does."""
    base = replace(fitted().with_context_copied(), change="derived")
    r = run([ev(1, "step", step=2)], content=base, step=3)
    assert (r.step, r.content.change) == (2, "")
    own = replace(base, change="increased")
    assert run([ev(1, "step", step=2)], content=own, step=3).content.change == "increased"
    assert run([ev(1, "step", step=3)], content=base, step=3).content.change == "derived"
