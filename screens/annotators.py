"""Lead: the annotator dashboard — output per day, time per sample, flag rates, agreement with
partners and drafts in progress, the figures that show fatigue or drift (definitions in
``annotation.quality.annotator_stats``). Filters: a date range and an annotator subset.

Gold checks (``annotation.services.quality.gold_checks``): annotators paused by the checks are listed at
the top, each with a note and a *Lift the pause* button; the accuracy trend against gold (W1,
Jaccard, Pk per check, the pass share over the window) closes the page. In a context-pairs
project, the authors of follow-ups with their validation share
(``annotation.quality.author_validation``) come before it. "Annotators as experts" ends it: each
annotator's calibration, information and weight on the project's seeds (``ui.expert_view``)."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import plotly.express as px
import streamlit as st

from annotation.agreement import shown_threshold
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.corpus.csv_safety import safe_csv
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.project_day import local_today
from annotation.publishable import NEEDS
from annotation.protocols import protocol_of
from annotation.quality.annotator_stats import PAIR_FIGURES, pair_rules
from annotation.quality.author_validation import MIN_SETTLED_PAIRS
from annotation.services.corpus import authoring
from annotation.services.quality import dashboard, gold_checks
from annotation.services.errors import ServiceError
from annotation.wording import counted, time_spent
from ui.display import plain
from ui.expert_view import expert_section, model_section
from ui.gold_check_trend import trend_figure, trend_frame
from ui.session import lead_page, service_errors, toast_next_run
from ui.tables import show_table

DEFAULT_DAYS = 30
K_FLASH = "annotators.flash"
K_LIFT_ERROR = "annotators.lift_error"


def _lift(pause_id: int, name: str) -> None:
    """The lift button's callback: runs before the page, so a stale tab's click (the pause is
    gone from a fresh page) still gets its message."""
    note_key = f"annotators.lift_note.{pause_id}"
    try:
        gold_checks.lift_pause(db, actor, pause_id, st.session_state.get(note_key, ""))
    except ServiceError as exc:
        st.session_state[K_LIFT_ERROR] = str(exc)
    else:
        st.session_state.pop(note_key, None)
        toast_next_run(K_FLASH, f"The pause of {name} is lifted; their gold-check window starts afresh.")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _drafts_text(figures: dict) -> str:
    """What the pause did with the annotator's open production drafts (gold_checks.release_empty_drafts)."""
    released, kept = figures.get("released_drafts"), figures.get("kept_drafts")
    if released is None and kept is None:
        return ""
    parts = []
    if released:
        parts.append(f"{counted(released, 'empty draft')} released (their slots are open to others)")
    if kept:
        parts.append(f"{counted(kept, 'draft')} with their work kept, holding "
                     f"{'its slot' if kept == 1 else 'their slots'} until the pause is lifted")
    return (" " + "; ".join(parts) + ".") if parts else ""


def _gold_check_trend(overview: gold_checks.GoldCheckOverview) -> None:
    t = overview.thresholds
    st.subheader("Accuracy against gold (gold checks)")
    state = (f"{overview.share:.0%} of new hand-outs are gold checks" if overview.share > 0 else
             "Gold checks are off (set a share under Projects & texts → Settings)")
    st.caption(f"{state}. A check passes with W1 ≤ {t.w1_max:g}, Jaccard > {t.jaccard_min:.2f} and "
               f"Pk < {t.pk_max:.2f}; fewer than {t.min_pass:.0%} passed over the last {t.window} "
               "checks pauses the annotator. The material is the warm-up set.")
    if not overview.checks:
        st.caption("No gold check scored yet.")
        return
    show_table(pd.DataFrame([{
        "annotator": a.annotator, "checks": a.n_checks, "since last lift": a.n_since_lift,
        f"passed (last {t.window})": a.window_share, "paused": a.pause is not None,
    } for a in overview.annotators]), hide_index=True, width="stretch", key="annotators.gold_summary",
        column_config={f"passed (last {t.window})": st.column_config.NumberColumn(format="percent")})
    frame = trend_frame(overview.checks, t.window, overview.lifts)  # afresh after each lift
    st.plotly_chart(trend_figure(frame, t), key="annotators.gold_trend")
    show_table(frame.iloc[::-1], hide_index=True, width="stretch", key="annotators.gold_checks",
               column_config={"scored_at": st.column_config.DatetimeColumn("scored (UTC)"),
                              "w1": st.column_config.NumberColumn("W1", format="%.2f"),
                              "jaccard": st.column_config.NumberColumn("Jaccard", format="%.3f"),
                              "pk": st.column_config.NumberColumn("Pk", format="%.3f"),
                              "flags": st.column_config.TextColumn(
                                  "flagged", help="A flagged check is not judged (no pass or "
                                                  "fail) and stays out of the window."),
                              "note": st.column_config.TextColumn("annotator's note"),
                              "window_share": st.column_config.NumberColumn(
                                  f"passed (last {t.window})", format="percent")})


