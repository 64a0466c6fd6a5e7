"""Intraclass correlation of the curve parameters ξ, ω and α (SPEC section 6).

Consumes curve parameters. Each parameter is assessed separately with all six forms of
:func:`pingouin.intraclass_corr` (names as pingouin 0.7 prints them; Shrout & Fleiss (1979) call
ICC(A,·) "ICC(2,·)" and ICC(C,·) "ICC(3,·)", see :data:`SHROUT_FLEISS_NAMES`):

========  =======================================================  =====================
form      model                                                     question
========  =======================================================  =====================
ICC(1,1)  one-way random, single rating                             headline (see below)
ICC(A,1)  two-way random, absolute agreement, single rating         do raters give the same value?
ICC(C,1)  two-way mixed, consistency, single rating                 do raters order samples alike?
ICC(·,k)  the same for the mean of the k ratings                    reliability of the gold mean
========  =======================================================  =====================

**Raters are slots.** Different pairs of annotators rate different samples, so rater j is "the
j-th annotator to submit" (the first ``k`` ratings with a curve, in slot order), not a person.
The one-way random model ICC(1,1) assumes exactly that design (each sample has its own set of
raters) and is the headline; the two-way forms are shown beside it. k is the most common number
of ratings per sample unless given. Samples with fewer than k ratings carrying ξ, ω and α are left
out and counted (``n_excluded``). Fewer than 2 usable samples, or no variance at all, gives a
result whose ``problem`` says "not enough data" instead of raising.

References: Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
rater reliability. Psychological Bulletin 86(2), 420–428. McGraw, K. O. & Wong, S. P. (1996).
Forming inferences about some intraclass correlation coefficients. Psychological Methods 1(1).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np
import pandas as pd

from annotation.agreement.measure import json_ready
from annotation.agreement.ratings import (
    PARAMETERS,
    Consumes,
    RatedSample,
    Rating,
    usable_ratings,
)

#: The six forms, in pingouin's order.
FORMS: tuple[str, ...] = ("ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)")
#: The form the agreement page and the qualification rule lead with.
HEADLINE_FORM = "ICC(1,1)"
#: pingouin 0.7 name → Shrout & Fleiss (1979) name.
SHROUT_FLEISS_NAMES: dict[str, str] = {
    "ICC(1,1)": "ICC(1,1)",
    "ICC(A,1)": "ICC(2,1)",
    "ICC(C,1)": "ICC(3,1)",
    "ICC(1,k)": "ICC(1,k)",
    "ICC(A,k)": "ICC(2,k)",
    "ICC(C,k)": "ICC(3,k)",
}

_PANDAS4_WARNING = getattr(pd.errors, "Pandas4Warning", FutureWarning)


@dataclass(frozen=True)
class IccForm:
    """One ICC form: the coefficient, its F test against 0 and the 95% CI (pingouin rounds the
    CI to 2 decimals). Undefined values are NaN."""

    form: str
    icc: float
    f: float
    df1: float
    df2: float
    p_value: float
    ci95_low: float
    ci95_high: float

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "form": self.form,
                "icc": self.icc,
                "f": self.f,
                "df1": self.df1,
                "df2": self.df2,
                "p_value": self.p_value,
                "ci95": [self.ci95_low, self.ci95_high],
            }
        )


@dataclass(frozen=True)
class ParameterIcc:
    """The ICC of one curve parameter: six forms, or a ``problem`` saying why there are none."""

    parameter: str
    raters: int
    n_used: int
    n_excluded: int
    forms: tuple[IccForm, ...] = ()
    problem: str = ""

    @property
    def ok(self) -> bool:
        """True when the six forms were computed."""
        return not self.problem

    @property
    def headline(self) -> float:
        """ICC(1,1) — the one-way random form that matches the slots design; NaN without data."""
        return self.form(HEADLINE_FORM).icc if self.ok else math.nan

    def form(self, name: str) -> IccForm:
        """The form called ``name`` (pingouin or Shrout & Fleiss spelling)."""
        aliases = {v: k for k, v in SHROUT_FLEISS_NAMES.items()}
        wanted = aliases.get(name, name)
        for f in self.forms:
            if f.form == wanted:
                return f
        raise KeyError(f"no {name} for {self.parameter}: {self.problem or 'unknown form'}")

    def to_frame(self) -> pd.DataFrame:
        """One row per form: icc, f, df1, df2, p_value, ci95_low, ci95_high (indexed by form)."""
        columns = ["icc", "f", "df1", "df2", "p_value", "ci95_low", "ci95_high"]
        rows = [[getattr(f, c) for c in columns] for f in self.forms]
        return pd.DataFrame(rows, columns=columns, index=pd.Index([f.form for f in self.forms], name="form"))

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "parameter": self.parameter,
                "raters": self.raters,
                "n_used": self.n_used,
                "n_excluded": self.n_excluded,
                "headline_form": HEADLINE_FORM,
                "headline": self.headline,
                "problem": self.problem or None,
                "forms": [f.to_json() for f in self.forms],
            }
        )


@dataclass(frozen=True)
class IccResult:
    """ICC of ξ, ω and α (in that order)."""

    measure: ClassVar[str] = "icc"
    parameters: tuple[ParameterIcc, ...]

    def __getitem__(self, parameter: str) -> ParameterIcc:
        for p in self.parameters:
            if p.parameter == parameter:
                return p
        raise KeyError(parameter)

    @property
    def headline(self) -> dict[str, float]:
        """ICC(1,1) per parameter (NaN where not enough data)."""
        return {p.parameter: p.headline for p in self.parameters}

    def to_json(self) -> dict[str, Any]:
        return {"measure": self.measure, "parameters": [p.to_json() for p in self.parameters]}


def curve_table(samples: Sequence[RatedSample], raters: int) -> tuple[np.ndarray, int]:
    """``(table, n_excluded)``: the values of the first ``raters`` ratings with a curve of each
    sample that has that many, shape (n_samples_used, raters, 3) with ξ, ω, α on the last axis.

    Examples:
        >>> from datetime import datetime
        >>> t = datetime(2026, 1, 5)
        >>> ann = Rating("ann", t, (0,), ("main",), 40.0, 10.0, 1.0)
        >>> bob = Rating("bob", t, (0,), ("main",), 44.0, 12.0, 0.0)
        >>> table, excluded = curve_table([RatedSample("s1", 1, 3, (ann, bob)),
        ...                                RatedSample("s2", 1, 3, (ann,))], raters=2)
        >>> table.shape, excluded, table[0].tolist()
        ((1, 2, 3), 1, [[40.0, 10.0, 1.0], [44.0, 12.0, 0.0]])
    """
    kept: list[tuple[Rating, ...]] = []
    excluded = 0
    for sample in samples:
        rated = usable_ratings(sample, Consumes.CURVE_PARAMETERS)
        if len(rated) < raters:
            excluded += 1
            continue
        kept.append(rated[:raters])
    # one flat pass (np.asarray of 100k nested lists was most of this function's time)
    values = np.fromiter(
        itertools.chain.from_iterable((r.xi, r.omega, r.alpha) for rated in kept for r in rated),
        dtype=float, count=len(kept) * raters * len(PARAMETERS))
    return values.reshape(len(kept), raters, len(PARAMETERS)), excluded


def intraclass_correlation(table: np.ndarray, parameter: str = "", n_excluded: int = 0) -> ParameterIcc:
    """All six ICC forms of a (samples × raters) table with :func:`pingouin.intraclass_corr`.

    Returns a result with ``problem`` set ("not enough data: …") when there are fewer than two
    samples or five values (pingouin's minimum), or no variance at all. When every sample's ratings agree exactly the error mean
    square is 0 and pingouin's F comes out as rounding noise (even negative); it is reported as
    its limit, F = inf with p = 0.

    Examples:
        The second rater always says one more (ICC(1,1) as in :func:`icc_1_1`): MSR = 8,
        MSC = 1.5, MSE = 0, so consistency ICC(C,1) is 1 and absolute agreement ICC(A,1) is
        MSR / (MSR + k·MSC/n) = 8 / (8 + 2·1.5/3) = 8/9.

        >>> result = intraclass_correlation(np.array([[1, 2], [3, 4], [5, 6]]), "xi")
        >>> [(f.form, round(f.icc, 4)) for f in result.forms[:3]]
        [('ICC(1,1)', 0.8824), ('ICC(A,1)', 0.8889), ('ICC(C,1)', 1.0)]
        >>> intraclass_correlation(np.array([[1, 1], [2, 2]])).problem
        'not enough data: 2 usable sample(s) × 2 raters (at least 5 values needed)'
        >>> intraclass_correlation(np.array([[0.5, 0.4], [0.5, 0.4], [0.4, 0.5]])).problem   # −1 would be printed
        "no variation between samples: every sample's mean rating is the same"
    """
    table = np.asarray(table, dtype=float)
    n, k = table.shape
    base = dict(parameter=parameter, raters=k, n_used=n, n_excluded=n_excluded)
    problem = _table_problem(table)
    if problem:
        return ParameterIcc(**base, problem=problem)
    data = pd.DataFrame(
        {
            "sample": np.repeat(np.arange(n), k),
            "slot": np.tile(np.arange(1, k + 1), n),
            "value": table.ravel(),
        }
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", _PANDAS4_WARNING)
            warnings.simplefilter("ignore", RuntimeWarning)
            with np.errstate(all="ignore"):
                import pingouin  # imported here: it pulls in matplotlib (1.3 s) at start-up

                frame = pingouin.intraclass_corr(data=data, targets="sample", raters="slot", ratings="value")
    except (AssertionError, ValueError, ZeroDivisionError) as exc:  # pingouin's input checks
        return ParameterIcc(**base, problem=f"not enough data: {exc}")
    forms = []
    for row in frame.itertuples(index=False):
        f_value, p_value = float(row.F), float(row.pval)
        if f_value < 0:  # a zero denominator computed as -1e-16: the limit is +inf
            f_value, p_value = math.inf, 0.0
        low, high = (float(x) for x in row.CI95)
        forms.append(IccForm(str(row.Type), float(row.ICC), f_value, float(row.df1), float(row.df2),
                             p_value, low, high))
    return ParameterIcc(**base, forms=tuple(forms))


#: values an ICC table needs at least (pingouin's ANOVA), besides two samples
MIN_VALUES = 5


def minimum_samples(raters: int) -> int:
    """Samples (each with all ``raters`` ratings) an ICC needs: at least 2 and at least
    :data:`MIN_VALUES` values in all — 3 samples for 2 raters.

    Examples:
        >>> minimum_samples(2), minimum_samples(3)
        (3, 2)
    """
    return max(2, -(-MIN_VALUES // max(int(raters), 1)))


def _table_problem(table: np.ndarray) -> str:
    """Why a (samples × raters) table has no ICC ("" when it has one)."""
    n, k = table.shape
    if n < minimum_samples(k):  # pingouin's ANOVA needs at least MIN_VALUES values
        return f"not enough data: {n} usable sample(s) × {k} raters (at least {MIN_VALUES} values needed)"
    if k < 2:
        return "not enough data: fewer than 2 raters per sample"
    if np.ptp(table) == 0:
        return "not enough data: every rating has the same value (no variance)"
    means = table.mean(axis=1)
    if np.ptp(means) <= 1e-9 * max(1.0, float(np.abs(means).max())):
        # the ICC is the share of variance that lies between samples: with none it is not a
        # finding (it comes out as −1/(k − 1) whatever the raters do)
        return "no variation between samples: every sample's mean rating is the same"
    return ""


def headline_icc(table: np.ndarray, parameter: str = "", n_excluded: int = 0) -> ParameterIcc:
    """Only ICC(1,1) of a (samples × raters) table, by :func:`icc_1_1` (no F test, no CI: NaN) —
    the same value as :func:`intraclass_correlation`'s headline without pingouin's cost (its
    import alone takes 2 s; at 100k samples the six forms take seconds more).

    Examples:
        >>> result = headline_icc(np.array([[1, 2], [3, 4], [5, 6]]), "xi")
        >>> [f.form for f in result.forms], round(result.headline, 4)
        (['ICC(1,1)'], 0.8824)
    """
    table = np.asarray(table, dtype=float)
    n, k = table.shape
    base = dict(parameter=parameter, raters=k, n_used=n, n_excluded=n_excluded)
    problem = _table_problem(table)
    if problem:
        return ParameterIcc(**base, problem=problem)
    nan = math.nan
    return ParameterIcc(**base, forms=(IccForm(HEADLINE_FORM, icc_1_1(table), nan, nan, nan, nan, nan, nan),))


def icc_1_1(table: np.ndarray) -> float:
    """ICC(1,1) of a (samples × raters) table from the one-way ANOVA mean squares; NaN when
    undefined (fewer than 2 samples or 2 raters, or no variance).

    ``(MSB − MSW) / (MSB + (k − 1)·MSW)`` (Shrout & Fleiss 1979, case 1), the value pingouin
    reports as ICC(1,1) — the unit tests hold the two equal. Used only for the per-pair and
    per-week breakdowns: a pingouin call costs about 13 ms, and a report with 190 annotator pairs
    would spend over 7 s in it; the full six-form result with CIs always comes from pingouin.

    Examples:
        Row means 1.5, 3.5, 5.5 (grand mean 3.5): MSB = 2·(4 + 0 + 4)/2 = 8,
        MSW = (0.5 + 0.5 + 0.5)/3 = 0.5, ICC = (8 − 0.5) / (8 + 0.5) = 15/17.

        >>> round(icc_1_1(np.array([[1, 2], [3, 4], [5, 6]])), 4)
        0.8824
        >>> icc_1_1(np.array([[1, 1], [2, 2], [3, 3]]))    # raters agree exactly
        1.0
    """
    table = np.asarray(table, dtype=float)
    if table.ndim != 2:
        raise ValueError("expected a (samples × raters) table")
    n, k = table.shape
    if n < 2 or k < 2:
        return math.nan
    row_means = table.mean(axis=1)
    msb = k * float(((row_means - table.mean()) ** 2).sum()) / (n - 1)
    msw = float(((table - row_means[:, None]) ** 2).sum()) / (n * (k - 1))
    denominator = msb + (k - 1) * msw
    if denominator <= 0:
        return math.nan
    return (msb - msw) / denominator


__all__ = [
    "FORMS",
    "HEADLINE_FORM",
    "SHROUT_FLEISS_NAMES",
    "IccForm",
    "IccResult",
    "ParameterIcc",
    "curve_table",
    "icc_1_1",
    "intraclass_correlation",
]
