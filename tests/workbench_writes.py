"""The annotator's writes for tests, through the one write path the workbench uses: a content
becomes the surface's numbered edits (:func:`annotation.workbench.edit_script.edits_between`) applied by
:func:`annotation.services.workbench.workbench_events.apply_events` — so what the tests check is what
annotators run.

``save_draft`` and ``submit`` keep the shape of the service calls they replace: from the
version the caller holds (a stale one is refused with ``StaleVersion``), and a submit that
cannot be done raises its error (the edits before it are stored, as in the workbench).
"""

from __future__ import annotations

import uuid

from annotation.workbench.edit_script import edits_between
from annotation.content import AnnotationContent
from annotation.services.workbench import queue, workbench_events
from annotation.services.workbench.queue import WorkItem


def apply(db, actor, annotation_id: int, expected_version: int, content: AnnotationContent, *,
          step: int | None = None, submit: bool = False, seconds_delta: float = 0.0,
          client: str | None = None, hand_out_next: bool = False,
          accept_misses: bool = True) -> workbench_events.EventOutcome:
    """Send the edits from the stored draft to ``content`` as a new client (a fresh tab) that
    started from ``expected_version``. Unlike the workbench, a submit here hands out no next
    sample unless ``hand_out_next``: tests ask for work when they mean to. A submit of a
    hand-tuned curve that misses the points is confirmed (``accept_misses``), as the annotator
    does in the surface's dialog: the content is stored as given."""
    stored = queue.open_item(db, actor, annotation_id)
    edits = edits_between(stored.content, content, step=step, submit=submit)
    if submit and accept_misses and edits and edits[-1]["kind"] == "submit":
        edits[-1] = {**edits[-1], "accept_misses": True}
    return workbench_events.apply_events(db, actor, annotation_id, client or uuid.uuid4().hex[:16],
                                         expected_version, edits, seconds_delta=seconds_delta,
                                         hand_out_next=hand_out_next)


def save_draft(db, actor, annotation_id: int, expected_version: int, content: AnnotationContent,
               *, step: int = 0, seconds_delta: float = 0.0) -> WorkItem:
    """Store ``content`` as the draft (at ``step``); returns the stored item."""
    return apply(db, actor, annotation_id, expected_version, content, step=step,
                 seconds_delta=seconds_delta).item


def submit(db, actor, annotation_id: int, expected_version: int, content: AnnotationContent, *,
           seconds_delta: float = 0.0) -> WorkItem:
    """Submit ``content``; raises the submit's error (QuotaReached, InvalidInput …) when it
    cannot be done."""
    out = apply(db, actor, annotation_id, expected_version, content, submit=True,
                seconds_delta=seconds_delta)
    if not out.submitted:
        raise out.submit_error
    return out.item
