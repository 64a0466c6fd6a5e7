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
from annotation.pairs.change import CHANGE_LABELS
from annotation.review.gold_rules import change_override, override_words
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
    st.segmented_control("Change label for the gold", list(CHANGE_LABELS), key=key,
                         help="What the gold's change label will be. It starts at the label most "
                              "annotators gave (a tie: what the settled curves give).")


def _curve(res: Any) -> tuple[float, float, float] | None:
    return (res.xi, res.omega, res.alpha) if res is not None and res.has_parameters else None


def decision_curves(case: Any, action: str, edit: Any = None) -> list[tuple[str, Any, Any]]:
    """The gold curves (alone, given the follow-up) each button of ``action`` would store, with
    whose they are ("" for the one button of Accept, Accept pooled and Edit; an annotator's name
    per Take button); a curve is None where the decision would have none."""
    given = case.pair_proposal.context if case.pair_proposal is not None else None
    if action == "accept":
        return [("", _curve(case.proposal), given)]
    if action == "pooled":
        return [("", _curve(case.pooled), case.pair_pooled.context if case.pair_pooled is not None else None)]
    if action == "edit":  # the lead's edit: its curve is always set (a starting point at worst)
        return [("", None if edit is None else (edit.xi, edit.omega, edit.alpha), given)]
    if action == "take":
        return [(v.annotator, _curve(v.content), _curve(v.content.swapped_curves())) for v in case.versions]
    return []


def override_prompt(case: Any, action: str, chosen: str | None, edit: Any = None) -> bool:
    """Before the lead decides: when the change label the gold would hold (``chosen``) is not the
    one the decision's gold curves give, say so — it is an override, and the decision needs the
    reason in its note. Returns whether it needs one (for every Take button: whether any does)."""
    if not chosen:
        return False
    overrides = [(who, derived) for who, alone, given in decision_curves(case, action, edit)
                 if (derived := change_override(alone, given, chosen, case.change_factor)) is not None]
    for who, derived in overrides:
        whose = f"Taking {who}'s version: " if who else ""
        st.warning(plain(f"{whose}{override_words(chosen, derived)}. A lead override is stored and exported "
                         "as one: say why in the note (required)."), icon=":material/rule:")
    return bool(overrides)


__all__ = ["change_choice_box", "decision_curves", "given_chart", "given_w1", "lead_facts", "override_prompt",
           "pair_texts", "versions_table"]
