"""The open project survives a reload: it is in the URL (``?project=<id>``) on every page and
remembered per user; a ``?project=`` that names no project says so in one line. The buttons
that write into the project name it, and a click drawn for another project writes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotation.services.accounts import preferences
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from db.models import Sample
from page_helpers import run, shown, successes, text_records
from ui.session import PROJECT_KEY

PICKER = "auth.project_picker"
TEXTS = b"The bakery opens at seven.\nThe bridge is closed for repairs until May.\n"


@pytest.fixture
def pilot(db, lead, demo):  # type: ignore[no-untyped-def]
    """A second project, "Pilot 2", beside the demo project (the first one)."""
    return projects.create_project(db, lead, "Pilot 2")


def _open(at, page: str = "screens/projects.py"):  # type: ignore[no-untyped-def]
    at.switch_page(page)
    return run(at)


def _n_samples(db, project_id: int) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(Sample).where(Sample.project_id == project_id))


def _open_project(at) -> str:
    """The project the Projects page imports into, from its heading."""
    (heading,) = [h.value for h in at.subheader if h.value.startswith("Import texts into")]
    return shown(heading).removeprefix("Import texts into “").removesuffix("”")


def _choose(at, project_id: int):  # type: ignore[no-untyped-def]
    at.sidebar.selectbox(key=PICKER).set_value(project_id)
    return run(at)


def test_the_chosen_project_is_in_the_url_and_a_reload_keeps_it(make_app, db, lead, demo, pilot):
    at = _open(run(make_app(lead)))
    assert _open_project(at) == "Demo project" and at.query_params["project"] == str(demo.id)
    _choose(at, pilot.id)
    assert _open_project(at) == "Pilot 2"
    assert at.query_params["project"] == str(pilot.id)

    # F5: a new session of the same user with the same URL; the URL wins over the stored choice
    preferences.set_preferences(db, lead, last_project_id=demo.id)
    again = make_app(lead)
    again.query_params["project"] = str(pilot.id)
    _open(again)
    assert _open_project(again) == "Pilot 2"
    assert again.sidebar.selectbox(key=PICKER).value == pilot.id
    assert again.query_params["project"] == str(pilot.id)
    assert not again.warning
    # and the next import goes where the page says
    again.file_uploader(key="projects.upload").set_value(("two.txt", TEXTS, "text/plain"))
    run(again)
    button = again.button(key=f"projects.import.{pilot.id}")
    assert button.label == "Import 2 texts into Pilot 2"
    button.click()
    run(again)
    assert successes(again)[0].startswith("Imported 2 texts into Pilot 2 ")
    assert (_n_samples(db, pilot.id), _n_samples(db, demo.id)) == (2, 50)


def test_a_new_session_without_the_url_opens_the_remembered_project(make_app, db, lead, demo, pilot):
    _choose(_open(run(make_app(lead))), pilot.id)
    assert preferences.get_preferences(db, lead).last_project_id == pilot.id

    fresh = _open(run(make_app(lead)))  # a new tab at the app's address: no ?project=
    assert _open_project(fresh) == "Pilot 2"
    assert fresh.sidebar.selectbox(key=PICKER).value == pilot.id
    assert fresh.query_params["project"] == str(pilot.id)
    # a remembered project that was deleted since falls back to the first one
    preferences.set_preferences(db, lead, last_project_id=4242)
    gone = _open(run(make_app(lead)))
    assert _open_project(gone) == "Demo project" and not gone.warning


@pytest.mark.parametrize("value", ["4242", "abc", "-1", "0", "2.0", "", "1" * 30, "x" * 60])
def test_a_bad_project_in_the_url_says_so_in_one_line_and_falls_back(make_app, db, lead, demo, pilot,
                                                                       value):
    preferences.set_preferences(db, lead, last_project_id=pilot.id)
    at = make_app(lead)
    at.query_params["project"] = value
    run(at)  # the app's address: `/` opens My queue
    assert [t.value for t in at.title] == ["My queue"]
    shown_value = value if len(value) <= 40 else value[:39] + "…"
    assert [shown(w.value) for w in at.warning] == [
        f"The link names project “{shown_value}”, which does not exist or is not open to you; "
        f"here is Pilot 2."]
    assert at.query_params["project"] == str(pilot.id)  # the remembered project
    _open(at)  # said once
    assert not at.warning and _open_project(at) == "Pilot 2"


def test_a_rerun_that_still_carries_the_previous_url_does_not_switch_back(make_app, lead, demo,
                                                                           pilot):
    """Right after a switch the browser can ask for a rerun (a click) with the URL it had before
    the switch's run rewrote it (seen in Chromium): the session's project stands."""
    at = _choose(_open(run(make_app(lead))), pilot.id)
    at.query_params["project"] = str(demo.id)
    run(at)
    assert _open_project(at) == "Pilot 2" and at.session_state[PROJECT_KEY] == pilot.id
    assert at.query_params["project"] == str(pilot.id)
    assert at.sidebar.selectbox(key=PICKER).value == pilot.id and not at.warning


def test_moving_to_another_page_keeps_the_project(make_app, db, lead, demo, pilot):
    at = _choose(_open(run(make_app(lead))), pilot.id)
    at.query_params.clear()  # a page change in the browser drops the query string
    _open(at, "screens/queue.py")
    assert at.query_params["project"] == str(pilot.id)
    _open(at, "screens/projects.py")
    assert _open_project(at) == "Pilot 2" and at.query_params["project"] == str(pilot.id)


def test_the_project_and_the_workbench_parameter_coexist(make_app, db, admin, ann, demo):
    other = projects.create_project(db, admin, "Second")
    text_imports.import_texts(db, admin, other.id, text_records(2))
    there = queue.next_item(db, ann, other.id)
    at = make_app(ann)
    at.query_params.update(project=str(demo.id), annotation=str(there.annotation_id))
    _open(at, "screens/workbench.py")
    # the annotation's project wins over the URL's: the workbench switched, the URL follows
    assert at.session_state[PROJECT_KEY] == other.id
    assert at.query_params == {"project": str(other.id), "annotation": str(there.annotation_id)}
    assert preferences.get_preferences(db, ann).last_project_id == other.id


def test_a_click_on_an_import_drawn_for_another_project_imports_nothing(make_app, db, lead, demo,
                                                                        pilot):
    """The browser sends the picker's newest value with a click on a button the previous run drew
    (the lead switched project and clicked at once): nothing is imported into either project, and
    the button now names the project the import would go to."""
    at = _choose(_open(run(make_app(lead))), pilot.id)
    at.file_uploader(key="projects.upload").set_value(("two.txt", TEXTS, "text/plain"))
    run(at)
    at.button(key=f"projects.import.{pilot.id}").click()
    at.sidebar.selectbox(key=PICKER).set_value(demo.id)
    run(at)
    assert not successes(at)
    assert (_n_samples(db, pilot.id), _n_samples(db, demo.id)) == (0, 50)
    assert at.button(key=f"projects.import.{demo.id}").label == "Import 2 texts into Demo project"


def test_the_settings_save_names_the_project(make_app, lead, pilot):
    at = _choose(_open(run(make_app(lead))), pilot.id)
    assert at.button(key=f"settings.{pilot.id}.save").label == "Save settings of Pilot 2"
