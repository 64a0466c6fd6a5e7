"""The annotation protocol for one sample: what an annotation holds and when it is complete.

An :class:`AnnotationContent` is what the annotator builds in the workbench (segmentation, an
axis per segment, curve points, fitted or fine-tuned parameters, flags). Drafts may be
incomplete; :func:`submission_problems` says what is missing before a submit, and a flagged
annotation may be submitted unfinished (the protocol lets the annotator flag instead of finishing).
"""

from __future__ import annotations

from annotation.content import AnnotationContent, ContentError
from annotation.curves import MAX_POINTS, MIN_POINTS
from annotation.flag_reasons import flag_needs_note
from annotation.segmentation import SegmentationError
from annotation.wording import numbered

#: Where a step number is stored: 0 segmentation, 1 axes, 2 curve.
STEPS: tuple[str, ...] = ("Segmentation", "Axis labels", "Validity curve")
#: A context pair's steps: the target's steps, then its curve given the follow-up (step 3).
PAIR_STEPS: tuple[str, ...] = (*STEPS, "Given the follow-up")
#: The step of a pair's second curve: the follow-up is shown from here on, never before.
CONTEXT_STEP = 3
#: what stops a submit when the points give no curve and nothing says why (the workbench puts
#: the fit's own reason in its place when it has one)
NO_CURVE = "Curve: the points do not define a curve yet."


def submission_problems(content: AnnotationContent, n_tokens: int, *,
                        points_required: bool = True, segmented: bool = True,
                        pair: bool = False) -> list[str]:
    """What stops ``content`` from being submitted for a text of ``n_tokens`` tokens.

    An empty list means it may be submitted. A flagged annotation needs only a note when its
    reason asks for one; an unflagged one needs a valid segmentation, an axis on every segment,
    3–5 curve points and fitted parameters. With ``points_required=False`` (imported
    annotations) parameters without points are enough. A context pair (``pair``) needs its
    second curve too, the target's curve given the follow-up; a pair project that does not
    segment its targets (``segmented=False``) asks for neither segmentation nor axes.

    >>> done = AnnotationContent(points=((10, 1), (20, 0.5), (30, 0.1)), xi=10.0, omega=9.0, alpha=1.0)
    >>> submission_problems(done, 3, segmented=False)
    []
    >>> submission_problems(done, 3, segmented=False, pair=True)  # no second curve, no change chosen
    ['Given the follow-up: place 3 to 5 points (now 0).', 'Given the follow-up: confirm the change the curves give, or choose another.']
    >>> submission_problems(done.with_context_copied(), 3, segmented=False, pair=True)
    ['Given the follow-up: confirm the change the curves give, or choose another.']
    >>> from dataclasses import replace
    >>> submission_problems(replace(done.with_context_copied(), change="derived"), 3, segmented=False, pair=True)
    []
    """
    problems: list[str] = []
    try:
        content.check_shape()
    except ContentError as exc:
        return [str(exc)]
    if content.flags:
        if any(flag_needs_note(f) for f in content.flags) and not content.note.strip():
            problems.append("Explain the flag 'Other' in the note.")
        return problems
    if segmented:
        try:
            content.segmentation(n_tokens)
        except SegmentationError as exc:
            problems.append(f"Segmentation: {exc}.")
        missing = [i + 1 for i, a in enumerate(content.segment_axes) if a is None]
        if missing:
            verb = "needs" if len(missing) == 1 else "need"
            problems.append(f"Axis labels: {numbered('segment', missing)} still {verb} an axis.")
    problems += _curve_problems("Curve", content, points_required)
    if pair:
        problems += _curve_problems(PAIR_STEPS[3], content.swapped_curves(), points_required)
        if points_required and not content.change:
            # an imported annotation (no points required) states its change or accepts the
            # derived one by leaving it out; an annotator confirms or chooses it
            problems.append(f"{PAIR_STEPS[3]}: confirm the change the curves give, or choose another.")
    return problems


def _curve_problems(name: str, content: AnnotationContent, points_required: bool) -> list[str]:
    if not points_required and not content.points:
        if not content.has_parameters:
            return [f"{name}: give the points or the parameters ξ, ω, α."]
    elif not MIN_POINTS <= len(content.points) <= MAX_POINTS:
        return [f"{name}: place {MIN_POINTS} to {MAX_POINTS} points (now {len(content.points)})."]
    elif not content.has_parameters:
        return [NO_CURVE if name == "Curve" else f"{name}: the points do not define a curve yet."]
    return []


