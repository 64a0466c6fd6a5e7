"""Lead: train the baselines on an export — launch, watch progress and log, compare results."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots
import streamlit as st

from annotation.wording import counted
from annotation.services.export import exports
from annotation.services.jobs import jobs
from annotation.training import (
    ABLATIONS,
    BASELINE_MODELS,
    DEVICE_PREFERENCES,
    ENCODER_NAMES,
    METRIC_COLUMNS,
    METRIC_LABELS,
    MODEL_NAMES,
    TARGET_KEYS,
    UNDEFINED_REASONS,
)
from annotation.services.model.model_jobs import MODEL_KINDS
from annotation.training.results import metric_withheld
from annotation.training.references import (
    BEATS, MIN_COMPARE_SAMPLES, REFERENCE_LABELS, TIED, UNDECIDED, WORSE, Comparison, ranked)
from ui.model_loop_view import APPLIED_TITLES, applied_jobs, apply_run_controls, model_job_summary
from ui.display import plain
from ui.model_scores import score_predictions_part
from ui.session import lead_page, service_errors, toast_next_run
from ui.tables import show_table

K_FLASH = "training.flash"
K_JOB = "training.job"
K_SEEN = "training.seen_status"
MODEL_LABELS = {"linear": "Linear regression", "svr": "SVR", "xgboost": "XGBoost",
                "ffnn": "Feed-forward network", "bilstm": "Bi-LSTM", "mean": "Mean (reference)"}
ABLATION_LABELS = {"none": "full inputs", "no_axes": "no axis embeddings",
                   "shuffled_axes": "axis order shuffled in training"}
ENCODER_LABELS = {"sbert": "SBERT all-MiniLM-L6-v2 (bundled)", "hashing": "Hashing (fast, for trials)"}
STATUS_ICONS = {"queued": ":material/schedule:", "running": ":material/autorenew:",
                "succeeded": ":material/check_circle:", "failed": ":material/error:",
                "cancelled": ":material/cancel:"}


def _metric_text(value) -> str:  # type: ignore[no-untyped-def]
    """A metric as the table shows it: 4 decimals, or "—" when it is undefined (stored as null)."""
    return "—" if value is None or value != value else f"{float(value):.4f}"


def _interval_text(row: dict) -> str:  # type: ignore[type-arg]
    """The MSE's 95 % bootstrap interval of a row ("—" without one: too few test samples)."""
    mse = ((row.get("score") or {}).get("figures") or {}).get("mse") or {}
    low, high = mse.get("low"), mse.get("high")
    return "—" if low is None or high is None else f"[{low:.4f}, {high:.4f}]"


def _against_text(row: dict) -> str:  # type: ignore[type-arg]
    """How a model's row reads against each reference, shortly ("—" for a reference row)."""
    compared = [Comparison.from_dict(c) for c in (row.get("vs_reference") or {}).values()]
    if not compared:
        return "—"
    if all(c.verdict == UNDECIDED for c in compared):
        return f"not compared (fewer than {MIN_COMPARE_SAMPLES} test samples)"
    short = {BEATS: "beats", WORSE: "worse than", TIED: "not told apart from", UNDECIDED: "not compared with"}
    return " · ".join(f"{short[c.verdict]} {REFERENCE_LABELS[c.reference].removeprefix('Reference: ')}"
                      for c in compared)


def _n_test(job: jobs.JobInfo, row: dict) -> int:  # type: ignore[type-arg]
    """The test samples a row's metrics rest on (a run recorded before rows kept it: its split's size)."""
    return int(row.get("n_test") or (job.result.get("split_sizes") or {}).get("test") or 0)


def results_frame(job: jobs.JobInfo) -> pd.DataFrame:
    """The paper-style table of a finished job: one row per model (and ablation), then the
    trivial references, each with the test samples it rests on; an undefined metric, or one the
    rule withholds on too few test samples, reads "—" (:func:`undefined_note` says why), never
    "None" or NaN; each model's MSE interval and how it reads against the references."""
    rows = [*(job.result.get("rows") or []), *(job.result.get("references") or [])]
    return pd.DataFrame([{
        "model": REFERENCE_LABELS.get(r["model"]) or MODEL_LABELS.get(r["model"], r["model"]),
        "inputs": "no text" if r["model"] in REFERENCE_LABELS else ABLATION_LABELS.get(r["ablation"], r["ablation"]),
        "n (test)": _n_test(job, r),
        **{METRIC_LABELS[c]: "—" if metric_withheld(c, _n_test(job, r)) else _metric_text(r.get(c))
           for c in METRIC_COLUMNS},
        "MSE 95 % interval": _interval_text(r), "against the references": _against_text(r),
    } for r in rows], columns=["model", "inputs", "n (test)", *(METRIC_LABELS[c] for c in METRIC_COLUMNS),
                               "MSE 95 % interval", "against the references"])