def _author_validation() -> None:
    """Per author of follow-ups (a context-pairs project): how many of their settled pairs the
    blind annotators settled with the change the author intended."""
    if not protocol_of(project.settings).authored_samples:
        return
    st.subheader("Authors of follow-ups")
    with service_errors():
        authors = authoring.validation_by_author(db, actor, project.id)
    if not authors:
        st.caption("No follow-ups written yet (annotators write them under Write follow-ups).")
        return
    show_table(pd.DataFrame([{
        "author": a.author, "written": a.written, "settled": a.settled, "as intended": a.matching,
        "validation share": a.shown,
    } for a in authors]), hide_index=True, width="stretch", key="annotators.authors",
        column_config={"validation share": st.column_config.TextColumn(
            "validation share", help="Of their settled follow-ups, the share whose settled change is "
                                     "the change they intended.")})
    st.caption(f"A follow-up counts once its pair is settled, blind to the author's intent. The share is "
               f"shown from {MIN_SETTLED_PAIRS} settled follow-ups on; below, one pair moves it by more "
               "than ten points. Pairs whose settled change differs from the intent are flagged for review.")


def _closing_sections() -> None:
    _author_validation()
    _gold_check_trend(checks)
    expert_section(db, actor, project.id)
    model_section(db, actor, project.id)


actor, db, project = lead_page("Annotators", flash_key=K_FLASH, pause_notice=False)
K_CHART = "annotators.chart"  # the open chart tab
CHART_TABS = ("Submitted per day", "Median time per sample, per day", "Flag rates",
              "Agreement with each partner (Jaccard)")
with service_errors():
    checks = gold_checks.gold_check_overview(db, actor, project.id)
lift_error = st.session_state.pop(K_LIFT_ERROR, None)
if lift_error:
    st.error(plain(lift_error))
for pause in checks.pauses:
    with st.container(border=True):
        f = pause.figures
        st.warning(f"{plain(pause.annotator)} is paused from production since "
                   f"{pause.paused_at:%Y-%m-%d %H:%M} UTC: {f.get('passed', '—')} of the last "
                   f"{f.get('window', '—')} gold checks passed ({_pct(f.get('share'))}; the target is "
                   f"{_pct(f.get('min_pass'))}). They see that a lead will be in touch."
                   + _drafts_text(f), icon=":material/pause_circle:")
        st.text_input("Why the pause is lifted (kept with the record)", max_chars=NOTE_MAX_CHARS,
                      key=f"annotators.lift_note.{pause.pause_id}")
        st.button("Lift the pause", icon=":material/play_circle:", key=f"annotators.lift.{pause.pause_id}",
                  on_click=_lift, args=(pause.pause_id, pause.annotator))
today = local_today(project.settings)
f_range, f_people = st.columns([1, 2])
picked = f_range.date_input("Submitted between", value=(today - timedelta(days=DEFAULT_DAYS - 1), today),
                            max_value=today, key="annotators.range",
                            help=f"Calendar days in the project's time zone ({project.settings.quota_timezone}).")
if isinstance(picked, (tuple, list)):
    start, end = (picked[0], picked[-1]) if picked else (None, None)
else:
    start = end = picked

with service_errors():
    dash = dashboard.annotator_dashboard(db, actor, project.id, start=start, end=end)

if dash.summary.empty:
    st.info("No submissions and no drafts in this period.", icon=":material/event_busy:")
    _closing_sections()
    st.stop()

