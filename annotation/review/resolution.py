"""Automatic resolution: k annotations of one sample merged into one gold proposal (SPEC section 5).

The rule, used as gold when nothing is flagged and proposed to the lead otherwise:

* **segmentation** — the union of every annotator's boundaries. The union refines each
  annotator's segmentation, so every resulting segment lies inside exactly one segment of each
  annotator;
* **axes** — each resulting segment carries every axis that any annotator used on any of its
  tokens (the union), as a tuple of axis names in :data:`annotation.axes.AXES` order. Where the
  annotators agree that is one axis. Where they differ a segment of the proposal carries several:
  the gold keeps one axis per segment, so such a sample is never settled automatically — it goes
  to a lead (``axes_differ``, :mod:`annotation.review.gold_rules`), whose proposal shows the
  axes to choose from, and no decision stores it as it is. A segment left without any axis (only
  possible when every annotator left that part unlabelled, e.g. a flagged draft) has ``()``;
* **curve** — ξ, ω, α are the arithmetic means of the annotators' values, over the annotations
  that have a curve (all three parameters); None when none has.

Everything here is pure; the service turns stored annotations into :class:`AnnotatorVersion`
values (:meth:`AnnotatorVersion.from_content`) and stores the returned :class:`Resolution`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotation.axes import AXIS_NAMES, is_axis_name
from annotation.segmentation import Segmentation
from annotation.wording import counted

if TYPE_CHECKING:
    from annotation.content import AnnotationContent

#: :attr:`Resolution.method` of a merge of several versions and of one annotator's version.
UNION_MEAN = "union_mean"
ONE_VERSION = "one_version"
#: :attr:`Resolution.method` of a resolution the lead edited by hand.
EDITED = "edited"
#: :attr:`Resolution.method` of the refitted linear pool of the curves (:mod:`annotation.review.pooling`).
POOLED = "linear_pool"


@dataclass(frozen=True)
class AnnotatorVersion:
    """One annotator's submitted work on a sample, as the resolution reads it.

    ``annotator`` identifies the annotator (user id or pseudonym, whatever the caller uses);
    ``segment_axes`` has one axis name per segment, None for a segment left unlabelled;
    ξ, ω, α are in base-1.1 log minutes (α unitless), all None when there is no curve.
    """

    annotator: int | str
    segmentation: Segmentation
    segment_axes: tuple[str | None, ...]
    xi: float | None = None
    omega: float | None = None
    alpha: float | None = None

    def __post_init__(self) -> None:
        if len(self.segment_axes) != self.segmentation.n_segments:
            raise ValueError(
                f"annotator {self.annotator!r}: {counted(len(self.segment_axes), 'axis label')} "
                f"for {counted(self.segmentation.n_segments, 'segment')}"
            )
        for a in self.segment_axes:
            if a is not None and not is_axis_name(a):
                raise ValueError(f"annotator {self.annotator!r}: unknown axis {a!r}")
        params = (self.xi, self.omega, self.alpha)
        if any(p is not None and not math.isfinite(p) for p in params):
            raise ValueError(f"annotator {self.annotator!r}: parameters must be finite numbers")

    @property
    def has_parameters(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)

    @classmethod
    def from_content(cls, annotator: int | str, content: AnnotationContent, n_tokens: int) -> "AnnotatorVersion":
        """From a stored :class:`~annotation.workbench.protocol.AnnotationContent` of a text of
        ``n_tokens`` tokens (raises SegmentationError when its boundaries do not fit)."""
        return cls(annotator, content.segmentation(n_tokens), tuple(content.segment_axes),
                   content.xi, content.omega, content.alpha)


@dataclass(frozen=True)
class Resolution:
    """A gold proposal for one sample.

    ``boundaries`` are the token indices where segments start (first 0) over ``n_tokens`` tokens;
    ``segment_axes[j]`` is the tuple of axis names of segment j, in AXES order; ξ, ω, α in base-1.1
    log minutes (None without a curve). ``sources`` are the annotators whose versions were used,
    in input order; ``parameter_sources`` those whose parameters went into the mean. ``method`` is
    :data:`UNION_MEAN`, :data:`ONE_VERSION`, :data:`EDITED` or :data:`POOLED`. Axis sets are stored in canonical
    form (distinct, AXES order) whatever order they are given in. ``pooling`` names the rule that
    combined the annotators' curves (a key of :data:`annotation.settings.GOLD_POOLINGS`; "" when
    no rule did: one version, an edit) and ``weights`` each annotator's weight in it, in
    ``parameter_sources`` order — the gold's provenance.
    """

    boundaries: tuple[int, ...]
    segment_axes: tuple[tuple[str, ...], ...]
    xi: float | None
    omega: float | None
    alpha: float | None
    sources: tuple[int | str, ...]
    n_tokens: int
    parameter_sources: tuple[int | str, ...] = ()
    method: str = UNION_MEAN
    pooling: str = ""
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        # Canonical form whatever the caller passed (e.g. the lead's edit): tuples, each axis
        # set distinct and in AXES order.
        seg = Segmentation.from_boundaries(self.boundaries, self.n_tokens)  # validates
        object.__setattr__(self, "boundaries", seg.boundaries)
        object.__setattr__(self, "segment_axes", canonical_segment_axes(self.segment_axes, seg.n_segments))
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "parameter_sources", tuple(self.parameter_sources))
        object.__setattr__(self, "weights", tuple(float(w) for w in self.weights))
        if self.weights and len(self.weights) != len(self.parameter_sources):
            raise ValueError(f"{counted(len(self.weights), 'weight')} for "
                             f"{counted(len(self.parameter_sources), 'curve')}")
        if self.method not in (UNION_MEAN, ONE_VERSION, EDITED, POOLED):
            raise ValueError(f"unknown resolution method {self.method!r}")

    @property
    def segmentation(self) -> Segmentation:
        return Segmentation(self.boundaries, self.n_tokens)

    @property
    def has_parameters(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)

    def segments_by_axis(self) -> dict[str, tuple[int, ...]]:
        """For every axis in AXES order, the indices of the segments carrying it, in text order
        (empty when none) — what the export joins into each axis field."""
        return {
            name: tuple(j for j, axes in enumerate(self.segment_axes) if name in axes)
            for name in AXIS_NAMES
        }


def resolve_pair(annotations: Sequence[AnnotatorVersion]) -> Resolution:
    """The automatic resolution of k ≥ 2 annotations of one sample (also accepts k = 1).

    Boundaries: union of all boundaries. Axes of each resulting segment: the union, over
    annotators, of the axis of the annotator's segment that contains it (equivalently, every
    axis any annotator put on any of its tokens), in AXES order — several where the annotators
    differ, which makes it a proposal for a lead, never gold as it is
    (:func:`annotation.review.gold_rules.several_axes_problem`). ξ, ω, α: arithmetic mean over
    the annotations with a curve, None when none has one (SPEC section 5).
    Raises ValueError for no annotations or annotations of texts of different lengths.

    Examples:
        >>> a = AnnotatorVersion("A", Segmentation((0, 5), 10), ("main", "static"), 40.0, 10.0, 0.0)
        >>> b = AnnotatorVersion("B", Segmentation((0, 3), 10), ("main", "generic"), 50.0, 14.0, 2.0)
        >>> gold = resolve_pair([a, b])
        >>> gold.boundaries                     # union of (0, 5) and (0, 3)
        (0, 3, 5)
        >>> gold.segment_axes                   # tokens 3-4: A said main, B generic
        (('main',), ('main', 'generic'), ('static', 'generic'))
        >>> gold.xi, gold.omega, gold.alpha     # means of (40, 50), (10, 14), (0, 2)
        (45.0, 12.0, 1.0)
    """
    if not annotations:
        raise ValueError("nothing to resolve: no annotations given")
    n_tokens = _common_n_tokens(annotations)
    boundaries = tuple(sorted({b for a in annotations for b in a.segmentation.boundaries}))
    segment_axes = []
    for start in boundaries:
        # The union refines each segmentation, so the segment's first token identifies the one
        # segment of each annotator that contains all of its tokens.
        used = {a.segment_axes[a.segmentation.segment_of(start)] for a in annotations}
        segment_axes.append(tuple(_in_axes_order(used - {None})))
    with_curve = [a for a in annotations if a.has_parameters]
    xi = omega = alpha = None
    if with_curve:
        xi = math.fsum(a.xi for a in with_curve) / len(with_curve)
        omega = math.fsum(a.omega for a in with_curve) / len(with_curve)
        alpha = math.fsum(a.alpha for a in with_curve) / len(with_curve)
    return Resolution(
        boundaries=boundaries,
        segment_axes=tuple(segment_axes),
        xi=xi, omega=omega, alpha=alpha,
        sources=tuple(a.annotator for a in annotations),
        n_tokens=n_tokens,
        parameter_sources=tuple(a.annotator for a in with_curve),
        method=UNION_MEAN,
        pooling="equal" if with_curve else "",
        weights=tuple(1.0 / len(with_curve) for _ in with_curve),
    )


def take_version(annotation: AnnotatorVersion) -> Resolution:
    """One annotator's version as the resolution (the lead's "take A's version"): its own
    segmentation, one axis per segment (``()`` where unlabelled), its own parameters.

    Examples:
        >>> b = AnnotatorVersion("B", Segmentation((0, 3), 10), ("main", None))
        >>> gold = take_version(b)
        >>> gold.boundaries, gold.segment_axes, gold.xi, gold.method
        ((0, 3), (('main',), ()), None, 'one_version')
    """
    return Resolution(
        boundaries=annotation.segmentation.boundaries,
        segment_axes=tuple(() if a is None else (a,) for a in annotation.segment_axes),
        xi=annotation.xi if annotation.has_parameters else None,
        omega=annotation.omega if annotation.has_parameters else None,
        alpha=annotation.alpha if annotation.has_parameters else None,
        sources=(annotation.annotator,),
        n_tokens=annotation.segmentation.n_tokens,
        parameter_sources=(annotation.annotator,) if annotation.has_parameters else (),
        method=ONE_VERSION,
    )


def _common_n_tokens(annotations: Sequence[AnnotatorVersion]) -> int:
    sizes = {a.segmentation.n_tokens for a in annotations}
    if len(sizes) != 1:
        detail = ", ".join(f"{a.annotator!r}: {a.segmentation.n_tokens}" for a in annotations)
        raise ValueError(
            f"the annotations segment texts of different lengths ({detail} tokens); "
            "they must all annotate the same text"
        )
    return sizes.pop()


def canonical_segment_axes(segment_axes: Sequence[Sequence[str]], n_segments: int) -> tuple[tuple[str, ...], ...]:
    """One axis set per segment, each distinct and in AXES order; ValueError naming the
    problem otherwise (wrong count, a bare string, an unknown axis).

    Examples:
        >>> canonical_segment_axes([["static", "main", "static"], ["static"]], 2)
        (('main', 'static'), ('static',))
    """
    if len(segment_axes) != n_segments:
        raise ValueError(f"{counted(len(segment_axes), 'axis set')} for {counted(n_segments, 'segment')}")
    for axes in segment_axes:
        if isinstance(axes, str):
            raise ValueError(f"segment axes must be collections of axis names, not {axes!r}")
        for a in axes:
            if not is_axis_name(a):
                raise ValueError(f"unknown axis {a!r}; expected one of {', '.join(AXIS_NAMES)}")
    return tuple(tuple(_in_axes_order(axes)) for axes in segment_axes)


def _in_axes_order(names) -> list[str]:
    """Distinct axis names sorted in AXES order."""
    return sorted(set(names), key=AXIS_NAMES.index)
