"""The Training page's "Score predictions" part: a lead uploads a model's predictions for an
export's test split, and the export's leaderboard shows them beside the baselines of its
training runs (:mod:`annotation.services.model.model_scores`). Names and file names are user text:
table cells and :func:`ui.display.plain` show them literally."""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import pandas as pd
import streamlit as st

from annotation.services.model import model_scores
from annotation.services.errors import ServiceError
from annotation.services.export.export_records import ExportRecord
from annotation.services.model.model_scores import Leaderboard
from annotation.training.change_scoring import CHANGE_METRIC_LABELS, CHANGE_METRICS, MIN_INTERVAL_TARGETS, TVCP
from annotation.training.scoring import MIN_INTERVAL_SAMPLES, SCORE_LABELS, SCORE_METRICS, figure_text
from annotation.training.references import ranking_withheld
from annotation.training.submissions import MAX_NAME_CHARS, MAX_PREDICTION_BYTES, MAX_PREDICTION_LINES
from annotation.wording import counted
from db.engine import Database
from annotation.services.authz import Actor
from ui.display import plain
from ui.tables import show_table

K_EXPORT = "training.score.export"
K_BENCHMARK = "training.score.benchmark"
K_NAME = "training.score.name"
K_FILE = "training.score.file"
K_FORM = "training.score"
KIND_LABELS = {model_scores.SUBMISSION: "submitted", model_scores.BASELINE: "baseline",
               model_scores.REFERENCE: "reference (no text)"}

#: labels a baseline row by its model and ablation
EntryLabel = Callable[[str, str], str]


def _metrics(board: Leaderboard) -> tuple[tuple[str, ...], Mapping[str, str]]:
    """The figures of the board's kind (change labels or curves) and their labels."""
    if board.benchmark == TVCP:
        return CHANGE_METRICS, CHANGE_METRIC_LABELS
    return SCORE_METRICS, SCORE_LABELS


def unranked_because(board: Leaderboard) -> str:
    """Why the board's test split ranks nothing ("" when it can rank; a 10 % test share assumed)."""
    return ranking_withheld(max((e.n_test for e in board.entries), default=0), 0.1)


def leaderboard_frame(board: Leaderboard, baseline_label: EntryLabel) -> pd.DataFrame:
    """The leaderboard as a table: one row per entry (best first by the interval: the upper end of
    the MSE's, or the lower end of the accuracy's for change labels), each figure as its value and
    95 % interval ("—" when undefined); no rank on a test split too small to rank on
    (:func:`unranked_because`), the trivial references among the rows."""
    metrics, labels = _metrics(board)
    size = "test pairs" if board.benchmark == TVCP else "test samples"
    rows = []
    unranked = bool(unranked_because(board))
    for rank, entry in enumerate(board.entries, start=1):
        name = (entry.name if entry.kind in (model_scores.SUBMISSION, model_scores.REFERENCE) else
                f"{baseline_label(entry.model or '', entry.ablation or '')} (job {entry.job_id})")
        rows.append({"rank": "—" if unranked else rank, "model": name, "kind": KIND_LABELS.get(entry.kind, entry.kind),
                     "by": entry.by, "when": f"{entry.at:%Y-%m-%d %H:%M}" if entry.at else "—",
                     size: entry.n_test, **{labels[m]: figure_text(entry.figures[m]) for m in metrics}})
    return pd.DataFrame(rows, columns=["rank", "model", "kind", "by", "when", size, *(labels[m] for m in metrics)])


def leaderboard_notes(board: Leaderboard) -> list[str]:
    """One line per reason a cell reads "—" or a value has no interval."""
    metrics, labels = _metrics(board)
    undefined: dict[str, set[str]] = {}
    no_interval: dict[str, set[str]] = {}
    for entry in board.entries:
        for name in metrics:
            figure = entry.figures[name]
            if not math.isfinite(figure.value):
                undefined.setdefault(figure.undefined or "cannot be computed", set()).add(labels[name])
            elif figure.no_interval and not math.isfinite(figure.low):
                no_interval.setdefault(figure.no_interval, set()).add(entry.kind)
    # a figure the rule withholds ("needs ≥ 30 test samples") is not undefined: the data gave one
    notes = [f"— {', '.join(sorted(labels))}: {'withheld' if why.startswith('needs ≥') else 'undefined'}, {why}."
             for why, labels in undefined.items()]
    withheld = unranked_because(board)
    if board.entries and withheld and board.benchmark != TVCP:
        notes.insert(0, withheld[0].upper() + withheld[1:] + ".")
    notes += [f"No interval ({' and '.join(KIND_LABELS.get(k, k) for k in sorted(kinds))} rows): {why}."
              for why, kinds in no_interval.items()]
    return notes


