"""Lead: inter-annotator agreement — headline figures against the thresholds, charts, tables."""

from __future__ import annotations

import math

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from annotation.agreement import ICC_RULE, JACCARD_RULE, PK_RULE, icc_reason, judge
from annotation.axes import axis_by_name
from annotation.csv_safety import safe_csv
from annotation.parameters import PARAMETER_LABELS, PARAMETER_SYMBOLS, PARAMETERS
from annotation.services import agreement
from ui.session import lead_page, service_errors

actor, db, project = lead_page("Agreement")
settings = project.settings

HELP = (
    "**Why ICC(1,1) leads.** Different pairs of annotators rate different samples, so the raters "
    "are *slots* — the first, second … annotator of each sample in submission order — not persons. "
    "The one-way random model ICC(1,1) matches that design; the two-way forms ICC(A,1) and "
    "ICC(C,1) and the k-rater forms are shown beside it. Jaccard compares the (token, axis) label "
    "sets of two annotators; Pk is computed both ways (neither annotator is the reference) and "
    "averaged: lower is better."
)

f1, f2, f3 = st.columns([1, 2, 3])
bench_choice = f1.selectbox("Benchmark", ["all", 1, 2], key="agreement.benchmark")
dates = f2.date_input("Completed between", value=(), key="agreement.dates",
                      help="The day a sample's last annotation was submitted (project time zone).")
with service_errors():
    everyone = agreement.annotators_with_work(db, actor, project.id)
chosen = f3.multiselect("Annotators", everyone, key="agreement.annotators",
                        placeholder="all annotators")
start = dates[0] if len(dates) >= 1 else None
end = dates[1] if len(dates) == 2 else None

with st.spinner("Computing agreement…"), service_errors():
    scope = agreement.project_agreement(
        db, actor, project.id, benchmark=None if bench_choice == "all" else int(bench_choice),
        start=start, end=end, annotators=tuple(chosen))
report = scope.report
st.caption(f"{report.n_samples} samples with two or more annotations · "
           f"{scope.n_single} with only one left out")
if report.n_samples == 0:
    st.info("No sample has two submitted annotations under these filters yet.")
    st.stop()


