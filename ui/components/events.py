"""Exactly-once delivery of user actions from our custom components (Streamlit CCv2).

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

The protocol here makes delivery exactly-once on top of that:

1. The component keeps a queue of its not-yet-acknowledged actions, each with a unique ``id``,
   and sends the **whole queue** as the value of the single trigger ``"events"``. A later
   payload therefore carries every earlier action that may have been merged away.
2. Python delivers only the actions whose id it has not delivered before (recorded per
   component key in ``st.session_state``), in order, and sends the delivered ids back to the
   component in ``data["ack"]``.
3. The component drops acknowledged actions from its queue and re-sends the rest after a short
   delay (an action can be pending when its rerun was superseded). The delay doubles while
   nothing is acknowledged (1.2 s, 2.4 s, 4.8 s, then every 8 s) and the queue is never dropped:
   a fixed short re-send restarted every run slower than it on a loaded server (a new trigger
   stops the running script), so nothing was ever acknowledged, and the old give-up after six
   tries then silently lost a chart click. While an action is pending
   the component draws its effect optimistically, so the UI never feels laggy.

Delivery paths (both exactly-once):

* ``on_change=`` callback (recommended): called once per new action, in order, *before* the
  script body — the page updates its state there and the same run draws the new data.
* return value: the oldest new action of this run (the component re-sends any others). The page
  applies it and calls ``st.rerun()`` so the component is drawn from the new data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from ui.components.sources import component_source

T = TypeVar("T")

#: Session-state key holding ``{component key: [delivered action ids, oldest first]}``.
DELIVERED_STATE_KEY = "_chronocept_component_delivered_events"
#: Trigger name every component uses for its queue of actions.
TRIGGER = "events"
#: How many delivered ids are remembered (and acknowledged) per component.
MAX_REMEMBERED = 64
#: Longest id accepted from the browser.
MAX_ID_LENGTH = 80

# JavaScript shared by every component module (the annotation surface included): when to tear
# an instance down.
INSTANCE_CLEANUP_JS = component_source("instance_cleanup.js")

# JavaScript shared by the components: the queue side of the protocol. It is put in front of each
# component's ES module (components cannot import each other's modules).
EVENT_QUEUE_JS = component_source("event_queue.js") + INSTANCE_CLEANUP_JS


def _delivered_ids(key: str) -> list[str]:
    registry = st.session_state.setdefault(DELIVERED_STATE_KEY, {})
    return registry.setdefault(key, [])


def acknowledged_ids(key: str) -> list[str]:
    """The ids of the actions already delivered for component ``key`` (to send as ``ack``)."""
    registry = st.session_state.get(DELIVERED_STATE_KEY, {})
    return list(registry.get(key, []))


def take_new_actions(
    key: str, payload: Any, parse: Callable[[dict[str, Any]], T | None]
) -> list[T]:
    """Return the actions in ``payload`` not delivered before, parsed, in order, and record
    their ids as delivered.

    ``payload`` is the trigger value sent by the component: a list of ``{"id": str, ...}``.
    Anything else, actions without a usable id, and actions ``parse`` rejects (returns None
    for) are skipped; rejected ones are still recorded so the component stops re-sending them.
    """
    if not isinstance(payload, list):
        return []
    delivered = _delivered_ids(key)
    seen = set(delivered)
    new: list[T] = []
    for action in payload:
        if not isinstance(action, dict):
            continue
        action_id = action.get("id")
        if not isinstance(action_id, str) or not action_id or len(action_id) > MAX_ID_LENGTH:
            continue
        if action_id in seen:
            continue
        seen.add(action_id)
        delivered.append(action_id)
        parsed = parse(action)
        if parsed is not None:
            new.append(parsed)
    if len(delivered) > MAX_REMEMBERED:
        del delivered[: len(delivered) - MAX_REMEMBERED]
    return new


def trigger_payload(key: str) -> Any:
    """The current ``events`` trigger value of component ``key`` (None outside its run)."""
    try:
        state = st.session_state[key]
    except KeyError:
        return None
    getter = getattr(state, "get", None)
    return getter(TRIGGER) if callable(getter) else None


def make_callback(
    key: str,
    parse: Callable[[dict[str, Any]], T | None],
    on_change: Callable[[T], None] | None,
) -> Callable[[], None]:
    """The ``on_events_change`` callback for a mount: delivers new actions to ``on_change``.

    Without ``on_change`` the callback does nothing (delivery happens through the return
    value), but it is still registered: Streamlit only reports a trigger's value for names
    that have a callback.
    """

    def _callback() -> None:
        if on_change is None:
            return
        for action in take_new_actions(key, trigger_payload(key), parse):
            on_change(action)

    return _callback


def first_new_action(
    key: str, payload: Any, parse: Callable[[dict[str, Any]], T | None]
) -> T | None:
    """The oldest not-yet-delivered action in ``payload`` (return-value delivery path).

    Only that one is recorded as delivered; the component re-sends the others, which the next
    runs return one by one.
    """
    if not isinstance(payload, list):
        return None
    delivered = set(acknowledged_ids(key))
    for action in payload:
        if (
            isinstance(action, dict)
            and isinstance(action.get("id"), str)
            and action["id"] not in delivered
        ):
            taken = take_new_actions(key, [action], parse)
            if taken:
                return taken[0]
    return None
