"""The workbench's edits as pure functions: content in, content out.

The annotator's edits arrive as the annotation surface's event log; the server replays it
(:mod:`annotation.workbench.event_log`, through :func:`annotation.services.workbench.workbench_events.apply_events`)
by calling these, and so do the lead's editors (Review, the gold editor) for their boxes and
chart. Every rule of an edit (carry axes over a changed segmentation, refit on every point
change, keep hand-tuned parameters apart from fitted ones) lives here and is unit-tested
without Streamlit.

The curve edits return ``(content, message)``. A message with the content returned unchanged is a
refusal (the edit was not made: impossible parameters, unusable durations); a message with new
content is information about the curve now stored — too few points, points that cannot define a
curve (parameters cleared), or a curve that cannot pass through the points (each point's residual
named, see :func:`annotation.curves.residual_message`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from annotation.workbench.curve_points import apply_point_event
from annotation.curves import (
    MAX_POINTS,
    MIN_POINTS,
    CurveFitError,
    curve_residuals,
    fit_curve,
    fit_scale_for,
    residual_message,
)
from annotation.workbench.elicitation import points_from_durations
from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.workbench.protocol import STEPS
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation, SegmentationError, remap_segment_axes
from annotation.timeaxis import X_MAX


def toggle_boundary(content: AnnotationContent, n_tokens: int, gap: int) -> AnnotationContent:
    """Add or remove the boundary before token ``gap``; axes follow their tokens."""
    old = Segmentation.from_boundaries(content.boundaries, n_tokens)
    try:
        new = old.toggle(gap)
    except SegmentationError:
        return content
    axes = remap_segment_axes(old, content.segment_axes, new)
    return replace(content, boundaries=new.boundaries, segment_axes=tuple(axes))


def reset_segmentation(content: AnnotationContent) -> AnnotationContent:
    """Back to one segment without an axis."""
    return replace(content, boundaries=(0,), segment_axes=(None,))


def set_segment_axis(content: AnnotationContent, index: int, axis: str | None) -> AnnotationContent:
    """Label segment ``index`` with ``axis`` (None clears it)."""
    if not 0 <= index < len(content.segment_axes):
        return content
    axes = list(content.segment_axes)
    axes[index] = axis or None
    return replace(content, segment_axes=tuple(axes))


def refit(content: AnnotationContent) -> tuple[AnnotationContent, str | None]:
    """Fit the skew-normal to the points; returns the new content and a message when the points
    cannot define a curve (then the parameters are cleared, never left stale) or when the fitted
    curve — the closest one at or below 100 % — misses a point by more than
    :data:`annotation.curves.PASS_TOLERANCE` (then it is stored, and the message names each
    point's residual)."""
    cleared = replace(content, xi=None, omega=None, alpha=None, scale=None, rmse=None,
                      params_source="fit")
    n = len(content.points)
    if n < MIN_POINTS:
        return cleared, f"Place {MIN_POINTS - n} more point{'s' if MIN_POINTS - n > 1 else ''} to see the curve."
    try:
        fit = fit_curve(content.points)
    except CurveFitError as exc:
        return cleared, str(exc)
    return replace(cleared, xi=fit.xi, omega=fit.omega, alpha=fit.alpha, scale=fit.scale,
                   rmse=fit.rmse), fit.message


def edited_points(points: tuple[tuple[float, float], ...],
                  event: Mapping[str, Any]) -> tuple[tuple[float, float], ...]:
    """The points after one chart event (add / move / remove a point), on the chart's range.

    Examples:
        >>> edited_points(((20.0, 0.5),), {"action": "move", "index": 0, "x": 30.123, "y": 2})
        ((30.12, 1.0),)
    """
    return tuple(apply_point_event(points, event, x_max=X_MAX, max_points=MAX_POINTS))


def edit_points(content: AnnotationContent, event: Mapping[str, Any]) -> tuple[AnnotationContent, str | None]:
    """Apply one chart event (add / move / remove a point) and refit."""
    return refit(replace(content, points=edited_points(content.points, event)))


def set_parameters(content: AnnotationContent, xi: float, omega: float,
                   alpha: float) -> tuple[AnnotationContent, str | None]:
    """Fine-tune ξ, ω, α by hand: the scale (peak at most 100 %) and RMSE are recomputed against
    the points. Refused (content unchanged, message) when the parameters give no curve near the
    points; stored with a message naming each point's residual when the tuned curve misses a
    point by more than :data:`annotation.curves.PASS_TOLERANCE`."""
    try:
        scale, rmse = fit_scale_for(content.points, xi, omega, alpha)
        residuals = curve_residuals(content.points, xi, omega, alpha, scale)
    except CurveFitError as exc:
        return content, str(exc)
    return replace(content, xi=float(xi), omega=float(omega), alpha=float(alpha), scale=scale,
                   rmse=rmse, params_source="manual"), residual_message(residuals, hand_tuned=True)


def place_from_durations(content: AnnotationContent, peak_minutes: float,
                         half_gone_minutes: float) -> tuple[AnnotationContent, str | None]:
    """Entry by durations: replace the points with those placed by
    :func:`annotation.workbench.elicitation.points_from_durations` ("peak ≈ 2 days, half gone by
    ≈ 2 weeks") and refit. Refused (content unchanged, message) for durations that cannot place
    a single-peaked curve on the chart."""
    try:
        points = points_from_durations(peak_minutes, half_gone_minutes)
    except ValueError as exc:
        return content, str(exc)
    return refit(replace(content, points=points))


def set_flags(content: AnnotationContent, flags: list[str], note: str) -> AnnotationContent:
    """Set the annotator's flags (known codes only, in the canonical order) and note."""
    chosen = tuple(code for code in ANNOTATOR_FLAG_CODES if code in flags)
    return replace(content, flags=chosen, note=note.strip())


def set_step(step: int, steps: range = range(len(STEPS))) -> int:
    """The workbench step to store (0 segmentation, 1 axes, 2 curve; 3 a pair's curve given its
    follow-up), one of ``steps`` (the project's protocol says which an annotator may go to).

    The step is part of the draft, not of its content, so a reload reopens the step the
    annotator was on; a number outside the steps is refused (ValueError) rather than clamped,
    so a client bug shows up instead of silently landing on another step.

    >>> set_step(3, range(2, 4))
    3
    >>> set_step(1, range(2, 4))
    Traceback (most recent call last):
    ValueError: there is no step 1; the steps are numbered 2 to 3
    """
    if isinstance(step, bool) or not isinstance(step, int) or step not in steps:
        raise ValueError(f"there is no step {step!r}; the steps are numbered {steps.start} to {steps.stop - 1}")
    return step
