"""Per-user preferences (issue 10: the workbench's single-screen layout), on both databases:
typed known keys only, tolerant reading of stored JSON, strict writes, per user."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from annotation.services.accounts import accounts, preferences
from annotation.services.errors import InvalidInput, PermissionDenied
from annotation.services.accounts.preferences import Preferences
from db.models import User


def _stored(db, user_id: int):
    with db.read() as s:
        return s.scalar(select(User.preferences).where(User.id == user_id))


def _store_raw(db, user_id: int, value) -> None:
    with db.write() as s:
        s.execute(update(User).where(User.id == user_id).values(preferences=value))


def test_a_new_user_gets_the_step_by_step_layout(db, make_user):
    ann = make_user("ann")
    assert _stored(db, ann.user_id) == {}
    assert preferences.get_preferences(db, ann) == Preferences(workbench_layout="steps")


def test_choosing_the_single_screen_layout_is_stored_and_read_back(db, make_user):
    ann = make_user("ann")
    chosen = preferences.set_preferences(db, ann, workbench_layout="single")
    assert chosen.workbench_layout == "single"
    assert _stored(db, ann.user_id) == {"workbench_layout": "single"}
    assert preferences.get_preferences(db, ann).workbench_layout == "single"
    # and back
    preferences.set_preferences(db, ann, workbench_layout="steps")
    assert preferences.get_preferences(db, ann).workbench_layout == "steps"


def test_preferences_are_per_user(db, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    preferences.set_preferences(db, ann, workbench_layout="single")
    assert preferences.get_preferences(db, bob).workbench_layout == "steps"


@pytest.mark.parametrize("value", ["grid", "", "Single", None, 1, ["single"]])
def test_a_value_that_is_not_a_layout_is_refused_and_changes_nothing(db, make_user, value):
    ann = make_user("ann")
    preferences.set_preferences(db, ann, workbench_layout="single")
    with pytest.raises(InvalidInput, match="workbench layout"):
        preferences.set_preferences(db, ann, workbench_layout=value)
    assert _stored(db, ann.user_id) == {"workbench_layout": "single"}


def test_an_unknown_preference_is_refused(db, make_user):
    ann = make_user("ann")
    with pytest.raises(InvalidInput, match="Unknown preference theme"):
        preferences.set_preferences(db, ann, theme="dark", workbench_layout="single")
    assert _stored(db, ann.user_id) == {}


@pytest.mark.parametrize("raw", [
    {"workbench_layout": "grid"}, {"workbench_layout": 3}, {"other": "x"}, [], "single", None,
])
def test_stored_values_that_make_no_sense_read_as_the_default(db, make_user, raw):
    ann = make_user("ann")
    _store_raw(db, ann.user_id, raw)
    assert preferences.get_preferences(db, ann) == Preferences()


def test_writing_keeps_known_keys_only(db, make_user):
    ann = make_user("ann")
    _store_raw(db, ann.user_id, {"retired_key": True, "workbench_layout": "single"})
    assert preferences.get_preferences(db, ann).workbench_layout == "single"
    preferences.set_preferences(db, ann, workbench_layout="steps")
    assert _stored(db, ann.user_id) == {"workbench_layout": "steps"}


def test_every_role_has_preferences_and_a_deactivated_user_none(db, admin, make_user):
    lead = make_user("lead1", "lead")
    assert preferences.set_preferences(db, lead, workbench_layout="single").workbench_layout == "single"
    assert preferences.set_preferences(db, admin, workbench_layout="single").workbench_layout == "single"
    ann = make_user("ann")
    accounts.set_active(db, admin, ann.user_id, False)
    with pytest.raises(PermissionDenied):
        preferences.get_preferences(db, ann)
    with pytest.raises(PermissionDenied):
        preferences.set_preferences(db, ann, workbench_layout="single")


def test_the_last_project_is_stored_beside_the_layout(db, make_user):
    ann = make_user("ann")
    preferences.set_preferences(db, ann, workbench_layout="single")
    chosen = preferences.set_preferences(db, ann, last_project_id=7)
    assert (chosen.workbench_layout, chosen.last_project_id) == ("single", 7)
    assert _stored(db, ann.user_id) == {"workbench_layout": "single", "last_project_id": 7}
    assert preferences.get_preferences(db, ann).last_project_id == 7


@pytest.mark.parametrize("value", [0, -3, True, "7", 7.0, [7]])
def test_a_last_project_that_is_not_an_id_is_refused_and_reads_as_none(db, make_user, value):
    ann = make_user("ann")
    with pytest.raises(InvalidInput, match="not a project id"):
        preferences.set_preferences(db, ann, last_project_id=value)
    assert _stored(db, ann.user_id) == {}
    _store_raw(db, ann.user_id, {"last_project_id": value, "workbench_layout": "single"})
    assert preferences.get_preferences(db, ann) == Preferences(workbench_layout="single")
