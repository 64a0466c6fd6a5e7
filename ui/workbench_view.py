"""What the annotation surface draws, built from what is stored — no Streamlit here.

The workbench screen keeps the stored :class:`~annotation.services.workbench.queue.WorkItem` (as the last
event batch left it) and a few facts about the session (client id, last acknowledged seq,
notices); :func:`build_view` turns them into the JSON ``view`` of the annotation surface
component (CONTRACT.md, "Python API of the component"). Keeping it pure means the page tests
and unit tests can check every field without a browser, and the component never has to know
the domain: the fit summary, the problems and the curve are computed here, on the server, from
the same content that is stored — so what the chart draws after the server answers is exactly
what is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.workbench import editing
from annotation.axes import AXES
from annotation.curves import (
    ALPHA_BOUNDS,
    MAX_POINTS,
    MIN_POINTS,
    OMEGA_BOUNDS,
    XI_BOUNDS,
    CurveFitError,
    curve_residuals,
    describe_curve,
    peak_height,
    residual_message,
)
from annotation.workbench.elicitation import curve_feedback
from annotation.flag_reasons import ANNOTATOR_FLAGS
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.protocols import PROTOCOLS, ProjectProtocol, protocol_of
from annotation.settings import ProjectSettings
from annotation.workbench.event_log import FIT_KINDS, KINDS
from annotation.workbench.protocol import CONTEXT_STEP, NO_CURVE, PAIR_STEPS
from annotation.content import CHANGE, CHANGE_CHOICES, CONFIRM_DERIVED, CONTEXT, CONTEXT_FIELDS, AnnotationContent
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.segmentation import spaces_after, token_texts
from annotation.services.workbench.queue import WorkItem
from annotation.services.workbench.submission import pair_hand_tuned_misses
from annotation.timeaxis import DURATION_UNITS, X_MAX, tick_positions
from ui.display import curve_polyline
from ui.protocols import views_of

#: Levels a notice may have (the component styles them; anything else is a programming error).
NOTICE_LEVELS: tuple[str, ...] = ("error", "warning", "info", "success")
#: The two layouts of the surface: one step at a time, or all three on one screen.
LAYOUTS: tuple[str, ...] = ("steps", "single")
#: The step that shows each part of the surface (the order of protocol.STEPS: a step number is
#: stored as 0 segmentation, 1 axes, 2 curve; a pair's second curve is its ``context_step``).
PART_STEPS: dict[str, int] = {"segments": 0, "axes": 1, "curve": 2}
#: The units "Enter durations instead" offers first: the peak in days, half gone in weeks
#: (``DURATION_UNITS`` names).
DURATION_DEFAULTS: dict[str, str] = {"peak": "days", "half_gone": "weeks"}


@dataclass(frozen=True)
class Notice:
    """A non-blocking message the surface shows (a refused edit, why a submit was not done,
    "Submitted B1-0001"). ``text`` is plain text: the component sets it with textContent."""

    level: str
    text: str

    def __post_init__(self) -> None:
        if self.level not in NOTICE_LEVELS:
            raise ValueError(f"unknown notice level {self.level!r}")

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "text": self.text}


@dataclass(frozen=True)
class SessionFacts:
    """What the screen knows beyond the stored item: the tab's client id and the last seq the
    server applied for it, the layout and confirm setting in force, the quota, the notices to
    show, and the fit message of the last curve edit (None when it fitted)."""

    client: str
    acked: int = 0
    layout: str = "steps"
    confirm_submit: bool = False
    quota_reached: bool = False
    project_name: str = ""
    sample_number: int = 0  # the annotator's own number of the sample (queue.sample_numbers)
    notices: tuple[Notice, ...] = ()
    fit_message: str | None = None
    read_only: bool = False
    #: another tab saved newer work (the surface waits for "Load the newer version")
    conflict: bool = False
    #: the project's settings: its protocol (single texts or context pairs), its change factor
    settings: ProjectSettings = ProjectSettings()

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}")


def _height(content: AnnotationContent) -> float | None:
    """The drawn curve's peak height (None without a stored scale: drawn at peak 1)."""
    if not content.has_parameters or content.scale is None:
        return None
    try:
        return min(peak_height(content.xi, content.omega, content.alpha, content.scale), 1.0)
    except CurveFitError:
        return None


