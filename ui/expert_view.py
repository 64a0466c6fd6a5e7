"""The Annotators page's "Annotators as experts" section: each annotator's calibration,
information and weight on the project's seeds (Cooke's classical model,
:mod:`annotation.services.quality.experts`) as a chart — calibration on a log scale against information,
one point per shown annotator sized by weight, bootstrap intervals as error bars, the 5 %
rejection line — and a table, with what the realisation is and what the scores mean.

User text (usernames) is shown literally: table cells are text, the chart's labels are
HTML-escaped (plotly reads its text as HTML), the caption goes through :func:`ui.display.plain`.
"""

from __future__ import annotations

import html
import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from annotation.publishable import NEEDS, Figure
from annotation.services.quality import experts, gold_weighting
from annotation.services.authz import Actor
from annotation.services.quality.experts import ExpertOverview
from annotation.services.quality.gold_weighting import MIN_MODEL_ANNOTATIONS, ModelOverview
from annotation.wording import counted
from db.engine import Database
from ui.display import plain
from ui.session import service_errors
from ui.tables import show_table

#: Cooke's significance level: a calibration below it rejects the annotator's quantiles.
REJECTED_BELOW = 0.05
#: The chart's least calibration: a smaller score (down to 0) is drawn here, on the log scale.
CALIBRATION_FLOOR = 1e-6
#: Marker diameters (pixels) for a weight share of 0 and of 1.
SMALLEST, LARGEST = 10.0, 40.0
COLUMNS = ("annotator", "seeds (outcomes)", "calibration", "information", "weight")


def figure_cell(fig: Figure, fmt: str = ".3g") -> str:
    """A figure as a table cell: the value with its bootstrap interval, or "—" with the rule and n.

    Examples:
        >>> figure_cell(Figure(NEEDS["seeds"], 0.4123, 12, (0.0021, 0.9)))
        '0.412 [0.0021, 0.9]'
        >>> figure_cell(Figure(NEEDS["seeds"], None, 5, None, "needs ≥ 10 seeds"))
        '— needs ≥ 10 seeds (n = 5)'
    """
    return fig.value_text(fmt)


def expert_table(overview: ExpertOverview) -> pd.DataFrame:
    """One row per annotator with seeds, by username: their seeds (of which with a known outcome)
    and their three figures after the rule (:func:`figure_cell`)."""
    return pd.DataFrame([{
        "annotator": name, "seeds (outcomes)": f"{f.n_seeds} ({f.n_outcomes})",
        "calibration": figure_cell(f.calibration), "information": figure_cell(f.information),
        "weight": figure_cell(f.weight, ".2f"),
    } for name, f in overview.rows()], columns=list(COLUMNS))


def _bounds(fig: Figure, floor: float = 0.0) -> tuple[float, float]:
    """The error bar's lengths below and above the (floored) value."""
    value = max(float(fig.value), floor)  # type: ignore[arg-type]
    if fig.interval is None:
        return 0.0, 0.0
    low, high = (max(v, floor) for v in fig.interval)
    return max(value - low, 0.0), max(high - value, 0.0)


def expert_chart(overview: ExpertOverview) -> go.Figure | None:
    """Calibration (log x) against information (y), one point per annotator whose figures are
    shown, its size the weight share, its error bars the bootstrap intervals; a vertical line at
    :data:`REJECTED_BELOW`; a calibration under :data:`CALIBRATION_FLOOR` is drawn there and
    labelled so. None when no annotator has enough seeds."""
    rows = [(name, f) for name, f in overview.rows() if f.calibration.shown and f.information.shown]
    if not rows:
        return None
    fig = go.Figure()
    for name, f in rows:
        x = max(float(f.calibration.value), CALIBRATION_FLOOR)  # type: ignore[arg-type]
        x_minus, x_plus = _bounds(f.calibration, CALIBRATION_FLOOR)
        y_minus, y_plus = _bounds(f.information)
        weight = float(f.weight.value) if f.weight.shown else 0.0  # type: ignore[arg-type]
        label = html.escape(name)
        below = f.calibration.value < CALIBRATION_FLOOR  # type: ignore[operator]
        fig.add_trace(go.Scatter(
            x=[x], y=[f.information.value], mode="markers+text", name=label,
            text=[label + (" (calibration < 1e-6)" if below else "")],
            textposition="bottom right" if below else "bottom left", showlegend=False,
            marker=dict(size=SMALLEST + (LARGEST - SMALLEST) * weight, opacity=0.75,
                        color="#C0392B" if f.calibration.value < REJECTED_BELOW else "#2471A3"),  # type: ignore[operator]
            error_x=dict(type="data", symmetric=False, array=[x_plus], arrayminus=[x_minus], thickness=1),
            error_y=dict(type="data", symmetric=False, array=[y_plus], arrayminus=[y_minus], thickness=1),
            hovertemplate=(f"{label}<br>calibration {f.calibration.value:.3g}<br>information "
                           f"{f.information.value:.3g}<br>weight {weight:.2f}<br>{f.n_seeds} seeds<extra></extra>")))
    fig.add_vline(x=REJECTED_BELOW, line_dash="dash", line_color="#7F8C8D")
    # on a log axis an annotation's x is log10 of the value (add_vline's own label misplaces it)
    fig.add_annotation(x=math.log10(REJECTED_BELOW), xref="x", y=1.0, yref="paper", xanchor="right",
                       yanchor="top", showarrow=False, text="rejected below (5 %) ", font=dict(color="#7F8C8D"))
    ticks = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, REJECTED_BELOW, 0.2, 1.0]
    fig.update_xaxes(type="log", range=[-6.4, 0.35], tickvals=ticks, ticktext=[f"{t:g}" for t in ticks],
                     title_text="calibration (log scale; 1 = realisations fall as the quantiles say)")
    fig.update_yaxes(title_text="information (higher = narrower curves)", rangemode="tozero")
    fig.update_layout(height=400, margin=dict(l=10, r=10, t=30, b=10))
    return fig