def ranking_note(job: jobs.JobInfo) -> str | None:
    """Why the run's test split cannot rank its models, or their order by the upper end of the
    MSE interval (None for a run recorded before either was)."""
    ranking = job.result.get("ranking")
    if ranking is None:
        return None
    if ranking:
        return ranking[0].upper() + ranking[1:] + "."
    rows = [SimpleNamespace(**r) for r in job.result.get("rows") or []]
    order = ", ".join(f"{i}. {MODEL_LABELS.get(r.model, r.model)}"
                      + ("" if r.ablation == "none" else f" ({ABLATION_LABELS.get(r.ablation, r.ablation)})")
                      for i, r in enumerate(ranked(rows), start=1))
    return f"Ranked by the upper end of each model's MSE interval, not its point value: {order}."


def undefined_note(jobs_shown: list[jobs.JobInfo]) -> str | None:
    """One line naming each metric shown as "—" and why, or None when every metric has a value."""
    withheld = {c: why for j in jobs_shown for r in j.result.get("rows") or []
                for c in METRIC_COLUMNS if (why := metric_withheld(c, _n_test(j, r)))}
    missing = [c for c in METRIC_COLUMNS if c not in withheld
               and any(r.get(c) is None for j in jobs_shown for r in j.result.get("rows") or [])]
    if not missing and not withheld:
        return None
    notes = [f"{METRIC_LABELS[c]} {why.removeprefix('— ')}" for c, why in withheld.items()]
    notes += [f"{METRIC_LABELS[c]} undefined: {UNDEFINED_REASONS.get(c, 'cannot be computed on these samples')}"
              for c in missing]
    return "— " + "; ".join(notes) + "."


def loss_chart(job: jobs.JobInfo) -> go.Figure | None:
    fig = go.Figure()
    for r in job.result.get("rows") or []:
        curve = r.get("loss_curve") or []
        if not curve:
            continue
        name = f"{MODEL_LABELS.get(r['model'], r['model'])} · {ABLATION_LABELS.get(r['ablation'], r['ablation'])}"
        epochs = [p[0] for p in curve]
        fig.add_trace(go.Scatter(x=epochs, y=[p[1] for p in curve], name=f"{name} (train)", mode="lines"))
        fig.add_trace(go.Scatter(x=epochs, y=[p[2] for p in curve], name=f"{name} (validation)",
                                 mode="lines", line=dict(dash="dot")))
    if not fig.data:
        return None
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="epoch",
                      yaxis_title="loss (z-scored MSE)", legend=dict(orientation="h", y=-0.25))
    return fig


def scatter_chart(job: jobs.JobInfo) -> go.Figure:
    """Predicted against gold on the test split, one panel per parameter, one colour per model
    (a shared legend: click a model to hide it everywhere)."""
    fig = make_subplots(rows=1, cols=len(TARGET_KEYS), subplot_titles=TARGET_KEYS)
    colours = px.colors.qualitative.Plotly
    for k, series in enumerate(job.prediction_series()):
        model, ablation, rows = series.model, series.ablation, series.rows
        label = MODEL_LABELS.get(model, model) + ("" if ablation == "none" else f" · {ABLATION_LABELS.get(ablation, ablation)}")
        for col, target in enumerate(TARGET_KEYS, start=1):
            fig.add_trace(go.Scatter(
                x=[p[f"{target}_gold"] for p in rows], y=[p[f"{target}_pred"] for p in rows],
                mode="markers", name=label, legendgroup=series.key, showlegend=col == 1, opacity=0.6,
                marker=dict(size=5, color=colours[k % len(colours)])), row=1, col=col)
    for col, target in enumerate(TARGET_KEYS, start=1):
        values = [v for trace in fig.data if trace.xaxis == ("x" if col == 1 else f"x{col}")
                  for v in (*trace.x, *trace.y) if v is not None]
        if values:
            lo, hi = min(values), max(values)
            fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", showlegend=False,
                                     line=dict(color="grey", dash="dash"), hoverinfo="skip"), row=1, col=col)
        fig.update_xaxes(title_text="gold", row=1, col=col)
        fig.update_yaxes(title_text="predicted" if col == 1 else None, row=1, col=col)
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=40, b=10))
    return fig


