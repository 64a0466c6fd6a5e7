"""The annotation interchange format: all-or-nothing reading with line numbers, round trip."""

import json
from datetime import datetime, timezone

import pytest

from annotation.curves import fit_curve
from annotation.corpus.interchange import (
    InterchangeError,
    parse_interchange,
    parse_submitted_at,
    to_interchange,
)

SAMPLES = {"B1-00042": 16, "B1-00043": 8}
GOOD = {"sample_id": "B1-00042", "annotator": "ann03", "boundaries": [0, 5, 11],
        "segment_axes": ["main", "intention", "static"],
        "points": [[27.6, 0.77], [21.6, 0.41], [31.6, 0.41], [14.9, 0.19], [34.9, 0.2]],
        "xi": 27.1, "omega": 9.8, "alpha": 0.3, "flags": [], "note": "",
        "submitted_at": "2026-11-20T10:31:00Z"}


def lines(*records) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()


def test_the_spec_example_reads_and_round_trips():
    [rec] = parse_interchange(lines(GOOD), SAMPLES)
    assert rec.sample_id == "B1-00042" and rec.annotator == "ann03"
    assert rec.content.boundaries == (0, 5, 11)
    assert (rec.content.xi, rec.content.omega, rec.content.alpha) == (27.1, 9.8, 0.3)
    assert rec.content.rmse is not None  # how well the given parameters fit the points
    assert rec.submitted_at == datetime(2026, 11, 20, 10, 31, tzinfo=timezone.utc)
    again = to_interchange(rec.sample_id, rec.annotator, rec.content, rec.submitted_at)
    assert list(again) == list(GOOD)  # key order of SPEC section 11
    assert again == {**GOOD, "points": [[float(x), float(y)] for x, y in GOOD["points"]]}


def test_parameters_are_fitted_from_points_when_absent():
    rec = {k: v for k, v in GOOD.items() if k not in ("xi", "omega", "alpha")}
    [got] = parse_interchange(lines(rec), SAMPLES)
    fit = fit_curve(GOOD["points"])
    assert got.content.xi == pytest.approx(fit.xi) and got.content.params_source == "fit"


def test_points_are_optional_when_parameters_are_given():
    rec = {**GOOD, "points": []}
    [got] = parse_interchange(lines(rec), SAMPLES)
    assert got.content.points == () and got.content.xi == 27.1


@pytest.mark.parametrize("bad, reason", [
    ({**GOOD, "sample_id": "B9-1"}, "unknown sample_id"),
    ({k: v for k, v in GOOD.items() if k != "annotator"}, "missing field annotator"),
    ({**GOOD, "colour": "red"}, "unknown field colour"),
    ({**GOOD, "boundaries": [0, 5, 16]}, "past the last token"),
    ({**GOOD, "segment_axes": ["main", "intention"]}, "one axis slot per segment"),
    ({**GOOD, "segment_axes": ["main", "intention", "temporal"]}, "unknown axis"),
    ({**GOOD, "segment_axes": ["main", None, "static"]}, "needs an axis"),
    ({**GOOD, "xi": None}, "all of xi, omega and alpha"),
    ({**GOOD, "points": [], "xi": None, "omega": None, "alpha": None}, "give points or xi"),
    ({**GOOD, "xi": None, "omega": None, "alpha": None,
      "points": [[10, 1.0], [30, 0.1], [50, 1.0]]}, "single peak"),
    ({**GOOD, "omega": -1}, "must be positive"),
    ({**GOOD, "flags": ["bogus"]}, "unknown flag"),
    ({**GOOD, "submitted_at": "yesterday"}, "ISO 8601"),
    ({**GOOD, "submitted_at": None}, "ISO 8601"),
])
def test_each_bad_record_names_its_line_and_nothing_is_returned(bad, reason):
    other = {**GOOD, "sample_id": "B1-00043", "boundaries": [0], "segment_axes": ["main"],
             "points": [], "xi": 50.0, "omega": 9.0, "alpha": 0.0}
    with pytest.raises(InterchangeError) as err:
        parse_interchange(lines(other, bad), SAMPLES)
    assert err.value.line == 2
    assert reason in err.value.reason


def test_malformed_lines_and_duplicates():
    with pytest.raises(InterchangeError, match="line 1: not valid JSON"):
        parse_interchange(b"{nope\n", SAMPLES)
    with pytest.raises(InterchangeError, match="line 1: each line must be a JSON object"):
        parse_interchange(b"[1, 2]\n", SAMPLES)
    with pytest.raises(InterchangeError, match="line 2: ann03 already annotated B1-00042 on line 1"):
        parse_interchange(lines(GOOD, GOOD), SAMPLES)
    with pytest.raises(InterchangeError, match="no annotations"):
        parse_interchange(b"\n\n", SAMPLES)
    with pytest.raises(InterchangeError, match="not valid UTF-8"):
        parse_interchange(b"\xff\xfe", SAMPLES)


def test_a_flagged_record_may_come_without_a_curve():
    rec = {**GOOD, "points": [], "xi": None, "omega": None, "alpha": None,
           "flags": ["multiple_peaks"]}
    [got] = parse_interchange(lines(rec), SAMPLES)
    assert got.content.flags == ("multiple_peaks",) and not got.content.has_parameters


