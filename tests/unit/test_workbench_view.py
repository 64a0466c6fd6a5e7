"""The surface's ``view`` built from a stored work item (ui.workbench_view): pure, no Streamlit."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from annotation.workbench import editing
from annotation.content import AnnotationContent
from annotation.services.workbench.queue import WorkItem
from ui.workbench_view import Notice, SessionFacts, build_view, fit_panel

TEXT = "The shop is closed today because of a flood."
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
NOW = datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc)


def _item(content: AnnotationContent = AnnotationContent(), **changes) -> WorkItem:
    values = dict(annotation_id=7, version=3, status="draft", step=1, content=content,
                  seconds_spent=12.0, guidelines_version="1.0", updated_at=NOW, submitted_at=None,
                  sample_id=5, project_id=1, external_id="B1-0007", benchmark=1,
                  parent_text=TEXT, n_tokens=10, returned_note="", is_warmup=False)
    values.update(changes)
    return WorkItem(**values)


def _fitted() -> AnnotationContent:
    content, message = editing.refit(AnnotationContent(segment_axes=("main",), points=POINTS))
    assert message is None
    return content


def test_the_view_is_json_and_carries_the_session_facts():
    facts = SessionFacts(client="c0ffee", acked=4, layout="single", confirm_submit=True,
                         quota_reached=True, project_name="Pilot", sample_number=37,
                         notices=(Notice("warning", "Not applied: <b>x</b>"),))
    v = build_view(_item(), facts)
    assert json.loads(json.dumps(v)) == v
    assert (v["annotation_id"], v["client"], v["version"], v["acked"], v["step"]) == (7, "c0ffee", 3, 4, 1)
    assert (v["layout"], v["confirm_submit"], v["quota_reached"], v["read_only"]) == (
        "single", True, True, False)
    assert v["notices"] == [{"level": "warning", "text": "Not applied: <b>x</b>"}]  # text as is
    assert v["sample"]["project"] == "Pilot" and v["sample"]["number"] == 37
    assert "external_id" not in v["sample"]  # annotators never get the id (it tells a gold check apart)
    assert v["tokens"][0] == "The" and len(v["tokens"]) == len(v["spaces"])


def test_a_submitted_item_is_read_only_and_has_no_problems():
    v = build_view(_item(status="submitted", submitted_at=NOW), SessionFacts(client="c"))
    assert v["read_only"] is True and v["problems"] == []


def test_problems_are_those_of_the_stored_content():
    v = build_view(_item(), SessionFacts(client="c"))
    assert any(p.startswith("Axis labels:") for p in v["problems"])
    assert any(p.startswith("Curve:") for p in v["problems"])
    assert build_view(_item(_fitted()), SessionFacts(client="c"))["problems"] == []


@pytest.mark.parametrize("n, message", [
    (0, "Place 3 more points to see the curve."),
    (1, "Place 2 more points to see the curve."),
    (2, "Place 1 more point to see the curve."),
])
def test_the_fit_panel_says_how_many_points_are_missing(n, message):
    panel = fit_panel(AnnotationContent(points=POINTS[:n]), None)
    assert panel == {"message": message, "summary": [], "params": None, "residuals": None}


def test_the_fit_panel_of_a_fitted_curve_describes_it():
    content = _fitted()
    panel = fit_panel(content, None)
    assert panel["message"] is None
    assert panel["summary"] and panel["summary"][0].startswith("Peaks after")
    assert panel["params"] == {"xi": content.xi, "omega": content.omega, "alpha": content.alpha,
                               "rmse": content.rmse, "source": "fit"}
    # each point's distance from the drawn curve, in the order placed: this fit passes through
    assert len(panel["residuals"]) == len(POINTS)
    assert all(abs(r) <= 0.1 for r in panel["residuals"])


def test_a_curve_that_misses_a_point_says_so_after_a_reload_too():
    # a point far above the curve: the residual message is built from what is stored
    content = replace(_fitted(), points=POINTS[:4] + ((34.9, 0.9),))
    panel = fit_panel(content, None)
    assert panel["residuals"][4] > 0.5
    assert panel["message"].startswith("No single-peaked curve")
    assert "point 5 is" in panel["message"] and "above the curve" in panel["message"]
    hand = fit_panel(replace(content, params_source="manual"), None)
    assert hand["message"].startswith("The hand-tuned curve misses the points")


def test_the_feedback_reads_the_curve_back():
    v = build_view(_item(_fitted()), SessionFacts(client="c"))
    fb = v["feedback"]
    assert [label for label, _ in fb["left_after"]] == ["1 hour", "1 day", "1 week", "1 month", "1 year"]
    assert all(value.endswith("%") for _, value in fb["left_after"])
    assert any("half of its validity is gone" in line.lower() for line in fb["lines"])
    assert build_view(_item(), SessionFacts(client="c"))["feedback"] is None


def test_the_last_fit_message_wins_and_points_without_a_curve_say_so():
    three = AnnotationContent(points=POINTS[:3])
    assert fit_panel(three, "The points do not rise and fall.")["message"] == "The points do not rise and fall."
    assert fit_panel(three, None)["message"] == "The points do not define a curve yet."


def test_the_drawn_curve_is_empty_without_parameters_and_on_the_chart_with_them():
    assert build_view(_item(), SessionFacts(client="c"))["curve"] == []
    content = _fitted()
    curve = build_view(_item(content), SessionFacts(client="c"))["curve"]
    assert len(curve) > 100 and all(0 <= x <= 200 and 0 <= y <= 1 for x, y in curve)
    # exactly the stored fit S·f, and drawn through each point's x: there it is point − residual
    drawn = dict((x, y) for x, y in curve)
    residuals = fit_panel(content, None)["residuals"]
    for (x, y), r in zip(content.points, residuals):
        assert drawn[round(x, 3)] == pytest.approx(y - r, abs=1e-3)


def test_bad_levels_and_layouts_are_programming_errors():
    with pytest.raises(ValueError):
        Notice("fatal", "x")
    with pytest.raises(ValueError):
        SessionFacts(client="c", layout="grid")


def test_two_peaks_read_the_same_in_the_panel_and_in_what_stops_a_submit():
    """The status line said "the points do not define a curve yet" while the chart's panel said
    "Points 2 and 5 are both peaks…" for the same points (issue 22, item 10)."""
    two_peaks = AnnotationContent(segment_axes=("main",), points=((20.0, 1.0), (40.0, 0.2), (60.0, 1.0)))
    content, message = editing.refit(two_peaks)
    assert message is not None and content.xi is None
    v = build_view(_item(content), SessionFacts(client="c", fit_message=message))
    assert v["fit"]["message"] == message
    assert v["problems"] == [f"Curve: {message}"]
    # no reason known (after a reload): both say the same general words
    v = build_view(_item(content), SessionFacts(client="c"))
    assert v["problems"] == ["Curve: the points do not define a curve yet."]
    assert v["fit"]["message"] == "The points do not define a curve yet."


def test_the_view_carries_the_names_and_limits_the_surface_edits_with():
    # the browser keeps no copy of them: the fit's bounds, the units, the note's length...
    from annotation.curves import ALPHA_BOUNDS, MAX_POINTS, OMEGA_BOUNDS, XI_BOUNDS
    from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
    from annotation.timeaxis import MINUTES_PER_YEAR, X_MAX
    from annotation.workbench.protocol import STEPS
    from annotation.text_limits import NOTE_MAX_CHARS

    v = build_view(_item(), SessionFacts(client="c0ffee"))
    assert v["steps"] == list(STEPS) and v["x_max"] == X_MAX and v["max_points"] == MAX_POINTS
    assert [f["code"] for f in v["flags"]] == list(ANNOTATOR_FLAG_CODES)
    assert v["parameters"] == [
        {"name": "xi", "symbol": "ξ", "min": XI_BOUNDS[0], "max": XI_BOUNDS[1]},
        {"name": "omega", "symbol": "ω", "min": OMEGA_BOUNDS[0], "max": OMEGA_BOUNDS[1]},
        {"name": "alpha", "symbol": "α", "min": ALPHA_BOUNDS[0], "max": ALPHA_BOUNDS[1]}]
    units = {u["name"]: u["minutes"] for u in v["time_units"]}
    assert list(units) == ["minutes", "hours", "days", "weeks", "months", "years"]
    assert units["years"] == MINUTES_PER_YEAR and units["days"] == 1440
    assert v["note_max_chars"] == NOTE_MAX_CHARS


def test_the_view_carries_the_vocabularies_the_surface_once_copied():
    # the surface's JS holds no copy of them (tests/unit/test_js_vocabulary.py scans for one)
    from annotation.timeaxis import DURATION_UNITS
    from annotation.workbench.event_log import FIT_KINDS, KINDS
    from annotation.content import CONTEXT_FIELDS
    from annotation.workbench.protocol import STEPS
    from ui.workbench_view import NOTICE_LEVELS, PART_STEPS

    v = build_view(_item(), SessionFacts(client="c0ffee"))
    assert v["curve_edits"] == [k for k in KINDS if k in FIT_KINDS] and set(v["curve_edits"]) == FIT_KINDS
    assert v["context_fields"] == [list(pair) for pair in CONTEXT_FIELDS.items()]
    assert v["notice_levels"] == list(NOTICE_LEVELS)
    units = [name for name, _ in DURATION_UNITS]
    assert v["duration_defaults"]["peak"] in units and v["duration_defaults"]["half_gone"] in units
    # which step shows which part: the steps' names say the same
    assert v["part_steps"] == PART_STEPS
    assert [STEPS[PART_STEPS[p]] for p in ("segments", "axes", "curve")] == ["Segmentation", "Axis labels", "Validity curve"]
