"""The context-pair part of a Review case: the target with its follow-up set apart, each
annotator's two curves (alone and given the follow-up) with their TVCP classes and change label
(derived or overridden, saying which), the reference labels and the author's intent, and the
lead's change label for the gold.

User texts are shown with ``st.text`` or escaped (:func:`ui.display.plain`): never as markup.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from annotation.curves.distance import curve_distances
from annotation.pairs.change import CHANGE_LABELS, read_change
from annotation.pairs.duration_classes import CLASS_LABELS, class_of_curve
from annotation.timeaxis import X_MAX, tick_positions
from ui.components import curve_canvas
from ui.display import curve_description, curve_polyline, plain
from ui.tables import show_table


def _class_name(xi: float | None, omega: float | None, alpha: float | None) -> str:
    if None in (xi, omega, alpha):
        return "—"
    return class_of_curve(xi, omega, alpha).label  # type: ignore[arg-type]


def _reference_class(index: int | None) -> str:
    return "—" if index is None or not 0 <= index < len(CLASS_LABELS) else f"{CLASS_LABELS[index]} ({index})"


def pair_texts(case: Any) -> None:
    """The target and, set apart in its own box, the follow-up, both as literal text."""
    st.caption("Target")
    st.text(case.parent_text)
    with st.container(border=True):
        st.caption(":material/subdirectory_arrow_right: Follow-up (read with the target)")
        st.text(case.pair.follow_up)


def lead_facts(case: Any) -> None:
    """What only a lead sees of a pair: the imported release's labels and the author's intent."""
    pair = case.pair
    facts = []
    if pair.has_reference:
        facts.append(f"Reference: alone {_reference_class(pair.reference_alone)}, given the follow-up "
                     f"{_reference_class(pair.reference_given)}, change {pair.reference_change or '—'}")
    if pair.intended_change:
        facts.append(f"The author meant: {pair.intended_change}")
    for fact in facts:
        st.caption(plain(fact))


def versions_table(versions: Sequence[Any]) -> None:
    """Each annotator's two curves, their classes and their change label."""
    rows = []
    for v in versions:
        c = v.content
        choice = v.change
        if choice is None:
            label = "— (a curve is missing)"
        elif choice.overridden:
            label = f"{choice.label} (overridden; the curves give {choice.derived})"
        else:
            label = f"{choice.label} (derived)"
        # the change and the classes first: a lead reads them without scrolling the table
        rows.append({"annotator": v.annotator, "change": label,
                     "class alone": _class_name(c.xi, c.omega, c.alpha),
                     "class given": _class_name(c.context_xi, c.context_omega, c.context_alpha),
                     "alone": curve_description(c.xi, c.omega, c.alpha) or "no curve",
                     "given the follow-up": curve_description(c.context_xi, c.context_omega,
                                                              c.context_alpha) or "no curve"})
    # a dataframe shows its cells as text: the names read literally
    show_table(pd.DataFrame(rows), hide_index=True)


def given_w1(versions: Sequence[Any]) -> float | None:
    """W1 between the two furthest curves given the follow-up (None with fewer than two): the
    case header's W1 is of the target alone, and a pair can agree there and not here."""
    curves = [(c.context_xi, c.context_omega, c.context_alpha) for c in (v.content for v in versions)
              if c.has_context_parameters]
    pairs = [(a, b) for i, a in enumerate(curves) for b in curves[i + 1:]]
    if not pairs:
        return None
    w1, _, _ = curve_distances(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]))
    return float(np.nanmax(w1)) if np.isfinite(w1).any() else None


def given_chart(case: Any, colors: dict[int, str], key: str) -> None:
    """The curves given the follow-up: each annotator's (dashed) and the proposal's."""
    extra = []
    for v in case.versions:
        c = v.content
        line = curve_polyline(c.context_xi, c.context_omega, c.context_alpha)
        if line:
            extra.append({"points": line, "color": colors[v.annotation_id], "label": v.annotator, "dash": True})
    proposal = case.pair_proposal.context if case.pair_proposal is not None else None
    st.markdown("**Given the follow-up**")
    curve_canvas([], curve=curve_polyline(*proposal) if proposal else None, extra_curves=extra,
                 ticks=tick_positions(), x_max=X_MAX, key=key, height=200, disabled=True,
                 curve_label="mean given the follow-up")


def change_choice_box(case: Any, key: str) -> None:
    """The change label the lead's decision stores (the proposal's settled label to start with)."""
    proposed = case.pair_proposal.change if case.pair_proposal is not None else ""
    if key not in st.session_state and proposed in CHANGE_LABELS:
        st.session_state[key] = proposed
    chosen = st.segmented_control("Change label for the gold", list(CHANGE_LABELS), key=key,
                                  help="What the gold's change label will be. It starts at the label "
                                       "most annotators gave (a tie: what the settled curves give).")
    curves_say = proposed_curves_label(case)
    if chosen and curves_say and chosen != curves_say:
        # the export's duration classes come from the curves and its change from this label: a
        # lead who keeps both apart should do so knowingly
        st.warning(f"The proposed curves say {curves_say}; the gold will say {chosen}. The export's "
                   "duration classes come from the curves, its change from this label.")


def proposed_curves_label(case: Any) -> str | None:
    """The change the proposal's two curves give (None without both)."""
    proposal, pair = case.proposal, case.pair_proposal
    if proposal is None or pair is None or pair.context is None or not proposal.has_parameters:
        return None
    return read_change((proposal.xi, proposal.omega, proposal.alpha), pair.context, case.change_factor).label


__all__ = ["change_choice_box", "given_chart", "given_w1", "lead_facts", "pair_texts", "proposed_curves_label", "versions_table"]