everyone = list(dash.summary["annotator"])
chosen = f_people.multiselect("Annotators", everyone, key="annotators.people", placeholder="Everyone")
shown = chosen or everyone
summary = dash.summary[dash.summary["annotator"].isin(shown)]
daily = dash.daily[dash.daily["annotator"].isin(shown)]
partners = dash.partners[dash.partners["annotator"].isin(shown)]

total = int(summary["submitted"].sum())
m1, m2, m3, m4 = st.columns(4)
m1.metric("Submitted", total)
m2.metric("Annotators active", int((summary["submitted"] > 0).sum()))
m3.metric("Median time per sample", "—" if daily.empty else time_spent(summary["median_seconds"].median()))
m4.metric("Drafts in progress", int(summary["drafts"].sum()))

#: the agreement columns' labels; each cell is a figure after the rule: "0.812 (n = 40)" or
#: "— needs ≥ 30 samples with every curve (n = 12)" (annotation.publishable)
FIGURE_LABELS = {"jaccard": "Jaccard", "kappa": "kappa", "pk": "Pk",
                 **{f"icc_{p}": f"ICC {PARAMETER_SYMBOLS[p]}" for p in PARAMETERS}}


def _figure_texts(frame: pd.DataFrame, figures_of) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """``frame`` with each agreement column as its figure's text (``figures_of(row)``: the row's
    figures by name; a row without any gets "—")."""
    texts = [figures_of(row) for row in frame.itertuples(index=False)]
    return frame.assign(**{f: [(fig[f].text() if f in fig else "—") for fig in texts] for f in PAIR_FIGURES})


st.subheader("Per annotator")
table = _figure_texts(summary, lambda row: dash.figures.get(row.annotator, {})).assign(
    median_minutes=summary["median_seconds"] / 60,
    mean_minutes=summary["mean_seconds"] / 60,
).drop(columns=["median_seconds", "mean_seconds"])
show_table(
    table[["annotator", "submitted", "warmup", "active_days", "per_active_day", "median_minutes",
           "mean_minutes", "annotator_flag_rate", "complete_samples", "auto_flag_rate", "drafts",
           "partners", "jaccard", "kappa", "pk", "icc_xi", "icc_omega", "icc_alpha", "verdict"]],
    hide_index=True, width="stretch", key="annotators.table",
    column_config={
        "warmup": st.column_config.NumberColumn(
            "of which warm-up", help="Warm-up samples, and for admitted annotators their gold checks "
                                    "(warm-up samples handed out as production work)."),
        "active_days": st.column_config.NumberColumn("active days"),
        "per_active_day": st.column_config.NumberColumn("per active day", format="%.1f"),
        "median_minutes": st.column_config.NumberColumn("median min / sample", format="%.1f"),
        "mean_minutes": st.column_config.NumberColumn("mean min / sample", format="%.1f"),
        "annotator_flag_rate": st.column_config.NumberColumn(
            "own flags", format="percent", help="Share of their submissions they flagged."),
        "complete_samples": st.column_config.NumberColumn(
            "complete samples", help="Their production samples with all k annotations in."),
        "auto_flag_rate": st.column_config.NumberColumn(
            "auto-flagged", format="percent",
            help="Share of their complete samples that got an automatic flag (a pair's flag: "
                 "compare with their partners)."),
        "partners": st.column_config.NumberColumn("partners"),
        **{c: st.column_config.TextColumn(
            label, help="Mean over their partners where the pair's figure is shown, weighted by shared "
                        "samples; n = those samples. — with the rule where no pair has enough.")
           for c, label in FIGURE_LABELS.items()},
        "verdict": st.column_config.TextColumn(
            "against thresholds",
            help=f"Their agreement with partners against the project's thresholds: ICC (smallest of "
                 f"ξ ω α) > {shown_threshold(dash.thresholds.icc_min)}, Jaccard > "
                 f"{shown_threshold(dash.thresholds.jaccard_min)}, Pk < "
                 f"{shown_threshold(dash.thresholds.pk_max)}. ✗ does not pass, — not computable yet."),
    },
)
st.caption("Agreement columns: the agreement report's per-pair figures (production samples completed "
           "in the period), averaged over each annotator's partners, each with the shared samples it rests "
           f"on (n). A pair's figure is withheld (—) below its minimum of shared samples: {pair_rules()}. "
           "No interval: the pairs are not bootstrapped.")

