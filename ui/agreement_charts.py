"""The Agreement page's parameter charts: the first annotator's value against the second's."""

from __future__ import annotations

import numpy as np
import plotly.express as px
import plotly.graph_objects as go

#: the most samples a parameter chart draws as points (a 2-D histogram beyond that)
SCATTER_POINTS = 1000


def pairs_figure(first: list[float], second: list[float], label: str) -> go.Figure:
    """The first annotator's value against the second's, with the diagonal: every point up to
    :data:`SCATTER_POINTS` samples (SVG), else a 2-D histogram binned here — thousands of SVG
    points took the browser seconds, and WebGL is slow to start without a GPU."""
    axes = {"x": "first annotator", "y": "second annotator"}
    if len(first) > SCATTER_POINTS:
        lo, hi = min(min(first), min(second)), max(max(first), max(second))
        counts, xe, ye = np.histogram2d(first, second, bins=60, range=[[lo, hi], [lo, hi]])
        fig = go.Figure(go.Heatmap(z=np.where(counts.T > 0, counts.T, np.nan), x=(xe[:-1] + xe[1:]) / 2,
                                   y=(ye[:-1] + ye[1:]) / 2, colorscale="Blues", showscale=False,
                                   hovertemplate="%{x:.3g} × %{y:.3g}: %{z} samples<extra></extra>"))
        fig.update_layout(title=label, xaxis_title=axes["x"], yaxis_title=axes["y"])
    else:
        fig = px.scatter(x=first, y=second, labels=axes, title=label, opacity=0.6, render_mode="svg")
    if first:
        lo, hi = min(first + second), max(first + second)
        fig.add_shape(type="line", x0=lo, y0=lo, x1=hi, y1=hi, line=dict(dash="dot", color="grey"))
    fig.update_layout(height=330, margin=dict(l=10, r=10, t=40, b=10))
    return fig
