"""The replay's bounded cost per event (annotation.workbench.working_draft) and the component's folded
moves: the fast replay gives exactly what applying every event through annotation.workbench.editing one by
one gives, a batch of moves fits the curve once, boundary toggles on a long text cost no
per-event rebuild of the segmentation, and a folded run of moves applies once, whatever part of
it the server had already applied."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.workbench import editing, event_log

from annotation import segmentation
from annotation.axes import is_axis_name
from annotation.curves import MAX_POINTS, parameter_bounds_problem
from annotation.workbench.event_log import EditEvent, EventError, parse_events, replay
from annotation.content import AnnotationContent

N_TOKENS = 12
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41))


def ev(seq: int, kind: str, first: int = 0, **data) -> EditEvent:
    return EditEvent(seq, kind, data, first)


def naive(content: AnnotationContent, step: int, n_tokens: int, events) -> tuple[AnnotationContent, int, str | None]:
    """The reference: every event applied on its own through annotation.workbench.editing, the curve
    refitted after every point edit (what the replay did before it kept a working draft)."""
    message = None
    for e in events:
        d = e.data
        if e.kind == "boundary":
            if isinstance(d.get("gap"), int) and 1 <= d["gap"] < n_tokens:
                content = editing.toggle_boundary(content, n_tokens, d["gap"])
        elif e.kind == "reset_segments":
            content = editing.reset_segmentation(content)
        elif e.kind == "axis":
            i, axis = d.get("segment"), d.get("axis")
            if 0 <= i < len(content.segment_axes) and (axis is None or is_axis_name(axis)):
                content = editing.set_segment_axis(content, i, axis)
        elif e.kind == "point":
            n, action = len(content.points), d.get("action")
            if (action == "add" and n < MAX_POINTS) or (action in ("move", "remove") and 0 <= d["index"] < n):
                content, message = editing.edit_points(content, dict(d))
        elif e.kind == "params":
            if parameter_bounds_problem(d["xi"], d["omega"], d["alpha"]) is None:
                new, msg = editing.set_parameters(content, d["xi"], d["omega"], d["alpha"])
                if not (msg is not None and new == content):
                    content, message = new, msg
        elif e.kind == "refit":
            content, message = editing.refit(content)
        elif e.kind == "step":
            step = d["step"]
        elif e.kind == "flag":
            content = editing.set_flags(content, list(d["flags"]), d["note"])
    return content, step, message


_events = st.one_of(
    st.builds(lambda g: {"kind": "boundary", "gap": g}, st.integers(1, N_TOKENS - 1)),
    st.builds(lambda g: {"kind": "boundary", "gap": g}, st.integers(1, N_TOKENS - 1)),
    st.just({"kind": "reset_segments"}),
    st.builds(lambda j, a: {"kind": "axis", "segment": j, "axis": a}, st.integers(0, 6),
              st.sampled_from(["main", "opinion", "static", None])),
    st.builds(lambda x, y: {"kind": "point", "action": "add", "x": x, "y": y},
              st.sampled_from([10.0, 20.0, 27.6, 31.6, 40.0, 60.0]), st.sampled_from([0.2, 0.5, 0.9, 1.0])),
    st.builds(lambda i, x, y: {"kind": "point", "action": "move", "index": i, "x": x, "y": y},
              st.integers(0, 5), st.sampled_from([15.0, 25.0, 35.0, 50.0]), st.sampled_from([0.3, 0.6, 1.0])),
    st.builds(lambda i: {"kind": "point", "action": "remove", "index": i}, st.integers(0, 5)),
    st.builds(lambda xi, om, al: {"kind": "params", "xi": xi, "omega": om, "alpha": al},
              st.sampled_from([20.0, 27.0, 40.0]), st.sampled_from([5.0, 10.0]), st.sampled_from([0.0, 2.0])),
    st.just({"kind": "refit"}),
    st.builds(lambda s: {"kind": "step", "step": s}, st.integers(0, 2)),
    st.builds(lambda f: {"kind": "flag", "flags": f, "note": "n"},
              st.lists(st.sampled_from(["other", "multiple_peaks"]), max_size=2)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_events, min_size=1, max_size=40), st.integers(0, 3))
def test_the_fast_replay_equals_every_event_applied_through_editing(fields, split):
    events = [EditEvent(i + 1, f["kind"], {k: v for k, v in f.items() if k != "kind"})
              for i, f in enumerate(fields)]
    start = AnnotationContent(boundaries=(0, 4, 8), segment_axes=("main", None, "static"))
    want, want_step, want_message = naive(start, 0, N_TOKENS, events)
    r = replay(start, 0, N_TOKENS, 0, events)
    assert (r.content, r.step, r.last_seq) == (want, want_step, len(events))
    if r.fit_edited:
        assert r.fit_message == want_message
    # the same events sent in two batches (the second re-sending the first's tail) end the same
    cut = min(split * 7, len(events))
    first = replay(start, 0, N_TOKENS, 0, events[:cut])
    second = replay(first.content, first.step, N_TOKENS, first.last_seq, events[max(0, cut - 2):])
    assert (second.content, second.step, second.last_seq) == (want, want_step, len(events))


def test_five_hundred_moves_of_one_point_fit_the_curve_once(monkeypatch):
    fits = []
    real = editing.refit
    monkeypatch.setattr(editing, "refit", lambda c: fits.append(1) or real(c))
    start = editing.refit(AnnotationContent(points=POINTS))[0]
    fits.clear()
    moves = [ev(i, "point", action="move", index=1, x=20.0 + (i % 50) / 10, y=0.4) for i in range(1, 501)]
    r = replay(start, 2, N_TOKENS, 0, moves)
    assert len(fits) == 1 and r.last_seq == 500 and r.refused == ()
    assert r.content == naive(start, 2, N_TOKENS, moves)[0]


def test_boundary_toggles_on_a_long_text_build_no_segmentation_per_event(monkeypatch):
    n = 2500
    start = AnnotationContent(boundaries=tuple(range(n)), segment_axes=("main",) * n)
    built = []
    real_init = segmentation.Segmentation.__post_init__
    monkeypatch.setattr(segmentation.Segmentation, "__post_init__",
                        lambda self: built.append(1) or real_init(self))
    events = [ev(i, "boundary", gap=1 + (i * 37) % (n - 1)) for i in range(1, 501)]
    r = replay(start, 0, n, 0, events)
    assert len(built) <= 1  # the stored segmentation is checked once, not rebuilt per toggle
    monkeypatch.undo()
    assert r.content == naive(start, 0, n, events)[0]


def test_a_folded_run_of_moves_applies_once_whatever_was_applied_before():
    start = editing.refit(AnnotationContent(points=POINTS))[0]
    single = [ev(1, "point", action="move", index=0, x=30.0, y=0.9)]
    folded = [ev(4, "point", first=1, action="move", index=0, x=33.0, y=0.8),
              ev(5, "axis", segment=0, axis="main")]
    want = naive(start, 2, N_TOKENS, [folded[0], folded[1]])[0]
    fresh = replay(start, 2, N_TOKENS, 0, folded)  # nothing of the run applied yet
    assert fresh.content == want and fresh.last_seq == 5
    partly = replay(start, 2, N_TOKENS, 0, single)  # the server had applied the run's first move
    later = replay(partly.content, 2, N_TOKENS, partly.last_seq, folded)
    assert later.content == want and later.last_seq == 5
    done = replay(want, 2, N_TOKENS, 4, folded)  # the whole run applied: only the axis is new
    assert done.content == want and done.last_seq == 5
    gap = replay(start, 2, N_TOKENS, 0, [ev(4, "point", first=2, action="move", index=0, x=1.0, y=1.0)])
    assert gap.waiting_for == 1 and gap.last_seq == 0 and gap.content == start


@pytest.mark.parametrize("raw,fragment", [
    ([{"seq": 3, "first": 0, "kind": "point", "action": "move", "index": 0, "x": 1, "y": 1}], "malformed range"),
    ([{"seq": 3, "first": 4, "kind": "point", "action": "move", "index": 0, "x": 1, "y": 1}], "malformed range"),
    ([{"seq": 3, "first": 1, "kind": "boundary", "gap": 2}], "not moves of one point"),
    ([{"seq": 3, "first": 1, "kind": "point", "action": "add", "x": 1, "y": 1}], "not moves of one point"),
    ([{"seq": 3, "first": 1, "kind": "point", "action": "move", "index": 0, "x": 1, "y": 1},
      {"seq": 2, "kind": "axis", "segment": 0, "axis": "main"}], "both stand for the number 2"),
])
def test_malformed_folds_are_rejected(raw, fragment):
    with pytest.raises(EventError, match=fragment):
        parse_events(raw)


def test_a_fold_parses_with_its_range_and_keeps_it_out_of_the_fields():
    (e,) = parse_events([{"seq": 9, "first": 5, "kind": "point", "action": "move", "index": 1,
                          "x": 2.0, "y": 0.5}])
    assert (e.first, e.seq, dict(e.data)) == (5, 9, {"action": "move", "index": 1, "x": 2.0, "y": 0.5})
    assert event_log.parse_events([{"seq": 2, "kind": "step", "step": 1}])[0].first == 2


def test_the_working_drafts_examples_run():
    import doctest

    from annotation.workbench import working_draft

    result = doctest.testmod(working_draft)
    assert result.attempted > 0 and result.failed == 0
