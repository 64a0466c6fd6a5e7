"""The accuracy trend of the Annotators page: each gold check's W1, Jaccard and Pk against gold
over time, and the share passed over the project's window, per annotator (a table and a
plotly chart with the thresholds)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.gold_checks import CheckThresholds
from annotation.services.gold_checks import CheckRow

COLUMNS = ("scored_at", "annotator", "sample", "w1", "jaccard", "pk", "passed", "window_share")


def trend_frame(checks: Sequence[CheckRow], window: int) -> pd.DataFrame:
    """One row per check, oldest first; ``window_share``: the share passed among the
    annotator's latest ``window`` judged checks up to this one (empty before a full window)."""
    frame = pd.DataFrame([{
        "scored_at": c.scored_at, "annotator": c.annotator, "sample": c.external_id, "w1": c.w1,
        "jaccard": c.jaccard, "pk": c.pk, "passed": c.passed,
    } for c in checks], columns=list(COLUMNS[:-1]))
    frame["window_share"] = pd.Series(dtype=float)
    for _, rows in frame.groupby("annotator", sort=False):
        judged = rows[rows["passed"].notna()]
        share = judged["passed"].astype(float).rolling(window, min_periods=window).mean()
        frame.loc[share.index, "window_share"] = share
    return frame


def trend_figure(frame: pd.DataFrame, thresholds: CheckThresholds) -> go.Figure:
    """Four stacked panels sharing the time axis: W1, Jaccard, Pk (each with its threshold as a
    dashed line) and the pass share over the window (with the minimum), one colour per person."""
    fig = make_subplots(rows=4, cols=1, shared_xaxes=True, vertical_spacing=0.04,
                        subplot_titles=("W1 to gold (log-time units; lower is better)",
                                        "Jaccard of the labels (higher is better)",
                                        "Pk of the segmentation (lower is better)",
                                        f"Share passed over the last {thresholds.window} checks"))
    panels = (("w1", thresholds.w1_max), ("jaccard", thresholds.jaccard_min),
              ("pk", thresholds.pk_max), ("window_share", thresholds.min_pass))
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
    for i, (name, rows) in enumerate(frame.groupby("annotator", sort=True)):
        colour = palette[i % len(palette)]
        for row, (column, _) in enumerate(panels, 1):
            fig.add_trace(go.Scatter(x=rows["scored_at"], y=rows[column], mode="lines+markers",
                                     name=str(name), legendgroup=str(name), showlegend=row == 1,
                                     line={"color": colour}, connectgaps=False), row=row, col=1)
    for row, (_, limit) in enumerate(panels, 1):
        fig.add_hline(y=limit, line_dash="dash", line_color="#888", row=row, col=1)
    fig.update_layout(height=720, margin=dict(l=10, r=10, t=30, b=10), legend_title_text="")
    for row in (2, 4):
        fig.update_yaxes(range=[0, 1.05], row=row, col=1)
    return fig