# Lazy tabs: only the open chart is built and sent (four Plotly charts on every run were most
# of the page's time, at 200 texts as at 20,000).
tab_day, tab_time, tab_flags, tab_partners = st.tabs(list(CHART_TABS), key=K_CHART, on_change="rerun")
with tab_day:
    if tab_day.open:
        if daily.empty:
            st.caption("No submissions in this period.")
        else:
            fig = px.bar(daily, x="day", y="submitted", color="annotator", barmode="group",
                         labels={"day": "", "submitted": "submitted"})
            fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10), legend_title_text="")
            fig.update_xaxes(tickformat="%b %d", dtick="D1" if daily["day"].nunique() <= 14 else None)
            st.plotly_chart(fig, key="annotators.per_day")
with tab_time:
    if tab_time.open:
        if daily.empty:
            st.caption("No submissions in this period.")
        else:
            by_day = daily.assign(minutes=daily["median_seconds"] / 60)
            fig = px.line(by_day, x="day", y="minutes", color="annotator", markers=True,
                          labels={"day": "", "minutes": "median minutes per sample"})
            fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10), legend_title_text="")
            fig.update_xaxes(tickformat="%b %d", dtick="D1" if daily["day"].nunique() <= 14 else None)
            st.plotly_chart(fig, key="annotators.time")
with tab_flags:
    if tab_flags.open:
        rates = summary.melt(id_vars="annotator", value_vars=["annotator_flag_rate", "auto_flag_rate"],
                             var_name="kind", value_name="share").dropna()
        if rates.empty:
            st.caption("No flag figures in this period.")
        else:
            rates["kind"] = rates["kind"].map({"annotator_flag_rate": "own flags",
                                               "auto_flag_rate": "automatic flags"})
            fig = px.bar(rates, x="annotator", y="share", color="kind", barmode="group",
                         labels={"annotator": "", "share": "share"})
            fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10), legend_title_text="",
                              yaxis_tickformat=".0%")
            st.plotly_chart(fig, key="annotators.flags")
with tab_partners:
    if tab_partners.open:
        if partners.empty:
            st.caption("No doubly-annotated production sample completed in this period.")
        else:
            heat = partners.pivot_table(index="annotator", columns="partner", values="jaccard")
            if heat.empty:  # every pair's Jaccard withheld by the rule
                st.caption(f"No pair's Jaccard is shown: a pair's {NEEDS['jaccard'].name} {NEEDS['jaccard'].rule} "
                           "(see Agreement per pair below).")
            else:
                fig = px.imshow(heat, zmin=0, zmax=1, color_continuous_scale="Blues", text_auto=".2f",
                                labels={"color": "Jaccard"})
                fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10))
                st.plotly_chart(fig, key="annotators.partners_heat")
                st.caption(f"Pairs below their minimum are blank: a pair's {NEEDS['jaccard'].name} "
                           f"{NEEDS['jaccard'].rule} in common.")

st.subheader("Agreement per pair")
if partners.empty:
    st.caption(f"No pair in this period ({counted(dash.n_agreement_samples, 'sample')} measured).")
else:
    show_table(_figure_texts(partners, lambda row: dash.pair_figures.get(
                   tuple(sorted((row.annotator, row.partner))), {})),
               hide_index=True, width="stretch", key="annotators.partners",
               column_config={"n_samples": st.column_config.NumberColumn("shared samples"),
                              **{c: st.column_config.TextColumn(label) for c, label in FIGURE_LABELS.items()}})
    st.caption(f"{dash.n_agreement_samples} production samples with two or more annotations completed "
               f"in the period; each pair is listed from both sides. n: the samples the pair shares; {pair_rules()}.")
st.download_button("Download the per-annotator table (CSV)", safe_csv(pd.DataFrame(summary)),
                   file_name=f"annotators_{start}_{end}.csv", mime="text/csv", key="annotators.csv")

_closing_sections()
