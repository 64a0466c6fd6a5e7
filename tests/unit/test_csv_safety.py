"""CSV formula injection (OWASP): text cells that would start a formula get a leading quote."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from annotation.corpus.csv_safety import neutralise_cell, neutralise_frame, safe_csv


@pytest.mark.parametrize("value", ["=1+2", "+1", "-2+3", "@SUM(A1:A2)", "\t=x", "\r=x",
                                   "=HYPERLINK(\"http://x\",\"y\")", "-", "=", "-5"])
def test_formula_cells_get_a_leading_quote(value):
    assert neutralise_cell(value) == "'" + value


@pytest.mark.parametrize("value", ["ann1", "B1-00042", " =x", "'=x", "", "a=b", "100%", "—x"])
def test_other_text_is_left_alone(value):
    assert neutralise_cell(value) == value


@pytest.mark.parametrize("value", [-5, -0.25, 3, 0.0, None, np.nan, True])
def test_non_text_is_left_alone(value):
    out = neutralise_cell(value)
    assert out is value or (isinstance(value, float) and np.isnan(out))


def test_frame_neutralises_text_columns_and_keeps_numbers_numbers():
    frame = pd.DataFrame({
        "sample": ["=cmd|' /C calc'!A0", "B1-00001", None],
        "annotator": pd.array(["@evil", "+lead", "ann"], dtype="string"),
        "pk": [-0.5, 0.1, np.nan],
        "n": [-3, 2, 1],
        "mixed": ["-x", -4, 2.5],
    })
    safe = neutralise_frame(frame)
    assert list(safe["sample"][:2]) == ["'=cmd|' /C calc'!A0", "B1-00001"] and pd.isna(safe["sample"][2])
    assert list(safe["annotator"]) == ["'@evil", "'+lead", "ann"]
    assert safe["pk"].dtype == float and safe["pk"][0] == -0.5
    assert safe["n"].dtype == frame["n"].dtype and list(safe["n"]) == [-3, 2, 1]
    assert list(safe["mixed"]) == ["'-x", -4, 2.5]
    assert frame["sample"][0].startswith("=")  # the input is not changed


def test_safe_csv_reads_back_with_no_cell_starting_a_formula():
    frame = pd.DataFrame({"id": ["=1+1", "-2", "@a", "\tb", "ok"], "value": [-1.5, -2, 3, 4, 5]})
    rows = list(csv.reader(io.StringIO(safe_csv(frame))))
    assert rows[0] == ["id", "value"]
    assert [r[0] for r in rows[1:]] == ["'=1+1", "'-2", "'@a", "'\tb", "ok"]
    assert [r[1] for r in rows[1:]] == ["-1.5", "-2.0", "3.0", "4.0", "5.0"]


def test_safe_csv_neutralises_column_names():
    assert safe_csv(pd.DataFrame({"=x": [1]})).splitlines()[0] == "'=x"
