"""The CSV rule end to end, with texts that start a spreadsheet formula (``=``, ``+``, ``-``, ``@``):
a pairs project's export holds them exactly — its tvcp CSV and JSON Lines, and the zip the Export
page offers, byte for byte the folder — while the copy of the pairs for a spreadsheet neutralises
every one of them and nothing else. SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from sqlalchemy import select, update

from annotation.corpus.csv_safety import FORMULA_TRIGGERS
from annotation.services.export import export_downloads, exports
from annotation.services.errors import InvalidInput
from db.models import Sample, SamplePair
from pair_gold_data import pair_gold_project

#: a target and a follow-up per trigger: what a person might type, and what an attacker might
FORMULAS = {
    "=": ('=HYPERLINK("http://example.com/x","open") is tomorrow at nine.', "=1+1 they said; it moved."),
    "+": ("+44 20 7946 0958 calls back tomorrow.", "+ one more day, they wrote."),
    "-": ("-2+3+cmd|' /C calc'!A0 runs at noon today.", "- it was cancelled, they wrote."),
    "@": ("@SUM(1+1) the meeting is on Friday.", "@channel it moved to Monday."),
}


@pytest.fixture
def formula_pairs(db, lead):
    """A pairs project whose first four targets and their follow-ups start with each trigger."""
    pid = pair_gold_project(db, lead, n_targets=8)
    with db.write() as s:
        for t, (target, follow_up) in enumerate(FORMULAS.values()):
            ids = s.scalars(select(Sample.id).join(SamplePair, SamplePair.sample_id == Sample.id)
                            .where(Sample.project_id == pid, SamplePair.target_key == f"T-{t:03d}")).all()
            s.execute(update(Sample).where(Sample.id.in_(ids)).values(parent_text=target))
            s.execute(update(SamplePair).where(SamplePair.sample_id.in_(ids)).values(follow_up=follow_up))
    return pid


def _texts(rows) -> set[str]:
    return {r["context"] for r in rows} | {r["follow_up"] for r in rows}


def test_the_dataset_keeps_formula_texts_exactly_and_the_spreadsheet_copy_neutralises_them(db, lead, formula_pairs,
                                                                                         tmp_path):
    out = tmp_path / "ds"
    record = exports.export_dataset(db, lead, formula_pairs, out, seed=5)
    typed = {text for pair in FORMULAS.values() for text in pair}

    # the dataset: every CSV of the tvcp config holds the texts as typed
    rows = [r for name in ("train.csv", "valid.csv", "test.csv")
            for r in csv.DictReader((out / "tvcp" / name).open(encoding="utf-8", newline=""))]
    assert typed <= _texts(rows) and not any(text.startswith("'") for text in _texts(rows))

    # the zip the Export page offers is the folder, byte for byte
    with zipfile.ZipFile(io.BytesIO(export_downloads.zip_of_export(db, lead, record.id))) as archive:
        files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        assert {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()} == files

    # the copy for a spreadsheet: every text that would start a formula now starts with "'"
    copy = list(csv.DictReader(io.StringIO(export_downloads.spreadsheet_of_export(db, lead, record.id), newline="")))
    assert len(copy) == len(rows) == 24
    assert {"'" + text for text in typed} <= _texts(copy)
    text_cells = [v for r in copy for k, v in r.items() if k in ("context", "follow_up", "change", "target_id")]
    assert not any(v.startswith(FORMULA_TRIGGERS) for v in text_cells)
    # and nothing else changed: numbers are numbers, the other texts as they are
    by_id = {r["_id"]: r for r in rows}
    for r in copy:
        original = by_id[r["_id"]]
        assert float(r["xi"]) == float(original["xi"]) and r["combined_tv"] == original["combined_tv"]
        if not original["context"].startswith(FORMULA_TRIGGERS):
            assert r["context"] == original["context"]


def test_a_single_texts_export_has_no_spreadsheet_copy(db, lead, tmp_path):
    from gold_data import gold_project

    record = exports.export_dataset(db, lead, gold_project(db, lead, n=6), tmp_path / "ds", seed=1)
    with pytest.raises(InvalidInput, match="holds single texts"):
        export_downloads.spreadsheet_of_export(db, lead, record.id)
