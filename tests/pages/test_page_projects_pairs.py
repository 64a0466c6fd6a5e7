"""Projects & texts (lead) for context pairs: the protocol chosen at creation, the pairs upload
with its preview (reference labels shown to the lead), the pair settings shown for pairs
projects only, the protocol fixed once there are samples, the demo pairs project."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotation.services.projects import projects
from annotation.services.corpus import pair_imports
from annotation.services.corpus import demo_projects
from annotation.settings import ProjectSettings
from db.models import Project, Sample, SamplePair
from page_helpers import errors, run, successes, toasts
from ui.session import PROJECT_KEY

CREATE = "FormSubmitter:projects.create-Create project"
TVCP = (b"context,follow_up,context_only_tv,combined_tv,change\n"
        b"Job interview tomorrow; wish me luck.,They just moved it to next Friday.,8,9,increased\n"
        b"Job interview tomorrow; wish me luck.,It was cancelled this morning.,8,0,decreased\n")


@pytest.fixture
def open_projects(make_app, lead):
    def _open():
        at = run(make_app(lead))
        at.switch_page("screens/projects.py")
        return run(at)

    return _open


def _setting(at, name: str) -> str:
    return f"settings.{at.session_state[PROJECT_KEY]}.{name}"


def _count(db, model) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model))


def _subheaders(at) -> list[str]:
    return [h.value for h in at.subheader]


def test_a_new_project_is_single_texts_unless_context_pairs_is_chosen(open_projects, db, lead):
    at = open_projects()
    choice = at.radio(key="projects.new_protocol")
    assert (choice.options, choice.value) == (["single texts", "context pairs"], "single")
    choice.set_value("pairs")
    at.text_input(key="projects.new_name").input("TVCP")
    at.button(key=CREATE).click()
    run(at)
    assert not errors(at)
    with db.read() as s:
        settings = ProjectSettings.from_dict(s.scalar(select(Project.settings).where(Project.name == "TVCP")))
    assert settings.protocol == "pairs"
    assert list(at.dataframe[0].value["protocol"]) == ["context pairs"]
    assert "Import pairs into “TVCP”" in _subheaders(at)
    assert at.file_uploader(key="projects.pair_upload").allowed_type == [".jsonl", ".json", ".ndjson", ".csv"]
    # the pairs protocol's settings, for a pairs project only
    assert at.number_input(key=_setting(at, "change_factor")).value == 1.5
    assert at.checkbox(key=_setting(at, "segment_targets")).value is False


def test_a_single_texts_project_has_no_pair_settings(open_projects, db, lead):
    projects.create_project(db, lead, "Texts")
    at = open_projects()
    assert "Import texts into “Texts”" in _subheaders(at)
    keys = {w.key for w in [*at.number_input, *at.checkbox]}
    assert _setting(at, "change_factor") not in keys and _setting(at, "segment_targets") not in keys
    assert at.selectbox(key=_setting(at, "protocol")).value == "single"


def test_upload_pairs_preview_with_references_then_import(open_projects, db, lead):
    p = projects.create_project(db, lead, "TVCP", settings=ProjectSettings(protocol="pairs"))
    at = open_projects()
    at.file_uploader(key="projects.pair_upload").set_value(("tvcp.csv", TVCP, "text/csv"))
    run(at)
    assert "**Preview** — 2 pairs" in [m.value for m in at.markdown]
    preview = at.dataframe[1].value
    assert list(preview["follow-up"]) == ["They just moved it to next Friday.", "It was cancelled this morning."]
    assert list(preview["reference alone"]) == ["8 (1–3 days)", "8 (1–3 days)"]
    assert list(preview["reference given"]) == ["9 (3–7 days)", "0 (no time-sensitive information)"]
    assert list(preview["reference change"]) == ["increased", "decreased"]
    assert _count(db, Sample) == 0  # a preview imports nothing
    button = at.button(key=f"pair_imports.import_pairs.{p.id}")
    assert button.label == "Import 2 pairs into TVCP"
    button.click()
    run(at)
    assert successes(at) == ["Imported 2 pairs of 1 target into TVCP; 0 were already in the project."]
    assert (_count(db, Sample), _count(db, SamplePair)) == (2, 2)


def test_a_bad_pairs_file_shows_the_line_and_imports_nothing(open_projects, db, lead):
    projects.create_project(db, lead, "TVCP", settings=ProjectSettings(protocol="pairs"))
    at = open_projects()
    at.file_uploader(key="projects.pair_upload").set_value(
        ("bad.csv", TVCP + b"Rain today.,It stopped.,14,3,neutral\n", "text/csv"))
    run(at)
    assert errors(at) == ["bad.csv: line 4: context_only_tv must be a class index from 0 to 11, not '14'. "
                          "Nothing will be imported."]
    assert not [b for b in at.button if (b.key or "").startswith("projects.import")]
    assert _count(db, Sample) == 0


def test_pair_settings_are_saved_and_the_protocol_is_fixed_once_there_are_samples(open_projects, db, lead):
    p = projects.create_project(db, lead, "TVCP", settings=ProjectSettings(protocol="pairs"))
    at = open_projects()
    assert at.selectbox(key=_setting(at, "protocol")).disabled is False
    at.number_input(key=_setting(at, "change_factor")).set_value(2.0)
    at.checkbox(key=_setting(at, "segment_targets")).check()
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at) and toasts(at) == ["Settings of TVCP saved"]
    settings = projects.get_project(db, lead, p.id).settings
    assert (settings.protocol, settings.change_factor, settings.segment_targets) == ("pairs", 2.0, True)
    pair_imports.import_pair_file(db, lead, p.id, TVCP, "tvcp.csv")
    at = open_projects()
    assert at.selectbox(key=_setting(at, "protocol")).disabled is True


def test_protocol_of_an_empty_project_can_change_in_the_settings(open_projects, db, lead):
    p = projects.create_project(db, lead, "Pilot")
    at = open_projects()
    at.selectbox(key=_setting(at, "protocol")).set_value("pairs")
    at.button(key=_setting(at, "save")).click()
    run(at)
    assert not errors(at)
    assert projects.get_project(db, lead, p.id).settings.protocol == "pairs"
    assert "Import pairs into “Pilot”" in _subheaders(at)


def test_load_the_demo_pairs_project(open_projects, db):
    at = open_projects()
    at.button(key="projects.demo_pairs").click()
    run(at)
    n = len(demo_projects.demo_pair_records())
    assert toasts(at) == [f"{demo_projects.DEMO_PAIRS_PROJECT_NAME}: {n} pairs"]
    table = at.dataframe[0].value
    assert list(table["project"]) == [demo_projects.DEMO_PAIRS_PROJECT_NAME]
    assert list(table["protocol"]) == ["context pairs"] and list(table["texts"]) == [n]