actor, db, project = lead_page("Baseline training", flash_key=K_FLASH)
with service_errors():
    past_exports = [e for e in exports.list_exports(db, actor, project.id) if e.status == "complete"]
    # the baselines train on a single-texts export's benchmark configurations only
    trainable = [e for e in past_exports if e.layout.trainable]
    all_jobs = jobs.list_jobs(db, actor, project.id)

launcher = jobs.launcher_command()
st.caption("Trains the baselines of the Chronocept paper on an export — the parent-text embedding "
           "followed by one embedding per axis — and scores them on its test split. The job runs in "
           "a process of its own: it goes on when you leave this page or the app restarts. "
           + (f"Jobs start through the launcher `{launcher}`." if launcher else
              "Jobs run on this server, on its GPU when it has one."))

if not trainable:
    st.info("No export yet: make one on the **Export dataset** page first." if not past_exports else
            "The baselines train on a single-texts export; a context-pairs (tvcp) export is "
            "scored under **Score predictions** below.")
else:
    with st.form("training.launch", border=True):
        st.markdown("**New training run**")
        c1, c2, c3 = st.columns([3, 1, 1])
        export_id = c1.selectbox(
            "Export", [e.id for e in trainable], key="training.export",
            format_func=lambda i: next(f"Export {e.id} · {e.created_at:%Y-%m-%d %H:%M} · {counted(e.n_samples, 'sample')}"
                                       for e in trainable if e.id == i))
        benchmark = c2.selectbox("Benchmark", [1, 2], key="training.benchmark")
        seed = c3.number_input("Seed", min_value=0, max_value=2**31 - 1, value=13, step=1, key="training.seed")
        models = st.multiselect("Models", list(MODEL_NAMES), default=list(BASELINE_MODELS),
                                format_func=MODEL_LABELS.get, key="training.models")
        d1, d2, d3 = st.columns(3)
        encoder = d1.selectbox("Text encoder", list(ENCODER_NAMES), format_func=ENCODER_LABELS.get,
                               key="training.encoder")
        ablations = d2.multiselect("Inputs", list(ABLATIONS), default=["none"], format_func=ABLATION_LABELS.get,
                                   key="training.ablations",
                                   help="Ablations: train again without the axis embeddings, or with the "
                                        "axis order shuffled in training only.")
        device = d3.radio("Device", list(DEVICE_PREFERENCES), horizontal=True, key="training.device",
                          help="auto: CUDA when the machine has it, else the CPU.")
        max_epochs = st.slider("Epoch limit of the neural networks", 5, 300, 100, key="training.epochs",
                               help="Early stopping on the validation loss usually ends sooner.")
        launch = st.form_submit_button("Launch training", type="primary", icon=":material/rocket_launch:")
    if launch:
        if not models or not ablations:
            st.error("Choose at least one model and one kind of input.")
        else:
            with service_errors():
                job = jobs.launch_training(db, actor, project.id, export_id, {
                    "benchmark": benchmark, "models": models, "encoder": encoder, "ablations": ablations,
                    "device": device, "seed": int(seed), "max_epochs": int(max_epochs)})
            st.session_state[K_JOB] = job.id
            toast_next_run(K_FLASH, f"Training job {job.id} launched.")
            st.rerun()



def score_predictions() -> None:
    """Scoring a model built elsewhere, and the export's leaderboard (ui.model_scores)."""
    st.divider()
    score_predictions_part(db, actor, project.id, past_exports, lambda model, ablation: (
        MODEL_LABELS.get(model, model) + ("" if ablation == "none" else f" · {ABLATION_LABELS.get(ablation, ablation)}")))


if not all_jobs:
    score_predictions()
    st.stop()

st.subheader("Runs")
ids = [j.id for j in all_jobs]
if st.session_state.get(K_JOB) not in ids:
    st.session_state[K_JOB] = ids[0]
by_id = {j.id: j for j in all_jobs}
chosen = st.selectbox(
    "Run", ids, key=K_JOB,
    # no status in the label: the fragment below shows it live (a label would lag behind)
    format_func=lambda i: (f"Job {i} · export {by_id[i].export_id} · "
                           + (', '.join(by_id[i].config.get('models', [])) if by_id[i].kind == jobs.TRAINING else
                              f"{by_id[i].kind} with run {by_id[i].config.get('run_job_id')}")
                           + f" · {by_id[i].created_at:%Y-%m-%d %H:%M}"))


