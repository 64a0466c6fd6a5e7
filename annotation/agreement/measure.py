"""The plug-in contract every agreement measure follows (modelled on INCEpTION's measures).

A measure is a small frozen object that

* declares what it ``consumes`` (:class:`~annotation.agreement.ratings.Consumes`),
* ``compute``\\ s a frozen result object for a set of samples (the full figures, shown once for
  the whole selection),
* gives the few ``breakdown`` figures shown per annotator pair and per week (cheap: they run
  a few hundred times per report), and
* gives its ``per_sample`` columns for the downloadable per-sample table.

Adding a measure is writing one such unit and listing it in
:data:`annotation.agreement.DEFAULT_MEASURES`; the report needs no change.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from enum import Enum
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from annotation.agreement.ratings import Consumes, RatedSample
from annotation.agreement.tables import sample_set


@runtime_checkable
class MeasureResult(Protocol):
    """What every measure's result offers: its measure's name and a JSON form."""

    measure: str

    def to_json(self) -> dict[str, Any]: ...


@runtime_checkable
class Measure(Protocol):
    """One agreement measure (see module docstring)."""

    name: str
    consumes: Consumes

    def compute(self, samples: Sequence[RatedSample]) -> MeasureResult:
        """The full result over ``samples``."""
        ...

    def breakdown(self, samples: Sequence[RatedSample]) -> dict[str, float | None]:
        """A few headline figures over ``samples`` (one annotator pair, or one week)."""
        ...

    def per_sample(self, samples: Sequence[RatedSample]) -> dict[str, np.ndarray]:
        """Columns of the per-sample table, one value per sample (NaN where undefined)."""
        ...


@runtime_checkable
class TabulatedMeasure(Measure, Protocol):
    """A measure that tabulates per-sample rows in one pass and derives everything from them —
    what lets a report over 100k samples run each measure once instead of once per group.

    ``tabulate`` gives rows (arrays whose first axis is the sample, see
    :mod:`annotation.agreement.tables`); ``result``, ``columns`` (the per-sample table) and
    ``figures`` (breakdown figures per group of rows) read them; ``statistics`` gives the
    headline figures as sums of per-sample contributions for the bootstrap
    (:mod:`annotation.agreement.intervals`).
    """

    def tabulate(self, samples: Any) -> dict[str, np.ndarray]: ...

    def result(self, rows: dict[str, np.ndarray], samples: Sequence[RatedSample]) -> MeasureResult: ...

    def columns(self, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...

    def figures(self, rows: dict[str, np.ndarray], labels: np.ndarray,
                n_groups: int) -> list[dict[str, float | None]]: ...

    def statistics(self, rows: dict[str, np.ndarray]) -> dict[str, Any]: ...


class TabulatedMixin:
    """``compute``, ``breakdown`` and ``per_sample`` of a :class:`TabulatedMeasure`, from its
    ``tabulate`` and the rest (for callers that ask for one thing at a time)."""

    def compute(self, samples: Sequence[RatedSample]) -> MeasureResult:
        rated = sample_set(samples)
        return self.result(self.tabulate(rated), rated)  # type: ignore[attr-defined]

    def breakdown(self, samples: Sequence[RatedSample]) -> dict[str, float | None]:
        rated = sample_set(samples)
        rows = self.tabulate(rated)  # type: ignore[attr-defined]
        return self.figures(rows, np.zeros(len(rated), dtype=np.int64), 1)[0]  # type: ignore[attr-defined]

    def per_sample(self, samples: Sequence[RatedSample]) -> dict[str, np.ndarray]:
        return self.columns(self.tabulate(sample_set(samples)))  # type: ignore[attr-defined]


def nan_mean(values: np.ndarray) -> float:
    """Mean of the finite entries, NaN when there are none (no warning).

    Examples:
        >>> nan_mean(np.array([1.0, np.nan, 3.0]))
        2.0
        >>> nan_mean(np.array([np.nan]))
        nan
    """
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def optional(value: float) -> float | None:
    """``value`` as a float, or None when it is undefined (NaN).

    Examples:
        >>> optional(np.float64(0.5))
        0.5
        >>> print(optional(math.nan))
        None
    """
    value = float(value)
    return None if math.isnan(value) else value


def json_ready(obj: Any) -> Any:
    """A JSON-serialisable copy of ``obj``: NaN and ±inf → None, numpy → Python, tuples → lists,
    datetimes → ISO strings, enums → their value.

    Examples:
        >>> json_ready({"pk": np.float64(0.25), "icc": math.nan, "masses": (2, 3), "day": date(2026, 1, 5)})
        {'pk': 0.25, 'icc': None, 'masses': [2, 3], 'day': '2026-01-05'}
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, Enum):
        return json_ready(obj.value)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, (datetime, date)):
        return obj.isoformat()
    if isinstance(obj, Mapping):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return [json_ready(v) for v in obj.tolist()]
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if hasattr(obj, "to_json"):
        return json_ready(obj.to_json())
    raise TypeError(f"cannot make {type(obj).__name__} JSON-ready")
