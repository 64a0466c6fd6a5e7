"""The lead's side of quality control: settling complete samples, the review queue, adjudication.

* When a sample has its k-th submitted annotation (:func:`record_submission`, called inside the
  submit transaction) its flags are computed (``annotation.flags``): flagged samples open a review
  item, unflagged ones are resolved automatically into gold (``annotation.resolution``).
* Each calendar day's review sample (``annotation.review_sampling``) is drawn once, for days
  that are over, when the lead opens the queue; it adds "daily review" items, flagged or not.
* The lead decides an open item: accept the automatic resolution, store an edited one, take one
  annotator's version, send the sample back to its annotators, or discard it. Every decision is
  stored on the item (who, when, why) and in the audit log.

The 2σ rule needs the SD of each parameter over the project's submitted annotations; running
sums (:class:`db.models.ParameterStats`) keep that O(1) per submit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Sequence

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.orm import Session

from annotation.curves import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS, parameter_bounds_problem
from annotation.flag_reasons import flag_label, is_automatic_flag
from annotation.flags import (
    FlagHit,
    ParameterSpread,
    annotator_flag_hits,
    flags_for_sample,
    spread_from_sums,
    sums_are_finite,
)
from annotation.protocol import AnnotationContent
from annotation.resolution import EDITED, AnnotatorVersion, Resolution, resolve_pair, take_version
from annotation.review_sampling import daily_review_sample
from annotation.segmentation import SegmentationError
from annotation.services import audit
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput, NotFound, StaleVersion
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import (
    Annotation,
    GoldAnnotation,
    ParameterStats,
    Project,
    ReviewDay,
    ReviewItem,
    Sample,
    User,
    utcnow,
)

DAILY_REVIEW = "daily_review"
DECISIONS = ("accept_auto", "edit", "take_version", "send_back", "discard")
_PARAMS = ("xi", "omega", "alpha")
_BOUNDS = {"xi": XI_BOUNDS, "omega": OMEGA_BOUNDS, "alpha": ALPHA_BOUNDS}


def reason_label(code: str) -> str:
    """Human label of a review reason (flag codes and the daily review sample)."""
    return "Daily review sample" if code == DAILY_REVIEW else flag_label(code)


# --- running parameter statistics -----------------------------------------------------------

def ensure_stats(s: Session, project_id: int) -> ParameterStats:
    """The project's running sums, built from the stored annotations the first time.

    Call it *before* changing which annotations are submitted in a transaction, so the sums it
    builds do not already contain the change that :func:`count_parameters` then adds.
    """
    stats = s.get(ParameterStats, project_id)
    if stats is not None:
        return stats
    n, sx, so, sa, qx, qo, qa = _sums_from_annotations(s, project_id)
    stats = ParameterStats(project_id=project_id, n=n, sum_xi=sx, sum_omega=so, sum_alpha=sa,
                           sumsq_xi=qx, sumsq_omega=qo, sumsq_alpha=qa)
    s.add(stats)
    s.flush()
    return stats


def _sums_from_annotations(s: Session, project_id: int) -> tuple[Any, ...]:
    """``(n, Σξ, Σω, Σα, Σξ², Σω², Σα²)`` over the submitted production annotations whose curve
    the fit could have made (finite, inside the fit's bounds): a value from before imports were
    checked (ξ = 1e308) is left out, so it cannot make σ infinite, NaN or 0 for good."""
    in_bounds = [getattr(Annotation, p).between(*bounds) for p, bounds in _BOUNDS.items()]
    row = s.execute(
        select(func.count(), *[func.sum(getattr(Annotation, p)) for p in _PARAMS],
               *[func.sum(getattr(Annotation, p) * getattr(Annotation, p)) for p in _PARAMS])
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted",
               Sample.is_warmup.is_(False), *in_bounds)
    ).one()
    n, *sums = (v or 0 for v in row)
    return (int(n), *(float(v) for v in sums))


def _counted(content: AnnotationContent) -> bool:
    """Whether an annotation's parameters take part in the running sums (the same rule as
    :func:`_sums_from_annotations`, so adding and removing it stay symmetric)."""
    return content.has_parameters and parameter_bounds_problem(
        content.xi, content.omega, content.alpha) is None


def count_parameters(s: Session, project_id: int, content: AnnotationContent,
                     sign: int) -> ParameterStats | None:
    """Add (sign=+1) or remove (sign=-1) one annotation's parameters from the running sums,
    as one atomic UPDATE so concurrent submits cannot lose each other's counts.

    Returns the project's sums as updated (the UPDATE returns them, so they are current: the row
    stays locked until the transaction ends), or None when ``content``'s parameters are not
    counted (none, or outside the fit's bounds: see :func:`_counted`)."""
    if not _counted(content):
        return None
    ensure_stats(s, project_id)
    values: dict[str, Any] = {"n": ParameterStats.n + sign}
    for p in _PARAMS:
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
    sums = [getattr(stats, f"{kind}_{p}") for kind in ("sum", "sumsq") for p in _PARAMS]
    if not sums_are_finite(*sums):
        n, *fresh = _sums_from_annotations(s, project_id)
        stats.n = n
        for name, value in zip((f"{kind}_{p}" for kind in ("sum", "sumsq") for p in _PARAMS), fresh):
            setattr(stats, name, value)
        s.flush()
    return spread_from_sums(stats.n, {p: getattr(stats, f"sum_{p}") for p in _PARAMS},
                            {p: getattr(stats, f"sumsq_{p}") for p in _PARAMS})


# --- settling a complete sample --------------------------------------------------------------

def _content(a: Annotation) -> AnnotationContent:
    return AnnotationContent(
        boundaries=tuple(a.boundaries), segment_axes=tuple(a.segment_axes),
        points=tuple((float(x), float(y)) for x, y in a.points), xi=a.xi, omega=a.omega,
        alpha=a.alpha, scale=a.scale, rmse=a.rmse, params_source=a.params_source,
        flags=tuple(a.flags), note=a.note)


def _submitted(s: Session, sample_id: int) -> list[Annotation]:
    # populate_existing: the caller may have just written these rows with a bulk UPDATE
    return list(s.scalars(select(Annotation).where(Annotation.sample_id == sample_id,
                                                   Annotation.status == "submitted")
                          .order_by(Annotation.submitted_at, Annotation.id)
                          .execution_options(populate_existing=True)))


#: "not looked up yet" (None means "looked up: there is none")
_UNKNOWN: Any = object()


def _gold_and_open_item(s: Session, sample_id: int) -> tuple[GoldAnnotation | None, ReviewItem | None]:
    """The sample's gold row and its open review item, in one statement."""
    row = s.execute(
        select(Sample.id, GoldAnnotation, ReviewItem).select_from(Sample)
        .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .outerjoin(ReviewItem, and_(ReviewItem.sample_id == Sample.id, ReviewItem.status == "open"))
        .where(Sample.id == sample_id).limit(1)
    ).first()
    return (row[1], row[2]) if row is not None else (None, None)


def _open_item(s: Session, sample_id: int) -> ReviewItem | None:
    return s.scalar(select(ReviewItem).where(ReviewItem.sample_id == sample_id,
                                             ReviewItem.status == "open"))


def _hit_json(hit: FlagHit, annotations: Sequence[Annotation]) -> dict[str, Any]:
    return {"code": hit.code, "detail": hit.detail, "value": hit.value, "threshold": hit.threshold,
            "annotation_ids": [annotations[i].id for i in hit.annotators if i < len(annotations)]}


def _open_review(s: Session, smp: Sample, reasons: Sequence[str], details: Sequence[dict],
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


def _versions(anns: Sequence[Annotation], n_tokens: int) -> list[AnnotatorVersion]:
    versions = []
    for a in anns:
        try:
            versions.append(AnnotatorVersion.from_content(a.annotator_id, _content(a), n_tokens))
        except (SegmentationError, ValueError):
            continue  # an unfinished flagged annotation cannot take part in a merge
    return versions


def _store_gold(s: Session, smp: Sample, res: Resolution, source: str, decided_by: int | None,
                note: str = "", source_annotation_id: int | None = None,
                gold: GoldAnnotation | None = _UNKNOWN) -> GoldAnnotation:
    if not res.has_parameters:
        raise InvalidInput("The resolution has no curve (ξ, ω, α); edit it or send the sample back.")
    if gold is _UNKNOWN:  # else the caller has just looked it up
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
    if gold is None:
        gold = GoldAnnotation(sample_id=smp.id)
        s.add(gold)
    gold.boundaries = list(res.boundaries)
    gold.segment_axes = [list(axes) for axes in res.segment_axes]
    gold.xi, gold.omega, gold.alpha = float(res.xi), float(res.omega), float(res.alpha)
    gold.source, gold.decided_by, gold.decided_at = source, decided_by, utcnow()
    gold.note, gold.source_annotation_id = note, source_annotation_id
    s.flush()
    return gold


def settle(s: Session, smp: Sample, settings: ProjectSettings, *,
           stats: ParameterStats | None = None, anns: Sequence[Annotation] | None = None) -> str:
    """Flag or auto-resolve a sample with at least k submitted annotations.

    Returns "incomplete", "pending" (an item is already open or a lead decided it),
    "flagged" or "gold". Runs inside the caller's transaction. ``stats`` (current running sums)
    and ``anns`` (the sample's submitted annotations, freshly read) save a caller that has just
    read them the round trips.
    """
    if smp.is_warmup:  # scored against the lead's gold (services.admission), never settled
        return "incomplete"
    if anns is None:
        anns = _submitted(s, smp.id)
    if len(anns) < settings.annotators_per_sample or smp.status != "active":
        return "incomplete"
    gold, item = _gold_and_open_item(s, smp.id)
    if gold is not None and gold.source != "auto":
        return "pending"  # a lead decided it
    hits = flags_for_sample([_content(a) for a in anns], smp.n_tokens,
                            _spread(s, smp.project_id, stats), settings)
    if item is not None:
        # already waiting for a lead (an annotator's flag, the daily sample): add what the
        # complete sample shows, so the lead sees every reason in one place
        _open_review(s, smp, [h.code for h in hits], [_hit_json(h, anns) for h in hits], item)
        return "pending"
    if hits:
        if gold is not None:  # new thresholds flag what was auto-resolved before
            s.delete(gold)
        _open_review(s, smp, [h.code for h in hits], [_hit_json(h, anns) for h in hits], None)
        return "flagged"
    res = resolve_pair(_versions(anns, smp.n_tokens))
    _store_gold(s, smp, res, "auto", None, gold=gold)
    return "gold"


def record_submission(s: Session, smp: Sample, content: AnnotationContent,
                      settings: ProjectSettings) -> str:
    """Count a newly submitted annotation; an annotator's flag goes to the lead at once, and
    the sample is settled if it is now complete."""
    stats = count_parameters(s, smp.project_id, content, +1)
    anns = None
    if content.flags:
        anns = _submitted(s, smp.id)
        hits = annotator_flag_hits([_content(a) for a in anns])
        _open_review(s, smp, [h.code for h in hits], [_hit_json(h, anns) for h in hits])
    return settle(s, smp, settings, stats=stats, anns=anns)


# --- the daily review sample -------------------------------------------------------------------

def _draw_review_days(s: Session, project_id: int, settings: ProjectSettings, today: date) -> int:
    """Draw the review sample of every finished day not drawn yet; returns items touched."""
    zone = settings.timezone
    drawn = set(s.scalars(select(ReviewDay.day).where(ReviewDay.project_id == project_id)))
    start_today = datetime.combine(today, datetime.min.time(), tzinfo=zone)
    rows = s.execute(
        select(Annotation.id, Annotation.submitted_at, Annotation.sample_id)
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted",
               Sample.is_warmup.is_(False), Annotation.submitted_at < start_today)
    ).all()
    by_day: dict[date, list[tuple[int, int]]] = {}
    for aid, when, sid in rows:
        day = when.astimezone(zone).date()
        if day.isoformat() not in drawn:
            by_day.setdefault(day, []).append((aid, sid))
    touched = 0
    for day, pairs in sorted(by_day.items()):
        chosen = set(daily_review_sample([a for a, _ in pairs], day, settings.review_rate,
                                         seed=project_id))
        for aid, sid in pairs:
            if aid in chosen:
                smp = s.get(Sample, sid)
                if smp is not None and smp.status == "active":
                    _open_review(s, smp, [DAILY_REVIEW],
                                 [{"code": DAILY_REVIEW, "detail": f"sampled from {day.isoformat()}",
                                   "value": None, "threshold": None, "annotation_ids": [aid]}])
                    touched += 1
        s.add(ReviewDay(project_id=project_id, day=day.isoformat(), n_submitted=len(pairs),
                        n_sampled=len(chosen), drawn_at=utcnow()))
    return touched


# --- the lead's queue ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewRow:
    item_id: int
    sample_id: int
    external_id: str
    benchmark: int
    reasons: tuple[str, ...]
    annotators: tuple[str, ...]
    opened_at: datetime


def _project_settings(s: Session, project_id: int) -> ProjectSettings:
    p = s.get(Project, project_id)
    if p is None:
        raise NotFound("No such project.")
    return ProjectSettings.from_dict(p.settings)


def review_queue(db: Database, actor: Actor, project_id: int, *, reason: str | None = None,
                 benchmark: int | None = None, annotator: str | None = None) -> list[ReviewRow]:
    """Lead: open review items, oldest first, after drawing any pending daily review samples."""
    with db.write() as s:
        require_role(s, actor, "lead")
        settings = _project_settings(s, project_id)
        _draw_review_days(s, project_id, settings, utcnow().astimezone(settings.timezone).date())
    with db.read() as s:
        items = s.execute(
            select(ReviewItem, Sample).join(Sample, Sample.id == ReviewItem.sample_id)
            .where(Sample.project_id == project_id, ReviewItem.status == "open")
            .order_by(ReviewItem.opened_at, ReviewItem.id)).all()
        names: dict[int, list[str]] = {}
        for sample_id, username in s.execute(
                select(Annotation.sample_id, User.username)
                .join(User, User.id == Annotation.annotator_id)
                .join(ReviewItem, and_(ReviewItem.sample_id == Annotation.sample_id,
                                       ReviewItem.status == "open"))
                .where(Annotation.status == "submitted")):
            names.setdefault(sample_id, []).append(username)
    rows = []
    for item, smp in items:
        who = tuple(sorted(names.get(smp.id, ())))
        if reason and reason not in item.reasons:
            continue
        if benchmark and smp.benchmark != benchmark:
            continue
        if annotator and annotator not in who:
            continue
        rows.append(ReviewRow(item.id, smp.id, smp.external_id, smp.benchmark, tuple(item.reasons),
                              who, item.opened_at))
    return rows


@dataclass(frozen=True)
class VersionView:
    annotation_id: int
    annotator: str
    content: AnnotationContent
    submitted_at: datetime | None
    seconds_spent: float


@dataclass(frozen=True)
class ReviewCase:
    """Everything the adjudication view shows for one open item."""

    item_id: int
    sample_id: int
    external_id: str
    benchmark: int
    parent_text: str
    n_tokens: int
    reasons: tuple[str, ...]
    details: tuple[dict, ...]
    versions: tuple[VersionView, ...]
    proposal: Resolution | None
    history: tuple[dict, ...]


def open_case(db: Database, actor: Actor, item_id: int) -> ReviewCase:
    """Lead: one review item with both (all) annotations side by side and the proposal."""
    with db.read() as s:
        require_role(s, actor, "lead")
        item = s.get(ReviewItem, item_id)
        if item is None:
            raise NotFound("No such review item.")
        smp = s.get(Sample, item.sample_id)
        anns = _submitted(s, smp.id)
        users = dict(s.execute(select(User.id, User.username)
                               .where(User.id.in_([a.annotator_id for a in anns]))).all())
        versions = tuple(VersionView(a.id, users.get(a.annotator_id, "?"), _content(a),
                                     a.submitted_at, a.seconds_spent) for a in anns)
        usable = _versions(anns, smp.n_tokens)
        proposal = resolve_pair(usable) if usable else None
        return ReviewCase(item.id, smp.id, smp.external_id, smp.benchmark, smp.parent_text,
                          smp.n_tokens, tuple(item.reasons), tuple(item.details), versions,
                          proposal, tuple(_history(s, smp.id)))


def _history(s: Session, sample_id: int) -> list[dict]:
    events = []
    for item in s.scalars(select(ReviewItem).where(ReviewItem.sample_id == sample_id)
                          .order_by(ReviewItem.id)):
        events.append({"at": item.opened_at, "who": "", "what": "review opened",
                       "why": ", ".join(reason_label(r) for r in item.reasons)})
        if item.status == "closed":
            who = s.get(User, item.closed_by).username if item.closed_by else ""
            events.append({"at": item.closed_at, "who": who, "what": item.decision, "why": item.note})
    return events


def sample_history(db: Database, actor: Actor, sample_id: int) -> list[dict]:
    """Lead: review openings and decisions of one sample, oldest first."""
    with db.read() as s:
        require_role(s, actor, "lead")
        return _history(s, sample_id)


def decide(db: Database, actor: Actor, item_id: int, decision: str, *, note: str = "",
           resolution: Resolution | None = None, annotation_id: int | None = None) -> str:
    """Lead: settle an open review item (see module docstring). Returns the decision.

    ``edit`` needs ``resolution``; ``take_version`` needs the ``annotation_id`` to take;
    ``send_back`` and ``discard`` need a ``note`` (the annotators and the history show it).
    A decision on an item that is no longer open raises :class:`StaleVersion`.
    """
    if decision not in DECISIONS:
        raise InvalidInput(f"Unknown decision {decision!r}.")
    note = (note or "").strip()
    if decision in ("send_back", "discard") and not note:
        raise InvalidInput("Say why in the note: the annotators and the history show it.")
    with db.write() as s:
        require_role(s, actor, "lead")
        item = s.get(ReviewItem, item_id, with_for_update=True)
        if item is None:
            raise NotFound("No such review item.")
        if item.status != "open":
            raise StaleVersion("Another lead already decided this sample; reload the queue.")
        smp = s.get(Sample, item.sample_id)
        anns = _submitted(s, smp.id)
        if decision == "accept_auto":
            usable = _versions(anns, smp.n_tokens)
            if not usable:
                raise InvalidInput("No complete annotation to resolve; send the sample back or discard it.")
            _store_gold(s, smp, resolve_pair(usable), "accepted", actor.user_id, note)
        elif decision == "edit":
            if resolution is None or resolution.n_tokens != smp.n_tokens:
                raise InvalidInput("The edited resolution does not fit this text.")
            if any(not axes for axes in resolution.segment_axes):
                raise InvalidInput("Every segment of the resolution needs at least one axis.")
            _store_gold(s, smp, Resolution(resolution.boundaries, resolution.segment_axes,
                                           resolution.xi, resolution.omega, resolution.alpha,
                                           resolution.sources, resolution.n_tokens,
                                           resolution.parameter_sources, EDITED),
                        "edited", actor.user_id, note)
        elif decision == "take_version":
            chosen = next((a for a in anns if a.id == annotation_id), None)
            if chosen is None:
                raise InvalidInput("Choose one of this sample's annotations to take.")
            try:
                version = AnnotatorVersion.from_content(chosen.annotator_id, _content(chosen), smp.n_tokens)
            except (SegmentationError, ValueError):
                raise InvalidInput("That annotation is unfinished and cannot be taken.") from None
            if None in version.segment_axes:
                raise InvalidInput("That annotation has segments without an axis and cannot be taken.")
            _store_gold(s, smp, take_version(version), "annotator", actor.user_id, note, chosen.id)
        elif decision == "send_back":
            _send_back(s, smp, anns, note)
        else:  # discard
            smp.status = "discarded"
            s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
        item.status, item.decision, item.note = "closed", decision, note
        item.closed_by, item.closed_at = actor.user_id, utcnow()
        audit.record(s, actor.user_id, f"review_{decision}", "sample", smp.id, item=item.id, note=note)
        return decision


def _send_back(s: Session, smp: Sample, anns: Sequence[Annotation], note: str) -> None:
    """Return every submitted annotation of the sample to its annotator as a draft."""
    ensure_stats(s, smp.project_id)
    for a in anns:
        count_parameters(s, smp.project_id, _content(a), -1)
        a.status, a.submitted_at, a.returned_note = "draft", None, note
        a.version += 1
        a.updated_at = utcnow()
    s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))


