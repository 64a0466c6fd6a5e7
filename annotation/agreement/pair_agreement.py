"""Agreement in a context-pairs project: which measures run, and the parts a pairs report adds.

A pair has two curves and a change label. The report of the *target alone* runs the curve
measures (ICC, W1, Krippendorff's α of ξ, ω, α) and the change-label measure
(:mod:`~annotation.agreement.change_agreement`) — and the axis and segmentation measures only
when the project segments its targets: without a segmentation nobody made, Jaccard, kappa on
axes and Pk have nothing to measure and are not run. The *curves given the follow-up* get the
same curve measures in a second report (its ratings carry the second curves), and when the pairs
came with a release's reference labels the gold is read against them
(:mod:`~annotation.agreement.reference_agreement`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.agreement.change_agreement import ChangeAgreementResult, ChangeLabelMeasure
from annotation.agreement.catalogue import SEGMENTED_CURVE, measures_for
from annotation.agreement.measure import Measure, json_ready
from annotation.agreement.ratings import Consumes
from annotation.agreement.reference_agreement import ReferenceFigure
from annotation.agreement.report import AgreementReport

#: The measures of one curve per rating: ICC, W1 and Krippendorff's α of ξ, ω, α.
CURVE_PARAMETERS: frozenset[Consumes] = frozenset({Consumes.CURVE_PARAMETERS})
CURVE_MEASURES: tuple[Measure, ...] = measures_for(CURVE_PARAMETERS)


def pair_measures(segmented: bool) -> tuple[Measure, ...]:
    """The measures of a pairs report of the target alone: the change label's, and the curve
    measures — with the axis and segmentation ones when targets are segmented.

    Examples:
        >>> [m.name for m in pair_measures(False)]
        ['icc', 'curve', 'krippendorff_curve', 'change']
        >>> len(pair_measures(True))  # the seven of a segmented text, and the change label's
        8
    """
    return measures_for({*(SEGMENTED_CURVE if segmented else CURVE_PARAMETERS), Consumes.CHANGE_LABEL})


@dataclass(frozen=True, eq=False)
class ContextPairAgreement:
    """What a pairs project's agreement adds to the report of the target alone: the report of
    the curves given the follow-up (:data:`CURVE_MEASURES`), when reference labels were
    imported the gold against them (None otherwise), and the bootstrap 95 % interval of the
    change label's kappa (:func:`~annotation.agreement.change_agreement.change_kappa_interval`;
    None when not computed)."""

    given: AgreementReport
    reference: tuple[ReferenceFigure, ...] | None = None
    kappa_interval: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"given": self.given.to_json(include_samples=False),
                "reference": None if self.reference is None else [f.to_json() for f in self.reference],
                "change_kappa_interval": None if self.kappa_interval is None else json_ready(list(self.kappa_interval))}


def change_result(report: AgreementReport) -> ChangeAgreementResult | None:
    """The change-label result of a report of the target alone (None when it did not run).

    Examples:
        >>> from annotation.agreement.report import agreement_report
        >>> change_result(agreement_report([], measures=pair_measures(False), breakdowns=False)).figures.n_samples
        0
    """
    return report.results.get(ChangeLabelMeasure.name)  # type: ignore[return-value]


__all__ = ["CURVE_MEASURES", "ContextPairAgreement", "change_result", "pair_measures"]
