"""A refused import file is told in the product's words: one line, one full stop after the
reason, never Python's wording ("list index out of range", "'bool' object is not
subscriptable", "do you need to open the file in universal-newline mode?"), and never an id the
file did not give (``NaN`` read as "nan", ``true`` as "True").

The readers (texts, pairs, annotations) are fuzzed with bad lines; each refusal is composed as
the services compose it (:func:`annotation.wording.refusal` after the file's name).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from annotation.corpus.interchange import InterchangeError, parse_interchange
from annotation.corpus.pair_import import parse_pairs
from annotation.corpus.text_import import ImportFileError, parse_texts
from annotation.settings import ProjectSettings
from annotation.wording import NOTHING_IMPORTED, refusal

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
#: Python's words for a slip, and Python's spelling of JSON's values outside quotes.
PYTHON_WORDING = re.compile(
    r"index out of range|object is not|has no attribute|subscriptable|not iterable|unhashable|"
    r"invalid literal|could not convert|NoneType|Traceback|universal-newline|Errno|expected after|"
    r"\bTrue\b|\bFalse\b|\bNone\b|\bnan\b|\binf\b")
QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")  # a value the file gave, shown as text
NOW = datetime(2026, 11, 26, tzinfo=timezone.utc)

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**30), st.floats(), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=3), inner, max_size=2)),
                      max_leaves=5)


def _refused(read, data: bytes, filename: str) -> str | None:
    """The message a service shows for ``read(data, filename)``, None when the file was read."""
    try:
        read(data, filename)
    except (ImportFileError, InterchangeError) as exc:
        return refusal(f"{filename}: {exc}", NOTHING_IMPORTED)
    return None


def _check(message: str | None) -> None:
    if message is None:
        return
    assert "\n" not in message and "\r" not in message, message
    assert message.endswith(f". {NOTHING_IMPORTED}") and ".." not in message.replace("…", ""), message
    assert not PYTHON_WORDING.search(QUOTED.sub("", message)), message


@FUZZ
@given(st.dictionaries(st.sampled_from(["text", "parent_text", "id", "_id", "benchmark"]), values, max_size=4))
def test_texts_jsonl(fields):
    _check(_refused(parse_texts, json.dumps(fields).encode(), "t.jsonl"))


@FUZZ
@given(st.dictionaries(st.sampled_from(["target", "context", "follow_up", "id", "target_id", "context_only_tv",
                                        "combined_tv", "change"]), values, max_size=5))
def test_pairs_jsonl(fields):
    line = {"target": "The pool is closed today.", "follow_up": "It reopened.", **fields}
    _check(_refused(parse_pairs, json.dumps(line).encode(), "p.jsonl"))


@FUZZ
@given(st.text(max_size=60))
def test_csv_lines(line):
    _check(_refused(parse_texts, f"text,id,benchmark\n{line}".encode(), "t.csv"))
    _check(_refused(parse_pairs, f"target,follow_up,id,target_id\n{line}".encode(), "p.csv"))


@FUZZ
@given(st.text(max_size=40))
def test_lines_that_are_no_json(line):
    _check(_refused(parse_texts, line.encode(), "t.jsonl"))
    _check(_refused(parse_pairs, line.encode(), "p.jsonl"))


@FUZZ
@given(st.dictionaries(st.sampled_from(["sample_id", "annotator", "boundaries", "segment_axes", "points", "xi",
                                        "omega", "alpha", "flags", "note", "submitted_at", "context_points",
                                        "context_xi", "change"]), values, max_size=5),
       st.booleans())
def test_annotations(fields, pairs):
    line = {"sample_id": "S1", "annotator": "ann", "boundaries": [0], "segment_axes": ["main"], "xi": 50,
            "omega": 9, "alpha": 0, "submitted_at": "2026-11-20T10:31:00Z", **fields}
    project = ProjectSettings(protocol="pairs") if pairs else None
    _check(_refused(lambda data, _: parse_interchange(data, {"S1": 4}, NOW, project),
                    json.dumps(line).encode(), "a.jsonl"))


@pytest.mark.parametrize("written,shown", [("NaN", "NaN"), ("true", "true"), ("Infinity", "Infinity"),
                                           ("-Infinity", "-Infinity"), ("1.5", "1.5"), ("[7]", "[7]")])
@pytest.mark.parametrize("field", ["id", "target_id"])
def test_an_id_that_is_not_text_is_refused_not_turned_into_text(field, written, shown):
    pair = ('{"target": "The pool is closed today.", "follow_up": "It reopened.", "%s": %s}' % (field, written))
    assert _refused(parse_pairs, pair.encode(), "p.jsonl") == \
        f"p.jsonl: line 1: {field} must be text or a whole number, not {shown}. {NOTHING_IMPORTED}"
    if field == "id":
        text = '{"text": "The pool is closed today.", "id": %s}' % written
        assert _refused(parse_texts, text.encode(), "t.jsonl") == \
            f"t.jsonl: line 1: id must be text or a whole number, not {shown}. {NOTHING_IMPORTED}"


def test_a_whole_number_id_is_read_as_its_digits():
    pair = b'{"target": "The pool is closed today.", "follow_up": "It reopened.", "id": 42, "target_id": 7}'
    (record,) = parse_pairs(pair, "p.jsonl")
    assert (record.external_id, record.target_id) == ("42", "7")


@pytest.mark.parametrize("reason,shown", [
    ("line 2: Segmentation: the first segment must start at token 0.",
     "a.jsonl: line 2: Segmentation: the first segment must start at token 0. Nothing was imported."),
    ("line 2: the annotation needs an axis for segment 1. Points: give 3 to 5.",
     "a.jsonl: line 2: the annotation needs an axis for segment 1. Points: give 3 to 5. Nothing was imported."),
    ("line 3: the target is missing or empty",
     "a.jsonl: line 3: the target is missing or empty. Nothing was imported."),
])
def test_a_reason_ending_in_a_full_stop_gets_no_second_one(reason, shown):
    assert refusal(f"a.jsonl: {reason}", NOTHING_IMPORTED) == shown
