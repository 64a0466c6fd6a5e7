"""Reading context pairs (annotation.corpus.pair_import): both shapes in both formats, and every
refusal names the line and the reason."""

from __future__ import annotations

import json

import pytest

from annotation.corpus import pair_import
from annotation.corpus.pair_import import PairRecord, generated_target_key, parse_pairs
from annotation.export.tvcp import TVCP_KEYS, PairGold, csv_text, encode_record, tvcp_record
from annotation.corpus.text_import import MAX_ID_CHARS, MAX_IMPORT_BYTES, ImportFileError
from annotation.text_limits import MAX_TEXT_CHARS

HEADER = "context,follow_up,context_only_tv,combined_tv,change\n"


def jsonl(*objects) -> bytes:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objects).encode()


def fails(data: bytes, name: str) -> ImportFileError:
    with pytest.raises(ImportFileError) as refused:
        parse_pairs(data, name)
    return refused.value


def test_our_jsonl_with_ids_and_target_ids():
    data = jsonl({"id": "p1", "target_id": "t1", "target": " Gym at six. ", "follow_up": "It is cancelled."},
                 "",
                 {"target": "Gym at six. Bring a towel.", "follow_up": "Towels are provided.", "change": "Neutral"})
    first, second = parse_pairs(data, "pairs.jsonl")
    assert first == PairRecord("Gym at six.", "It is cancelled.", "p1", "t1", 1)
    assert (second.line, second.external_id, second.target_id, second.reference_change) == (3, None, None, "neutral")
    assert (first.text, first.benchmark, second.benchmark) == ("Gym at six.", 1, 2)


def test_our_csv_and_the_tvcp_release_csv():
    ours = parse_pairs(b"Target,Follow_Up,ID\n\"Rain, all day.\",It stopped.,r1\n", "pairs.csv")
    assert ours == [PairRecord("Rain, all day.", "It stopped.", "r1", None, 2)]
    tvcp = parse_pairs((HEADER + "Gym at six.,It is cancelled.,5,0,decreased\n"
                        "Gym at six.,It moved to seven.,5.0,5,neutral\n").encode(), "tvcp.csv")
    assert [(r.target, r.reference_alone, r.reference_given, r.reference_change) for r in tvcp] == [
        ("Gym at six.", 5, 0, "decreased"), ("Gym at six.", 5, 5, "neutral")]
    # a pandas index column (no name) is left aside
    indexed = parse_pairs((",context,follow_up,context_only_tv,combined_tv,change\n"
                           "0,Gym at six.,It is cancelled.,5,0,decreased\n").encode(), "tvcp.csv")
    assert indexed[0].reference_change == "decreased"


