"""Reading texts to annotate from JSON Lines, CSV or plain text: all or nothing, and a bad file
names its line and the problem (SPEC section 7, import; section 10, uploads validated)."""

from __future__ import annotations

import json
import time

import pytest

from annotation.corpus import text_import
from annotation.corpus.text_import import MAX_ID_CHARS, MAX_IMPORT_BYTES, MAX_IMPORT_LINES, ImportFileError, TextRecord, count_lines, detect_format, infer_benchmark, parse_texts
from annotation.text_limits import MAX_TEXT_CHARS


def jsonl(*rows) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows).encode()


def fails(data: bytes, filename: str, **kw) -> ImportFileError:
    with pytest.raises(ImportFileError) as exc:
        parse_texts(data, filename, **kw)
    return exc.value


# --- good files ------------------------------------------------------------------------------


def test_jsonl_good_file():
    data = jsonl({"id": "B1-1", "benchmark": 1, "text": "The bakery is closed this week."},
                 "",  # blank lines are skipped but still counted
                 {"_id": "B2-1", "parent_text": "The road is shut. It opens on Monday.", "benchmark": "2"},
                 {"text": "  Snow is falling.  "})
    recs = parse_texts(data, "texts.jsonl")
    assert recs == [
        TextRecord("The bakery is closed this week.", 1, "B1-1", 1),
        TextRecord("The road is shut. It opens on Monday.", 2, "B2-1", 3),
        TextRecord("Snow is falling.", 1, None, 4),
    ]


@pytest.mark.parametrize("name", ["a.jsonl", "a.JSONL", "a.ndjson", "a.json", "dir/b.jsonl"])
def test_jsonl_extensions(name):
    assert detect_format(name) == "jsonl"
    assert len(parse_texts(jsonl({"text": "Hello there."}), name)) == 1


def test_jsonl_with_byte_order_mark_and_crlf():
    data = "\ufeff" + json.dumps({"text": "First."}) + "\r\n" + json.dumps({"text": "Second."}) + "\r\n"
    recs = parse_texts(data.encode("utf-8"), "t.jsonl")
    assert [(r.text, r.line) for r in recs] == [("First.", 1), ("Second.", 2)]


def test_csv_good_file():
    data = (b"ID,Text,Benchmark\n"
            b"c-1,\"The shop, on Elm Street, is closed.\",1\n"
            b"\n"
            b"c-2,The road is shut. It opens on Monday.,\n"
            b",No id here.,2\n")
    recs = parse_texts(data, "t.csv")
    assert recs == [
        TextRecord("The shop, on Elm Street, is closed.", 1, "c-1", 2),
        TextRecord("The road is shut. It opens on Monday.", 2, "c-2", 4),  # inferred
        TextRecord("No id here.", 2, None, 5),
    ]


def test_csv_with_only_a_text_column_and_parent_text_header():
    assert [r.text for r in parse_texts(b"text\nOne.\nTwo.\n", "t.csv")] == ["One.", "Two."]
    assert [r.text for r in parse_texts(b"parent_text\nOne.\n", "t.csv")] == ["One."]


def test_csv_quoted_text_may_span_lines():
    recs = parse_texts(b'text,id\n"first part\nsecond part",m-1\nnext one,m-2\n', "t.csv")
    assert [r.text for r in recs] == ["first part\nsecond part", "next one"]
    assert recs[1].line == 4


def test_txt_good_file():
    data = "The bakery is closed.\n\n   \nThe road is shut. It opens on Monday.\nÇa va.\n".encode()
    recs = parse_texts(data, "t.txt")
    assert recs == [
        TextRecord("The bakery is closed.", 1, None, 1),
        TextRecord("The road is shut. It opens on Monday.", 2, None, 4),
        TextRecord("Ça va.", 1, None, 5),
    ]


