"""What a protocol's page part declares (:class:`ProtocolViews`); a protocol without a part of its
own takes these defaults, which show and ask nothing more."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from annotation.settings import ProjectSettings


@dataclass(frozen=True)
class ProtocolViews:
    """A protocol's page parts (defaults: nothing beyond a single text's)."""

    key: str
    #: said beside the workbench's layout toggle when the protocol fixes the layout to steps
    layout_caption: str = ""

    def sample_panel(self, content: Any, follow_up: str | None, settings: ProjectSettings) -> dict[str, Any] | None:
        """The workbench surface's panel of what the sample holds besides its text (None: none)."""
        return None

    # --- the Review page -------------------------------------------------------------------

    def head_figures(self, case: Any) -> list[str]:
        """Figures the case's caption adds."""
        return []

    def sample_facts(self, case: Any, versions: Sequence[Any]) -> None:
        """What the case shows of its sample before the annotations side by side."""

    def second_chart(self, case: Any, colors: dict[int, str], key: str) -> None:
        """A chart under the validity curves."""

    def decision_box(self, case: Any, key: str) -> None:
        """An input every decision carries (its value in session state under ``key``)."""

    def decision_values(self, case: Any, decision: str, chosen: Any) -> dict[str, Any]:
        """What a ``decision`` passes to the service besides the note (``chosen``: the box's value)."""
        return {}

    def note_required(self, case: Any, action: str, chosen: Any, edit: Any = None) -> bool:
        """Whether ``action`` needs a note because of what the box holds."""
        return False


__all__ = ["ProtocolViews"]
