"""Temporal segmentation: the one tokenizer of the project and segmentations over its tokens.

The unit of segmentation is the token produced by :func:`tokenize`; the UI, the agreement
measures, the interchange format and the export all use it, so a boundary index means the same
thing everywhere. A :class:`Segmentation` is stored as the token indices at which segments start
(the first is always 0) and always partitions the whole text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Sequence

# A word is a run of letters/digits, possibly joined by inner apostrophes, hyphens, dots, colons,
# commas or slashes between word characters ("don't", "co-op", "3.5", "8:15", "1,000", "and/or").
# Any other non-space character run ("," "." "..." "?!" "(") is a token of its own, so a
# boundary can fall before or after punctuation.
_TOKEN_RE = re.compile(r"\w+(?:['’\-.:,/]\w+)*|[^\w\s]+")


class SegmentationError(ValueError):
    """A segmentation that does not partition its text (message is user-facing)."""


@dataclass(frozen=True)
class Token:
    """One token: its text and its character span ``[start, end)`` in the parent text."""

    text: str
    start: int
    end: int


@lru_cache(maxsize=8192)
def tokenize(text: str) -> tuple[Token, ...]:
    """Split ``text`` into the project's tokens (see module docstring), with character offsets.

    Examples:
        >>> [(t.text, t.start, t.end) for t in tokenize("It's 8:15.")]
        [("It's", 0, 4), ('8:15', 5, 9), ('.', 9, 10)]
    """
    return tuple(Token(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text))


def token_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of the tokens of ``text`` — :func:`tokenize` without
    building a :class:`Token` per token (the export reads 100k texts and is 4× faster so).

    Examples:
        >>> token_spans("Rain, then sun.")
        [(0, 4), (4, 5), (6, 10), (11, 14), (14, 15)]
    """
    return [m.span() for m in _TOKEN_RE.finditer(text)]


_TOKEN_SPLIT_RE = re.compile(f"({_TOKEN_RE.pattern})")


def token_offsets(text: str) -> list[int]:
    """The running character offsets of ``text`` cut into gap, token, gap, …, token, gap: token
    i spans ``offsets[2i]`` to ``offsets[2i + 1]``, and there are ``len(offsets) // 2`` tokens —
    :func:`token_spans` without a tuple per token (made in C by one split, for the export).

    Examples:
        >>> offsets = token_offsets("Rain, then sun.")
        >>> [(offsets[2 * i], offsets[2 * i + 1]) for i in range(len(offsets) // 2)]
        [(0, 4), (4, 5), (6, 10), (11, 14), (14, 15)]
        >>> token_offsets("")
        [0]
    """
    return list(accumulate(map(len, _TOKEN_SPLIT_RE.split(text))))


def token_texts(text: str) -> list[str]:
    """The token strings of ``text``.

    Examples:
        >>> token_texts("Don't panic... yet!")
        ["Don't", 'panic', '...', 'yet', '!']
    """
    return [t.text for t in tokenize(text)]


def spaces_after(text: str) -> list[bool]:
    """For each token, whether whitespace follows it in the original text (for re-display).

    Examples:
        >>> token_texts("Hi, you."), spaces_after("Hi, you.")
        (['Hi', ',', 'you', '.'], [False, True, False, False])
    """
    toks = tokenize(text)
    return [i + 1 < len(toks) and toks[i + 1].start > t.end for i, t in enumerate(toks)]