def test_default_benchmark_applies_only_where_none_is_given():
    data = jsonl({"text": "One. Two sentences here."}, {"text": "Single.", "benchmark": 2})
    recs = parse_texts(data, "t.jsonl", default_benchmark=1)
    assert [r.benchmark for r in recs] == [1, 2]
    assert [r.benchmark for r in parse_texts(b"Just one.\n", "t.txt", default_benchmark=2)] == [2]


def test_text_of_the_maximum_length_is_accepted():
    text = ("word " * (MAX_TEXT_CHARS // 5))[:MAX_TEXT_CHARS].strip() + "."
    text = text[:MAX_TEXT_CHARS]
    assert len(parse_texts(jsonl({"text": text}), "t.jsonl")[0].text) == len(text)


# --- benchmark inference ---------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("The bakery on Elm Street is closed for renovation this week.", 1),
    ("The train leaves at 8:15 and costs 3.50 pounds.", 1),
    ("Is the shop open?", 1),
    ("The shop is closed. It opens again on Monday.", 2),
    ("Stop! The bridge is closed.", 2),
    ("Is it open? Nobody knows.", 2),
    ('He said "Go home." Then he left.', 2),
    ("The match ends. (Extra time follows.)", 2),
    ("Prices rise. 2026 is expensive.", 2),
    ("  Trailing space after one sentence.   ", 1),
])
def test_infer_benchmark(text, expected):
    assert infer_benchmark(text) == expected


# --- malformed files -------------------------------------------------------------------------


def test_bad_json_names_the_line():
    data = jsonl({"text": "fine"}, {"text": "fine too"}, '{"text": "broken",', {"text": "x"})
    err = fails(data, "t.jsonl")
    assert err.line == 3
    assert "not valid JSON" in err.reason
    assert str(err).startswith("line 3: ")


@pytest.mark.parametrize("row", ['["a list"]', '"a string"', "42", "null"])
def test_non_object_line(row):
    err = fails(jsonl({"text": "ok"}, row), "t.jsonl")
    assert (err.line, err.reason) == (2, "each line must be a JSON object")


@pytest.mark.parametrize("row", [{"id": "x"}, {"text": ""}, {"text": "   "}, {"text": None},
                                 {"text": 12}, {"text": ["a"]}])
def test_missing_text(row):
    err = fails(jsonl({"text": "ok"}, row), "t.jsonl")
    assert (err.line, err.reason) == (2, "the text is missing or empty")


@pytest.mark.parametrize("bench", [3, 0, "three", True, [1], "1.5"])
def test_bad_benchmark(bench):
    err = fails(jsonl({"text": "ok"}, {"text": "fine", "benchmark": bench}), "t.jsonl")
    assert err.line == 2
    assert "benchmark must be 1 or 2" in err.reason


def test_bad_benchmark_in_csv():
    err = fails(b"text,benchmark\nok,1\nfine,7\n", "t.csv")
    assert err.line == 3 and "benchmark must be 1 or 2" in err.reason


def test_bad_default_benchmark():
    err = fails(b"A text.\n", "t.txt", default_benchmark=3)
    assert err.line == 0 and "benchmark" in err.reason


def test_duplicate_id_within_file_names_both_lines():
    data = jsonl({"id": "a", "text": "one"}, {"id": "b", "text": "two"}, {"id": "a", "text": "three"})
    err = fails(data, "t.jsonl")
    assert err.line == 3
    assert "'a'" in err.reason and "line 1" in err.reason


def test_duplicate_id_in_csv():
    err = fails(b"id,text\nx,one\ny,two\nx,three\n", "t.csv")
    assert err.line == 4 and "line 2" in err.reason


@pytest.mark.parametrize("bad_id", ["has space", "x" * (MAX_ID_CHARS + 1), "tab\there"])
def test_bad_ids(bad_id):
    err = fails(jsonl({"text": "ok"}, {"text": "fine", "id": bad_id}), "t.jsonl")
    assert err.line == 2 and "id" in err.reason


