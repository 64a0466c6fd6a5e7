"""A draft being replayed, kept mutable so that each frequent edit costs O(log n), not O(n).

Why: :func:`annotation.workbench.event_log.replay` applied every event through :mod:`annotation.workbench.editing`,
which builds a new :class:`~annotation.segmentation.Segmentation` (validated, O(segments)) and
re-maps every axis (O(segments²)) per boundary toggle, and refits the curve per point edit. A
500-event batch on a 2,500-token text split into 2,500 segments took over a minute, and holding
an arrow key on a point sent one refit per key repeat. Here:

* the segmentation is a sorted list of boundaries with a parallel list of axes: a toggle is one
  binary search and one list insertion or deletion, with the axes following their tokens exactly
  as :func:`annotation.segmentation.remap_segment_axes` does (a new boundary's segment takes the
  axis of the segment it splits; a removed boundary's segment is merged into the one before);
* a point edit changes the points and marks the curve *stale*; the fit runs once, when something
  reads the curve (a hand-tuned parameter, a refit, durations, a submit) or at the end of the
  batch. The fit depends on the points alone, so the content is the same as with a fit after
  every point edit; consecutive moves of one point therefore cost one fit in all. A pair's
  second curve (the target given the follow-up) is edited the same way, on the content with
  its two curves swapped (:meth:`~annotation.workbench.protocol.AnnotationContent.swapped_curves`),
  and fitted lazily on its own.

:meth:`WorkingDraft.content` gives the immutable :class:`~annotation.workbench.protocol.AnnotationContent`
back (O(segments), once). ``tests/unit/test_event_log.py`` checks the result against applying
every event through :mod:`annotation.workbench.editing` one by one, on random sequences.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

from annotation.workbench import editing
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation


class WorkingDraft:
    """An :class:`AnnotationContent` under edit, with a fast segmentation and a lazy fit.

    Examples:
        >>> d = WorkingDraft(AnnotationContent(boundaries=(0, 5), segment_axes=("main", "opinion")), 10)
        >>> d.toggle_boundary(3)                # splits the first segment: both halves "main"
        >>> d.toggle_boundary(5)                # merges 3..5 and 5..10: the left axis stays
        >>> d.set_axis(1, "static")
        >>> d.content().boundaries, d.content().segment_axes
        ((0, 3), ('main', 'static'))
        >>> d.edit_point({"action": "add", "x": 20.0, "y": 1.0})
        >>> d.fit_stale
        True
        >>> d.content().points, d.take_fit_message()
        (((20.0, 1.0),), 'Place 2 more points to see the curve.')
    """

    def __init__(self, content: AnnotationContent, n_tokens: int):
        self._base = content
        self.n_tokens = n_tokens
        self._boundaries: list[int] | None = None  # None: the base's segmentation is current
        self._axes: list[str | None] = []
        self._stale: set[bool] = set()  # the curves (context or not) edited since their fit
        self._fit_messages: dict[bool, str | None] = {}
        self._last_curve = False  # the curve whose fit message take_fit_message reports

    # --- segmentation ------------------------------------------------------------------------

    def _open_segments(self) -> None:
        if self._boundaries is not None:
            return
        # validates the stored boundaries once (raises SegmentationError, a ValueError, for a
        # corrupt draft, which the caller refuses like any impossible edit)
        seg = Segmentation.from_boundaries(self._base.boundaries, self.n_tokens)
        axes = list(self._base.segment_axes)
        if len(axes) != seg.n_segments:  # as remap_segment_axes: a mismatch loses the axes
            axes = [None] * seg.n_segments
        self._boundaries, self._axes = list(seg.boundaries), axes

    @property
    def n_segments(self) -> int:
        if self._boundaries is None:
            return len(self._base.segment_axes)
        return len(self._axes)

    def toggle_boundary(self, gap: int) -> None:
        """Add or remove the boundary before token ``gap`` (1 ≤ gap < n_tokens, checked by the
        caller); the axes follow their tokens (:func:`annotation.workbench.editing.toggle_boundary`)."""
        self._open_segments()
        assert self._boundaries is not None
        i = bisect_left(self._boundaries, gap)
        if i < len(self._boundaries) and self._boundaries[i] == gap:
            del self._boundaries[i]
            del self._axes[i]
        else:
            self._boundaries.insert(i, gap)
            self._axes.insert(i, self._axes[i - 1])

    def reset_segments(self) -> None:
        """Back to one segment without an axis."""
        self._boundaries, self._axes = [0], [None]

    def set_axis(self, index: int, axis: str | None) -> None:
        """Label segment ``index`` (checked by the caller) with ``axis`` (None clears it)."""
        self._open_segments()
        self._axes[index] = axis or None

    # --- the curve -----------------------------------------------------------------------------

    @property
    def fit_stale(self) -> bool:
        """Whether a curve's points changed since its last fit."""
        return bool(self._stale)

    def points(self, context: bool = False) -> tuple[tuple[float, float], ...]:
        """The points of the first curve, or of a pair's second one (``context``)."""
        return self._base.context_points if context else self._base.points

    def edit_point(self, event: dict, context: bool = False) -> None:
        """Apply one chart event (add / move / remove, checked by the caller) to the first
        curve or the second (``context``); the fit waits."""
        if context:
            points = editing.edited_points(self._base.context_points, event)
            self._base = replace(self._base, context_points=points)
        else:
            self._base = replace(self._base, points=editing.edited_points(self._base.points, event))
        self._stale.add(context)
        self._last_curve = context

    def take_fit_message(self) -> str | None:
        """Fit now the curves whose points changed since their last fit; the fit's message of
        the curve edited last (None when it fits its points, or when no point edit was made)."""
        for context in sorted(self._stale):
            if context:
                swapped, message = editing.refit(self._base.swapped_curves())
                self._base = swapped.swapped_curves()
            else:
                self._base, message = editing.refit(self._base)
            self._fit_messages[context] = message
        self._stale.clear()
        return self._fit_messages.get(self._last_curve)

    # --- everything else ---------------------------------------------------------------------

    def content(self) -> AnnotationContent:
        """The draft as an immutable content: segmentation written back, the curve fitted."""
        self.take_fit_message()
        if self._boundaries is not None:
            self._base = replace(self._base, boundaries=tuple(self._boundaries),
                                 segment_axes=tuple(self._axes))
            self._boundaries = None
        return self._base

    def set_content(self, content: AnnotationContent) -> None:
        """Continue from ``content`` (what a handler working on whole contents returned)."""
        self._base, self._boundaries = content, None
        self._stale.clear()
