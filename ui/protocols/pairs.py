"""The context-pairs protocol's page parts: the follow-up's panel on the workbench (shown step by
step, so the follow-up stays out of sight until the target's own curve is drawn), and on the
Review page the follow-up, the lead's facts, the curves given the follow-up and the change label
a decision stores (:mod:`ui.pair_review_view`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from annotation.settings import ProjectSettings
from ui import pair_review_view
from ui.pair_view import pair_panel
from ui.protocols.views import ProtocolViews

#: the decisions that store a gold, and with it the lead's change label
GOLD_DECISIONS = ("accept_auto", "accept_pooled", "take_version", "edit")


@dataclass(frozen=True)
class PairViews(ProtocolViews):
    """A case is a pair when its sample has pair facts (``case.pair``)."""

    def sample_panel(self, content: Any, follow_up: str | None, settings: ProjectSettings) -> dict[str, Any] | None:
        return pair_panel(content, follow_up, settings)

    def head_figures(self, case: Any) -> list[str]:
        w = pair_review_view.given_w1(case.versions) if case.pair is not None else None
        return [] if w is None else [f"W1 given the follow-up {w:.1f} (×{1.1 ** w:.1f})"]

    def sample_facts(self, case: Any, versions: Sequence[Any]) -> None:
        if case.pair is not None:
            pair_review_view.pair_texts(case)
            pair_review_view.lead_facts(case)
            pair_review_view.versions_table(versions)

    def second_chart(self, case: Any, colors: dict[int, str], key: str) -> None:
        if case.pair is not None:
            pair_review_view.given_chart(case, colors, key=key)

    def decision_box(self, case: Any, key: str) -> None:
        if case.pair is not None:
            pair_review_view.change_choice_box(case, key)

    def decision_values(self, case: Any, decision: str, chosen: Any) -> dict[str, Any]:
        if case.pair is not None and decision in GOLD_DECISIONS:
            return {"change": chosen or None}  # the lead's label for the gold
        return {}

    def note_required(self, case: Any, action: str, chosen: Any, edit: Any = None) -> bool:
        return case.pair is not None and pair_review_view.override_prompt(case, action, chosen, edit)


VIEWS = PairViews("pairs", layout_caption="Context pairs: one step at a time")

__all__ = ["GOLD_DECISIONS", "PairViews", "VIEWS"]