def fit_panel(content: AnnotationContent, fit_message: str | None) -> dict[str, Any]:
    """The chart's side panel: a message (None when there is nothing to say), the curve in
    words, the stored parameters and each point's residual (how far it lies above or below the
    drawn curve).

    The message is the last curve edit's own (the server's fit said why it failed) when there
    is one; otherwise what the stored content itself says: too few points, points that gave no
    curve, or a curve that misses a point (the residual message, also after a reload).
    """
    n = len(content.points)
    message = fit_message
    summary: list[str] = []
    params = residuals = None
    if content.has_parameters:
        height = _height(content)
        try:
            # stored parameters are base-1.1 log minutes: described in that base
            summary.append(describe_curve(content.xi, content.omega, content.alpha,
                                          height=height).capitalize())
            if content.points and content.scale is not None:
                residuals = list(curve_residuals(content.points, content.xi, content.omega,
                                                 content.alpha, content.scale))
        except CurveFitError as exc:
            summary.append(str(exc))
        if message is None and residuals:
            message = residual_message(residuals, hand_tuned=content.params_source == "manual")
        params = {"xi": content.xi, "omega": content.omega, "alpha": content.alpha,
                  "rmse": content.rmse, "source": content.params_source}
    elif message is None:
        # too few points: the editing rules' own wording (no fit is run below MIN_POINTS)
        message = (editing.refit(content)[1] if n < MIN_POINTS
                   else "The points do not define a curve yet.")
    return {"message": message, "summary": summary, "params": params, "residuals": residuals}


def feedback(content: AnnotationContent) -> dict[str, list] | None:
    """The drawn curve read back in durations and percentages ("half of its validity is gone
    by ≈ …", validity left after 1 hour … 1 year); None without a curve."""
    if not content.has_parameters:
        return None
    try:
        return curve_feedback(content.xi, content.omega, content.alpha,
                              height=_height(content) or 1.0).to_view()
    except CurveFitError:
        return None


def drawn_curve(content: AnnotationContent) -> list[list[float]]:
    """The curve the chart draws for the stored parameters — the fitted ``S·f`` itself, exact at
    the points' x positions ([] when there are none)."""
    line = curve_polyline(content.xi, content.omega, content.alpha, content.scale, content.points)
    return [[x, y] for x, y in line] if line else []


def surface_rules(protocol: ProjectProtocol = PROTOCOLS["single"],
                  settings: ProjectSettings | None = None) -> dict[str, Any]:
    """The names and limits the surface edits with, as the domain defines them: the project's
    protocol's steps (the first one an annotator may go to, whether the text is segmented,
    whether a sample is a context pair with a second curve and a change label), the axes and
    flags to choose from, the chart's range and number of points, the fit's bounds on the
    hand-tuned parameters, the units of "Enter durations instead" (and the two it offers
    first) and the note's length, which step shows which part, the kinds that edit a curve and
    a pair's second curve's fields, and the notices' levels. Every view carries them, so the
    browser holds no copy (tests/browser's harness sends the same)."""
    settings = settings or ProjectSettings()
    bounds = dict(zip(PARAMETERS, (XI_BOUNDS, OMEGA_BOUNDS, ALPHA_BOUNDS)))
    pair = protocol.uses(CONTEXT)  # a second curve, and a change label between the two
    return {
        "steps": list(protocol.steps),
        "first_step": protocol.first_step(settings),
        "segmented": protocol.segmented(settings),
        "pair": pair,
        "context_step": CONTEXT_STEP if pair else None,
        # the choices an annotator makes (keys 0…3): confirm the derived label, or one of their own
        "change_options": [c for c in CHANGE_CHOICES if c] if protocol.uses(CHANGE) else [],
        "change_confirm": CONFIRM_DERIVED if protocol.uses(CHANGE) else "",
        "axes": [{"name": a.name, "label": a.label, "color": a.color,
                  "key_question": a.key_question, "digit": str(i)}
                 for i, a in enumerate(AXES, start=1)],
        "flags": [{"code": f.code, "label": f.label, "needs_note": f.needs_note}
                  for f in ANNOTATOR_FLAGS],
        "x_max": X_MAX,
        "max_points": MAX_POINTS,
        "min_points": MIN_POINTS,
        "parameters": [{"name": name, "symbol": PARAMETER_SYMBOLS[name],
                        "min": bounds[name][0], "max": bounds[name][1]} for name in PARAMETERS],
        "time_units": [{"name": name, "minutes": minutes} for name, minutes in DURATION_UNITS],
        "note_max_chars": NOTE_MAX_CHARS,
        "part_steps": dict(PART_STEPS),
        # the kinds that edit a curve (a pair's second one with "curve": "context"), and the
        # second curve's fields beside the first's: the browser's replay swaps them as the server
        "curve_edits": [kind for kind in KINDS if kind in FIT_KINDS],
        "context_fields": [[first, second] for first, second in CONTEXT_FIELDS.items()],
        "duration_defaults": dict(DURATION_DEFAULTS),
        "notice_levels": list(NOTICE_LEVELS),
    }