def test_numeric_id_becomes_a_string():
    assert parse_texts(jsonl({"text": "ok", "id": 17}), "t.jsonl")[0].external_id == "17"


def test_non_utf8_names_the_line():
    data = "first line\nsecond line\n".encode() + b"caf\xe9 latin-1\nlast\n"
    err = fails(data, "t.txt")
    assert err.line == 3
    assert "UTF-8" in err.reason
    err = fails(b"\xff\xfe\x00t\x00e\x00x\x00t", "t.jsonl")  # UTF-16 file
    assert err.line == 1 and "UTF-8" in err.reason


@pytest.mark.parametrize("data", [b"id,benchmark\na,1\n", b"body\nhello\n", b"\n"])
def test_csv_without_text_column(data):
    err = fails(data, "t.csv")
    assert err.line == 1 and "'text' column" in err.reason


def test_csv_with_too_many_fields():
    err = fails(b"id,text\na,fine\nb,too,many\n", "t.csv")
    assert (err.line, err.reason) == (3, "the row has more fields than the header")


def test_oversized_file_is_refused_before_parsing():
    data = b"x" * (MAX_IMPORT_BYTES + 1)
    err = fails(data, "t.txt")
    assert err.line == 0 and "larger than 20 MB" in err.reason
    assert str(err) == err.reason  # no "line 0:" prefix for whole-file problems


def million_lines() -> bytes:
    """1M short lines, 17 MB: under the byte limit, far over the line limit."""
    return b"".join(b"Shop %06d open\n" % i for i in range(1_000_000))


@pytest.fixture
def nothing_parsed(monkeypatch):
    """Parsing a line fails the test: a refusal must come before it (it took 27 s at 1M lines)."""
    def parsed(*args, **kwargs):
        raise AssertionError("the file was parsed")

    for reader in ("_rows_jsonl", "_rows_csv", "_rows_txt", "tokenize"):
        monkeypatch.setattr(text_import, reader, parsed)


@pytest.mark.parametrize("name", ["t.txt", "t.jsonl", "t.csv"])
def test_a_million_line_file_is_refused_at_once_without_being_parsed(nothing_parsed, name):
    data = million_lines()
    assert len(data) <= MAX_IMPORT_BYTES
    # this process's CPU time, not the wall clock: "at once" is the work done (parsing the
    # million lines took 27 s), which other processes on a busy machine do not lengthen
    started = time.process_time()
    err = fails(data, name)
    seconds = time.process_time() - started
    assert err.line == 0 and err.reason.startswith("the file has 1,000,000 lines; at most 200,000")
    assert seconds < 0.5, f"refused after {seconds:.2f} s of CPU"


@pytest.mark.parametrize("data", [b"x\r" * (MAX_IMPORT_LINES + 1), "x\u2028".encode() * (MAX_IMPORT_LINES + 1),
                                  "é\x85".encode() * (MAX_IMPORT_LINES + 1), b"x\x0c" * (MAX_IMPORT_LINES + 1),
                                  b"x\r\n" * MAX_IMPORT_LINES + b"x"])
def test_every_kind_of_line_break_counts(nothing_parsed, data):
    # the readers split lines as str.splitlines does: a file cannot slip past with \r or U+2028
    assert count_lines(data) == len(data.decode().splitlines()) == MAX_IMPORT_LINES + 1
    assert "lines; at most" in fails(data, "t.txt").reason


def test_a_file_at_the_line_limit_is_parsed(monkeypatch):
    monkeypatch.setattr(text_import, "MAX_IMPORT_LINES", 3)
    assert len(parse_texts(b"One text.\n\nTwo texts.\n", "t.txt")) == 2
    assert fails(b"One text.\n\nTwo texts.\nThree.", "t.txt").reason.startswith("the file has 4 lines")


def test_the_size_is_checked_before_the_lines(nothing_parsed):
    err = fails(b"\n" * (MAX_IMPORT_BYTES + 1), "t.txt")
    assert "larger than 20 MB" in err.reason


