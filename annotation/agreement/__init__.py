"""Inter-annotator agreement (SPEC section 6): pure, no Streamlit, no SQL.

One module per measure, each a small unit that declares what it consumes and returns a frozen
result (:mod:`~annotation.agreement.measure` has the contract):

* ``icc`` — consumes curve parameters: ICC of ξ, ω, α, six forms with 95% CI (pingouin);
* ``jaccard`` — token axis labels: Jaccard of (token, axis) sets, mean and per axis (numpy);
* ``kappa`` — token axis labels: Cohen's kappa, micro precision, co-occurrence matrix, each
  also with Generic/Static merged (scikit-learn);
* ``segment_agreement`` — segmentation: Pk and WindowDiff (both ways averaged, vectorised),
  boundary similarity (segeval);
* ``curve_agreement`` — curve parameters: W1 and overlap of the annotators' curves;
* ``krippendorff_alpha`` — Krippendorff's α, interval on ξ, ω, α and nominal on axis labels.

``intervals`` gives the seeded bootstrap intervals of the headline figures and Wilson intervals;
``tables`` the one-pass per-sample arrays the measures share.

Inputs are :class:`RatedSample` objects (one text, its ratings in submission order); any k ≥ 2
ratings per sample is handled (pairwise measures average over all pairs, the ICC uses slots as
raters). :func:`agreement_report` runs the measures overall, per annotator pair and per week and
builds the per-sample table::

    from annotation.agreement import RatedSample, Rating, agreement_report
    report = agreement_report(samples)
    report.icc["xi"].headline          # ICC(1,1) of ξ
    report.jaccard.mean, report.segmentation.pk, report.kappa.merged.kappa
    report.per_sample.to_csv(...)      # one row per sample
    json.dumps(report.to_json())
"""

from annotation.agreement.curve_agreement import CurveAgreementMeasure, CurveAgreementResult
from annotation.agreement.icc import (
    FORMS as ICC_FORMS,
    HEADLINE_FORM as ICC_HEADLINE_FORM,
    SHROUT_FLEISS_NAMES,
    IccForm,
    IccResult,
    ParameterIcc,
    icc_1_1,
    intraclass_correlation,
)
from annotation.agreement.icc_measure import IccMeasure
from annotation.agreement.intervals import bootstrap_intervals, wilson_interval
from annotation.agreement.jaccard import AxisJaccard, JaccardMeasure, JaccardResult, label_set_jaccard
from annotation.agreement.kappa import (
    MERGED_CLASS,
    MERGED_CLASSES,
    KappaMeasure,
    KappaResult,
    LabelAgreement,
    label_agreement,
)
from annotation.agreement.krippendorff_alpha import (
    ALPHA_LABELS,
    KrippendorffCurveMeasure,
    KrippendorffLabelsMeasure,
    KrippendorffResult,
)
from annotation.agreement.measure import Measure, MeasureResult, json_ready
from annotation.agreement.ratings import (
    PARAMETERS,
    AgreementInputError,
    Consumes,
    RatedSample,
    Rating,
    iso_week,
    raters_per_sample,
)
from annotation.agreement.report import (
    DEFAULT_MEASURES,
    HEADLINE_MEASURES,
    HEADLINE_NAMES,
    SAMPLE_COLUMNS,
    AgreementReport,
    PairAgreement,
    WeekAgreement,
    agreement_report,
    clear_caches,
)
from annotation.agreement.segment_agreement import (
    SegmentationMeasure,
    SegmentationResult,
    SegmentComparison,
    compare_segmentations,
    pk_both_ways,
    window_diff_both_ways,
)
from annotation.agreement.verdict import (
    ICC_RULE,
    JACCARD_RULE,
    PK_RULE,
    W1_RULE,
    Rule,
    Verdict,
    icc_reason,
    judge,
    shown_threshold,
    verdicts_summary,
)

__all__ = [
    "ALPHA_LABELS",
    "AgreementInputError",
    "ICC_RULE",
    "JACCARD_RULE",
    "PK_RULE",
    "Rule",
    "Verdict",
    "W1_RULE",
    "AgreementReport",
    "AxisJaccard",
    "Consumes",
    "CurveAgreementMeasure",
    "CurveAgreementResult",
    "DEFAULT_MEASURES",
    "HEADLINE_MEASURES",
    "HEADLINE_NAMES",
    "ICC_FORMS",
    "ICC_HEADLINE_FORM",
    "IccForm",
    "IccMeasure",
    "IccResult",
    "JaccardMeasure",
    "JaccardResult",
    "KappaMeasure",
    "KappaResult",
    "KrippendorffCurveMeasure",
    "KrippendorffLabelsMeasure",
    "KrippendorffResult",
    "LabelAgreement",
    "MERGED_CLASS",
    "MERGED_CLASSES",
    "Measure",
    "MeasureResult",
    "PARAMETERS",
    "PairAgreement",
    "ParameterIcc",
    "RatedSample",
    "Rating",
    "SAMPLE_COLUMNS",
    "SHROUT_FLEISS_NAMES",
    "SegmentComparison",
    "SegmentationMeasure",
    "SegmentationResult",
    "WeekAgreement",
    "agreement_report",
    "bootstrap_intervals",
    "clear_caches",
    "compare_segmentations",
    "icc_1_1",
    "icc_reason",
    "intraclass_correlation",
    "iso_week",
    "judge",
    "json_ready",
    "label_agreement",
    "label_set_jaccard",
    "pk_both_ways",
    "raters_per_sample",
    "shown_threshold",
    "verdicts_summary",
    "wilson_interval",
    "window_diff_both_ways",
]