def expert_caption(overview: ExpertOverview) -> str:
    """What the section rests on, in words: the realisation, the seeds, the rule, the scores;
    with no seeds, how to get some.

    Examples:
        >>> expert_caption(ExpertOverview({}, {}, 0, 0)).startswith("No seed items yet")
        True
    """
    needs = NEEDS["seeds"]
    if overview.n_items == 0:
        return ("No seed items yet, so no annotator can be scored as an expert. Seeds come from the "
                "warm-up set with the lead's gold (warm-up work and gold checks), or from texts imported "
                "with stopped_holding_minutes (when the statement stopped holding).")
    return (f"Realisation: the gold's half-gone time — calibration against the panel, not against what "
            f"happened; {counted(overview.n_items, 'seed item')}, {overview.n_outcome_items} with a known "
            f"outcome (a text imported with stopped_holding_minutes: the realisation is that outcome). "
            f"Each annotator's 5/25/50/75/95 % gone points are their quantiles (Cooke 1991). "
            f"Calibration: how likely the realisations would fall across an annotator's quantiles as they "
            f"do if the quantiles were right (below {REJECTED_BELOW:.0%} they are rejected). Information: "
            f"how narrow their curves are against the spread of everyone's on the same item. Weight: "
            f"calibration × information, as a share. A score from more seeds is a sharper test; compare "
            f"annotators with similar n. Each figure {needs.rule} (n = the annotator's seeds); "
            f"in brackets the bootstrap 95 % interval.")


def expert_section(db: Database, actor: Actor, project_id: int) -> None:
    """Draw the section (heading, chart, table, caption) for the project."""
    st.subheader("Annotators as experts")
    with service_errors():
        overview = experts.expert_overview(db, actor, project_id)
    if overview.figures:
        chart = expert_chart(overview)
        if chart is not None:
            st.plotly_chart(chart, key="annotators.experts_chart")
        show_table(expert_table(overview), hide_index=True, width="stretch", key="annotators.experts")
    st.caption(plain(expert_caption(overview)))


def model_table(overview: ModelOverview) -> pd.DataFrame:
    """The annotator model's table: annotator, items, bias, noise, width ratio ("—" and the rule
    for an annotator with too few items)."""
    return pd.DataFrame([(r.annotator, f"{r.n_items:,}", figure_cell(r.bias, "+.1f"), figure_cell(r.noise, ".1f"),
                          figure_cell(r.confidence, ".2f")) for r in overview.rows],
                        columns=["annotator", "items", "bias (log-time units)", "noise", "width ratio κ"])


def model_caption(overview: ModelOverview) -> str:
    """What the annotator model's figures mean, on what they rest, or why there are none."""
    if not overview.fitted:
        return (f"The annotator model is fitted once the project has {MIN_MODEL_ANNOTATIONS} submitted "
                f"production annotations with a curve ({overview.n_annotations} so far).")
    return (f"Fitted on {counted(overview.n_annotations, 'production annotation')} of "
            f"{counted(overview.n_items, 'item')}. Bias: how much later (+) or earlier (−) than the "
            "consensus an annotator's half-gone time sits, in log-time units (+7 ≈ twice as late). Noise: the "
            "spread of their half-gone times around the consensus once the bias is removed. Width ratio κ: "
            "their curves' 5–95 % gone width against the consensus (under 1: narrower, over-confident; over 1: "
            "wider). "
            f"{counted(overview.n_difficult, 'item')} show more spread than their annotators explain "
            "(difficulty above 1). The gold pooled by the annotator model uses these figures cross-fitted: "
            f"each sample's from a fit without it. Each figure {NEEDS['annotator_model'].rule}.")


def model_section(db: Database, actor: Actor, project_id: int) -> None:
    """Draw the annotator model's table and caption for the project."""
    st.subheader("The annotator model")
    with service_errors():
        overview = gold_weighting.annotator_model_overview(db, actor, project_id)
        if overview.rows:
            show_table(model_table(overview), hide_index=True, width="stretch", key="annotators.model")
        st.caption(plain(model_caption(overview)))


__all__ = ["CALIBRATION_FLOOR", "REJECTED_BELOW", "expert_caption", "expert_chart", "expert_section",
           "expert_table", "figure_cell", "model_caption", "model_section", "model_table"]
