"""Reading texts to annotate from JSON Lines, CSV or plain text — all or nothing.

A file either parses completely or raises :class:`ImportFileError` naming the line and the
problem; nothing is half-read. Records carry an optional id and benchmark; a missing benchmark is
inferred (1 for a single sentence, 2 for a multi-sentence passage). A record may also carry a
known outcome, ``stopped_holding_minutes``: the minutes after the text at which its statement
stopped holding (an office-holder who left on a known date) — a seed that scores the annotators'
calibration against what happened (:mod:`annotation.quality.expert_seeds`).

A file too large to be a project's texts is refused before it is parsed: first by its size in
bytes (:func:`check_file_size`, which a caller can run before even reading the file), then by
its number of lines, counted on the bytes (:func:`count_lines`: a few scans, ~0.05 s at 17 MB).
Parsing costs ~25 µs a line (tokenising each text), so a 1M-line file took 27 s and +316 MB
before the end of it was reached.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Callable

from annotation.corpus.json_lines import decode_json_line, numbered_json_lines
from annotation.segmentation import tokenize
from annotation.text_limits import MAX_TEXT_CHARS
from annotation.timeaxis import DEFAULT_BASE, X_MAX
from annotation.wording import shown

#: the largest file imported (also the app's upload limit, ``server.maxUploadSize``)
MAX_IMPORT_BYTES = 20 * 1024 * 1024
#: the most lines a file may have: a project holds up to 100k texts (SPEC §1); twice that leaves
#: room for blank lines and CSV fields that span lines
MAX_IMPORT_LINES = 200_000
MAX_ID_CHARS = 64
FORMATS = ("jsonl", "csv", "txt")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+[\"'(\[]?[A-Z0-9]")


#: digits of the number in a generated id when the project has no numbered id of that benchmark
#: yet: the Chronocept release's width (``B1-00042``)
ID_DIGITS = 5


class SampleNumbering:
    """The ids an import gives texts without one: ``B<benchmark>-<number>``, going on from the
    project's highest number of that benchmark at the width that id is written in — the demo
    project's ``B1-0050`` is followed by ``B1-0051``, a new project starts at ``B1-00001`` — so a
    project's ids read as one series. Ids already given never change, and a generated id is never
    one in use (an id named later in the same file included).

    Examples:
        >>> n = SampleNumbering(["B1-0049", "B1-0050", "B2-00007", "Z-1"])
        >>> n.next(1, lambda i: False), n.next(1, lambda i: i == "B1-0052"), n.next(2, lambda i: False)
        ('B1-0051', 'B1-0053', 'B2-00008')
        >>> SampleNumbering([]).next(1, lambda i: False), SampleNumbering(["B1-9999"]).next(1, lambda i: False)
        ('B1-00001', 'B1-10000')
    """

    def __init__(self, existing_ids: Iterable[str]) -> None:
        self._last: dict[int, tuple[int, int]] = {}  # benchmark -> (highest number, its width)
        for ext in existing_ids:
            prefix, _, digits = ext.partition("-")
            if prefix in ("B1", "B2") and digits.isascii() and digits.isdigit():
                benchmark, number = int(prefix[1]), int(digits)
                if number >= self._last.get(benchmark, (-1, 0))[0]:
                    self._last[benchmark] = (number, len(digits))

    def next(self, benchmark: int, taken: Callable[[str], bool]) -> str:
        """The next id of ``benchmark`` that ``taken`` does not refuse (the numbering moves on)."""
        number, width = self._last.get(benchmark, (0, ID_DIGITS))
        while True:
            number += 1
            ext_id = f"B{benchmark}-{number:0{width}d}"
            if not taken(ext_id):
                self._last[benchmark] = (number, width)
                return ext_id


class ImportFileError(ValueError):
    """The file cannot be imported; ``line`` is 1-based (0 for the whole file)."""

    def __init__(self, line: int, reason: str):
        self.line, self.reason = line, reason
        super().__init__(f"line {line}: {reason}" if line else reason)


@dataclass(frozen=True)
class TextRecord:
    text: str
    benchmark: int
    external_id: str | None
    line: int
    realised_minutes: float | None = None


def infer_benchmark(text: str) -> int:
    """2 when the text has more than one sentence, else 1.

    Examples:
        >>> infer_benchmark("The shop is closed."), infer_benchmark("It is closed. It opens on Monday.")
        (1, 2)
    """
    return 2 if _SENTENCE_END.search(text.strip()) else 1


def detect_format(filename: str, formats: tuple[str, ...] = FORMATS) -> str:
    """Format from the file extension (.jsonl/.json/.ndjson, .csv, .txt), one of ``formats``.

    Examples:
        >>> detect_format("texts.NDJSON"), detect_format("texts.csv")
        ('jsonl', 'csv')
        >>> try:
        ...     detect_format("pairs.txt", ("jsonl", "csv"))
        ... except ImportFileError as exc:
        ...     print(exc)
        unsupported file type '.txt'; use .jsonl or .csv
    """
    ext = PurePath(filename).suffix.lower().lstrip(".")
    fmt = "jsonl" if ext in ("jsonl", "ndjson", "json") else ext
    if fmt not in formats:
        named = [f".{f}" for f in formats]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
        raise ImportFileError(0, f"unsupported file type '.{ext}'; use {listed}")
    return fmt


#: what :meth:`str.splitlines` splits on, as UTF-8 bytes (none of them occurs inside another
#: character's encoding); ``\r\n`` is one break. The multi-byte ones are looked for only in a
#: file that is not plain ASCII (each scan of 17 MB takes ~20 ms, the ASCII check ~1 ms).
_ASCII_LINE_BREAKS = (b"\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_LINE_BREAKS = _ASCII_LINE_BREAKS + ("\x85".encode(), "\u2028".encode(), "\u2029".encode())


def count_lines(data: bytes) -> int:
    """The number of lines :meth:`str.splitlines` finds in ``data`` decoded as UTF-8, counted on
    the bytes without decoding them.

    Examples:
        >>> count_lines(b"one\\ntwo\\r\\nthree"), count_lines(b"a\\rb\\rc\\n"), count_lines(b"")
        (3, 3, 0)
        >>> text = "a\\u2028b\\x0cc\\r\\n\\nd"
        >>> count_lines(text.encode()) == len(text.splitlines())
        True
    """
    if not data:
        return 0
    breaks = sum(data.count(b) for b in (_ASCII_LINE_BREAKS if data.isascii() else _LINE_BREAKS))
    if b"\r" in data:
        breaks -= data.count(b"\r\n")
    return breaks + (0 if data.endswith(_LINE_BREAKS) else 1)


def check_file_size(n_bytes: int) -> None:
    """Refuse a file of ``n_bytes`` bytes that is too large to import — before it is read.

    Examples:
        >>> check_file_size(MAX_IMPORT_BYTES)
        >>> try:
        ...     check_file_size(MAX_IMPORT_BYTES + 1)
        ... except ImportFileError as exc:
        ...     print(exc)
        the file is larger than 20 MB
    """
    if n_bytes > MAX_IMPORT_BYTES:
        raise ImportFileError(0, f"the file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB")


def check_line_count(data: bytes) -> None:
    """Refuse ``data`` when it has more than :data:`MAX_IMPORT_LINES` lines (:func:`count_lines`).

    Examples:
        >>> check_line_count(b"one\\ntwo\\n")
        >>> try:
        ...     check_line_count(b"x\\n" * (MAX_IMPORT_LINES + 1))
        ... except ImportFileError as exc:
        ...     print(exc.reason[:50])
        the file has 200,001 lines; at most 200,000 are im
    """
    n_lines = count_lines(data)
    if n_lines > MAX_IMPORT_LINES:
        raise ImportFileError(0, f"the file has {n_lines:,} lines; at most {MAX_IMPORT_LINES:,} are imported "
                                 "at once (split it into several files)")


def read_import(data: bytes, filename: str, formats: tuple[str, ...] = FORMATS) -> tuple[str, str]:
    """The format (from the name, one of ``formats``) and the decoded text of an uploaded file,
    after the checks that come before any parsing: its size, its type, its number of lines,
    UTF-8. Every import of a file (texts, pairs) starts here.

    Examples:
        >>> read_import(b"\\xef\\xbb\\xbftarget,follow_up\\n", "pairs.csv", ("jsonl", "csv"))
        ('csv', 'target,follow_up\\n')
        >>> try:
        ...     read_import(b"ok\\n\\xff", "t.txt")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 2: the file is not valid UTF-8 text
    """
    check_file_size(len(data))
    fmt = detect_format(filename, formats)
    check_line_count(data)
    try:
        return fmt, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportFileError(line, "the file is not valid UTF-8 text") from None


def parse_texts(data: bytes, filename: str, *, default_benchmark: int | None = None) -> list[TextRecord]:
    """Parse an uploaded file into records; raises :class:`ImportFileError` on the first problem.
    The file's size and number of lines are checked before anything is parsed.

    Examples:
        >>> [(r.line, r.text, r.benchmark) for r in parse_texts(b"Rain today.\\n\\nSun. Then rain.", "t.txt")]
        [(1, 'Rain today.', 1), (3, 'Sun. Then rain.', 2)]
        >>> try:
        ...     parse_texts(b'{"text": "Rain today."}\\n{"text": ""}', "t.jsonl")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 2: the text is missing or empty
    """
    fmt, content = read_import(data, filename)
    if default_benchmark not in (None, 1, 2):
        raise ImportFileError(0, "the benchmark must be 1 or 2")
    rows = {"jsonl": _rows_jsonl, "csv": _rows_csv, "txt": _rows_txt}[fmt](content)
    records: list[TextRecord] = []
    seen_ids: dict[str, int] = {}
    for line, text, bench, ext_id, stopped in rows:
        records.append(_record(line, text, bench, ext_id, default_benchmark, stopped))
        rid = records[-1].external_id
        if rid is not None:
            if rid in seen_ids:
                raise ImportFileError(line, f"id {rid!r} also appears on line {seen_ids[rid]}")
            seen_ids[rid] = line
    if not records:
        raise ImportFileError(0, "the file contains no texts")
    return records


def _record(line: int, text: object, bench: object, ext_id: object,
            default_benchmark: int | None, stopped: object = None) -> TextRecord:
    text = clean_text(line, text)
    if bench in (None, ""):
        benchmark = default_benchmark or infer_benchmark(text)
    else:
        try:
            benchmark = int(str(bench).strip())
        except ValueError:
            benchmark = 0
        if benchmark not in (1, 2):
            raise ImportFileError(line, f"benchmark must be 1 or 2, not {shown(bench)}")
    return TextRecord(text, benchmark, clean_id(line, ext_id), line, realised_minutes(line, stopped))


#: the latest known outcome: the time axis's end (1.1 ** 200 minutes, about 360 years)
MAX_REALISED_MINUTES = DEFAULT_BASE ** X_MAX


def realised_minutes(line: int, value: object) -> float | None:
    """A record's ``stopped_holding_minutes``: None when absent or blank, else a number of
    minutes from 1 (the axis's start) to :data:`MAX_REALISED_MINUTES`; :class:`ImportFileError`
    on ``line`` otherwise.

    Examples:
        >>> realised_minutes(1, "1440"), realised_minutes(2, None), realised_minutes(3, 90)
        (1440.0, None, 90.0)
        >>> try:
        ...     realised_minutes(4, "-3")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 4: stopped_holding_minutes must be a number of minutes from 1 to 1.9e+08, not '-3'
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        minutes = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        minutes = math.nan
    if not (1.0 <= minutes <= MAX_REALISED_MINUTES):
        raise ImportFileError(line, f"stopped_holding_minutes must be a number of minutes from 1 to "
                                    f"{MAX_REALISED_MINUTES:.2g}, not {shown(value)}")
    return minutes


def clean_text(line: int, text: object, what: str = "text") -> str:
    """``text`` stripped, when it may be annotated: present, at most :data:`MAX_TEXT_CHARS`
    characters, with a word, without NUL; :class:`ImportFileError` on ``line`` otherwise.
    ``what`` names it in the message (a pair's "target", "follow-up").

    Examples:
        >>> clean_text(3, "  Rain today. ")
        'Rain today.'
        >>> try:
        ...     clean_text(3, " -- ", "follow-up")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 3: the follow-up has no words
    """
    if not isinstance(text, str) or not text.strip():
        raise ImportFileError(line, f"the {what} is missing or empty")
    text = text.strip()
    if len(text) > MAX_TEXT_CHARS:
        raise ImportFileError(line, f"the {what} is longer than {MAX_TEXT_CHARS} characters")
    if not any(any(ch.isalnum() for ch in tok.text) for tok in tokenize(text)):
        raise ImportFileError(line, f"the {what} has no words")
    if "\x00" in text:
        raise ImportFileError(line, f"the {what} contains a NUL character")
    return text


def clean_id(line: int, value: object, what: str = "id") -> str | None:
    """An id from a file (a text's, a pair's, a target's): None when absent, else 1–
    :data:`MAX_ID_CHARS` characters without spaces (the width of ``samples.external_id``). A
    JSON whole number is read as its digits; any other value that is not text (``true``,
    ``NaN``, ``Infinity``, ``1.5``, a list) is refused — written as text it would become an id
    the file never gave ("True", "nan").

    Examples:
        >>> clean_id(1, None), clean_id(1, " B1-7 "), clean_id(1, 42)
        (None, 'B1-7', '42')
        >>> try:
        ...     clean_id(2, "a b", "target_id")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 2: target_id 'a b' must be 1–64 characters without spaces
        >>> try:
        ...     clean_id(3, float("nan"))
        ... except ImportFileError as exc:
        ...     print(exc)
        line 3: id must be text or a whole number, not NaN
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ImportFileError(line, f"{what} must be text or a whole number, not {shown(value)}")
    rid = str(value).strip()
    if not rid or len(rid) > MAX_ID_CHARS or any(c.isspace() for c in rid):
        raise ImportFileError(line, f"{what} {shown(value)} must be 1–{MAX_ID_CHARS} characters without spaces")
    return rid


def _rows_jsonl(content: str):  # type: ignore[no-untyped-def]
    for n, obj in json_objects(content):
        text = obj.get("text", obj.get("parent_text"))
        yield n, text, obj.get("benchmark"), obj.get("id", obj.get("_id")), obj.get("stopped_holding_minutes")


def json_objects(content: str):  # type: ignore[no-untyped-def]
    """The JSON object on each non-blank line of ``content``, with its 1-based line number;
    :class:`ImportFileError` for a line that is not one.

    Examples:
        >>> list(json_objects('{"a": 1}\\n\\n{"b": 2}'))
        [(1, {'a': 1}), (3, {'b': 2})]
    """
    for n, raw in numbered_json_lines(content):
        obj = decode_json_line(raw, n, ImportFileError)
        if not isinstance(obj, dict):
            raise ImportFileError(n, "each line must be a JSON object")
        yield n, obj


def _check_text_header(fields: list[str]) -> None:
    if "text" not in fields and "parent_text" not in fields:
        raise ImportFileError(1, "the CSV header needs a 'text' column (optional: 'id', 'benchmark')")


def _rows_csv(content: str):  # type: ignore[no-untyped-def]
    for n, row in csv_rows(content, _check_text_header):
        yield (n, row.get("text", row.get("parent_text")), row.get("benchmark"), row.get("id"),
               row.get("stopped_holding_minutes"))


def csv_rows(content: str, check_header: Callable[[list[str]], None]):  # type: ignore[no-untyped-def]
    """The non-blank records of a CSV file as dicts keyed by the header's names (stripped,
    lower case), with the line each ends on; ``check_header`` refuses a header that lacks what
    the import needs. Strict: an unterminated quote or text after a closing quote is an error
    naming the line where the bad record starts, never read silently as one long field.

    Examples:
        >>> list(csv_rows('Text,ID\\n"Rain, today",a\\n\\nSun,b', lambda fields: None))
        [(2, {'text': 'Rain, today', 'id': 'a'}), (4, {'text': 'Sun', 'id': 'b'})]
    """
    reader = csv.DictReader(io.StringIO(content), strict=True)
    start = 1  # the line where the record being read starts (a quoted field may span lines)
    try:
        fields = [f.strip().lower() for f in (reader.fieldnames or [])]
        check_header(fields)
        reader.fieldnames = fields
        start = reader.line_num + 1
        for row in reader:
            n = reader.line_num
            start = n + 1
            if None in row:
                raise ImportFileError(n, "the row has more fields than the header")
            if not any((v or "").strip() for v in row.values()):
                continue
            yield n, row
    except csv.Error as exc:
        reason = _csv_reason(str(exc))
        lines = content.splitlines()
        while start <= len(lines) and not lines[start - 1].strip():
            start += 1  # blank lines between records are skipped by the reader
        raise ImportFileError(start, f"malformed CSV ({reason})") from None


#: What the csv module's errors mean, in the words of someone who wrote the file (its own words
#: speak of Python's file modes and quote characters by their C names).
_CSV_REASONS = (
    ("unexpected end of data", 'a quoted field is never closed (a " is missing)'),
    ("new-line character seen in unquoted field", "a line break in the middle of a field that is not in quotes"),
    ("expected after", 'text after the closing " of a quoted field (quote the whole field)'),
    ("field larger than field limit", "a field is longer than the reader allows"),
    ("line contains nul", "a NUL character"),
)


def _csv_reason(error: str) -> str:
    """The reason a malformed CSV file gives (:data:`_CSV_REASONS`).

    >>> _csv_reason("new-line character seen in unquoted field - do you need to open the file ...?")
    'a line break in the middle of a field that is not in quotes'
    >>> _csv_reason("',' expected after '\\"'")
    'text after the closing " of a quoted field (quote the whole field)'
    """
    lowered = error.lower()
    return next((reason for known, reason in _CSV_REASONS if known in lowered), "it cannot be read as CSV")


def _rows_txt(content: str):  # type: ignore[no-untyped-def]
    for n, raw in enumerate(content.splitlines(), start=1):
        if raw.strip():
            yield n, raw, None, None, None