def score_predictions_part(db: Database, actor: Actor, project_id: int, complete: Sequence[ExportRecord],
                           baseline_label: EntryLabel) -> None:
    """The upload form, the outcome of the last upload, and the chosen export's leaderboard."""
    if not complete:   # the page says how to make an export
        return
    st.subheader("Score predictions")
    st.caption(
        "Score a model built elsewhere on an export's test split: the baselines' metrics, the mean W1 "
        "to the gold curves, and seeded bootstrap 95% intervals (1,000 resamples of the test samples; "
        f"none on fewer than {MIN_INTERVAL_SAMPLES}). The file: JSON Lines or CSV with `_id`, `xi`, "
        "`omega`, `alpha` in the export's log base, one line per test sample of the benchmark "
        "(a training run's `predictions/…csv` works too); up to "
        f"{MAX_PREDICTION_BYTES // 2**20} MB and {MAX_PREDICTION_LINES:,} lines. A file with any bad "
        "line is refused whole. Scores are kept in the export's folder (`scores/`).")
    c1, c2 = st.columns([3, 1])
    export_id = c1.selectbox(
        "Export", [e.id for e in complete], key=K_EXPORT,
        format_func=lambda i: next(f"Export {e.id} · {e.created_at:%Y-%m-%d %H:%M} · {counted(e.n_samples, 'sample')}"
                                   for e in complete if e.id == i))
    pairs = next(e for e in complete if e.id == export_id).layout.scoring == "change"
    # a context-pairs export is scored on its change labels (its own key: the choices differ)
    benchmark: int | str = c2.selectbox("Benchmark", [TVCP], key=K_BENCHMARK + ".tvcp",
                                        format_func=lambda _: "change labels (tvcp)") if pairs else \
        c2.selectbox("Benchmark", [1, 2], key=K_BENCHMARK)
    if pairs:
        st.caption("This export holds context pairs: upload predicted change labels — JSON Lines or CSV with "
                   "`_id` and `change` (decreased, neutral, increased, or 0, 1, 2 as the TVCP reader's label "
                   "map), one line per test pair. Scored by accuracy over the pairs and exact match over the "
                   "targets (all of a target's follow-ups right), the TVCP paper's metrics; bootstrap 95% "
                   f"intervals over the targets (none on fewer than {MIN_INTERVAL_TARGETS}).")
    with st.form(K_FORM, border=True):
        name = st.text_input("Name of the model", max_chars=MAX_NAME_CHARS, key=K_NAME,
                             placeholder="e.g. our fine-tuned encoder, run 3")
        # the uploader's own limit is the scorer's (the server's maxUploadSize is for every uploader)
        upload = st.file_uploader("Predictions (JSON Lines or CSV)", type=["jsonl", "ndjson", "json", "csv"],
                                  key=K_FILE, max_upload_size=MAX_PREDICTION_BYTES // 2**20)
        submitted = st.form_submit_button("Score", icon=":material/leaderboard:")
    if submitted:
        if upload is None:
            st.error("Choose a predictions file to score.")
        else:
            try:
                with st.spinner("Scoring…"):
                    entry = model_scores.score_submission(db, actor, project_id, export_id, upload.getvalue(),
                                                          upload.name, name, benchmark)
            except ServiceError as exc:
                st.error(plain(exc))   # one line: the file's name, line and reason
            else:
                st.success(plain(f"Scored “{entry.name}” on {counted(entry.n_test, 'test pair')}: accuracy "
                                 f"{figure_text(entry.figures['accuracy'])}, exact match "
                                 f"{figure_text(entry.figures['exact_match'])}." if benchmark == TVCP else
                                 f"Scored “{entry.name}” on {counted(entry.n_test, 'test sample')}: MSE "
                                 f"{figure_text(entry.figures['mse'])}."))
    try:
        board = model_scores.leaderboard(db, actor, project_id, export_id, benchmark)
    except ServiceError as exc:
        st.warning(plain(exc))
        return
    st.markdown(f"**Leaderboard** — export {export_id}, "
                + ("change labels" if benchmark == TVCP else f"benchmark {benchmark}"))
    if not board.entries:
        st.caption("Nothing scored on this benchmark yet: no finished training run and no submission.")
    else:
        show_table(leaderboard_frame(board, baseline_label), hide_index=True, width="stretch",
                   key=f"training.leaderboard.{export_id}.{benchmark}",
                   download=f"leaderboard-export-{export_id}-benchmark-{benchmark}.csv",
                   download_label="Download the leaderboard (CSV)")
        st.caption("Accuracy over the test pairs, exact match over the test targets. Best first by the "
                   "lower end of the accuracy's interval (by the accuracy where there is none)."
                   if benchmark == TVCP else
                   "Point metrics on z-scored targets (training-split mean and SD), averaged over ξ, ω, α; "
                   "curve scores and W1 in log-time units of the export's base. Best first by the upper end "
                   "of the MSE's interval, not its point (by the MSE where there is none). The references "
                   "use no text: the training split's mean curve, and the mean curve of the training samples "
                   "sharing each axis.")
        for note in leaderboard_notes(board):
            st.caption(plain(note))
    if board.unreadable:
        st.warning(plain(f"{counted(len(board.unreadable), 'kept score file')} could not be read and "
                         f"{'is' if len(board.unreadable) == 1 else 'are'} left out: {', '.join(board.unreadable)}"))
