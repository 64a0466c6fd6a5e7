"""Agreement over a project's stored annotations (SPEC section 6), for the page and the CLI.

The samples measured are the project's active, non-warm-up samples with at least two submitted
annotations after the filters: benchmark, a date range on the day a sample's last annotation
was submitted (in the project's time zone), and an annotator subset (ratings by others are left
out before counting). Ratings are in submission order, so the ICC's raters are slots.

The project's protocol decides the measures (:meth:`annotation.protocols.ProjectProtocol.agreement_measures`).
For context pairs the report is the target alone's, each rating carrying the annotator's change
label (their override, else the label their curves give); a second report measures the curves
given the follow-up, and where the pairs came with a release's reference labels the gold is read
against them (:class:`annotation.agreement.pair_agreement.ContextPairAgreement`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import Text, cast, func, select

from annotation.agreement import AgreementReport, RatedSample, agreement_report, wilson_interval
from annotation.agreement.change_agreement import change_kappa_interval
from annotation.agreement.pair_agreement import CURVE_MEASURES, ContextPairAgreement
from annotation.agreement.reference_agreement import ReferenceRow, reference_agreement
from annotation.protocols import protocol_of
from annotation.content import CONTEXT
from annotation.project_day import local_day
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_settings
from annotation.services.number_limits import checks_numbers
from annotation.services.process_cache import ProcessCache
# annotation_change: the pairs export's card reads the change label from here too, as the page
from annotation.services.rows import annotation_change, json_lists, rating_of, reference_row
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample, SamplePair, User

@dataclass(frozen=True)
class AgreementScope:
    """What was measured: the report, how many samples had too few ratings, the annotators."""

    report: AgreementReport
    n_single: int
    annotators: tuple[str, ...]
    samples: tuple[RatedSample, ...] = ()
    #: a context-pairs project's curves given the follow-up and reference agreement (None for
    #: single texts); ``report`` is then the target alone's, with the change label's measure
    pairs: ContextPairAgreement | None = None

    def slot_pairs(self, parameter: str) -> tuple[list[float], list[float]]:
        """First and second annotator's value of ``parameter`` on each sample that has both
        (for the A-vs-B scatter)."""
        first, second = [], []
        for smp in self.samples:
            values = [getattr(r, parameter) for r in smp.ratings if getattr(r, parameter) is not None]
            if len(values) >= 2:
                first.append(values[0])
                second.append(values[1])
        return first, second


def _rated_samples(db: Database, project_id: int, benchmark: int | None, start: date | None,
                   end: date | None, annotators: tuple[str, ...]
                   ) -> tuple[list[RatedSample], int, tuple[str, ...], ProjectSettings, list[RatedSample]]:
    """The samples measured (the target alone's curve and, for pairs, each annotator's change
    label), how many had too few ratings, every annotator, the settings, and for a pairs
    project the same samples rated by their curves given the follow-up."""
    with db.read() as s:
        settings = project_settings(s, project_id)
        stmt = (select(Sample.id, Sample.external_id, Sample.benchmark, Sample.n_tokens,
                       User.username, Annotation.submitted_at,
                       cast(Annotation.boundaries, Text).label("boundaries_json"),
                       cast(Annotation.segment_axes, Text).label("segment_axes_json"), Annotation.xi, Annotation.omega, Annotation.alpha,
                       Annotation.context_xi, Annotation.context_omega, Annotation.context_alpha, Annotation.change)
                .join(Annotation, Annotation.sample_id == Sample.id)
                .join(User, User.id == Annotation.annotator_id)
                .where(Sample.project_id == project_id, Sample.status == "active",
                       Sample.is_warmup.is_(False), Annotation.status == "submitted")
                .order_by(Sample.id, Annotation.submitted_at, Annotation.id))
        if benchmark is not None:
            stmt = stmt.where(Sample.benchmark == benchmark)
        # through the connection: plain rows of columns, without the ORM's per-row loading step
        # (a third of this function's time over 200k annotations)
        rows = s.connection().execute(stmt).all()
    # the two JSON columns: each distinct text decoded once, as tuples the ratings share
    parsed = json_lists([*(r.boundaries_json for r in rows), *(r.segment_axes_json for r in rows)])
    segmentations = [(parsed[r.boundaries_json], parsed[r.segment_axes_json]) for r in rows]
    everyone = tuple(sorted({r.username for r in rows}))
    wanted = set(annotators) if annotators else None
    grouped: dict[int, list] = {}
    for r, (bounds, axes) in zip(rows, segmentations):
        if wanted is None or r.username in wanted:
            grouped.setdefault(r.id, []).append((r, bounds, axes))
    pairs = protocol_of(settings).uses(CONTEXT)  # a second curve, and a change label
    samples, given, single = [], [], 0
    for group in grouped.values():
        if len(group) < 2:
            single += 1
            continue
        day = local_day(max(r.submitted_at for r, _, _ in group), settings)
        if (start and day < start) or (end and day > end):
            continue
        first = group[0][0]
        alone = RatedSample(first.external_id, first.benchmark, first.n_tokens, tuple(
            rating_of(r, boundaries=bounds, segment_axes=axes,
                      change=annotation_change(r, settings.change_factor) if pairs else None)
            for r, bounds, axes in group))
        if pairs:
            given.append(RatedSample(first.external_id, first.benchmark, first.n_tokens, tuple(
                rating_of(r, boundaries=bounds, segment_axes=axes, given=True) for r, bounds, axes in group)))
        samples.append(alone)
    return samples, single, everyone, settings, given


def _reference_rows(db: Database, project_id: int, benchmark: int | None) -> list[ReferenceRow]:
    """The project's pairs that have reference labels, beside their gold (empty where none yet)."""
    with db.read() as s:
        stmt = (select(GoldAnnotation.xi, GoldAnnotation.omega, GoldAnnotation.alpha, GoldAnnotation.context_xi,
                       GoldAnnotation.context_omega, GoldAnnotation.context_alpha, GoldAnnotation.change,
                       SamplePair.reference_change, SamplePair.reference_alone, SamplePair.reference_given)
                .select_from(SamplePair).join(Sample, Sample.id == SamplePair.sample_id)
                .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
                .where(Sample.project_id == project_id, Sample.status == "active", Sample.is_warmup.is_(False),
                       (SamplePair.reference_change != "") | SamplePair.reference_alone.is_not(None)))
        if benchmark is not None:
            stmt = stmt.where(Sample.benchmark == benchmark)
        rows = s.execute(stmt).all()
    return [reference_row(r) for r in rows]


