"""What a screen tells the user about a failed service call (``errors.failure_message``)."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import OperationalError, TimeoutError as PoolTimeout

from annotation.services.errors import BUSY_MESSAGE, Busy, NotFound, StaleVersion, failure_message


def test_a_service_error_says_itself():
    assert failure_message(NotFound("No such project.")) == "No such project."
    assert failure_message(StaleVersion("Another tab saved newer work.")) == "Another tab saved newer work."
    assert failure_message(Busy()) == BUSY_MESSAGE


def test_a_transient_database_error_is_the_busy_message():
    locked = OperationalError("UPDATE", {}, sqlite3.OperationalError("database is locked"))
    assert failure_message(locked) == BUSY_MESSAGE
    assert failure_message(PoolTimeout("QueuePool limit of size 20 overflow 20 reached")) == BUSY_MESSAGE


def test_anything_else_is_no_expected_failure():
    assert failure_message(ValueError("a bug")) is None
    other = OperationalError("SELECT", {}, sqlite3.OperationalError("no such table: samples"))
    assert failure_message(other) is None
