"""The Export page's downloads follow the CSV rule (:mod:`annotation.corpus.csv_safety`): the zip
is the dataset folder byte for byte — its texts exactly, formulas included — and says so; beside
it, a pairs export offers its pairs as a CSV for a spreadsheet, in which no text starts a formula."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import update
from streamlit.runtime.media_file_manager import MediaFileManager

from annotation.corpus.csv_safety import FORMULA_TRIGGERS
from annotation.services.export import exports
from db import config as app_config
from db.models import Sample, SamplePair
from page_helpers import run
from pair_gold_data import pair_gold_project

TARGET = '=HYPERLINK("http://example.com/x","open") is tomorrow at nine.'
FOLLOW_UP = "-2+3+cmd|' /C calc'!A0 moved it."


@pytest.fixture
def deferred(monkeypatch) -> dict:
    """The data callable of every download button built on click, by file name."""
    seen: dict = {}
    original = MediaFileManager.add_deferred

    def _add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        seen[file_name] = (data_callable, mimetype)
        return original(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", _add_deferred)
    return seen


@pytest.fixture
def exports_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("CHRONOCEPT_EXPORT_DIR", str(tmp_path / "exports"))
    app_config.load()
    return tmp_path / "exports"


def test_the_zip_is_the_dataset_exactly_and_the_spreadsheet_copy_is_neutralised(make_app, db, lead, exports_dir,
                                                                              deferred):
    pid = pair_gold_project(db, lead, n_targets=4)
    with db.write() as s:  # every text of the project starts a formula
        s.execute(update(Sample).where(Sample.project_id == pid).values(parent_text=TARGET))
        s.execute(update(SamplePair).values(follow_up=FOLLOW_UP))
    folder = exports_dir / "pairs"
    exports.export_dataset(db, lead, pid, folder, seed=2)

    at = run(make_app(lead))
    at.switch_page("screens/export.py")
    run(at)
    buttons = {b.proto.label: b.proto.help for b in at.get("download_button")}
    assert "byte for byte" in buttons["Download the dataset (zip)"]
    assert "a leading '" in buttons["Pairs for a spreadsheet (CSV)"]

    build_zip, mime = deferred["pairs.zip"]
    assert mime == "application/zip"
    with zipfile.ZipFile(io.BytesIO(build_zip())) as archive:
        assert {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()} == {
            p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        dataset = list(csv.DictReader(io.StringIO(archive.read("pairs/tvcp/train.csv").decode(), newline="")))
    assert dataset and {(r["context"], r["follow_up"]) for r in dataset} == {(TARGET, FOLLOW_UP)}

    build_csv, mime = deferred["pairs-for-spreadsheets.csv"]
    assert mime == "text/csv"
    copy = list(csv.DictReader(io.StringIO(build_csv(), newline="")))
    assert len(copy) == 12 and {(r["context"], r["follow_up"]) for r in copy} == {("'" + TARGET, "'" + FOLLOW_UP)}
    assert not any(v.startswith(FORMULA_TRIGGERS) for r in copy for v in r.values() if not _number(v))


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
