"""The context-pairs part of the Agreement page: the change label (kappa, Krippendorff's α, the
share of agreeing samples, slot 1 × slot 2 counts), the curves given the follow-up (ICC, W1)
beside the target alone's, and the gold against the imported reference labels. A figure the
data cannot support shows "—" with the rule that left it out."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from annotation.agreement import icc_reason
from annotation.agreement.curve_agreement import w1_time_factor
from annotation.agreement.pair_agreement import ContextPairAgreement, change_result
from annotation.pairs.change import CHANGE_LABELS
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from ui.tables import show_table


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _curve_rows(name: str, report: Any) -> dict[str, str]:
    row = {"curve": name}
    for p in PARAMETERS:
        icc = report.icc[p] if report.icc is not None else None
        row[f"ICC(1,1) {PARAMETER_SYMBOLS[p]}"] = (
            _fmt(icc.headline) if icc is not None and icc.ok
            else "— " + (icc_reason(icc.n_used, icc.raters, icc.problem) if icc is not None else "not run"))
    w1 = report.curve.mean_w1 if report.curve is not None else math.nan
    row["mean W1"] = "— needs a sample with two curves" if math.isnan(w1) else f"{w1:.2f} (×{w1_time_factor(w1):.2f})"
    return row


def show_pair_agreement(report: Any, pairs: ContextPairAgreement) -> None:
    """Draw the pairs part under the headline figures."""
    st.subheader("Context pairs")
    change = change_result(report)
    cols = st.columns(3)
    if change is not None:
        f = change.figures
        cols[0].metric("Cohen's kappa (change label)", _fmt(f.kappa))
        cols[1].metric("Krippendorff α (change label, nominal)", _fmt(f.alpha))
        cols[2].metric("Samples whose labels agree", "—" if math.isnan(f.agreement) else f"{f.agreement:.0%}")
        st.caption(f"Over {f.n_samples} samples with two change labels (each annotator's override, else the "
                   "label their curves give)" + (f" · — {f.note}" if f.note else ""))
        with st.expander("First × second annotator's change label"):
            show_table(pd.DataFrame(f.counts, index=pd.Index(CHANGE_LABELS, name="first"),
                                    columns=list(CHANGE_LABELS)))
    st.markdown("**Both curves**")
    show_table(pd.DataFrame([_curve_rows("target alone", report),
                             _curve_rows("given the follow-up", pairs.given)]), hide_index=True)
    if pairs.reference is None:
        st.caption("No reference labels were imported with these pairs.")
        return
    st.markdown("**Gold against the reference labels**")
    show_table(pd.DataFrame([{"compared": f.what, "samples": f.n, "accuracy": _fmt(f.accuracy),
                              "Cohen's kappa": _fmt(f.kappa), "why no figure": f.note}
                             for f in pairs.reference]), hide_index=True)


__all__ = ["show_pair_agreement"]
