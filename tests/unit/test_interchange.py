"""The annotation interchange format: all-or-nothing reading with line numbers, round trip."""

import json
from datetime import datetime, timezone

import pytest

from annotation.curves import fit_curve
from annotation.interchange import (
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
