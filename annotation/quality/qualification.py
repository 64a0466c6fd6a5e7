"""Qualification against gold: an annotator's warm-up work scored against the lead's gold
(SPEC section 5). Pure: data in, data out.

A new annotator annotates the project's warm-up set (samples with lead-made gold) before any
production sample. Their figures over the warm-up samples they have submitted:

* **ICC** — for each curve parameter ξ, ω, α the one-way random ICC(1,1) of a
  (samples × 2 raters) table whose raters are *the annotator* and *the gold*
  (:func:`annotation.agreement.icc_1_1`, the value pingouin reports as ICC(1,1)). One-way,
  as on the agreement page: the question is "are the two values of a sample interchangeable",
  and a single ICC form keeps the warm-up figure comparable with the production headline.
  The figure compared with ``qualify_icc_min`` is the **smallest of the three** (every
  parameter must pass, as the agreement page judges each parameter against the same
  threshold); each parameter is reported too. Samples the annotator submitted without a curve
  (flagged) are left out of the ICC and counted; fewer than two samples with a curve, or no
  variance, give no ICC (``None``).
* **Which rule judges the curves.** An ICC says how well the annotator tells the samples apart,
  so it means something only over enough samples whose gold curves differ: on three warm-up
  samples whose gold ω are 26.69, 26.69 and 27.36 an exact copy of the gold got ICC ω 0.894 and
  failed. The ICC decides only with ≥ :data:`ICC_MIN_SAMPLES` samples with a curve (the ICC's
  minimum, ``NEEDS["icc"]`` of :mod:`annotation.publishable`: 30, Koo & Li 2016) *and* a gold
  spread (standard deviation over those samples) of at least :data:`ICC_MIN_SPREAD` in every
  parameter. Otherwise the **curve rule** decides, in absolute terms: the curve distance W1 to the
  gold (:func:`annotation.curves.distance.curve_distance`) is at most the project's
  ``flag_w1_max`` on *every* warm-up sample with a curve — the distance at which two production
  annotations are flagged as far apart. The verdict says which rule decided and why
  (:attr:`QualificationFigures.curve_rule_reason`). An exact copy of the gold passes either way
  (W1 0; ICC 1).
* **Jaccard** of the (token, axis) label sets against gold, averaged over samples. A gold
  segment may carry several axes (a union), so a token's gold set is every axis of its segment:
  ``J = |A ∩ G| / |A ∪ G|`` with ``A = {(t, axis_t)}`` the annotator's pairs (tokens of an
  unlabelled segment contribute none) and ``G = {(t, x) : x ∈ gold axes of t's segment}``.
* **Pk** between the annotator's and the gold segmentation, both ways averaged
  (:func:`annotation.agreement.pk_both_ways`), averaged over samples where it is defined.
* **Which rule judges the labels and the segmentation.** A mean over samples is a figure only
  over ``NEEDS["jaccard"]`` / ``NEEDS["pk"]`` (10) samples; below, the mean is shown as withheld
  ("— needs ≥ 10 samples with axis labels (n = 3)") and the **per-sample rule** decides instead:
  Jaccard > ``qualify_jaccard_min`` and Pk < ``qualify_pk_max`` on *every* warm-up sample — the
  rule each ongoing gold check is passed by (:mod:`annotation.quality.gold_checks`). So a short
  warm-up set is judged sample by sample, never by a mean of three; an exact copy passes either way.

**Admission** (:func:`meets_thresholds`): the annotator has submitted every sample of the
warm-up set, and the curves pass (ICC > ``qualify_icc_min``, or W1 ≤ ``flag_w1_max`` on every
sample where the ICC cannot decide), Jaccard > ``qualify_jaccard_min`` and
Pk < ``qualify_pk_max`` (strict, as SPEC section 5 writes them; by the mean, or on every sample
below the mean's minimum), each judged by
:func:`annotation.agreement.judge` — the function every page's verdict comes from, so a page
and the decision cannot disagree. A figure that cannot be computed does not pass; a lead can
always admit (override).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np

from annotation.agreement import (
    ICC_RULE,
    JACCARD_RULE,
    PK_RULE,
    W1_RULE,
    Rule,
    Verdict,
    icc_1_1,
    judge,
    pk_both_ways,
    shown_threshold,
)
from annotation.agreement.measure import json_ready
from annotation.curves.distance import curve_distance
from annotation.curves.limits import CurveFitError
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.publishable import NEEDS, figure
from annotation.review.resolution import Resolution
from annotation.segmentation import Segmentation, SegmentationError
from annotation.settings import ProjectSettings
from annotation.wording import counted

#: The three figures an annotator must pass, in display order: the curves (by ICC or by W1, see
#: :attr:`QualificationFigures.curve_rule`), the axis labels and the segmentation.
FIGURES: tuple[str, ...] = ("curve", "jaccard", "pk")
#: How each figure reads against its threshold (ICC, Jaccard and Pk strict, as SPEC section 5
#: writes them; W1 passes at its threshold, where a production pair is not yet flagged).
FIGURE_RULES: dict[str, Rule] = {"icc": ICC_RULE, "w1": W1_RULE.named("W1 to the gold (largest)"),
                                 "jaccard": JACCARD_RULE, "pk": PK_RULE,
                                 "jaccard_each": JACCARD_RULE.named("Jaccard to the gold (smallest)"),
                                 "pk_each": PK_RULE.named("Pk to the gold (largest)")}
#: The two rules that may judge the curves (:attr:`QualificationFigures.curve_rule`).
CURVE_BY_ICC, CURVE_BY_W1 = "icc", "w1"
#: The ICC judges the curves only over at least this many warm-up samples with a curve …
ICC_MIN_SAMPLES = NEEDS["icc"].min_n
#: … whose gold values spread at least this far (standard deviation; ξ and ω in log-time units of
#: the axis, where 1 unit is ×1.1 in time; α in units of skew). Below it the samples hardly differ,
#: and the ICC measures noise.
ICC_MIN_SPREAD: dict[str, float] = {"xi": 1.0, "omega": 1.0, "alpha": 0.5}


@dataclass(frozen=True)
class Thresholds:
    """The qualification thresholds of a project (``ProjectSettings.qualify_*``; the defaults
    are a new project's)."""

    icc_min: float = ProjectSettings.qualify_icc_min
    jaccard_min: float = ProjectSettings.qualify_jaccard_min
    pk_max: float = ProjectSettings.qualify_pk_max
    w1_max: float = ProjectSettings.flag_w1_max

    @classmethod
    def of(cls, settings: ProjectSettings) -> "Thresholds":
        return cls(settings.qualify_icc_min, settings.qualify_jaccard_min, settings.qualify_pk_max,
                   settings.flag_w1_max)

    def of_figure(self, name: str) -> float:
        """The threshold of figure ``name`` (``icc``, ``w1``, ``jaccard`` or ``pk``)."""
        return {"icc": self.icc_min, "w1": self.w1_max, "jaccard": self.jaccard_min,
                "pk": self.pk_max}[name]


@dataclass(frozen=True)
class WarmupAttempt:
    """One submitted warm-up annotation next to the sample's gold.

    ``segment_axes`` has one axis (or None when unlabelled) per segment of ``boundaries``;
    ξ, ω, α are None when the annotator submitted the sample flagged without a curve.
    """

    sample_id: str
    gold: Resolution
    boundaries: tuple[int, ...]
    segment_axes: tuple[str | None, ...]
    xi: float | None = None
    omega: float | None = None
    alpha: float | None = None

    @property
    def has_curve(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)


@dataclass(frozen=True)
class AttemptScore:
    """The per-sample figures of one attempt (NaN where undefined): ``w1`` is the curve distance
    to the gold."""

    sample_id: str
    jaccard: float
    pk: float
    abs_delta: Mapping[str, float] = field(hash=False)
    w1: float = math.nan


@dataclass(frozen=True)
class QualificationFigures:
    """An annotator's figures against gold over ``n_done`` of the ``n_total`` warm-up samples.

    ``icc`` maps each parameter to its ICC(1,1) against gold (None when undefined); ``icc_min``
    is the ICC figure; ``w1_max`` the largest curve distance to the gold over the samples with a
    curve (None without one, or when a curve lies off the axis); ``gold_spread`` the standard
    deviation of each gold parameter over those samples (None under two). Which of the two
    judges the curves: :attr:`curve_rule` (module docstring). ``n_jaccard``/``n_pk``: the samples
    each mean is over (None in figures stored before they were kept: ``n_done``), and
    ``jaccard_lowest``/``pk_highest`` the worst sample, which the per-sample rule judges.
    """

    n_done: int
    n_total: int
    icc: Mapping[str, float | None] = field(hash=False)
    jaccard: float | None
    pk: float | None
    n_with_curve: int = 0
    samples: tuple[AttemptScore, ...] = ()
    w1_max: float | None = None
    gold_spread: Mapping[str, float | None] = field(default_factory=dict, hash=False)
    n_jaccard: int | None = None
    n_pk: int | None = None
    jaccard_lowest: float | None = None
    pk_highest: float | None = None

    def measured(self, name: str) -> int:
        """How many samples the mean ``name`` (``jaccard`` or ``pk``) is over."""
        n = self.n_jaccard if name == "jaccard" else self.n_pk
        return self.n_done if n is None else n

    def by_each_sample(self, name: str) -> bool:
        """Whether the per-sample rule judges ``name`` (``jaccard`` or ``pk``): too few samples
        for its mean (module docstring).

        >>> QualificationFigures(3, 3, {}, 1.0, 0.0, 3, n_jaccard=3).by_each_sample("jaccard")
        True
        """
        return self.measured(name) < NEEDS[name].min_n

    @property
    def icc_min(self) -> float | None:
        values = [self.icc.get(p) for p in PARAMETERS]
        return None if any(v is None for v in values) else min(values)  # type: ignore[type-var]

    @property
    def curve_rule_reason(self) -> str:
        """Why the ICC does not judge the curves ("" when it does).

        Examples:
            >>> QualificationFigures(3, 3, {}, 1.0, 0.0, 3).curve_rule_reason
            'ICC not used: 3 warm-up samples with a curve (it needs ≥ 30)'
            >>> spread = {"xi": 20.0, "omega": 0.39, "alpha": 1.0}
            >>> QualificationFigures(32, 32, {}, 1.0, 0.0, 32, gold_spread=spread).curve_rule_reason
            'ICC not used: the gold ω hardly varies (spread 0.39 < 1.0)'
        """
        if self.n_with_curve < ICC_MIN_SAMPLES:
            return (f"ICC not used: {counted(self.n_with_curve, 'warm-up sample')} with a curve "
                    f"(it needs ≥ {ICC_MIN_SAMPLES})")
        for p in PARAMETERS:
            spread = self.gold_spread.get(p)
            if spread is None or not spread >= ICC_MIN_SPREAD[p]:
                shown = "unknown" if spread is None else f"{spread:.2f}"
                return (f"ICC not used: the gold {PARAMETER_SYMBOLS[p]} hardly varies "
                        f"(spread {shown} < {ICC_MIN_SPREAD[p]})")
        return ""

    @property
    def curve_rule(self) -> str:
        """:data:`CURVE_BY_ICC` when the ICC can judge the curves, else :data:`CURVE_BY_W1`."""
        return CURVE_BY_W1 if self.curve_rule_reason else CURVE_BY_ICC

    @property
    def complete(self) -> bool:
        """The whole warm-up set is submitted (and there is one)."""
        return self.n_total > 0 and self.n_done >= self.n_total

    def value(self, name: str) -> float | None:
        """The compared value of figure ``name`` (``icc``, ``w1``, ``jaccard`` or ``pk``; ``curve``
        is the one of :attr:`curve_rule`)."""
        if name == "curve":
            name = self.curve_rule
        if name in ("jaccard", "pk") and self.by_each_sample(name):
            return self.jaccard_lowest if name == "jaccard" else self.pk_highest
        return {"icc": self.icc_min, "w1": self.w1_max, "jaccard": self.jaccard, "pk": self.pk}[name]

    def to_json(self) -> dict[str, Any]:
        """The stored form (``Qualification.figures``): no per-sample detail."""
        return json_ready({
            "n_done": self.n_done,
            "n_total": self.n_total,
            "icc": {p: self.icc.get(p) for p in PARAMETERS},
            "icc_min": self.icc_min,
            "jaccard": self.jaccard,
            "pk": self.pk,
            "n_with_curve": self.n_with_curve,
            "w1_max": self.w1_max,
            "gold_spread": {p: self.gold_spread.get(p) for p in PARAMETERS},
            "curve_rule": self.curve_rule,
            "n_jaccard": self.measured("jaccard"), "n_pk": self.measured("pk"),
            "jaccard_lowest": self.jaccard_lowest, "pk_highest": self.pk_highest,
        })

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "QualificationFigures":
        data = data or {}
        icc = data.get("icc") or {}
        spread = data.get("gold_spread") or {}
        return cls(int(data.get("n_done") or 0), int(data.get("n_total") or 0),
                   {p: _opt(icc.get(p)) for p in PARAMETERS}, _opt(data.get("jaccard")),
                   _opt(data.get("pk")), int(data.get("n_with_curve") or 0),
                   w1_max=_opt(data.get("w1_max")), gold_spread={p: _opt(spread.get(p)) for p in PARAMETERS},
                   n_jaccard=_count(data.get("n_jaccard")), n_pk=_count(data.get("n_pk")),
                   jaccard_lowest=_opt(data.get("jaccard_lowest")), pk_highest=_opt(data.get("pk_highest")))


def _opt(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def gold_jaccard(boundaries: Sequence[int], segment_axes: Sequence[str | None], gold: Resolution) -> float:
    """Jaccard of an annotation's (token, axis) pairs against the gold's (module docstring).

    Raises :class:`~annotation.segmentation.SegmentationError` when ``boundaries`` do not fit
    the gold's text.
    """
    n = gold.n_tokens
    seg = Segmentation.from_boundaries(boundaries, n)
    if len(segment_axes) != seg.n_segments:
        raise SegmentationError(f"{counted(len(segment_axes), 'axis label')} for "
                                f"{counted(seg.n_segments, 'segment')}")
    mine = [segment_axes[j] for j in seg.segment_ids()]
    golden = [gold.segment_axes[j] for j in gold.segmentation.segment_ids()]
    labelled = sum(1 for a in mine if a is not None)
    gold_pairs = sum(len(axes) for axes in golden)
    both = sum(1 for a, axes in zip(mine, golden) if a is not None and a in axes)
    union = labelled + gold_pairs - both
    return both / union if union else math.nan


def score_attempt(attempt: WarmupAttempt) -> AttemptScore:
    """Jaccard and Pk against gold and |p − gold p| of one attempt (NaN where undefined)."""
    gold = attempt.gold
    try:
        jaccard = gold_jaccard(attempt.boundaries, attempt.segment_axes, gold)
        pk = pk_both_ways(Segmentation.from_boundaries(attempt.boundaries, gold.n_tokens),
                          gold.segmentation)
    except SegmentationError:
        jaccard = pk = math.nan
    both = attempt.has_curve and gold.has_parameters
    deltas = {p: (abs(getattr(attempt, p) - getattr(gold, p)) if both else math.nan) for p in PARAMETERS}
    w1 = math.nan
    if both:
        try:
            w1 = curve_distance((attempt.xi, attempt.omega, attempt.alpha),  # type: ignore[arg-type]
                                (gold.xi, gold.omega, gold.alpha)).w1
        except CurveFitError:  # a curve off the axis: no distance
            pass
    return AttemptScore(attempt.sample_id, jaccard, pk, deltas, w1)


def qualification_figures(attempts: Sequence[WarmupAttempt], n_total: int) -> QualificationFigures:
    """The figures of one annotator's submitted warm-up attempts against gold (module docstring).

    ``n_total`` is the size of the warm-up set (samples with gold).
    """
    scores = tuple(score_attempt(a) for a in attempts)
    with_curve = [a for a in attempts if a.has_curve and a.gold.has_parameters]
    icc: dict[str, float | None] = {}
    spread: dict[str, float | None] = {}
    for p in PARAMETERS:
        table = np.array([[getattr(a, p), getattr(a.gold, p)] for a in with_curve], dtype=float)
        icc[p] = _finite_or_none(icc_1_1(table)) if len(with_curve) >= 2 else None
        spread[p] = float(np.std(table[:, 1], ddof=1)) if len(with_curve) >= 2 else None
    distances = [s.w1 for s in scores if math.isfinite(s.w1)]
    w1_max = max(distances) if distances and len(distances) == len(with_curve) else None
    jaccards = [s.jaccard for s in scores if math.isfinite(s.jaccard)]
    pks = [s.pk for s in scores if math.isfinite(s.pk)]
    return QualificationFigures(
        n_done=len(attempts),
        n_total=n_total,
        icc=icc,
        jaccard=_mean(jaccards),
        pk=_mean(pks),
        n_with_curve=len(with_curve),
        samples=scores,
        w1_max=w1_max,
        gold_spread=spread,
        n_jaccard=len(jaccards),
        n_pk=len(pks),
        jaccard_lowest=min(jaccards) if jaccards else None,
        pk_highest=max(pks) if pks else None,
    )


def _mean(values: Sequence[float]) -> float | None:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else None


def _undefined_reasons(figures: QualificationFigures) -> dict[str, str]:
    """Why each figure of ``figures`` that has no value has none."""
    if figures.n_done == 0:
        nothing = "needs ≥ 1 submitted warm-up sample"
        return {"icc": "needs ≥ 2 submitted warm-up samples with a curve",
                "w1": "needs ≥ 1 submitted warm-up sample with a curve", "jaccard": nothing, "pk": nothing}
    if figures.n_with_curve < 2:
        icc = f"needs ≥ 2 warm-up samples with a curve ({figures.n_with_curve} so far)"
    else:
        flat = [PARAMETER_SYMBOLS[p] for p in PARAMETERS if figures.icc.get(p) is None]
        icc = f"no variance in {', '.join(flat)} (every value the same)"
    w1 = ("needs ≥ 1 warm-up sample with a curve" if figures.n_with_curve == 0 else
          "a curve lies off the time axis, so its distance to the gold is not defined")
    return {"icc": icc, "w1": w1, "jaccard": "no axis labels to compare with the gold yet",
            "pk": "no segmentation comparable with the gold yet"}


def _curve_verdict(figures: QualificationFigures, thresholds: Thresholds, reasons: dict[str, str]) -> Verdict:
    """The curves judged by the rule that can judge them; a W1 verdict says why the ICC did not."""
    rule = figures.curve_rule
    verdict = judge(figures.value(rule), thresholds.of_figure(rule), rule=FIGURE_RULES[rule],
                    reason=reasons[rule])
    if rule == CURVE_BY_ICC or not verdict.defined:
        return verdict
    why = figures.curve_rule_reason
    return replace(verdict, text=f"{verdict.text} ({why}; the curve rule decides: W1 to the gold ≤ "
                                 f"{shown_threshold(thresholds.w1_max)} on every sample)")


def figure_verdicts(figures: QualificationFigures, thresholds: Thresholds) -> dict[str, Verdict]:
    """Each figure judged against its threshold (:data:`FIGURE_RULES`, by
    :func:`annotation.agreement.judge`); an undefined figure does not pass and says why. The
    ``curve`` verdict is the ICC's or, where the ICC cannot decide, the W1 rule's, and then says
    so (module docstring)."""
    reasons = _undefined_reasons(figures)
    verdicts = {"curve": _curve_verdict(figures, thresholds, reasons)}
    verdicts |= {name: _mean_verdict(figures, thresholds, name, reasons[name]) for name in ("jaccard", "pk")}
    return verdicts


def _mean_verdict(figures: QualificationFigures, thresholds: Thresholds, name: str, reason: str) -> Verdict:
    """Jaccard or Pk judged by its mean, or — over too few samples for a mean — on every sample
    (the worst one), saying so with the withheld mean and its n (module docstring)."""
    if not figures.by_each_sample(name):
        return judge(figures.value(name), thresholds.of_figure(name), rule=FIGURE_RULES[name], reason=reason)
    rule = FIGURE_RULES[f"{name}_each"]
    verdict = judge(figures.value(name), thresholds.of_figure(name), rule=rule, reason=reason)
    if not verdict.defined:
        return verdict
    mean = figure(NEEDS[name], None, n=figures.measured(name)).text()
    sign = ">" if rule.minimum else "<"
    return replace(verdict, text=f"{verdict.text} (mean {mean}; the per-sample rule decides: {FIGURE_RULES[name].name} "
                                 f"{sign} {shown_threshold(thresholds.of_figure(name))} on every sample)")


def figure_checks(figures: QualificationFigures, thresholds: Thresholds) -> dict[str, bool]:
    """Whether each figure passes its threshold (an undefined figure does not)."""
    return {name: v.passes is True for name, v in figure_verdicts(figures, thresholds).items()}


def meets_thresholds(figures: QualificationFigures, thresholds: Thresholds) -> bool:
    """The automatic admission rule: the whole warm-up set done and all three figures pass."""
    return figures.complete and all(figure_checks(figures, thresholds).values())


__all__ = [
    "CURVE_BY_ICC",
    "CURVE_BY_W1",
    "FIGURES",
    "ICC_MIN_SAMPLES",
    "ICC_MIN_SPREAD",
    "FIGURE_RULES",
    "PARAMETERS",
    "AttemptScore",
    "QualificationFigures",
    "Thresholds",
    "WarmupAttempt",
    "figure_checks",
    "figure_verdicts",
    "gold_jaccard",
    "meets_thresholds",
    "qualification_figures",
    "score_attempt",
]
