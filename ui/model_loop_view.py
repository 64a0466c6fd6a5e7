"""The model in the loop on the back-office pages (leads only; annotators never see any of it):

* Training: apply a finished run to its project (:func:`apply_run_controls`: predict every
  sample, or audit the gold by cross-fitting) and what such a job did (:func:`model_job_summary`);
* Review: the latest audit's "Model disagrees" list (:func:`model_disagrees_panel`), each entry
  with both curves and a button that opens it as a normal review case; and the model's curve on
  a case, when the project allows leads to show it (:func:`model_curve_lines`, off by default).

User text (a sample's text and id) is shown literally (``plain`` / ``st.text``).
"""

from __future__ import annotations

import math

import streamlit as st

from annotation.services.jobs import jobs
from annotation.services.model import model_jobs, model_loop
from annotation.training.calibration import LEVEL, calibration_words, withheld_because
from annotation.timeaxis import X_MAX, humanize_x, minutes_to_x, tick_positions
from annotation.wording import counted
from ui.components import curve_canvas
from ui.display import curve_polyline, plain
from ui.session import service_errors, toast_next_run

MODEL_COLOR = "#6b7280"  # a neutral grey: the model is a second opinion, not a proposal
#: How many of the latest audit's samples Review lists (the CLI's --top shows more)
PANEL_TOP = 10


def apply_run_controls(db, actor, project_id: int, run: jobs.JobInfo, *,  # type: ignore[no-untyped-def]
                       flash_key: str) -> None:
    """For a finished training run: predict every sample of the project, or audit its gold. The
    page stays on the run (both buttons stay at hand) and shows the jobs it launched below
    (:func:`applied_jobs`)."""
    with st.form(f"training.apply.{run.id}", border=True):
        st.markdown("**Apply this run to the project** — its best model by validation NLL, as an ensemble")
        c1, c2, c3 = st.columns(3)
        members = c1.number_input("Ensemble members", min_value=model_jobs.MIN_MEMBERS,
                                  max_value=model_jobs.MAX_MEMBERS, value=model_jobs.DEFAULT_MEMBERS, step=1,
                                  key=f"training.apply.{run.id}.members",
                                  help="Each member is fitted on a bootstrap resample of the run's training split.")
        folds = c2.number_input("Audit folds", min_value=model_jobs.MIN_FOLDS, max_value=model_jobs.MAX_FOLDS,
                                value=model_jobs.DEFAULT_FOLDS, step=1, key=f"training.apply.{run.id}.folds",
                                help="The data are split into folds; each is predicted by models fitted on the others: "
                                     "the cross-validation against the trivial reference and the calibration "
                                     "of the model's uncertainty (both kinds of job), the audit's out-of-fold "
                                     "predictions.")
        c3.caption("Predictions order the queue when the project hands out *most uncertain first*; an audit "
                   "fills Review's *Model disagrees* list — each only when the model beats the trivial "
                   "reference under cross-validation. Annotators never see either.")
        b1, b2 = st.columns(2)
        predict = b1.form_submit_button("Predict every sample", icon=":material/online_prediction:")
        audit_gold = b2.form_submit_button("Audit the gold", icon=":material/fact_check:")
    if predict or audit_gold:
        kind = model_jobs.PREDICT if predict else model_jobs.AUDIT
        with service_errors():
            job = model_jobs.launch_model_job(db, actor, project_id, run.id, kind, members=int(members),
                                              folds=int(folds))
        toast_next_run(flash_key, f"Job {job.id} launched: {'predictions' if predict else 'gold audit'} of run "
                                  f"{run.id}, followed below.")
        st.rerun()


#: what each kind of job that applies a run is called on the page
APPLIED_TITLES = {model_jobs.PREDICT: "Predictions", model_jobs.AUDIT: "Gold audit"}


def applied_jobs(all_jobs: list[jobs.JobInfo], run: jobs.JobInfo) -> list[jobs.JobInfo]:
    """The latest job of each kind that applied ``run`` (``all_jobs``: newest first)."""
    latest: dict[str, jobs.JobInfo] = {}
    for job in all_jobs:
        if job.kind in APPLIED_TITLES and job.config.get("run_job_id") == run.id:
            latest.setdefault(job.kind, job)
    return list(latest.values())


def model_job_summary(job: jobs.JobInfo) -> None:
    """What a finished predict or audit job did and where it is used."""
    run = job.config.get("run_job_id")
    how, reason = calibration_words(job.result), withheld_because(job.result)
    if how:
        st.caption(plain(sentence(how)))
    if reason:
        st.warning(plain(f"Not used: {reason}."), icon=":material/block:")
        return
    if job.kind == model_jobs.PREDICT:
        st.caption(f"Predictions of run {run} for {counted(int(job.result.get('n', 0)), 'sample')} "
                   f"({job.config.get('members')} members). The queue uses the latest when the project "
                   "hands out *most uncertain first* (Projects page).")
    else:
        st.caption(f"Gold audit with run {run}: {counted(int(job.result.get('n', 0)), 'gold sample')} cross-fitted "
                   f"in {job.config.get('folds')} folds ({job.config.get('members')} members). "
                   "The most suspicious are on the Review page, under *Model disagrees*.")