def _check_filters(benchmark: int | None, start: date | None, end: date | None) -> None:
    if benchmark not in (None, 1, 2):
        raise InvalidInput("The benchmark is 1 or 2.")
    if start and end and start > end:
        raise InvalidInput("The start date is after the end date.")


@checks_numbers
def project_agreement(db: Database, actor: Actor, project_id: int, *, benchmark: int | None = None,
                      start: date | None = None, end: date | None = None,
                      annotators: tuple[str, ...] = (), intervals: bool = True) -> AgreementScope:
    """Lead: the agreement report of a project under the filters (see module docstring), with
    the project's W1 flag threshold (the curve measure's share of samples above it) and seeded
    bootstrap intervals of the headline figures (``report.intervals``; ``intervals=False``
    skips the bootstrap for callers that read only the pair breakdowns)."""
    _check_filters(benchmark, start, end)
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        key = (str(db.engine.url), project_id, benchmark, start, end, tuple(annotators), intervals)
        version = _fingerprint(s, project_id)
    return _KEPT.get_or_make(key, lambda: _agreement_scope(db, project_id, benchmark, start, end, annotators,
                                                           intervals), version=version)


def _agreement_scope(db: Database, project_id: int, benchmark: int | None, start: date | None, end: date | None,
                     annotators: tuple[str, ...], intervals: bool) -> AgreementScope:
    samples, single, everyone, settings, given = _rated_samples(db, project_id, benchmark, start, end,
                                                                tuple(annotators))
    protocol = protocol_of(settings)
    resamples = None if intervals else 0
    report = agreement_report(samples, measures=protocol.agreement_measures(settings),
                              flag_w1_max=settings.flag_w1_max, resamples=resamples)
    pairs = None
    if protocol.uses(CONTEXT):
        references = _reference_rows(db, project_id, benchmark)
        pairs = ContextPairAgreement(
            agreement_report(given, measures=CURVE_MEASURES, breakdowns=False, flag_w1_max=settings.flag_w1_max,
                             resamples=resamples),
            reference_agreement(references) if references else None,
            change_kappa_interval(samples, resamples=resamples))
    return AgreementScope(report, single, everyone, tuple(samples), pairs)


