"""The workbench's event log on the server (workbench_events.apply_events), on SQLite and PostgreSQL:
batches stored once, re-sends and restarts, gaps, take-over between clients, submit in the
stream, refusals, concurrency and the statements one batch sends."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import update

from annotation.workbench.event_log import ALREADY_SUBMITTED
from annotation.content import AnnotationContent
from annotation.services.projects import projects
from annotation.services.workbench import queue, workbench_events
from annotation.services.errors import (
    AlreadySubmitted,
    InvalidInput,
    NotFound,
    QuotaReached,
    StaleVersion,
)
from db.engine import Database
from db.models import Annotation, AuditEvent, Sample
from service_helpers import GOOD_POINTS, complete_content, count, statements_of
import workbench_writes

#: Upper bound on the statements of a batch of plain edits: the user row (role check), the
#: annotation with its sample and project (locked), one UPDATE … RETURNING.
EDIT_BATCH_STATEMENTS = 3
#: A batch ending in a submit: 3 reads before the write (the draft with its sample, project and
#: user; today's quota, the pause and the running sums; the sample's state for settling), the
#: write (SUBMIT_WRITE_FIRST in test_write_locks.py: the edits ride in the submit's UPDATE), plus
#: next_item handing out a new sample afterwards: 7 reads (user, project, warm-up route, pause,
#: open draft, today's submissions against the quota, candidates) and a write of 6 (the user, locked on PostgreSQL; the open draft again,
#: as another tab may have just made one; the claim; INSERT annotation, assignment, audit).
SUBMIT_BATCH_STATEMENTS = 8
NEXT_ITEM_STATEMENTS = 13  # + today's submissions against the quota (nothing past it)

CLIENT = "a1b2c3d4e5f60718"


def _row(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)


def _snapshot(db, annotation_id: int) -> dict:
    a = _row(db, annotation_id)
    return {c.name: getattr(a, c.name) for c in Annotation.__table__.columns}


def _edits(start: int = 1) -> list[dict]:
    """Split the text before token 4, label both segments, place the five good points."""
    events = [{"kind": "boundary", "gap": 4},
              {"kind": "axis", "segment": 0, "axis": "main"},
              {"kind": "axis", "segment": 1, "axis": "opinion"},
              *({"kind": "point", "action": "add", "x": x, "y": y} for x, y in GOOD_POINTS),
              {"kind": "step", "step": 2}]
    return [{"seq": start + i, **e} for i, e in enumerate(events)]


def _draft(db, make_user, make_project, n: int = 3, **settings):
    pid = make_project(n, **settings)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    return pid, ann, item


def _apply(db, ann, item, events, client=CLIENT, base_version=None, **kw):
    return workbench_events.apply_events(db, ann, item.annotation_id, client,
                                         item.version if base_version is None else base_version, events, **kw)


# --- a batch, re-sends, restarts, gaps ----------------------------------------------------------


def test_a_batch_is_applied_and_stored_with_the_client_and_last_seq(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    out = _apply(db, ann, item, _edits(), seconds_delta=12.5)
    assert out.last_seq == 9 and out.refused == () and out.waiting_for is None
    assert not out.submitted and out.submit_problems == () and out.next_item is None
    assert out.fit_message is None  # five points fit
    c = out.item.content
    assert c.boundaries == (0, 4) and c.segment_axes == ("main", "opinion")
    assert c.points == GOOD_POINTS and c.has_parameters and c.params_source == "fit"
    assert (out.item.version, out.item.step, out.item.status) == (item.version + 1, 2, "draft")
    row = _row(db, item.annotation_id)
    assert (row.event_client, row.event_seq, row.version, row.step) == (CLIENT, 9, item.version + 1, 2)
    assert row.boundaries == [0, 4] and row.segment_axes == ["main", "opinion"]
    assert row.seconds_spent == pytest.approx(12.5)
    assert queue.open_item(db, ann, item.annotation_id) == out.item


def test_resending_the_same_batch_is_a_no_op(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    first = _apply(db, ann, item, _edits())
    before = _snapshot(db, item.annotation_id)
    again = _apply(db, ann, item, _edits(), seconds_delta=30)
    assert _snapshot(db, item.annotation_id) == before  # version, updated_at, seconds: untouched
    assert again.item == first.item and again.last_seq == 9 and again.refused == ()


def test_resent_prefix_with_new_events_applies_only_the_new_ones(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    _apply(db, ann, item, _edits()[:3])  # boundary, axis, axis
    out = _apply(db, ann, item, _edits()[:4])  # the same three again, then the first point
    # the boundary (a toggle) was not applied twice
    assert out.item.content.boundaries == (0, 4) and out.item.content.points == GOOD_POINTS[:1]
    assert out.last_seq == 4 and out.item.version == item.version + 2


def test_a_resend_after_a_server_restart_is_applied_once(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    _apply(db, ann, item, _edits()[:5])
    url = db.engine.url.render_as_string(hide_password=False)
    restarted = Database.connect(url, upgrade=False)  # a new process: nothing kept in memory
    try:
        out = workbench_events.apply_events(restarted, ann, item.annotation_id, CLIENT, item.version, _edits())
    finally:
        restarted.dispose()
    assert out.item.content.boundaries == (0, 4)
    assert out.item.content.points == GOOD_POINTS
    assert out.last_seq == 9 and out.item.version == item.version + 2


def test_a_gap_waits_for_the_missing_event_and_the_resend_fills_it(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    events = _edits()
    out = _apply(db, ann, item, events[:2] + events[3:5])  # 3 lost on the way
    assert (out.last_seq, out.waiting_for) == (2, 3)
    assert out.item.content.segment_axes == ("main", None) and out.item.content.points == ()
    version = out.item.version
    waiting = _apply(db, ann, item, events[3:5])  # still without 3: nothing new
    assert (waiting.last_seq, waiting.waiting_for, waiting.item.version) == (2, 3, version)
    filled = _apply(db, ann, item, events[2:5])
    assert filled.item.content.segment_axes == ("main", "opinion")
    assert filled.item.content.points == GOOD_POINTS[:2]
    assert (filled.last_seq, filled.waiting_for, filled.item.version) == (5, None, version + 1)


# --- clients: take-over and stale tabs ---------------------------------------------------------


def test_the_first_client_takes_over_a_draft_saved_the_old_way(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    saved = workbench_writes.save_draft(db, ann, item.annotation_id, item.version,
                                  AnnotationContent(boundaries=(0, 2), segment_axes=("main", None)), step=1)
    out = _apply(db, ann, saved, [{"seq": 1, "kind": "axis", "segment": 1, "axis": "static"}])
    assert out.item.content.segment_axes == ("main", "static") and out.item.step == 1
    assert (_row(db, item.annotation_id).event_client, out.last_seq) == (CLIENT, 1)


def test_a_new_client_from_the_current_version_takes_over(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    first = _apply(db, ann, item, _edits()[:3])
    # the same sample reloaded (new client id), starting from what is stored: its seqs start at 1
    out = _apply(db, ann, first.item, [{"seq": 1, "kind": "boundary", "gap": 8}], client="reloaded")
    assert out.item.content.boundaries == (0, 4, 8)
    assert out.item.content.segment_axes == ("main", "opinion", "opinion")
    row = _row(db, item.annotation_id)
    assert (row.event_client, row.event_seq, out.last_seq) == ("reloaded", 1, 1)
    # the old tab's next batch: it started from an older version, so it is stale now
    with pytest.raises(StaleVersion, match="^Another tab saved newer work on this sample"):
        _apply(db, ann, item, _edits()[:4])


def test_a_stale_client_is_refused_and_nothing_changes(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    _apply(db, ann, item, _edits()[:2])
    before = _snapshot(db, item.annotation_id)
    with pytest.raises(StaleVersion) as err:
        _apply(db, ann, item, [{"seq": 1, "kind": "reset_segments"}], client="other-tab")
    assert f"(version {item.version + 1}; this tab has {item.version})" in str(err.value)
    assert _snapshot(db, item.annotation_id) == before


def test_a_new_client_whose_batch_starts_after_a_gap_takes_nothing_over(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    before = _snapshot(db, item.annotation_id)
    out = _apply(db, ann, item, [{"seq": 2, "kind": "boundary", "gap": 3}])
    assert (out.last_seq, out.waiting_for) == (0, 1)
    assert _snapshot(db, item.annotation_id) == before


# --- submit in the stream ----------------------------------------------------------------------


def test_submit_in_the_stream_stores_every_edit_before_it_and_hands_out_the_next(
        db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    events = _edits() + [{"seq": 10, "kind": "submit", "flagged": False},
                         {"seq": 11, "kind": "boundary", "gap": 8}]
    out = _apply(db, ann, item, events, seconds_delta=40)
    assert out.submitted and out.submit_problems == ()
    assert out.item.is_submitted and out.item.version == item.version + 1  # one write
    assert out.item.content.segment_axes == ("main", "opinion")
    assert out.item.content.points == GOOD_POINTS and out.item.content.has_parameters
    assert [(f.seq, f.message) for f in out.refused] == [(11, ALREADY_SUBMITTED)]
    assert out.last_seq == 11
    row = _row(db, item.annotation_id)
    assert row.status == "submitted" and row.boundaries == [0, 4] and row.step == 2
    assert (row.event_client, row.event_seq) == (CLIENT, 11)
    assert row.seconds_spent == pytest.approx(40)
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 1
    assert out.next_item is not None and out.next_item.annotation_id != item.annotation_id
    assert out.next_item.status == "draft"
    # the same batch again (a re-send after the answer was lost): the sample is immutable now
    with pytest.raises(AlreadySubmitted):
        _apply(db, ann, item, events)


def test_submit_stores_what_submit_would_store(db, make_user, make_project):
    """The event path and submission.submit share one code path: the same content gives the same row."""
    pid = make_project(2)
    one, two = make_user("one"), make_user("two")
    a, b = queue.next_item(db, one, pid), queue.next_item(db, two, pid)
    events = _edits() + [{"seq": 10, "kind": "submit", "flagged": False}]
    via_events = _apply(db, one, a, events).item
    via_submit = workbench_writes.submit(db, two, b.annotation_id, b.version, via_events.content)
    assert via_submit.content == via_events.content


def test_an_incomplete_submit_keeps_the_edits_and_says_what_is_missing(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    events = _edits()[:2] + [{"seq": 3, "kind": "submit", "flagged": False},
                             {"seq": 4, "kind": "point", "action": "add", "x": 20.0, "y": 0.5}]
    out = _apply(db, ann, item, events)
    assert not out.submitted and out.next_item is None
    assert out.submit_problems == ("Axis labels: segment 2 still needs an axis.",
                                   "Curve: place 3 to 5 points (now 0).")
    # the edits before the submit and the one after it are stored (the submit did not happen)
    assert out.item.status == "draft" and out.refused == () and out.last_seq == 4
    assert out.item.content.segment_axes == ("main", None)
    assert out.item.content.points == ((20.0, 0.5),)
    assert out.fit_message == "Place 2 more points to see the curve."
    assert count(db, AuditEvent, AuditEvent.action == "submit") == 0


def test_a_second_submit_in_the_batch_succeeds_after_the_missing_part(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    events = [*_edits()[:2], {"seq": 3, "kind": "submit", "flagged": False},
              {"seq": 4, "kind": "axis", "segment": 1, "axis": "opinion"},
              *({"seq": 5 + i, "kind": "point", "action": "add", "x": x, "y": y}
                for i, (x, y) in enumerate(GOOD_POINTS)),
              {"seq": 10, "kind": "submit", "flagged": False}]
    out = _apply(db, ann, item, events)
    assert out.submitted and out.submit_problems == () and out.item.is_submitted


def test_flagged_submit_needs_a_reason_and_then_goes_through_unfinished(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    out = _apply(db, ann, item, [{"seq": 1, "kind": "submit", "flagged": True}])
    assert not out.submitted
    assert out.submit_problems == ("Flag: choose why this sample cannot be annotated normally.",)
    out = _apply(db, ann, item, [{"seq": 2, "kind": "flag", "flags": ["other"], "note": "Latin"},
                                 {"seq": 3, "kind": "submit", "flagged": True}])
    assert out.submitted and out.item.content.flags == ("other",) and out.item.content.note == "Latin"


def test_quota_reached_keeps_the_edits_and_says_so(db, make_user, make_project, lead):
    pid, ann, item = _draft(db, make_user, make_project, n=3)
    projects.update_settings(db, lead, pid, daily_quota=2)
    workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    second = queue.next_item(db, ann, pid)
    projects.update_settings(db, lead, pid, daily_quota=1)  # the draft is open when the quota fills
    out = _apply(db, ann, second, _edits() + [{"seq": 10, "kind": "submit", "flagged": False}])
    assert not out.submitted and out.item.status == "draft"
    assert out.submit_problems == ("You reached today's quota of 1 submission. "
                                   "Your draft stays open; submit it tomorrow.",)
    assert out.item.content.points == GOOD_POINTS and out.last_seq == 10
    with pytest.raises(QuotaReached):  # submission.submit says the same, as an error
        workbench_writes.submit(db, ann, second.annotation_id, out.item.version, out.item.content)


def test_submit_on_a_withdrawn_sample_is_not_done(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    with db.write() as s:
        s.execute(update(Sample).where(Sample.id == item.sample_id).values(status="discarded"))
    out = _apply(db, ann, item, _edits() + [{"seq": 10, "kind": "submit"}])
    assert not out.submitted and "withdrawn" in out.submit_problems[0]


# --- refusals and bad input -------------------------------------------------------------------


def test_refused_events_are_acknowledged_and_reported(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    out = _apply(db, ann, item, [
        {"seq": 1, "kind": "boundary", "gap": 99},
        {"seq": 2, "kind": "axis", "segment": 0, "axis": "timeless"},
        {"seq": 3, "kind": "params", "xi": 30.0, "omega": 10.0, "alpha": 1e6},
        {"seq": 4, "kind": "hover"},
        {"seq": 5, "kind": "axis", "segment": 0, "axis": "main"},
    ])
    assert [f.seq for f in out.refused] == [1, 2, 3, 4]
    assert "no gap before token 99" in out.refused[0].message
    assert "unknown axis 'timeless'" in out.refused[1].message
    assert "outside the fit's range" in out.refused[2].message
    assert "unknown edit 'hover'" in out.refused[3].message
    assert out.item.content.segment_axes == ("main",) and out.last_seq == 5
    assert _row(db, item.annotation_id).event_seq == 5
    # only refusals: still acknowledged (stored), so the component's queue moves on
    only = _apply(db, ann, item, [{"seq": 6, "kind": "hover"}])
    assert only.last_seq == 6 and _row(db, item.annotation_id).event_seq == 6


@pytest.mark.parametrize("client,base,events,fragment", [
    ("", 1, [], "client id"),
    ("x" * 65, 1, [], "client id"),
    (CLIENT, "1", [], "version it started from"),
    (CLIENT, 1, "boundary", "not a list"),
    (CLIENT, 1, [{"seq": 0, "kind": "refit"}], "sequence number"),
])
def test_malformed_batches_are_refused_and_nothing_changes(db, make_user, make_project, client, base,
                                                           events, fragment):
    _pid, ann, item = _draft(db, make_user, make_project)
    before = _snapshot(db, item.annotation_id)
    with pytest.raises(InvalidInput, match=fragment):
        workbench_events.apply_events(db, ann, item.annotation_id, client, base, events)
    assert _snapshot(db, item.annotation_id) == before


def test_events_for_a_submitted_or_anothers_annotation_are_refused(db, make_user, make_project):
    pid, ann, item = _draft(db, make_user, make_project)
    other = make_user("other")
    with pytest.raises(NotFound):
        _apply(db, other, item, _edits())
    workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    with pytest.raises(AlreadySubmitted):
        _apply(db, ann, item, _edits())


# --- concurrency and round trips ---------------------------------------------------------------


@pytest.mark.parametrize("attempt", range(2))
def test_two_threads_sending_the_same_batch_apply_it_once(db, make_user, make_project, attempt):
    _pid, ann, item = _draft(db, make_user, make_project)
    barrier = threading.Barrier(2)
    results: list[object] = [None, None]

    def send(i: int) -> None:
        barrier.wait()
        try:
            results[i] = _apply(db, ann, item, _edits(), seconds_delta=5)
        except Exception as exc:  # noqa: BLE001 - inspected below
            results[i] = exc

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert all(isinstance(r, workbench_events.EventOutcome) for r in results), results
    row = _row(db, item.annotation_id)
    assert row.version == item.version + 1 and row.event_seq == 9
    assert row.boundaries == [0, 4]  # a toggle applied twice would have removed it
    assert row.seconds_spent == pytest.approx(5)
    assert {r.item.version for r in results} == {item.version + 1}


def test_a_batch_of_edits_sends_a_bounded_number_of_statements(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    done: dict[str, workbench_events.EventOutcome] = {}
    seen = statements_of(db, lambda: done.setdefault("out", _apply(db, ann, item, _edits())))
    assert done["out"].last_seq == 9
    assert len(seen) <= EDIT_BATCH_STATEMENTS, "\n".join(seen)
    again = statements_of(db, lambda: _apply(db, ann, item, _edits()))  # duplicates: no write
    assert len(again) <= EDIT_BATCH_STATEMENTS - 1, "\n".join(again)


def test_a_batch_with_a_submit_sends_a_bounded_number_of_statements(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    done: dict[str, workbench_events.EventOutcome] = {}
    events = _edits() + [{"seq": 10, "kind": "submit", "flagged": False}]
    seen = statements_of(db, lambda: done.setdefault("out", _apply(db, ann, item, events)))
    assert done["out"].submitted and done["out"].next_item is not None
    assert len(seen) <= SUBMIT_BATCH_STATEMENTS + NEXT_ITEM_STATEMENTS, "\n".join(seen)


# --- a hand-tuned curve that misses the points (issue 22, item 9) ------------------------------


def test_a_hand_tuned_curve_that_misses_the_points_is_submitted_only_when_confirmed(db, make_user, make_project):
    """A hand-tuned curve 0.36 off the annotator's own points was "Ready to submit" and stored
    as ``manual`` by Enter, while the README said parameters are refitted at submit."""
    _pid, ann, item = _draft(db, make_user, make_project)
    tuned = [*_edits(), {"seq": 10, "kind": "params", "xi": 60.0, "omega": 10.0, "alpha": 0.0}]
    out = _apply(db, ann, item, [*tuned, {"seq": 11, "kind": "submit", "flagged": False}])
    assert not out.submitted and out.last_seq == 11
    [problem] = out.submit_problems
    assert problem.startswith("Curve: the hand-tuned curve misses the points by more than 0.10: point 1 is ")
    assert problem.endswith("Or confirm to submit it as it is.")
    assert _row(db, item.annotation_id).status == "draft"
    confirmed = _apply(db, ann, item, [{"seq": 12, "kind": "submit", "flagged": False, "accept_misses": True}],
                       base_version=_row(db, item.annotation_id).version)
    assert confirmed.submitted and confirmed.submit_problems == ()
    stored = _row(db, item.annotation_id)
    assert (stored.status, stored.params_source, stored.xi, stored.omega, stored.alpha) == (
        "submitted", "manual", 60.0, 10.0, 0.0)
    assert stored.rmse > 0.10


def test_a_hand_tuned_curve_through_the_points_needs_no_confirmation(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    fitted = _apply(db, ann, item, _edits()).item.content
    tuned = {"seq": 10, "kind": "params", "xi": fitted.xi, "omega": fitted.omega, "alpha": fitted.alpha}
    out = _apply(db, ann, item, [tuned, {"seq": 11, "kind": "submit", "flagged": False}],
                 base_version=_row(db, item.annotation_id).version)
    assert out.submitted and _row(db, item.annotation_id).params_source == "manual"


def test_accept_misses_must_be_a_boolean(db, make_user, make_project):
    _pid, ann, item = _draft(db, make_user, make_project)
    out = _apply(db, ann, item, [{"seq": 1, "kind": "submit", "flagged": False, "accept_misses": "yes"}])
    assert not out.submitted and "accept_misses must be true or false" in out.refused[0].message