def live_job(job_id: int) -> None:
    """Progress, message and log tail of one job, refreshed every two seconds while it runs."""
    with service_errors():
        job = jobs.get_job(db, actor, job_id)
    seen = st.session_state.get(K_SEEN, {})
    if seen.get(job_id) not in (None, job.status) and job.finished:
        # the results and the list of runs outside this fragment appear once the job is done
        seen[job_id] = job.status
        st.session_state[K_SEEN] = seen
        st.rerun(scope="app")
    seen[job_id] = job.status
    st.session_state[K_SEEN] = seen
    head, button = st.columns([4, 1], vertical_alignment="center")
    took = f" · {job.seconds:.0f} s" if job.seconds is not None else ""
    where = f" · {job.host} pid {job.pid}" if job.host else ""
    head.markdown(f"{STATUS_ICONS[job.status]} **{job.status.capitalize()}** — {plain(job.message)}{took}{plain(where)}")
    if not job.finished:
        if button.button("Cancel", key=f"training.cancel.{job.id}", icon=":material/stop_circle:",
                         disabled=job.cancel_requested):
            with service_errors():
                jobs.cancel_job(db, actor, job.id)
            st.rerun()
    st.progress(min(max(job.progress, 0.0), 1.0))
    if job.log:
        with st.expander("Log", expanded=not job.finished or job.status == "failed"):
            st.code("\n".join(job.log.splitlines()[-40:]), language=None)


job = by_id[chosen]
# refreshes itself every two seconds while the job can still change; a finished one stays put
st.fragment(live_job, run_every=None if job.finished else 2.0)(chosen)
if job.status == "succeeded" and job.result.get("rows"):
    result = job.result
    sizes = result.get("split_sizes") or {}
    st.caption(f"Benchmark {result.get('benchmark')} · encoder {result.get('encoder')} · "
               f"device {result.get('device')} · "
               + (f"samples: {', '.join(f'{split} {n}' for split, n in sizes.items())} · " if sizes else "")
               + f"{result.get('metric_scale', '')}")
    table = results_frame(job)
    show_table(table, hide_index=True, width="stretch", key=f"training.results.{job.id}",
               download=f"training-job-{job.id}.csv", download_label="Download the results (CSV)")
    if (note := undefined_note([job])) is not None:
        st.caption(note)
    if (note := ranking_note(job)) is not None:
        st.markdown(plain(note))
    chart = loss_chart(job)
    if chart is not None:
        st.markdown("**Loss curves** (neural networks)")
        st.plotly_chart(chart, key=f"training.loss.{job.id}")
    st.markdown("**Predicted against gold** on the test split")
    st.plotly_chart(scatter_chart(job), key=f"training.scatter.{job.id}")
    st.caption(f"Weights, metrics and predictions: {plain(job.run_dir)}")
if job.status == "succeeded" and job.kind == jobs.TRAINING:
    # the Run box stays on the run: the jobs applying it are followed here, below its controls
    apply_run_controls(db, actor, project.id, job, flash_key=K_FLASH)
    for applied in applied_jobs(all_jobs, job):
        st.markdown(f"**{APPLIED_TITLES[applied.kind]} with run {job.id}** · job {applied.id}")
        st.fragment(live_job, run_every=None if applied.finished else 2.0)(applied.id)
        if applied.status == "succeeded":
            model_job_summary(applied)
elif job.status == "succeeded" and job.kind in MODEL_KINDS:
    model_job_summary(job)

finished = [j for j in all_jobs if j.status == "succeeded" and j.result.get("rows")]
if len(finished) > 1:
    st.subheader("Runs side by side")
    compare = st.multiselect("Compare", [j.id for j in finished], default=[j.id for j in finished[:2]],
                             format_func=lambda i: f"Job {i}", key="training.compare")
    frames = []
    for job_id in compare:
        frame = results_frame(by_id[job_id])
        frame.insert(0, "job", job_id)
        frames.append(frame)
    if frames:
        show_table(pd.concat(frames, ignore_index=True), hide_index=True, width="stretch")
        if (note := undefined_note([by_id[i] for i in compare])) is not None:
            st.caption(note)

score_predictions()
