"""The workbench screen around the annotation surface: which sample it loads, the ``view`` it
gives the surface, what it does with the surface's event batches, and the states around them
(stale version, quota, read-only, nothing left, URL restore, layout, confirm setting).

The surface is driven through :mod:`surface_driver` (the component's trigger, as the browser
sends it); see there why and how.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.settings import NEWEST_GUIDELINES
from annotation.content import AnnotationContent
from annotation.services.accounts import preferences
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue, workbench_events
from annotation.services.review import warmup_set
from annotation.services.errors import Busy
from db.engine import BUSY_MESSAGE
from db.models import Annotation, Sample
from surface_driver import send, surface, view
import workbench_writes
from page_helpers import (
    ask_for_work,
    complete_content,
    metric_values,
    run,
    sample_header,
    shown,
    text_records,
    titles,
    toasts,
)


@pytest.fixture
def open_workbench(make_app, ann, demo):
    """Factory: the app signed in as the annotator, on the workbench having asked for a sample
    (``ask=False``: the page merely opened), with an optional URL query."""

    def _open(query: dict[str, str] | None = None, *, ask: bool = True):
        at = run(make_app(ann))
        if ask:  # as My queue's "Start the next sample"
            ask_for_work(at)
        else:  # the page opened from the sidebar or by URL
            at.switch_page("screens/workbench.py")
        if query:
            at.query_params.update(query)
        return run(at)

    return _open


def _state(at):
    return at.session_state["wb.state"]


def _row(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)


def _submitted(db) -> list[Annotation]:
    with db.read() as s:
        return list(s.scalars(select(Annotation).where(Annotation.status == "submitted")))


def _annotations(db) -> list[Annotation]:
    with db.read() as s:
        return list(s.scalars(select(Annotation)))


def _seed_draft(db, ann, demo, content: AnnotationContent, step: int = 2):
    """Hand the annotator the next sample and save ``content`` as its draft."""
    item = queue.next_item(db, ann, demo.id)
    return workbench_writes.save_draft(db, ann, item.annotation_id, item.version, content, step=step)


def warnings(at) -> list[str]:
    return [shown(w.value) for w in at.warning]


def _notices(v: dict) -> list[tuple[str, str]]:
    return [(n["level"], n["text"]) for n in v["notices"]]


# --- loading and the view --------------------------------------------------------------------------

def test_loads_the_next_sample_and_gives_the_surface_its_view(open_workbench, db, demo):
    at = open_workbench()
    assert sample_header(at) == "Sample #1"
    assert metric_values(at)["Submitted today"] == "0 / 70"
    item = _state(at).item
    assert item.external_id == "B1-0001" and item.version == 1
    assert _row(db, item.annotation_id).status == "draft"
    assert at.query_params["annotation"] == str(item.annotation_id)

    v = view(at)
    assert surface(at).key == f"wb.surface.{item.annotation_id}"
    assert (v["annotation_id"], v["version"], v["acked"], v["step"]) == (item.annotation_id, 1, 0, 0)
    assert v["client"] == _state(at).client and len(v["client"]) == 16
    assert (v["layout"], v["confirm_submit"], v["read_only"], v["quota_reached"]) == (
        "steps", False, False, False)
    assert "".join(t + (" " if s else "") for t, s in zip(v["tokens"], v["spaces"])).strip() \
        == item.parent_text.strip()
    assert len(v["tokens"]) == item.n_tokens
    assert v["content"] == AnnotationContent().to_json()
    assert [a["digit"] for a in v["axes"]] == [str(i) for i in range(1, 9)]
    assert v["axes"][0]["name"] == "main" and v["axes"][0]["label"] == "Main"
    assert {f["code"] for f in v["flags"]} >= {"other", "no_main_timeline"}
    assert [f["needs_note"] for f in v["flags"] if f["code"] == "other"] == [True]
    assert v["curve"] == [] and v["x_max"] == 200.0
    assert (v["min_points"], v["max_points"]) == (3, 5)
    assert v["fit"] == {"message": "Place 3 more points to see the curve.", "summary": [],
                        "params": None, "residuals": None}
    assert v["problems"] == ["Axis labels: segment 1 still needs an axis.",
                             "Curve: place 3 to 5 points (now 0)."]
    assert v["notices"] == []
    assert v["sample"] == {"number": 1, "benchmark": 1, "project": demo.name,
                           "guidelines_version": NEWEST_GUIDELINES, "returned_note": "", "is_warmup": False}


def test_view_of_a_draft_with_a_curve(make_app, db, ann, demo):
    saved = _seed_draft(db, ann, demo, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    v = view(at)
    assert v["step"] == 2 and v["problems"] == []
    assert v["content"]["points"] == [list(p) for p in saved.content.points]
    assert v["fit"]["params"] == {"xi": saved.content.xi, "omega": saved.content.omega,
                                  "alpha": saved.content.alpha, "rmse": saved.content.rmse,
                                  "source": "fit"}
    assert v["fit"]["message"] is None
    assert len(v["fit"]["summary"]) == 1 and v["fit"]["summary"][0].startswith("Peaks")
    assert len(v["curve"]) > 100 and all(0 <= x <= 200 and 0 <= y <= 1 for x, y in v["curve"])
    # step 3: the comparison with other distributions sits under the surface
    assert [e.label for e in at.expander] == ["Compare with other distributions"]


# --- event batches ---------------------------------------------------------------------------------

def test_an_event_batch_is_applied_stored_and_acknowledged(open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "boundary", "gap": 3},
              {"seq": 2, "kind": "axis", "segment": 0, "axis": "main"},
              {"seq": 3, "kind": "step", "step": 1}])
    row = _row(db, item.annotation_id)
    assert row.boundaries == [0, 3] and row.segment_axes == ["main", None] and row.step == 1
    assert row.version == 2  # one batch, one version bump
    assert row.event_client == view(at)["client"] and row.event_seq == 3
    v = view(at)
    assert (v["acked"], v["version"], v["step"]) == (3, 2, 1)
    assert v["content"]["boundaries"] == [0, 3]
    assert v["problems"][0] == "Axis labels: segment 2 still needs an axis."
    assert v["notices"] == []


def test_the_same_batch_twice_is_applied_once(open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    batch = [{"seq": 1, "kind": "boundary", "gap": 2}]
    send(at, batch)
    client, version = view(at)["client"], view(at)["version"]
    send(at, batch, client=client, base_version=1)  # a re-send after a lost acknowledgement
    row = _row(db, item.annotation_id)
    assert row.version == version == 2 and row.boundaries == [0, 2]
    assert view(at)["acked"] == 1 and view(at)["version"] == 2
    # the next edit continues the same numbering
    send(at, batch + [{"seq": 2, "kind": "boundary", "gap": 2}], base_version=1)
    row = _row(db, item.annotation_id)
    assert row.boundaries == [0] and row.version == 3 and view(at)["acked"] == 2


def test_a_refused_event_is_acknowledged_and_shown_as_a_notice(open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "axis", "segment": 0, "axis": "sideways"},
              {"seq": 2, "kind": "axis", "segment": 0, "axis": "static"}])
    v = view(at)
    assert v["acked"] == 2
    assert [level for level, _ in _notices(v)] == ["warning"]
    assert "sideways" in _notices(v)[0][1]
    assert _row(db, item.annotation_id).segment_axes == ["static"]
    # the next batch's answer replaces the notices
    send(at, [{"seq": 3, "kind": "step", "step": 1}])
    assert view(at)["notices"] == []


def test_a_batch_from_another_client_of_this_tab_is_dropped(open_workbench, db):
    """A late re-send from a surface this tab no longer shows (its client was replaced) must
    not reach the draft."""
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}], client="0123456789abcdef")
    assert _row(db, item.annotation_id).version == 1
    assert view(at)["acked"] == 0


def test_points_are_fitted_and_the_fit_message_follows_the_points(open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "step", "step": 2},
              {"seq": 2, "kind": "point", "action": "add", "x": 27.6, "y": 0.77}])
    assert view(at)["fit"]["message"] == "Place 2 more points to see the curve."
    assert view(at)["curve"] == []
    events = [{"seq": 3 + i, "kind": "point", "action": "add", "x": x, "y": y}
              for i, (x, y) in enumerate([(21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2)])]
    send(at, events)
    v = view(at)
    row = _row(db, item.annotation_id)
    assert len(row.points) == 5 and row.xi is not None
    assert v["fit"]["message"] is None and v["fit"]["params"]["xi"] == row.xi
    assert v["curve"] and v["problems"] == ["Axis labels: segment 1 still needs an axis."]


# --- submit ----------------------------------------------------------------------------------------

def test_submit_moves_to_the_next_sample_in_the_same_run(make_app, db, ann, demo):
    saved = _seed_draft(db, ann, demo, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    first_client = view(at)["client"]
    send(at, [{"seq": 1, "kind": "submit", "flagged": False}])

    stored = _submitted(db)
    assert [a.id for a in stored] == [saved.annotation_id]
    assert stored[0].segment_axes == ["main"] and len(stored[0].points) == 5
    assert stored[0].xi is not None and stored[0].flags == []
    # the page shows the next sample, with a new client, the new quota and a toast
    assert sample_header(at) == "Sample #2"
    v = view(at)
    assert v["annotation_id"] != saved.annotation_id and v["client"] != first_client
    assert (v["acked"], v["version"], v["step"]) == (0, 1, 0)
    assert ("success", "Submitted your sample #1") in _notices(v)
    assert toasts(at) == ["Submitted your sample #1"]
    assert metric_values(at)["Submitted today"] == "1 / 70"
    assert at.query_params["annotation"] == str(v["annotation_id"])


def test_submit_of_an_incomplete_annotation_keeps_the_edits_and_says_what_is_missing(
        open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "axis", "segment": 0, "axis": "main"},
              {"seq": 2, "kind": "submit", "flagged": False}])
    assert not _submitted(db)
    row = _row(db, item.annotation_id)
    assert row.status == "draft" and row.segment_axes == ["main"]
    v = view(at)
    assert v["annotation_id"] == item.annotation_id and v["acked"] == 2
    assert _notices(v) == [("error", "Curve: place 3 to 5 points (now 0).")]
    assert sample_header(at) == "Sample #1"


def test_flagged_submit_with_a_note(open_workbench, db):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "flag", "flags": ["other"],
               "note": "The text is a recipe, not a statement."},
              {"seq": 2, "kind": "submit", "flagged": True}])
    stored = _submitted(db)
    assert [(a.id, a.flags, a.note) for a in stored] == [
        (item.annotation_id, ["other"], "The text is a recipe, not a statement.")]
    assert sample_header(at) == "Sample #2"


def test_quota_reached_is_in_the_view_and_a_submit_is_refused(make_app, db, admin, ann, demo):
    projects.update_settings(db, admin, demo.id, daily_quota=2)
    first = queue.next_item(db, ann, demo.id)
    workbench_writes.submit(db, ann, first.annotation_id, first.version, complete_content())
    _seed_draft(db, ann, demo, complete_content(), step=2)
    projects.update_settings(db, admin, demo.id, daily_quota=1)  # the draft is open when the quota fills
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert sample_header(at) == "Sample #2"
    v = view(at)
    assert v["quota_reached"] is True
    assert ("info", "You reached today's quota of 1. Your work is saved as a draft.") in _notices(v)
    send(at, [{"seq": 1, "kind": "submit", "flagged": False}])
    assert len(_submitted(db)) == 1
    assert [level for level, _ in _notices(view(at))] == ["error", "info"]
    assert "quota of 1" in _notices(view(at))[0][1]


def test_the_submit_that_fills_the_quota_hands_out_nothing_and_says_so_once(make_app, db, admin, ann, demo):
    """At 10 of 10 the quota notice appeared twice and sample #11 was still handed out."""
    projects.update_settings(db, admin, demo.id, daily_quota=2)
    first = queue.next_item(db, ann, demo.id)
    workbench_writes.submit(db, ann, first.annotation_id, first.version, complete_content())
    _seed_draft(db, ann, demo, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    before = len(_annotations(db))
    send(at, [{"seq": 1, "kind": "submit", "flagged": False}])
    assert len(_submitted(db)) == 2 and len(_annotations(db)) == before  # no third sample
    assert titles(at) == ["Annotate"] and not at.get("bidi_component")
    quota = [shown(s.value) for s in at.success]
    assert quota == ["You reached today's quota of 2 submissions — thank you! New samples open tomorrow."]
    assert sum("quota" in shown(e.value) for e in [*at.success, *at.info, *at.warning, *at.caption]) == 1


def test_nothing_left_after_the_last_submit(make_app, db, admin, ann):
    p = projects.create_project(db, admin, "Tiny")
    text_imports.import_texts(db, admin, p.id, text_records(1))
    item = queue.next_item(db, ann, p.id)
    workbench_writes.save_draft(db, ann, item.annotation_id, item.version, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    send(at, [{"seq": 1, "kind": "submit", "flagged": False}])
    assert [a.id for a in _submitted(db)] == [item.annotation_id]
    assert titles(at) == ["Annotate"]
    assert [shown(s.value) for s in at.success] == [
        "Nothing left to annotate in this project for you right now. 🎉"]
    assert not at.get("bidi_component")
    assert "annotation" not in at.query_params


def test_nothing_left_to_annotate(make_app, db, admin, ann):
    projects.create_project(db, admin, "Empty")
    at = run(make_app(ann))
    ask_for_work(at)
    run(at)
    assert titles(at) == ["Annotate"]
    assert [s.value for s in at.success] == ["Nothing left to annotate in this project for you right now. 🎉"]


def test_opening_annotate_hands_out_nothing_until_asked(make_app, db, ann, demo):
    """A user who merely opened Annotate got a sample assigned (a lead, a warm-up sample)."""
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert _annotations(db) == [] and titles(at) == ["Annotate"] and not at.get("bidi_component")
    assert at.button(key="wb.start").label == "Start the next sample"
    at.button(key="wb.start").click()
    run(at)
    assert len(_annotations(db)) == 1 and sample_header(at) == "Sample #1"
    assert view(at)["content"] == AnnotationContent().to_json()
    # opening it again shows the open draft, and still assigns nothing new
    again = run(make_app(ann))
    again.switch_page("screens/workbench.py")
    run(again)
    assert len(_annotations(db)) == 1 and sample_header(again) == "Sample #1"


def test_a_lead_opening_annotate_gets_no_warmup_sample(make_app, db, lead, demo):
    warm = [r.external_id for r in text_records(2)]
    text_imports.import_texts(db, lead, demo.id, text_records(2))
    warmup_set.mark_warmup(db, lead, demo.id, warm)
    with db.read() as s:
        ids = list(s.scalars(select(Sample.id).where(Sample.external_id.in_(warm))))
    for sid in ids:  # a warm-up set: warm-up samples with gold
        warmup_set.set_warmup_gold(db, lead, sid, boundaries=(0,), segment_axes=("main",),
                                   xi=60.0, omega=10.0, alpha=0.0)
    at = run(make_app(lead))
    at.switch_page("screens/workbench.py")
    run(at)
    assert _annotations(db) == [] and at.button(key="wb.start").label == "Start the next sample"
    at.button(key="wb.start").click()
    run(at)
    [a] = _annotations(db)
    with db.read() as s:
        assert s.get(Sample, a.sample_id).external_id in warm  # asked: the warm-up set first


# --- conflicts and errors --------------------------------------------------------------------------

def test_stale_version_shows_a_notice_and_loads_the_newer_version(open_workbench, db, ann):
    at = open_workbench()
    item = _state(at).item
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}])
    # another tab takes the draft over and saves newer work
    newer = workbench_events.apply_events(db, ann, item.annotation_id, "another-tab", 2,
                                          [{"seq": 1, "kind": "axis", "segment": 0, "axis": "static"}])
    send(at, [{"seq": 2, "kind": "axis", "segment": 0, "axis": "main"}], base_version=1)
    row = _row(db, item.annotation_id)
    assert (row.version, row.segment_axes) == (newer.item.version, ["static", None])  # kept
    v = view(at)
    assert v["read_only"] is True and v["read_only_reason"] == "conflict"  # edits wait for the choice
    # what happened and the way on, nothing else (it used to add "Submitted — … can no longer
    # be changed" to a draft that another tab had saved)
    [(level, text)] = _notices(v)
    assert level == "warning" and text == (f"Another tab saved newer work on this sample (version "
                                           f"{newer.item.version}; this tab has 1). Load the newer "
                                           "version to go on from it.")
    reload_button = at.button(key="wb.reload")
    assert reload_button.label == "Load the newer version"

    old_client = v["client"]
    reload_button.click()
    run(at)
    v = view(at)
    assert v["client"] != old_client and v["read_only"] is False and v["notices"] == []
    assert v["version"] == newer.item.version and v["content"]["segment_axes"] == ["static", None]
    assert not [b for b in at.button if b.key == "wb.reload"]
    # and editing goes on from the newer version under the new client
    send(at, [{"seq": 1, "kind": "axis", "segment": 1, "axis": "generic"}])
    assert _row(db, item.annotation_id).segment_axes == ["static", "generic"]


