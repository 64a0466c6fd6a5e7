"""The lead's annotator dashboard: per annotator output per day, time per sample, flag rates,
agreement with partners and drafts in progress (figures defined in ``annotation.quality.annotator_stats``).

The period is a range of calendar days in the project's time zone, on the day each annotation
was submitted. Agreement with partners comes from the agreement report over the same days
(``services.agreement.project_agreement``: production samples whose last annotation was
submitted in the period), so it matches the agreement page. Every per-pair and per-annotator
agreement figure goes through the one rule of :mod:`annotation.publishable` with the number of
shared samples it rests on (``annotator_stats.partner_means``, ``pair_figure``): withheld ("—"
and the rule) below its minimum. Each annotator's figures are judged against the project's
thresholds (``qualify_*``) by the verdict function the Agreement page and the qualification
rule use (:func:`annotation.agreement.judge`); a withheld figure is judged "—" with its rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Mapping

import pandas as pd
from sqlalchemy import Text, case, cast, func, select

from annotation.agreement import Verdict, judge, verdicts_summary
from annotation.publishable import Figure
from annotation.quality.annotator_stats import (
    Submission,
    annotator_summary,
    daily_activity,
    pair_figures,
    partner_means,
    partner_table,
)
from annotation.flag_reasons import is_automatic_flag
from annotation.parameters import PARAMETERS
from annotation.project_day import day_start, local_day
from annotation.quality.qualification import FIGURE_RULES, Thresholds
from annotation.services.quality import agreement
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.rows import json_lists
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_settings
from annotation.services.number_limits import checks_numbers
from annotation.services.process_cache import ProcessCache
from db.engine import Database
from db.models import Annotation, ReviewItem, Sample, User

@dataclass(frozen=True, eq=False)
class AnnotatorDashboard:
    """The dashboard of one project over ``start`` … ``end`` (inclusive; None = open).

    ``summary``: one row per annotator (``annotator_stats.SUMMARY_COLUMNS``); ``daily``: one row
    per day and annotator (``DAILY_COLUMNS``); ``partners``: per-pair agreement, each pair once
    from each side (``PARTNER_COLUMNS``); ``n_agreement_samples``: samples the agreement covers.
    ``summary`` also has a ``verdict`` column: the annotator's agreement with partners against
    ``thresholds`` ("✓ all pass", "✗ Pk · — ICC", see :func:`agreement_verdicts`). The agreement
    columns of ``summary`` and ``partners`` are the figures after the rule (NaN where withheld);
    ``figures`` (per annotator) and ``pair_figures`` (per pair of names, sorted) hold them as
    :class:`~annotation.publishable.Figure` — value and n, or "—" with the rule.
    """

    start: date | None
    end: date | None
    summary: pd.DataFrame
    daily: pd.DataFrame
    partners: pd.DataFrame
    n_agreement_samples: int
    thresholds: Thresholds = Thresholds()
    figures: Mapping[str, Mapping[str, Figure]] = field(default_factory=dict)
    pair_figures: Mapping[tuple[str, str], Mapping[str, Figure]] = field(default_factory=dict)


@checks_numbers
def annotator_dashboard(db: Database, actor: Actor, project_id: int, *, start: date | None = None,
                        end: date | None = None) -> AnnotatorDashboard:
    """Lead: the annotator dashboard of a project for submissions between ``start`` and ``end``."""
    if start and end and start > end:
        raise InvalidInput("The start date is after the end date.")
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        version = _fingerprint(s, project_id)
    return _KEPT.get_or_make((str(db.engine.url), project_id, start, end),
                             lambda: _dashboard(db, actor, project_id, start, end), version=version)


#: The last dashboards of this process, by what they were computed from: the Annotators page
#: asks on every run (a chart tab, a filter), and at 20,000 texts one took ~0.4 s.
_KEPT: ProcessCache[AnnotatorDashboard] = ProcessCache(8)


def _fingerprint(s, project_id: int) -> tuple:  # type: ignore[no-untyped-def]
    """What a dashboard reads, in aggregates: the project's annotations by status (count, id sum,
    version sum, last change), its review items (count, id sum, total length of their reasons),
    its samples (count, id sum, how many active, how many warm-up) and its settings."""
    annotations = tuple(s.execute(
        select(Annotation.status, func.count(), func.sum(Annotation.id), func.sum(Annotation.version),
               func.max(Annotation.updated_at))
        .join(Sample, Sample.id == Annotation.sample_id).where(Sample.project_id == project_id)
        .group_by(Annotation.status).order_by(Annotation.status)).all())
    items = s.execute(
        select(func.count(), func.sum(ReviewItem.id), func.sum(func.length(cast(ReviewItem.reasons, Text))))
        .select_from(ReviewItem).join(Sample, Sample.id == ReviewItem.sample_id)
        .where(Sample.project_id == project_id)).one()
    samples = s.execute(select(func.count(), func.sum(Sample.id),
                               func.sum(case((Sample.status == "active", 1), else_=0)),
                               func.sum(case((Sample.is_warmup.is_(True), 1), else_=0)))
                        .where(Sample.project_id == project_id)).one()
    return (tuple(tuple(r) for r in annotations), tuple(items), tuple(samples),
            tuple(sorted(project_settings(s, project_id).to_dict().items())))


def _dashboard(db: Database, actor: Actor, project_id: int, start: date | None,
               end: date | None) -> AnnotatorDashboard:
    with db.read() as s:
        settings = project_settings(s, project_id)
        # flags as stored text ("[]" when none): whether there are any, without decoding each
        stmt = (select(User.username, Annotation.sample_id, Annotation.submitted_at,
                       Annotation.seconds_spent, cast(Annotation.flags, Text), Sample.is_warmup)
                .join(Sample, Sample.id == Annotation.sample_id)
                .join(User, User.id == Annotation.annotator_id)
                .where(Sample.project_id == project_id, Annotation.status == "submitted"))
        if start:
            stmt = stmt.where(Annotation.submitted_at >= day_start(start, settings))
        if end:
            stmt = stmt.where(Annotation.submitted_at < day_start(end + timedelta(days=1), settings))
        subs = [Submission(name, sid, local_day(when, settings), float(spent or 0.0),
                           _any_flag(flags), bool(warm))
                for name, sid, when, spent, flags, warm in s.connection().execute(stmt)]
        drafts = dict(s.execute(
            select(User.username, func.count())
            .select_from(Annotation).join(Sample, Sample.id == Annotation.sample_id)
            .join(User, User.id == Annotation.annotator_id)
            .where(Sample.project_id == project_id, Sample.status == "active", Annotation.status == "draft")
            .group_by(User.username)).all())
        production = {x.sample_id for x in subs if not x.warmup}
        # the project's complete and automatically flagged samples (one query each), then
        # those of the period's submissions
        complete = production.intersection(s.scalars(
            select(Annotation.sample_id).join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted")
            .group_by(Annotation.sample_id).having(func.count() >= settings.annotators_per_sample)))
        items = [(sid, raw) for sid, raw in s.connection().execute(
            select(ReviewItem.sample_id, cast(ReviewItem.reasons, Text))
            .join(Sample, Sample.id == ReviewItem.sample_id).where(Sample.project_id == project_id))
            if sid in production]
        # a few distinct lists of reasons: each read once
        automatic = {raw: any(is_automatic_flag(r) for r in reasons)
                     for raw, reasons in json_lists(raw for _, raw in items).items()}
        flagged = {sid for sid, raw in items if automatic[raw]}
    scope = agreement.project_agreement(db, actor, project_id, start=start, end=end, intervals=False)
    pairs = scope.report.pairs
    thresholds = Thresholds.of(settings)
    summary = annotator_summary(subs, drafts=drafts, complete_samples=complete,
                                auto_flagged_samples=flagged, pairs=pairs)
    figures = partner_means(pairs)
    summary["verdict"] = [verdicts_summary(agreement_verdicts(row, thresholds, figures.get(row["annotator"], {})))
                          for row in summary.to_dict("records")]
    return AnnotatorDashboard(start, end, summary, daily_activity(subs), partner_table(pairs),
                              scope.report.n_samples, thresholds, figures,
                              {pair.annotators: pair_figures(pair) for pair in pairs})


def agreement_verdicts(row: Mapping[str, Any], thresholds: Thresholds,
                       figures: Mapping[str, Figure] | None = None) -> dict[str, Verdict]:
    """One annotator's agreement with partners (a ``summary`` row) judged as qualification
    judges figures against gold: the smallest ICC of ξ, ω, α, Jaccard and Pk. ``figures`` (the
    annotator's :func:`~annotation.quality.annotator_stats.partner_means`) say why a missing
    figure is missing: the rule that withheld it and the shared samples it would rest on."""
    def defined(value: Any) -> float | None:
        return None if value is None or math.isnan(float(value)) else float(value)

    figures = figures or {}

    def reason(*names: str) -> str:
        for name in names:
            fig = figures.get(name)
            if fig is not None and not fig.shown:
                return f"{fig.withheld} (n = {fig.n:,})"
        return "no doubly annotated sample completed in the period"

    iccs = [defined(row.get(f"icc_{p}")) for p in PARAMETERS]
    icc = None if None in iccs else min(iccs)  # type: ignore[type-var]
    reasons = {"icc": reason(*(f"icc_{p}" for p in PARAMETERS)), "jaccard": reason("jaccard"), "pk": reason("pk")}
    values = {"icc": icc, "jaccard": defined(row.get("jaccard")), "pk": defined(row.get("pk"))}
    return {name: judge(values[name], thresholds.of_figure(name), rule=rule, reason=reasons[name])
            for name, rule in FIGURE_RULES.items() if name in values}


def _any_flag(stored: str | None) -> bool:
    """Whether an annotation's flags, as stored (JSON text), hold any flag."""
    return stored is not None and stored.strip() not in ("", "[]", "null")
