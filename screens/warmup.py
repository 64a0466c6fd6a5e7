"""Lead: warm-up and qualification (SPEC section 5).

Three tabs: **Annotators** — everyone's figures against gold next to the thresholds, progress
through the warm-up set, and the admit / revoke decisions (with a note); **Warm-up set** — pick
samples at random or by id, take them out; **Gold** — the lead's gold annotation of each warm-up
sample, edited with the workbench's widgets (boundaries by clicking between words, axes per
segment, the curve by placing points or typing ξ, ω, α).

The rules themselves (who does the warm-up, when the rule admits) are in
``annotation.services.quality.admission``. Session state holds only the lead's unsaved gold edit and
widget values, under ``warmup.*``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from annotation.agreement import shown_threshold
from annotation.curves import MAX_POINTS
from annotation.text_limits import NOTE_MAX_CHARS, SHORT_NOTE_MAX_CHARS
from annotation.review.lead_edit import LeadEdit
from annotation.quality.qualification import CURVE_BY_ICC, ICC_MIN_SAMPLES
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.publishable import NEEDS, figure
from annotation.services.quality import qualification
from annotation.services.review import warmup_set
from annotation.services.errors import ServiceError
from annotation.timeaxis import X_MAX, tick_positions
from ui.components import curve_canvas
from ui.display import curve_description, curve_polyline, plain
from ui.segment_editor import on_screen, parameter_inputs, segment_axes_editor
from ui.session import lead_page, service_errors, toast_next_run
from ui.tables import show_table

K_FLASH = "warmup.flash"
K_NOTE_ROUND = "warmup.note_round"  # decisions taken in this session (the note field's key)

actor, db, project = lead_page("Warm-up & qualification", flash_key=K_FLASH)

with service_errors():
    board = qualification.qualification_board(db, actor, project.id)
    samples = warmup_set.warmup_samples(db, actor, project.id)

t = board.thresholds
st.caption(
    f"Project **{plain(project.name)}**. An annotator is admitted to production when they have "
    f"submitted the whole warm-up set and, against gold, **ICC(1,1) > {shown_threshold(t.icc_min)}** on each of "
    f"ξ, ω and α (the smallest of the three counts; over fewer than {ICC_MIN_SAMPLES} samples with a curve, or "
    f"gold curves that hardly differ, the ICC cannot judge and instead the curve distance **W1 to the gold ≤ "
    f"{shown_threshold(t.w1_max)}** on every sample decides), **Jaccard > {shown_threshold(t.jaccard_min)}** on the "
    f"(token, axis) labels and **Pk < {shown_threshold(t.pk_max)}** on the segmentation (means over at least "
    f"{NEEDS['jaccard'].min_n} samples; over fewer, on every sample). A lead can admit or "
    "revoke anyone, with a note. Thresholds and the warm-up size are project settings.")
# The notice's slot is there whether or not it is shown: the first gold stored takes it away, and
# the tabs below moving up one place made the browser draw them anew on the first tab (the lead's
# Gold tab closed under them after each first Save).
notice = st.container()
if not board.has_set:
    notice.info("This project has no warm-up set yet (no warm-up sample with gold), so everyone is "
                "admitted to production implicitly. Mark samples under **Warm-up set** and give them "
                "gold under **Gold**; from then on, everyone not yet admitted starts with them.",
                icon=":material/info:")


def _done(message: str) -> None:
    toast_next_run(K_FLASH, message)
    st.rerun()


def _board_figure(name: str, value: float | None, n: int) -> str:
    """A figure of the board through the rule of what it needs, with its n (the warm-up reports
    no interval): "0.950 (n = 32)" or "— needs ≥ 30 samples with every curve (n = 3)"."""
    return figure(replace(NEEDS[name], interval=False), value, n=n).text()


def _fmt(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


people_tab, set_tab, gold_tab = st.tabs(
    ["Annotators", f"Warm-up set ({len(samples)})", "Gold"])

# --- annotators -----------------------------------------------------------------------------------

with people_tab:
    if not board.rows:
        st.caption("No annotator yet.")
    else:
        table = pd.DataFrame([{
            "annotator": r.username,
            "role": r.role,
            "standing": r.standing_text,
            "warm-up done": f"{r.figures.n_done} / {r.figures.n_total}",
            **{f"ICC {PARAMETER_SYMBOLS[p]}": _board_figure("icc", r.figures.icc.get(p), r.figures.n_with_curve)
               for p in PARAMETERS},
            "Jaccard": _board_figure("jaccard", r.figures.jaccard, r.figures.measured("jaccard")),
            "Pk": _board_figure("pk", r.figures.pk, r.figures.measured("pk")),
            "passes": r.figures_text,
            "decided by": r.decided_by,
            "decided": r.decided_at,
            "note": r.note,
        } for r in board.rows])
        show_table(table, hide_index=True, width="stretch", key="warmup.board",
                   download=f"warmup-{project.name}.csv".replace(" ", "_"), column_config={
            "decided": st.column_config.DatetimeColumn("decided", format="YYYY-MM-DD HH:mm"),
        })
        by_name = {r.username: r for r in board.rows}
        name = st.selectbox("Annotator", list(by_name), key="warmup.person")
        row = by_name[name]
        f, v = row.figures, row.verdicts
        st.markdown(f"#### {plain(row.display_name)} · {plain(row.standing_text)}")
        if row.standing == qualification.ADMITTED_BY_LEAD:
            when = f" on {row.decided_at:%Y-%m-%d}" if row.decided_at else ""
            st.info(f"Admitted by {plain(row.decided_by or 'a lead')} (override){when}, whatever the "
                    "figures below"
                    + (": they pass all three thresholds." if row.passes else
                       ", which do not all pass.")
                    + (f" Note: {plain(row.note)}" if row.note else ""), icon=":material/how_to_reg:")
        total = f.n_total  # the set less the samples they had as gold checks
        st.progress(min(1.0, f.n_done / total) if total else 0.0,
                    text=f"Warm-up: {f.n_done} of {total} submitted")
        c1, c2, c3 = st.columns(3)
        icc_text = (" · ".join(f"ICC {PARAMETER_SYMBOLS[p]} {_fmt(f.icc.get(p))}" for p in PARAMETERS)
                    + f" · over {f.n_with_curve} sample(s) with a curve")
        if f.curve_rule == CURVE_BY_ICC:
            c1.metric("Curves: ICC (smallest of ξ ω α)", v["curve"].shown, help=icc_text)
        else:
            c1.metric("Curves: largest W1 to the gold", v["curve"].shown,
                      help=f"The curve rule decides: {f.curve_rule_reason}. For the record: {icc_text}")
        c1.caption(v["curve"].text)
        c2.metric("Jaccard (token, axis)", v["jaccard"].shown)
        c2.caption(v["jaccard"].text)
        c3.metric("Pk (both ways)", v["pk"].shown)
        c3.caption(v["pk"].text)

        # a new key after each decision: the browser keeps a text area's text for as long as its
        # key lives, so the used note stayed in the field (clearing the state did not reach it)
        note_round = st.session_state.get(K_NOTE_ROUND, 0)
        note_key = f"warmup.note.{row.user_id}.{note_round}"
        if row.admitted and row.standing != qualification.IMPLICIT:
            st.text_area("Note (required)", key=note_key, max_chars=NOTE_MAX_CHARS, height=80,
                         placeholder="Why this person goes back to warm-up")
            # each decision button names the person and is keyed by them: a click drawn for
            # the person shown before the Annotator box changed decides nothing
            if st.button(f"Revoke {row.username}'s admission", icon=":material/block:",
                         key=f"warmup.revoke.{row.user_id}"):
                try:
                    qualification.revoke(db, actor, project.id, row.user_id, st.session_state.get(note_key, ""))
                except ServiceError as exc:
                    st.error(plain(exc))
                else:
                    st.session_state[K_NOTE_ROUND] = note_round + 1
                    _done(f"{row.username} is back in warm-up.")
        elif not row.admitted:
            st.text_area("Note (required)", key=note_key, max_chars=NOTE_MAX_CHARS, height=80,
                         placeholder="Why you admit this person whatever the figures")
            if st.button(f"Admit {row.username} to production", type="primary", icon=":material/how_to_reg:",
                         key=f"warmup.admit.{row.user_id}"):
                try:
                    qualification.admit(db, actor, project.id, row.user_id, st.session_state.get(note_key, ""))
                except ServiceError as exc:
                    st.error(plain(exc))
                else:
                    st.session_state[K_NOTE_ROUND] = note_round + 1
                    _done(f"{row.username} is admitted to production.")
        with service_errors():
            history = qualification.decision_history(db, actor, project.id, row.user_id)
        if history:
            labels = {"qualification_admit": "admitted by a lead", "qualification_revoke": "revoked",
                      "qualification_admit_rule": "admitted: passed the thresholds"}
            show_table(pd.DataFrame([{
                "when": h["at"], "who": h["who"], "decision": labels.get(h["what"], h["what"]),
                "note": h["note"],
                "ICC": h["figures"].get("icc_min"), "Jaccard": h["figures"].get("jaccard"),
                "Pk": h["figures"].get("pk"),
            } for h in history]), hide_index=True, width="stretch", key="warmup.history",
                column_config={"when": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm"),
                             **{c: st.column_config.NumberColumn(c, format="%.3f")
                                for c in ("ICC", "Jaccard", "Pk")}})
    if st.button("Re-check everyone", icon=":material/refresh:", key="warmup.recheck",
                 help="Apply the admission rule with the current thresholds (after changing them)."):
        with service_errors():
            n = qualification.recheck(db, actor, project.id)
        _done(f"Re-checked {n} annotator{'s' if n != 1 else ''}.")

# --- the warm-up set --------------------------------------------------------------------------------

with set_tab:
    with_gold = sum(1 for w in samples if w.gold is not None)
    st.caption(f"{len(samples)} warm-up sample{'s' if len(samples) != 1 else ''}, {with_gold} with gold "
               f"(only those are handed out) · configured size {project.settings.warmup_size}. "
               "Only samples nobody has started can become warm-up samples.")
    if samples:
        show_table(pd.DataFrame([{
            "sample": w.external_id,
            "benchmark": w.benchmark,
            "text": w.parent_text if len(w.parent_text) <= 90 else w.parent_text[:87] + "…",
            "gold": "✓" if w.gold else "—",
            "submitted": w.n_submitted,
            "drafts": w.n_drafts,
        } for w in samples]), hide_index=True, width="stretch", key="warmup.samples")
    pick_col, ids_col = st.columns(2)
    with pick_col:
        st.markdown("**Pick at random**")
        missing = max(1, project.settings.warmup_size - len(samples))
        n_pick = st.number_input("How many", 1, 10_000, missing, key="warmup.pick_n")
        # named and keyed by project: a click drawn for another project picks nothing
        if st.button(f"Pick samples in {plain(project.name)}", icon=":material/casino:",
                     key=f"warmup.pick.{project.id}"):
            try:
                picked = warmup_set.pick_warmup(db, actor, project.id, int(n_pick))
            except ServiceError as exc:
                st.error(plain(exc))
            else:
                _done(f"Marked {len(picked)} sample{'s' if len(picked) != 1 else ''} as warm-up.")
    with ids_col:
        st.markdown("**Add by id**")
        ids_text = st.text_input("Sample ids", key="warmup.add_ids", placeholder="B1-00001, B1-00007")
        if st.button("Add", icon=":material/add:", key="warmup.add"):
            ids = [x for x in ids_text.replace(",", " ").split() if x]
            try:
                marked = warmup_set.mark_warmup(db, actor, project.id, ids)
            except ServiceError as exc:
                st.error(plain(exc))
            else:
                _done(f"Marked {len(marked)} sample{'s' if len(marked) != 1 else ''} as warm-up.")
    if samples:
        st.markdown("**Take out of the warm-up set**")
        chosen = st.multiselect("Samples", [w.external_id for w in samples], key="warmup.remove_ids")
        st.caption("A sample nobody has annotated goes back to production; one annotated in warm-up "
                   "is retired (discarded) and leaves everyone's figures.")
        if st.button("Take out", icon=":material/remove:", key="warmup.remove", disabled=not chosen):
            try:
                done = warmup_set.unmark_warmup(db, actor, project.id, chosen)
            except ServiceError as exc:
                st.error(plain(exc))
            else:
                _done(f"Back to production: {len(done.returned)}; retired: {len(done.retired)}.")

# --- gold ---------------------------------------------------------------------------------------------

with gold_tab:
    if not samples:
        st.caption("Mark warm-up samples first.")
    else:
        by_id = {w.sample_id: w for w in samples}
        pick = st.selectbox("Sample", list(by_id), key="warmup.gold_pick",
                            format_func=lambda i: f"{by_id[i].external_id} — "
                                                  + ("gold ✓" if by_id[i].gold else "no gold yet"))
        w = by_id[pick]
        G = f"warmup.gold.{w.sample_id}"  # this sample's unsaved edit
        # the outcome of the last Save of each sample ({sample id: (stored?, text)}), written by
        # _save_gold. It stays on that sample's screen until its next Save or Start over, stored
        # or refused: a toast alone was lost whenever a rerun request (a chart event's resend)
        # cut short the run that sent it, and the lead was told nothing. A stored gold is also
        # toasted once, and its draft dropped once (the set of announced samples says which).
        outcomes: dict = st.session_state.setdefault("warmup.gold.outcomes", {})
        announced: set = st.session_state.setdefault("warmup.gold.announced", set())
        for sid, (stored, text) in list(outcomes.items()):
            if stored and sid not in announced:
                announced.add(sid)
                st.session_state.pop(f"warmup.gold.{sid}", None)
                st.toast(text, icon=":material/check_circle:")

        if G not in st.session_state:
            g = w.gold
            st.session_state[G] = (LeadEdit.blank(w.n_tokens) if g is None else
                                   LeadEdit(w.n_tokens, g.boundaries, g.segment_axes, g.xi, g.omega, g.alpha))
        edit: LeadEdit = st.session_state[G]

        SLOT = "warmup.gold.shown"  # the edit the editor shows (ui/segment_editor.on_screen)

        def _on_points(event: dict, key: str = G) -> None:
            if on_screen(key, SLOT):  # not a chart of a sample the box has left
                st.session_state[key] = st.session_state[key].with_point_event(event)

        def _on_reset(key: str = G, sample_id: int = w.sample_id) -> None:
            st.session_state.pop(key, None)
            outcomes.pop(sample_id, None)
            announced.discard(sample_id)

        def _save_gold(sample_id: int, external_id: str, key: str, note_key: str) -> None:
            """on_click of Save. A callback runs before the page's body: a Save checked in the
            body was lost whenever another rerun request (a chart event's resend, under load)
            interrupted its run before the check, and nothing said so. Here the edit is read,
            the gold stored, and the outcome put into a dict already held (no session-state
            access, at which a pending rerun would stop the callback, after the store)."""
            edit_now, note = st.session_state.get(key), st.session_state.get(note_key, "")
            if edit_now is None or not on_screen(key, SLOT):  # drawn for a sample the box has left
                return
            pressed = datetime.now(timezone.utc)
            try:
                warmup_set.set_warmup_gold(db, actor, sample_id, edit_now, note=note)
            except ServiceError as exc:
                outcomes[sample_id] = (False, f"{plain(exc)} (Save pressed at {pressed:%H:%M:%S} UTC.)")
            else:
                outcomes[sample_id] = (True, f"Stored the gold of {plain(external_id)}.")
                announced.discard(sample_id)

        st.caption("Click between two words to add or remove a boundary; choose each segment's axes "
                   "(several are allowed: the annotator's axis counts if it is one of them); place 3–5 "
                   "points on the chart to fit the curve, or type ξ, ω, α.")
        segment_axes_editor(w.parent_text, w.n_tokens, G, text_key=f"{G}.text", axes_key_prefix=f"{G}.axes",
                            slot=SLOT)
        # Nothing whose height changes with the points stands above the Save button: the chart
        # (fixed height) beside the three inputs, then the note and the buttons, and only then
        # the fit's messages and the curve in words. (A message that came and went above it moved
        # the button 100-300 px as points were placed, and a Save pressed just then hit nothing.)
        chart_col, params_col = st.columns([2, 1])
        with chart_col:
            curve_canvas([tuple(p) for p in edit.points],
                         curve=curve_polyline(edit.xi, edit.omega, edit.alpha),
                         ticks=tick_positions(), x_max=X_MAX, max_points=MAX_POINTS,
                         key=f"{G}.chart", height=300, on_change=_on_points, curve_label="gold curve")
        with params_col:
            parameter_inputs(G, G, slot=SLOT)
        note_key = f"{G}.note"
        st.text_input("Note", key=note_key, max_chars=SHORT_NOTE_MAX_CHARS, placeholder="Optional: why this gold")
        with st.container(horizontal=True):
            # the button names the sample it stores the gold of, and is keyed by it: a click drawn
            # for another sample (the box just changed) does nothing
            st.button(f"Save the gold of {w.external_id}", type="primary", icon=":material/save:",
                      key=f"warmup.save_gold.{w.sample_id}", on_click=_save_gold,
                      args=(w.sample_id, w.external_id, G, note_key))
            st.button("Start over", key=f"{G}.reset", on_click=_on_reset, icon=":material/restart_alt:")
        if w.sample_id in outcomes:  # kept: a chart event reaching the server after the Save
            stored, text = outcomes[w.sample_id]  # pressed behind it must not wipe the outcome
            (st.success if stored else st.error)(text)
        if edit.message:
            st.warning(edit.message)
        elif edit.curve_problem:
            st.info(edit.curve_problem, icon=":material/info:")
        st.caption(curve_description(edit.xi, edit.omega, edit.alpha))
        if w.gold is not None:
            st.caption(f"Stored {w.gold.decided_at:%Y-%m-%d %H:%M} UTC by {plain(w.gold_by)}"
                       + (f" — {plain(w.gold.note)}" if w.gold.note else ""))