def _fmt(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


head = report.headline
# each headline figure against the project's threshold, by the rule qualification applies
verdicts = {
    **{f"icc_{p}": judge(head.get(f"icc_{p}"), settings.qualify_icc_min,
                         rule=ICC_RULE.named(f"ICC {PARAMETER_SYMBOLS[p]}"),
                         reason=icc_reason(report.icc[p].n_used, report.icc[p].raters, report.icc[p].problem)
                         if report.icc is not None else "")
       for p in PARAMETERS},
    "jaccard": judge(head.get("jaccard"), settings.qualify_jaccard_min, rule=JACCARD_RULE),
    "pk": judge(head.get("pk"), settings.qualify_pk_max, rule=PK_RULE),
}
cols = st.columns(5)
for col, key, label in zip(cols[:3], ("icc_xi", "icc_omega", "icc_alpha"), ("ICC(1,1) ξ", "ICC(1,1) ω", "ICC(1,1) α")):
    col.metric(label, verdicts[key].shown, help=HELP)
    col.caption(verdicts[key].text)
cols[3].metric("Jaccard (axis labels)", verdicts["jaccard"].shown, help=HELP)
cols[3].caption(verdicts["jaccard"].text)
cols[4].metric("Pk (segmentation)", verdicts["pk"].shown, help=HELP)
cols[4].caption(verdicts["pk"].text)

tab_labels, tab_params, tab_seg, tab_time, tab_pairs = st.tabs(
    ["Axis labels", "Curve parameters", "Segmentation", "Over time", "Annotator pairs"])

with tab_labels:
    kappa = report.kappa
    merged = st.toggle("Merge Generic and Static", key="agreement.merged",
                       help="The pair annotators confuse most; see how much agreement rises.")
    if kappa is not None:
        la = kappa.merged if merged else kappa.unmerged
        k1, k2, k3 = st.columns(3)
        gain = kappa.merged.kappa - kappa.unmerged.kappa
        k1.metric("Cohen's kappa", _fmt(la.kappa),
                  delta=None if merged or math.isnan(gain) else f"{gain:+.3f} with Generic+Static merged")
        k2.metric("Micro precision", _fmt(la.precision))
        k3.metric("Tokens compared", la.n_tokens)
        if la.kappa_note:
            st.caption(la.kappa_note)
        matrix = la.co_occurrence
        labels = ["Generic/Static" if c == "generic/static" else axis_by_name(c).label
                  for c in matrix.index]
        fig = go.Figure(go.Heatmap(z=matrix.values, x=labels, y=labels, colorscale="Blues",
                                   hovertemplate="%{y} × %{x}: %{z} tokens<extra></extra>"))
        fig.update_layout(height=460, margin=dict(l=10, r=10, t=30, b=10),
                          title="Axis co-occurrence (tokens, symmetrised)")
        fig.update_yaxes(autorange="reversed")  # the diagonal runs from top left
        st.plotly_chart(fig, key="agreement.heatmap")
    if report.jaccard is not None:
        st.dataframe(pd.DataFrame([{"axis": axis_by_name(a.axis).label, "Jaccard": a.mean,
                                    "samples": a.n_samples} for a in report.jaccard.per_axis]),
                     hide_index=True)

with tab_params:
    icc = report.icc
    pcols = st.columns(3)
    for col, p in zip(pcols, PARAMETERS):
        label = PARAMETER_LABELS[p]
        first, second = scope.slot_pairs(p)
        fig = px.scatter(x=first, y=second, labels={"x": "first annotator", "y": "second annotator"},
                         title=label, opacity=0.6)
        if first:
            lo, hi = min(first + second), max(first + second)
            fig.add_shape(type="line", x0=lo, y0=lo, x1=hi, y1=hi, line=dict(dash="dot", color="grey"))
        fig.update_layout(height=330, margin=dict(l=10, r=10, t=40, b=10))
        col.plotly_chart(fig, key=f"agreement.scatter.{p}")
    if icc is not None:
        for p in PARAMETERS:
            res = icc[p]
            with st.expander(f"All ICC forms for {p} — {res.n_used} samples used, "
                             f"{res.n_excluded} excluded", icon=":material/table:"):
                if res.problem:
                    st.caption(res.problem)
                else:
                    st.dataframe(res.to_frame())

with tab_seg:
    seg = report.segmentation
    if seg is not None:
        s1, s2, s3 = st.columns(3)
        s1.metric("Pk", _fmt(seg.pk))
        s2.metric("WindowDiff", _fmt(seg.window_diff))
        s3.metric("Boundary similarity", _fmt(seg.boundary_similarity))
    pk = report.per_sample["pk"].dropna()
    fig = px.histogram(pk, nbins=20, labels={"value": "Pk (both ways, averaged)"}, title="Pk per sample")
    fig.add_vline(x=settings.flag_pk_max, line_dash="dash", annotation_text="flag threshold")
    fig.update_layout(height=340, showlegend=False, margin=dict(l=10, r=10, t=40, b=10))
    st.plotly_chart(fig, key="agreement.pk_hist")

with tab_time:
    weeks = pd.DataFrame([{"week": w.week, "samples": w.n_samples, **w.figures} for w in report.weeks])
    if weeks.empty:
        st.caption("No weeks to show.")
    else:
        shown = [c for c in ("jaccard", "kappa", "pk", "icc_xi") if c in weeks]
        weeks[shown] = weeks[shown].astype(float)  # None (not computable that week) → NaN
        fig = px.line(weeks, x="week", y=shown, markers=True, title="Agreement per week")
        fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10))
        st.plotly_chart(fig, key="agreement.weeks")
        st.dataframe(weeks, hide_index=True)

with tab_pairs:
    pairs = pd.DataFrame([{"annotator A": p.annotators[0], "annotator B": p.annotators[1],
                           "samples": p.n_samples, **p.figures} for p in report.pairs])
    st.dataframe(pairs, hide_index=True, width="stretch")

st.download_button("Download the per-sample table (CSV)", safe_csv(report.per_sample),
                   file_name=f"agreement-{project.name}.csv".replace(" ", "_"), mime="text/csv",
                   key="agreement.download")