# --- batch settling (CLI `resolve`, settings changes) --------------------------------------------

@dataclass(frozen=True)
class SettleSummary:
    gold: int
    flagged: int
    pending: int
    incomplete: int


def resolve_project(db: Database, actor: Actor, project_id: int, *, recheck: bool = False) -> SettleSummary:
    """Lead: settle every complete sample not settled yet — unflagged ones become gold, flagged
    ones open review items. With ``recheck`` (after thresholds changed) open items that hold only
    automatic flags are re-evaluated, and automatic gold is checked against the new thresholds."""
    counts = {"gold": 0, "flagged": 0, "pending": 0, "incomplete": 0}
    with db.write() as s:
        require_role(s, actor, "lead")
        settings = _project_settings(s, project_id)
        k = settings.annotators_per_sample
        complete = list(s.scalars(
            select(Sample).join(Annotation, Annotation.sample_id == Sample.id)
            .where(Sample.project_id == project_id, Sample.status == "active",
                   Sample.is_warmup.is_(False), Annotation.status == "submitted")
            .group_by(Sample.id).having(func.count(Annotation.id) >= k).order_by(Sample.id)))
        for smp in complete:
            if recheck:
                item = _open_item(s, smp.id)
                if item is not None and all(is_automatic_flag(r) for r in item.reasons):
                    s.delete(item)
                    s.flush()
            counts[settle(s, smp, settings)] += 1
        audit.record(s, actor.user_id, "resolve_project", "project", project_id, recheck=recheck, **counts)
    return SettleSummary(**counts)


@dataclass(frozen=True)
class GoldView:
    boundaries: tuple[int, ...]
    segment_axes: tuple[tuple[str, ...], ...]
    xi: float
    omega: float
    alpha: float
    source: str
    decided_at: datetime
    note: str


def gold_of(db: Database, actor: Actor, sample_id: int) -> GoldView | None:
    """Lead: the sample's gold values, if settled."""
    with db.read() as s:
        require_role(s, actor, "lead")
        g = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == sample_id))
        if g is None:
            return None
        return GoldView(tuple(g.boundaries), tuple(tuple(a) for a in g.segment_axes), g.xi, g.omega,
                        g.alpha, g.source, g.decided_at, g.note)
