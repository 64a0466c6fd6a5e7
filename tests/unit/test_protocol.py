"""The annotation protocol of one sample: content from untrusted JSON, and when it may be
submitted (SPEC section 3)."""

from __future__ import annotations

import json
import math

import pytest

from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.workbench.protocol import MAX_POINTS, MIN_POINTS, submission_problems
from annotation.content import AnnotationContent, ContentError
from annotation.text_limits import NOTE_MAX_CHARS

POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
N_TOKENS = 10


def complete(**overrides) -> AnnotationContent:
    values = dict(boundaries=(0, 4), segment_axes=("main", "static"), points=POINTS,
                  xi=27.1, omega=9.8, alpha=0.3, scale=20.0, rmse=0.05)
    values.update(overrides)
    return AnnotationContent(**values)


# --- from_json -------------------------------------------------------------------------------


def test_from_json_reads_a_full_record():
    data = {"boundaries": [0, 4, 7], "segment_axes": ["main", "intention", None],
            "points": [[27.6, 0.77], [21.6, 0.41], [31, 0.4]], "xi": 27.1, "omega": 9.8,
            "alpha": -0.3, "scale": 12, "rmse": 0.01, "params_source": "manual",
            "flags": ["other"], "note": "odd text"}
    c = AnnotationContent.from_json(data)
    assert c.boundaries == (0, 4, 7)
    assert c.segment_axes == ("main", "intention", None)
    assert c.points == ((27.6, 0.77), (21.6, 0.41), (31.0, 0.4))
    assert all(isinstance(v, float) for p in c.points for v in p)
    assert (c.xi, c.omega, c.alpha, c.scale, c.rmse) == (27.1, 9.8, -0.3, 12.0, 0.01)
    assert isinstance(c.scale, float)
    assert (c.params_source, c.flags, c.note) == ("manual", ("other",), "odd text")
    assert c.has_parameters


def test_from_json_defaults_for_an_empty_record():
    assert AnnotationContent.from_json({}) == AnnotationContent()
    c = AnnotationContent.from_json({"boundaries": None, "points": None, "flags": None, "note": None})
    assert c == AnnotationContent()
    assert not c.has_parameters


def test_json_round_trip():
    c = complete(flags=("multiple_peaks",), note="two peaks", params_source="manual")
    data = c.to_json()
    assert data["boundaries"] == [0, 4] and data["points"][0] == [27.6, 0.77]
    assert AnnotationContent.from_json(json.loads(json.dumps(data))) == c


def test_from_json_accepts_integral_floats_as_boundaries():
    assert AnnotationContent.from_json({"boundaries": [0, 3.0], "segment_axes": [None, None]}).boundaries == (0, 3)


NOT_POINTS = "points must be a list of \\[x, y\\] pairs of finite numbers"
NOT_BOUNDARIES = "boundaries must be a list of whole numbers"


@pytest.mark.parametrize("data,message", [
    ({"boundaries": [0, 1.5], "segment_axes": [None, None]}, NOT_BOUNDARIES),
    ({"boundaries": [0, "2"], "segment_axes": [None, None]}, NOT_BOUNDARIES),
    ({"boundaries": [0, True], "segment_axes": [None, None]}, NOT_BOUNDARIES),
    ({"boundaries": 5}, NOT_BOUNDARIES),
    ({"points": [[1.0]]}, NOT_POINTS),
    ({"points": [[1.0, 0.5, 0.2]]}, NOT_POINTS),
    ({"points": [["a", 0.5]]}, NOT_POINTS),
    ({"points": [[30.0, None]]}, NOT_POINTS),
    ({"points": [[float("nan"), 0.5]]}, NOT_POINTS),
    ({"points": [5]}, NOT_POINTS),
    ({"points": [{}]}, NOT_POINTS),  # a KeyError once, past every check
    ({"context_points": "ab"}, "context_points must be a list of"),
    ({"xi": "27"}, "xi must be a finite number"),
    ({"omega": float("inf")}, "omega must be a finite number"),
    ({"alpha": True}, "alpha must be a finite number"),
    ({"xi": 10 ** 400}, "xi must be a finite number"),  # an integer JSON allows but no float can hold
    ({"boundaries": [0, 10 ** 400], "segment_axes": [None, None]}, NOT_BOUNDARIES),
    ({"segment_axes": [{"a": 1}]}, "segment_axes must be a list of axis names"),
    ({"flags": [True]}, "flags must be a list of flag names"),
    ({"note": 5}, "note must be text"),
])
def test_from_json_refuses_badly_typed_data_naming_the_field(data, message):
    """In the product's words: the field and what it holds, never Python's ("list index out of
    range", "'bool' object is not subscriptable")."""
    with pytest.raises(ContentError, match=f"^{message}"):
        AnnotationContent.from_json(data)


