"""The lead's hand-made resolution of one sample while it is being edited: the Review page's
"Edit" and the Warm-up page's gold are the same object and the same edits.

A :class:`LeadEdit` is frozen; each edit (a boundary click, a segment's axes, a typed parameter,
a point placed on the chart) returns a new one. :meth:`LeadEdit.resolution` turns it into the
:class:`~annotation.review.resolution.Resolution` the services store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from annotation.workbench.editing import edit_points
from annotation.parameters import PARAMETERS
from annotation.content import AnnotationContent
from annotation.review.resolution import EDITED, Resolution, canonical_segment_axes
from annotation.segmentation import Segmentation, SegmentationError, remap_segment_axes

#: Where a hand-made curve starts when there is nothing to start from (about a day, symmetric).
DEFAULT_PARAMETERS: Mapping[str, float] = {"xi": 60.0, "omega": 10.0, "alpha": 0.0}


@dataclass(frozen=True)
class LeadEdit:
    """Boundaries (token indices where segments start, first 0) over ``n_tokens`` tokens, the
    axes of each segment (a tuple of axis names, in AXES order; ``()`` while unchosen), ξ, ω, α
    (base-1.1 log minutes, α unitless), the points placed on the chart (warm-up gold only) and
    the last fit's message about them. ``curve_ready`` is False while ξ, ω, α are only a
    starting point nobody chose — the default curve of a sample without one, or the curve left
    standing after points that do not fit one (fewer than 3, or a shape no curve takes): such an
    edit is refused when stored (:attr:`curve_problem`). Raises ValueError when these do not fit
    together."""

    n_tokens: int
    boundaries: tuple[int, ...] = (0,)
    segment_axes: tuple[tuple[str, ...], ...] = ((),)
    xi: float = DEFAULT_PARAMETERS["xi"]
    omega: float = DEFAULT_PARAMETERS["omega"]
    alpha: float = DEFAULT_PARAMETERS["alpha"]
    points: tuple[tuple[float, float], ...] = ()
    message: str | None = None
    curve_ready: bool = True

    def __post_init__(self) -> None:
        seg = Segmentation.from_boundaries(self.boundaries, self.n_tokens)  # validates
        object.__setattr__(self, "boundaries", seg.boundaries)
        object.__setattr__(self, "segment_axes", canonical_segment_axes(self.segment_axes, seg.n_segments))
        for name in PARAMETERS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, not {value!r}")
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "points", tuple((float(x), float(y)) for x, y in self.points))

    @classmethod
    def from_proposal(cls, proposal: Resolution | None, n_tokens: int) -> "LeadEdit":
        """The Review page's starting point: the automatic proposal (its curve, or the default
        curve when it has none), or one segment without axes when there is no proposal.

        Examples:
            >>> LeadEdit.from_proposal(None, 5)
            LeadEdit(n_tokens=5, boundaries=(0,), segment_axes=((),), xi=60.0, omega=10.0, alpha=0.0, points=(), message=None, curve_ready=False)
        """
        if proposal is None:
            return cls(n_tokens, curve_ready=False)
        if not proposal.has_parameters:
            return cls(n_tokens, proposal.boundaries, proposal.segment_axes, curve_ready=False)
        params = {p: getattr(proposal, p) for p in PARAMETERS}
        return cls(n_tokens, proposal.boundaries, proposal.segment_axes, **params)

    @classmethod
    def blank(cls, n_tokens: int) -> "LeadEdit":
        """A sample without gold: one segment, no axes, no curve chosen yet (the default curve
        is drawn as a starting point only)."""
        return cls(n_tokens, curve_ready=False)

    @property
    def curve_problem(self) -> str | None:
        """Why this edit's curve cannot be stored yet, in one line; None when it can.

        Examples:
            >>> LeadEdit(5).curve_problem is None
            True
            >>> LeadEdit.blank(5).curve_problem
            'The curve is not set yet: place 3–5 points on the chart or type ξ, ω and α.'
            >>> two = LeadEdit.blank(5).with_point_event({"action": "add", "x": 40, "y": 0.5})
            >>> two.with_point_event({"action": "add", "x": 60, "y": 0.2}).curve_problem
            'The curve is not set yet: 2 points are placed and a curve needs at least 3 (or type ξ, ω and α).'
        """
        if self.curve_ready:
            return None
        if 0 < len(self.points) < 3:
            placed = "1 point is" if len(self.points) == 1 else f"{len(self.points)} points are"
            return (f"The curve is not set yet: {placed} placed and a curve needs at least 3 "
                    "(or type ξ, ω and α).")
        if self.points:
            why = f" ({self.message.rstrip('.')})" if self.message else ""
            return f"The curve is not set yet: the points do not define a curve{why}; move them or type ξ, ω and α."
        return "The curve is not set yet: place 3–5 points on the chart or type ξ, ω and α."

    @property
    def segmentation(self) -> Segmentation:
        return Segmentation(self.boundaries, self.n_tokens)

    @property
    def has_unlabelled_segment(self) -> bool:
        """Some segment has no axis yet (neither review nor warm-up stores such a resolution)."""
        return any(not axes for axes in self.segment_axes)

    def toggled(self, gap: int) -> "LeadEdit":
        """Add or remove the boundary before token ``gap``; the segments keep their axes where
        they survive (a split segment's axes go to both halves, a merge keeps the left one's).
        An impossible gap leaves the edit unchanged.

        Examples:
            >>> e = LeadEdit(10, (0, 5), (("main",), ("static",)))
            >>> e.toggled(3).segment_axes, e.toggled(5).segment_axes
            ((('main',), ('main',), ('static',)), (('main',),))
        """
        old = self.segmentation
        try:
            new = old.toggle(gap)
        except SegmentationError:
            return self
        axes = remap_segment_axes(old, self.segment_axes, new)
        return replace(self, boundaries=new.boundaries, segment_axes=tuple(tuple(a) for a in axes))

    def with_segment_axes(self, start: int, end: int, axes: Iterable[str]) -> "LeadEdit":
        """Give the segment spanning tokens ``[start, end)`` these axes. The segment is named by
        its span, never by its place in the list: a report about a segment that no longer exists
        (a late widget event after a boundary click) changes nothing.

        Examples:
            >>> e = LeadEdit(10, (0, 5), ((), ()))
            >>> e.with_segment_axes(5, 10, ["static", "main"]).segment_axes
            ((), ('main', 'static'))
            >>> e.with_segment_axes(3, 10, ["main"]) == e    # no such segment
            True
        """
        spans = self.segmentation.spans
        if (start, end) not in spans:
            return self
        chosen = list(self.segment_axes)
        chosen[spans.index((start, end))] = tuple(axes)
        return replace(self, segment_axes=tuple(chosen))

    def with_parameter(self, name: str, value: float) -> "LeadEdit":
        """ξ, ω or α typed by hand (the last fit's message no longer applies; the curve is now
        chosen)."""
        if name not in PARAMETERS:
            raise ValueError(f"unknown curve parameter {name!r}")
        return replace(self, **{name: float(value)}, message=None, curve_ready=True)

    def with_point_event(self, event: Mapping[str, Any]) -> "LeadEdit":
        """Apply one chart event (add / move / remove a point) and refit
        (:func:`annotation.workbench.editing.edit_points`): a fitted curve replaces ξ, ω, α; without one
        the parameters typed so far stay, but the curve no longer counts as chosen while points
        stand that define none (:attr:`curve_problem`), nor after they are all removed. The fit's message is kept for the page to show."""
        content, message = edit_points(AnnotationContent(points=self.points), event)
        if content.has_parameters:
            fitted = {p: getattr(content, p) for p in PARAMETERS}
            return replace(self, points=content.points, message=message, curve_ready=True, **fitted)
        ready = self.curve_ready and not content.points
        return replace(self, points=content.points, message=message, curve_ready=ready)

    def resolution(self, sources: tuple[int | str, ...]) -> Resolution:
        """The edit as an :data:`~annotation.review.resolution.EDITED` resolution by ``sources``.

        Examples:
            >>> LeadEdit(4, (0, 2), (("main",), ("static",))).resolution(("lead",)).method
            'edited'
        """
        return Resolution(self.boundaries, self.segment_axes, self.xi, self.omega, self.alpha,
                          tuple(sources), self.n_tokens, method=EDITED)
