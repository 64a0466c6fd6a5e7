"""The catalogue of agreement measures, and the measures a protocol's annotations can feed.

Every measure declares what it consumes (:class:`~annotation.agreement.ratings.Consumes`); a
protocol declares what its annotations provide (``ProjectProtocol.provides``). The measures a
report runs are the catalogue's whose consumption is provided, in catalogue order (the order of
the report's per-sample columns): nothing is listed by hand per protocol, and a measure added to
the catalogue reaches every protocol that provides what it consumes.
"""

from __future__ import annotations

from collections.abc import Iterable

from annotation.agreement.change_agreement import ChangeLabelMeasure
from annotation.agreement.curve_agreement import CurveAgreementMeasure
from annotation.agreement.icc_measure import IccMeasure
from annotation.agreement.jaccard import JaccardMeasure
from annotation.agreement.kappa import KappaMeasure
from annotation.agreement.krippendorff_alpha import KrippendorffCurveMeasure, KrippendorffLabelsMeasure
from annotation.agreement.measure import Measure
from annotation.agreement.ratings import Consumes
from annotation.agreement.segment_agreement import SegmentationMeasure

#: Every measure a report may run, in the report's column order.
CATALOGUE: tuple[Measure, ...] = (
    JaccardMeasure(),
    KappaMeasure(),
    SegmentationMeasure(),
    IccMeasure(),
    CurveAgreementMeasure(),
    KrippendorffCurveMeasure(),
    KrippendorffLabelsMeasure(),
    ChangeLabelMeasure(),
)
#: What a segmented text with one curve provides (a single text; a segmented pair's target).
SEGMENTED_CURVE: frozenset[Consumes] = frozenset(
    {Consumes.TOKEN_AXIS_LABELS, Consumes.SEGMENTATION, Consumes.CURVE_PARAMETERS})


def measures_for(provided: Iterable[Consumes]) -> tuple[Measure, ...]:
    """The catalogue's measures whose consumption ``provided`` satisfies, in catalogue order.

    Examples:
        >>> [m.name for m in measures_for({Consumes.CURVE_PARAMETERS, Consumes.CHANGE_LABEL})]
        ['icc', 'curve', 'krippendorff_curve', 'change']
        >>> len(measures_for(SEGMENTED_CURVE)), measures_for(())
        (7, ())
    """
    wanted = frozenset(provided)
    return tuple(m for m in CATALOGUE if m.consumes in wanted)


__all__ = ["CATALOGUE", "SEGMENTED_CURVE", "measures_for"]
