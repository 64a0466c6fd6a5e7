"""Annotator: Feedback — my settled production samples against the gold, newest gold first.

At the top, my agreement with the gold per week (mean W1, Jaccard, Pk against the project's
thresholds); below, one page of samples (``feedback.PAGE_SIZE``) as a table, and the chosen one
in full: my curve and the gold curve on one chart with the distance in words, my segmentation
above the gold's with the boundaries and axes that differ, and the lead's note as written.
Everything comes from ``annotation.services.quality.feedback``, which reads only my own annotations and
the gold (never the other annotator's version). Only the page number and the chosen row live in
``st.session_state`` (``feedback.*``).
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from annotation.agreement.verdict import JACCARD_RULE, PK_RULE, W1_RULE, Rule, judge
from annotation.services.quality import feedback
from annotation.services.workbench import queue
from annotation.segmentation import spaces_after, token_texts, tokenize
from annotation.timeaxis import DEFAULT_BASE
from ui.components import token_boundary_editor
from ui.curve_figures import curves_figure
from ui.display import axis_color, axis_label, curve_description, plain
from ui.segment_editor import multi_axis_label
from ui.session import current_project, get_database, require_actor, service_errors
from ui.tables import show_table

K_PAGE = "feedback.page"
K_TABLE = "feedback.table"
EMPTY = "No feedback yet: once a sample you annotated is settled, it appears here."
#: Chart colours: mine as the Review page draws the first annotator (orange, dashed), the gold
#: in the theme's primary blue.
MINE_COLOR, GOLD_COLOR = "#ff8700", "#3B6FB6"
MISSING = "—"

actor = require_actor()
db = get_database()
project = current_project(actor)
st.title("Feedback")
if project is None:
    st.info("There is no project yet. A lead creates one under **Projects & texts**.")
    st.stop()

with service_errors():
    trend = feedback.feedback_trend(db, actor, project.id)
st.caption(f"Project **{plain(project.name)}** · your samples once a lead or the automatic check has "
           "settled them (the gold), beside your own version. Warm-up samples are on My queue.")
if trend.n_samples == 0:
    st.info(EMPTY, icon=":material/hourglass_empty:")
    st.stop()


def _fmt(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _factor(w1: float | None) -> str:
    return MISSING if w1 is None or not math.isfinite(w1) else f"×{DEFAULT_BASE ** w1:.1f}"


def _when(moment) -> str:  # type: ignore[no-untyped-def]
    if moment is None:
        return MISSING
    return moment.astimezone(project.settings.timezone).strftime("%Y-%m-%d %H:%M %Z")


# --- my agreement with the gold ---------------------------------------------------------------

overall = trend.overall


def _mark(value: float | None, threshold: float, rule: Rule) -> str:
    """✓ / ✗ before a target (the one verdict function decides), nothing while undefined."""
    return "" if value is None else judge(value, threshold, rule=rule).mark + " "


m1, m2, m3, m4 = st.columns(4)
m1.metric("Settled samples", overall.n, border=True)
m1.caption("yours, with gold")
m2.metric("Curve distance", _factor(overall.w1), border=True,
          help="How far your curves sit from the gold's on the log-time axis, as a factor in time "
               "(×1.0: the same curve), from the mean Wasserstein-1 distance W1 in log-time units.")
m2.caption(_mark(overall.w1, trend.w1_max, W1_RULE)
           + f"mean W1 {_fmt(overall.w1, 1)}; the lead looks at curves more than {trend.w1_max:g} apart")
m3.metric("Axis labels (Jaccard)", _fmt(overall.jaccard), border=True,
          help="Overlap of your (word, axis) labels with the gold's: 1 is identical.")
m3.caption(_mark(overall.jaccard, trend.jaccard_min, JACCARD_RULE)
           + f"mean; target above {trend.jaccard_min:.2f}")
m4.metric("Segmentation (Pk)", _fmt(overall.pk), border=True,
          help="How often a window of words is split differently from the gold: 0 is identical.")
m4.caption(_mark(overall.pk, trend.pk_max, PK_RULE)
           + f"mean; target below {trend.pk_max:.2f}")

weeks = trend.weeks
with st.expander(f"Week by week ({len(weeks)} week{'s' if len(weeks) != 1 else ''})"):
    chart = make_subplots(rows=1, cols=3, horizontal_spacing=0.08, subplot_titles=(
        "Curve distance W1", "Axis labels (Jaccard)", "Segmentation (Pk)"))
    highest_w1 = max([w.w1 for w in weeks if w.w1 is not None] + [trend.w1_max])
    panels = (("w1", trend.w1_max, [0, highest_w1 * 1.2]), ("jaccard", trend.jaccard_min, [0, 1.05]),
              ("pk", trend.pk_max, [0, 1.05]))
    for col, (name, limit, y_range) in enumerate(panels, 1):
        chart.add_trace(go.Scatter(
            x=[w.week for w in weeks], y=[getattr(w, name) for w in weeks], mode="lines+markers", name=name,
            line=dict(color=GOLD_COLOR), customdata=[w.n for w in weeks],
            hovertemplate="%{x}: %{y:.2f} over %{customdata} samples<extra></extra>"), row=1, col=col)
        chart.add_hline(y=limit, line=dict(color="#9aa0a6", dash="dot", width=1), row=1, col=col)
        chart.update_yaxes(range=y_range, row=1, col=col)
    chart.update_layout(height=220, showlegend=False, margin=dict(l=10, r=10, t=30, b=10))
    chart.update_xaxes(type="category")
    chart.update_annotations(font_size=12)
    st.plotly_chart(chart, key="feedback.trend")
    st.caption("Means per ISO week of your submission; the dotted line is the project's threshold "
               f"(W1 {trend.w1_max:g}, Jaccard {trend.jaccard_min:.2f}, Pk {trend.pk_max:.2f}).")

# --- one page of samples ----------------------------------------------------------------------

st.subheader("Your samples against the gold")
n_pages = max(1, math.ceil(trend.n_samples / feedback.PAGE_SIZE))
pager, counter = st.columns([1, 4], vertical_alignment="bottom")
page_number = pager.number_input("Page", min_value=1, max_value=n_pages, step=1, key=K_PAGE) if n_pages > 1 else 1
with service_errors():
    page = feedback.feedback_page(db, actor, project.id, page=int(page_number))
if not page.items:
    st.info(EMPTY, icon=":material/hourglass_empty:")
    st.stop()
counter.caption(f"Samples {page.first}–{page.first + len(page.items) - 1} of {page.total} · newest gold "
                "first · choose a row to see it in full")


def _first_note(item: feedback.FeedbackItem) -> str:
    return item.lead_notes[-1].text if item.lead_notes else ""


# the annotator's own sample numbers, never external ids (queue.sample_numbers: a gold check's
# id would break the sequence of ids elsewhere, so annotators see numbers everywhere)
with service_errors():
    numbers = queue.sample_numbers(db, actor, project.id, [i.annotation_id for i in page.items])


def _number(i: feedback.FeedbackItem) -> str:
    return f"#{numbers.get(i.annotation_id, 0)}"


table = pd.DataFrame([{
    "sample": _number(i),
    "settled": _when(i.settled_at),
    "curves": i.curve_words,
    "Jaccard": _fmt(i.score.jaccard),
    "Pk": _fmt(i.score.pk),
    "lead's note": _first_note(i),
} for i in page.items])
table_key = f"{K_TABLE}.{page.page}"
chosen = (st.session_state.get(table_key) or {}).get("selection", {}).get("rows") or []
if len(chosen) != 1 or chosen[0] >= len(page.items):  # the newest is open until a row is chosen
    st.session_state[table_key] = {"selection": {"rows": [0], "columns": []}}
    chosen = [0]
show_table(table, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row-required",
           key=table_key, height=min(len(table), 8) * 35 + 38)
item = page.items[chosen[0]]

# --- the chosen sample ------------------------------------------------------------------------

P = f"feedback.{item.annotation_id}"
st.markdown(f"### Sample {_number(item)}")
st.caption(f"Benchmark {item.benchmark} · you submitted {_when(item.submitted_at)} · settled "
           f"{_when(item.settled_at)} · {plain(item.how_settled)}")


def _curve_chart() -> go.Figure:
    """My curve and the gold curve, each scaled to peak at 100 %, on the log-time axis."""
    return curves_figure([(label, (v.xi, v.omega, v.alpha), color, dash)
                          for label, v, color, dash in (("your curve", item.mine, MINE_COLOR, "dash"),
                                                        ("gold", item.gold, GOLD_COLOR, "solid"))],
                         height=300, x_title="time from the text's moment")


chart_col, words_col = st.columns([3, 2])
with chart_col:
    st.plotly_chart(_curve_chart(), key=f"{P}.chart")
with words_col:
    st.markdown(f"**{plain(item.curve_words[:1].upper() + item.curve_words[1:])}.**")
    w1 = item.score.w1
    st.caption(f"W1 {_fmt(w1, 1)} log-time units ({_factor(w1)}) · overlap {_fmt(item.score.overlap)} · "
               f"the project flags more than {trend.w1_max:g}" if math.isfinite(w1)
               else "Your version has no curve to compare.")
    if item.mine.has_curve:
        st.caption(f"Yours: {curve_description(item.mine.xi, item.mine.omega, item.mine.alpha)}")
    st.caption(f"Gold: {curve_description(item.gold.xi, item.gold.omega, item.gold.alpha)}")
    f1, f2 = st.columns(2)
    f1.metric("Axis labels (Jaccard)", _fmt(item.score.jaccard), border=True,
              help="Overlap of your (word, axis) labels with the gold's: 1 is identical.")
    f2.metric("Segmentation (Pk)", _fmt(item.score.pk), border=True,
              help="How often a window of words is split differently from the gold: 0 is identical.")
    if item.lead_notes:
        with st.container(border=True):
            st.markdown("**The lead's note**")
            for note in item.lead_notes:
                st.caption(f"{_when(note.at)} · the lead {note.what}")
                st.markdown(plain(note.text))
    if item.my_note:
        st.caption(f"Your note: {plain(item.my_note)}")

# The two segmentations, as the Review page draws them, and what differs
tokens = token_texts(item.parent_text)
spaces = spaces_after(item.parent_text)
spans = tokenize(item.parent_text)
diff = item.difference


def _words(start: int, end: int) -> str:
    """The text of tokens start … end − 1, as written."""
    return item.parent_text[spans[start].start:spans[end - 1].end]


def _before(boundaries: tuple[int, ...]) -> str:
    return "; ".join(f"before “{plain(tokens[b])}”" for b in boundaries)


mine_col, gold_col = st.columns(2)
with mine_col:
    st.markdown(":orange[●] **Your segments and axes**")
    token_boundary_editor(tokens, spaces, list(item.mine.boundaries),
                          segment_colors=[axis_color(a) for a in item.mine.segment_axes],
                          segment_labels=[axis_label(a) for a in item.mine.segment_axes],
                          key=f"{P}.mine", disabled=True)
with gold_col:
    st.markdown(":blue[●] **The gold's segments and axes**")
    token_boundary_editor(tokens, spaces, list(item.gold.boundaries),
                          segment_colors=[axis_color(a[0] if a else None) for a in item.gold.segment_axes],
                          segment_labels=[multi_axis_label(a) for a in item.gold.segment_axes],
                          key=f"{P}.gold", disabled=True)

if diff is None:
    st.caption("Your segmentation does not fit this text; it cannot be compared.")
elif diff.identical:
    st.success("Your segments and axes are the gold's.", icon=":material/check_circle:")
else:
    if diff.only_mine:
        st.markdown(f":orange[●] **Boundaries only in yours:** {_before(diff.only_mine)}")
    if diff.only_gold:
        st.markdown(f":blue[●] **Boundaries only in the gold:** {_before(diff.only_gold)}")
    if diff.axes:
        st.markdown("**Words whose axes differ**")
        show_table(pd.DataFrame([{
            "words": _words(d.start, d.end),
            "your axis": axis_label(d.mine),
            "gold axes": multi_axis_label(d.gold),
        } for d in diff.axes]), hide_index=True, width="stretch", key=f"{P}.axes")
