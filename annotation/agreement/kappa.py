"""Cohen's kappa, micro precision and the axis co-occurrence matrix over token labels (SPEC 6).

Consumes token axis labels. Every pair of labelled ratings of a sample contributes its tokens
(each token carries its segment's axis); tokens are pooled over samples and pairs, the earlier
slot as ``y1`` and the later as ``y2``. With scikit-learn:

* **Cohen's kappa** ``(p_o − p_e) / (1 − p_e)`` — symmetric in the two annotators. Undefined
  (NaN, with ``kappa_note``) when both annotators used one and the same axis throughout, since
  chance agreement is then 1.
* **Micro-averaged precision** over all axes. With one label per token and every axis counted,
  micro precision equals micro recall and the share of tokens on which the two agree (p_o), so it
  does not depend on who is taken as the reference.
* **Co-occurrence matrix** (the confusion matrix). Neither annotator is the reference, so it is
  symmetrised: ``(C + Cᵀ) / 2`` with ``C[i, j]`` the number of tokens the earlier annotator
  labelled i and the later j. The diagonal counts agreements, cell (i, j) and (j, i) each hold
  half the tokens on which one said i and the other j, and the whole sums to the number of
  pooled tokens. Rows and columns are axis names in :data:`annotation.axes.AXES` order.

All three are given twice: over the eight axes and with Generic and Static (the confusable pair,
:data:`annotation.axes.CONFUSABLE_PAIR`) merged into one class ``"generic/static"``, placed where
the first of the two stands in the axis order.

Reference: Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
Psychological Measurement 20(1), 37–46.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np
import pandas as pd

from annotation.agreement.measure import TabulatedMixin, json_ready, optional
from annotation.agreement.ratings import Consumes, RatedSample
from annotation.agreement.tables import Rows, SampleSet, group_sums
from annotation.axes import AXIS_NAMES, CONFUSABLE_PAIR

#: The class that replaces Generic and Static in the merged scheme.
MERGED_CLASS = "/".join(CONFUSABLE_PAIR)


def _merged_scheme() -> tuple[tuple[str, ...], np.ndarray]:
    classes: list[str] = []
    code_map = np.zeros(len(AXIS_NAMES), dtype=np.int64)
    for code, name in enumerate(AXIS_NAMES):
        label = MERGED_CLASS if name in CONFUSABLE_PAIR else name
        if label not in classes:
            classes.append(label)
        code_map[code] = classes.index(label)
    return tuple(classes), code_map


#: Classes with Generic and Static merged, and the map from axis code to merged class index.
MERGED_CLASSES, _MERGED_CODE = _merged_scheme()


@dataclass(frozen=True)
class LabelAgreement:
    """Kappa, micro precision and symmetrised co-occurrence counts under one class scheme."""

    classes: tuple[str, ...]
    kappa: float
    precision: float
    n_tokens: int
    counts: tuple[tuple[float, ...], ...]
    kappa_note: str = ""

    @property
    def co_occurrence(self) -> pd.DataFrame:
        """The symmetrised co-occurrence matrix, indexed and columned by class (a fresh copy)."""
        index = pd.Index(self.classes, name="axis")
        return pd.DataFrame(np.array(self.counts, dtype=float).reshape(len(self.classes), -1),
                            index=index, columns=pd.Index(self.classes, name="axis"))

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "classes": self.classes,
                "kappa": self.kappa,
                "kappa_note": self.kappa_note or None,
                "precision": self.precision,
                "n_tokens": self.n_tokens,
                "co_occurrence": self.counts,
            }
        )


def label_agreement(first: np.ndarray, second: np.ndarray, classes: Sequence[str]) -> LabelAgreement:
    """Kappa, micro precision and co-occurrence of two aligned arrays of class indices
    (0 … len(classes) − 1), ``first`` the earlier annotator's labels.

    Examples:
        The worked example of Wikipedia's "Cohen's kappa" article (50 items; yes/yes 20, yes/no 5,
        no/yes 10, no/no 15): p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, so
        kappa = (0.7 − 0.5) / (1 − 0.5) = 0.4.

        >>> first = np.repeat([0, 0, 1, 1], [20, 5, 10, 15])
        >>> second = np.repeat([0, 1, 0, 1], [20, 5, 10, 15])
        >>> result = label_agreement(first, second, ("yes", "no"))
        >>> round(result.kappa, 4), round(result.precision, 4), result.n_tokens
        (0.4, 0.7, 50)
        >>> result.counts                       # symmetrised: the 5 + 10 disagreements split evenly
        ((20.0, 7.5), (7.5, 15.0))
    """
    # sklearn.metrics is imported on use: it costs a second at every app and CLI start
    from sklearn.metrics import confusion_matrix, precision_score

    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    labels = list(range(len(classes)))
    n = int(first.size)
    if n == 0:
        zeros = tuple(tuple(0.0 for _ in labels) for _ in labels)
        return LabelAgreement(tuple(classes), math.nan, math.nan, 0, zeros, "no labelled pairs of ratings")
    matrix = confusion_matrix(first, second, labels=labels).astype(float)
    symmetric = (matrix + matrix.T) / 2.0
    precision = float(precision_score(first, second, labels=labels, average="micro"))
    kappa, note = _kappa(first, second, labels)
    return LabelAgreement(tuple(classes), kappa, precision, n, tuple(map(tuple, symmetric.tolist())), note)


def _kappa(first: np.ndarray, second: np.ndarray, labels: list[int]) -> tuple[float, str]:
    from sklearn.metrics import cohen_kappa_score

    if first.size == 0:
        return math.nan, "no labelled pairs of ratings"
    if first.min() == first.max() == second.min() == second.max():
        return math.nan, "undefined: both annotators used only one class (chance agreement is 1)"
    return float(cohen_kappa_score(first, second, labels=labels)), ""


@dataclass(frozen=True)
class KappaResult:
    """Label agreement over the eight axes (``unmerged``) and with Generic/Static ``merged``."""

    measure: ClassVar[str] = "kappa"
    unmerged: LabelAgreement
    merged: LabelAgreement
    n_pairs: int

    @property
    def headline(self) -> float:
        """Kappa over the eight axes."""
        return self.unmerged.kappa

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "measure": self.measure,
                "n_pairs": self.n_pairs,
                "unmerged": self.unmerged.to_json(),
                "merged": self.merged.to_json(),
            }
        )


def label_agreement_from_counts(counts: np.ndarray, classes: Sequence[str]) -> LabelAgreement:
    """:func:`label_agreement` from a co-occurrence count matrix (``counts[i, j]`` tokens the
    earlier annotator labelled i and the later j) instead of the token arrays: scikit-learn on
    the c² (i, j) combinations weighted by their counts, which gives the same figures.

    Examples:
        >>> counts = np.array([[20, 5], [10, 15]])         # the Wikipedia example again
        >>> result = label_agreement_from_counts(counts, ("yes", "no"))
        >>> round(result.kappa, 4), round(result.precision, 4), result.n_tokens, result.counts
        (0.4, 0.7, 50, ((20.0, 7.5), (7.5, 15.0)))
    """
    from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_score

    counts = np.asarray(counts, dtype=np.int64)
    n_classes = len(classes)
    n = int(counts.sum())
    if n == 0:
        zeros = tuple(tuple(0.0 for _ in classes) for _ in classes)
        return LabelAgreement(tuple(classes), math.nan, math.nan, 0, zeros, "no labelled pairs of ratings")
    first = np.repeat(np.arange(n_classes), n_classes)
    second = np.tile(np.arange(n_classes), n_classes)
    weight = counts.ravel().astype(float)
    keep = weight > 0
    first, second, weight = first[keep], second[keep], weight[keep]
    labels = list(range(n_classes))
    matrix = confusion_matrix(first, second, labels=labels, sample_weight=weight).astype(float)
    symmetric = (matrix + matrix.T) / 2.0
    precision = float(precision_score(first, second, labels=labels, average="micro", sample_weight=weight))
    if first.min() == first.max() == second.min() == second.max():
        kappa, note = math.nan, "undefined: both annotators used only one class (chance agreement is 1)"
    else:
        kappa, note = float(cohen_kappa_score(first, second, labels=labels, sample_weight=weight)), ""
    return LabelAgreement(tuple(classes), kappa, precision, n, tuple(map(tuple, symmetric.tolist())), note)


def kappa_from_counts(counts: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each stacked co-occurrence matrix ``counts`` (g, c, c):
    ``(p_o − p_e) / (1 − p_e)`` — scikit-learn's figure, computed for many groups at once; NaN
    without tokens or when chance agreement is 1 (one and the same class throughout).

    Examples:
        >>> kappa_from_counts(np.array([[[20, 5], [10, 15]], [[4, 0], [0, 0]]])).round(4).tolist()
        [0.4, nan]
    """
    counts = np.asarray(counts, dtype=float)
    n = counts.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(counts, axis1=1, axis2=2) / n
        p_e = (counts.sum(axis=2) * counts.sum(axis=1)).sum(axis=1) / (n * n)
        kappa = (p_o - p_e) / (1 - p_e)
    return np.where((n > 0) & (p_e < 1), kappa, math.nan)