def test_a_busy_database_is_a_notice_not_a_traceback(open_workbench, db, monkeypatch):
    at = open_workbench()
    item = _state(at).item

    def busy(*args, **kwargs):
        raise Busy()

    monkeypatch.setattr(workbench_events, "apply_events", busy)
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}])
    v = view(at)
    assert _notices(v) == [("error", BUSY_MESSAGE)]
    assert v["acked"] == 0 and v["read_only"] is False  # the surface re-sends later
    assert _row(db, item.annotation_id).version == 1
    monkeypatch.undo()
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}])
    assert view(at)["acked"] == 1 and view(at)["notices"] == []


# --- read-only, URL restore ------------------------------------------------------------------------

def test_submitted_annotation_opened_from_my_queue_is_read_only(make_app, db, ann, demo):
    first = queue.next_item(db, ann, demo.id)
    done = workbench_writes.submit(db, ann, first.annotation_id, first.version, complete_content())
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    at.session_state["workbench.open_annotation_id"] = done.annotation_id
    run(at)
    assert sample_header(at) == "Sample #1"
    v = view(at)
    assert v["read_only"] is True and v["problems"] == []
    assert v["content"]["segment_axes"] == ["main"]
    assert _notices(v) == [("info", f"Submitted {done.submitted_at:%Y-%m-%d %H:%M} UTC — submitted "
                                    "work cannot be changed (a lead can reopen it).")]
    before = _row(db, done.annotation_id).version
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}])  # nothing is saved from the view
    assert _row(db, done.annotation_id).version == before

    at.button(key="wb.next_after_view").click()
    run(at)
    assert sample_header(at) == "Sample #2"
    assert view(at)["read_only"] is False


