"""How often an author's follow-ups do what the author meant them to.

An authored follow-up carries its author's intended change (decrease, keep, increase). Other
annotators annotate the pair blind to it, and the pair's settled change (the gold's change label)
is what the follow-up *does*. Per author, the **validation share** is the share of their settled
authored pairs whose settled change equals the intent — after TVCP's second phase, where
agreement of the derived change with the writer's intent validated the writer.

A share is only reported from :data:`MIN_SETTLED_PAIRS` settled pairs on: below that one pair
moves it by more than ten points, and a lead would read noise as a verdict on a person. Under
the minimum the share is "—" with the reason; the counts are always shown. Pure.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

#: The fewest settled authored pairs a validation share is reported from (module docstring).
MIN_SETTLED_PAIRS = 10


@dataclass(frozen=True)
class AuthoredPair:
    """One authored pair: its author, the change they intended and its settled change ("" while
    the pair is not settled, or settled without a change label)."""

    author: str
    intended: str
    settled: str = ""


@dataclass(frozen=True)
class AuthorValidation:
    """One author's figures: pairs written, of those settled, of those whose settled change is
    the intent."""

    author: str
    written: int
    settled: int
    matching: int

    @property
    def share(self) -> float | None:
        """``matching / settled``; None under :data:`MIN_SETTLED_PAIRS` settled pairs."""
        return self.matching / self.settled if self.settled >= MIN_SETTLED_PAIRS else None

    @property
    def reason(self) -> str:
        """Why there is no share ("" when there is one)."""
        if self.share is not None:
            return ""
        return (f"only {self.settled} settled; a share needs at least {MIN_SETTLED_PAIRS} settled pairs")

    @property
    def shown(self) -> str:
        """The share as the Annotators page shows it, with its counts, or "—" and the reason.

        Examples:
            >>> AuthorValidation("ann", 36, 12, 9).shown
            '75 % (9 of 12 settled)'
            >>> AuthorValidation("ann", 6, 3, 3).shown
            '— (only 3 settled; a share needs at least 10 settled pairs)'
        """
        if self.share is None:
            return f"— ({self.reason})"
        return f"{round(self.share * 100):d} % ({self.matching} of {self.settled} settled)"


def author_validation(pairs: Iterable[AuthoredPair]) -> list[AuthorValidation]:
    """Per author (by name), the validation figures of their authored pairs.

    Examples:
        >>> pairs = [AuthoredPair("ann", "increased", "increased")] * 8 + [
        ...     AuthoredPair("ann", "decreased", "neutral"), AuthoredPair("ann", "neutral", "neutral"),
        ...     AuthoredPair("ann", "neutral", ""), AuthoredPair("bob", "neutral", "neutral")]
        >>> [(v.author, v.written, v.settled, v.matching, v.share) for v in author_validation(pairs)]
        [('ann', 11, 10, 9, 0.9), ('bob', 1, 1, 1, None)]
    """
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for pair in pairs:
        figures = counts[pair.author]
        figures[0] += 1
        if pair.settled:
            figures[1] += 1
            figures[2] += int(pair.settled == pair.intended)
    return [AuthorValidation(author, *figures) for author, figures in sorted(counts.items())]


__all__ = ["AuthorValidation", "AuthoredPair", "MIN_SETTLED_PAIRS", "author_validation"]
