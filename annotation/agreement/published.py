"""The headline agreement figures as published: each through the one rule of
:mod:`annotation.publishable` — its n, its bootstrap 95 % interval, or "—" with the rule that
withheld it. The dataset card, ``agreement.json``, the Agreement page and ``chronocept
agreement`` all read :func:`headline_figures`, so they agree on what is shown.

Examples:
    >>> from annotation.agreement.report import HEADLINE_MEASURES, agreement_report
    >>> figures = headline_figures(agreement_report([], measures=HEADLINE_MEASURES, breakdowns=False))
    >>> figures["icc_xi"].text()
    '— needs ≥ 30 samples with every curve (n = 0)'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace

from annotation.agreement.pair_agreement import change_result
from annotation.agreement.report import HEADLINE_NAMES, AgreementReport
from annotation.agreement.verdict import ICC_RULE, JACCARD_RULE, PK_RULE, icc_reason
from annotation.publishable import NEEDS, Figure, Needs, figure

#: The rule (:data:`annotation.publishable.NEEDS`) of each headline figure.
FIGURE_NEEDS: Mapping[str, Needs] = {
    **{f"icc_{p}": NEEDS["icc"] for p in ("xi", "omega", "alpha")},
    "jaccard": NEEDS["jaccard"],
    "pk": NEEDS["pk"],
    "w1": NEEDS["w1"],
    **{f"alpha_{p}": NEEDS["krippendorff"] for p in ("xi", "omega", "alpha", "labels")},
}


def figure_count(report: AgreementReport, name: str) -> int:
    """How many units headline figure ``name`` rests on: samples with every curve (ICC), with
    labels (Jaccard), with two segmentations (Pk), with two curves (W1), pairable units
    (Krippendorff's α: samples for ξ, ω, α; tokens for the labels).

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import RatedSample, Rating
        >>> from annotation.agreement.report import agreement_report
        >>> t = datetime(2026, 1, 5)
        >>> two = (Rating("a", t, (0,), ("main",), 40.0, 10.0, 0.0), Rating("b", t, (0,), ("main",), 42.0, 10.0, 0.0))
        >>> report = agreement_report([RatedSample(f"s{i}", 1, 4, two) for i in range(3)], breakdowns=False)
        >>> figure_count(report, "w1"), figure_count(report, "jaccard"), figure_count(report, "alpha_labels")
        (3, 3, 12)
    """
    results = report.results
    if name.startswith("icc_"):
        return report.icc[name.removeprefix("icc_")].n_used if report.icc is not None else 0
    if name == "jaccard":
        return report.jaccard.n_samples if report.jaccard is not None else 0
    if name == "pk":
        seg = report.segmentation
        return seg.n_samples - seg.n_undefined if seg is not None else 0
    if name == "w1":
        return report.curve.n_used if report.curve is not None else 0
    result = results.get("krippendorff_labels" if name == "alpha_labels" else "krippendorff_curve")
    return int(getattr(result, "n_units", 0) or 0)


def why_undefined(report: AgreementReport, name: str) -> str:
    """Why headline figure ``name`` has no value although it has enough units.

    Examples:
        >>> from annotation.agreement.report import agreement_report
        >>> why_undefined(agreement_report([], breakdowns=False), "icc_xi")
        'needs ≥ 3 samples with every curve (0 so far)'
    """
    if name.startswith("icc_"):
        if report.icc is None:
            return ICC_RULE.undefined
        icc = report.icc[name.removeprefix("icc_")]
        return icc_reason(icc.n_used, icc.raters, icc.problem)
    if name == "jaccard":
        return JACCARD_RULE.undefined
    if name == "pk":
        return PK_RULE.undefined
    if name == "w1":
        return "needs two curves"
    labels = name == "alpha_labels"
    return ("no variation: every token has the same axis" if labels
            else "no variation: every annotation gives the same value")


#: The figures of each curve of a context pair (the target's alone, given the follow-up), by the
#: names of the page's report.
CURVE_NAMES: tuple[str, ...] = ("icc_xi", "icc_omega", "icc_alpha", "w1")


def change_kappa_figure(report: AgreementReport, interval: tuple[float, float] | None = None) -> Figure:
    """Cohen's κ of the change label of ``report`` (the target alone's, with the change measure)
    through the rule, with ``interval``; withheld with the measure's own reason where κ is undefined.

    Examples:
        >>> from annotation.agreement.pair_agreement import pair_measures
        >>> from annotation.agreement.report import agreement_report
        >>> change_kappa_figure(agreement_report([], measures=pair_measures(False), breakdowns=False)).text()
        '— needs ≥ 10 samples with two change labels (n = 0)'
    """
    result = change_result(report)
    if result is None:
        return figure(NEEDS["change_kappa"], None, n=0, undefined="not computed")
    f = result.figures
    return figure(NEEDS["change_kappa"], f.kappa, n=f.n_samples, interval=interval, undefined=f.note)


def headline_figures(report: AgreementReport, names: tuple[str, ...] = HEADLINE_NAMES) -> dict[str, Figure]:
    """Each headline figure of ``report`` (of those in ``names`` it computed) after the rule:
    value, n and bootstrap interval, or withheld with the reason.

    Examples:
        >>> from annotation.agreement.report import agreement_report
        >>> headline_figures(agreement_report([], breakdowns=False))["pk"].withheld
        'needs ≥ 10 samples with two segmentations'
    """
    head = report.headline
    out: dict[str, Figure] = {}
    for name in names:
        if name not in head:
            continue
        value = head[name]
        out[name] = figure(FIGURE_NEEDS[name], None if not math.isfinite(value) else value,
                           n=figure_count(report, name), interval=report.interval(name),
                           undefined=why_undefined(report, name))
    return out


def _breakdown_needs(name: str) -> Needs | None:
    needs = FIGURE_NEEDS.get(name) or NEEDS.get(name)
    return None if needs is None else replace(needs, interval=False)


def breakdown_row(figures: Mapping[str, float | None], n: int) -> dict[str, float | None]:
    """A breakdown's figures (one week's, one annotator pair's) after the rule, n = the samples
    it rests on: a figure the rule covers is None where withheld (a table shows "—"), others as
    they are. Breakdowns carry no interval (they are not bootstrapped).

    >>> breakdown_row({"jaccard": 0.8, "kappa": 0.7, "icc_xi": 0.9, "overlap": 0.6}, 12)
    {'jaccard': 0.8, 'kappa': 0.7, 'icc_xi': None, 'overlap': 0.6}
    >>> breakdown_row({"jaccard": 0.8}, 4)
    {'jaccard': None}
    """
    out: dict[str, float | None] = {}
    for name, value in figures.items():
        needs = _breakdown_needs(name)
        out[name] = value if needs is None else figure(needs, value, n=n).value
    return out


def breakdown_rules(names: Iterable[str]) -> str:
    """The rules of the figures ``names`` that have one, in words, each once (a table's caption).

    >>> breakdown_rules(["jaccard", "kappa", "icc_xi", "icc_omega", "overlap"])
    "Jaccard needs ≥ 10 samples with axis labels; Cohen's κ needs ≥ 10 samples with axis labels; ICC(1,1) needs ≥ 30 samples with every curve"
    """
    rules = {f"{needs.name} {needs.rule}": None for name in names if (needs := _breakdown_needs(name))}
    return "; ".join(rules)


__all__ = ["CURVE_NAMES", "FIGURE_NEEDS", "breakdown_row", "breakdown_rules", "change_kappa_figure", "figure_count",
           "headline_figures", "why_undefined"]
