"""Which review case is open, and the controls that choose it (the Review page's queue table, the
Case box, Previous / Next and the ``?case=`` deep link).

Every control writes one thing, the open item id under :data:`K_PICK`; the page then draws that
case and only that case, and every decision button names it. A control chooses by the id it
showed the lead when it was drawn, never by a position computed later, so a click made while the
page redraws opens what the lead saw (a Case box that chose
by the table's selection did nothing: the selection callback put the old case back in the same
rerun).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from annotation.services.review.review import ReviewRow
from ui.display import plain
from ui.tables import show_table

K_PICK = "review.pick"            # the open item (the case selectbox)
K_NEXT = "review.next_pick"       # item to open on the next run (set after a decision)
# The queue table keeps one key whatever case is open. A key that followed the case made a new
# widget at every case change, and a click on the table still on screen while the page drew the
# new case went to a widget the next run no longer had: the click was lost.
K_TABLE = "review.table"          # the queue table's row selection (always the open case)
K_SORTED = "review.sorted"        # the order the open case was picked in
#: rows of the queue in the table and the Case box at a time
PAGE_ROWS = 100
K_URL = "review.case_url"         # the ?case= value this page wrote itself
#: how many times the lead asked for another case (a control here): a decision button drawn
#: before the last request and clicked after it is refused (ui.clicks), even should the Case box,
#: still reporting the case it showed, bring that case back for a run
K_ASKED = "review.asked"
CASE_PARAM = "case"               # the deep link: ?case=<sample id>, e.g. /review?case=B1-0009


def choose_case(rows: Sequence[ReviewRow], everything: Sequence[ReviewRow], order: str) -> int:
    """The item to open: after the lead's own decision the next one; a new order's first; a deep
    link's case when it is open (else a one-line notice); the one chosen before while it is still
    open (else a notice that it was decided); else the first."""
    ids = [r.item_id for r in rows]
    by_external = {r.external_id: r.item_id for r in rows}
    if st.session_state.get(K_SORTED, order) != order:  # a new order opens its first case
        st.session_state[K_NEXT] = ids[0]
    st.session_state[K_SORTED] = order
    linked = st.query_params.get(CASE_PARAM)
    if K_NEXT in st.session_state:  # this lead's own decision: open the next item
        st.session_state[K_PICK] = st.session_state.pop(K_NEXT)
    elif linked is not None and linked != st.session_state.get(K_URL):  # a link, not our own write
        if linked in by_external:
            st.session_state[K_PICK] = by_external[linked]
        else:
            st.info(f"Sample {plain(linked[:40])} has no open review case here (decided, filtered out or "
                    "not in this project); here is the first one.", icon=":material/link_off:")
    elif st.session_state.get(K_PICK) is not None and all(r.item_id != st.session_state[K_PICK] for r in everything):
        st.info("The sample you had open has been decided (in another tab, or by another lead); "
                "here is the next one.", icon=":material/sync:")
    if st.session_state.get(K_PICK) not in ids:
        st.session_state[K_PICK] = ids[0]
    pick: int = st.session_state[K_PICK]
    external = next(r.external_id for r in rows if r.item_id == pick)
    st.query_params[CASE_PARAM] = st.session_state[K_URL] = external
    return pick


def _on_table_select(row_ids: tuple[int, ...], drawn_open: int) -> None:
    """A row the lead clicked opens its case. ``row_ids`` are the rows the lead saw and
    ``drawn_open`` the case the table highlighted when drawn: Streamlit also calls this when the
    selection it reports merely differs in form from the one this page set (the whole Case box
    choice used to be undone that way, in the same rerun), and that is no click."""
    chosen = st.session_state[K_TABLE]["selection"]["rows"]
    if chosen and row_ids[chosen[0]] != drawn_open:  # always one row ("single-row-required")
        _open(row_ids[chosen[0]])


def _open(item_id: int) -> None:
    st.session_state[K_PICK] = item_id
    _asked()


def _asked() -> None:
    st.session_state[K_ASKED] = st.session_state.get(K_ASKED, 0) + 1


def page_of(n_rows: int, at: int) -> tuple[int, int]:
    """The rows (start, end) of the page of the queue that holds row ``at``: the table and the
    Case box show :data:`PAGE_ROWS` rows at a time (a queue of 20,000 open items drawn whole took
    seconds to reach the browser), Previous / Next walk the whole queue."""
    start = at // PAGE_ROWS * PAGE_ROWS
    return start, min(start + PAGE_ROWS, n_rows)


def _page_buttons(ids: Sequence[int], start: int, end: int) -> None:
    """Above a paged table: which rows it shows, and a button to the first case of the page
    before and after (each opens the case it names, like every control here)."""
    if len(ids) <= PAGE_ROWS:
        return
    where, earlier, later = st.columns([6, 3, 3], vertical_alignment="center")
    where.caption(f"Rows {start + 1:,}–{end:,} of {len(ids):,} (the table shows {PAGE_ROWS} at a time)")
    before = max(start - PAGE_ROWS, 0)
    earlier.button(f"Rows {before + 1:,}–{start:,}" if start else "Earlier rows", key="review.page.earlier",
                   icon=":material/chevron_left:", width="stretch", disabled=start == 0,
                   on_click=_open, args=(ids[before] if start else None,))
    later.button(f"Rows {end + 1:,}–{min(end + PAGE_ROWS, len(ids)):,}" if end < len(ids) else "Later rows",
                 key="review.page.later", icon=":material/chevron_right:", width="stretch",
                 disabled=end >= len(ids), on_click=_open, args=(ids[end] if end < len(ids) else None,))


def case_controls(rows: Sequence[ReviewRow], pick: int, reasons_text: Callable[..., str]):  # type: ignore[no-untyped-def]
    """The queue table (the page of :data:`PAGE_ROWS` rows holding the open case, which is
    highlighted), then the Case box (that page's cases) with Previous / Next; returns the column
    left of the box, for the case's heading."""
    all_ids = [r.item_id for r in rows]
    at = all_ids.index(pick)
    start, end = page_of(len(rows), at)
    _page_buttons(all_ids, start, end)
    page = rows[start:end]
    ids = all_ids[start:end]
    by_id = {r.item_id: r for r in page}
    table = pd.DataFrame([{
        "sample": r.external_id,
        "benchmark": r.benchmark,
        "reasons": reasons_text(r.reasons),
        "annotators": ", ".join(r.annotators),
        "W1": r.w1,
        "Pk": r.pk,
        "opened": r.opened_at,
    } for r in page])
    # One table widget for good (its identity is its key, not its rows): the highlighted row is
    # set to the open case whenever the case was opened another way (the Case box, Previous /
    # Next, a decision, a filter, a link), never by drawing a new table.
    open_row = ids.index(pick)
    shown = st.session_state.get(K_TABLE)
    if shown is None or list(shown["selection"]["rows"]) != [open_row]:
        st.session_state[K_TABLE] = {"selection": {"rows": [open_row]}}
    show_table(
        table, hide_index=True, width="stretch", key=K_TABLE,
        on_select=lambda row_ids=tuple(ids), drawn=pick: _on_table_select(row_ids, drawn),
        selection_mode="single-row-required",
        height=min(len(page), 6) * 35 + 38,
        column_config={"opened": st.column_config.DatetimeColumn("opened", format="YYYY-MM-DD HH:mm"),
                       "benchmark": st.column_config.NumberColumn("bench.", width="small"),
                       "W1": st.column_config.NumberColumn("W1", format="%.1f", width="small"),
                       "Pk": st.column_config.NumberColumn("Pk", format="%.2f", width="small")},
    )
    # Previous / Next take the width their words need (in a twelfth of the row each they read
    # "‹ P…" at 1400 px); the Case box takes the rest of its half
    head, controls = st.columns(2, vertical_alignment="bottom")
    row = controls.container(horizontal=True, vertical_alignment="bottom", gap="small")
    row.selectbox(
        "Case", ids, key=K_PICK, on_change=_asked,
        format_func=lambda i: f"{by_id[i].external_id} — {reasons_text(by_id[i].reasons)} — "
                              f"{', '.join(by_id[i].annotators)}",
        help="Click a row of the table, choose here, or step with Previous / Next.", width="stretch")
    before = all_ids[at - 1] if at > 0 else None
    after = all_ids[at + 1] if at + 1 < len(all_ids) else None
    named = {r.item_id: r.external_id for r in rows[max(at - 1, 0):at + 2]}
    row.button("Previous", key="review.previous", icon=":material/chevron_left:", width="content",
               disabled=before is None, on_click=_open, args=(before,),
               help=None if before is None else f"Open {plain(named[before])}")
    row.button("Next", key="review.next", icon=":material/chevron_right:", width="content",
               disabled=after is None, on_click=_open, args=(after,),
               help=None if after is None else f"Open {plain(named[after])}")
    return head