@pytest.mark.parametrize("name, data, line, reason", [
    ("p.csv", b"target,text\nRain.,It stopped.\n", 1,
     "the CSV header needs 'target' and 'follow_up' columns (optional: 'id', 'target_id'), or is the TVCP "
     "release's: context,follow_up,context_only_tv,combined_tv,change"),
    ("p.csv", b"context,follow_up,change\nRain.,It stopped.,neutral\n", 1,
     "a TVCP CSV needs the columns context,follow_up,context_only_tv,combined_tv,change "
     "(missing: context_only_tv, combined_tv)"),
    ("p.csv", b"target,follow_up,targetid\nRain.,It stopped.,t\n", 1, "unknown column targetid in the CSV header"),
    ("p.csv", b"target,follow_up,target\nRain.,It stopped.,Snow.\n", 1, "the column target appears twice in the CSV header"),
    ("p.csv", b"target,follow_up\nRain today.,\n", 2, "the follow-up is missing or empty"),
    ("p.csv", b"target,follow_up\n,It stopped.\n", 2, "the target is missing or empty"),
    ("p.csv", b"target,follow_up\n...,It stopped.\n", 2, "the target has no words"),
    ("p.csv", b"target,follow_up\nRain.,It stopped.,extra\n", 2, "the row has more fields than the header"),
    ("p.csv", b"target,follow_up\n\"Rain.,It stopped.\n", 2, "malformed CSV (a quoted field is never closed (a \" is missing))"),
    ("p.csv", (HEADER + "Rain.,It stopped.,3,x,neutral\n").encode(), 2,
     "combined_tv must be a class index from 0 to 11, not 'x'"),
    ("p.csv", (HEADER + "Rain.,It stopped.,-1,3,neutral\n").encode(), 2,
     "context_only_tv must be a class index from 0 to 11, not '-1'"),
    ("p.csv", (HEADER + "Rain.,It stopped.,2.5,3,neutral\n").encode(), 2,
     "context_only_tv must be a class index from 0 to 11, not '2.5'"),
    ("p.csv", (HEADER + "Rain.,It stopped.,2,3,same\n").encode(), 2,
     "change must be decreased, neutral or increased, not 'same'"),
    ("p.jsonl", jsonl({"target": "Rain.", "follow_up": "It stopped.", "combined_tv": True}), 1,
     "combined_tv must be a class index from 0 to 11, not true"),
    ("p.jsonl", jsonl({"target": "Rain.", "follow_up": "It stopped.", "change": 2}), 1,
     "change must be decreased, neutral or increased, not 2"),
    ("p.jsonl", jsonl({"target": "Rain.", "follow_up": "Ok."}, '{"target": "Rain."'), 2,
     "not valid JSON (Expecting ',' delimiter)"),
    ("p.jsonl", jsonl('["Rain.", "It stopped."]'), 1, "each line must be a JSON object"),
    ("p.jsonl", jsonl({"target": "Rain.", "followup": "It stopped."}), 1,
     "unknown field followup (a pair has target, follow_up, id, target_id, context_only_tv, combined_tv, change)"),
    ("p.jsonl", jsonl({"target": "Rain.", "context": "Snow.", "follow_up": "It stopped."}), 1,
     "give the target as 'target' or as 'context', not both"),
    ("p.jsonl", jsonl({"target": "Rain.", "follow_up": "x" * (MAX_TEXT_CHARS + 1)}), 1,
     f"the follow-up is longer than {MAX_TEXT_CHARS} characters"),
    ("p.jsonl", jsonl({"target": "x" * (MAX_TEXT_CHARS + 1), "follow_up": "It stopped."}), 1,
     f"the target is longer than {MAX_TEXT_CHARS} characters"),
    ("p.jsonl", jsonl({"target": "Rain.", "follow_up": "Stop\u0000ped."}), 1, "the follow-up contains a NUL character"),
    ("p.jsonl", jsonl({"id": "i" * (MAX_ID_CHARS + 1), "target": "Rain.", "follow_up": "It stopped."}), 1,
     f"id '{'i' * 38}… must be 1–{MAX_ID_CHARS} characters without spaces"),  # the value cut short
    ("p.jsonl", jsonl({"target_id": "t" * (MAX_ID_CHARS + 1), "target": "Rain.", "follow_up": "It stopped."}), 1,
     f"target_id '{'t' * 38}… must be 1–{MAX_ID_CHARS} characters without spaces"),
    ("p.jsonl", jsonl({"id": "a", "target": "Rain.", "follow_up": "It stopped."},
                      {"id": "a", "target": "Rain.", "follow_up": "It poured."}), 2, "id 'a' also appears on line 1"),
    ("p.jsonl", jsonl({"target_id": "t", "target": "Rain.", "follow_up": "It stopped."},
                      {"target_id": "t", "target": "Snow.", "follow_up": "It melted."}), 2,
     "target_id 't' names a different target on line 1"),
    ("p.jsonl", b"\n\n", 0, "the file contains no pairs"),
    ("p.txt", b"Rain.\n", 0, "unsupported file type '.txt'; use .jsonl or .csv"),
    ("p.jsonl", b'{"target": "Rain."}\n\xff', 2, "the file is not valid UTF-8 text"),
])
def test_every_refusal_names_the_line_and_the_reason(name, data, line, reason):
    err = fails(data, name)
    assert (err.line, err.reason) == (line, reason)


