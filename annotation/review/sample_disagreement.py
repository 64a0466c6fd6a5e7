"""How the annotations of one sample disagree, as the lead sees it when reviewing the sample:
boundaries not everyone placed, and the spread of each curve parameter — per-sample figures
without the agreement measures (those compare many samples: :mod:`annotation.agreement`).
Also whether one annotator's version is complete enough to be taken as gold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Mapping

from annotation.parameters import PARAMETERS
from annotation.content import AnnotationContent
from annotation.review.resolution import Resolution
from annotation.segmentation import Segmentation, SegmentationError



@dataclass(frozen=True)
class SampleDisagreement:
    """``segmentations``: each version's segmentation (None where its boundaries do not fit the
    text); ``placed``: the inner boundaries (token indices, the first 0 left out) anyone placed;
    ``shared``: those every version with a segmentation placed; ``unshared``: each boundary
    placed by some only, in text order, with the keys of the versions that placed it;
    ``spread``: per parameter, the largest difference between two versions with a curve
    (None with fewer than two)."""

    segmentations: Mapping[Hashable, Segmentation | None]
    placed: frozenset[int]
    shared: frozenset[int]
    unshared: tuple[tuple[int, tuple[Hashable, ...]], ...]
    spread: Mapping[str, float | None]


def sample_disagreement(versions: Mapping[Hashable, AnnotationContent], n_tokens: int) -> SampleDisagreement:
    """Compare the versions (keyed by whatever names them, e.g. annotation ids) of a text of
    ``n_tokens`` tokens.

    Examples:
        >>> a = AnnotationContent((0, 4), ("main", "static"), xi=40.0, omega=10.0, alpha=0.0)
        >>> b = AnnotationContent((0, 4, 6), ("main", "static", "main"), xi=46.5, omega=9.0, alpha=1.0)
        >>> d = sample_disagreement({"A": a, "B": b}, 10)
        >>> sorted(d.shared), sorted(d.placed), d.unshared
        ([4], [4, 6], ((6, ('B',)),))
        >>> d.spread
        {'xi': 6.5, 'omega': 1.0, 'alpha': 1.0}
    """
    segs = {key: _segmentation(c.boundaries, n_tokens) for key, c in versions.items()}
    inner = [set(sg.boundaries[1:]) for sg in segs.values() if sg is not None]
    placed = set().union(*inner) if inner else set()
    shared = set.intersection(*inner) if inner else set()
    unshared = tuple((b, tuple(k for k, sg in segs.items() if sg is not None and b in sg.boundaries))
                     for b in sorted(placed - shared))
    with_curve = [c for c in versions.values() if c.has_parameters]
    spread = {p: _spread([getattr(c, p) for c in with_curve]) for p in PARAMETERS}
    return SampleDisagreement(segs, frozenset(placed), frozenset(shared), unshared, spread)


def default_choice(disagreement: SampleDisagreement, proposal: Resolution | None = None) -> str:
    """The Review page's decision a case opens with: "accept" (the automatic resolution), unless
    the annotators placed boundaries and share none of them — the union then keeps every boundary
    either placed, a segmentation nobody drew — when it opens on "edit", so storing it takes a
    look, not a reflex; and "edit" when the ``proposal`` has a segment with several axes, which
    Accept cannot store (the gold keeps one axis per segment: the lead chooses).

    Examples:
        >>> a = AnnotationContent((0, 4), ("main", "static"), xi=40.0, omega=10.0, alpha=0.0)
        >>> b = AnnotationContent((0, 2, 6), ("main", "static", "main"), xi=40.0, omega=10.0, alpha=0.0)
        >>> default_choice(sample_disagreement({"A": a, "B": b}, 10))          # 0 of 3 shared
        'edit'
        >>> default_choice(sample_disagreement({"A": a, "B": a}, 10))
        'accept'
        >>> one = AnnotationContent((0,), ("main",), xi=40.0, omega=10.0, alpha=0.0)
        >>> default_choice(sample_disagreement({"A": one, "B": one}, 10))      # none placed
        'accept'
        >>> two = Resolution((0,), (("main", "static"),), 40.0, 10.0, 0.0, (), 10)
        >>> default_choice(sample_disagreement({"A": one, "B": one}, 10), two)
        'edit'
    """
    if proposal is not None and any(len(axes) > 1 for axes in proposal.segment_axes):
        return "edit"
    return "edit" if disagreement.placed and not disagreement.shared else "accept"


def can_be_taken(content: AnnotationContent) -> bool:
    """Whether one annotator's version can become gold as it is: a curve and an axis on every
    segment.

    Examples:
        >>> can_be_taken(AnnotationContent((0,), ("main",), xi=40.0, omega=10.0, alpha=0.0))
        True
        >>> can_be_taken(AnnotationContent((0, 3), ("main", None), xi=40.0, omega=10.0, alpha=0.0))
        False
    """
    return content.has_parameters and None not in content.segment_axes


def _segmentation(boundaries, n_tokens: int) -> Segmentation | None:  # type: ignore[no-untyped-def]
    try:
        return Segmentation.from_boundaries(boundaries, n_tokens)
    except SegmentationError:
        return None


def _spread(values: list[float]) -> float | None:
    return max(values) - min(values) if len(values) >= 2 else None