def test_reload_returns_to_the_same_sample_and_step(make_app, db, ann, demo):
    """A new browser session (a reload) with ?annotation=<id> opens that draft at its step."""
    first = queue.next_item(db, ann, demo.id)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    send(at, [{"seq": 1, "kind": "boundary", "gap": 2}, {"seq": 2, "kind": "step", "step": 1}])
    url = dict(at.query_params)
    assert url == {"project": str(demo.id), "annotation": str(first.annotation_id)}  # both kept

    again = make_app(ann)
    again.switch_page("screens/workbench.py")
    again.query_params["annotation"] = str(first.annotation_id)
    run(again)
    v = view(again)
    assert v["annotation_id"] == first.annotation_id and v["step"] == 1
    assert v["content"]["boundaries"] == [0, 2]
    assert v["client"] != view(at)["client"]  # a new tab numbers its own edits
    send(again, [{"seq": 1, "kind": "step", "step": 2}])  # and takes the draft over
    assert _row(db, first.annotation_id).step == 2


def test_a_url_naming_a_submitted_annotation_opens_it_read_only(make_app, db, ann, demo):
    first = queue.next_item(db, ann, demo.id)
    done = workbench_writes.submit(db, ann, first.annotation_id, first.version, complete_content())
    at = make_app(ann)
    at.switch_page("screens/workbench.py")
    at.query_params["annotation"] = str(done.annotation_id)
    run(at)
    assert view(at)["annotation_id"] == done.annotation_id and view(at)["read_only"] is True


