"""Lead: inter-annotator agreement — headline figures with their 95 % intervals against the
thresholds, charts, tables.

At 100k samples the page stays light: histograms are binned here (numpy) rather than sending
every value to the browser, the parameter scatters become 2-D histograms above
:data:`SCATTER_POINTS` samples, only the open tab runs, and a large per-sample CSV is written
only when the lead asks for it (:mod:`ui.table_download`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from annotation.wording import counted
from annotation.agreement import ICC_RULE, JACCARD_RULE, PK_RULE, judge
from annotation.agreement.published import breakdown_row, breakdown_rules, headline_figures
from annotation.agreement.curve_agreement import w1_time_factor
from annotation.agreement.intervals import DEFAULT_SEED, default_resamples
from annotation.agreement.krippendorff_alpha import ALPHA_LABELS
from annotation.axes import axis_by_name
from annotation.parameters import PARAMETER_LABELS, PARAMETER_SYMBOLS, PARAMETERS
from annotation.services.quality import agreement
from ui.display import plain
from ui.session import lead_page, service_errors
from ui.agreement_charts import SCATTER_POINTS, pairs_figure
from ui.pair_agreement_view import show_pair_agreement
from ui.table_download import table_download
from ui.tables import show_table

actor, db, project = lead_page("Agreement")
K_TAB = "agreement.tab"
K_MERGED = "agreement.merged_kept"  # the Merge toggle's choice
TABS = ("Curves", "Axis labels", "Curve parameters", "Segmentation", "Over time", "Annotator pairs",
        "Review outcomes")
settings = project.settings

HELP = (
    "**Why ICC(1,1) leads.** Different pairs of annotators rate different samples, so the raters "
    "are *slots* — the first, second … annotator of each sample in submission order — not persons. "
    "The one-way random model ICC(1,1) matches that design; the two-way forms ICC(A,1) and "
    "ICC(C,1) and the k-rater forms are shown beside it. Jaccard compares the (token, axis) label "
    "sets of two annotators; Pk is computed both ways (neither annotator is the reference) and "
    "averaged: lower is better. W1 is how far apart two annotators' validity curves are on the "
    "log-time axis (Wasserstein-1, in base-1.1 log-minute units; ×1.1^W1 in time). Krippendorff's "
    "α is chance-corrected: 1 perfect, 0 chance. Every interval is a 95 % bootstrap interval "
    "(samples resampled, seeded: the same data gives the same interval)."
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
st.caption(f"{counted(report.n_samples, 'sample')} with two or more annotations · "
           f"{scope.n_single} with only one left out")
if report.n_samples == 0:
    st.info("No sample has two submitted annotations under these filters yet.")
    st.stop()


def _fmt(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


# each headline figure through the one rule of what a published figure needs (annotation.publishable):
# its n, or "—" with the rule that withheld it; then against the project's threshold
published = headline_figures(report)


def _value(name: str) -> float | None:
    fig = published.get(name)
    return None if fig is None else fig.value


def _withheld(name: str) -> str:
    fig = published.get(name)
    return "" if fig is None else fig.withheld


verdicts = {
    **{f"icc_{p}": judge(_value(f"icc_{p}"), settings.qualify_icc_min,
                         rule=ICC_RULE.named(f"ICC {PARAMETER_SYMBOLS[p]}"), reason=_withheld(f"icc_{p}"))
       for p in PARAMETERS},
    "jaccard": judge(_value("jaccard"), settings.qualify_jaccard_min, rule=JACCARD_RULE, reason=_withheld("jaccard")),
    "pk": judge(_value("pk"), settings.qualify_pk_max, rule=PK_RULE, reason=_withheld("pk")),
}


def _n(name: str) -> str:
    fig = published.get(name)
    return f"n = {fig.n:,}" if fig is not None else "n = 0"


def _ci(name: str, digits: int = 3) -> str:
    """"95 % CI [lo, hi]", or why there is none."""
    fig = published.get(name)
    if fig is None or fig.interval is None:
        return "no interval: too few samples"
    lo, hi = fig.interval
    return f"95 % CI [{lo:.{digits}f}, {hi:.{digits}f}]"


def _caption(name: str) -> str:
    """"n = 52 · 95 % CI [lo, hi] · <verdict>", or "n = 8 · — <the rule that withheld it>"."""
    verdict = verdicts[name]
    return f"{_n(name)} · {verdict.text}" if not verdict.defined else f"{_n(name)} · {_ci(name)} · {verdict.text}"


cols = st.columns(5)
for col, key, label in zip(cols[:3], ("icc_xi", "icc_omega", "icc_alpha"), ("ICC(1,1) ξ", "ICC(1,1) ω", "ICC(1,1) α")):
    col.metric(label, verdicts[key].shown, help=HELP)
    col.caption(_caption(key))
cols[3].metric("Jaccard (axis labels)", verdicts["jaccard"].shown, help=HELP)
cols[3].caption(_caption("jaccard"))
cols[4].metric("Pk (segmentation)", verdicts["pk"].shown, help=HELP)
cols[4].caption(_caption("pk"))

cols = st.columns(5)
w1 = _value("w1")
cols[0].metric("Curve distance W1", "—" if w1 is None else f"×{w1_time_factor(w1):.2f}", help=HELP)
cols[0].caption(f"{_n('w1')} · — {_withheld('w1')}" if w1 is None else
                f"{_n('w1')} · mean W1 {w1:.2f} log-time units, {_ci('w1', 2)} · flag above {settings.flag_w1_max:g}")
for col, key in zip(cols[1:], ("alpha_xi", "alpha_omega", "alpha_alpha", "alpha_labels")):
    value = _value(key)
    col.metric(ALPHA_LABELS[key], _fmt(value), help=HELP)
    col.caption(f"{_n(key)} · {_ci(key)}" if value is not None else f"{_n(key)} · — {_withheld(key)}")
st.caption("n: the samples a figure rests on (tokens for the axis labels' α); a figure with too few is "
           "withheld (—) with the rule it needs: ICC and Krippendorff's α 30, Jaccard, Pk and W1 10 "
           "(the dataset card follows the same rule).")
st.caption(f"Intervals: 95 % bootstrap, {default_resamples(report.n_samples)} resamples of the "
           f"samples, seed {DEFAULT_SEED}.")
if scope.pairs is not None:  # a context-pairs project: the change label, both curves, the reference
    show_pair_agreement(report, scope.pairs)

# Lazy tabs: only the open tab's content runs and is sent (a tab click reruns the page, the report
# coming from the cache). All seven drawn on every run, three 5,000-point WebGL scatters among them,
# took the browser seconds at 20,000 samples.
tab_curves, tab_labels, tab_params, tab_seg, tab_time, tab_pairs, tab_review = st.tabs(
    list(TABS), key=K_TAB, on_change="rerun")


def _histogram(values: pd.Series, bins: int, title: str, x_label: str, threshold: float,
               key: str) -> None:
    """A histogram binned here (numpy), with the project's threshold as a dashed line."""
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        st.caption(f"{title}: no sample has this figure yet.")
        return
    top = max(float(finite.max()), threshold) * 1.06 or 1.0
    counts, edges = np.histogram(finite, bins=bins, range=(0.0, top))
    fig = go.Figure(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges),
                           hovertemplate="%{x:.3g}: %{y} samples<extra></extra>"))
    fig.add_vline(x=threshold, line_dash="dash", annotation_text="flag threshold")
    fig.update_layout(height=340, showlegend=False, title=title, xaxis_title=x_label,
                      yaxis_title="samples", bargap=0.05, margin=dict(l=10, r=10, t=40, b=10))
    st.plotly_chart(fig, key=key)


