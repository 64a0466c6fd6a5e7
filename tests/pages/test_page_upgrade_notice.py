"""Start-up upgrade of an existing database: the app backs it up first and tells an admin where
the backup is, literally (a code block, never Markdown), until they dismiss the notice."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import sqlalchemy as sa

from annotation.services.accounts import accounts
from db import config as app_config
from db.engine import make_engine, upgrade_schema
from page_helpers import PASSWORD, run


def _database_at_0002(db_url: str) -> None:
    engine = make_engine(db_url)
    upgrade_schema(engine, target="0002")
    now = dt.datetime(2026, 11, 20, 9, 0)
    with engine.begin() as conn:
        for uid, name, role in ((1, "admin", "admin"), (2, "lead1", "lead")):
            conn.execute(sa.text(
                "INSERT INTO users (id, username, display_name, password_hash, role, is_active, "
                "created_at, password_changed_at) VALUES (:id, :u, :u, :h, :r, 1, :t, :t)"),
                {"id": uid, "u": name, "h": accounts._hasher.hash(PASSWORD), "r": role, "t": now})
    engine.dispose()


def _backups(db_url: str) -> list[Path]:
    folder = Path(db_url.removeprefix("sqlite:///")).parent / "backups"
    return sorted(folder.glob("app-*-before-0002-to-*.db"))


def _signed_in(at, username: str):
    """Sign in through the form (a session needs the upgraded schema, so the app's own start-up
    upgrade runs first, on the sign-in page)."""
    run(at)
    at.text_input(key="login.username").input(username)
    at.text_input(key="login.password").input(PASSWORD)
    at.button(key="FormSubmitter:login.form-Sign in").click()
    return run(at)


def test_admin_sees_where_the_start_up_backup_is_until_dismissed(db_url, make_app, monkeypatch):
    monkeypatch.delenv("CHRONOCEPT_BACKUP_DIR", raising=False)
    app_config.load()  # read again, as a restarted process would
    _database_at_0002(db_url)
    at = _signed_in(make_app(), "admin")
    backups = _backups(db_url)
    assert len(backups) == 1
    assert [c.value for c in at.sidebar.code] == [str(backups[0])]
    assert any("upgraded at start-up (schema 0002 to" in c.value for c in at.sidebar.caption)
    at.button(key="app.upgrade_notice_dismiss").click()
    at = run(at)
    assert [c.value for c in at.sidebar.code] == []
    assert len(_backups(db_url)) == 1  # one upgrade, one backup


def test_a_lead_is_not_shown_the_backup_path(db_url, make_app, monkeypatch):
    monkeypatch.delenv("CHRONOCEPT_BACKUP_DIR", raising=False)
    app_config.load()  # read again, as a restarted process would
    _database_at_0002(db_url)
    at = _signed_in(make_app(), "lead1")
    assert at.session_state["auth.actor"].username == "lead1"
    assert len(_backups(db_url)) == 1
    assert [c.value for c in at.sidebar.code] == []


def test_a_refused_upgrade_is_one_message_not_a_traceback(db_url, make_app, monkeypatch):
    _database_at_0002(db_url)
    engine = make_engine(db_url)
    with engine.begin() as conn:  # a revision this version does not know
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    at = make_app()
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "The database could not be upgraded, so the app cannot start. Nothing was changed."]
    assert any("9999" in t.value and "does not know" in t.value for t in at.text)