def build_view(item: WorkItem, facts: SessionFacts) -> dict[str, Any]:
    """The surface's ``view`` for ``item`` as stored (JSON-able; see CONTRACT.md).

    A context pair's view also carries its second curve (``context_curve``, ``context_fit``,
    ``context_feedback``) and ``pair_panel`` (:func:`ui.pair_view.pair_panel`: the follow-up, the
    change labels, the derived reading); the last curve edit's fit message belongs to the curve
    of the step stored. A pair is always shown step by step: the follow-up must stay out of
    sight until the target's own curve is drawn, which one screen of every step cannot do."""
    content, settings = item.content, facts.settings
    protocol = protocol_of(settings)
    pair = protocol.uses(CONTEXT)
    read_only = facts.read_only or item.is_submitted
    on_context = pair and item.step == CONTEXT_STEP
    fit = fit_panel(content, None if on_context else facts.fit_message)
    problems = [] if item.is_submitted else protocol.submission_problems(content, item.n_tokens, settings)
    if facts.fit_message:  # the fit said why the points give no curve: say that, as the panel does
        no_curve = f"{PAIR_STEPS[CONTEXT_STEP]}: the points do not define a curve yet." if on_context else NO_CURVE
        name = PAIR_STEPS[CONTEXT_STEP] if on_context else "Curve"
        problems = [f"{name}: {facts.fit_message}" if p == no_curve else p for p in problems]
    pair_parts: dict[str, Any] = {"pair_panel": None}
    if pair:
        second = content.swapped_curves()
        pair_parts = {
            "pair_panel": views_of(settings).sample_panel(content, item.follow_up, settings),
            "context_curve": drawn_curve(second),
            "context_fit": fit_panel(second, facts.fit_message if on_context else None),
            "context_feedback": feedback(second),
        }
    return {
        "annotation_id": item.annotation_id,
        "client": facts.client,
        "version": item.version,
        "acked": facts.acked,
        "step": max(item.step, protocol.first_step(settings)),
        "layout": "steps" if views_of(settings).layout_caption else facts.layout,
        "confirm_submit": facts.confirm_submit,
        "read_only": read_only,
        # why the surface is read-only: its fixed line and its save status say so
        "read_only_reason": "conflict" if facts.conflict else ("submitted" if read_only else None),
        "quota_reached": facts.quota_reached,
        "tokens": token_texts(item.parent_text),
        "spaces": spaces_after(item.parent_text),
        "content": content.to_json(),
        **surface_rules(protocol, settings),
        "curve": drawn_curve(content),
        "ticks": [[x, label] for x, label in tick_positions()],
        "fit": fit,
        # a hand-tuned curve that misses the points: Enter asks to confirm before it submits
        "hand_tuned_misses": None if read_only else pair_hand_tuned_misses(content),
        "feedback": feedback(content),
        # a submitted annotation has nothing left to do; a draft says what stops a submit
        "problems": problems,
        "notices": [n.to_json() for n in facts.notices],
        # the annotator's own sample number, never the external id (a gold check's would tell
        # it apart: annotation.services.workbench.queue.sample_numbers); the surface only shows it
        "sample": {"number": facts.sample_number, "benchmark": item.benchmark,
                   "project": facts.project_name, "guidelines_version": item.guidelines_version,
                   "returned_note": item.returned_note, "is_warmup": item.is_warmup},
        **pair_parts,
    }