#: One-hot map of the eight axes onto the merged classes (8 × 7).
_MERGE = np.eye(len(MERGED_CLASSES), dtype=np.int64)[_MERGED_CODE]


@dataclass(frozen=True)
class KappaMeasure(TabulatedMixin):
    """Cohen's kappa, micro precision, co-occurrence; unmerged and merged (see module docstring)."""

    name: ClassVar[str] = "kappa"
    consumes: ClassVar[Consumes] = Consumes.TOKEN_AXIS_LABELS

    def tabulate(self, samples: SampleSet) -> Rows:
        """Per sample: the 8 × 8 co-occurrence counts (flattened) and its number of label pairs."""
        pairs = samples.label_pairs
        return {"confusion": samples.confusion,
                "n_pairs": np.bincount(pairs.sample_of_pair, minlength=len(samples))}

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> KappaResult:
        n_axes = len(AXIS_NAMES)
        counts = rows["confusion"].sum(axis=0).reshape(n_axes, n_axes)
        return KappaResult(
            unmerged=label_agreement_from_counts(counts, AXIS_NAMES),
            merged=label_agreement_from_counts(_MERGE.T @ counts @ _MERGE, MERGED_CLASSES),
            n_pairs=int(rows["n_pairs"].sum()),
        )

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        """``kappa`` over the eight axes, tokens pooled over each group's samples."""
        n_axes = len(AXIS_NAMES)
        counts = group_sums(rows["confusion"], labels, n_groups).reshape(n_groups, n_axes, n_axes)
        return [{"kappa": optional(v)} for v in kappa_from_counts(counts)]

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """None: kappa is pooled over tokens, a per-sample kappa on a dozen tokens says little."""
        return {}

    def statistics(self, rows: Rows) -> dict[str, Any]:
        return {}


__all__ = ["MERGED_CLASS", "MERGED_CLASSES", "KappaMeasure", "KappaResult", "LabelAgreement", "kappa_from_counts",
           "label_agreement", "label_agreement_from_counts"]
