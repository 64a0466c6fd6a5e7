"""The two scopes of a dataset card's agreement, whatever the protocol: every sample with two or
more submitted annotations **before adjudication** (the Agreement page's scope), then the
**settled gold** this export writes, with what was left out and why — and how the samples went
through review (the adjudication outcome).

:func:`scoped_figures` takes the figures of one scope from a caller's function (the single-text
card's headline figures, :mod:`annotation.export.figures`; the pairs card's change κ and both
curves' ICC and W1, :mod:`annotation.export.tvcp_agreement`), so both cards tell the same story
with the same words. :func:`scope_report` runs a report over a scope with the Agreement page's
bootstrap for that many samples (the same resamples and seed, so the same intervals).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.agreement import RatedSample, agreement_report, wilson_interval
from annotation.agreement.intervals import DEFAULT_SEED as BOOTSTRAP_SEED, default_resamples
from annotation.agreement.measure import Measure
from annotation.agreement.report import AgreementReport
from annotation.agreement.tables import SampleSet


@dataclass(frozen=True)
class Adjudication:
    """How the production samples went through review, by external id: ``flagged`` (a review
    item with a flag reason), ``open_review`` (an item still awaiting a lead); ``decisions``
    (closed items by decision) and ``discarded`` (per benchmark, samples a lead discarded after
    two or more annotations: outside the agreement's scope, as on the Agreement page)."""

    flagged: frozenset[str] = frozenset()
    open_review: frozenset[str] = frozenset()
    decisions: Mapping[str, int] = field(default_factory=dict)
    discarded: Mapping[int, int] = field(default_factory=dict)


def scope_report(samples: Sequence[RatedSample], measures: Sequence[Measure],
                 curve_means: Mapping[str, tuple[float, float]] | None = None) -> tuple[AgreementReport, int]:
    """The report of ``measures`` over ``samples`` (no breakdowns) with the Agreement page's
    bootstrap for that many samples, and its number of resamples. ``curve_means`` ({sample id:
    (mean W1, mean overlap)}, computed with the provenance) spares computing every pair of curves
    again; without it the report computes them.

    Examples:
        >>> from annotation.agreement.report import HEADLINE_MEASURES
        >>> report, resamples = scope_report([], HEADLINE_MEASURES)
        >>> report.n_samples, resamples
        (0, 1000)
    """
    nan = (math.nan, math.nan)
    chosen = SampleSet(list(samples))
    resamples = default_resamples(len(chosen))
    if len(chosen) and curve_means is not None:
        means = [curve_means.get(r.sample_id, nan) for r in chosen]
        chosen.use_curve_distances(np.array([m[0] for m in means]), np.array([m[1] for m in means]))
    report = agreement_report(chosen, measures=measures, breakdowns=False, resamples=resamples, seed=BOOTSTRAP_SEED)
    return report, resamples


def scoped_figures(scope: Sequence[RatedSample], exported: frozenset[str] | set[str],
                   figures_of: Callable[[Sequence[RatedSample]], dict[str, Any]], *,
                   adjudication: Adjudication, gold: Mapping[str, str], discarded: int) -> dict[str, Any]:
    """One config's card figures: ``figures_of(scope)`` — before adjudication — then under
    ``settled`` the same over the samples of ``scope`` in ``exported``, ``excluded`` (why the
    others are not: reason → count, from ``adjudication`` and ``gold``, each gold sample's
    resolution) and ``discarded`` (samples a lead discarded, outside both).

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> two = (Rating("a", datetime(2026, 11, 20), (0,), ("main",)),) * 2
        >>> scope = [RatedSample(f"s{i}", 1, 3, two) for i in range(3)]
        >>> card = scoped_figures(scope, {"s0"}, lambda s: {"n_samples": len(s)},
        ...                       adjudication=Adjudication(open_review=frozenset({"s1"})), gold={}, discarded=2)
        >>> card
        {'n_samples': 3, 'settled': {'n_samples': 1}, 'excluded': {'flagged, awaiting a lead': 1, 'not resolved yet': 1}, 'discarded': 2}
    """
    settled = [r for r in scope if r.sample_id in exported]
    card = figures_of(scope)
    # every sample settled (a finished project): the same samples give the same figures
    card["settled"] = dict(card) if len(settled) == len(scope) else figures_of(settled)
    excluded: dict[str, int] = {}
    for r in scope:
        if r.sample_id not in exported:
            why = _why_not_settled(r.sample_id, adjudication, gold)
            excluded[why] = excluded.get(why, 0) + 1
    card["excluded"] = excluded
    card["discarded"] = int(discarded)
    return card


#: Why a sample with two or more annotations has no gold in the export, in the card's words.
NOT_SETTLED = {"open": "flagged, awaiting a lead", "gold": "not in this export's sample list",
               "none": "not resolved yet"}


def _why_not_settled(sample_id: str, adjudication: Adjudication, gold: Mapping[str, str]) -> str:
    if sample_id in adjudication.open_review:
        return NOT_SETTLED["open"]
    if sample_id in gold:
        return NOT_SETTLED["gold"]
    return NOT_SETTLED["none"]


def adjudication_outcome(rated: Iterable[RatedSample], adjudication: Adjudication,
                         gold: Mapping[str, str], exported: frozenset[str] | set[str]) -> dict[str, Any]:
    """How the samples with two or more annotations went through review: how many were flagged
    for a lead (with the Wilson 95 % interval of the share), how many still await one, the
    lead's decisions by kind, and how the exported gold was resolved (by source), with how many
    of them a lead changed from the automatic resolution.

    Examples:
        >>> from datetime import datetime
        >>> from annotation.agreement.ratings import Rating
        >>> t = datetime(2026, 11, 20)
        >>> two = (Rating("a", t, (0,), ("main",)), Rating("b", t, (0,), ("main",)))
        >>> rated = [RatedSample(f"s{i}", 1, 3, two) for i in range(4)]
        >>> out = adjudication_outcome(rated, Adjudication(flagged=frozenset({"s0", "s1"}),
        ...     decisions={"edit": 1}), {"s0": "edited", "s2": "automatic"}, {"s0", "s2"})
        >>> out["n_samples"], out["flagged"], [round(x, 3) for x in out["flagged_interval"]]
        (4, 2, [0.15, 0.85])
        >>> out["decisions"], out["gold_by_source"], out["changed_by_lead"]
        ({'edit': 1}, {'automatic': 1, 'edited': 1}, 1)
    """
    ids = {r.sample_id for r in rated}
    flagged = len(ids & adjudication.flagged)
    by_source: dict[str, int] = {}
    for sample_id in sorted(exported):
        source = gold.get(sample_id)
        if source is not None:
            by_source[source] = by_source.get(source, 0) + 1
    return {
        "n_samples": len(ids),
        "flagged": flagged,
        "flagged_interval": list(wilson_interval(flagged, len(ids))),
        "awaiting_lead": len(ids & adjudication.open_review),
        "decisions": dict(sorted(adjudication.decisions.items())),
        "gold_by_source": dict(sorted(by_source.items())),
        "changed_by_lead": sum(n for source, n in by_source.items() if source not in UNCHANGED_SOURCES),
    }


#: Gold sources that keep the automatic resolution (every other source is a lead's change).
UNCHANGED_SOURCES = frozenset({"automatic"})


__all__ = ["Adjudication", "BOOTSTRAP_SEED", "NOT_SETTLED", "UNCHANGED_SOURCES", "adjudication_outcome",
           "scope_report", "scoped_figures"]
