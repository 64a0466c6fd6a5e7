"""The gold obeys the guidelines (SPEC section 14): two rules every stored gold keeps.

* **One axis per segment.** The automatic resolution keeps the union of the annotators'
  boundaries, and on a segment of that union the annotators may have chosen different axes
  (:func:`axis_conflicts`). Such a sample is not settled automatically: it goes to a lead with the
  ``axes_differ`` flag (:func:`axes_differ_hits`), whose proposal shows both axes on that segment
  for the lead to choose from; no decision stores a segment with several axes
  (:func:`several_axes_problem`).
* **A lead's change label that contradicts the gold curves is an override.** A context pair's
  gold holds two curves and a change label; the label the two curves give
  (:func:`annotation.pairs.change.read_change`) is the derived one. A lead's decision whose gold
  label is another (:func:`change_override`) must say why in its note
  (:func:`override_problem`); the gold keeps the curves' label beside its own, and the export
  flags and counts such gold.

Everything here is pure: versions, resolutions and curves in, hits and messages out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from annotation.axes import AXIS_NAMES, axis_by_name
from annotation.pairs.change import read_change
from annotation.flag_reasons import AXES_DIFFER
from annotation.review.flags import FlagHit
from annotation.review.resolution import AnnotatorVersion, Resolution

Curve = tuple[float, float, float]


@dataclass(frozen=True)
class AxisConflict:
    """A segment of the union of boundaries, tokens ``start`` to ``end`` (exclusive), on which
    the annotators chose different axes: ``axes`` pairs each axis (in AXES order) with the
    annotators who chose it, in input order."""

    start: int
    end: int
    axes: tuple[tuple[str, tuple[int | str, ...]], ...]


def axis_conflicts(versions: Sequence[AnnotatorVersion]) -> tuple[AxisConflict, ...]:
    """The segments of the union of the versions' boundaries (what
    :func:`annotation.review.resolution.resolve_pair` merges) on which two annotators chose
    different axes, in text order. A segment someone left unlabelled conflicts only when the
    others differ among themselves.

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion("ann", Segmentation((0, 5), 10), ("main", "static"))
        >>> b = AnnotatorVersion("bob", Segmentation((0, 3), 10), ("main", "generic"))
        >>> axis_conflicts([a, b])                  # tokens 3-4: ann said main, bob generic
        (AxisConflict(start=3, end=5, axes=(('main', ('ann',)), ('generic', ('bob',)))), AxisConflict(start=5, end=10, axes=(('static', ('ann',)), ('generic', ('bob',)))))
        >>> axis_conflicts([a, a])
        ()
    """
    if not versions:
        return ()
    n_tokens = versions[0].segmentation.n_tokens
    starts = sorted({b for v in versions for b in v.segmentation.boundaries})
    conflicts = []
    for start, end in zip(starts, [*starts[1:], n_tokens]):
        chosen: dict[str, list[int | str]] = {}
        for v in versions:
            axis = v.segment_axes[v.segmentation.segment_of(start)]
            if axis is not None:
                chosen.setdefault(axis, []).append(v.annotator)
        if len(chosen) > 1:
            conflicts.append(AxisConflict(start, end, tuple(
                (axis, tuple(chosen[axis])) for axis in AXIS_NAMES if axis in chosen)))
    return tuple(conflicts)


def axes_differ_hits(versions: Sequence[AnnotatorVersion],
                     who: Mapping[int | str, tuple[int, str]] | None = None) -> tuple[FlagHit, ...]:
    """The ``axes_differ`` flag of a complete sample as a tuple of its hits: one, or none when
    every segment of the union has one axis. ``who`` maps each version's annotator to its position among the sample's
    annotations and its name (the version's order and ``annotation i`` when None).

    Examples:
        >>> from annotation.segmentation import Segmentation
        >>> a = AnnotatorVersion(7, Segmentation((0, 4), 8), ("main", "generic"))
        >>> b = AnnotatorVersion(9, Segmentation((0, 4), 8), ("main", "static"))
        >>> hit, = axes_differ_hits([a, b], {7: (0, "alice"), 9: (1, "bob")})
        >>> hit.code, hit.detail, hit.annotators
        ('axes_differ', 'tokens 5–8 would carry two axes: Static (bob) and Generic (alice)', (0, 1))
        >>> axes_differ_hits([a, a])
        ()
    """
    conflicts = axis_conflicts(versions)
    if not conflicts:
        return ()
    who = who or {v.annotator: (i, f"annotation {i + 1}") for i, v in enumerate(versions)}
    involved = sorted({who[a][0] for c in conflicts for _, names in c.axes for a in names if a in who})
    parts = []
    for c in conflicts:
        chosen = [f"{axis_by_name(axis).label} ({', '.join(who[a][1] if a in who else str(a) for a in names)})"
                  for axis, names in c.axes]
        count = "two" if len(chosen) == 2 else str(len(chosen))
        listed = " and ".join(chosen) if len(chosen) == 2 else ", ".join(chosen)
        parts.append(f"tokens {c.start + 1}–{c.end} would carry {count} axes: {listed}")
    return (FlagHit(AXES_DIFFER, "; ".join(parts), float(len(conflicts)), 0.0, tuple(involved)),)


def several_axes_problem(resolution: Resolution) -> str | None:
    """Why ``resolution`` cannot be stored as gold because a segment carries several axes (a
    one-line message for the lead), or None when every segment has at most one.

    Examples:
        >>> r = Resolution((0, 3), (("main",), ("main", "generic")), 40.0, 10.0, 0.0, (), 6)
        >>> several_axes_problem(r)
        'Not stored: tokens 4–6 carry two axes (Main, Generic); the gold keeps one axis per segment — choose one (Edit) or take one version.'
        >>> several_axes_problem(Resolution((0,), (("main",),), 40.0, 10.0, 0.0, (), 6)) is None
        True
    """
    spans = resolution.segmentation.spans
    several = [(span, axes) for span, axes in zip(spans, resolution.segment_axes) if len(axes) > 1]
    if not several:
        return None
    (start, end), axes = several[0]
    more = f" (and {len(several) - 1} more segment{'s' if len(several) > 2 else ''})" if len(several) > 1 else ""
    count = "two" if len(axes) == 2 else str(len(axes))
    labels = ", ".join(axis_by_name(a).label for a in axes)
    return (f"Not stored: tokens {start + 1}–{end} carry {count} axes ({labels}){more}; the gold keeps "
            "one axis per segment — choose one (Edit) or take one version.")


def change_override(alone: Curve | None, given: Curve | None, change: str, factor: float) -> str | None:
    """The label the gold curves give when the gold's ``change`` label is another one (an
    override), else None — also when a curve or the label is missing.

    Examples:
        >>> alone, later = (45.0, 10.0, 0.0), (56.53, 10.0, 0.0)     # ≈ ×3 longer: increased
        >>> change_override(alone, later, "decreased", 1.5)
        'increased'
        >>> change_override(alone, later, "increased", 1.5) is None
        True
        >>> change_override(alone, None, "decreased", 1.5) is None
        True
    """
    if alone is None or given is None or not change:
        return None
    derived = read_change(alone, given, factor).label
    return derived if derived != change else None


def override_words(change: str, derived: str) -> str:
    """An override as the lead and the export read it.

    Examples:
        >>> override_words("increased", "decreased")
        'increased is an override: the gold curves give decreased'
    """
    return f"{change} is an override: the gold curves give {derived}"


def override_problem(change: str, derived: str | None, note: str) -> str | None:
    """Why a lead's decision cannot store ``change`` (a one-line message), or None: a label
    other than the curves' (``derived``; None: no override) needs the reason in the note.

    Examples:
        >>> override_problem("increased", "decreased", "")
        'Not stored: increased is an override: the gold curves give decreased. Say why in the note.'
        >>> override_problem("increased", "decreased", "the follow-up is sarcastic") is None
        True
        >>> override_problem("neutral", None, "") is None
        True
    """
    if derived is None or note.strip():
        return None
    return f"Not stored: {override_words(change, derived)}. Say why in the note."


__all__ = ["AxisConflict", "axes_differ_hits", "axis_conflicts", "change_override", "override_problem",
           "override_words", "several_axes_problem"]
