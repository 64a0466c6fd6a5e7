"""Agreement of a pairs project's gold with an imported release's reference labels.

When pairs come from a release that carries its own labels (TVCP's ``context_only_tv``,
``combined_tv`` and ``change``), the gold can be read against them: the settled change label
against the reference change, and the TVCP class of each gold curve (the class holding its
half-gone time, :func:`annotation.pairs.duration_classes.class_of_curve`) against the reference
class — of the target alone and of the target given the follow-up. Each comparison gives the
**accuracy** (share equal; scikit-learn ``accuracy_score``) and **Cohen's kappa**
(``cohen_kappa_score``) over the samples that have both values.

No figure reports what its data cannot support: both need at least :data:`MIN_SAMPLES` samples
with both values, and kappa is undefined when gold and reference each use one and the same
label throughout (chance agreement 1); the figure's ``note`` says which rule left it out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from annotation.agreement.measure import json_ready
from annotation.pairs.change import CHANGE_LABELS
from annotation.pairs.duration_classes import CLASS_NAMES, class_of_curve

#: Samples with both values below which neither accuracy nor kappa is given.
MIN_SAMPLES = 5
Curve = tuple[float, float, float]


@dataclass(frozen=True)
class ReferenceRow:
    """One gold pair beside its reference labels: the gold's change label ("" when none) and two
    curves (None when missing), the reference change ("" when none) and class indices (None)."""

    gold_change: str
    gold_alone: Curve | None
    gold_given: Curve | None
    reference_change: str = ""
    reference_alone: int | None = None
    reference_given: int | None = None


@dataclass(frozen=True)
class ReferenceFigure:
    """Gold against reference on one variable (``what``): over ``n`` samples with both values,
    the ``accuracy`` and Cohen's ``kappa`` (NaN where a rule left them out: ``note``)."""

    what: str
    n: int
    accuracy: float
    kappa: float
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return json_ready({"what": self.what, "n": self.n, "accuracy": self.accuracy, "kappa": self.kappa,
                           "note": self.note})


def compare_with_reference(what: str, gold: Sequence[Any], reference: Sequence[Any],
                           labels: Sequence[Any]) -> ReferenceFigure:
    """Accuracy and kappa of ``gold`` against ``reference`` (pairs with a None or "" on either
    side are left out), over the label set ``labels``.

    Examples:
        >>> g = ["increased", "neutral", "neutral", "decreased", "increased", "neutral"]
        >>> r = ["increased", "neutral", "increased", "decreased", "increased", ""]
        >>> f = compare_with_reference("change", g, r, CHANGE_LABELS)
        >>> f.n, f.accuracy, round(f.kappa, 4)
        (5, 0.8, 0.6875)
        >>> compare_with_reference("change", g[:3], r[:3], CHANGE_LABELS).note
        'needs ≥ 5 samples with a gold and a reference value (3 so far)'
        >>> compare_with_reference("change", ["neutral"] * 5, ["neutral"] * 5, CHANGE_LABELS).note
        'gold and reference are neutral throughout: chance agreement is 1, so kappa is undefined'
    """
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    both = [(a, b) for a, b in zip(gold, reference) if a not in (None, "") and b not in (None, "")]
    n = len(both)
    if n < MIN_SAMPLES:
        return ReferenceFigure(what, n, math.nan, math.nan,
                               f"needs ≥ {MIN_SAMPLES} samples with a gold and a reference value ({n} so far)")
    g, r = [a for a, _ in both], [b for _, b in both]
    accuracy = float(accuracy_score(r, g))
    if len(set(g) | set(r)) < 2:
        return ReferenceFigure(what, n, accuracy, math.nan,
                               f"gold and reference are {g[0]} throughout: chance agreement is 1, "
                               "so kappa is undefined")
    return ReferenceFigure(what, n, accuracy, float(cohen_kappa_score(g, r, labels=list(labels))))


def reference_agreement(rows: Sequence[ReferenceRow]) -> tuple[ReferenceFigure, ...]:
    """The gold's change label and both curves' classes against the reference (module docstring).

    Examples:
        >>> rows = [ReferenceRow("increased", (45.0, 10.0, 0.0), (62.0, 10.0, 0.0), "increased", 6, 8)] * 5
        >>> [(f.what, f.n, f.accuracy) for f in reference_agreement(rows)]
        [('change', 5, 1.0), ('class alone', 5, 1.0), ('class given the follow-up', 5, 0.0)]
    """
    def cls(curve: Curve | None) -> int | None:
        return None if curve is None else class_of_curve(*curve).index

    classes = list(range(len(CLASS_NAMES)))
    return (
        compare_with_reference("change", [x.gold_change for x in rows], [x.reference_change for x in rows],
                               CHANGE_LABELS),
        compare_with_reference("class alone", [cls(x.gold_alone) for x in rows],
                               [x.reference_alone for x in rows], classes),
        compare_with_reference("class given the follow-up", [cls(x.gold_given) for x in rows],
                               [x.reference_given for x in rows], classes),
    )


__all__ = ["MIN_SAMPLES", "ReferenceFigure", "ReferenceRow", "compare_with_reference", "reference_agreement"]
