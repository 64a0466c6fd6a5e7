"""Agreement on a context pair's change label (decreased / neutral / increased).

Consumes change labels: each rating's label as the annotator gave it (their override, else the
label their two curves give). Over the samples with at least two labels:

* **Cohen's kappa** (scikit-learn ``cohen_kappa_score``) of the first and second label of each
  sample (slots, as the ICC's raters: different pairs of people label different samples);
* **Krippendorff's α**, nominal (the ``krippendorff`` package), units = samples, every label of
  a sample a value — any k;
* the **share of samples** whose labels all agree, and the slot-1 × slot-2 counts.

No figure reports what its data cannot support, and the result says which rule left it out:
kappa and α need at least :data:`MIN_SAMPLES` samples with two labels (fewer say nothing about
agreement beyond chance), and at least two different labels among them (with one label
throughout, chance agreement is 1 and both are undefined).

Reference: Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
Psychological Measurement 20(1), 37–46.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from annotation.agreement.intervals import DEFAULT_SEED, SumStatistic, bootstrap_intervals
from annotation.agreement.kappa import kappa_from_counts
from annotation.agreement.krippendorff_alpha import package_alpha
from annotation.agreement.measure import TabulatedMixin, json_ready, optional
from annotation.agreement.ratings import Consumes, RatedSample
from annotation.agreement.tables import Rows, SampleSet
from annotation.pairs.change import CHANGE_LABELS

#: Samples with two change labels below which neither kappa nor α is given.
MIN_SAMPLES = 5
_CODE = {label: i for i, label in enumerate(CHANGE_LABELS)}


def change_codes(samples: Sequence[RatedSample]) -> np.ndarray:
    """(samples × most labels) label indices in slot order, NaN where a sample has no more (a
    float table: the report pads the rows of several selections with NaN).

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 1, 5)
        >>> r = lambda who, change: Rating(who, t, (0,), (None,), change=change)
        >>> change_codes([RatedSample("s", 1, 3, (r("a", "increased"), r("b", None), r("c", "neutral")))]).tolist()
        [[2.0, 1.0]]
    """
    rows = [[_CODE[r.change] for r in s.ratings if r.change is not None] for s in samples]
    width = max((len(x) for x in rows), default=0)
    out = np.full((len(rows), max(width, 2)), math.nan)
    for i, codes in enumerate(rows):
        out[i, :len(codes)] = codes
    return out


@dataclass(frozen=True)
class ChangeFigures:
    """Kappa, α and the share of agreeing samples over ``n_samples`` samples with two labels,
    ``counts[i][j]`` the samples whose first label is i and second j, and ``note`` the rule that
    left kappa and α out (empty when they are given)."""

    n_samples: int
    kappa: float
    alpha: float
    agreement: float
    counts: tuple[tuple[int, ...], ...]
    note: str = ""


def change_figures(codes: np.ndarray) -> ChangeFigures:
    """The figures of a table of label indices (:func:`change_codes`).

    Examples:
        Five samples, the first labels (2, 2, 1, 0, 1), the second (2, 2, 1, 0, 2): 4 of 5 agree.

        >>> f = change_figures(np.array([[2, 2], [2, 2], [1, 1], [0, 0], [1, 2]]))
        >>> round(f.kappa, 4), round(f.agreement, 2), f.note
        (0.6875, 0.8, '')
        >>> change_figures(np.array([[1, 1], [2, 2]])).note
        'needs ≥ 5 samples with two change labels (2 so far)'
        >>> change_figures(np.array([[1, 1]] * 6)).note
        'every change label is neutral: chance agreement is 1, so kappa and α are undefined'
    """
    from sklearn.metrics import cohen_kappa_score

    codes = _as_indices(codes)
    two = codes[(codes[:, :2] >= 0).all(axis=1)] if codes.size else codes
    n = int(two.shape[0])
    counts = np.zeros((len(CHANGE_LABELS), len(CHANGE_LABELS)), dtype=np.int64)
    if n:
        np.add.at(counts, (two[:, 0], two[:, 1]), 1)
        present = two >= 0
        agree = float(np.mean([len(set(row[ok].tolist())) == 1 for row, ok in zip(two, present)]))
    else:
        agree = math.nan
    table = tuple(tuple(int(c) for c in row) for row in counts)
    used = np.unique(two[two >= 0]) if n else np.array([])
    if n < MIN_SAMPLES:
        return ChangeFigures(n, math.nan, math.nan, agree, table,
                             f"needs ≥ {MIN_SAMPLES} samples with two change labels ({n} so far)")
    if used.size < 2:
        return ChangeFigures(n, math.nan, math.nan, agree, table,
                             f"every change label is {CHANGE_LABELS[int(used[0])]}: chance agreement is 1, "
                             "so kappa and α are undefined")
    kappa = float(cohen_kappa_score(two[:, 0], two[:, 1], labels=list(range(len(CHANGE_LABELS)))))
    reliability = np.where(two >= 0, two, np.nan).astype(float).T  # coders (slots) × units (samples)
    return ChangeFigures(n, kappa, package_alpha(reliability, "nominal"), agree, table)


def change_kappa_statistic(codes: np.ndarray) -> SumStatistic:
    """Cohen's kappa of the first two change labels (:func:`change_figures`) as a sum of
    per-sample contributions — each sample's one-hot cell of the slot-1 × slot-2 table, zero
    under two labels — so the seeded bootstrap of :mod:`~annotation.agreement.intervals`
    resamples it like the headline figures (a kappa's 95 % interval, which the field reports).

    Examples:
        >>> codes = np.array([[2, 2], [2, 2], [1, 1], [0, 0], [1, 2], [1, np.nan]])
        >>> round(change_kappa_statistic(codes).value(), 4) == round(change_figures(codes).kappa, 4)
        True
    """
    codes = _as_indices(codes)
    k = len(CHANGE_LABELS)
    columns = np.zeros((codes.shape[0], k * k))
    two = (codes[:, :2] >= 0).all(axis=1) if codes.size else np.zeros(0, dtype=bool)
    rows = np.flatnonzero(two)
    columns[rows, codes[rows, 0] * k + codes[rows, 1]] = 1.0

    def figure(sums: np.ndarray) -> np.ndarray:
        return kappa_from_counts(sums.reshape(len(sums), k, k))

    return SumStatistic(columns, figure)


def change_kappa_interval(samples: Sequence[RatedSample], *, resamples: int | None = None,
                          seed: int = DEFAULT_SEED) -> tuple[float, float]:
    """The seeded bootstrap 95 % interval of the change label's kappa over ``samples``
    (:func:`change_kappa_statistic`, resampled as the headline figures are; ``resamples`` as
    :func:`~annotation.agreement.intervals.bootstrap_intervals`): what the Agreement page and
    the pairs card show beside kappa. (NaN, NaN) where kappa is undefined or with no resamples.

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 1, 5)
        >>> def labelled(i, first, second):
        ...     return RatedSample(f"p{i}", 1, 4, (Rating("a", t, (0,), (None,), change=first),
        ...                                        Rating("b", t, (0,), (None,), change=second)))
        >>> same = [labelled(i, label, label) for i, label in enumerate(CHANGE_LABELS * 4)]
        >>> change_kappa_interval(same, resamples=200)
        (1.0, 1.0)
    """
    statistic = change_kappa_statistic(change_codes(samples))
    return bootstrap_intervals({"change_kappa": statistic}, len(samples), resamples=resamples,
                               seed=seed)["change_kappa"]


def _as_indices(codes: np.ndarray) -> np.ndarray:
    """Label indices as integers, −1 where missing."""
    codes = np.asarray(codes, dtype=float)
    codes = codes.reshape(len(codes), -1) if codes.size else np.zeros((len(codes), 2))
    return np.where(np.isfinite(codes), codes, -1).astype(np.int64)


@dataclass(frozen=True)
class ChangeAgreementResult:
    """The change-label measure's result over a selection (:class:`ChangeFigures` of it)."""

    measure: str
    figures: ChangeFigures

    @property
    def headline(self) -> dict[str, float]:
        return {"change_kappa": self.figures.kappa, "change_alpha": self.figures.alpha}

    def to_json(self) -> dict[str, Any]:
        f = self.figures
        return json_ready({"measure": self.measure, "n_samples": f.n_samples, "kappa": f.kappa,
                           "alpha": f.alpha, "agreement": f.agreement, "labels": list(CHANGE_LABELS),
                           "counts": f.counts, "note": f.note})