@pytest.mark.parametrize("data", [[1, 2], "text", None, 42])
def test_from_json_refuses_data_that_is_not_an_object(data):
    with pytest.raises(ContentError):
        AnnotationContent.from_json(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("data,fragment", [
    ({"boundaries": [0, 3], "segment_axes": ["main"]}, "one axis slot per segment"),
    ({"segment_axes": ["temporal"]}, "unknown axis"),
    ({"segment_axes": ["main_outcome_axis"]}, "unknown axis"),  # export key, not the short name
    ({"segment_axes": [""]}, "unknown axis"),
    ({"points": [[10 * i + 10, 0.5] for i in range(MAX_POINTS + 1)]}, "at most"),
    ({"flags": ["boring"]}, "unknown flag"),
    ({"flags": ["other", "other"], "note": "x"}, "twice"),
    ({"note": "x" * (NOTE_MAX_CHARS + 1)}, "longer than"),
    ({"params_source": "guess"}, "parameter source"),
    ({"omega": 0}, "positive"),
    ({"omega": -2.5}, "positive"),
])
def test_from_json_refuses_bad_shapes(data, fragment):
    with pytest.raises(ContentError, match=fragment):
        AnnotationContent.from_json(data)


def test_check_shape_catches_non_finite_parameters_built_directly():
    with pytest.raises(ContentError, match="finite"):
        AnnotationContent(rmse=math.nan).check_shape()
    with pytest.raises(ContentError, match="finite"):
        AnnotationContent(scale=math.inf).check_shape()


def test_note_at_the_limit_is_fine():
    AnnotationContent(note="x" * NOTE_MAX_CHARS).check_shape()


# --- submission_problems ---------------------------------------------------------------------


def test_complete_annotation_has_no_problems():
    assert submission_problems(complete(), N_TOKENS) == []
    assert submission_problems(complete(points=POINTS[:MIN_POINTS]), N_TOKENS) == []


def test_missing_axes_are_listed_by_segment_number():
    one = submission_problems(complete(segment_axes=("main", None)), N_TOKENS)
    assert one == ["Axis labels: segment 2 still needs an axis."]
    c = complete(boundaries=(0, 2, 5), segment_axes=(None, "main", None))
    assert submission_problems(c, N_TOKENS) == ["Axis labels: segments 1 and 3 still need an axis."]
    c = complete(boundaries=(0, 2, 5, 7), segment_axes=(None, None, "main", None))
    assert submission_problems(c, N_TOKENS) == [
        "Axis labels: segments 1, 2 and 4 still need an axis."]


@pytest.mark.parametrize("n_points", [0, 1, MIN_POINTS - 1])
def test_too_few_points(n_points):
    problems = submission_problems(complete(points=POINTS[:n_points]), N_TOKENS)
    assert problems == [f"Curve: place {MIN_POINTS} to {MAX_POINTS} points (now {n_points})."]


def test_points_without_parameters():
    c = complete(xi=None)
    assert submission_problems(c, N_TOKENS) == ["Curve: the points do not define a curve yet."]


def test_segmentation_past_the_text_is_a_problem():
    problems = submission_problems(complete(boundaries=(0, 12)), N_TOKENS)
    assert len(problems) == 1 and problems[0].startswith("Segmentation:")
    assert "past the last token" in problems[0]


def test_empty_draft_lists_every_missing_part():
    problems = submission_problems(AnnotationContent(), N_TOKENS)
    assert len(problems) == 2
    assert problems[0].startswith("Axis labels") and problems[1].startswith("Curve")


def test_shape_error_is_the_only_problem_reported():
    problems = submission_problems(complete(segment_axes=("main",)), N_TOKENS)
    assert problems == ["there must be exactly one axis slot per segment"]


@pytest.mark.parametrize("flag", [f for f in ANNOTATOR_FLAG_CODES if f != "other"])
def test_flagged_annotation_may_be_unfinished(flag):
    assert submission_problems(AnnotationContent(flags=(flag,)), N_TOKENS) == []
    # even with a segmentation that does not fit the text
    assert submission_problems(AnnotationContent(flags=(flag,), boundaries=(0, 50),
                                                 segment_axes=(None, None)), N_TOKENS) == []


def test_flag_other_needs_a_note():
    assert submission_problems(AnnotationContent(flags=("other",)), N_TOKENS) == [
        "Explain the flag 'Other' in the note."]
    assert submission_problems(AnnotationContent(flags=("other",), note=" \n "), N_TOKENS) != []
    assert submission_problems(AnnotationContent(flags=("other",), note="Latin text"), N_TOKENS) == []
    both = AnnotationContent(flags=("not_present_tense", "other"))
    assert submission_problems(both, N_TOKENS) == ["Explain the flag 'Other' in the note."]
