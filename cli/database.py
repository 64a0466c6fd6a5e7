"""The ``chronocept`` command's database: opened and upgraded at the start of a command, and a
database error said in one line."""

from __future__ import annotations

import sys
import tempfile

from sqlalchemy.engine import make_url
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError

from db.engine import Database, database_url


def open_database() -> Database:
    """The configured database, upgraded to the newest schema; an upgrade of an existing
    database (backed up first) is reported on stderr with the backup's path."""
    db, done = Database.connect_upgraded(announce=True)  # a restore refuses while this runs
    from annotation.leftovers import remove_abandoned_figure_folders
    # an export killed in its figures step left its folder in the system temp folder
    remove_abandoned_figure_folders(tempfile.gettempdir())
    line = done.describe()
    if line:
        print(f"chronocept: {line}", file=sys.stderr)
    return db


def database_failure(exc: SQLAlchemyError) -> str:
    """One line for a database error: the URL without its password, and the driver's first line."""
    try:
        where = make_url(database_url()).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a URL SQLAlchemy cannot parse is named as configured
        where = "the configured database"
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    reason_line = reason[0] if reason else type(exc).__name__
    if isinstance(exc, (OperationalError, InterfaceError)):
        return f"cannot reach the database {where}: {reason_line}"
    return f"database error on {where}: {reason_line}"