def test_a_file_too_large_or_too_long_is_refused_before_it_is_parsed(monkeypatch):
    def parsed(*args, **kwargs):
        raise AssertionError("the file was parsed")

    monkeypatch.setattr(pair_import, "read_pair", parsed)
    assert fails(b"x" * (MAX_IMPORT_BYTES + 1), "p.csv").reason == "the file is larger than 20 MB"
    assert fails(b"x\n" * 200_001, "p.jsonl").reason.startswith("the file has 200,001 lines")


def test_the_texts_at_their_limit_are_read():
    record, = parse_pairs(jsonl({"target": "t" * MAX_TEXT_CHARS, "follow_up": "f" * MAX_TEXT_CHARS,
                                 "id": "i" * MAX_ID_CHARS, "target_id": "k" * MAX_ID_CHARS}), "p.jsonl")
    assert (len(record.target), len(record.follow_up), len(record.target_id)) == (MAX_TEXT_CHARS,) * 2 + (MAX_ID_CHARS,)


def test_generated_target_keys_fit_the_id_rule():
    key = generated_target_key("Gym at six.")
    assert len(key) <= MAX_ID_CHARS and " " not in key
    assert key != generated_target_key("Gym at seven.")


@pytest.mark.parametrize("name, data, line", [
    ("texts.jsonl", b'{"text": "The shop is closed this week.", "id": "S-1"}\n', 1),
    ("texts.csv", b"id,text\nS-1,The shop is closed this week.\n", 1),
])
def test_a_texts_file_given_for_pairs_is_named_as_one(name, data, line):
    with pytest.raises(ImportFileError) as caught:
        parse_pairs(data, name)
    assert caught.value.line == line
    assert "reads as a texts file" in str(caught.value) and "single-texts project" in str(caught.value)


# --- this tool's own tvcp export, read back -----------------------------------------------------

def _exported_records():
    pairs = [PairGold("P-1", "T-1", "=HYPERLINK(\"x\") Job interview tomorrow.", "It moved to Friday.",
                      45.0, 10.0, 0.0, 56.53, 10.0, 0.0, n_annotations=2, reference_change="neutral"),
             PairGold("P-2", "T-1", "=HYPERLINK(\"x\") Job interview tomorrow.", "It was cancelled.",
                      45.0, 10.0, 0.0, 20.0, 10.0, 0.0, n_annotations=2)]
    return [tvcp_record(p, 1.5) for p in pairs]


def test_the_export_only_fields_are_the_tvcp_exports_keys_the_import_does_not_read():
    read = set(pair_import.TVCP_COLUMNS) | {pair_import.EXPORT_ID, "target_id"}
    assert set(TVCP_KEYS) == read | set(pair_import.EXPORT_ONLY_FIELDS)
    assert not read & set(pair_import.EXPORT_ONLY_FIELDS)


@pytest.mark.parametrize("shape", ["jsonl", "csv"])
def test_the_tvcp_exports_records_import_as_pairs_with_its_gold_as_reference(shape):
    records = _exported_records()
    data = ("".join(encode_record(r) + "\n" for r in records) if shape == "jsonl" else csv_text(records)).encode()
    got = parse_pairs(data, f"pairs.{shape}")
    assert [(p.external_id, p.target_id, p.target, p.follow_up) for p in got] == [
        (r["_id"], r["target_id"], r["context"], r["follow_up"]) for r in records]
    assert [(p.reference_alone, p.reference_given, p.reference_change) for p in got] == [
        (r["context_only_tv"], r["combined_tv"], r["change"]) for r in records]


def test_an_exported_record_with_an_unknown_field_or_two_ids_is_refused():
    record = _exported_records()[0]
    with pytest.raises(ImportFileError, match="unknown field xi_typo"):
        parse_pairs((encode_record(record | {"xi_typo": 1}) + "\n").encode(), "p.jsonl")
    with pytest.raises(ImportFileError, match="give the pair's id as 'id' or as '_id', not both"):
        parse_pairs((encode_record(record | {"id": "other"}) + "\n").encode(), "p.jsonl")
