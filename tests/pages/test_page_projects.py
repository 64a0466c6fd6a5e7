"""Projects & texts (lead): create, demo project, import with preview, settings."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import demo_projects
from annotation.settings import ProjectSettings
from db.models import Project, Sample
from page_helpers import PASSWORD, errors, nav_titles, run, shown, successes, titles, toasts
from ui.session import PROJECT_KEY

CREATE = "FormSubmitter:projects.create-Create project"


@pytest.fixture
def open_projects(make_app, lead):
    def _open():
        at = run(make_app(lead))
        at.switch_page("screens/projects.py")
        return run(at)

    return _open


def _project_names(db) -> list[str]:
    with db.read() as s:
        return list(s.scalars(select(Project.name).order_by(Project.id)))


def _n_samples(db, project_id: int) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(Sample).where(Sample.project_id == project_id))


def _create(at, name: str, description: str = ""):
    at.text_input(key="projects.new_name").input(name)
    at.text_area(key="projects.new_description").input(description)
    at.button(key=CREATE).click()
    return run(at)


def _setting(at, name: str) -> str:
    """Key of a settings widget: keyed by the project shown (see the project switch test)."""
    return f"settings.{at.session_state[PROJECT_KEY]}.{name}"


def _subheaders(at) -> list[str]:
    return [h.value for h in at.subheader]


def test_empty_page_offers_create_and_demo(open_projects):
    at = open_projects()
    assert titles(at) == ["Projects & texts"]
    assert not at.dataframe
    assert at.button(key="projects.demo").label == "Load the demo project"
    assert not at.file_uploader  # no project yet: nothing to import into
    assert not _subheaders(at)


def test_create_project(open_projects, db):
    at = _create(open_projects(), "  Pilot study ", "First round")
    assert not errors(at)
    assert _project_names(db) == ["Pilot study"]
    with db.read() as s:
        project = s.scalar(select(Project))
    assert project.description == "First round"
    assert at.session_state[PROJECT_KEY] == project.id
    table = at.dataframe[0].value
    assert list(table["project"]) == ["Pilot study"] and list(table["texts"]) == [0]
    assert "Import texts into “Pilot study”" in _subheaders(at)
    assert toasts(at) == ["Created the project Pilot study"]  # it confirmed nothing (issue 22)


def test_duplicate_project_name_is_refused(open_projects, db, lead):
    projects.create_project(db, lead, "Pilot study")
    at = _create(open_projects(), "Pilot study")
    assert errors(at) == ["A project called 'Pilot study' already exists."]
    assert _project_names(db) == ["Pilot study"]


def test_empty_project_name_is_refused(open_projects, db):
    at = _create(open_projects(), "   ")
    assert errors(at) == ["A project name is 1–128 characters."]
    assert _project_names(db) == []


def test_load_demo_project(open_projects, db):
    at = open_projects()
    at.button(key="projects.demo").click()
    run(at)
    assert _project_names(db) == [demo_projects.DEMO_PROJECT_NAME]
    pid = at.session_state[PROJECT_KEY]
    assert _n_samples(db, pid) == len(demo_projects.demo_records())
    table = at.dataframe[0].value
    assert list(table["texts"]) == [len(demo_projects.demo_records())]
    # loading it again adds nothing
    at.button(key="projects.demo").click()
    run(at)
    assert _project_names(db) == [demo_projects.DEMO_PROJECT_NAME]
    assert _n_samples(db, pid) == len(demo_projects.demo_records())


def test_settings_reject_an_invalid_time_zone(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    assert at.text_input(key=_setting(at, "tz")).value == "UTC"
    at.text_input(key=_setting(at, "tz")).input("Mars/Olympus_Mons")
    at.number_input(key=_setting(at, "quota")).set_value(5)
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert errors(at) == ["unknown time zone 'Mars/Olympus_Mons'"]
    assert projects.get_project(db, lead, p.id).settings == ProjectSettings()  # nothing changed


def test_settings_refuse_a_guidelines_version_longer_than_its_column(open_projects, db, lead):
    """PostgreSQL would store it in the settings and then refuse every hand-out that copies it."""
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    at.text_input(key=_setting(at, "guidelines")).input("2.0 (revised after the pilot, March)")
    at.number_input(key=_setting(at, "quota")).set_value(5)
    at.button(key=_setting(at, "save")).click()
    run(at)  # no exception on the page
    assert errors(at) == ["The guidelines version can be at most 32 characters (yours has 36)."]
    assert projects.get_project(db, lead, p.id).settings == ProjectSettings()  # nothing changed


def test_settings_save_valid_values(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    at.number_input(key=_setting(at, "k")).set_value(3)
    at.number_input(key=_setting(at, "quota")).set_value(25)
    at.text_input(key=_setting(at, "tz")).input(" Europe/Berlin ")
    at.number_input(key=_setting(at, "base")).set_value(2.0)
    at.text_input(key=_setting(at, "guidelines")).input("1.1")
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    s = projects.get_project(db, lead, p.id).settings
    assert (s.annotators_per_sample, s.daily_quota, s.quota_timezone, s.log_base,
            s.guidelines_version) == (3, 25, "Europe/Berlin", 2.0, "1.1")
    # the page shows the stored values
    assert at.number_input(key=_setting(at, "quota")).value == 25
    assert at.number_input(key=_setting(at, "k")).value == 3
    table = at.dataframe[0].value
    assert (list(table["k"]), list(table["daily quota"])) == ([3], [25])
    assert toasts(at) == ["Settings of Pilot saved"]  # it confirmed nothing (issue 22)
    assert toasts(run(at)) == []  # once


def test_settings_save_the_deviation_flags_fixed_thresholds(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    xi = at.number_input(key=_setting(at, "flag_xi"))
    assert xi.label == "While σ is thin, flag when ξ differs by more than (log-time units)"
    assert (xi.value, at.number_input(key=_setting(at, "flag_omega")).value,
            at.number_input(key=_setting(at, "flag_alpha")).value) == (12.0, 15.0, 10.0)
    xi.set_value(8.0)
    at.number_input(key=_setting(at, "flag_omega")).set_value(6.5)
    at.number_input(key=_setting(at, "flag_alpha")).set_value(4.0)
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    s = projects.get_project(db, lead, p.id).settings
    assert (s.flag_xi_max, s.flag_omega_max, s.flag_alpha_max) == (8.0, 6.5, 4.0)
    assert at.number_input(key=_setting(at, "flag_omega")).value == 6.5


def test_confirm_before_submit_is_off_by_default_and_can_be_turned_on(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    box = at.checkbox(key=_setting(at, "confirm_submit"))
    assert box.label == "Ask “Submit this annotation?” before each submit"
    assert box.value is False
    box.check()
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    assert projects.get_project(db, lead, p.id).settings.confirm_submit is True
    assert at.checkbox(key=_setting(at, "confirm_submit")).value is True
    # and off again
    at.checkbox(key=_setting(at, "confirm_submit")).uncheck()
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert projects.get_project(db, lead, p.id).settings.confirm_submit is False


def test_the_third_annotator_and_its_width_threshold_are_saved(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    box = at.checkbox(key=_setting(at, "third"))
    assert box.label == "Ask a third annotator before a lead" and box.value is False
    assert at.number_input(key=_setting(at, "third_sd")).value == 10.0
    box.check()
    at.number_input(key=_setting(at, "third_sd")).set_value(7.5)
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    s = projects.get_project(db, lead, p.id).settings
    assert (s.third_annotator, s.third_annotator_sd_max) == (True, 7.5)
    assert at.checkbox(key=_setting(at, "third")).value is True


def test_import_preview_and_import(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    lines = [
        {"id": "X-1", "text": "The museum is closed on Mondays."},
        {"text": "The river floods every spring. Farmers move their herds uphill in March."},
        {"text": "Tickets for tonight's concert are sold out.", "benchmark": 1},
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode()
    at = open_projects()
    assert at.file_uploader(key="projects.upload").allowed_type == [".jsonl", ".json", ".ndjson", ".csv", ".txt"]
    at.file_uploader(key="projects.upload").set_value(("texts.jsonl", data, "application/jsonl"))
    run(at)
    assert "**Preview** — 3 texts" in [m.value for m in at.markdown]
    preview = at.dataframe[1].value
    assert list(preview["id"]) == ["X-1", "(new)", "(new)"]
    assert list(preview["benchmark"]) == [1, 2, 1]
    assert _n_samples(db, p.id) == 0  # a preview imports nothing

    assert at.button(key=f"projects.import.{p.id}").label == "Import 3 texts into Pilot"
    at.button(key=f"projects.import.{p.id}").click()
    run(at)
    assert successes(at) == ["Imported 3 texts into Pilot (2 benchmark 1, 1 benchmark 2); 0 were already in the project."]
    assert _n_samples(db, p.id) == 3

    # the same file again adds nothing
    at.button(key=f"projects.import.{p.id}").click()
    run(at)
    assert successes(at) == ["Imported 0 texts into Pilot (0 benchmark 1, 0 benchmark 2); 3 were already in the project."]
    assert _n_samples(db, p.id) == 3


def test_import_bad_file_shows_the_line_and_imports_nothing(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    at.file_uploader(key="projects.upload").set_value(
        ("bad.jsonl", b'{"text": "Fine text here."}\n{"text": ""}\n', "application/jsonl"))
    run(at)
    assert errors(at) == ["bad.jsonl: line 2: the text is missing or empty. Nothing will be imported."]
    assert not [b for b in at.button if (b.key or "").startswith("projects.import")]
    assert _n_samples(db, p.id) == 0


def test_project_picker_switches_the_project(open_projects, db, lead):
    first = projects.create_project(db, lead, "First")
    second = projects.create_project(db, lead, "Second")
    at = open_projects()
    assert "Import texts into “First”" in _subheaders(at)
    picker = at.sidebar.selectbox(key="auth.project_picker")
    assert picker.options == ["First", "Second"]
    picker.set_value(second.id)
    run(at)
    assert at.session_state[PROJECT_KEY] == second.id
    assert "Import texts into “Second”" in _subheaders(at)
    assert first.id != second.id


def test_settings_form_follows_the_chosen_project(open_projects, db, lead):
    """Regression: the settings widgets had fixed keys, so after switching project the form kept
    showing the previous project's values, and "Save settings" wrote them into the new one."""
    first = projects.create_project(db, lead, "First")
    second = projects.create_project(db, lead, "Second")
    projects.update_settings(db, lead, second.id, daily_quota=10, quota_timezone="Asia/Tokyo")
    at = open_projects()
    assert at.number_input(key=_setting(at, "quota")).value == 70
    assert at.text_input(key=_setting(at, "tz")).value == "UTC"

    at.sidebar.selectbox(key="auth.project_picker").set_value(second.id)
    run(at)
    assert at.number_input(key=_setting(at, "quota")).value == 10
    assert at.text_input(key=_setting(at, "tz")).value == "Asia/Tokyo"
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    kept = projects.get_project(db, lead, second.id).settings
    assert (kept.daily_quota, kept.quota_timezone) == (10, "Asia/Tokyo")
    assert projects.get_project(db, lead, first.id).settings == ProjectSettings()

    # and back to the first project
    at.sidebar.selectbox(key="auth.project_picker").set_value(first.id)
    run(at)
    assert at.number_input(key=_setting(at, "quota")).value == 70