@pytest.mark.parametrize("name", ["t.xlsx", "t.docx", "noextension", "t.csv.gz", "t.pdf"])
def test_unsupported_extension(name):
    err = fails(b"text\nhello\n", name)
    assert err.line == 0 and "unsupported file type" in err.reason


@pytest.mark.parametrize("data,name", [
    (b"", "t.txt"), (b"", "t.jsonl"), (b"\n\n  \n", "t.txt"), (b"\n\n", "t.jsonl"),
    (b"text,id\n", "t.csv"), (b'text,id\n\n"",\n', "t.csv"), (b"\xef\xbb\xbf", "t.txt"),
])
def test_empty_file(data, name):
    err = fails(data, name)
    assert err.line == 0 and err.reason == "the file contains no texts"


def test_text_too_long():
    err = fails(jsonl({"text": "ok"}, {"text": "a" * (MAX_TEXT_CHARS + 1)}), "t.jsonl")
    assert err.line == 2 and "longer than" in err.reason


def test_text_with_nul_character():
    err = fails(jsonl({"text": "ok"}, {"text": "bad\u0000text"}), "t.jsonl")
    assert err.line == 2 and "NUL" in err.reason


def test_first_problem_wins_and_nothing_is_returned_half_read():
    data = jsonl({"text": "good"}, {"text": ""}, "not json")
    err = fails(data, "t.jsonl")
    assert err.line == 2  # the first problem, not the last


@pytest.mark.parametrize("name, data, line", [
    ("p.txt", b"A real sentence here.\n!!! ...\n", 2),
    ("p.jsonl", b'{"text": "--"}\n', 1),
])
def test_punctuation_only_text_is_refused(name, data, line):
    with pytest.raises(ImportFileError) as err:
        parse_texts(data, name)
    assert err.value.line == line and "no words" in err.value.reason


# --- issue 9: hostile files are refused with their line, never a traceback -----------------------

@pytest.mark.parametrize("raw, reason", [
    ("[" * 100_000, "the JSON is nested too deeply"),
    ('{"text": ' * 100_000, "the JSON is nested too deeply"),
    ('{"text": "Fine.", "id": 1' + "0" * 5000 + "}", "a number has too many digits"),
])
def test_hostile_json_lines_name_their_line(raw, reason):
    data = ('{"text": "The pool is closed today."}\n' + raw + "\n").encode()
    with pytest.raises(ImportFileError) as err:
        parse_texts(data, "t.jsonl")
    assert err.value.line == 2 and reason in err.value.reason


@pytest.mark.parametrize("data, line", [
    (b'text,id\nThe pool is closed.,a\n"The shop is shut,b\nThe bakery opens.,c\n', 3),  # never closed
    (b'text,id\nThe pool is closed.,a\n\n\n"The shop is shut,b\n', 5),
    (b'text,id\n"The shop" is shut,b\n', 2),  # text after the closing quote
])
def test_csv_with_an_unterminated_or_broken_quote_is_refused(data, line):
    with pytest.raises(ImportFileError) as err:
        parse_texts(data, "t.csv")
    assert err.value.line == line and "malformed CSV" in err.value.reason


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c"])
def test_a_json_lines_text_holding_a_unicode_line_separator_is_one_record(separator):
    """JSON Lines ends a line at "\\n" only; the export writes U+2028 in a text as it is, so a
    texts file taken from an export must read back with the text whole (str.splitlines cut it in two
    and the file was refused as "not valid JSON")."""
    text = f"The shop on Elm Street{separator}is closed this week."
    data = (json.dumps({"text": text, "id": "X-1"}, ensure_ascii=False) + "\n"
            + json.dumps({"text": "Rain is expected tomorrow.", "id": "X-2"}) + "\n").encode()
    records = parse_texts(data, "texts.jsonl")
    assert [(r.text, r.external_id, r.line) for r in records] == [
        (text, "X-1", 1), ("Rain is expected tomorrow.", "X-2", 2)]
