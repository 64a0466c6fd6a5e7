"""Settling at submit (SPEC section 4): what happens to a sample when its annotations are
submitted.

* Every submitted production annotation is counted into the project's running parameter sums
  (:class:`db.models.ParameterStats`): the 2σ rule needs the SD of each parameter over the
  project's submitted annotations, and the sums keep that O(1) per submit.
* An annotator's flag opens a review item at once.
* When a sample has its k-th submitted annotation its flags are computed (``annotation.review.flags``):
  flagged samples open a review item, unflagged ones are resolved automatically into gold
  (``annotation.review.resolution``); a context pair's gold also holds its curve given the
  follow-up and its change label, and its own flags join (``annotation.review.pair_settling``).
  With the ``third_annotator`` setting on, a flagged (or too uncertain) sample goes to one more
  annotator first, and settles with k + 1 when a pair of them agrees
  (:mod:`annotation.services.review.settle_plan`, :mod:`annotation.quality.third_annotator`). At a submit
  this is decided before the write
  (:func:`prepare_submission`: read the sample, :func:`plan_settle`) and written in the submit's
  transaction once the sample is verified unchanged (:class:`PreparedSettlement`), so no flag
  or resolution is computed while the write lock is held.
* :func:`annotation.services.review.resolving.resolve_project` settles a whole project again (CLI
  ``resolve``, settings changes), in short write transactions.

The lead's side — the review queue and the decisions on its items — is
:mod:`annotation.services.review.review`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from sqlalchemy import and_, func, select, update
from sqlalchemy.orm import Session

from annotation.curves import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, parameter_bounds_problem
from annotation.review.deviation import ParameterSpread, spread_from_sums, sums_are_finite
from annotation.review.pair_settling import PairGold
from annotation.parameters import PARAMETERS
from annotation.content import AnnotationContent
from annotation.review.resolution import Resolution
from annotation.services.errors import ChangedMeanwhile, InvalidInput
from annotation.services.quality.gold_weighting import weighting_in
from annotation.services.rows import annotation_content, gold_values
from annotation.services.protocols import services_of
from annotation.services.protocols.sample_pairs import PairFacts
from annotation.services.review.settle_plan import SettlePlan, Submitted, plan_settle
from annotation.settings import ProjectSettings
from db.models import Annotation, GoldAnnotation, ParameterStats, ReviewItem, Sample, User, utcnow

_BOUNDS = {"xi": XI_BOUNDS, "omega": OMEGA_BOUNDS, "alpha": ALPHA_BOUNDS}


# --- running parameter statistics -----------------------------------------------------------

def ensure_stats(s: Session, project_id: int, *, without: int | None = None) -> ParameterStats:
    """The project's running sums, built from the stored annotations the first time.

    Call it *before* changing which annotations are submitted in a transaction, so the sums it
    builds do not already contain the change that :func:`count_parameters` then adds — or name
    that change's annotation as ``without``.
    """
    stats = s.get(ParameterStats, project_id)
    if stats is not None:
        return stats
    n, sx, so, sa, qx, qo, qa = _sums_from_annotations(s, project_id, without)
    stats = ParameterStats(project_id=project_id, n=n, sum_xi=sx, sum_omega=so, sum_alpha=sa,
                           sumsq_xi=qx, sumsq_omega=qo, sumsq_alpha=qa)
    s.add(stats)
    s.flush()
    return stats


def _sums_from_annotations(s: Session, project_id: int, without: int | None = None) -> tuple[Any, ...]:
    """``(n, Σξ, Σω, Σα, Σξ², Σω², Σα²)`` over the submitted production annotations whose curve
    the fit could have made (finite, inside the fit's bounds): a value from before imports were
    checked (ξ = 1e308) is left out, so it cannot make σ infinite, NaN or 0 for good."""
    in_bounds = [getattr(Annotation, p).between(*bounds) for p, bounds in _BOUNDS.items()]
    row = s.execute(
        select(func.count(), *[func.sum(getattr(Annotation, p)) for p in PARAMETERS],
               *[func.sum(getattr(Annotation, p) * getattr(Annotation, p)) for p in PARAMETERS])
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted",
               Sample.is_warmup.is_(False),
               Annotation.id != (without if without is not None else -1), *in_bounds)
    ).one()
    n, *sums = (v or 0 for v in row)
    return (int(n), *(float(v) for v in sums))


def _counted(content: AnnotationContent) -> bool:
    """Whether an annotation's parameters take part in the running sums (the same rule as
    :func:`_sums_from_annotations`, so adding and removing it stay symmetric)."""
    return content.has_parameters and parameter_bounds_problem(
        content.xi, content.omega, content.alpha) is None


def count_parameters(s: Session, project_id: int, content: AnnotationContent,
                     sign: int, *, ensure: bool = True) -> ParameterStats | None:
    """Add (sign=+1) or remove (sign=-1) one annotation's parameters from the running sums,
    as one atomic UPDATE so concurrent submits cannot lose each other's counts.

    Returns the project's sums as updated (the UPDATE returns them, so they are current: the row
    stays locked until the transaction ends), or None when ``content``'s parameters are not
    counted (none, or outside the fit's bounds: see :func:`_counted`)."""
    if not _counted(content):
        return None
    if ensure:  # else the caller builds missing sums itself (None comes back)
        ensure_stats(s, project_id)
    values: dict[str, Any] = {"n": ParameterStats.n + sign}
    for p in PARAMETERS:
        v = float(getattr(content, p))
        values[f"sum_{p}"] = getattr(ParameterStats, f"sum_{p}") + sign * v
        values[f"sumsq_{p}"] = getattr(ParameterStats, f"sumsq_{p}") + sign * v * v
    return s.execute(
        update(ParameterStats).where(ParameterStats.project_id == project_id).values(**values)
        .returning(ParameterStats),
        execution_options={"synchronize_session": False, "populate_existing": True},
    ).scalars().first()


def _spread(s: Session, project_id: int, stats: ParameterStats | None = None) -> ParameterSpread:
    """The SD of each parameter from the running sums; ``stats`` when the caller holds current
    ones (just returned by :func:`count_parameters`), else read afresh. Sums poisoned before
    values were checked (non-finite) are rebuilt from the annotations."""
    if stats is None:
        stats = s.get(ParameterStats, project_id, populate_existing=True) or ensure_stats(s, project_id)
    sums = [getattr(stats, f"{kind}_{p}") for kind in ("sum", "sumsq") for p in PARAMETERS]
    if not sums_are_finite(*sums):
        n, *fresh = _sums_from_annotations(s, project_id)
        stats.n = n
        for name, value in zip((f"{kind}_{p}" for kind in ("sum", "sumsq") for p in PARAMETERS), fresh):
            setattr(stats, name, value)
        s.flush()
    return spread_from_sums(stats.n, {p: getattr(stats, f"sum_{p}") for p in PARAMETERS},
                            {p: getattr(stats, f"sumsq_{p}") for p in PARAMETERS})


# --- settling a complete sample --------------------------------------------------------------

def submitted_annotations(s: Session, sample_id: int) -> list[Annotation]:
    """The sample's submitted annotations, in the order they were submitted, read afresh."""
    # populate_existing: the caller may have just written these rows with a bulk UPDATE
    return list(s.scalars(select(Annotation).where(Annotation.sample_id == sample_id,
                                                   Annotation.status == "submitted")
                          .order_by(Annotation.submitted_at, Annotation.id)
                          .execution_options(populate_existing=True)))


#: "not looked up yet" (None means "looked up: there is none")
_UNKNOWN: Any = object()


@dataclass
class SampleState:
    """What settling reads about one sample: its submitted annotations (in submit order, read
    afresh), its gold row, its open review item (None: there is none) and the annotators'
    usernames in the annotations' order (for flag details)."""

    annotations: list[Annotation]
    gold: GoldAnnotation | None
    item: ReviewItem | None
    names: list[str] = field(default_factory=list)


def sample_state(s: Session, sample_id: int) -> SampleState:
    """The sample's :class:`SampleState` in one statement (one round trip): a row per submitted
    annotation with its annotator's username, each carrying the gold row and the open item (one
    row of Nones for none)."""
    rows = s.execute(
        select(Annotation, GoldAnnotation, ReviewItem, User.username).select_from(Sample)
        .outerjoin(Annotation, and_(Annotation.sample_id == Sample.id, Annotation.status == "submitted"))
        .outerjoin(User, User.id == Annotation.annotator_id)
        .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .outerjoin(ReviewItem, and_(ReviewItem.sample_id == Sample.id, ReviewItem.status == "open"))
        .where(Sample.id == sample_id)
        .order_by(Annotation.submitted_at, Annotation.id, ReviewItem.id)
        # the caller may have just written these rows with a bulk UPDATE
        .execution_options(populate_existing=True)
    ).all()
    by_id = {row[0].id: (row[0], row[3]) for row in rows if row[0] is not None}
    gold = next((row[1] for row in rows if row[1] is not None), None)
    item = next((row[2] for row in rows if row[2] is not None), None)
    return SampleState([a for a, _ in by_id.values()], gold, item,
                       [name or f"annotation {i + 1}" for i, (_, name) in enumerate(by_id.values())])


def _open_item(s: Session, sample_id: int) -> ReviewItem | None:
    return s.scalar(select(ReviewItem).where(ReviewItem.sample_id == sample_id,
                                             ReviewItem.status == "open"))


def open_review(s: Session, smp: Sample, reasons: Sequence[str], details: Sequence[dict],
                item: ReviewItem | None = _UNKNOWN) -> ReviewItem:
    """Open (or extend) the sample's review item with ``reasons`` (``item``: the open item when
    the caller has just looked it up, None when it found none)."""
    if item is _UNKNOWN:
        item = _open_item(s, smp.id)
    if item is None:
        item = ReviewItem(sample_id=smp.id, reasons=[], details=[], status="open", opened_at=utcnow())
        s.add(item)
    new = [r for r in dict.fromkeys(reasons) if r not in item.reasons]
    item.reasons = [*item.reasons, *new]
    item.details = [*item.details, *(d for d in details if d.get("code") in new)]
    s.flush()
    return item


def store_gold(s: Session, smp: Sample, res: Resolution, source: str, decided_by: int | None,
               note: str = "", source_annotation_id: int | None = None,
               gold: GoldAnnotation | None = _UNKNOWN, pair: PairGold | None = None) -> GoldAnnotation:
    """Store ``res`` as the sample's gold, decided by ``decided_by`` (None: automatic); ``gold``:
    the sample's gold row when the caller has just looked it up, None when it found none;
    ``pair``: a context pair's curve given the follow-up and change label."""
    if not res.has_parameters:
        raise InvalidInput("The resolution has no curve (ξ, ω, α); edit it or send the sample back.")
    if gold is _UNKNOWN:  # else the caller has just looked it up
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
    if gold is None:
        gold = GoldAnnotation(sample_id=smp.id)
        s.add(gold)
    # confidence and error type are cleared: a lead's decision sets its own after this
    for column, value in gold_values(res, source=source, decided_by=decided_by, decided_at=utcnow(), note=note,
                                     source_annotation_id=source_annotation_id,
                                     **pair_columns(pair)).items():
        setattr(gold, column, value)
    s.flush()
    return gold


def pair_columns(pair: PairGold | None) -> dict[str, Any]:
    """The keyword arguments of :func:`gold_values` that store a pair's part of a gold."""
    return {} if pair is None else {"context": pair.context, "change": pair.change, "curves_change": pair.curves_change}


def pair_facts(s: Session, sample_id: int, settings: ProjectSettings) -> PairFacts | None:
    """The sample's pair facts when its project annotates context pairs (None otherwise)."""
    return services_of(settings).facts(s, [sample_id]).get(sample_id)


def submitted_of(state: SampleState) -> list[Submitted]:
    """The state's annotations as :class:`Submitted` values (submit order)."""
    return [Submitted(a.id, a.annotator_id, annotation_content(a), name)
            for a, name in zip(state.annotations, state.names)]


def write_settle(s: Session, smp: Sample, plan: SettlePlan, state: SampleState) -> str:
    """Write ``plan`` (decided from ``state``, as read in this transaction or verified
    unchanged); returns its outcome."""
    if plan.drop_gold and state.gold is not None:
        s.delete(state.gold)
        state.gold = None
    if plan.reasons:
        state.item = open_review(s, smp, plan.reasons, plan.details, state.item)
    if plan.gold is not None:
        store_gold(s, smp, plan.gold, "auto", None, gold=state.gold, pair=plan.pair)
    if plan.extra is not None:  # one more annotator asked (1), or the extra slot given up (0)
        s.execute(update(Sample).where(Sample.id == smp.id).values(extra_annotators=plan.extra),
                  execution_options={"synchronize_session": False})
    return plan.result


def settle(s: Session, smp: Sample, settings: ProjectSettings, *,
           stats: ParameterStats | None = None, state: SampleState | None = None,
           gold_sd: float | None = None) -> str:
    """Flag or auto-resolve a sample with at least k submitted annotations, in the caller's
    transaction (:func:`plan_settle` then :func:`write_settle`).

    Returns "incomplete", "pending" (an item is already open or a lead decided it),
    "flagged", "gold" or "more" (handed to one more annotator; ``gold_sd`` as
    :func:`plan_settle` takes it). ``stats`` (current running sums) and ``state`` (the sample's
    :func:`sample_state`, freshly read) save a caller that has just read them the round trips.
    """
    if smp.is_warmup:  # scored against the lead's gold (services.admission), never settled
        return "incomplete"
    if state is None:
        state = sample_state(s, smp.id)
    if len(state.annotations) < settings.annotators_per_sample or smp.status != "active":
        return "incomplete"
    plan = plan_settle(smp, settings, submitted_of(state),
                       None if state.gold is None else state.gold.source, state.item is not None,
                       _spread(s, smp.project_id, stats), pair=pair_facts(s, smp.id, settings),
                       gold_sd=gold_sd, weighting=weighting_in(s, smp.project_id, settings))
    return write_settle(s, smp, plan, state)


# --- settling at submit: planned before the write, verified in it ---------------------------------

def _spread_with(s: Session, project_id: int, stats: ParameterStats | None,
                 content: AnnotationContent) -> ParameterSpread:
    """The spread the project will have once ``content`` is counted (read-only: sums that
    are missing or poisoned are computed from the annotations, not stored)."""
    sums: list[float]
    if stats is None or not sums_are_finite(
            *[getattr(stats, f"{kind}_{p}") for kind in ("sum", "sumsq") for p in PARAMETERS]):
        n, *sums = _sums_from_annotations(s, project_id)
    else:
        n = stats.n
        sums = [getattr(stats, f"{kind}_{p}") for kind in ("sum", "sumsq") for p in PARAMETERS]
    if _counted(content):
        n += 1
        values = [float(getattr(content, p)) for p in PARAMETERS]
        sums = [a + b for a, b in zip(sums, values + [v * v for v in values])]
    k = len(PARAMETERS)
    return spread_from_sums(n, dict(zip(PARAMETERS, sums[:k])), dict(zip(PARAMETERS, sums[k:])))


def spread_of_project(s: Session, project_id: int) -> ParameterSpread:
    """The project's parameter spread from its running sums, read-only (sums that are missing
    or poisoned are computed from the annotations, not stored)."""
    return _spread_with(s, project_id, s.get(ParameterStats, project_id), AnnotationContent())


def _state_key(state: SampleState, own_id: int) -> tuple[Any, ...]:
    """What settling at submit planned on: the sample's other submitted annotations (in order),
    its gold (id and source) and its open review item."""
    return (tuple(a.id for a in state.annotations if a.id != own_id),
            None if state.gold is None else (state.gold.id, state.gold.source),
            None if state.item is None else state.item.id)


@dataclass(frozen=True)
class PreparedSettlement:
    """Settling at a production submit, prepared by :func:`prepare_submission` with no lock
    held: the planned writes and the state they were planned on."""

    sample: Sample
    content: AnnotationContent
    key: tuple[Any, ...]
    plan: SettlePlan

    def apply(self, s: Session, a: Annotation) -> str:
        """Count the annotation into the running sums, then write the planned settlement
        after checking the sample is as planned (:class:`ChangedMeanwhile` when not)."""
        smp = self.sample
        if _counted(self.content) and count_parameters(s, smp.project_id, self.content, +1,
                                                       ensure=False) is None:
            ensure_stats(s, smp.project_id, without=a.id)  # a project's first count: from the rows
            count_parameters(s, smp.project_id, self.content, +1)
        state = sample_state(s, smp.id)
        if _state_key(state, a.id) != self.key:
            raise ChangedMeanwhile("the sample changed since its settling was planned")
        return write_settle(s, smp, self.plan, state)


def prepare_submission(s: Session, smp: Sample, annotation_id: int, annotator_id: int,
                       username: str, content: AnnotationContent, settings: ProjectSettings,
                       stats: ParameterStats | None, *, gold_sd: float | None = None) -> PreparedSettlement:
    """Read the sample (in a read transaction) and decide what its settling will write once
    ``content`` is submitted as the annotation ``annotation_id``: an annotator's flag goes to
    the lead at once; a sample now complete is flagged or resolved into gold, or handed to one
    more annotator (``gold_sd``: as :func:`plan_settle` takes it)."""
    state = sample_state(s, smp.id)
    subs = [x for x in submitted_of(state) if x.id != annotation_id]
    subs.append(Submitted(annotation_id, annotator_id, content, username))
    plan = plan_settle(smp, settings, subs, None if state.gold is None else state.gold.source,
                       state.item is not None, _spread_with(s, smp.project_id, stats, content),
                       annotator_flags=bool(content.flags), pair=pair_facts(s, smp.id, settings),
                       gold_sd=gold_sd, weighting=weighting_in(s, smp.project_id, settings))
    return PreparedSettlement(smp, content, _state_key(state, annotation_id), plan)