def test_demoted_lead_with_an_open_session_loses_the_page_at_once(open_projects, db, admin, lead):
    """A demotion revokes the lead's sessions: their next click signs them out with the reason
    (the click did nothing); signing in again under the same URL, as an annotator, lands on
    their queue with a plain message that the page needs the lead role."""
    at = open_projects()
    accounts.set_role(db, admin, lead.user_id, "annotator")
    at.button(key="projects.demo").click()
    run(at)
    assert "auth.actor" not in at.session_state
    assert [w.value for w in at.warning] == ["An administrator changed your role; please sign in again."]
    assert _project_names(db) == []
    at.text_input(key="login.username").input("lead1")
    at.text_input(key="login.password").input(PASSWORD)
    at.button(key="FormSubmitter:login.form-Sign in").click()
    run(at)
    assert titles(at) == ["My queue"]
    assert "Projects & texts" not in nav_titles(at)
    assert at.session_state["auth.actor"].role == "annotator"
    assert [shown(w.value) for w in at.warning] == [
        "The page “Projects & texts” needs the lead role; you are signed in as annotator. "
        "Here is My queue instead."]


@pytest.mark.parametrize("name, data, message", [
    ("huge.txt", b"".join(b"Shop %06d open\n" % i for i in range(1_000_000)),
     "huge.txt: the file has 1,000,000 lines; at most 200,000 are imported at once (split it into several "
     "files). Nothing will be imported."),
    ("deep.jsonl", b'{"text": "Fine text here."}\n' + b"[" * 100_000 + b"\n",
     "deep.jsonl: line 2: the JSON is nested too deeply. Nothing will be imported."),
    ("open.csv", b'text\nFine text here.\n"Never closed\n',
     "open.csv: line 3: malformed CSV (a quoted field is never closed (a \" is missing)). "
     "Nothing will be imported."),
])
def test_hostile_upload_shows_the_line_not_a_traceback(open_projects, db, lead, name, data, message):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    at.file_uploader(key="projects.upload").set_value((name, data, "text/plain"))
    run(at)
    assert not at.exception
    assert errors(at) == [message]
    assert _n_samples(db, p.id) == 0
