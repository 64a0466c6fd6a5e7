"""Errors services raise. Each carries a message fit to show a user as it is; pages catch
:class:`ServiceError` and show it, so no traceback ever reaches the UI."""

from db.engine import BUSY_MESSAGE, DatabaseBusy, is_transient, register_busy_error


class ServiceError(Exception):
    """Base of every expected failure of a service call."""


class PermissionDenied(ServiceError):
    """The acting user lacks the role, is deactivated, or the object is not theirs."""


class NotFound(ServiceError):
    """The object does not exist (or is not visible to the actor)."""


class InvalidInput(ServiceError):
    """The request is malformed or breaks a rule; nothing was changed."""


class FolderNotEmpty(InvalidInput):
    """A folder to write into holds files already. Replacing them is the caller's choice, which
    each front end names in its own words (a checkbox on the page, ``--overwrite`` on the
    command line); ``folder`` is the folder."""

    def __init__(self, folder: object):
        self.folder = folder
        super().__init__(f"{folder} already exists and is not empty; choose another folder or allow replacing it.")


class StaleVersion(ServiceError):
    """Someone (often the same person in another tab) saved newer work first."""


class AlreadySubmitted(ServiceError):
    """The annotation was already submitted; a second submit changes nothing."""


class ChangedMeanwhile(Exception):
    """A write found that what its plan was computed from has changed since it was read (the
    draft saved by another request, the quota filled, the sample submitted by its other
    annotator); nothing was written. Never shown: the caller reads and plans again."""


class QuotaReached(ServiceError):
    """The annotator reached today's quota of submissions."""


class AuthenticationFailed(ServiceError):
    """Wrong username or password (deliberately not saying which)."""


class RateLimited(ServiceError):
    """Too many failed logins for this username recently."""


class Busy(ServiceError, DatabaseBusy):
    """The database stayed locked (SQLite), kept failing with serialization errors or deadlocks
    (PostgreSQL) or had no free connection, through every retry. Nothing of the failed call
    was written; earlier calls (the last saved draft) are safe. Raised by ``db.engine``'s
    retries, which this module registers it with."""

    def __init__(self, message: str = BUSY_MESSAGE):
        DatabaseBusy.__init__(self, message)


register_busy_error(Busy)


def failure_message(exc: BaseException) -> str | None:
    """What to tell the user about ``exc`` raised by a service call, or None when it is no
    expected failure (a bug, which the caller lets propagate).

    A :class:`ServiceError` says itself. A transient database error that got past the call's
    retries (locked, deadlocked, no free connection: ``db.engine.is_transient``) is
    ``BUSY_MESSAGE``: nothing of that call was written. A screen asks here rather than reading
    ``db`` itself.
    """
    if isinstance(exc, ServiceError):
        return str(exc)
    if is_transient(exc):
        return BUSY_MESSAGE
    return None
