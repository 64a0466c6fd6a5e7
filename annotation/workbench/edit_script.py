"""The workbench edits that turn one draft into another, as the annotation surface sends them.

The annotator's work reaches the database one way only, as numbered edits replayed by
:func:`annotation.workbench.event_log.replay` (``annotation.services.workbench.workbench_events.apply_events``).
Scripts that hold a finished annotation rather than a person's clicks — the benchmarks, the
tests, a migration from another tool's drafts — send the edits :func:`edits_between` writes, so
they go through the same path, with the same rules, as a person's work.
"""

from __future__ import annotations

from typing import Any

from annotation.content import AnnotationContent


def edits_between(old: AnnotationContent, new: AnnotationContent, *, step: int | None = None,
                  submit: bool = False, first_seq: int = 1) -> list[dict[str, Any]]:
    """Numbered edits (from ``first_seq``) that make ``old`` into ``new``: the segmentation
    and axes, the points (the curve is then fitted from them; hand-tuned parameters are set
    after), a pair's second curve the same way (``"curve": "context"``) and its change label,
    the flags and note, the ``step`` when given, and a submit when ``submit`` (flagged when
    ``new`` carries a flag, as the workbench's "Submit as flagged").

    Examples:
        >>> old = AnnotationContent()
        >>> new = AnnotationContent(boundaries=(0, 3), segment_axes=("main", None),
        ...                         points=((20.0, 0.5),))
        >>> [e["kind"] for e in edits_between(old, new, step=2, submit=True)]
        ['reset_segments', 'boundary', 'axis', 'point', 'step', 'submit']
        >>> edits_between(new, new)
        []
        >>> pair = AnnotationContent(points=((20.0, 0.5),), context_points=((30.0, 0.5),), change="neutral")
        >>> [(e["kind"], e.get("curve")) for e in edits_between(old, pair)]
        [('point', None), ('point', 'context'), ('change', None)]
    """
    edits: list[dict[str, Any]] = []
    if (old.boundaries, old.segment_axes) != (new.boundaries, new.segment_axes):
        edits.append({"kind": "reset_segments"})
        edits += [{"kind": "boundary", "gap": b} for b in new.boundaries[1:]]
        edits += [{"kind": "axis", "segment": i, "axis": axis}
                  for i, axis in enumerate(new.segment_axes) if axis is not None]
    edits += _curve_edits(old, new)
    if (old.context_points, old.context_xi, old.context_omega, old.context_alpha,
            old.context_params_source) != (new.context_points, new.context_xi, new.context_omega,
                                           new.context_alpha, new.context_params_source):
        # a pair's second curve: the same edits on the swapped contents, marked as its own
        edits += [{**e, "curve": "context"}
                  for e in _curve_edits(old.swapped_curves(), new.swapped_curves())]
    if old.change != new.change:
        edits.append({"kind": "change", "change": new.change})
    if (old.flags, old.note) != (new.flags, new.note):
        edits.append({"kind": "flag", "flags": list(new.flags), "note": new.note})
    if step is not None:
        edits.append({"kind": "step", "step": step})
    if submit:
        edits.append({"kind": "submit", "flagged": bool(new.flags)})
    return [{"seq": first_seq + i, **e} for i, e in enumerate(edits)]


def _curve_edits(old: AnnotationContent, new: AnnotationContent) -> list[dict[str, Any]]:
    """The edits that make ``old``'s first curve into ``new``'s."""
    edits: list[dict[str, Any]] = []
    if old.points != new.points:
        edits += [{"kind": "point", "action": "remove", "index": 0} for _ in old.points]
        edits += [{"kind": "point", "action": "add", "x": x, "y": y} for x, y in new.points]
    elif old.params_source == "manual" and new.params_source != "manual":
        edits.append({"kind": "refit"})  # back from hand-tuned values to the points' fit
    manual = new.params_source == "manual" and new.has_parameters
    if manual and (old.params_source, old.xi, old.omega, old.alpha, old.points) != (
            "manual", new.xi, new.omega, new.alpha, new.points):
        edits.append({"kind": "params", "xi": new.xi, "omega": new.omega, "alpha": new.alpha})
    return edits