with tab_curves:
    if tab_curves.open:
        curve = report.curve
        if curve is not None:
            c1, c2, c3, c4 = st.columns(4)
            c1.metric("Mean W1", _fmt(curve.mean_w1), help="log-time units (base-1.1 log minutes)")
            c2.metric("Median W1", _fmt(curve.median_w1))
            c3.metric("Mean overlap", _fmt(curve.mean_overlap),
                      help="Overlap coefficient of the two normalised curves: 1 identical, 0 disjoint.")
            c4.metric("Samples above the flag", "—" if math.isnan(curve.share_above) else f"{curve.share_above:.1%}",
                      help=f"W1 above the project's flag threshold ({settings.flag_w1_max:g}).")
            st.caption(f"{counted(curve.n_used, 'sample')} with two curves or more, {curve.n_excluded} without.")
        _histogram(report.per_sample["w1"], 40, "Curve distance per sample (W1)",
                   "W1 (log-time units; ×1.1^W1 in time)", settings.flag_w1_max, "agreement.w1_hist")

#: what the label and segmentation tabs say where those measures do not run (unsegmented pairs)
NOT_SEGMENTED = "This project's annotators do not segment its texts: there are no axis labels or segmentations to compare."

with tab_labels:
    if tab_labels.open and report.kappa is None and report.jaccard is None:
        st.caption(NOT_SEGMENTED)
    elif tab_labels.open:
        kappa = report.kappa
        # kept under a key of its own: a widget's state goes when its tab is closed (not run)
        merged = st.toggle("Merge Generic and Static", key="agreement.merged",
                           value=st.session_state.get(K_MERGED, False),
                           on_change=lambda: st.session_state.update({K_MERGED: st.session_state["agreement.merged"]}),
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
            show_table(pd.DataFrame([{"axis": axis_by_name(a.axis).label, "Jaccard": a.mean,
                                      "samples": a.n_samples} for a in report.jaccard.per_axis]),
                       hide_index=True)

with tab_params:
    if tab_params.open:
        icc = report.icc
        pcols = st.columns(3)
        for col, p in zip(pcols, PARAMETERS):
            label = PARAMETER_LABELS[p]
            first, second = scope.slot_pairs(p)
            col.plotly_chart(pairs_figure(first, second, label), key=f"agreement.scatter.{p}")
        if report.n_samples > SCATTER_POINTS:
            st.caption(f"Above {SCATTER_POINTS:,} samples each chart counts the samples in each cell "
                       "(a 2-D histogram) instead of drawing every point.")
        if icc is not None:
            for p in PARAMETERS:
                res = icc[p]
                with st.expander(f"All ICC forms for {p} — {counted(res.n_used, 'sample')} used, "
                                 f"{res.n_excluded} excluded", icon=":material/table:"):
                    if res.problem:
                        st.caption(res.problem)
                    else:
                        show_table(res.to_frame())

with tab_seg:
    if tab_seg.open and "pk" not in report.per_sample:
        st.caption(NOT_SEGMENTED)
    elif tab_seg.open:
        seg = report.segmentation
        if seg is not None:
            s1, s2, s3 = st.columns(3)
            s1.metric("Pk", _fmt(seg.pk))
            s2.metric("WindowDiff", _fmt(seg.window_diff))
            s3.metric("Boundary similarity", _fmt(seg.boundary_similarity))
        _histogram(report.per_sample["pk"], 20, "Pk per sample", "Pk (both ways, averaged)",
                   settings.flag_pk_max, "agreement.pk_hist")

with tab_time:
    if tab_time.open:
        weeks = pd.DataFrame([{"week": w.week, "samples": w.n_samples, **breakdown_row(w.figures, w.n_samples)}
                              for w in report.weeks])
        if weeks.empty:
            st.caption("No weeks to show.")
        else:
            shown = [c for c in ("jaccard", "kappa", "pk", "icc_xi", "overlap", "change_agreement") if c in weeks]
            weeks[shown] = weeks[shown].astype(float)  # None (not computable that week) → NaN
            fig = px.line(weeks, x="week", y=shown, markers=True, title="Agreement per week")
            fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10))
            st.plotly_chart(fig, key="agreement.weeks")
            show_table(weeks, hide_index=True)
            st.caption(plain(f"A week's figure is empty where the week has too few samples for it: "
                             f"{breakdown_rules(shown)} (no intervals: weeks are not bootstrapped)."))

