"""Every table a screen shows goes through :func:`show_table` — the one caller of ``st.dataframe``.

Tables show what people typed: names, notes, texts, licences. Streamlit's table toolbar offers
"Download as CSV" (and copying cells), and writes each cell as it is, so a display name such as
``=HYPERLINK("http://…","Open")`` becomes a live formula once the file is opened in a spreadsheet
(CSV injection, :mod:`annotation.corpus.csv_safety`). Streamlit 1.67 cannot turn that download off for
one table, only for the whole app: ``client.disableDataExport`` in ``.streamlit/config.toml``
hides it (and the copy) on every table. A table worth taking away gets the app's own download
button instead (``download=``: :func:`ui.table_download.table_download`, which writes
:func:`annotation.corpus.csv_safety.safe_csv`).

Should an operator turn the toolbar's export back on (another config file, an environment
variable), the text cells are neutralised before they reach the table, so its CSV is still safe;
the table then shows a leading ``'`` on text that would start a formula.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from annotation.corpus.csv_safety import neutralise_frame
from ui.table_download import table_download

#: the Streamlit option that hides the toolbar's CSV download and copy on every table
EXPORT_OFF_OPTION = "client.disableDataExport"
#: what a table shows where a value is missing
MISSING = "—"


def toolbar_export_is_off() -> bool:
    """Whether Streamlit's own table export is hidden on this server (the shipped config)."""
    return bool(st.get_option(EXPORT_OFF_OPTION))


def shown_cells(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as the toolbar may export it: unchanged while the export is off, else with every
    text cell neutralised (column names, which the code chooses and ``column_config`` names, stay)."""
    if toolbar_export_is_off():
        return table
    safe = neutralise_frame(table)
    safe.columns = table.columns
    return safe


def show_table(table: pd.DataFrame, *, download: str | None = None,
               download_label: str = "Download the table (CSV)", key: str | None = None,
               **dataframe_options: Any) -> Any:
    """``st.dataframe(table, key=key, **dataframe_options)`` with a toolbar whose CSV cannot run
    formulas (module docstring); returns what ``st.dataframe`` returns (a selection state with
    ``on_select``). ``download``: a file name — the table is also offered as a safe CSV under it
    (``key`` then names the button too)."""
    # a missing value reads "—", never Python's "None" (Streamlit's default placeholder)
    dataframe_options.setdefault("placeholder", MISSING)
    shown = st.dataframe(shown_cells(table), key=key, **dataframe_options)
    if download is not None:
        table_download(download_label, table, download, key=f"{key or download}.csv")
    return shown
