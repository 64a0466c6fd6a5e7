"""Driving the workbench's annotation surface in AppTest: its ``view`` and its event batches.

How the surface is driven here
------------------------------
AppTest cannot click inside a custom component (v2): its JavaScript never runs. What the browser
sends, though, is plain data: the surface sets its ``events`` trigger to a batch
``{"client", "base_version", "events"}``, and Streamlit delivers it as the widget state of the
component's trigger *aggregator* — a ``json_trigger_value`` holding ``[{"event": "events",
"value": batch}]`` under the id ``$$STREAMLIT_INTERNAL_KEY_<component id>__events``. Then, before
the script body, Streamlit calls the component's ``on_events_change`` callback, which hands the
checked batch to the screen's ``on_events`` (``ui.components.annotation_surface``).
:func:`send` below builds exactly that widget state and runs the app with it (through
:func:`streamlit_internals.run_with_states`, the call ``AppTest.run`` itself makes), so the whole real path runs:
Streamlit's trigger handling, the component's payload check, the screen's callback, the service,
and the next drawing. What the surface would draw is read back from the component's element: its
``data`` is the ``view`` the screen built (:func:`view`).

AppTest has no fragment reruns (each run is a full run); the fragment path is covered in the
browser. The surface's own behaviour (keys, optimistic edits, re-sends) has its own tests.
"""

from __future__ import annotations

import json

from streamlit_internals import run_with_states, trigger_id, widget_states

#: Streamlit key prefix of the surface on the workbench (``wb.surface.<annotation id>``).
SURFACE_PREFIX = "wb.surface."


def surface(at):
    """The annotation surface element of the last run (exactly one)."""
    found = [e for e in at.get("bidi_component") if (e.key or "").startswith(SURFACE_PREFIX)]
    assert len(found) == 1, [e.key for e in at.get("bidi_component")]
    return found[0]


def view(at) -> dict:
    """The ``view`` the screen gave the surface in the last run."""
    return json.loads(surface(at).proto.json)


def send(at, events: list[dict], *, client: str | None = None, base_version: int | None = None):
    """Deliver one batch from the surface as the browser would (see the module docstring)."""
    shown_view = view(at)
    batch = {"client": shown_view["client"] if client is None else client,
             "base_version": shown_view["version"] if base_version is None else base_version,
             "events": events}
    states = widget_states(at)
    trigger = states.widgets.add()
    trigger.id = trigger_id(surface(at).proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": "events", "value": batch}])
    return run_with_states(at, states)