with tab_pairs:
    if tab_pairs.open:
        pairs = pd.DataFrame([{"annotator A": p.annotators[0], "annotator B": p.annotators[1],
                               "samples": p.n_samples, **breakdown_row(p.figures, p.n_samples)} for p in report.pairs])
        show_table(pairs, hide_index=True, width="stretch")
        if report.pairs:
            st.caption(plain(f"A pair's figure is empty where the two share too few samples for it: "
                             f"{breakdown_rules(report.pairs[0].figures)} (no intervals: pairs are not "
                             "bootstrapped)."))

with tab_review:
    if tab_review.open:
        with service_errors():
            outcomes = agreement.review_outcomes(
                db, actor, project.id, benchmark=None if bench_choice == "all" else int(bench_choice),
                start=start, end=end)
        n_reviewed = outcomes[0].n_reviewed if outcomes else 0
        if n_reviewed == 0:
            st.caption("No review item has been closed under these filters yet.")
        else:
            st.caption(f"{n_reviewed} reviewed samples (closed review items; the benchmark and date filters "
                       "apply, the date being the day of the decision). Wilson 95 % intervals.")
            show_table(pd.DataFrame([{
                "outcome": o.outcome, "samples": o.count, "share": f"{o.share:.1%}",
                "95 % interval": f"{o.interval[0]:.1%} – {o.interval[1]:.1%}"} for o in outcomes]),
                hide_index=True)

table_download("Download the per-sample table (CSV)", report.per_sample,
               f"agreement-{project.name}.csv".replace(" ", "_"), key="agreement.download")
