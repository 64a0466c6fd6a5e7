"""Which whole numbers a service accepts from outside: an id, a seed, an edit's number, a page.

A number reaches the database as a parameter of its column's type: PostgreSQL binds
``2147483648::INTEGER`` or ``'1; drop'::INTEGER`` and fails the whole statement with a
``DataError`` (a traceback), where SQLite, which stores any integer and compares text with
numbers, finds no row. So each number that comes from a page, a URL, a file or the command line
is checked before the first query, the same way on both databases:

* an **id** that no row can have (not a whole number, a bool, below 1, beyond its column's range) is
  :class:`~annotation.services.errors.NotFound`, with what a missing row of that kind says;
* any other **number** (a seed, a version, a page) outside its range is
  :class:`~annotation.services.errors.InvalidInput` naming it and the range.

The type of the column in :mod:`db.models` is the one definition of its range
(:func:`int_range`: ``SmallInteger`` 16 bits, ``Integer`` 32, ``BigInteger`` 64), read here so the
check and the column cannot drift apart — as :mod:`annotation.services.text_limits` reads a
``String``'s width. :data:`PARAMETERS` says once what each parameter name of the services
stands for, and :func:`checks_numbers` checks a service's arguments by their names before its
body runs. ``tests/service/test_number_limits.py`` walks every service entry point's numeric
parameters with values no column holds.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from sqlalchemy import BigInteger, Integer, SmallInteger
from sqlalchemy.types import TypeEngine

from annotation.services.errors import InvalidInput, NotFound
from annotation.services.lookup import NO_SUCH_PROJECT
from db.models import Annotation, Project, ReviewItem, Sample, User
from db.models_backoffice import DatasetExport, GoldCheckPause, Job, NearDuplicate

#: Bits of each integer type; SQLAlchemy's ``SmallInteger`` and ``BigInteger`` subclass ``Integer``,
#: so the most specific comes first.
_BITS: tuple[tuple[type, int], ...] = ((SmallInteger, 16), (BigInteger, 64), (Integer, 32))

#: SQL's LIMIT and OFFSET, which SQLAlchemy binds as an ``Integer``.
SQL_ROW_COUNT = Integer()


def int_range(column: Any) -> tuple[int, int]:
    """The lowest and highest value ``column`` holds (a model attribute such as ``Sample.id``,
    or an integer type itself): two's complement of its type's width.

    Examples:
        >>> int_range(Sample.benchmark), int_range(Sample.id)
        ((-32768, 32767), (-2147483648, 2147483647))
        >>> int_range(BigInteger())
        (-9223372036854775808, 9223372036854775807)
    """
    type_ = column if isinstance(column, TypeEngine) else column.property.columns[0].type
    for kind, bits in _BITS:
        if isinstance(type_, kind):
            return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    raise TypeError(f"{column} is not an integer column")


def whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number (a Python or NumPy integer, not a bool),
    else None.

    Examples:
        >>> whole(7), whole(True), whole("7"), whole(7.0), whole(None)
        (7, None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return operator.index(value)


@dataclass(frozen=True)
class Id:
    """A parameter naming a row: the column of the ids and what a missing row says. Ids count
    from 1 (both databases number a table's rows from there), so none is below."""

    column: Any
    missing: str

    def range(self) -> tuple[int, int]:
        return 1, int_range(self.column)[1]

    def check(self, value: object) -> int:
        number = whole(value)
        low, high = self.range()
        if number is None or not low <= number <= high:
            raise NotFound(self.missing)
        return number


@dataclass(frozen=True)
class Number:
    """A parameter holding a number: the column (or integer type) it meets, how a person knows
    it, and where the service's domain is narrower than the column (``low``, ``high``)."""

    column: Any
    field: str
    low: int | None = None
    high: int | None = None
    #: the refusal in the words of the screen that sends it, where a person never types it
    refusal: str | None = None

    def range(self) -> tuple[int, int]:
        low, high = int_range(self.column)
        return (low if self.low is None else self.low), (high if self.high is None else self.high)

    def check(self, value: object) -> int:
        number = whole(value)
        low, high = self.range()
        if number is None or not low <= number <= high:
            raise InvalidInput(self.refusal or f"The {self.field} must be a whole number from {low} to {high}.")
        return number


@dataclass(frozen=True)
class Ids:
    """A parameter holding several ids of one kind (each checked as :class:`Id`)."""

    one: Id

    def check(self, value: object) -> tuple[int, ...]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise NotFound(self.one.missing)
        return tuple(self.one.check(v) for v in value)


#: What each numeric parameter of the services stands for, by its name (the same name means the
#: same thing in every service). A seed is one an export can record, which every library the
#: house seeds accepts (NumPy, scikit-learn's ``random_state`` below 2³², torch); a benchmark is
#: one of the two the ``ck_samples_benchmark`` constraint allows.
PARAMETERS: dict[str, Id | Ids | Number] = {
    "project_id": Id(Project.id, NO_SUCH_PROJECT),
    "user_id": Id(User.id, "No such user."),
    "sample_id": Id(Sample.id, "No such sample."),
    "annotation_id": Id(Annotation.id, "That annotation does not exist or is not yours."),
    "annotation_ids": Ids(Id(Annotation.id, "No such annotation.")),
    "item_id": Id(ReviewItem.id, "No such review item."),
    "pause_id": Id(GoldCheckPause.id, "No such pause."),
    "mark_ids": Ids(Id(NearDuplicate.id, "Some of these marks no longer exist; reload the list.")),
    "export_id": Id(DatasetExport.id, "No such export."),
    "reproduce": Id(DatasetExport.id, "There is no such export to repeat."),
    "job_id": Id(Job.id, "No such job."),
    "run_job_id": Id(Job.id, "No such training run."),
    "seed": Number(DatasetExport.seed, "seed", low=0),
    "base_version": Number(Annotation.version, "version the edits started from", low=0, refusal=(
        "The workbench sent its edits without the version it started from; reload the sample.")),
    "benchmark": Number(Sample.benchmark, "benchmark", low=1, high=2),
    "default_benchmark": Number(Sample.benchmark, "benchmark", low=1, high=2),
    "limit": Number(SQL_ROW_COUNT, "number of rows", low=0),
    "offset": Number(SQL_ROW_COUNT, "number of rows to skip", low=0),
    "page": Number(SQL_ROW_COUNT, "page", low=1),
    "page_size": Number(SQL_ROW_COUNT, "page size", low=1),
    "per_page": Number(SQL_ROW_COUNT, "page size", low=1),
    "n": Number(SQL_ROW_COUNT, "number of samples", low=1),
}

#: The number of an edit the workbench sends (and the last one stored with the draft).
EDIT_NUMBER = Number(Annotation.event_seq, "number of an edit", low=1)


def _admits(parameter: inspect.Parameter, kind: str) -> bool:
    """Whether ``parameter``'s annotation names the type ``kind`` ("None", "str") among others."""
    annotation = parameter.annotation
    if not isinstance(annotation, str):  # the services' annotations are postponed (PEP 563)
        annotation = getattr(annotation, "__name__", None) or repr(annotation)
    return kind in annotation.replace("|", " ").replace(",", " ").replace("[", " ").replace("]", " ").split()


def _takes_none(parameter: inspect.Parameter) -> bool:
    """Whether None is a value of ``parameter`` ("no project yet: make one", "no seed: pick
    one"): its default is None or its annotation admits None."""
    return parameter.default is None or _admits(parameter, "None")


F = TypeVar("F", bound=Callable[..., Any])


def checks_numbers(function: F) -> F:
    """Decorate a service so that each of its numeric arguments named in :data:`PARAMETERS` is checked
    before the body runs (an id no row can have: :class:`NotFound`; a number out of range:
    :class:`InvalidInput`; nothing read, nothing written), and passed on as a plain ``int``
    (several ids as a tuple, so an iterator is read once)."""
    signature = inspect.signature(function)
    # a parameter that also takes text (a benchmark or "tvcp") is its service's to check
    checked = {name: (PARAMETERS[name], _takes_none(p)) for name, p in signature.parameters.items()
               if name in PARAMETERS and not _admits(p, "str")}
    if not checked:
        raise TypeError(f"{function.__qualname__} has no parameter named in PARAMETERS")

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        for name, (rule, optional) in checked.items():
            if name in bound.arguments:
                value = bound.arguments[name]
                if not (value is None and optional):
                    bound.arguments[name] = rule.check(value)
        return function(*bound.args, **bound.kwargs)

    return call  # type: ignore[return-value]


__all__ = ["EDIT_NUMBER", "Id", "Ids", "Number", "PARAMETERS", "SQL_ROW_COUNT", "checks_numbers",
           "int_range", "whole"]
