"""The workbench: loading the next sample, the step bar, axis labels with autosave, the stale
version conflict, submit (complete, incomplete, flagged) and the read-only view.

The two custom components (token boundaries, curve chart) cannot be clicked in AppTest; the
browser tests cover them. Here the content they would produce is seeded through the service.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.protocol import AnnotationContent
from annotation.services import projects, queue
from db.models import Annotation
from page_helpers import (
    complete_content,
    errors,
    infos,
    metric_values,
    run,
    sample_header,
    titles,
)

STEP_LABELS = ["1. Segmentation", "2. Axis labels", "3. Validity curve"]


@pytest.fixture
def demo(db, admin):
    return projects.load_demo_project(db, admin)


@pytest.fixture
def ann(make_user):
    return make_user("ann")


@pytest.fixture
def open_workbench(make_app, ann, demo):
    """Factory: the app signed in as the annotator, on the workbench."""

    def _open():
        at = run(make_app(ann))
        at.switch_page("screens/workbench.py")
        return run(at)

    return _open


def _row(db, annotation_id: int) -> Annotation:
    with db.read() as s:
        return s.get(Annotation, annotation_id)


def _submitted(db) -> list[Annotation]:
    with db.read() as s:
        return list(s.scalars(select(Annotation).where(Annotation.status == "submitted")))


def _step_buttons(at):
    return [at.button(key=f"wb.stepbar.{i}") for i in range(3)]


def _current_step(at) -> int:
    """The highlighted (primary) step of the step bar."""
    primary = [i for i, b in enumerate(_step_buttons(at)) if b.proto.type == "primary"]
    assert len(primary) == 1
    return primary[0]


def _axis_control(at, item):
    return at.button_group(key=f"wb.w.{item.annotation_id}.axis.0.{item.n_tokens}")


def _confirm(at, trigger_key: str):
    """Press the open dialog's Submit button.

    In a browser a button inside ``st.dialog`` reruns only the dialog (a fragment). AppTest has
    no fragment reruns: it reruns the whole page, where the dialog is drawn only when the button
    that opened it is pressed in that run. So the opening button is pressed again in the same run
    as the dialog's own button — the dialog body then runs with the same state as in a browser.
    """
    confirm = at.button(key="wb.confirm_submit")
    assert confirm.label == "Submit"
    at.button(key=trigger_key).click()
    confirm.click()
    return run(at)


def _item(at):
    return at.session_state["wb.item"]


def _seed_draft(db, ann, demo, content: AnnotationContent, step: int = 2):
    """Hand the annotator the next sample and save ``content`` as its draft (as the page would)."""
    item = queue.next_item(db, ann, demo.id)
    return queue.save_draft(db, ann, item.annotation_id, item.version, content, step=step)


# --- loading and the step bar ---------------------------------------------------------------------

def test_loads_the_next_sample(open_workbench, db):
    at = open_workbench()
    assert sample_header(at) == "Sample B1-0001"
    assert [b.label for b in _step_buttons(at)] == STEP_LABELS
    assert _current_step(at) == 0
    assert metric_values(at)["Submitted today"] == "0 / 70"
    item = _item(at)
    assert item.external_id == "B1-0001" and item.version == 1
    assert _row(db, item.annotation_id).status == "draft"
    # step 1 draws the segmentation tools around the component
    assert at.button(key="wb.reset_segments").disabled  # one segment: nothing to reset
    assert "1 segment" in [c.value for c in at.caption]
    assert at.button(key="wb.back").disabled and not at.button(key="wb.next").disabled


def test_step_bar_moves_between_steps_and_saves_the_step(open_workbench, db):
    at = open_workbench()
    aid = _item(at).annotation_id

    at.button(key="wb.stepbar.1").click()
    run(at)
    assert _current_step(at) == 1
    assert _axis_control(at, _item(at)).value is None
    assert at.expander[0].label == "Key questions for the eight axes"

    at.button(key="wb.stepbar.2").click()
    run(at)
    assert _current_step(at) == 2
    assert "No curve yet: place at least 3 points." in infos(at)
    assert at.button(key="wb.next").disabled

    at.button(key="wb.stepbar.0").click()
    run(at)
    assert _current_step(at) == 0
    assert at.button(key="wb.reset_segments")

    # Next step / Back buttons do the same
    at.button(key="wb.next").click()
    run(at)
    assert _current_step(at) == 1
    at.button(key="wb.back").click()
    run(at)
    assert _current_step(at) == 0

    row = _row(db, aid)
    assert row.step == 0 and row.version > 1  # each step change was saved as a draft


def test_choosing_an_axis_saves_the_draft(open_workbench, db):
    at = open_workbench()
    at.button(key="wb.stepbar.1").click()
    run(at)
    item = _item(at)
    before = _row(db, item.annotation_id)
    assert before.segment_axes == [None] and before.step == 1

    _axis_control(at, item).set_value("main")
    run(at)
    after = _row(db, item.annotation_id)
    assert after.version == before.version + 1
    assert after.segment_axes == ["main"]
    assert after.status == "draft"
    assert _item(at).version == after.version
    assert _axis_control(at, _item(at)).value == "main"
    # the Submit button's help now only names the missing curve
    assert at.button(key="wb.submit").help == "Curve: place 3 to 5 points (now 0)."

    # clearing the choice is saved too
    _axis_control(at, _item(at)).set_value(None)
    run(at)
    assert _row(db, item.annotation_id).segment_axes == [None]
    assert _row(db, item.annotation_id).version == after.version + 1


def test_stale_version_shows_the_conflict_and_loads_the_newer_version(open_workbench, db, ann):
    at = open_workbench()
    at.button(key="wb.stepbar.1").click()
    run(at)
    item = _item(at)
    # another tab saves newer work behind the page's back
    newer = queue.save_draft(db, ann, item.annotation_id, item.version,
                             AnnotationContent(segment_axes=("static",)), step=1)

    _axis_control(at, item).set_value("main")
    run(at)
    message = ("This sample was saved from another tab or window after you opened it "
               f"(version {newer.version}, yours {item.version}). "
               "Reload to continue with the newer work.")
    assert errors(at) == [message]
    reload_button = at.button(key="wb.reload")
    assert reload_button.label == "Load the newer version"
    assert not [b for b in at.button if b.key == "wb.submit"]  # the page stops at the conflict
    row = _row(db, item.annotation_id)
    assert (row.version, row.segment_axes) == (newer.version, ["static"])  # nothing overwritten

    reload_button.click()
    run(at)
    assert not errors(at)
    assert _item(at).version == newer.version
    assert at.session_state["wb.content"].segment_axes == ("static",)
    assert _axis_control(at, _item(at)).value == "static"

    # and editing goes on from the newer version
    _axis_control(at, _item(at)).set_value("generic")
    run(at)
    row = _row(db, item.annotation_id)
    assert (row.version, row.segment_axes) == (newer.version + 1, ["generic"])


# --- the curve step around the chart ----------------------------------------------------------------

def test_curve_step_with_points_shows_the_fit_and_fine_tuning(make_app, db, ann, demo):
    saved = _seed_draft(db, ann, demo, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert _current_step(at) == 2
    assert len(at.success) == 1  # the curve described in words
    aid = saved.annotation_id
    xi = at.number_input(key=f"wb.w.{aid}.xi")
    assert xi.value == pytest.approx(round(saved.content.xi, 2))
    assert at.button(key="wb.refit").disabled  # fitted, not tuned by hand

    xi.set_value(round(saved.content.xi, 2) + 1.0)
    run(at)
    row = _row(db, aid)
    assert row.params_source == "manual"
    assert row.xi == pytest.approx(round(saved.content.xi, 2) + 1.0)
    assert "parameters tuned by hand" in " ".join(c.value for c in at.caption)

    at.button(key="wb.refit").click()
    run(at)
    row = _row(db, aid)
    assert row.params_source == "fit"
    assert row.xi == pytest.approx(saved.content.xi)


# --- submit ---------------------------------------------------------------------------------------

def test_submit_complete_annotation_moves_to_the_next_sample(make_app, db, ann, demo):
    saved = _seed_draft(db, ann, demo, complete_content(), step=2)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert sample_header(at) == "Sample B1-0001"
    submit = at.button(key="wb.submit")
    assert not submit.disabled
    assert submit.help == "Submit the finished annotation"

    submit.click()
    run(at)
    confirm = at.button(key="wb.confirm_submit")  # the dialog
    assert confirm.label == "Submit"
    assert "1 segments: Main" in [m.value for m in at.markdown]
    assert not _submitted(db)  # opening the dialog stores nothing

    _confirm(at, "wb.submit")
    stored = _submitted(db)
    assert [a.id for a in stored] == [saved.annotation_id]
    assert stored[0].segment_axes == ["main"] and len(stored[0].points) == 5
    assert stored[0].xi is not None and stored[0].flags == []
    # the page moved on to the next sample
    assert sample_header(at) == "Sample B1-0002"
    assert _item(at).annotation_id != saved.annotation_id
    assert metric_values(at)["Submitted today"] == "1 / 70"


def test_submit_with_missing_parts_shows_the_problems_and_stores_nothing(open_workbench, db):
    at = open_workbench()
    at.button(key="wb.submit").click()
    run(at)
    assert errors(at) == ["Axis labels: segment 1 still needs an axis.",
                          "Curve: place 3 to 5 points (now 0)."]
    assert not [b for b in at.button if b.key == "wb.confirm_submit"]
    assert not _submitted(db)
    assert _row(db, _item(at).annotation_id).status == "draft"


def test_flag_other_needs_a_note(open_workbench, db):
    at = open_workbench()
    aid = _item(at).annotation_id
    at.radio(key=f"wb.w.{aid}.flag").set_value("other")
    at.button(key="wb.flag_submit").click()
    run(at)
    assert errors(at) == ["Please explain 'Other' in the note."]
    assert not [b for b in at.button if b.key == "wb.confirm_submit"]
    assert not _submitted(db)

    at.text_area(key=f"wb.w.{aid}.flag_note").input("The text is a recipe, not a statement.")
    at.button(key="wb.flag_submit").click()
    run(at)
    assert not errors(at)
    assert "Flagged: Other (explain in the note)" in [m.value for m in at.markdown]
    assert not _submitted(db)
    _confirm(at, "wb.flag_submit")
    stored = _submitted(db)
    assert [a.id for a in stored] == [aid]
    assert stored[0].flags == ["other"]
    assert stored[0].note == "The text is a recipe, not a statement."
    assert stored[0].segment_axes == [None] and stored[0].points == []
    assert sample_header(at) == "Sample B1-0002"


def test_flag_without_note_for_a_reason_that_needs_none(open_workbench, db):
    at = open_workbench()
    aid = _item(at).annotation_id
    at.radio(key=f"wb.w.{aid}.flag").set_value("not_present_tense")
    at.button(key="wb.flag_submit").click()
    run(at)
    _confirm(at, "wb.flag_submit")
    assert [(a.id, a.flags) for a in _submitted(db)] == [(aid, ["not_present_tense"])]


def test_quota_reached_disables_submit(make_app, db, admin, ann, demo):
    projects.update_settings(db, admin, demo.id, daily_quota=1)
    first = queue.next_item(db, ann, demo.id)
    queue.submit(db, ann, first.annotation_id, first.version, complete_content())
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert sample_header(at) == "Sample B1-0002"
    assert at.button(key="wb.submit").disabled
    assert "You reached today's quota of 1. Your work is saved as a draft." in infos(at)


# --- read-only view -------------------------------------------------------------------------------

def test_submitted_annotation_opened_from_history_is_read_only(make_app, db, ann, demo):
    first = queue.next_item(db, ann, demo.id)
    done = queue.submit(db, ann, first.annotation_id, first.version, complete_content())
    at = make_app(ann)
    at.session_state["workbench.open_annotation_id"] = done.annotation_id
    run(at)
    at.switch_page("screens/workbench.py")
    at.session_state["workbench.open_annotation_id"] = done.annotation_id
    run(at)
    assert sample_header(at) == "Sample B1-0001"
    assert infos(at) == [f"Submitted {done.submitted_at:%Y-%m-%d %H:%M} UTC — submitted work cannot "
                         "be changed (a lead can reopen it)."]
    keys = {b.key for b in at.button}
    assert not keys & {"wb.submit", "wb.flag_submit", "wb.stepbar.0", "wb.next", "wb.back"}
    assert not at.button_group and not at.number_input
    before = _row(db, done.annotation_id)
    run(at)  # nothing is saved from the read-only view
    assert _row(db, done.annotation_id).version == before.version

    at.button(key="wb.next_after_view").click()
    run(at)
    assert sample_header(at) == "Sample B1-0002"
    assert "wb.submit" in {b.key for b in at.button}


def test_nothing_left_to_annotate(make_app, db, admin, ann):
    projects.create_project(db, admin, "Empty")
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    run(at)
    assert titles(at) == ["Annotate"]
    assert [s.value for s in at.success] == ["Nothing left to annotate in this project for you right now. 🎉"]


def test_opening_someone_elses_annotation_shows_a_message(make_app, db, ann, make_user, demo):
    other = make_user("other")
    theirs = queue.next_item(db, other, demo.id)
    at = run(make_app(ann))
    at.switch_page("screens/workbench.py")
    at.session_state["workbench.open_annotation_id"] = theirs.annotation_id
    run(at)
    assert errors(at) == ["That annotation does not exist or is not yours."]
    assert sample_header(at) is None
