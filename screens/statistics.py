"""Lead: statistics of an export — split sizes, axis distribution, text length, parameters,
histograms and an overlay of gold curves."""

from __future__ import annotations

import random

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from annotation.wording import counted
from annotation.axes import AXES
from annotation.corpus.dataset_stats import TARGET_KEYS
from annotation.services.export import exports
from annotation.corpus.splits import SPLITS
from annotation.timeaxis import DEFAULT_BASE, convert_base, tick_positions
from ui.display import curve_polyline, plain
from ui.session import lead_page, service_errors
from ui.tables import show_table

TARGET_LABELS = {"location": "location ξ", "scale": "scale ω", "skewness": "skewness α"}
N_CURVES = 40


def _fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


actor, db, project = lead_page("Dataset statistics")
with service_errors():
    past_exports = [e for e in exports.list_exports(db, actor, project.id) if e.status == "complete"]
if not past_exports:
    st.info("No export yet. Statistics describe an export: make one on the **Export dataset** page.")
    st.stop()
picked = st.selectbox(
    "Export", [e.id for e in past_exports], key="stats.export",
    format_func=lambda i: next(f"Export {e.id} · {e.created_at:%Y-%m-%d %H:%M} · {counted(e.n_samples, 'sample')}"
                               for e in past_exports if e.id == i))
record = next(e for e in past_exports if e.id == picked)
if record.layout.no_statistics:  # the statistics below are of curves over segmented texts
    st.info(f"This export {record.layout.no_statistics}. {record.layout.noun.capitalize()}s per split: "
            + " · ".join(f"{split} {n:,}" for split, n in record.own_sizes.items()) + ".")
    st.stop()
with st.spinner("Reading the export…"), service_errors():
    result = exports.export_statistics(db, actor, picked)
st.caption(f"Folder {plain(result.export.path)} · log base {result.base:g} · seed {result.export.seed} · "
           f"licence {plain(result.export.licence)}")
if not result.statistics:
    st.info("This export has no samples.")
    st.stop()

sizes = pd.DataFrame([{"Benchmark": f"benchmark {b}", **stats.split_sizes,
                       "total": stats.overall.n_samples} for b, stats in result.statistics.items()])
st.subheader("Split sizes")
show_table(sizes, hide_index=True, width="content")

tabs = st.tabs([f"Benchmark {b}" for b in result.statistics])
for tab, (b, stats) in zip(tabs, result.statistics.items()):
    with tab:
        overall = stats.overall
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Samples", overall.n_samples)
        m2.metric("Tokens per text", f"{_fmt(overall.token_length.mean, 1)} ± {_fmt(overall.token_length.sd, 1)}",
                  help="Mean ± standard deviation of the token count of the parent texts.")
        axes_used = sum(1 for v in overall.axis_counts.values() if v)
        m3.metric("Axes in use", f"{axes_used} of {len(AXES)}")
        m4.metric("Annotations in the export", result.export.n_annotations, help="Both benchmarks together.")

        st.markdown("**Axis distribution** — share of samples using each axis")
        rows = []
        for split, figures in [("all", overall), *stats.by_split.items()]:
            for axis in AXES:
                rows.append({"axis": axis.label, "split": split,
                             "share": figures.axis_shares[axis.export_key],
                             "samples": figures.axis_counts[axis.export_key]})
        frame = pd.DataFrame(rows)
        chart = px.bar(frame, x="axis", y="share", color="split", barmode="group",
                       hover_data=["samples"], category_orders={"split": ["all", *SPLITS]})
        chart.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10), yaxis_tickformat=".0%")
        st.plotly_chart(chart, key=f"stats.axes.{b}")

        st.markdown(f"**Parameters** (log base {result.base:g})")
        show_table(pd.DataFrame([{
            "parameter": TARGET_LABELS[key],
            **{f"{split} mean ± SD": f"{_fmt(fig.targets[key].mean)} ± {_fmt(fig.targets[key].sd)}"
               for split, fig in [("all", overall), *stats.by_split.items()]},
        } for key in TARGET_KEYS]), hide_index=True, width="stretch")

        records = [r for split in SPLITS for r in result.records[b].get(split, [])]
        hist_cols = st.columns(3)
        for col, key in zip(hist_cols, TARGET_KEYS):
            values = pd.DataFrame({TARGET_LABELS[key]: [r["target_values"][key] for r in records]})
            fig = px.histogram(values, x=TARGET_LABELS[key], nbins=30)
            fig.update_layout(height=240, margin=dict(l=10, r=10, t=10, b=10), showlegend=False)
            col.plotly_chart(fig, key=f"stats.hist.{b}.{key}")

        st.markdown(f"**Gold curves** — {counted(min(N_CURVES, len(records)), 'sample')} drawn at random")
        drawn = random.Random(f"{picked}-{b}").sample(records, min(N_CURVES, len(records)))
        overlay = go.Figure()
        for r in drawn:
            t = r["target_values"]
            xi, omega, alpha = convert_base(t["location"], t["scale"], t["skewness"], result.base, DEFAULT_BASE)
            line = curve_polyline(xi, omega, alpha)
            if line:
                overlay.add_trace(go.Scatter(x=[p[0] for p in line], y=[p[1] for p in line], mode="lines",
                                             line=dict(width=1), opacity=0.5, name=r["_id"],
                                             hovertemplate=f"{r['_id']}<extra></extra>"))
        ticks = tick_positions(DEFAULT_BASE)
        overlay.update_layout(height=320, showlegend=False, margin=dict(l=10, r=10, t=10, b=10),
                              xaxis=dict(tickvals=[t[0] for t in ticks], ticktext=[t[1] for t in ticks],
                                         title="time from the text's moment"),
                              yaxis=dict(title="validity", range=[0, 1.05]))
        st.plotly_chart(overlay, key=f"stats.curves.{b}")