def sentence(words: str) -> str:
    """``words`` as a sentence of its own: a capital first letter and a full stop ("" stays "").

    >>> sentence("cross-validated in 3 folds: beats the training mean curve")
    'Cross-validated in 3 folds: beats the training mean curve.'
    """
    return f"{words[0].upper()}{words[1:]}." if words else ""


def _half_gone_text(minutes: float) -> str:
    if minutes == math.inf:
        return "beyond the chart's end"
    if not (math.isfinite(minutes) and minutes > 0):
        return "—"
    return humanize_x(minutes_to_x(minutes))


def model_disagrees_panel(db, actor, project_id: int, *, next_pick_key: str,  # type: ignore[no-untyped-def]
                          reset: dict[str, object] | None = None) -> None:
    """The latest audit's most suspicious gold samples, in an expander at the top of Review.
    Opening one sets ``reset`` (Review's filters back to all: the case opened must not be
    filtered out of the queue, or another would open in its place)."""
    with service_errors():
        listed = model_loop.disagreements(db, actor, project_id, top=PANEL_TOP)
    if listed is None:
        return
    if listed.withheld:
        with st.expander(f"Model disagrees · nothing listed (audit job {listed.job_id})", expanded=False):
            st.caption(plain(f"The latest audit lists nothing: {listed.withheld}. "
                             + sentence(calibration_words(listed.kept))))
        return
    with st.expander(f"Model disagrees · {counted(len(listed.entries), 'gold sample')} of "
                     f"{listed.n_audited} audited (audit job {listed.job_id})", expanded=False):
        st.caption("Gold samples a model that never saw them (cross-fitted) finds strangest: a parameter far "
                   "from where its residuals usually lie, or a curve further from its own than it usually "
                   "misses (W1 over its expected miss, both in log-time units). The score is the larger of "
                   "the two, each divided by its 95th percentile over the audited gold: above 1, stranger "
                   "than 19 in 20 of them. Nothing is flagged or changed: open one to review it.")
        st.caption(plain(sentence(calibration_words(listed.kept))))
        for e in listed.entries:
            with st.container(border=True):
                left, right = st.columns([3, 2])
                miss = "—" if e.expected_miss is None else f"{e.expected_miss:.1f}"
                left.markdown(f"**{e.rank}. {plain(e.external_id)}** · W1 {e.gold_w1:.1f} · expected miss "
                              f"{miss} · score {e.score:.1f}")
                left.text(e.text)
                figs = e.figures
                left.caption("Annotators: " + " · ".join(
                    f"{name} {value:.2f}" for name, value in (("W1", figs.w1), ("Pk", figs.pk),
                                                              ("Jaccard", figs.jaccard)) if value is not None)
                    if any(v is not None for v in (figs.w1, figs.pk, figs.jaccard)) else "Annotators: no pair to compare")
                left.caption(f"Model: half gone after {_half_gone_text(e.half_gone_minutes)} "
                             f"({LEVEL * 100:.0f} % interval {_half_gone_text(e.half_gone_interval[0])} – "
                             f"{_half_gone_text(e.half_gone_interval[1])})"
                             + (" · the gold was decided again since the audit: W1 and score are against the "
                                "gold it saw" if e.gold_changed else ""))
                gold_line = curve_polyline(*e.gold) if all(math.isfinite(v) for v in e.gold) else None
                model_line = curve_polyline(*e.model)
                with right:
                    curve_canvas([], curve=gold_line, curve_label="gold",
                                 extra_curves=[{"points": model_line, "color": MODEL_COLOR, "label": "model",
                                                "dash": True}] if model_line else [],
                                 ticks=tick_positions(), x_max=X_MAX, key=f"review.model.chart.{e.sample_id}",
                                 height=170, disabled=True)
                label = "Open its review case" if e.open_item_id is None else "Open its open review case"
                if left.button(label, key=f"review.model.open.{listed.job_id}.{e.sample_id}",
                               icon=":material/rate_review:"):
                    with service_errors():
                        item_id = model_loop.open_disagreement_case(db, actor, e.sample_id)
                    st.session_state.update(reset or {})
                    st.session_state[next_pick_key] = item_id
                    st.rerun()


def model_curve_lines(db, actor, sample_id: int, *, allowed: bool, key: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """The latest applied model's curve for the case's chart, when the project allows leads to
    show it and this lead switched it on (off by default); [] otherwise."""
    if not allowed or not st.toggle("Show the model's curve", value=False, key=key,
                                    help="The latest applied model's prediction for this sample (grey)."):
        return []
    with service_errors():
        curve = model_loop.model_curve(db, actor, sample_id)
    if curve is None:
        st.caption("No applied model has predicted this sample.")
        return []
    line = curve_polyline(curve.xi, curve.omega, curve.alpha)
    return [{"points": line, "color": MODEL_COLOR, "label": f"model (job {curve.job_id})", "dash": True}] if line else []


__all__ = ["APPLIED_TITLES", "applied_jobs", "apply_run_controls", "model_curve_lines", "model_disagrees_panel",
           "model_job_summary"]