@dataclass(frozen=True)
class Segmentation:
    """A partition of ``n_tokens`` tokens into contiguous segments.

    ``boundaries`` are the token indices where each segment starts, strictly increasing,
    the first 0, all ``< n_tokens``.

    Examples:
        >>> seg = Segmentation((0, 2, 5), 10)
        >>> seg.masses, seg.spans
        ((2, 3, 5), ((0, 2), (2, 5), (5, 10)))
        >>> seg.toggle(5).boundaries            # an existing boundary is removed
        (0, 2)
    """

    boundaries: tuple[int, ...]
    n_tokens: int

    def __post_init__(self) -> None:
        b = self.boundaries
        if self.n_tokens < 1:
            raise SegmentationError("the text has no tokens to segment")
        if not b or b[0] != 0:
            raise SegmentationError("the first segment must start at token 0")
        for i, v in enumerate(b):
            if not isinstance(v, int) or isinstance(v, bool):
                raise SegmentationError(f"boundary {v!r} is not a token index")
            if v >= self.n_tokens:
                raise SegmentationError(
                    f"boundary {v} is past the last token (the text has {self.n_tokens} tokens)"
                )
            if i and v <= b[i - 1]:
                raise SegmentationError("boundaries must be strictly increasing")

    @classmethod
    def whole(cls, n_tokens: int) -> "Segmentation":
        """One segment covering everything."""
        return cls((0,), n_tokens)

    @classmethod
    def from_boundaries(cls, boundaries: Sequence[int], n_tokens: int) -> "Segmentation":
        """Build from any sequence of start indices (validated, not re-sorted)."""
        values = []
        for x in boundaries:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not float(x).is_integer():
                raise SegmentationError(f"boundary {x!r} is not a token index")
            values.append(int(x))
        return cls(tuple(values), n_tokens)

    @classmethod
    def from_masses(cls, masses: Sequence[int]) -> "Segmentation":
        """Build from segment lengths (segeval's "masses"), e.g. ``(2, 3, 6)``."""
        if not masses or any(int(m) < 1 for m in masses):
            raise SegmentationError("every segment must contain at least one token")
        starts, pos = [], 0
        for m in masses:
            starts.append(pos)
            pos += int(m)
        return cls(tuple(starts), pos)

    @property
    def n_segments(self) -> int:
        return len(self.boundaries)

    @property
    def masses(self) -> tuple[int, ...]:
        """Segment lengths in tokens (the form segeval consumes)."""
        ends = self.boundaries[1:] + (self.n_tokens,)
        return tuple(e - s for s, e in zip(self.boundaries, ends))

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Half-open token ranges ``[start, end)`` of each segment."""
        ends = self.boundaries[1:] + (self.n_tokens,)
        return tuple(zip(self.boundaries, ends))

    def segment_ids(self) -> tuple[int, ...]:
        """The segment index of every token."""
        return tuple(j for j, m in enumerate(self.masses) for _ in range(m))

    def segment_of(self, token_index: int) -> int:
        """Index of the segment containing ``token_index``."""
        j = 0
        for j, start in enumerate(self.boundaries):
            if start > token_index:
                return j - 1
        return j

    def toggle(self, gap: int) -> "Segmentation":
        """Add a boundary at token ``gap`` (1..n_tokens-1), or remove it if present."""
        if not 1 <= gap < self.n_tokens:
            raise SegmentationError(f"there is no gap before token {gap}")
        b = set(self.boundaries)
        b.symmetric_difference_update({gap})
        return Segmentation(tuple(sorted(b)), self.n_tokens)


def segment_texts(text: str, segmentation: Segmentation) -> list[str]:
    """The original text of each segment (from its first token's start to its last token's end).

    Examples:
        >>> text = "The bridge closed today. It reopens in May."
        >>> len(tokenize(text))
        10
        >>> segment_texts(text, Segmentation((0, 5), 10))    # boundaries [0, 5]: two segments
        ['The bridge closed today.', 'It reopens in May.']
    """
    toks = tokenize(text)
    if len(toks) != segmentation.n_tokens:
        raise SegmentationError(
            f"segmentation covers {segmentation.n_tokens} tokens but the text has {len(toks)}"
        )
    return [text[toks[s].start : toks[e - 1].end] for s, e in segmentation.spans]


def remap_segment_axes(
    old: Segmentation, old_axes: Sequence[str | None], new: Segmentation
) -> list[str | None]:
    """Carry axis labels over to a changed segmentation.

    Each new segment takes the axis of the old segment containing its first token, so splitting
    a labelled segment keeps the label on both halves and merging keeps the left one's.

    Examples:
        >>> old = Segmentation((0, 5), 10)
        >>> remap_segment_axes(old, ["main", "intention"], Segmentation((0, 2, 5), 10))  # split
        ['main', 'main', 'intention']
        >>> remap_segment_axes(old, ["main", "intention"], Segmentation.whole(10))       # merge
        ['main']
    """
    if len(old_axes) != old.n_segments or old.n_tokens != new.n_tokens:
        return [None] * new.n_segments
    starts = old.boundaries
    return [old_axes[bisect_right(starts, start) - 1] for start in new.boundaries]
