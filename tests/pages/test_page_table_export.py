"""Tables that show what people typed never hand a spreadsheet a formula.

Streamlit's table toolbar ("Download as CSV", copy) writes cells as they are, so a display name
``=HYPERLINK(...)`` would run in Excel. The toolbar's export is off app-wide
(``client.disableDataExport`` in .streamlit/config.toml: Streamlit 1.67 has no per-table switch),
every table goes through :func:`ui.tables.show_table`, and should the export be turned back on,
the cells it could export are neutralised. Checked on the pages that showed raw formulas: Users
(display name), Feedback (the lead's note), Warm-up (the admission note), Export (the licence).
"""

from __future__ import annotations

import ast
import io
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st

from annotation.services.accounts import accounts
from annotation.services.export import exports
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.quality import qualification
from annotation.services.review import review, warmup_set
from db import config as app_config
from gold_data import gold_project
from page_helpers import PASSWORD, REPO_ROOT, SPLIT_A, SPLIT_B, annotate, run, text_records
from ui.tables import EXPORT_OFF_OPTION

FORMULA = '=HYPERLINK("http://example.com/x","open")'
NEUTRALISED = "'" + FORMULA
#: the only module that may call st.dataframe / st.data_editor
HELPER = "ui/tables.py"


def test_the_toolbar_export_is_off_in_the_shipped_config():
    config = tomllib.loads((REPO_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["disableDataExport"] is True
    assert st.get_option(EXPORT_OFF_OPTION) is True  # what the tests' app (run from the root) reads


def _table_calls(path: Path) -> list[str]:
    """``file:line`` of every call of ``…dataframe(`` or ``…data_editor(`` in ``path`` (also on a
    column or container: ``col.dataframe(…)``). ``st.table`` has no toolbar: it is allowed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("dataframe", "data_editor"):
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    return found


def test_no_screen_shows_a_table_without_the_helper():
    files = [REPO_ROOT / "app.py", *sorted((REPO_ROOT / "screens").rglob("*.py")),
             *sorted((REPO_ROOT / "ui").rglob("*.py"))]
    direct = [call for f in files if f.relative_to(REPO_ROOT).as_posix() != HELPER for call in _table_calls(f)]
    assert not direct, f"call ui.tables.show_table instead of st.dataframe / st.data_editor: {direct}"
    assert _table_calls(REPO_ROOT / HELPER)  # the helper itself still shows the table


# --- the pages that showed formulas ---------------------------------------------------------------

def _users(db, admin, lead):
    accounts.create_user(db, admin, "eve", PASSWORD, "annotator", FORMULA)
    return admin, "screens/users.py", "name"


def _feedback(db, admin, lead):
    for name in ("ann_a", "ann_b"):
        accounts.create_user(db, admin, name, PASSWORD, "annotator")
    a, b = (accounts.authenticate(db, name, PASSWORD) for name in ("ann_a", "ann_b"))
    p = projects.create_project(db, lead, "Feedback project")
    text_imports.import_texts(db, lead, p.id, text_records(2))
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_B)  # other boundaries: flagged, so a lead decides
    row = review.review_queue(db, lead, p.id)[0]
    case = review.open_case(db, lead, row.item_id)
    theirs = next(v for v in case.versions if v.annotator == "ann_b")
    review.decide(db, lead, row.item_id, "take_version", annotation_id=theirs.annotation_id, note=FORMULA,
                  confidence=4, error_type="annotator_error")
    return a, "screens/feedback.py", "lead's note"


def _warmup(db, admin, lead):
    accounts.create_user(db, admin, "ann", PASSWORD, "annotator")
    ann = accounts.authenticate(db, "ann", PASSWORD)
    p = projects.create_project(db, lead, "Warm-up project")
    text_imports.import_texts(db, lead, p.id, text_records(3))
    warmup_set.mark_warmup(db, lead, p.id, ["S-000"])
    qualification.admit(db, lead, p.id, ann.user_id, FORMULA)
    return lead, "screens/warmup.py", "note"


def _export(db, admin, lead, exports_dir):
    pid = gold_project(db, lead, n=6)
    exports.export_dataset(db, lead, pid, exports_dir / "first", licence=FORMULA)
    return lead, "screens/export.py", "Licence"


@pytest.fixture
def exports_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "exports"
    monkeypatch.setenv("CHRONOCEPT_EXPORT_DIR", str(folder))
    app_config.load()  # read again, as a restarted process would
    return folder


@pytest.fixture(params=["users", "feedback", "warmup", "export"])
def page_with_formula(request, db, admin, lead):
    """(actor, page, column): ``page`` shows FORMULA, typed by someone, in a table's ``column``."""
    if request.param == "export":
        return _export(db, admin, lead, request.getfixturevalue("exports_dir"))
    return {"users": _users, "feedback": _feedback, "warmup": _warmup}[request.param](db, admin, lead)


def _cells(make_app, actor, page: str, column: str) -> list:
    at = run(make_app(actor))
    at.switch_page(page)
    run(at)
    tables = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert tables, f"no table with a {column!r} column on {page}"
    return [v for table in tables for v in table[column]]


def test_with_the_export_off_the_table_shows_the_text_as_typed(make_app, page_with_formula):
    assert FORMULA in _cells(make_app, *page_with_formula)


@pytest.fixture
def export_turned_on():
    """The toolbar's export on, as an operator's own config could have it (the option is one a
    script may set: ``st.set_option``), and off again afterwards."""
    before = st.get_option(EXPORT_OFF_OPTION)
    st.set_option(EXPORT_OFF_OPTION, False)
    try:
        yield
    finally:
        st.set_option(EXPORT_OFF_OPTION, before)


def test_with_the_export_on_its_cells_cannot_run_a_formula(make_app, page_with_formula, export_turned_on):
    cells = _cells(make_app, *page_with_formula)
    assert NEUTRALISED in cells and FORMULA not in cells


def test_the_users_table_offers_the_safe_csv(make_app, db, admin, lead, downloads):
    _users(db, admin, lead)
    _cells(make_app, admin, "screens/users.py", "name")
    table = pd.read_csv(io.BytesIO(downloads["users.csv"]))
    assert NEUTRALISED in set(table["name"])
