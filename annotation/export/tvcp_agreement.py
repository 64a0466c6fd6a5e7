"""The agreement section of a ``tvcp`` export's card: how far two annotators of the same context
pair agree, told the way the single-text card tells it (:mod:`annotation.export.card_scopes`).

The figures are the Agreement page's for a pairs project (:mod:`annotation.agreement.pair_agreement`):
Cohen's κ of the change label (each annotator's own: their override, else the label their two
curves give; first against second annotator), and ICC(1,1) of ξ, ω, α and the curve distance W1
of both curves — the target's alone (``icc_xi`` … ``w1``, the names of the page's report) and
given the follow-up (``given_icc_xi`` … ``given_w1``). Each goes through the one rule of
:mod:`annotation.publishable` (n, seeded bootstrap 95 % interval, or "—" with the rule): first
over every pair with two or more submitted annotations **before adjudication** (both benchmarks:
the ``tvcp`` config holds both), then over the settled gold this export writes, with what was left
out and why, and the adjudication outcome. κ's interval comes from the same bootstrap resamples as
the other figures' (:func:`annotation.agreement.change_agreement.change_kappa_statistic`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.agreement import RatedSample
from annotation.agreement.change_agreement import ChangeLabelMeasure, change_kappa_interval
from annotation.agreement.curve_agreement import CurveAgreementMeasure
from annotation.agreement.icc_measure import IccMeasure
from annotation.agreement.published import CURVE_NAMES, FIGURE_NEEDS, change_kappa_figure, headline_figures
from annotation.agreement.report import AgreementReport
from annotation.export.card_agreement import ADJUDICATION, published_card_figures
from annotation.export.card_scopes import (
    BOOTSTRAP_SEED,
    Adjudication,
    adjudication_outcome,
    scope_report,
    scoped_figures,
)
from annotation.export.tvcp import TVCP_CONFIG
from annotation.publishable import NEEDS

#: What the names of the curve given the follow-up start with.
GIVEN = "given_"
#: The pairs card's figures, in the card's order.
PAIR_FIGURE_NAMES: tuple[str, ...] = (*CURVE_NAMES, *(GIVEN + n for n in CURVE_NAMES), "change_kappa")
#: The rule of each (what ``agreement.json`` states beside the figures).
PAIR_FIGURE_NEEDS = {**{n: FIGURE_NEEDS[n] for n in CURVE_NAMES}, **{GIVEN + n: FIGURE_NEEDS[n] for n in CURVE_NAMES},
                     "change_kappa": NEEDS["change_kappa"]}
#: The measures over the target alone (with the change label) and over the curves given the follow-up.
ALONE_MEASURES = (IccMeasure(headline_only=True), CurveAgreementMeasure(), ChangeLabelMeasure())
GIVEN_MEASURES = (IccMeasure(headline_only=True), CurveAgreementMeasure())

#: The first words of the pairs card's agreement section.
PAIR_INTRO = ("How far the independent annotations of the same pairs agree: first over every pair of the "
              "project with two or more submitted annotations, before any adjudication (the figures the "
              "Agreement page shows for this project, both benchmarks; also in `agreement.json`), then over "
              "the pairs whose gold this export writes, and how the pairs went through review.")
#: What the figures mean (``{b}`` is the log base).
PAIR_MEANING = (
    "ICC(1,1) is the one-way random intraclass correlation of each curve parameter (the raters are the "
    "first, second … annotator of each pair), of the target's curve alone and of its curve given the "
    "follow-up. W1 is the Wasserstein-1 distance between two annotators' validity curves on the log-time "
    "axis (mean over pairs of the mean over their pairs of annotators), in base-{b:g} log-time units: "
    "curves W1 apart sit about {b:g}^W1 times apart in time. Cohen's κ compares the change labels of the "
    "first and second annotator of each pair (each annotator's own label: their override, else the one "
    "their two curves give), chance-corrected: 1 = perfect, 0 = chance level (Cohen 1960)."
)


def pair_card_figures(alone: AgreementReport, given: AgreementReport, kappa_interval: tuple[float, float] | None,
                      *, base: float, resamples: int, seed: int) -> dict[str, Any]:
    """The pairs card's figures (:data:`PAIR_FIGURE_NAMES`) of one scope from the reports of the
    target alone (:data:`ALONE_MEASURES`) and given the follow-up (:data:`GIVEN_MEASURES`), in
    :func:`~annotation.export.card_agreement.published_card_figures`' shape.

    Examples:
        >>> from annotation.agreement.report import agreement_report
        >>> empty = agreement_report([], measures=ALONE_MEASURES, breakdowns=False, resamples=0)
        >>> out = pair_card_figures(empty, empty, None, base=1.1, resamples=0, seed=1)
        >>> out["given_w1"], out["undefined"]["change_kappa"], out["n"]["given_icc_xi"]
        (None, 'needs ≥ 10 samples with two change labels', 0)
    """
    published = {**headline_figures(alone, CURVE_NAMES),
                 **{GIVEN + n: f for n, f in headline_figures(given, CURVE_NAMES).items()},
                 "change_kappa": change_kappa_figure(alone, kappa_interval)}
    return published_card_figures(published, PAIR_FIGURE_NAMES, alone.n_samples, base=base,
                                  resamples=resamples, seed=seed)


def pair_agreement_figures(alone: Sequence[RatedSample], given: Sequence[RatedSample],
                           exported: frozenset[str] | set[str], base: float,
                           curve_means: Mapping[str, tuple[float, float]], *,
                           adjudication: Adjudication | None = None,
                           gold: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The pairs card's agreement: under ``tvcp`` the figures before adjudication over ``alone``
    (every production pair with two or more submitted annotations, its ratings carrying their
    change labels; ``given`` the same pairs rated by their curves given the follow-up), then
    ``settled`` over those in ``exported``, ``excluded`` and ``discarded``
    (:func:`~annotation.export.card_scopes.scoped_figures`); under ``adjudication`` the outcome.
    ``curve_means`` are the target-alone curves' per-pair W1 and overlap (from the provenance).
    Empty when no pair has two annotations.

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 11, 20)
        >>> def pair(i, xi, change):
        ...     return RatedSample(f"p{i}", 1, 4, tuple(Rating(who, t, (0,), (None,), xi + i + d, 8.0, 0.5, change)
        ...                                          for who, d in (("a", 0.0), ("b", 1.0))))
        >>> alone = [pair(i, 40.0, "neutral" if i % 2 else "increased") for i in range(12)]
        >>> given = [pair(i, 50.0, None) for i in range(12)]
        >>> out = pair_agreement_figures(alone, given, {f"p{i}" for i in range(10)}, 1.1, {},
        ...                              adjudication=Adjudication(open_review=frozenset({"p10", "p11"})))
        >>> card = out["tvcp"]
        >>> card["n_samples"], round(card["w1"], 6), round(card["given_w1"], 6), card["change_kappa"]
        (12, 1.0, 1.0, 1.0)
        >>> card["intervals"]["change_kappa"], card["n"]["icc_xi"], card["undefined"]["icc_xi"]
        ([1.0, 1.0], 12, 'needs ≥ 30 samples with every curve')
        >>> card["settled"]["n"]["change_kappa"], card["excluded"], out["adjudication"]["awaiting_lead"]
        (10, {'flagged, awaiting a lead': 2}, 2)
    """
    if not alone:
        return {}
    adjudication = adjudication or Adjudication()
    given_of = {r.sample_id: r for r in given}

    def figures_of(samples: Sequence[RatedSample]) -> dict[str, Any]:
        alone_report, resamples = scope_report(samples, ALONE_MEASURES, curve_means or None)
        given_report, _ = scope_report([given_of[r.sample_id] for r in samples], GIVEN_MEASURES)
        interval = change_kappa_interval(samples, resamples=resamples, seed=BOOTSTRAP_SEED)
        return pair_card_figures(alone_report, given_report, interval, base=base, resamples=resamples,
                                 seed=BOOTSTRAP_SEED)

    card = scoped_figures(alone, exported, figures_of, adjudication=adjudication, gold=gold or {},
                          discarded=sum(adjudication.discarded.values()))
    return {TVCP_CONFIG: card, ADJUDICATION: adjudication_outcome(alone, adjudication, gold or {}, exported)}


__all__ = ["ALONE_MEASURES", "CURVE_NAMES", "GIVEN", "GIVEN_MEASURES", "PAIR_FIGURE_NAMES", "PAIR_FIGURE_NEEDS",
           "PAIR_INTRO", "PAIR_MEANING", "change_kappa_figure", "pair_agreement_figures", "pair_card_figures"]
