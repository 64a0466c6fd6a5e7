"""The Python side of the annotation surface: only well-formed payloads reach the screen."""

from __future__ import annotations

from ui.components.annotation_surface import checked_payload
from ui.components.events import MAX_EVENTS


def test_a_well_formed_payload_passes_unchanged():
    payload = {"client": "ab12", "base_version": 3,
               "events": [{"seq": 1, "kind": "boundary", "gap": 2}, {"seq": 2, "kind": "submit", "flagged": False}]}
    assert checked_payload(payload) == payload


def test_non_objects_in_events_are_dropped_and_the_list_is_capped():
    events = [{"seq": i + 1, "kind": "step", "step": 1} for i in range(MAX_EVENTS + 20)]
    payload = {"client": "c", "base_version": 1, "events": ["x", None, 3, *events]}
    batch = checked_payload(payload)
    assert batch is not None
    assert len(batch["events"]) == MAX_EVENTS
    assert batch["events"][0] == events[0]  # the oldest are kept: the server applies in order


def test_a_whole_float_version_is_accepted_as_int():
    batch = checked_payload({"client": "c", "base_version": 4.0, "events": []})
    assert batch == {"client": "c", "base_version": 4, "events": []}
    assert isinstance(batch["base_version"], int)


def test_malformed_payloads_are_dropped():
    for bad in (
        None, [], "events", 3,
        {"client": "c", "base_version": 1},                          # no events
        {"client": "c", "base_version": 1, "events": {"seq": 1}},      # not a list
        {"client": "", "base_version": 1, "events": []},               # empty client
        {"client": 7, "base_version": 1, "events": []},
        {"client": "c" * 65, "base_version": 1, "events": []},
        {"client": "c", "base_version": "1", "events": []},
        {"client": "c", "base_version": True, "events": []},
        {"client": "c", "base_version": 1.5, "events": []},
        {"client": "c", "base_version": float("nan"), "events": []},
    ):
        assert checked_payload(bad) is None, bad
