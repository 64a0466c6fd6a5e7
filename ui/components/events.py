"""Exactly-once delivery of user actions from our custom components (Streamlit CCv2): the one
protocol every component uses, its browser side in ``delivery.js``.

Why this exists
---------------
A CCv2 component reports a user action with ``setTriggerValue(name, value)``. Streamlit
resets a trigger after one script run, so a trigger is never *replayed* by a later ordinary
rerun — but in Streamlit 1.67 an action can still be **lost** or **seen twice**:

* Two trigger payloads of one component that reach the server in one batch, or while an
  earlier rerun request is still queued, are merged and only the *last* value per trigger
  name survives (``script_requests._coalesce_widget_states`` keeps the newer trigger; the
  ``ComponentResult`` keeps the last payload per name). A quick second click while a heavy
  page is still running is enough.
* ``on_<name>_change`` callbacks get no arguments and run once *per payload* while reading the
  same (last) value from ``st.session_state[key]``; and a run that is pre-empted by a newer one
  has its already-consumed triggers replayed into the next script body.

The protocol
------------
1. A mounted component numbers its actions ``seq`` = 1, 2, 3 … under a ``client`` id (random per
   mount; the annotation surface's view gives its own), keeps every action not yet
   acknowledged, and sends the **whole queue** as the value of the one trigger ``"events"``:
   ``{"client": str, "events": [{"seq": n, …}, …], …extra}`` (the surface adds
   ``base_version``). A later payload therefore carries every earlier action that may have been
   merged away. :func:`checked_batch` is the one shape check of such a payload.
2. The receiver acknowledges a number, ``acked`` = the highest ``seq`` it has taken for that
   client, in the component's data beside ``client``. For the curve canvas and the token
   boundary editor the receiver is the session: :func:`deliver_new_events` and
   :func:`first_new_event` hand on, in order, only the events numbered above the last one
   delivered for that client (recorded per component key in ``st.session_state``) and
   :func:`acknowledgement` is what the data carries back. The annotation surface's receiver is
   the server's event log (``annotation.workbench.event_log``), which keeps its own number with
   the stored annotation.
3. The component drops acknowledged actions from its queue and sends the rest again after 1 s
   without an acknowledgement, the wait doubling up to 8 s (progress starts it over), and never
   drops the queue: a fixed short re-send restarted every run slower than it on a loaded server
   (a new trigger stops the running script), so nothing was ever acknowledged, and a give-up
   after a few tries silently lost a chart click. While an action is pending the component
   draws its effect optimistically, so the UI never feels laggy.

At a gap (events numbered 7 … arrive while the last delivered for the client is 5) the session
receiver **delivers across it**: the browser drops an action only once it is acknowledged, so a
missing number is one the session had already taken and then forgot (its record was reset with
the session or pushed out by newer clients), never one lost on the way; waiting for it would
stall the component for good. The surface's server, whose log is stored, stops at a gap instead
(``waiting_for``): there a missing number means a missing edit.

Delivery paths of the session receiver (both exactly-once):

* ``on_change=`` callback (recommended): called once per new action, in order, *before* the
  script body — the page updates its state there and the same run draws the new data. Each
  action is recorded as delivered after its callback returns, so one interrupted by a newer
  payload (any session-state access may raise Streamlit's rerun exception) is delivered again.
* return value: the oldest new action of this run (the component re-sends any others). The page
  applies it and calls ``st.rerun()`` so the component is drawn from the new data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import streamlit as st

from annotation.services.workbench.workbench_events import CLIENT_MAX_CHARS
from annotation.workbench.event_log import MAX_EVENTS as EVENT_LOG_MAX_EVENTS
from ui.components.sources import component_source

T = TypeVar("T")

#: Trigger name every component sends its queue under.
TRIGGER = "events"
#: Most events taken from one payload, the oldest (the rest come again once these are
#: acknowledged); the event log's limit, so a batch handed on is never one the server refuses.
MAX_EVENTS = EVENT_LOG_MAX_EVENTS
#: Longest client id accepted (the browser makes 16 hex characters); the width the server
#: stores a client id in.
MAX_CLIENT_LENGTH = CLIENT_MAX_CHARS
#: Session-state key holding ``{component key: {client: highest seq delivered}}``, the client
#: heard from last at the end.
DELIVERED_STATE_KEY = "_chronocept_component_delivered"
#: Clients remembered per component key (each mount is a new client; the oldest are forgotten).
MAX_CLIENTS = 8

# JavaScript shared by every component module (the annotation surface included): when to tear
# an instance down.
INSTANCE_CLEANUP_JS = component_source("instance_cleanup.js")

# JavaScript of every component that delivers user actions (the browser side of this protocol,
# and the mount helper of those received by the session), put in front of a component's ES
# module (components cannot import each other's modules).
DELIVERY_JS = INSTANCE_CLEANUP_JS + component_source("delivery.js")


def whole_number(value: object) -> int | None:
    """``value`` as an int when it is a whole number (JSON may bring ``4.0``), else None.

    >>> whole_number(4.0), whole_number(3), whole_number(True), whole_number(1.5), whole_number("1")
    (4, 3, None, None, None)
    """
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def checked_batch(
    payload: Any, extra: Mapping[str, Callable[[Any], Any | None]] | None = None
) -> dict[str, Any] | None:
    """The payload in the shape every receiver relies on, or None when malformed.

    Kept: ``{"client": str, "events": [dict, ...]}`` plus the fields named in ``extra``, each
    passed through its check (which returns the value to keep, or None to refuse the payload):
    ``client`` non-empty and at most :data:`MAX_CLIENT_LENGTH` characters; entries of
    ``events`` that are not objects are dropped and at most :data:`MAX_EVENTS` are kept (the
    oldest: receivers take them in order and the component re-sends the rest). Event
    *contents* (``seq`` included) are the receiver's to check.

    >>> checked_batch({"client": "c", "events": [{"seq": 1}, 7], "other": 1})
    {'client': 'c', 'events': [{'seq': 1}]}
    >>> checked_batch({"client": "c", "base_version": 2.0, "events": []}, {"base_version": whole_number})
    {'client': 'c', 'events': [], 'base_version': 2}
    >>> checked_batch({"client": "", "events": []}) is None
    True
    """
    if not isinstance(payload, dict):
        return None
    client = payload.get("client")
    events = payload.get("events")
    if not isinstance(client, str) or not client or len(client) > MAX_CLIENT_LENGTH:
        return None
    if not isinstance(events, list):
        return None
    batch: dict[str, Any] = {
        "client": client,
        "events": [event for event in events if isinstance(event, dict)][:MAX_EVENTS],
    }
    for name, check in (extra or {}).items():
        value = check(payload.get(name))
        if value is None:
            return None
        batch[name] = value
    return batch


def new_events(delivered: int, events: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """``(seq, event)`` for the events numbered above ``delivered``, in order, each above the one
    before (re-sent and out-of-order events, and those without a whole positive ``seq``, are
    left out). A gap in the numbers is crossed (see the module docstring).

    >>> [seq for seq, _ in new_events(2, [{"seq": 1}, {"seq": 3}, {"seq": 3}, {"seq": "4"}, {"seq": 6}])]
    [3, 6]
    """
    taken: list[tuple[int, dict[str, Any]]] = []
    last = delivered
    for event in events:
        seq = event.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool) and seq > last:
            taken.append((seq, event))
            last = seq
    return taken


def heard_from(record: dict[str, int], client: str) -> int:
    """Mark ``client`` as the one heard from last in ``record`` (``{client: seq delivered}``),
    forgetting the oldest beyond :data:`MAX_CLIENTS`; returns its last delivered seq."""
    delivered = record.pop(client, 0)
    record[client] = delivered
    while len(record) > MAX_CLIENTS:
        del record[next(iter(record))]
    return delivered


def _record(key: str) -> dict[str, int]:
    registry = st.session_state.setdefault(DELIVERED_STATE_KEY, {})
    return registry.setdefault(key, {})


def acknowledgement(key: str) -> dict[str, Any]:
    """``{"client", "acked"}`` for component ``key``'s data: the client heard from last and the
    highest seq delivered for it (``{"client": "", "acked": 0}`` before any)."""
    record = st.session_state.get(DELIVERED_STATE_KEY, {}).get(key, {})
    if not record:
        return {"client": "", "acked": 0}
    client = next(reversed(record))
    return {"client": client, "acked": record[client]}


def trigger_payload(key: str) -> Any:
    """The current ``events`` trigger value of component ``key`` (None outside its run)."""
    try:
        state = st.session_state[key]
    except KeyError:
        return None
    getter = getattr(state, "get", None)
    return getter(TRIGGER) if callable(getter) else None


def deliver_new_events(
    key: str, payload: Any, parse: Callable[[dict[str, Any]], T | None], deliver: Callable[[T], None]
) -> None:
    """Hand each event of ``payload`` not delivered before, parsed, to ``deliver``, in order.

    An event ``parse`` rejects (returns None for) is recorded all the same, so the component
    stops re-sending it. Each event is recorded once ``deliver`` has returned.
    """
    batch = checked_batch(payload)
    if batch is None:
        return
    record = _record(key)
    client = batch["client"]
    for seq, event in new_events(heard_from(record, client), batch["events"]):
        parsed = parse(event)
        if parsed is not None:
            deliver(parsed)
        record[client] = seq


def first_new_event(key: str, payload: Any, parse: Callable[[dict[str, Any]], T | None]) -> T | None:
    """The oldest event of ``payload`` not delivered before, parsed (return-value path).

    Only that one (and any rejected before it) is recorded as delivered; the component re-sends
    the others, which the next runs return one by one.
    """
    batch = checked_batch(payload)
    if batch is None:
        return None
    record = _record(key)
    client = batch["client"]
    for seq, event in new_events(heard_from(record, client), batch["events"]):
        record[client] = seq
        parsed = parse(event)
        if parsed is not None:
            return parsed
    return None


def make_callback(
    key: str,
    parse: Callable[[dict[str, Any]], T | None],
    on_change: Callable[[T], None] | None,
) -> Callable[[], None]:
    """The ``on_events_change`` callback for a mount: delivers new events to ``on_change``.

    Without ``on_change`` the callback does nothing (delivery happens through the return
    value), but it is still registered: Streamlit only reports a trigger's value for names
    that have a callback.
    """

    def _callback() -> None:
        if on_change is not None:
            deliver_new_events(key, trigger_payload(key), parse, on_change)

    return _callback
