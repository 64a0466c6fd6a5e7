"""The workbench's edits (annotation.workbench.editing) without Streamlit."""

import math

import pytest

from annotation.workbench import editing
from annotation.curves import fit_curve
from annotation.content import AnnotationContent

N_TOKENS = 10


def test_toggle_boundary_splits_and_carries_the_axis():
    c = AnnotationContent(boundaries=(0,), segment_axes=("main",))
    c = editing.toggle_boundary(c, N_TOKENS, 4)
    assert c.boundaries == (0, 4)
    assert c.segment_axes == ("main", "main")  # both halves keep the label


def test_toggle_boundary_merge_keeps_left_axis():
    c = AnnotationContent(boundaries=(0, 4, 7), segment_axes=("main", "opinion", "static"))
    c = editing.toggle_boundary(c, N_TOKENS, 4)
    assert c.boundaries == (0, 7)
    assert c.segment_axes == ("main", "static")


@pytest.mark.parametrize("gap", [0, N_TOKENS, -1, 99])
def test_toggle_boundary_ignores_impossible_gaps(gap):
    c = AnnotationContent(boundaries=(0, 3), segment_axes=("main", None))
    assert editing.toggle_boundary(c, N_TOKENS, gap) == c


def test_reset_segmentation():
    c = AnnotationContent(boundaries=(0, 3), segment_axes=("main", "static"))
    assert editing.reset_segmentation(c) == AnnotationContent(boundaries=(0,), segment_axes=(None,))


def test_set_segment_axis():
    c = AnnotationContent(boundaries=(0, 3), segment_axes=(None, None))
    c = editing.set_segment_axis(c, 1, "recurrent")
    assert c.segment_axes == (None, "recurrent")
    assert editing.set_segment_axis(c, 5, "main") == c
    assert editing.set_segment_axis(c, 1, None).segment_axes == (None, None)


def test_edit_points_refits_when_three_points_are_placed():
    c = AnnotationContent()
    c, msg = editing.edit_points(c, {"action": "add", "x": 40, "y": 0.5})
    assert msg and "2 more points" in msg and c.xi is None
    c, msg = editing.edit_points(c, {"action": "add", "x": 60, "y": 1.0})
    assert msg and "1 more point" in msg
    c, msg = editing.edit_points(c, {"action": "add", "x": 90, "y": 0.3})
    assert msg is None
    expected = fit_curve([(40, 0.5), (60, 1.0), (90, 0.3)])
    assert c.xi == pytest.approx(expected.xi) and c.omega == pytest.approx(expected.omega)
    assert c.params_source == "fit" and c.rmse < 1e-3


def test_edit_points_clears_parameters_for_an_impossible_shape():
    c = AnnotationContent(points=((20, 1.0), (60, 0.1), (100, 1.0)))
    c, msg = editing.refit(c)
    assert c.xi is None and c.omega is None and c.alpha is None
    assert msg and "peak" in msg.lower()


def test_set_parameters_marks_manual_and_recomputes_scale():
    c, _ = editing.refit(AnnotationContent(points=((40, 0.5), (60, 1.0), (90, 0.3))))
    # a small nudge: the tuned curve still passes within 0.10 of every point, so no message
    # (a 5-unit shift now draws one naming the points it misses, tested below)
    tuned, msg = editing.set_parameters(c, c.xi + 1, c.omega, c.alpha)
    assert msg is None and tuned.params_source == "manual"
    assert tuned.xi == pytest.approx(c.xi + 1)
    assert tuned.rmse > c.rmse and math.isfinite(tuned.scale)
    back, _ = editing.refit(tuned)
    assert back.params_source == "fit" and back.xi == pytest.approx(c.xi)


def test_set_parameters_refuses_a_curve_far_from_every_point():
    c = AnnotationContent(points=((40, 0.5), (60, 1.0), (90, 0.3)))
    same, msg = editing.set_parameters(c, 300.0, 0.5, 0.0)
    assert same == c and msg


def test_set_flags_keeps_known_codes_in_order():
    c = editing.set_flags(AnnotationContent(), ["other", "bogus", "not_present_tense"], "  why  ")
    assert c.flags == ("not_present_tense", "other") and c.note == "why"


# --- the curve and the points (issue 10 item 4) ----------------------------------------------

ISSUE_POINTS = ((0.0, 1.0), (138.21, 0.9), (173.9, 0.5))  # 1 min 100 %, 1 year 90 %, 30 years 50 %


def test_refit_stores_the_closest_curve_and_names_each_residual_when_none_passes():
    c, msg = editing.refit(AnnotationContent(points=ISSUE_POINTS))
    fit = fit_curve(ISSUE_POINTS)
    assert (c.xi, c.omega, c.alpha, c.scale, c.rmse) == (fit.xi, fit.omega, fit.alpha, fit.scale, fit.rmse)
    assert msg == fit.message
    assert msg.startswith("No single-peaked curve at or below 100 % passes through these points: "
                          "point 1 is 0.07 above the curve, point 2 is 0.13 above the curve, "
                          "point 3 is 0.08 below the curve.")


def test_edit_points_message_goes_once_the_points_can_be_passed_through():
    c, msg = editing.refit(AnnotationContent(points=ISSUE_POINTS))
    assert msg
    c, msg = editing.edit_points(c, {"action": "move", "index": 1, "x": 138.21, "y": 0.7})
    assert msg is None and c.has_parameters


def test_set_parameters_says_which_points_a_hand_tuned_curve_misses():
    c, _ = editing.refit(AnnotationContent(points=((40, 0.5), (60, 1.0), (90, 0.3))))
    tuned, msg = editing.set_parameters(c, c.xi + 15, c.omega, c.alpha)
    assert tuned.params_source == "manual" and tuned.xi == pytest.approx(c.xi + 15)
    assert msg and msg.startswith("The hand-tuned curve misses the points by more than 0.10: point 1 is")
    assert "Adjust the parameters or go back to the fitted curve." in msg


def test_set_parameters_never_stores_a_curve_above_100_percent():
    from annotation.curves import peak_height

    c = AnnotationContent(points=((45.0, 1.0), (50.0, 0.9), (55.0, 1.0)))
    tuned, _ = editing.set_parameters(c, 50.0, 4.0, 0.0)
    assert peak_height(tuned.xi, tuned.omega, tuned.alpha, tuned.scale) == pytest.approx(1.0)


@pytest.mark.parametrize("step", [0, 1, 2])
def test_set_step_accepts_the_three_steps(step):
    assert editing.set_step(step) == step


@pytest.mark.parametrize("step", [-1, 3, True, 1.5, "1", None])
def test_set_step_refuses_anything_else(step):
    with pytest.raises(ValueError, match="there is no step"):
        editing.set_step(step)
