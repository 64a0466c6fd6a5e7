"""The accuracy trend of the Annotators page: each gold check's W1, Jaccard and Pk against gold
over time, and the share passed over the project's window, per annotator (a table and a
plotly chart with the thresholds)."""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime
from typing import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.flag_reasons import flag_label
from annotation.quality.gold_checks import CheckThresholds, window_share
from annotation.services.quality.gold_checks import CheckRow

COLUMNS = ("scored_at", "annotator", "sample", "w1", "jaccard", "pk", "passed", "flags", "note",
           "window_share")


def trend_frame(checks: Sequence[CheckRow], window: int,
                lifts: Mapping[int, Sequence[datetime]] | None = None) -> pd.DataFrame:
    """One row per check, oldest first; ``window_share``: the share passed among the
    annotator's latest ``window`` judged checks up to this one, counted afresh after each of
    their lifts (``lifts``: user id → lift times), as the pause rule counts them (empty before a
    full window). ``flags``/``note``: what the annotator flagged a check with (it is unjudged).

    Examples:
        >>> from datetime import timedelta
        >>> t0 = datetime(2026, 11, 24, 9, 0)
        >>> rows = [CheckRow(1, "ann", f"S-{i}", t0 + timedelta(hours=i), None, None, None, p)
        ...         for i, p in enumerate([False, False, True, True])]
        >>> list(trend_frame(rows, 2)["window_share"])
        [nan, 0.0, 0.5, 1.0]
        >>> list(trend_frame(rows, 2, {1: [t0 + timedelta(hours=1, minutes=30)]})["window_share"])
        [nan, 0.0, nan, 1.0]
    """
    lifted = {uid: sorted(times) for uid, times in (lifts or {}).items()}
    results: dict[tuple[int, int], list[bool]] = {}
    shares: list[float | None] = []
    for c in checks:
        share = None
        if c.passed is not None:
            # the checks scored after the annotator's n-th lift form era n (as the pause rule)
            era = bisect_left(lifted.get(c.user_id, []), c.scored_at)
            so_far = results.setdefault((c.user_id, era), [])
            so_far.append(bool(c.passed))
            share = window_share(so_far, window)
        shares.append(share)
    return pd.DataFrame([{
        "scored_at": c.scored_at, "annotator": c.annotator, "sample": c.external_id, "w1": c.w1,
        "jaccard": c.jaccard, "pk": c.pk, "passed": c.passed,
        "flags": ", ".join(flag_label(f) for f in c.flags), "note": c.note,
        "window_share": float("nan") if share is None else share,
    } for c, share in zip(checks, shares)], columns=list(COLUMNS))


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
