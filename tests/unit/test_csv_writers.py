"""Every CSV the app or the export writes is on one side of one rule
(:mod:`annotation.corpus.csv_safety`): a file meant for a person to open in a spreadsheet is
neutralised by ``safe_csv``; a file that is data for code — the export folder, a training run's
artefacts — keeps every value exactly.

The writers are found in the source, not listed from memory: every line that calls ``.to_csv(``,
``csv.writer(``, ``DictWriter(``, ``safe_csv(`` or ``download_button(``, or names a ``.csv`` file
it writes, opens, saves or offers for download. Each (file, kind) found must be classified below
with its count, so a new writer — or one more in a known file — fails here until someone puts it
on a side. The files' behaviour on formula texts is checked end to end elsewhere: the dataset side
in tests/service/test_csv_rule.py and test_training_runner's artefacts, the page side in
tests/pages/test_page_export_downloads.py and test_page_table_export.py."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: where the app, the command line, the export and the benchmarks live (tests are not shipped)
SOURCES = ("annotation", "cli", "screens", "ui", "db", "bench", "scripts")

KINDS: dict[str, re.Pattern[str]] = {
    "to_csv": re.compile(r"\.to_csv\("),
    "csv.writer": re.compile(r"\bcsv\.writer\("),
    "DictWriter": re.compile(r"\bDictWriter\("),
    "safe_csv": re.compile(r"\bsafe_csv\("),
    "download_button": re.compile(r"\bdownload_button\("),
}
#: a line naming a ``.csv`` file and writing, opening, saving or offering it
_NAMED_CSV = re.compile(r"\.csv\b")
_WRITES = re.compile(r"(?i)write|open\(|download|save")

PERSON = "for a person to open in a spreadsheet: neutralised by safe_csv"
DATASET = "the dataset itself: every value exactly"
ARTEFACT = "a training run's machine-readable artefact: every value exactly"
WRITER = "the neutralising writer itself"
NOT_CSV = "no CSV written by the app"

#: (file, kind) → (how many, side of the rule, why)
CLASSIFIED: dict[tuple[str, str], tuple[int, str, str]] = {
    ("annotation/corpus/csv_safety.py", "to_csv"): (1, WRITER, "safe_csv writes the neutralised frame"),
    ("annotation/corpus/csv_safety.py", "safe_csv"): (1, WRITER, "its definition"),
    ("annotation/export/tvcp.py", "csv.writer"): (1, DATASET, "tvcp/*.csv, what the TVCP reader trains on"),
    ("annotation/export/reader.py", "safe_csv"): (1, PERSON, "the Export page's pairs for a spreadsheet"),
    ("annotation/agreement/__init__.py", "to_csv"): (1, NOT_CSV, "a docstring's example of a script's own file"),
    ("annotation/training/runner.py", "to_csv"): (1, ARTEFACT, "predictions/<model>.csv of a run"),
    ("annotation/training/runner.py", "named .csv"): (2, ARTEFACT, "loss_curve.csv (numbers) and predictions"),
    ("screens/annotators.py", "download_button"): (1, PERSON, "the per-annotator table, written by safe_csv"),
    ("screens/annotators.py", "safe_csv"): (1, PERSON, "the per-annotator table"),
    ("screens/export.py", "download_button"): (2, DATASET, "the zip is the dataset folder byte for byte; "
                                                          "beside it the pairs for a spreadsheet (safe_csv)"),
    ("screens/agreement.py", "named .csv"): (1, PERSON, "show_table(download=…): ui.table_download"),
    ("screens/training.py", "named .csv"): (1, PERSON, "show_table(download=…): ui.table_download"),
    ("screens/users.py", "named .csv"): (1, PERSON, "show_table(download=…): ui.table_download"),
    ("screens/warmup.py", "named .csv"): (1, PERSON, "show_table(download=…): ui.table_download"),
    ("ui/model_scores.py", "named .csv"): (1, PERSON, "show_table(download=…): ui.table_download"),
    ("ui/tables.py", "named .csv"): (1, PERSON, "show_table's download goes to ui.table_download"),
    ("ui/table_download.py", "download_button"): (1, PERSON, "every table download: data from safe_csv"),
    ("ui/table_download.py", "safe_csv"): (2, PERSON, "at once, or prepared on request"),
}


def _sources() -> list[Path]:
    return [REPO_ROOT / "app.py", *(p for d in SOURCES for p in sorted((REPO_ROOT / d).rglob("*.py")))]


def found_writers() -> Counter[tuple[str, str]]:
    """How many lines of each (file, kind) write a CSV (module docstring)."""
    found: Counter[tuple[str, str]] = Counter()
    for path in _sources():
        name = path.relative_to(REPO_ROOT).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            for kind, pattern in KINDS.items():
                if pattern.search(line):
                    found[(name, kind)] += 1
            if _NAMED_CSV.search(line) and _WRITES.search(line):
                found[(name, "named .csv")] += 1
    return found


def test_every_csv_writer_is_on_one_side_of_the_rule():
    found = found_writers()
    unclassified = {key: n for key, n in found.items() if CLASSIFIED.get(key, (0,))[0] != n}
    assert not unclassified, (
        "a CSV writer that is not classified (or one more of a kind in a classified file): put it on one side "
        f"of the rule in CLASSIFIED — a spreadsheet's copy through safe_csv, or data kept exactly: {unclassified}")
    gone = sorted(set(CLASSIFIED) - set(found))
    assert not gone, f"classified writers no longer in the code (remove them from CLASSIFIED): {gone}"


def test_what_a_person_opens_goes_through_safe_csv():
    """A file classified for a person either calls safe_csv or hands its table to the one helper
    that does (ui.tables.show_table → ui.table_download)."""
    for (name, _kind), (_n, side, _why) in CLASSIFIED.items():
        if side != PERSON:
            continue
        text = (REPO_ROOT / name).read_text(encoding="utf-8")
        assert "safe_csv(" in text or "show_table(" in text or "table_download(" in text, name
    helper = (REPO_ROOT / "ui" / "table_download.py").read_text(encoding="utf-8")
    assert helper.count("_button(label, safe_csv(table)") == 1 and "safe_csv(table))" in helper


def test_the_dataset_and_the_artefacts_are_written_without_safe_csv():
    """The other side: no file of the dataset or of a run passes through the neutraliser."""
    for (name, _kind), (_n, side, _why) in CLASSIFIED.items():
        if side in (DATASET, ARTEFACT) and name != "screens/export.py":
            assert "safe_csv" not in (REPO_ROOT / name).read_text(encoding="utf-8"), name
