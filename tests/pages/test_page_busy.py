"""A database that stays busy through every retry (issue 9 item 6) is shown on any page as one
clear message — never a traceback — whether the service call was wrapped by the page's own
error helper or not."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy.exc import OperationalError

from annotation.services.corpus import demo_projects
from annotation.services.workbench import queue
from annotation.services.accounts import sessions
from annotation.services.errors import Busy
from db.engine import BUSY_MESSAGE
from page_helpers import errors, titles


def _locked(*_args, **_kwargs):
    """What a caller saw before: the driver's lock error, raised out of a service call."""
    raise OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked"))


def _busy(*_args, **_kwargs):
    raise Busy()


@pytest.mark.parametrize("failure", [_busy, _locked], ids=["busy_after_retries", "raw_lock_error"])
def test_queue_page_shows_the_busy_message(make_app, make_user, admin, db, monkeypatch, failure):
    """A service that stays busy through its retries, or a raw lock error that escapes a page,
    is the busy message on the page — never a traceback or the driver's text."""
    demo_projects.load_demo_project(db, admin)
    ann = make_user("ann")
    monkeypatch.setattr(queue, "queue_status", failure)
    at = make_app(ann)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert titles(at) == ["My queue"]
    assert errors(at) == [BUSY_MESSAGE]
    assert "database is locked" not in str([m.value for m in at.markdown])


def test_busy_before_the_page_runs_is_a_message_too(make_app, make_user, monkeypatch):
    """app.py's own calls (resuming the signed-in user's session) are inside the same boundary."""
    ann = make_user("ann")
    at = make_app(ann)
    monkeypatch.setattr(sessions, "resume_session", _busy)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == [BUSY_MESSAGE]
