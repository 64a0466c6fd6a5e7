"""The agreement section of the dataset card: each headline figure of the
agreement report with its bootstrap interval, in words a dataset user reads.

:func:`card_figures` turns an :class:`~annotation.agreement.report.AgreementReport` (the
headline measures over one benchmark's exported samples) into the JSON-ready mapping the export
stores in ``export.json`` (``agreement.<config>``) and renders on the card: the headline figures
by name (``icc_xi`` … ``alpha_labels``, None where undefined), ``intervals`` (name → [low,
high]), ``undefined`` (name → why a figure, or only its interval, has no value), ``bootstrap``
(confidence, resamples, seed) and ``w1_base``, the log base W1 is written in: W1 is converted to
the export's base like location and scale (and like W1 in the records' provenance), so it reads
in the same units as the records.

:func:`agreement_lines` writes one config's figures as a list ("Curve distance W1 5.45 base-1.1
log-time units [5.42, 5.49] (curves ≈ ×1.7 apart in time)"), or any other mapping of figures a
caller gave as plain key: value lines.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.agreement.measure import json_ready
from annotation.agreement.report import HEADLINE_NAMES, AgreementReport
from annotation.agreement.published import headline_figures
from annotation.agreement.verdict import MISSING
from annotation.export.card_experts import EXPERTS
from annotation.publishable import Figure
from annotation.review.adjudication import decision_named
from annotation.timeaxis import DEFAULT_BASE

#: What each headline figure is called on the card.
FIGURE_LABELS: Mapping[str, str] = {
    "icc_xi": "ICC(1,1) of location ξ",
    "icc_omega": "ICC(1,1) of scale ω",
    "icc_alpha": "ICC(1,1) of skewness α",
    "jaccard": "Jaccard of token axis labels",
    "pk": "Pk of segmentations (lower is better)",
    "w1": "Curve distance W1",
    "alpha_xi": "Krippendorff's α (ξ)",
    "alpha_omega": "Krippendorff's α (ω)",
    "alpha_alpha": "Krippendorff's α (skewness α)",
    "alpha_labels": "Krippendorff's α (axis labels)",
    # a context pair's: its curve given the follow-up and its change label (icc_*, w1: the target alone)
    "given_icc_xi": "ICC(1,1) of location ξ given the follow-up",
    "given_icc_omega": "ICC(1,1) of scale ω given the follow-up",
    "given_icc_alpha": "ICC(1,1) of skewness α given the follow-up",
    "given_w1": "Curve distance W1 given the follow-up",
    "change_kappa": "Cohen's κ of the change label",
}
#: The figures that are a curve distance W1 (converted to the export's log base).
W1_NAMES = frozenset({"w1", "given_w1"})
#: Decimals a figure is written with (more where its interval's ends would otherwise look equal;
#: W1 with three significant digits).
_DIGITS = 3
_W1_DIGITS = 2
_MAX_DIGITS = 6

#: The first words of the section when it holds :func:`card_figures`.
INTRO = ("How far the independent annotations of the same texts agree, per benchmark: first over "
         "every sample of the project with two or more submitted annotations, before any "
         "adjudication (the figures the Agreement page shows for that benchmark; also in "
         "`agreement.json`), then over the samples whose gold this export writes, and how the "
         "samples went through review.")
#: What the figures mean, written under them on the card (``{b}`` is the log base).
MEANING = (
    "ICC(1,1) is the one-way random intraclass correlation of each curve parameter (the raters "
    "are the first, second … annotator of each sample). Jaccard compares the (token, axis) label "
    "sets of two annotators, 1 = identical; Pk is the chance that two tokens a window apart are "
    "put in the same segment by one annotator and in different segments by the other (both ways, "
    "averaged), 0 = identical segmentations; both are means over samples. W1 is the "
    "Wasserstein-1 distance between two annotators' validity curves on the log-time axis "
    "(mean over samples of the mean over their pairs of annotators), in base-{b:g} log-time "
    "units: curves W1 apart sit about {b:g}^W1 times apart in time. Krippendorff's α is "
    "chance-corrected agreement (1 = perfect, 0 = chance level): interval α for ξ, ω and α "
    "(units = samples), nominal α for the axis label of each token (units = tokens)."
)


def card_figures(report: AgreementReport, *, base: float, resamples: int, seed: int,
                 confidence: float = 0.95) -> dict[str, Any]:
    """The card's figures of one benchmark (module docstring) from ``report`` — computed with
    the bootstrap's ``resamples`` and ``seed`` — W1 and its interval converted to log ``base``.
    Each figure goes through the one rule (:func:`annotation.agreement.published.headline_figures`):
    ``n`` says how many units it rests on, and a withheld figure is None with the rule in
    ``undefined``.

    Examples:
        >>> from annotation.agreement import HEADLINE_MEASURES, agreement_report
        >>> report = agreement_report([], measures=HEADLINE_MEASURES, breakdowns=False, resamples=0)
        >>> figures = card_figures(report, base=1.1, resamples=0, seed=1)
        >>> figures["n_samples"], figures["w1"], figures["undefined"]["pk"], figures["n"]["pk"]
        (0, None, 'needs ≥ 10 samples with two segmentations', 0)
    """
    return published_card_figures(headline_figures(report), HEADLINE_NAMES, report.n_samples, base=base,
                                  resamples=resamples, seed=seed, confidence=confidence)


def published_card_figures(published: Mapping[str, Figure], names: Sequence[str], n_samples: int, *,
                           base: float, resamples: int, seed: int, confidence: float = 0.95) -> dict[str, Any]:
    """The card's figures ``names`` (keys of :data:`FIGURE_LABELS`) from figures already through
    the rule (``published``; a name it lacks is "not computed") over ``n_samples`` samples: value
    (None when withheld), ``n``, ``intervals``, ``undefined`` (why a figure, or only its interval,
    has none), ``bootstrap`` and ``w1_base`` — each W1 (:data:`W1_NAMES`) converted to log ``base``.

    Examples:
        >>> from annotation.publishable import NEEDS, figure
        >>> out = published_card_figures({"w1": figure(NEEDS["w1"], 2.0, n=12, interval=(1.5, 2.5))},
        ...                              ("w1", "change_kappa"), 12, base=1.1, resamples=100, seed=1)
        >>> out["w1"], out["intervals"]["w1"], out["undefined"], out["n"]
        (2.0, [1.5, 2.5], {'change_kappa': 'not computed'}, {'w1': 12, 'change_kappa': 0})
    """
    factor = math.log(DEFAULT_BASE) / math.log(base)
    values: dict[str, Any] = {}
    intervals: dict[str, Any] = {}
    undefined: dict[str, str] = {}
    for name in names:
        fig = published.get(name)
        if fig is None:
            values[name], intervals[name] = None, (math.nan, math.nan)
            undefined[name] = "not computed"
            continue
        scale = factor if name in W1_NAMES else 1.0
        values[name] = None if fig.value is None else fig.value * scale
        intervals[name] = ((math.nan, math.nan) if fig.interval is None
                           else (fig.interval[0] * scale, fig.interval[1] * scale))
        if fig.value is None:
            undefined[name] = fig.withheld
        elif fig.interval is None:
            undefined[name] = ("no interval: no bootstrap resamples were drawn" if resamples <= 0
                               else "no interval: the figure is undefined on every bootstrap resample")
    return json_ready({
        "n_samples": n_samples,
        **values,
        "n": {name: (published[name].n if name in published else 0) for name in names},
        "intervals": intervals,
        "undefined": undefined,
        "bootstrap": {"confidence": confidence, "resamples": resamples, "seed": seed},
        "w1_base": base,
    })


def is_card_figures(value: Any) -> bool:
    """Whether ``value`` is one config's figures as :func:`card_figures` (or
    :func:`published_card_figures`) makes them.

    Examples:
        >>> is_card_figures({"change_kappa": 0.8, "intervals": {}}), is_card_figures({"icc_xi": 0.9})
        (True, False)
    """
    return isinstance(value, Mapping) and "intervals" in value and any(n in value for n in FIGURE_LABELS)


def agreement_lines(figures: Mapping[str, Any], base: float, *, intro: str = INTRO,
                    meaning: str = MEANING) -> list[str]:
    """The card's agreement section body: each config's :func:`card_figures` (or a pairs card's,
    :func:`published_card_figures`) — before adjudication, then over the settled gold with what
    was left out — as a heading and a list of figures with intervals and n, the adjudication
    outcome, then what the figures mean (``intro`` first, ``meaning`` last, ``{b}`` the log base);
    any other entry as plain ``key: value`` lines, but the annotators as experts (their own
    section). W1 is written in log ``base`` (the export's).

    Examples:
        >>> figures = {"benchmark_1": {"n_samples": 40, "w1": 5.45, "alpha_xi": 0.9951,
        ...            "n": {"w1": 40, "alpha_xi": 40},
        ...            "intervals": {"w1": [5.42, 5.49], "alpha_xi": [0.9942, 0.9957]},
        ...            "undefined": {}, "bootstrap": {"confidence": 0.95, "resamples": 1000,
        ...            "seed": 7}, "w1_base": 1.1}}
        >>> print("\\n".join(agreement_lines(figures, 1.1)[6:8]))
        - Curve distance W1 5.45 base-1.1 log-time units [5.42, 5.49] (curves ≈ ×1.7 apart in time) (n = 40)
        - Krippendorff's α (ξ) 0.995 [0.994, 0.996] (n = 40)
    """
    lines: list[str] = []
    plain: dict[str, Any] = {}
    structured = False
    for key, value in figures.items():
        if is_card_figures(value):
            structured = True
            lines += _config_lines(str(key), value, base)
        elif key == ADJUDICATION and isinstance(value, Mapping):
            lines += adjudication_lines(value)
        elif key == EXPERTS:  # a section of its own (annotation.export.card_experts)
            continue
        else:
            plain[key] = value
    if plain:
        lines += _plain_lines(plain)
        lines.append("")
    if structured:
        lines = [intro, "", *lines, meaning.format(b=base)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


#: The key of the adjudication outcome among the card's agreement figures.
ADJUDICATION = "adjudication"


def _config_lines(config: str, figures: Mapping[str, Any], base: float) -> list[str]:
    n = figures.get("n_samples")
    boot = figures.get("bootstrap") or {}
    confidence = boot.get("confidence") or 0.95
    settled = figures.get("settled")
    when = " before adjudication:" if is_card_figures(settled) else ""
    lines = [f"### `{_one_line(config)}` —{when} {_count(n)} samples with two or more annotations", ""]
    if boot.get("resamples"):
        lines += [f"In brackets: the {confidence:.0%} bootstrap interval (percentile method; the "
                  f"samples resampled with replacement {boot['resamples']} times, seed "
                  f"{boot.get('seed')}; the same data and seed give the same interval). n: the "
                  + ("samples (tokens, for the axis labels' α)" if "alpha_labels" in figures else "samples")
                  + " a figure rests on; a figure with too few is withheld (—) with the rule.", ""]
    lines += _figure_lines(figures, base)
    if is_card_figures(settled):
        excluded = figures.get("excluded") or {}
        left = sum(v for v in excluded.values() if isinstance(v, int))
        why = "; ".join(f"{_count(v)} {_one_line(str(k))}" for k, v in excluded.items())
        lines += [f"Settled gold: the same figures over the {_count(settled.get('n_samples'))} of these "
                  f"samples whose gold this export writes"
                  + (f" ({_count(left)} left out: {why})." if left else " (none left out).")]
        discarded = figures.get("discarded")
        if isinstance(discarded, int) and discarded:
            lines.append(f"{_count(discarded)} samples a lead discarded after two or more annotations are "
                         "outside both, as on the Agreement page.")
        lines += ["", *_figure_lines(settled, base)]
    return lines


def _figure_lines(figures: Mapping[str, Any], base: float) -> list[str]:
    intervals = figures.get("intervals") or {}
    undefined = figures.get("undefined") or {}
    counts = figures.get("n") or {}
    w1_factor = math.log(float(figures.get("w1_base") or DEFAULT_BASE)) / math.log(base)
    lines = []
    for name in FIGURE_LABELS:
        if name not in figures:
            continue
        value = _number(figures[name])
        low, high = _pair(intervals.get(name))
        n = counts.get(name)
        on = f" (n = {_count(n)})" if isinstance(n, int) and not isinstance(n, bool) else ""
        w1 = name in W1_NAMES
        if w1:
            value, low, high = (None if v is None else v * w1_factor for v in (value, low, high))
        label = FIGURE_LABELS[name]
        if value is None:
            why = _one_line(str(undefined.get(name) or "not computed"))
            lines.append(f"- {label} {MISSING} {why}{on}")
            continue
        digits = _digits(value, low, high, _w1_digits(value) if w1 else _DIGITS)
        text = f"{value:.{digits}f}"
        if w1:
            text += f" base-{base:g} log-time units"
        if low is not None and high is not None:
            text += f" [{low:.{digits}f}, {high:.{digits}f}]"
        else:
            text += f" ({_one_line(str(undefined.get(name) or 'no interval'))})"
        if w1:
            text += f" (curves ≈ ×{base ** value:.1f} apart in time)"
        lines.append(f"- {label} {text}{on}")
    lines.append("")
    return lines


def adjudication_lines(outcome: Mapping[str, Any]) -> list[str]:
    """The adjudication outcome (:func:`annotation.export.card_scopes.adjudication_outcome`) in words.

    Examples:
        >>> print("\\n".join(adjudication_lines({"n_samples": 52, "flagged": 20,
        ...     "flagged_interval": [0.26, 0.52], "awaiting_lead": 9, "decisions": {"edit": 3, "discard": 1},
        ...     "gold_by_source": {"automatic": 30, "edited": 3}, "changed_by_lead": 3})))
        ### Adjudication
        <BLANKLINE>
        - Flagged for a lead: 20 of the 52 samples with two or more annotations (38.5 % [26.0 %, 52.0 %], Wilson 95 % interval); 9 still await a lead.
        - The lead's decisions: Stored an edited resolution 3 · Discarded the sample 1.
        - The gold in this export by how it was resolved: automatic 30 · edited 3; a lead changed 3 of 33.
        <BLANKLINE>
    """
    n, flagged = outcome.get("n_samples"), outcome.get("flagged")
    low, high = _pair(outcome.get("flagged_interval"))
    share = ""
    if isinstance(n, int) and n and isinstance(flagged, int):
        share = f" ({flagged / n:.1%}".replace("%", " %")
        if low is not None and high is not None:
            share += f" [{low:.1%}, {high:.1%}]".replace("%", " %") + ", Wilson 95 % interval"
        share += ")"
    lines = ["### Adjudication", "",
             f"- Flagged for a lead: {_count(flagged)} of the {_count(n)} samples with two or more "
             f"annotations{share}; {_count(outcome.get('awaiting_lead'))} still await a lead."]
    decisions = outcome.get("decisions") or {}
    words = [f"{_decision_words(str(k))} {_count(v)}" for k, v in decisions.items()]
    lines.append("- The lead's decisions: " + (" · ".join(words) if words else "none yet") + ".")
    by_source = outcome.get("gold_by_source") or {}
    total = sum(v for v in by_source.values() if isinstance(v, int))
    parts = " · ".join(f"{_one_line(str(k))} {_count(v)}" for k, v in by_source.items())
    lines.append(f"- The gold in this export by how it was resolved: {parts or 'none'}; a lead changed "
                 f"{_count(outcome.get('changed_by_lead'))} of {_count(total)}.")
    lines.append("")
    return lines


def _decision_words(name: str) -> str:
    decision = decision_named(name)
    return decision.done_label if decision is not None else _one_line(name)


def _w1_digits(value: float) -> int:
    """Decimals of a W1 value: three significant digits (5.45, 12.3, 0.519 — a base-e unit is
    ten base-1.1 units), at least one decimal."""
    if value == 0:
        return _W1_DIGITS
    return max(1, 2 - math.floor(math.log10(abs(value))))


def _digits(value: float, low: float | None, high: float | None, digits: int) -> int:
    """``digits``, or more (up to 6) where that tells the interval's written ends apart."""
    if low is None or high is None:
        return digits
    for more in range(digits, _MAX_DIGITS + 1):
        if f"{low:.{more}f}" != f"{high:.{more}f}":
            return more
    return digits


def _count(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else MISSING


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _pair(value: Any) -> tuple[float | None, float | None]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return _number(value[0]), _number(value[1])
    return None, None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _plain_lines(figures: Mapping[str, Any], depth: int = 0) -> list[str]:
    lines = []
    for key, value in figures.items():
        label = f"{'  ' * depth}- **{_one_line(str(key))}**"
        if isinstance(value, Mapping):
            lines.append(f"{label}:")
            lines += _plain_lines(value, depth + 1)
        elif isinstance(value, (list, tuple)):
            lines.append(f"{label}: " + ", ".join(_plain(v) for v in value))
        else:
            lines.append(f"{label}: {_plain(value)}")
    return lines


def _plain(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return _one_line(str(value))


__all__ = ["ADJUDICATION", "FIGURE_LABELS", "INTRO", "MEANING", "W1_NAMES", "adjudication_lines", "agreement_lines",
           "card_figures", "is_card_figures", "published_card_figures"]