def test_submitted_at_forms():
    assert parse_submitted_at("2026-11-20T10:31:00+01:00") == datetime(2026, 11, 20, 9, 31, tzinfo=timezone.utc)
    assert parse_submitted_at("2026-11-20T10:31:00") == datetime(2026, 11, 20, 10, 31, tzinfo=timezone.utc)


# --- issue 9: imported annotations obey the workbench's rules -------------------------------------

OTHER = {**GOOD, "sample_id": "B1-00043", "boundaries": [0], "segment_axes": ["main"],
         "points": [], "xi": 50.0, "omega": 9.0, "alpha": 0.0}
NOW = datetime(2026, 11, 24, 12, 0, tzinfo=timezone.utc)


def refused_on_line_2(bad: dict | str) -> InterchangeError:
    with pytest.raises(InterchangeError) as err:
        parse_interchange(lines(OTHER, bad), SAMPLES, now=NOW)
    assert err.value.line == 2
    return err.value


@pytest.mark.parametrize("params, reason", [
    ({"xi": 1e308, "omega": 1e308, "alpha": 1e308}, "xi (ξ) = 1e+308 is outside the fit's range [-100, 300]"),
    ({"xi": -5000.0}, "xi (ξ) = -5000 is outside the fit's range [-100, 300]"),
    ({"omega": 0.001}, "omega (ω) = 0.001 is outside the fit's range [0.5, 200]"),
    ({"alpha": 19999.0}, "alpha (α) = 19999 is outside the fit's range [-20, 20]"),
])
def test_parameters_outside_the_fits_bounds_are_refused_with_or_without_points(params, reason):
    for points in ([], GOOD["points"]):
        err = refused_on_line_2({**GOOD, "points": points, **params})
        assert reason in err.reason or (points and "zero at every point" in err.reason)
    flagged = {**GOOD, "points": [], "flags": ["multiple_peaks"], **params}
    assert reason in refused_on_line_2(flagged).reason


def test_non_finite_parameters_are_refused():
    assert "finite" in refused_on_line_2('{"sample_id": "B1-00042", "annotator": "ann03", '
                                         '"boundaries": [0], "segment_axes": ["main"], "xi": 1e400, '
                                         '"omega": 5, "alpha": 0, "submitted_at": "2026-11-20T10:31:00Z"}').reason


@pytest.mark.parametrize("boundaries", [[0, 999, 5000], [0, 5, 16], [3, 5, 11], [0, 5, 5], [0, 11, 5]])
def test_a_flagged_record_still_needs_a_segmentation_of_its_text(boundaries):
    flagged = {**GOOD, "boundaries": boundaries, "flags": ["multiple_peaks"],
               "points": [], "xi": None, "omega": None, "alpha": None}
    assert refused_on_line_2(flagged).reason.startswith("Segmentation:")


@pytest.mark.parametrize("when, reason", [
    ("9999-12-31T23:59:59Z", "in the future"),
    ("9999-12-31T23:59:59-01:00", "too far in the future"),
    ("2026-11-25T12:00:01Z", "in the future"),  # just over a day ahead of the import
    ("1999-12-31T23:59:59Z", "before 2000-01-01"),
    ("0001-01-01T00:00:00Z", "before 2000-01-01"),
    ("2026-13-01T00:00:00Z", "not an ISO 8601"),
])
def test_submitted_at_outside_the_plausible_range_is_refused(when, reason):
    assert reason in refused_on_line_2({**GOOD, "submitted_at": when}).reason


def test_submitted_at_a_little_ahead_is_clock_skew():
    [_, rec] = parse_interchange(lines(OTHER, {**GOOD, "submitted_at": "2026-11-25T11:00:00Z"}),
                                 SAMPLES, now=NOW)
    assert rec.submitted_at == datetime(2026, 11, 25, 11, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", "admin\u202e", "x", "two words", 7, ""])
def test_annotator_names_follow_the_username_rules(name):
    assert "not a valid username" in refused_on_line_2({**GOOD, "annotator": name}).reason


def test_annotator_name_is_normalised_like_create_user():
    [rec] = parse_interchange(lines({**GOOD, "annotator": " lead1 "}), SAMPLES, now=NOW)
    assert rec.annotator == "lead1"


def test_two_spellings_of_one_name_in_a_file_are_refused():
    err = refused_on_line_2({**GOOD, "annotator": "ANN03".replace("03", "O3")})
    assert "looks like 'ann03' on line 1" in err.reason


@pytest.mark.parametrize("raw", ["[" * 100_000, '{"a": ' * 100_000, '{"xi": 1' + "0" * 5000 + "}"])
def test_hostile_json_is_refused_with_its_line(raw):
    with pytest.raises(InterchangeError) as err:
        parse_interchange(lines(OTHER, raw), SAMPLES, now=NOW)
    assert err.value.line == 2 and err.value.reason.startswith(("the JSON is nested too deeply",
                                                                "not valid JSON"))
