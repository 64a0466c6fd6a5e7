"""CSV files that a spreadsheet opens as data, never as formulas (CSV / formula injection).

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a
formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)``, ``@SUM(...)``, DDE). Per
OWASP's "CSV Injection" guidance such a cell gets a leading single quote, which spreadsheets
treat as "this is text" and do not show. Only text cells are touched: numbers, including negative
numbers held as numbers, stay numbers. Reference: https://owasp.org/www-community/attacks/CSV_Injection

**The rule for every CSV the app or the export writes.** A file meant for a person to open in a
spreadsheet — every table a page offers as CSV, the Export page's copy of the pairs for a
spreadsheet — is written by :func:`safe_csv`. A file that *is* data for code keeps every value
exactly, since neutralising would change the text a model trains on or a script reads back: the
export folder (``tvcp/*.csv`` holds the targets and follow-ups as written; the Export page's zip
is that folder byte for byte, and says so) and a training run's artefacts (predictions, loss
curves). ``tests/unit/test_csv_writers.py`` finds every CSV writer in the code and holds it to one
side of this rule.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

#: First characters that make a spreadsheet evaluate a cell (OWASP).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) cannot start a formula."""
    safe = frame.copy()
    for column in safe.columns:
        series = safe[column]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_datetime64_any_dtype(series):
            continue  # numbers and timestamps are written as such: nothing to neutralise
        safe[column] = series.map(neutralise_cell, na_action="ignore")
    safe.columns = [neutralise_cell(c) for c in safe.columns]
    return safe


def safe_csv(frame: pd.DataFrame, **to_csv_options: Any) -> str:
    """``frame`` as CSV text (``DataFrame.to_csv``, ``index=False`` unless told) with every text
    cell neutralised."""
    to_csv_options.setdefault("index", False)
    return neutralise_frame(frame).to_csv(**to_csv_options)
