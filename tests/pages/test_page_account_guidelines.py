"""My account (change my own password) and the Guidelines page."""

from __future__ import annotations

import re

import pytest

from annotation.guidelines import current_guidelines
from annotation.services.accounts import accounts, preferences
from annotation.services.errors import AuthenticationFailed
from page_helpers import PASSWORD
from page_helpers import errors, run, successes, titles

CHANGE = "FormSubmitter:account.password-Change password"


@pytest.fixture
def open_account(make_app, make_user):
    def _open():
        at = run(make_app(make_user("ann")))
        at.switch_page("screens/account.py")
        return run(at)

    return _open


def _change(at, old: str, new: str, repeat: str):
    at.text_input(key="account.old").input(old)
    at.text_input(key="account.new").input(new)
    at.text_input(key="account.repeat").input(repeat)
    at.button(key=CHANGE).click()
    return run(at)


def test_account_page(open_account):
    at = open_account()
    assert titles(at) == ["My account"]
    assert "Signed in as **ann** (annotator)." in [m.value for m in at.markdown]


def test_account_page_stores_the_workbench_layout(open_account, db):
    at = open_account()
    toggle = at.toggle(key="account.layout")
    assert toggle.label == "Single-screen layout" and toggle.value is False
    ann = at.session_state["auth.actor"]
    toggle.set_value(True)
    run(at)
    assert preferences.get_preferences(db, ann).workbench_layout == "single"
    assert at.toggle(key="account.layout").value is True
    at.toggle(key="account.layout").set_value(False)
    run(at)
    assert preferences.get_preferences(db, ann).workbench_layout == "steps"


def test_account_page_shows_a_layout_chosen_elsewhere(open_account, db, make_app):
    at = open_account()
    ann = at.session_state["auth.actor"]
    preferences.set_preferences(db, ann, workbench_layout="single")  # e.g. on the workbench
    run(at)
    assert at.toggle(key="account.layout").value is True


def test_wrong_current_password(open_account, db):
    at = _change(open_account(), "not-my-password", "new-password-1", "new-password-1")
    assert errors(at) == ["The current password is wrong."]
    assert not successes(at)
    assert accounts.authenticate(db, "ann", PASSWORD).username == "ann"


def test_new_passwords_differ(open_account, db):
    at = _change(open_account(), PASSWORD, "new-password-1", "new-password-2")
    assert errors(at) == ["The two new passwords differ."]
    assert accounts.authenticate(db, "ann", PASSWORD).username == "ann"


def test_short_new_password(open_account, db):
    at = _change(open_account(), PASSWORD, "short", "short")
    assert errors(at) == [f"A password needs at least {accounts.MIN_PASSWORD_LENGTH} characters."]
    assert accounts.authenticate(db, "ann", PASSWORD).username == "ann"


def test_change_password(open_account, db):
    at = _change(open_account(), PASSWORD, "new-password-1", "new-password-1")
    assert not errors(at)
    assert successes(at) == ["Password changed."]
    assert accounts.authenticate(db, "ann", "new-password-1").username == "ann"
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "ann", PASSWORD)


def test_guidelines_page(make_app, make_user):
    guide = current_guidelines()
    at = run(make_app(make_user("ann")))
    at.switch_page("screens/guidelines.py")
    run(at)
    assert [c.value for c in at.caption] == [f"Guidelines version {guide.version}"]
    text = "\n".join(m.value for m in at.markdown)
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings == re.findall(r"^## (.+)$", guide.text, flags=re.MULTILINE)
    for heading in ("Purpose and the task", "Step 1 — Temporal segmentation",
                    "Step 2 — Axis categorisation", "Step 3 — The validity curve", "Flagging"):
        assert heading in headings
    assert f"version {guide.version}" in text
