"""Lead: export the project's gold as a HuggingFace dataset folder; past exports, repeat, download."""

from __future__ import annotations

import secrets
from pathlib import Path

import pandas as pd
import streamlit as st

from annotation.protocols import protocol_of
from annotation.wording import counted
from annotation.export_folder import FOLDER_NAME_RULE, default_folder_name, is_folder_name, repeat_folder_name
from annotation.services.export import export_downloads, exports
from ui.display import plain
from ui.session import lead_page, service_errors, toast_next_run
from ui.tables import show_table

K_FLASH = "export.flash"
K_SEED = "export.seed"
K_LAST = "export.last_id"
LICENCES = ("cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc0-1.0", "mit", "apache-2.0", "other")


#: what the zip is, and where a person who wants a spreadsheet goes instead
ZIP_HELP = ("The dataset folder byte for byte, for code and `datasets`: every text exactly as written, so a CSV "
            "cell may start with =, +, - or @, which a spreadsheet would run as a formula.")
SPREADSHEET_HELP = ("The pairs of every split in one CSV to open in a spreadsheet: a text that starts with =, +, - "
                    "or @ gets a leading ' so it shows as text. Not the dataset: train on the zip's files.")


def zip_button(export: exports.ExportRecord, key: str) -> None:
    """A download button whose zip is built only when clicked; for a pairs export, beside it the
    pairs as a CSV for a spreadsheet (neutralised), also built on click."""
    if export.holds_its_files:
        why_not = None
    elif export.status == exports.REPLACED:
        why_not = f"Its folder now holds export {export.replaced_by}; repeat it to write it anew."
    else:
        why_not = "The folder is no longer on this server."
    st.download_button(
        "Download the dataset (zip)", data=lambda: export_downloads.zip_of_export(db, actor, export.id),
        file_name=f"{Path(export.path).name}.zip", mime="application/zip", key=key,
        icon=":material/download:", on_click="ignore", disabled=why_not is not None, help=why_not or ZIP_HELP)
    if export.layout.spreadsheet:
        st.download_button(
            "Pairs for a spreadsheet (CSV)", data=lambda: export_downloads.spreadsheet_of_export(db, actor, export.id),
            file_name=f"{Path(export.path).name}-for-spreadsheets.csv", mime="text/csv", key=f"{key}.spreadsheet",
            icon=":material/table_view:", on_click="ignore", disabled=why_not is not None,
            help=why_not or SPREADSHEET_HELP)


def replaced_words(record: exports.ExportRecord) -> str:
    """What a new export did to the exports whose folder it took ("" for none)."""
    if not record.replaces:
        return ""
    return f"; it replaces export {', '.join(map(str, record.replaces))} (same folder)"


actor, db, project = lead_page("Export dataset", flash_key=K_FLASH)

with service_errors():
    ready = exports.export_readiness(db, actor, project.id)
gold_counts = protocol_of(project.settings).gold_counts(ready.gold_by_benchmark)
*gold_columns, c3, c4 = st.columns(len(gold_counts) + 2)
for column, (label, n) in zip(gold_columns, gold_counts):
    column.metric(label, n)
c3.metric("Not settled yet", ready.without_gold, help="Production samples without gold values.")
c4.metric("Open reviews", ready.open_reviews)
if ready.pending_duplicates:
    st.warning(f"{ready.pending_duplicates} near-duplicate marks await a decision on the "
               "**De-duplication** page; pending texts that have gold are exported.")
if ready.n_gold == 0:
    st.info("Nothing to export yet: samples get gold values when their annotations are resolved "
            "(automatically for agreeing pairs, or by a lead on the **Review** page).")

root = exports.export_root()
if K_SEED not in st.session_state:
    st.session_state[K_SEED] = secrets.randbelow(100_000)