@pytest.mark.parametrize("param", ["abc", "12x", "-3", "٣", "99999999999999999999"])
def test_a_url_that_names_no_annotation_says_so_and_hands_out_nothing(open_workbench, db, param):
    at = open_workbench({"annotation": param}, ask=False)
    assert warnings(at) == [f"“{param}” does not name an annotation."]
    assert _annotations(db) == [] and at.button(key="wb.start").label == "Start the next sample"
    assert "annotation" not in at.query_params
    at.button(key="wb.start").click()
    run(at)
    assert sample_header(at) == "Sample #1"
    assert at.query_params["annotation"] == str(_state(at).item.annotation_id)


def test_a_url_naming_someone_elses_annotation_opens_the_next_sample(open_workbench, db, make_user,
                                                                    demo):
    other = make_user("other")
    theirs = queue.next_item(db, other, demo.id)
    at = open_workbench({"annotation": str(theirs.annotation_id)})
    assert warnings(at) == ["That annotation does not exist or is not yours."]
    assert sample_header(at) == "Sample #1"  # asked for work: k = 2, their sample, ann's own draft
    assert _state(at).item.annotation_id != theirs.annotation_id
    assert at.query_params["annotation"] == str(_state(at).item.annotation_id)


def test_a_url_naming_an_annotation_of_another_project_switches_the_project(make_app, db, admin,
                                                                           ann, demo):
    other = projects.create_project(db, admin, "Second")
    text_imports.import_texts(db, admin, other.id, text_records(2))
    there = queue.next_item(db, ann, other.id)
    at = make_app(ann)
    at.switch_page("screens/workbench.py")
    at.query_params["annotation"] = str(there.annotation_id)
    run(at)
    assert view(at)["annotation_id"] == there.annotation_id
    assert view(at)["sample"]["project"] == "Second"
    assert at.session_state["auth.project_id"] == other.id


