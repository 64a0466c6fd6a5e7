"""The context-pairs part of the Agreement page: the change label (kappa, Krippendorff's α, the
share of agreeing samples, slot 1 × slot 2 counts), the curves given the follow-up (ICC, W1)
beside the target alone's, and the gold against the imported reference labels.

Every figure goes through the one rule of :mod:`annotation.publishable`, as the single-text
headline does and as the pairs card states them (:mod:`annotation.agreement.published`): kappa
(``NEEDS["change_kappa"]``) with its n and bootstrap 95 % interval, each curve's ICC and W1 with
theirs; below its minimum a figure is "—" with the rule that withheld it."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from annotation.agreement.curve_agreement import w1_time_factor
from annotation.agreement.pair_agreement import ContextPairAgreement, change_result
from annotation.agreement.published import CURVE_NAMES, change_kappa_figure, headline_figures
from annotation.pairs.change import CHANGE_LABELS
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.publishable import NEEDS, Figure, figure
from ui.tables import show_table


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _caption(fig: Figure, digits: int = 3) -> str:
    """"n = 40 · 95 % CI [lo, hi]", or "n = 8 · — <the rule that withheld it>" (the headline's
    captions on the Agreement page)."""
    if not fig.shown:
        return f"n = {fig.n:,} · — {fig.withheld}"
    if fig.interval is None:
        return f"n = {fig.n:,} · no interval"
    low, high = fig.interval
    return f"n = {fig.n:,} · 95 % CI [{low:.{digits}f}, {high:.{digits}f}]"


def _curve_row(name: str, report: Any) -> dict[str, str]:
    """One curve's ICC(1,1) of ξ, ω, α and mean W1, each through the rule (value, interval, n)."""
    published = headline_figures(report, CURVE_NAMES)
    missing = figure(NEEDS["icc"], None, n=0, undefined="not run")
    row = {"curve": name}
    for p in PARAMETERS:
        row[f"ICC(1,1) {PARAMETER_SYMBOLS[p]}"] = published.get(f"icc_{p}", missing).text()
    w1 = published.get("w1", figure(NEEDS["w1"], None, n=0, undefined="not run"))
    row["mean W1"] = w1.text(2) if not w1.shown else f"×{w1_time_factor(w1.value):.2f} · {w1.text(2)}"
    return row


def show_pair_agreement(report: Any, pairs: ContextPairAgreement) -> None:
    """Draw the pairs part under the headline figures."""
    st.subheader("Context pairs")
    change = change_result(report)
    cols = st.columns(3)
    if change is not None:
        f = change.figures
        kappa = change_kappa_figure(report, pairs.kappa_interval)
        # α of the change label: units are samples, read with the ICC's minimum; not bootstrapped
        alpha = figure(NEEDS["krippendorff"], f.alpha, n=f.n_samples, undefined=f.note)
        cols[0].metric("Cohen's kappa (change label)", _fmt(kappa.value))
        cols[0].caption(_caption(kappa))
        cols[1].metric("Krippendorff α (change label, nominal)", _fmt(alpha.value))
        cols[1].caption(_caption(alpha))
        cols[2].metric("Samples whose labels agree", "—" if math.isnan(f.agreement) else f"{f.agreement:.0%}")
        cols[2].caption(f"n = {f.n_samples:,}")
        st.caption(f"n: samples with two change labels (each annotator's override, else the label their curves "
                   f"give). {kappa.needs.name} {kappa.needs.rule}, Krippendorff's α {alpha.needs.rule}.")
        with st.expander("First × second annotator's change label"):
            show_table(pd.DataFrame(f.counts, index=pd.Index(CHANGE_LABELS, name="first"),
                                    columns=list(CHANGE_LABELS)))
    st.markdown("**Both curves**")
    show_table(pd.DataFrame([_curve_row("target alone", report),
                             _curve_row("given the follow-up", pairs.given)]), hide_index=True)
    st.caption(f"Each figure with its bootstrap 95 % interval and n (samples with two curves); ICC {NEEDS['icc'].rule}, "
               f"W1 {NEEDS['w1'].rule}, else — with the rule. W1 in log-time units (×: how far apart in time).")
    if pairs.reference is None:
        st.caption("No reference labels were imported with these pairs.")
        return
    st.markdown("**Gold against the reference labels**")
    show_table(pd.DataFrame([{"compared": f.what, "samples": f.n, "accuracy": _fmt(f.accuracy),
                              "Cohen's kappa": _fmt(f.kappa), "why no figure": f.note}
                             for f in pairs.reference]), hide_index=True)


__all__ = ["show_pair_agreement"]
