"""A CSV download of a table that may be large, whose click is never lost.

Streamlit's download button can build its data on click (a callable): the button then carries a
one-off id that any rerun of the session revokes, and a click holding a revoked id downloads
nothing and says nothing — seen in CI on the Agreement page. So the data is always given as
bytes: a table of at most :data:`AT_ONCE_MAX_ROWS` rows is written at once (a fraction of a
second); a larger one only when the person asks ("Prepare …"), and the prepared bytes are kept
in the session while the table is the same (same filters, same data), so the download button
stays through reruns. The download itself starts no rerun (``on_click="ignore"``): a 100k-sample
page need not be recomputed for a file.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.corpus.csv_safety import safe_csv

#: The most rows written as CSV on every run of the page; a larger table waits to be asked for.
AT_ONCE_MAX_ROWS = 5_000


def table_download(label: str, table: pd.DataFrame, file_name: str, key: str) -> None:
    """A download button for ``table`` as CSV (:func:`annotation.corpus.csv_safety.safe_csv`) named
    ``file_name`` — for a large table, first a button that prepares it (module docstring)."""
    if len(table) <= AT_ONCE_MAX_ROWS:
        _button(label, safe_csv(table), file_name, key)
        return
    kept = f"{key}.prepared"
    prepared = st.session_state.get(kept)
    if prepared is not None and prepared[0] != _signature(table, file_name):  # filters or data changed
        del st.session_state[kept]
        prepared = None
    if prepared is None:
        if not st.button(f"Prepare the table for download ({len(table):,} rows)", key=f"{key}.prepare",
                         icon=":material/table_view:"):
            return
        with st.spinner("Writing the CSV…"):
            prepared = st.session_state[kept] = (_signature(table, file_name), safe_csv(table))
    _button(label, prepared[1], file_name, key)


def _signature(table: pd.DataFrame, file_name: str) -> tuple[str, int, int]:
    """What prepared bytes were made of (hashed only where something was prepared: ~0.1 s at 100k)."""
    return file_name, len(table), int(pd.util.hash_pandas_object(table, index=False).sum())


def _button(label: str, data: str | bytes, file_name: str, key: str) -> None:
    st.download_button(label, data, file_name=file_name, mime="text/csv", key=key, on_click="ignore",
                       icon=":material/download:")
