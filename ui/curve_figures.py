"""Validity curves on the log-time axis as a plotly figure (the feedback and authoring pages):
each curve scaled to peak at 100 %, the axis ticked in durations."""

from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go

from annotation.timeaxis import X_MAX, X_MIN, tick_positions
from ui.display import curve_polyline

#: one curve to draw: its legend label, (ξ, ω, α) or None (not drawn), line colour and dash
CurveLine = tuple[str, tuple[float | None, float | None, float | None] | None, str, str]


def curves_figure(curves: Sequence[CurveLine], *, height: int, x_title: str) -> go.Figure:
    """A figure of ``curves`` (those without parameters are left out)."""
    fig = go.Figure()
    for label, params, color, dash in curves:
        line = curve_polyline(*params) if params else None
        if line:
            fig.add_trace(go.Scatter(x=[p[0] for p in line], y=[p[1] for p in line], mode="lines",
                                     name=label, line=dict(color=color, width=3, dash=dash),
                                     hovertemplate=f"{label}<extra></extra>"))
    ticks = tick_positions()
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                      xaxis=dict(tickvals=[t[0] for t in ticks], ticktext=[t[1] for t in ticks],
                                 range=[X_MIN, X_MAX], title=x_title),
                      yaxis=dict(title="validity", range=[0, 1.05], tickformat=".0%"))
    return fig


__all__ = ["CurveLine", "curves_figure"]
