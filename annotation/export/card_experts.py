"""The dataset card's "Annotators as experts" section: each annotator, by pseudonym, scored with
Cooke's classical model on the project's seeds (:mod:`annotation.quality.expert_scores`).

The export stores the figures beside the agreement figures, under :data:`EXPERTS` in
``export.json``'s ``agreement`` and in ``agreement.json``'s ``figures``, as
:meth:`annotation.services.quality.experts.ExpertOverview.to_json` writes them (``seed_items``,
``outcome_items``, ``realisation`` and one entry per annotator: ``annotator`` — here the
pseudonym —, ``n_seeds``, ``n_outcomes`` and ``calibration``, ``information``, ``weight``, each
:meth:`annotation.publishable.Figure.to_json`). :func:`expert_lines` writes them for a reader:
what a seed and its realisation are, the distribution (how many annotators are scored, the
median calibration and information with their n, how many are rejected at the 5 % level) and
every annotator's figures with their bootstrap 95 % intervals, or "—" with the rule.

Reference: R. M. Cooke, *Experts in Uncertainty* (Oxford University Press, 1991), ch. 12.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from annotation.agreement.verdict import MISSING

#: The key of the experts' figures among the card's agreement figures.
EXPERTS = "experts"
#: Cooke's significance level: a calibration below it rejects an annotator's quantiles.
REJECTED_BELOW = 0.05

INTRO = (
    "Each annotator scored as an expert with Cooke's classical model (Cooke 1991, *Experts in "
    "Uncertainty*, ch. 12): an annotator's curve is read as a distribution of when the statement "
    "stops holding, its 5/25/50/75/95 % gone points being their quantiles. A seed is an item whose "
    "realisation is known: a warm-up-set sample with the lead's gold, whose realisation is the "
    "gold's half-gone time (calibration against the panel, not against what happened), or a text "
    "imported with a known outcome (`stopped_holding_minutes`), whose realisation is that time. "
    "Calibration is the probability of realisations falling across an annotator's quantiles as they "
    "do if the quantiles were right (below 5 % the quantiles are rejected); information is how "
    "narrow the curves are against the spread of everyone's on the same item; the weight is "
    "calibration × information as a share of all scored annotators'. Each figure needs at least "
    "{min_n} seeds of the annotator (n); in brackets the bootstrap 95 % interval over their seeds."
)


def expert_lines(experts: Mapping[str, Any]) -> list[str]:
    """The section's body (module docstring) from the stored figures.

    Examples:
        >>> fig = lambda v, lo, hi, n: {"value": v, "n": n, "interval": [lo, hi], "withheld": "",
        ...                              "needs": {"min_n": 10}}
        >>> withheld = {"value": None, "n": 4, "interval": None, "withheld": "needs ≥ 10 seeds",
        ...             "needs": {"min_n": 10}}
        >>> lines = expert_lines({"seed_items": 12, "outcome_items": 0, "annotators": [
        ...     {"annotator": "ann03", "n_seeds": 12, "n_outcomes": 0, "calibration": fig(0.42, 0.1, 0.8, 12),
        ...      "information": fig(0.7, 0.6, 0.8, 12), "weight": fig(1.0, 1.0, 1.0, 12)},
        ...     {"annotator": "ann04", "n_seeds": 4, "n_outcomes": 0, "calibration": withheld,
        ...      "information": withheld, "weight": withheld}]})
        >>> print("\\n".join(lines[2:]))
        12 seed items (0 with a known outcome). 1 of 2 annotators with seeds is scored; median calibration 0.42 (n = 1 annotators), median information 0.7 (n = 1 annotators); 0 rejected at the 5 % level.
        <BLANKLINE>
        - `ann03` — 12 seeds (0 with a known outcome): calibration 0.42 [0.1, 0.8], information 0.7 [0.6, 0.8], weight 1.00 [1.00, 1.00]
        - `ann04` — 4 seeds (0 with a known outcome): — needs ≥ 10 seeds (n = 4)
    """
    annotators = [a for a in experts.get("annotators") or [] if isinstance(a, Mapping)]
    min_n = next((a["calibration"].get("needs", {}).get("min_n") for a in annotators
                  if isinstance(a.get("calibration"), Mapping)), 10)
    lines = [INTRO.format(min_n=min_n), ""]
    items, outcomes = experts.get("seed_items") or 0, experts.get("outcome_items") or 0
    if not annotators:
        return lines + ["No seed items: no annotator could be scored (seeds come from the warm-up set "
                        "with gold, gold checks, or texts imported with `stopped_holding_minutes`)."]
    scored = [a for a in annotators if _value(a, "calibration") is not None and _value(a, "information") is not None]
    summary = (f"{items} seed items ({outcomes} with a known outcome). {len(scored)} of {len(annotators)} "
               f"annotators with seeds {'is' if len(scored) == 1 else 'are'} scored")
    if scored:
        rejected = sum(_value(a, "calibration") < REJECTED_BELOW for a in scored)  # type: ignore[operator]
        cal = statistics.median(_value(a, "calibration") for a in scored)  # type: ignore[type-var]
        info = statistics.median(_value(a, "information") for a in scored)  # type: ignore[type-var]
        summary += (f"; median calibration {cal:.3g} (n = {len(scored)} annotators), median information "
                    f"{info:.3g} (n = {len(scored)} annotators); {rejected} rejected at the 5 % level.")
    else:
        summary += f" (each needs ≥ {min_n} seeds)."
    lines += [summary, ""]
    for a in annotators:
        head = (f"- `{_one_line(a.get('annotator'))}` — {a.get('n_seeds')} seeds "
                f"({a.get('n_outcomes') or 0} with a known outcome): ")
        if a in scored:
            lines.append(head + ", ".join(f"{name} {_figure(a.get(name), fmt)}" for name, fmt in
                                          (("calibration", ".3g"), ("information", ".3g"), ("weight", ".2f"))))
        else:
            lines.append(head + _figure(a.get("calibration"), ".3g"))
    return lines


def expert_section(agreement: Mapping[str, Any] | None) -> list[str]:
    """The card's section — a heading and :func:`expert_lines` — when the export's agreement
    figures hold :data:`EXPERTS`; else nothing.

    Examples:
        >>> expert_section({"benchmark_1": {}}), expert_section({EXPERTS: {"annotators": []}})[:2]
        ([], ['', '## Annotators as experts'])
    """
    if not agreement or not isinstance(agreement.get(EXPERTS), Mapping):
        return []
    return ["", "## Annotators as experts", "", *expert_lines(agreement[EXPERTS])]


def _value(annotator: Mapping[str, Any], name: str) -> float | None:
    fig = annotator.get(name)
    value = fig.get("value") if isinstance(fig, Mapping) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _figure(fig: Any, fmt: str) -> str:
    if not isinstance(fig, Mapping) or fig.get("value") is None:
        fig = fig if isinstance(fig, Mapping) else {}
        return f"{MISSING} {_one_line(fig.get('withheld') or 'not computed')} (n = {fig.get('n', 0)})"
    text = f"{float(fig['value']):{fmt}}"
    interval = fig.get("interval")
    if isinstance(interval, (list, tuple)) and len(interval) == 2 and None not in interval:
        text += f" [{float(interval[0]):{fmt}}, {float(interval[1]):{fmt}}]"
    else:
        text += " (no interval)"
    return text


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


__all__ = ["EXPERTS", "INTRO", "REJECTED_BELOW", "expert_lines", "expert_section"]
