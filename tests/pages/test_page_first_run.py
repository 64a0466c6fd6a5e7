"""First run on an empty database: the Welcome page creates the administrator."""

from __future__ import annotations

from sqlalchemy import func, select

from annotation.services.accounts import accounts
from annotation.services.corpus import demo_projects
from db.models import Project, Sample, User
from page_helpers import errors, nav_titles, run, titles
from ui.session import ACTOR_KEY

SUBMIT = "FormSubmitter:first_run.form-Create administrator"


def _fill(at, password="long-password", repeat="long-password", demo=True, username="boss",
          display_name="The Boss"):
    at.text_input(key="first_run.username").input(username)
    at.text_input(key="first_run.display_name").input(display_name)
    at.text_input(key="first_run.password").input(password)
    at.text_input(key="first_run.repeat").input(repeat)
    at.checkbox(key="first_run.demo").set_value(demo)
    at.button(key=SUBMIT).click()
    return run(at)


def _count(db, model) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model))


def test_empty_database_shows_the_welcome_page(make_app):
    at = run(make_app())
    assert titles(at) == ["Welcome to Chronocept Studio"]
    assert nav_titles(at) == ["Welcome"]
    assert at.text_input(key="first_run.username").value == "admin"
    assert at.checkbox(key="first_run.demo").value is True
    assert ACTOR_KEY not in at.session_state


def test_mismatched_passwords_create_no_user(make_app, db):
    at = _fill(run(make_app()), password="long-password", repeat="long-passwort")
    assert errors(at) == ["The two passwords differ."]
    assert _count(db, User) == 0
    assert ACTOR_KEY not in at.session_state
    assert titles(at) == ["Welcome to Chronocept Studio"]


def test_short_password_shows_the_service_message(make_app, db):
    at = _fill(run(make_app()), password="short", repeat="short")
    assert errors(at) == [f"A password needs at least {accounts.MIN_PASSWORD_LENGTH} characters."]
    assert _count(db, User) == 0
    assert ACTOR_KEY not in at.session_state


def test_invalid_username_shows_the_service_message(make_app, db):
    at = _fill(run(make_app()), username="a b")
    assert errors(at) == ["A username is 2–64 letters, digits, dots, dashes or underscores."]
    assert _count(db, User) == 0


def test_long_display_name_shows_the_service_message(make_app, db):
    at = _fill(run(make_app()), display_name="x" * 129)
    assert errors(at) == ["The display name can be at most 128 characters (yours has 129)."]
    assert _count(db, User) == 0


def test_success_creates_admin_and_demo_project_and_signs_in(make_app, db):
    at = _fill(run(make_app()), demo=True)
    actor = at.session_state[ACTOR_KEY]
    assert (actor.username, actor.role, actor.display_name) == ("boss", "admin", "The Boss")
    assert not accounts.needs_first_admin(db)
    assert accounts.authenticate(db, "boss", "long-password").user_id == actor.user_id
    with db.read() as s:
        assert s.scalar(select(User.role).where(User.username == "boss")) == "admin"
        assert list(s.scalars(select(Project.name))) == [demo_projects.DEMO_PROJECT_NAME]
    assert _count(db, Sample) == len(demo_projects.demo_records())
    # The same run already lands on the queue (st.rerun after sign-in) …
    assert titles(at) == ["My queue"]
    assert "Welcome" not in nav_titles(at)
    assert {"My queue", "Annotate", "Write follow-ups", "Feedback", "Guidelines", "Projects & texts", "De-duplication", "Review", "Agreement", "Warm-up & qualification", "Annotators", "Export dataset", "Dataset statistics", "Baseline training", "Users", "My account"} == set(nav_titles(at))
    # … and so does the next run.
    run(at)
    assert titles(at) == ["My queue"]
    assert at.button(key="queue.start").label == "Start the next sample"


def test_success_without_demo_creates_no_project(make_app, db):
    at = _fill(run(make_app()), demo=False)
    assert at.session_state[ACTOR_KEY].role == "admin"
    assert _count(db, Project) == 0
    assert titles(at) == ["My queue"]
    assert "There is no project yet." in at.info[0].value


def test_welcome_page_is_gone_once_a_user_exists(make_app, admin):
    at = run(make_app())
    assert titles(at) == ["Chronocept Studio"]
    assert nav_titles(at) == ["Sign in"]


def test_the_demo_pairs_project_is_offered_beside_the_demo(make_app, db):
    at = run(make_app())
    box = at.checkbox(key="first_run.demo_pairs")
    assert box.value is False and "demo pairs project" in box.label
    box.check()
    at = _fill(at, demo=True)
    assert titles(at) == ["My queue"]
    with db.read() as s:
        made = dict(s.execute(select(Project.name, Project.settings)).all())
    assert set(made) == {demo_projects.DEMO_PROJECT_NAME, demo_projects.DEMO_PAIRS_PROJECT_NAME}
    assert made[demo_projects.DEMO_PAIRS_PROJECT_NAME]["protocol"] == "pairs"
    assert _count(db, Sample) == len(demo_projects.demo_records()) + len(demo_projects.demo_pair_records())


def test_the_demo_pairs_project_alone(make_app, db):
    at = run(make_app())
    at.checkbox(key="first_run.demo_pairs").check()
    _fill(at, demo=False)
    with db.read() as s:
        assert list(s.scalars(select(Project.name))) == [demo_projects.DEMO_PAIRS_PROJECT_NAME]