# --- settings and preferences ----------------------------------------------------------------------

def test_the_confirm_setting_is_passed_to_the_surface(make_app, db, admin, ann, demo):
    projects.update_settings(db, admin, demo.id, confirm_submit=True)
    at = run(make_app(ann))
    ask_for_work(at)
    run(at)
    assert view(at)["confirm_submit"] is True


def test_the_layout_preference_is_stored_and_passed_to_the_surface(open_workbench, db, ann):
    at = open_workbench()
    toggle = at.toggle(key="wb.layout_toggle")
    assert toggle.label == "Single-screen layout" and toggle.value is False
    assert view(at)["layout"] == "steps"
    toggle.set_value(True)
    run(at)
    assert preferences.get_preferences(db, ann).workbench_layout == "single"
    assert view(at)["layout"] == "single"
    assert at.toggle(key="wb.layout_toggle").value is True


def test_a_layout_chosen_on_the_account_page_reaches_the_workbench(make_app, db, ann, demo):
    preferences.set_preferences(db, ann, workbench_layout="single")
    at = run(make_app(ann))
    ask_for_work(at)
    run(at)
    assert view(at)["layout"] == "single"


def test_a_sample_sent_back_shows_the_leads_note_literally(make_app, db, ann, demo):
    at = run(make_app(ann))
    ask_for_work(at)
    run(at)
    item = _state(at).item
    note = "Re-check *segment 2* — [see](http://x) :red[now]"
    with db.write() as s:
        s.get(Annotation, item.annotation_id).returned_note = note
    fresh = make_app(ann)
    fresh.switch_page("screens/workbench.py")
    fresh.query_params["annotation"] = str(item.annotation_id)
    run(fresh)
    assert warnings(fresh) == [f"A lead sent this sample back to you: {note}"]
    assert view(fresh)["sample"]["returned_note"] == note
