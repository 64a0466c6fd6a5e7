"""The Python side of the components' delivery protocol (``ui.components.events``): the one shape
check of a batch, its limits, and the per-key "highest seq delivered" bookkeeping of the
components whose receiver is the session (the curve canvas, the token boundary editor)."""

from __future__ import annotations

import doctest
from types import SimpleNamespace

import pytest

from annotation.services.workbench.workbench_events import CLIENT_MAX_CHARS
from annotation.workbench.event_log import MAX_EVENTS as EVENT_LOG_MAX_EVENTS
from ui.components import events
from ui.components.events import (
    MAX_CLIENT_LENGTH,
    MAX_CLIENTS,
    MAX_EVENTS,
    acknowledgement,
    checked_batch,
    deliver_new_events,
    first_new_event,
    make_callback,
    new_events,
    whole_number,
)


@pytest.fixture
def session(monkeypatch):
    """A plain dict in place of ``st.session_state`` (what the module reads and writes)."""
    state: dict = {}
    monkeypatch.setattr(events, "st", SimpleNamespace(session_state=state))
    return state


def batch(client: str, *seqs: int, **fields) -> dict:
    return {"client": client, "events": [{"seq": s, "n": s} for s in seqs], **fields}


def parse(event: dict) -> int | None:
    """The event's ``n``, or None (rejected) when it is negative."""
    n = event.get("n")
    return n if isinstance(n, int) and n >= 0 else None


def test_the_doctests_pass():
    assert doctest.testmod(events, optionflags=doctest.ELLIPSIS).failed == 0


def test_the_limits_are_the_servers():
    assert MAX_EVENTS == EVENT_LOG_MAX_EVENTS
    assert MAX_CLIENT_LENGTH == CLIENT_MAX_CHARS


def test_a_batch_keeps_client_events_and_the_checked_extra_fields_only():
    payload = {"client": "ab", "events": [{"seq": 1}, "x", None, 3, {"seq": 2}], "base_version": 3.0,
               "other": "dropped"}
    assert checked_batch(payload) == {"client": "ab", "events": [{"seq": 1}, {"seq": 2}]}
    assert checked_batch(payload, {"base_version": whole_number}) == {
        "client": "ab", "events": [{"seq": 1}, {"seq": 2}], "base_version": 3}


def test_a_batch_keeps_the_oldest_events_up_to_the_limit():
    payload = batch("c", *range(1, MAX_EVENTS + 30))
    kept = checked_batch(payload)
    assert kept is not None and len(kept["events"]) == MAX_EVENTS
    assert kept["events"][0]["seq"] == 1


def test_malformed_batches_are_refused():
    for bad in (None, [], "events", 3, {"client": "c"}, {"events": []},
                {"client": "c", "events": {"seq": 1}}, {"client": "", "events": []},
                {"client": 7, "events": []}, {"client": "c" * (MAX_CLIENT_LENGTH + 1), "events": []}):
        assert checked_batch(bad) is None, bad
    assert checked_batch({"client": "c" * MAX_CLIENT_LENGTH, "events": []}) is not None
    # an extra field whose check fails refuses the whole batch
    assert checked_batch({"client": "c", "events": []}, {"base_version": whole_number}) is None
    assert checked_batch({"client": "c", "events": [], "base_version": 1.5},
                         {"base_version": whole_number}) is None


def test_new_events_are_those_above_the_last_delivered_in_rising_order():
    events_ = [{"seq": s} for s in (1, 2, 3, 2, 5, 4, 6)] + [{"seq": True}, {"seq": 7.0}, {}]
    assert [s for s, _ in new_events(1, events_)] == [2, 3, 5, 6]
    assert new_events(6, events_) == []


def test_the_callback_path_delivers_each_new_event_once_in_order(session):
    got: list[int] = []
    deliver_new_events("k", batch("c1", 1, 2), parse, got.append)
    # Streamlit merged payloads: the next one carries the whole queue again, plus 3 and 4
    deliver_new_events("k", batch("c1", 1, 2, 3, 4), parse, got.append)
    deliver_new_events("k", batch("c1", 3, 4), parse, got.append)  # the same again (a replay)
    assert got == [1, 2, 3, 4]
    assert acknowledgement("k") == {"client": "c1", "acked": 4}