@dataclass(frozen=True)
class ChangeLabelMeasure(TabulatedMixin):
    """Kappa, α and agreement on the change label (module docstring)."""

    name: ClassVar[str] = "change"
    consumes: ClassVar[Consumes] = Consumes.CHANGE_LABEL

    def tabulate(self, samples: SampleSet) -> Rows:
        return {"change_codes": change_codes(samples)}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> ChangeAgreementResult:
        return ChangeAgreementResult(self.name, change_figures(rows["change_codes"]))

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """``change_agree``: 1 when the sample's labels all agree, 0 when not, NaN under two."""
        codes = _as_indices(rows["change_codes"])
        out = np.full(codes.shape[0], math.nan)
        for i, row in enumerate(codes):
            labels = row[row >= 0]
            if labels.size >= 2:
                out[i] = float(np.all(labels == labels[0]))
        return {"change_agree": out}

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        codes = rows["change_codes"]
        out = []
        for g in range(n_groups):
            f = change_figures(codes[labels == g])
            out.append({"change_kappa": optional(f.kappa), "change_alpha": optional(f.alpha),
                        "change_agreement": optional(f.agreement)})
        return out

    def statistics(self, rows: Rows) -> dict[str, Any]:
        return {}  # no bootstrap: kappa and α need their own minimum, not resampled sums


__all__ = ["ChangeAgreementResult", "ChangeFigures", "ChangeLabelMeasure", "MIN_SAMPLES", "change_codes",
           "change_figures", "change_kappa_interval", "change_kappa_statistic"]
