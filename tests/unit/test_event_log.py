"""The workbench's event log (annotation.workbench.event_log): order, duplicates, gaps, every kind,
refusals, submit in the stream, malformed batches, and re-sent batches applied once."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.workbench import editing
from annotation.curves import ALPHA_BOUNDS, MAX_POINTS, fit_curve
from annotation.workbench.event_log import (
    ALREADY_SUBMITTED,
    KINDS,
    MAX_EVENTS,
    EditEvent,
    EventError,
    Refusal,
    SubmitRequest,
    parse_events,
    replay,
)
from annotation.content import AnnotationContent
from annotation.text_limits import NOTE_MAX_CHARS

N_TOKENS = 10
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
EMPTY = AnnotationContent()


def ev(seq: int, kind: str, **data) -> EditEvent:
    return EditEvent(seq, kind, data)


def run(events, content=EMPTY, step=0, last_seq=0, **kw):
    return replay(content, step, N_TOKENS, last_seq, events, **kw)


def with_points(points=POINTS[:3]) -> AnnotationContent:
    return editing.refit(AnnotationContent(points=tuple(points)))[0]


# --- order, duplicates, gaps ----------------------------------------------------------------------


def test_out_of_order_batch_is_applied_in_seq_order():
    # the axis is set on segment 1 (index 1), which exists only after the boundary (seq 1)
    events = [ev(2, "axis", segment=1, axis="main"), ev(3, "boundary", gap=6), ev(1, "boundary", gap=3)]
    r = run(events)
    assert r.content.boundaries == (0, 3, 6)
    # seq 2 labelled the second segment (3..10); seq 3 split it and both halves keep "main"
    assert r.content.segment_axes == (None, "main", "main")
    assert (r.last_seq, r.refused, r.waiting_for, r.submit) == (3, (), None, None)
    in_order = run(sorted(events, key=lambda e: e.seq))
    assert in_order == r


def test_resent_prefix_is_applied_once():
    first = run([ev(1, "boundary", gap=3)])
    # the component re-sends 1 (not yet acknowledged when it added 2): 1 must not toggle back
    second = run([ev(1, "boundary", gap=3), ev(2, "boundary", gap=5)], content=first.content,
                 last_seq=first.last_seq)
    assert second.content.boundaries == (0, 3, 5)
    assert second.last_seq == 2


def test_whole_batch_resent_is_a_no_op():
    batch = [ev(1, "boundary", gap=3), ev(2, "axis", segment=0, axis="main"),
             ev(3, "point", action="add", x=20.0, y=0.5)]
    once = run(batch)
    again = run(batch, content=once.content, step=once.step, last_seq=once.last_seq)
    assert again.content == once.content and again.last_seq == once.last_seq == 3
    assert again.refused == () and not again.fit_edited and again.fit_message is None


def test_the_same_event_twice_in_one_batch_is_applied_once():
    r = run([ev(1, "boundary", gap=3), ev(1, "boundary", gap=3)])
    assert r.content.boundaries == (0, 3) and r.last_seq == 1


def test_gap_stops_and_names_the_missing_event_and_a_resend_fills_it():
    r = run([ev(1, "boundary", gap=3), ev(3, "boundary", gap=7), ev(4, "axis", segment=0, axis="main")])
    assert r.content.boundaries == (0, 3)  # 3 and 4 wait for 2
    assert (r.last_seq, r.waiting_for) == (1, 2)
    assert r.content.segment_axes == (None, None)
    resent = [ev(2, "boundary", gap=5), ev(3, "boundary", gap=7), ev(4, "axis", segment=0, axis="main")]
    r2 = run(resent, content=r.content, last_seq=r.last_seq)
    assert r2.content.boundaries == (0, 3, 5, 7)
    assert r2.content.segment_axes == ("main", None, None, None)
    assert (r2.last_seq, r2.waiting_for) == (4, None)


def test_batch_starting_after_the_next_seq_applies_nothing():
    r = run([ev(5, "boundary", gap=3)], last_seq=3)
    assert (r.content, r.last_seq, r.waiting_for) == (EMPTY, 3, 4)


# --- every kind -----------------------------------------------------------------------------------


def test_boundary_and_reset_segments():
    r = run([ev(1, "boundary", gap=4), ev(2, "boundary", gap=8), ev(3, "boundary", gap=4)])
    assert r.content.boundaries == (0, 8)
    r = run([ev(4, "reset_segments")], content=r.content, last_seq=3)
    assert r.content.boundaries == (0,) and r.content.segment_axes == (None,)


def test_axis_sets_and_clears():
    c = AnnotationContent(boundaries=(0, 5), segment_axes=(None, None))
    r = run([ev(1, "axis", segment=1, axis="opinion")], content=c)
    assert r.content.segment_axes == (None, "opinion")
    r = run([ev(2, "axis", segment=1, axis=None)], content=r.content, last_seq=1)
    assert r.content.segment_axes == (None, None)


def test_point_events_add_move_remove_and_refit():
    events = [ev(i + 1, "point", action="add", x=x, y=y) for i, (x, y) in enumerate(POINTS[:3])]
    r = run(events)
    assert r.content.points == POINTS[:3]
    assert r.content.has_parameters and r.fit_edited and r.fit_message is None
    expected = fit_curve(POINTS[:3])
    assert math.isclose(r.content.xi, expected.xi)
    r = run([ev(4, "point", action="move", index=0, x=28.0, y=0.8),
             ev(5, "point", action="remove", index=2)], content=r.content, last_seq=3)
    assert r.content.points == ((28.0, 0.8), POINTS[1])
    assert not r.content.has_parameters
    assert r.fit_message == "Place 1 more point to see the curve."


def test_params_are_hand_tuned_and_refit_returns_to_the_fit():
    c = with_points()
    r = run([ev(1, "params", xi=30.0, omega=10.0, alpha=1.0)], content=c)
    assert (r.content.xi, r.content.omega, r.content.alpha) == (30.0, 10.0, 1.0)
    assert r.content.params_source == "manual" and r.fit_edited and r.refused == ()
    assert r.fit_message.startswith("The hand-tuned curve misses the points")  # far from them
    r = run([ev(2, "refit")], content=r.content, last_seq=1)
    assert r.content.params_source == "fit" and r.content.xi == pytest.approx(c.xi)


def test_step_is_set():
    r = run([ev(1, "step", step=2), ev(2, "step", step=1.0)])
    assert r.step == 1 and r.content == EMPTY


def test_flag_sets_flags_and_note_and_an_empty_list_clears():
    r = run([ev(1, "flag", flags=["other", "multiple_peaks"], note="  two peaks  ")])
    assert r.content.flags == ("multiple_peaks", "other") and r.content.note == "two peaks"
    r = run([ev(2, "flag", flags=[], note="")], content=r.content, last_seq=1)
    assert r.content.flags == () and r.content.note == ""


def test_place_puts_points_from_durations_and_fits():
    r = run([ev(1, "place", peak_minutes=60 * 24 * 2, half_gone_minutes=60 * 24 * 14)])
    placed, message = editing.place_from_durations(EMPTY, 60 * 24 * 2, 60 * 24 * 14)
    assert r.refused == () and r.fit_edited and r.fit_message == message
    assert r.content == placed and len(r.content.points) >= 3 and r.content.has_parameters


def test_impossible_durations_are_refused_and_change_nothing():
    c = with_points()
    r = run([ev(1, "place", peak_minutes=600, half_gone_minutes=60)], content=c)
    assert r.last_seq == 1 and r.content == c
    assert len(r.refused) == 1 and r.refused[0].seq == 1
    assert r.refused[0].message.startswith("Not applied: ")
    assert "after the peak" in r.refused[0].message


def test_a_hand_tuned_curve_that_misses_the_points_is_applied_with_its_message():
    """set_parameters answers (new content, message) for a curve it stores but that misses the
    points: that is information for the annotator, not a refusal."""
    c = with_points()
    r = run([ev(1, "params", xi=c.xi + 15, omega=c.omega, alpha=c.alpha)], content=c)
    assert r.refused == () and r.content.params_source == "manual"
    assert r.content.xi == pytest.approx(c.xi + 15)
    assert r.fit_message and "misses the points" in r.fit_message


def replace_points(content: AnnotationContent, points) -> AnnotationContent:
    return editing.refit(AnnotationContent(points=tuple(points), boundaries=content.boundaries,
                                           segment_axes=content.segment_axes))[0]


def test_every_kind_has_a_handler():
    for kind in KINDS:
        r = run([ev(1, kind)])
        assert r.last_seq == 1
        assert all("unknown edit" not in f.message for f in r.refused), kind


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("event,fragment", [
    (ev(1, "boundary", gap=0), "no gap before token 0"),
    (ev(1, "boundary", gap=N_TOKENS), f"no gap before token {N_TOKENS} in this 10 tokens text"),
    (ev(1, "boundary", gap="3"), "a boundary needs"),
    (ev(1, "boundary"), "a boundary needs"),
    (ev(1, "axis", segment=1, axis="main"), "there is no segment 2 (the text has 1 segment)"),
    (ev(1, "axis", segment=-1, axis="main"), "there is no segment 0"),
    (ev(1, "axis", segment=0, axis="timeless"), "unknown axis 'timeless'"),
    (ev(1, "point", action="remove", index=0), "there is no point 1 (the chart has 0 points)"),
    (ev(1, "point", action="fly", x=1, y=1), "unknown point action 'fly'"),
    (ev(1, "point", action="add", x=float("nan"), y=0.5), "finite time"),
    (ev(1, "point", action="add", x=10), "finite time"),
    (ev(1, "params", xi=30.0, omega=10.0, alpha=ALPHA_BOUNDS[1] + 1),
     "outside the fit's range"),
    (ev(1, "params", xi="30", omega=10.0, alpha=1.0), "xi (ξ) must be a number"),
    (ev(1, "params", xi=30.0, omega=10.0, alpha=1.0), "No points given"),
    (ev(1, "step", step=3), "there is no step 3"),
    (ev(1, "step", step="next"), "there is no step 'next'"),
    (ev(1, "flag", flags=["weird"], note=""), "unknown flag 'weird'"),
    (ev(1, "flag", flags="other", note=""), "list of flag codes"),
    (ev(1, "flag", flags=["other"], note=3), "the note must be text"),
    (ev(1, "submit", flagged="yes"), "true or false"),
    (ev(1, "teleport"), "unknown edit 'teleport'"),
])
def test_refused_events_are_acknowledged_with_a_message_and_change_nothing(event, fragment):
    r = run([event, ev(2, "boundary", gap=5)])
    assert r.last_seq == 2  # acknowledged, and the queue moved on
    assert len(r.refused) == 1 and r.refused[0].seq == 1
    message = r.refused[0].message
    assert message.startswith("Not applied: ") and message.endswith(".") and ".." not in message
    assert fragment in message
    assert r.content == AnnotationContent(boundaries=(0, 5), segment_axes=(None, None))
    assert r.submit is None


def test_a_sixth_point_is_refused():
    c = with_points(POINTS)
    r = run([ev(1, "point", action="add", x=50.0, y=0.1)], content=c)
    assert r.refused == (Refusal(1, f"Not applied: at most {MAX_POINTS} points can be placed; "
                                    "remove one first."),)
    assert r.content == c and not r.fit_edited


def test_refused_params_keep_the_earlier_fit_message():
    r = run([ev(1, "point", action="add", x=10.0, y=0.5),
             ev(2, "params", xi=1e9, omega=1.0, alpha=0.0)])
    assert r.fit_message == "Place 2 more points to see the curve."
    assert [f.seq for f in r.refused] == [2]


# --- submit in the stream -------------------------------------------------------------------------


def test_submit_comes_after_every_edit_before_it_and_later_ones_are_refused():
    events = [ev(1, "boundary", gap=5), ev(2, "axis", segment=0, axis="main"),
              ev(3, "submit", flagged=False), ev(4, "axis", segment=1, axis="main"),
              ev(6, "boundary", gap=2)]  # 6 after a gap: refused too (nothing applies after a submit)
    r = run(events)
    assert r.submit == SubmitRequest(3, False)
    assert r.content.segment_axes == ("main", None)
    assert r.refused == (Refusal(4, ALREADY_SUBMITTED), Refusal(6, ALREADY_SUBMITTED))
    assert ALREADY_SUBMITTED == "Not applied: the sample was already submitted."
    assert (r.last_seq, r.waiting_for) == (6, None)


def test_stop_at_submit_leaves_the_rest_for_the_caller():
    events = [ev(1, "boundary", gap=5), ev(2, "submit", flagged=False), ev(3, "boundary", gap=7)]
    r = run(events, stop_at_submit=True)
    assert r.submit == SubmitRequest(2, False) and r.last_seq == 2 and r.refused == ()
    rest = run(events, content=r.content, last_seq=r.last_seq, stop_at_submit=True)
    assert rest.content.boundaries == (0, 5, 7) and rest.last_seq == 3 and rest.submit is None


def test_unflagged_submit_drops_an_earlier_flag_and_flagged_keeps_it():
    flagged = run([ev(1, "flag", flags=["other"], note="why"), ev(2, "submit", flagged=True)])
    assert flagged.content.flags == ("other",) and flagged.submit == SubmitRequest(2, True)
    plain = run([ev(1, "flag", flags=["other"], note="why"), ev(2, "submit", flagged=False)])
    assert plain.content.flags == () and plain.content.note == ""
    assert run([ev(1, "submit")]).submit == SubmitRequest(1, False)


# --- malformed input ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw,fragment", [
    ("[]", "not a list"),
    ({"seq": 1}, "not a list"),
    (None, "not a list"),
    ([1], "Edit 1 of the batch is malformed"),
    ([{"kind": "refit"}], "no valid sequence number"),
    ([{"seq": 0, "kind": "refit"}], "no valid sequence number"),
    ([{"seq": 1.5, "kind": "refit"}], "no valid sequence number"),
    ([{"seq": True, "kind": "refit"}], "no valid sequence number"),
    ([{"seq": 1}], "no valid kind"),
    ([{"seq": 1, "kind": ""}], "no valid kind"),
    ([{"seq": 1, "kind": 5}], "no valid kind"),
    ([{"seq": 1, "kind": "flag", "note": "x" * (NOTE_MAX_CHARS + 1), "flags": []}],
     f"longer than {NOTE_MAX_CHARS} characters"),
    ([{"seq": 1, "kind": "axis", "axis": "x" * 500, "segment": 0}], "longer than 200 characters"),
    ([{"seq": 1, "kind": "flag", "flags": ["other"] * 17}], "more than 16 items"),
    ([{"seq": 1, "kind": "flag", "flags": [["other"]]}], "nested lists"),
    ([{"seq": 1, "kind": "point", "x": {"a": 1}}], "not a number, text or list"),
    ([{"seq": 1, "kind": "refit", **{f"f{i}": 1 for i in range(17)}}], "too many fields"),
    ([{"seq": 1, "kind": "refit"}, {"seq": 1, "kind": "reset_segments"}], "the number 1"),
])
def test_malformed_batches_are_rejected_with_a_message(raw, fragment):
    with pytest.raises(EventError) as err:
        parse_events(raw)
    assert fragment in str(err.value)


def test_batch_length_is_capped():
    ok = [{"seq": i, "kind": "refit"} for i in range(1, MAX_EVENTS + 1)]
    assert len(parse_events(ok)) == MAX_EVENTS
    with pytest.raises(EventError, match="Too many edits"):
        parse_events(ok + [{"seq": MAX_EVENTS + 1, "kind": "refit"}])


def test_parse_keeps_fields_read_only_and_accepts_whole_floats_and_repeats():
    events = parse_events([{"seq": 2.0, "kind": "boundary", "gap": 3},
                           {"seq": 2, "kind": "boundary", "gap": 3},
                           {"seq": 1, "kind": "flag", "flags": ["other"],
                            "note": "n" * NOTE_MAX_CHARS}])
    assert [e.seq for e in events] == [2, 2, 1]
    assert events[0] == EditEvent(2, "boundary", {"gap": 3})
    with pytest.raises(TypeError):
        events[0].data["gap"] = 4  # type: ignore[index]


# --- re-sent, overlapping batches give the same result as one ordered pass --------------------------

_axis_names = st.sampled_from(["main", "opinion", "static", None, "nope"])
_event_fields = st.one_of(
    st.builds(lambda g: {"kind": "boundary", "gap": g}, st.integers(-1, N_TOKENS)),
    st.just({"kind": "reset_segments"}),
    st.builds(lambda j, a: {"kind": "axis", "segment": j, "axis": a}, st.integers(-1, 4), _axis_names),
    st.builds(lambda x, y: {"kind": "point", "action": "add", "x": x, "y": y},
              st.sampled_from([10.0, 20.0, 27.6, 31.6, 40.0]), st.sampled_from([0.2, 0.5, 0.9])),
    st.builds(lambda i, x: {"kind": "point", "action": "move", "index": i, "x": x, "y": 0.6},
              st.integers(0, 5), st.sampled_from([15.0, 25.0, 35.0])),
    st.builds(lambda i: {"kind": "point", "action": "remove", "index": i}, st.integers(0, 5)),
    st.builds(lambda s: {"kind": "step", "step": s}, st.integers(0, 3)),
    st.builds(lambda f: {"kind": "flag", "flags": f, "note": "n"},
              st.lists(st.sampled_from(["other", "multiple_peaks", "bad"]), max_size=2)),
    st.just({"kind": "refit"}),
    st.just({"kind": "submit", "flagged": False}),
    st.just({"kind": "mystery"}),
)


@st.composite
def _sessions(draw):
    """A sequence of events and how the component sends it: each batch re-sends from some point
    at or before the last acknowledged event (or skips ahead, making a gap) up to some later
    point, in any order; the last batch carries everything not yet acknowledged."""
    fields = draw(st.lists(_event_fields, min_size=1, max_size=12))
    events = [EditEvent(i + 1, f["kind"], {k: v for k, v in f.items() if k != "kind"})
              for i, f in enumerate(fields)]
    cuts = draw(st.lists(st.tuples(st.integers(0, len(events)), st.integers(0, len(events))),
                         max_size=6))
    order_seeds = draw(st.lists(st.randoms(use_true_random=False), min_size=len(cuts) + 1,
                                max_size=len(cuts) + 1))
    return events, cuts, order_seeds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sessions())
def test_resent_overlapping_batches_give_the_same_content_as_one_ordered_pass(session):
    events, cuts, shufflers = session
    once = replay(EMPTY, 0, N_TOKENS, 0, events)

    content, step, last = EMPTY, 0, 0
    refused: dict[int, str] = {}
    submit = None
    sends = [lambda a=a, b=b: events[min(a, b):max(a, b)] for a, b in cuts]
    # the final re-send carries everything not acknowledged, overlapping what was
    sends.append(lambda: events[max(0, last - 2):])
    for send, shuffler in zip(sends, shufflers):
        batch = list(send())
        shuffler.shuffle(batch)
        r = replay(content, step, N_TOKENS, last, batch)
        assert r.last_seq >= last
        content, step, last = r.content, r.step, r.last_seq
        for f in r.refused:
            assert f.seq not in refused  # every event is answered once
            refused[f.seq] = f.message
        if r.submit is not None:
            submit = r.submit  # the server submits; that sample takes no more batches
            break
    assert (content, step) == (once.content, once.step)
    assert submit == once.submit
    if submit is None:
        assert last == once.last_seq == len(events)
        assert refused == {f.seq: f.message for f in once.refused}
    else:  # what came before the submit was answered alike
        before = {seq: m for seq, m in refused.items() if seq < submit.seq}
        assert before == {f.seq: f.message for f in once.refused if f.seq < submit.seq}
