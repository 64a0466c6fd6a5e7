"""The annotation surface: the whole in-progress annotation of one sample, in the browser
(Streamlit custom component v2; its code is ``annotation_surface.js`` / ``.css`` beside this file,
after the shared ``instance_cleanup.js``, ``delivery.js``, ``dom_helpers.js``, ``curve_points.js``,
``point_drag.js``, ``chart_grid.js`` and ``text_gaps.js``, its own pure ``edit_queue.js``, ``surface_state.js``,
``segment_tints.js`` and ``text_paragraphs.js``, and its parts ``surface_config.js``,
``surface_text.js``, ``surface_axes.js``, ``surface_chart.js``, ``surface_pair.js``,
``surface_submit.js`` and ``surface_footer.js`` (``ui.components.sources.SURFACE_PARTS_JS``); no
build step, no libraries).

Why one component
-----------------
When every click was a Streamlit rerun, clicks and keys that arrived while a rerun was in flight
raced with it and were lost. The surface therefore owns the annotation while it is
being made: segmentation, axes, points, hand-tuned parameters, step and flag are edited locally
and drawn at once, and every edit is sent to the server as one ordered, idempotent **event log**.
The server (``annotation.services.workbench.workbench_events.apply_events``) replays the log through
``annotation.workbench.editing`` and answers with a new ``view``; what the surface draws after an answer is
exactly what is stored.

Protocol
--------
Each edit is an event ``{"seq": n, "kind": ..., ...}``, ``seq`` counting from 1 per ``client``
(kinds and fields: see CONTRACT.md — ``boundary``, ``reset_segments``, ``axis``, ``point``,
``params``, ``refit``, ``place``, ``step``, ``flag``, ``change``, ``submit``; a pair's second
curve is edited by the curve kinds with ``"curve": "context"``). The surface delivers them as
every component does (``delivery.js``, :mod:`ui.components.events`): it sends the *whole*
not-yet-acknowledged queue as one payload ``{"client", "base_version", "events"}`` after every
edit and again after a second without an acknowledgement, the wait doubling up to 8 s, because
Streamlit 1.67 keeps only the last trigger value of a burst. On each new ``view`` it drops
the events with ``seq <= view["acked"]`` and re-applies the rest on top of ``view["content"]``. A
new ``annotation_id`` or ``client`` resets it (a new sample). Consecutive moves of one point
(a held arrow key, drag after drag) fold into the last: when the queue's last event is a move of
the same point, the new move replaces it and carries ``"first"``, the first number of the run
(``edit_queue.js``; the server applies it as ``first`` … ``seq``), so the queue stays short.

View
----
``view`` is a JSON-able dict built by the screen::

    annotation_id: int, client: str, version: int, acked: int, step: 0|1|2 (a pair's 3),
    layout: "steps"|"single", confirm_submit: bool, read_only: bool, quota_reached: bool,
    tokens: [str], spaces: [bool], content: AnnotationContent.to_json(),
    curve: [[x, y], ...]  (the stored curve as drawn; [] when none), ticks: [[x, label]],
    # the names and limits the surface edits with (ui.workbench_view.surface_rules; the
    # browser keeps no copy of them):
    steps: [str],                                        # the steps' names, step 0 first
    axes: [{name, label, color, key_question, digit}],   # the 8 axes in order, digit "1".."8"
    flags: [{code, label, needs_note}],                  # the annotator's flags, canonical order
    x_max: float, max_points: int, min_points: int,
    parameters: [{name, symbol, min, max}],   # ξ, ω, α with the fit's bounds (hand-tuning)
    time_units: [{name, minutes}],            # the units of "Enter durations instead"
    note_max_chars: int,                      # the flag note's longest length
    first_step: int, segmented: bool, pair: bool, context_step: int|None,
    change_options: [str],                    # the project's protocol (CONTRACT.md)
    fit: {message: str|None, summary: [str], params: {xi, omega, alpha, rmse, source}|None,
          residuals: [float]|None},
    feedback: {lines: [str], left_after: [[label, "NN %"]]} | None,
    problems: [str],       # why the stored content cannot be submitted ([] when it can)
    notices: [{level: "error"|"warning"|"info"|"success", text: str}],
    sample: {number, benchmark, project, guidelines_version, returned_note, is_warmup},
    pair_panel: {follow_up, labels, threshold, change, reading} | None,   # a context pair's
    context_curve, context_fit, context_feedback   # a pair's second curve (as curve, fit, feedback)

All user text is set with ``textContent`` in the browser, never parsed as HTML or Markdown.

DOM for tests (Playwright CSS selectors pierce the shadow root): see CONTRACT.md —
``[data-testid="surface"]`` with ``data-annotation-id``, ``data-client``, ``data-step``,
``data-layout``, ``data-acked``, ``data-pending``, ``data-version``; ``[data-token]``,
``[data-gap]``, ``[data-segment]`` rows with ``[data-axis-option]`` buttons,
``[data-testid="curve-plot"]``, ``circle[data-point]``, ``[data-command=back|next|submit|flag]``,
``[data-testid="surface-message"]``; also ``data-read-only`` on the root,
``[data-testid="surface-confirm"]`` (the submit confirmation, ``[data-command="confirm"]`` /
``[data-command="cancel"]``), ``[data-testid="surface-flag-panel"]``
(``input[name="flag-reason"]``, ``textarea``, ``[data-command="flag-submit"]``),
``[data-testid="surface-missing"]`` (what a submit still needs), ``[data-testid="surface-saved"]``
("Saving…" / "Saved"), ``[data-testid="curve-fit"]`` (the stored curve, ``data-stale="true"``
while a curve edit is unacknowledged), ``[data-testid="fit-params"]``, ``[data-command="tune"]``
with ``input[name="param-xi|param-omega|param-alpha"]``, ``[data-command="params"]`` /
``[data-command="refit"]``, and ``[data-command="durations"]`` with ``input[name="peak-n"]``,
``select[name="peak-unit"]``, ``input[name="half-n"]``, ``select[name="half-unit"]``,
``[data-command="place"]``.

Keys (listened to on the document in the capture phase, so no control captures them and a
Streamlit shortcut on the same keys does not fire as well): 1–8 axis of the focused segment,
Tab/Shift+Tab and ↑/↓ between segments, Alt+→/Alt+← step, Enter (outside text fields and
buttons) or Alt+Enter submit, Enter/Escape in the confirmation, Escape closes the flag panel;
on a pair's last step 0–3 choose the change (0: as derived, then decreased, neutral, increased).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

# the queue arrives on the "events" trigger, read as the chart and text components read theirs,
# in the shape and within the limits every component's batch is checked against
from ui.components.events import DELIVERY_JS, checked_batch, trigger_payload, whole_number
from ui.components.sources import (CHART_POINTS_JS, EDIT_QUEUE_JS, SEGMENT_TINTS_JS,
                                   SURFACE_PARTS_JS, SURFACE_STATE_JS, TEXT_GAPS_JS,
                                   TEXT_PARAGRAPHS_JS, component_source)

_JS = "\n".join((DELIVERY_JS, CHART_POINTS_JS, TEXT_GAPS_JS, EDIT_QUEUE_JS, SURFACE_STATE_JS,
                 SEGMENT_TINTS_JS, TEXT_PARAGRAPHS_JS, SURFACE_PARTS_JS,
                 component_source("annotation_surface.js")))
_CSS = component_source("annotation_surface.css")

_COMPONENT = st.components.v2.component(
    "chronocept_annotation_surface", css=_CSS, js=_JS, isolate_styles=True
)


def checked_payload(payload: Any) -> dict[str, Any] | None:
    """The component's payload in the shape the screen relies on, or None when malformed.

    Kept: ``{"client": str, "base_version": int, "events": [dict, ...]}``, checked by the shape
    check every component's batch goes through (``ui.components.events.checked_batch``: entries
    of ``events`` that are not objects are dropped, at most ``MAX_EVENTS`` are kept, the oldest:
    the server applies them in order and the component re-sends the rest); ``base_version`` must
    be a whole number. Event *contents* are checked by the server
    (``annotation.workbench.event_log.parse_events``), which reports a bad event to the annotator
    instead of dropping it silently.
    """
    return checked_batch(payload, {"base_version": whole_number})


def annotation_surface(view: dict, *, key: str, on_events: Callable[[dict], None]) -> None:
    """Draw the annotation surface for ``view`` (see the module docstring) and deliver its
    event queue to ``on_events``.

    ``on_events(batch)`` runs as the CCv2 trigger callback, i.e. *before* the script body, so
    the run that follows already builds its ``view`` from the stored result. ``batch`` is
    ``{"client": str, "base_version": int, "events": [dict, ...]}`` (see
    :func:`checked_payload`); malformed payloads never reach it. The same events arrive again
    until a view acknowledges them (``view["acked"]``): the receiver must skip ``seq`` values
    it has already applied. Use one stable ``key`` per annotation, e.g.
    ``f"wb.surface.{annotation_id}"``.

    Mind that in Streamlit 1.67 *every* ``st.session_state`` read or write inside the callback
    may raise Streamlit's rerun exception when a newer payload is already waiting (the
    session state checks for a pending rerun request on each access): read what the callback
    needs from session state first, then apply and store the batch in one transaction, and do
    not rely on session-state writes after it — the next run builds its view from the store.
    """

    def _callback() -> None:
        batch = checked_payload(trigger_payload(key))
        if batch is not None:
            on_events(batch)

    _COMPONENT(key=key, data=view, on_events_change=_callback)