def test_an_event_the_parser_rejects_is_acknowledged_all_the_same(session):
    got: list[int] = []
    deliver_new_events("k", {"client": "c", "events": [{"seq": 1, "n": -1}, {"seq": 2, "n": 5}]},
                       parse, got.append)
    assert got == [5]
    assert acknowledgement("k") == {"client": "c", "acked": 2}


def test_an_event_whose_delivery_is_interrupted_is_delivered_again(session):
    calls: list[int] = []

    def deliver(n: int) -> None:
        calls.append(n)
        if n == 2 and calls.count(2) == 1:
            raise RuntimeError("a newer payload is waiting")  # Streamlit's rerun exception

    with pytest.raises(RuntimeError):
        deliver_new_events("k", batch("c", 1, 2, 3), parse, deliver)
    assert acknowledgement("k") == {"client": "c", "acked": 1}
    deliver_new_events("k", batch("c", 1, 2, 3), parse, deliver)
    assert calls == [1, 2, 2, 3]


def test_a_gap_is_crossed(session):
    """Numbers the session no longer knows of were taken before (the browser only drops what is
    acknowledged): the receiver goes on after the gap instead of waiting for them."""
    got: list[int] = []
    deliver_new_events("k", batch("c", 7, 8), parse, got.append)
    assert got == [7, 8]
    assert acknowledgement("k") == {"client": "c", "acked": 8}


def test_clients_and_keys_are_counted_apart_and_the_last_heard_is_acknowledged(session):
    got: list[int] = []
    deliver_new_events("k", batch("old", 1, 2), parse, got.append)
    deliver_new_events("k", batch("new", 1), parse, got.append)  # a new mount numbers from 1
    deliver_new_events("other", batch("old", 1), parse, got.append)
    assert got == [1, 2, 1, 1]
    assert acknowledgement("k") == {"client": "new", "acked": 1}
    deliver_new_events("k", batch("old", 1, 2), parse, got.append)  # a late re-send: nothing new
    assert got == [1, 2, 1, 1]
    assert acknowledgement("k") == {"client": "old", "acked": 2}  # … but it is answered
    assert acknowledgement("unknown") == {"client": "", "acked": 0}


def test_only_the_newest_clients_are_remembered(session):
    for i in range(MAX_CLIENTS + 3):
        deliver_new_events("k", batch(f"c{i}", 1), parse, lambda n: None)
    record = session[events.DELIVERED_STATE_KEY]["k"]
    assert list(record) == [f"c{i}" for i in range(3, MAX_CLIENTS + 3)]


def test_a_malformed_payload_delivers_nothing_and_records_nothing(session):
    got: list[int] = []
    for bad in (None, [{"id": "x-1", "n": 1}], {"client": "", "events": [{"seq": 1, "n": 1}]}):
        deliver_new_events("k", bad, parse, got.append)
        assert first_new_event("k", bad, parse) is None
    assert got == []
    assert acknowledgement("k") == {"client": "", "acked": 0}


def test_the_return_path_takes_the_oldest_new_event_per_run(session):
    payload = batch("c", 1, 2, 3)
    assert first_new_event("k", payload, parse) == 1
    assert acknowledgement("k") == {"client": "c", "acked": 1}
    assert first_new_event("k", payload, parse) == 2
    assert first_new_event("k", batch("c", 2, 3), parse) == 3
    assert first_new_event("k", payload, parse) is None
    rejected_first = {"client": "c", "events": [{"seq": 4, "n": -1}, {"seq": 5, "n": 9}]}
    assert first_new_event("k", rejected_first, parse) == 9
    assert acknowledgement("k") == {"client": "c", "acked": 5}


def test_the_callback_reads_the_trigger_and_does_nothing_without_on_change(session):
    got: list[int] = []
    session["k"] = {"events": batch("c", 1, 2)}
    make_callback("k", parse, None)()
    assert acknowledgement("k") == {"client": "", "acked": 0}
    make_callback("k", parse, got.append)()
    assert got == [1, 2]