with st.form("export.form", border=True):
    st.markdown("**New export**")
    f1, f2 = st.columns([2, 1])
    name = f1.text_input("Folder name", value=default_folder_name(project.name), key="export.name",
                         help=f"Written under {root} on the server.")
    licence = f2.selectbox("Licence", LICENCES, key="export.licence",
                           help="Named in the dataset card (an SPDX-style identifier).")
    g1, g2, g3 = st.columns(3)
    base = g1.number_input("Log base of the values", min_value=1.0001, max_value=1000.0, format="%.4g",
                           value=float(project.settings.log_base), key="export.base",
                           help="Stored values use base 1.1; ξ and ω are re-scaled by ln(1.1)/ln(base).")
    seed = g2.number_input("Split seed", min_value=0, max_value=2**31 - 1, step=1, key=K_SEED,
                           help="The same seed and gold give the same train/validation/test split.")
    other = g3.text_input("Other licence id", key="export.licence_other",
                          help="Used when the licence is 'other', e.g. odc-by.")
    h1, h2 = st.columns(2)
    with_agreement = h1.checkbox("Agreement figures in the card", value=True, key="export.agreement",
                                 help="Before adjudication and on the settled gold, with the adjudication "
                                      "outcome; also in agreement.json beside the card.")
    overwrite = h2.checkbox("Replace the folder if it exists", value=False, key="export.overwrite")
    # named and keyed by project: a click drawn for another project exports nothing
    submitted = st.form_submit_button(f"Export {plain(project.name)}", type="primary",
                                      icon=":material/ios_share:", key=f"export.submit.{project.id}",
                                      disabled=ready.n_gold == 0)
if submitted:
    chosen = other.strip() if licence == "other" else licence
    if not is_folder_name(name):
        st.error(FOLDER_NAME_RULE)
    elif licence == "other" and not chosen:
        st.error("Give the licence identifier, or choose one from the list.")
    else:
        bar = st.progress(0.0, text="Starting…")
        with service_errors():
            record = exports.export_dataset(
                db, actor, project.id, root / name.strip(), base=base, seed=int(seed), licence=chosen,
                overwrite=overwrite, include_agreement=with_agreement,
                progress=lambda f, m: bar.progress(min(max(f, 0.0), 1.0), text=m))
        st.session_state[K_LAST] = record.id
        toast_next_run(K_FLASH, f"Export {record.id}: {counted(record.n_samples, 'sample')} written to {record.path}"
                       + replaced_words(record))
        st.rerun()

with service_errors():
    past_exports = exports.list_exports(db, actor, project.id)
last = next((e for e in past_exports if e.id == st.session_state.get(K_LAST)), None)
if last is not None and last.status == "complete":
    with st.container(border=True):
        st.success(f"Export {last.id} is ready: {plain(last.path)}")
        sizes = last.sizes_text(long=True)  # per benchmark, or the layout's own configuration's
        st.caption(f"{sizes} · {counted(last.n_annotations, 'annotation')} · base {last.base:g} · seed {last.seed}")
        zip_button(last, f"export.zip.last.{last.id}")

st.subheader("Past exports")
if not past_exports:
    st.caption("None yet.")
    st.stop()
table = pd.DataFrame([{
    "Export": e.id,
    "When (UTC)": e.created_at.strftime("%Y-%m-%d %H:%M"),
    "By": e.created_by,
    "Status": e.status_text,
    "Samples": e.n_samples,
    "Annotations": e.n_annotations,
    "Base": e.base,
    "Seed": e.seed,
    "Licence": e.licence,
    "Repeats": f"export {e.reproduces_id}" if e.reproduces_id else "",
    "Folder": e.path + ("" if e.folder_exists or e.status != "complete" else " (gone)"),
} for e in past_exports])
show_table(table, hide_index=True, width="stretch")

# a replaced export can still be repeated (its split membership is kept), not downloaded
repeatable = [e for e in past_exports if e.repeatable]
if repeatable:
    p1, p2, p3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    labels = {e.id: f"Export {e.id} · {e.path}" + ("" if e.replaced_by is None else
                                                   f" · replaced by export {e.replaced_by}") for e in repeatable}
    picked = p1.selectbox("Export", list(labels), key="export.pick", format_func=labels.__getitem__)
    chosen_export = next(e for e in repeatable if e.id == picked)
    with p2:
        zip_button(chosen_export, f"export.zip.{picked}")
    if p3.button("Repeat exactly", key=f"export.repeat.{picked}", icon=":material/replay:",
                 help="Same samples, split, base, seed and licence, into a new folder."):
        folder = root / repeat_folder_name(chosen_export.path)
        with st.spinner("Repeating the export…"), service_errors():
            record = exports.export_dataset(db, actor, project.id, folder, reproduce=picked,
                                             include_agreement=True)
        st.session_state[K_LAST] = record.id
        toast_next_run(K_FLASH, f"Export {record.id} repeats export {picked}: {record.path}")
        st.rerun()