#: The last reports of this process, by what they were computed from: the Agreement page asks
#: on every run (a tab, a filter, a rerun) and a report takes 0.5 s at 200 samples, seconds at
#: 100k; the same data and filters give the same report (its bootstrap is seeded).
_KEPT: ProcessCache[AgreementScope] = ProcessCache(8)


def _fingerprint(s, project_id: int) -> tuple:  # type: ignore[no-untyped-def]
    """What a report reads, in one aggregate: the project's settings and the count, id sum and
    last change of the submitted production annotations of its active samples (a submit, a
    reopen, a lead's decision, a discarded sample each change it)."""
    row = s.execute(
        select(func.count(), func.sum(Annotation.id), func.max(Annotation.updated_at))
        .select_from(Annotation).join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Sample.status == "active", Sample.is_warmup.is_(False),
               Annotation.status == "submitted")).one()
    # a pairs project's reference agreement reads the gold: a lead's decision changes it
    gold = s.execute(select(func.count(), func.sum(GoldAnnotation.id), func.max(GoldAnnotation.decided_at))
                     .join(Sample, Sample.id == GoldAnnotation.sample_id)
                     .where(Sample.project_id == project_id)).one()
    return (*row, *gold, tuple(sorted(project_settings(s, project_id).to_dict().items(), key=lambda kv: kv[0])))


@checks_numbers
def annotators_with_work(db: Database, actor: Actor, project_id: int) -> tuple[str, ...]:
    """Lead: usernames with at least one submitted annotation in the project (filter options)."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        return tuple(s.scalars(
            select(User.username).join(Annotation, Annotation.annotator_id == User.id)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted")
            .distinct().order_by(User.username)))


#: How a closed review item ended, by the lead's decision: the gold is the automatic proposal
#: ("unchanged"), the lead changed it (edited, took one version, or the pooled curve), or the
#: sample went back to its annotators or out of the dataset.
REVIEW_OUTCOMES: dict[str, str] = {
    "accept_auto": "unchanged", "accept_pooled": "changed", "edit": "changed",
    "take_version": "changed", "send_back": "sent back", "discard": "discarded",
}


@dataclass(frozen=True)
class ReviewOutcome:
    """One outcome of the lead's review: ``count`` of ``n_reviewed`` closed items, with the
    Wilson 95 % interval of the share."""

    outcome: str
    count: int
    n_reviewed: int
    interval: tuple[float, float]

    @property
    def share(self) -> float:
        return self.count / self.n_reviewed if self.n_reviewed else float("nan")


@checks_numbers
def review_outcomes(db: Database, actor: Actor, project_id: int, *, benchmark: int | None = None,
                    start: date | None = None, end: date | None = None) -> tuple[ReviewOutcome, ...]:
    """Lead: how the project's reviewed samples ended (:data:`REVIEW_OUTCOMES`), each share with
    its Wilson interval — e.g. the share of reviewed samples the lead changed. Review items closed
    in [start, end] (the project's days), warm-up samples left out; every outcome is listed, with
    0 where none ended so."""
    _check_filters(benchmark, start, end)
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        settings = project_settings(s, project_id)
        stmt = (select(ReviewItem.decision, ReviewItem.closed_at)
                .join(Sample, Sample.id == ReviewItem.sample_id)
                .where(Sample.project_id == project_id, Sample.is_warmup.is_(False),
                       ReviewItem.status == "closed"))
        if benchmark is not None:
            stmt = stmt.where(Sample.benchmark == benchmark)
        rows = s.execute(stmt).all()
    counts = dict.fromkeys(dict.fromkeys(REVIEW_OUTCOMES.values()), 0)
    for decision, closed_at in rows:
        outcome = REVIEW_OUTCOMES.get(decision)
        if outcome is None or closed_at is None:
            continue
        day = local_day(closed_at, settings)
        if (start and day < start) or (end and day > end):
            continue
        counts[outcome] += 1
    n = sum(counts.values())
    return tuple(ReviewOutcome(outcome, count, n, wilson_interval(count, n)) for outcome, count in counts.items())
