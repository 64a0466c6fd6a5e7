"""The lead's side of quality control: the review queue and the lead's decisions.

* Samples reach the queue when they are settled (:mod:`annotation.services.settling`: flagged at
  submit, or by an annotator's flag) and by the daily review sample.
* Each calendar day's review sample (``annotation.review_sampling``) is drawn once, for days
  that are over, when the lead opens the queue; it adds "daily review" items, flagged or not.
* The lead decides an open item: accept the automatic resolution, store an edited one, take one
  annotator's version, send the sample back to its annotators, or discard it. Every decision is
  stored on the item (who, when, why) and in the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Sequence

from sqlalchemy import and_, delete, select
from sqlalchemy.orm import Session

from annotation.flag_reasons import flag_label
from annotation.lead_edit import LeadEdit
from annotation.project_day import day_start, local_day
from annotation.protocol import AnnotationContent
from annotation.resolution import AnnotatorVersion, Resolution, resolve_pair, take_version
from annotation.review_sampling import daily_review_sample
from annotation.segmentation import SegmentationError
from annotation.services import audit
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput, NotFound, StaleVersion
from annotation.services.lookup import project_settings
from annotation.services.settling import (
    annotation_content,
    count_parameters,
    ensure_stats,
    open_review,
    store_gold,
    submitted_annotations,
    usable_versions,
)
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import (
    Annotation,
    GoldAnnotation,
    ReviewDay,
    ReviewItem,
    Sample,
    User,
    utcnow,
)

DAILY_REVIEW = "daily_review"
DECISIONS = ("accept_auto", "edit", "take_version", "send_back", "discard")


def reason_label(code: str) -> str:
    """Human label of a review reason (flag codes and the daily review sample)."""
    return "Daily review sample" if code == DAILY_REVIEW else flag_label(code)


# --- the daily review sample -------------------------------------------------------------------

def _draw_review_days(s: Session, project_id: int, settings: ProjectSettings, today: date) -> int:
    """Draw the review sample of every finished day not drawn yet; returns items touched."""
    drawn = set(s.scalars(select(ReviewDay.day).where(ReviewDay.project_id == project_id)))
    start_today = day_start(today, settings)
    rows = s.execute(
        select(Annotation.id, Annotation.submitted_at, Annotation.sample_id)
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted",
               Sample.is_warmup.is_(False), Annotation.submitted_at < start_today)
    ).all()
    by_day: dict[date, list[tuple[int, int]]] = {}
    for aid, when, sid in rows:
        day = local_day(when, settings)
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
                    open_review(s, smp, [DAILY_REVIEW],
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


def review_queue(db: Database, actor: Actor, project_id: int, *, reason: str | None = None,
                 benchmark: int | None = None, annotator: str | None = None) -> list[ReviewRow]:
    """Lead: open review items, oldest first, after drawing any pending daily review samples."""
    with db.write() as s:
        require_role(s, actor, "lead")
        settings = project_settings(s, project_id)
        _draw_review_days(s, project_id, settings, local_day(utcnow(), settings))
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
        anns = submitted_annotations(s, smp.id)
        users = dict(s.execute(select(User.id, User.username)
                               .where(User.id.in_([a.annotator_id for a in anns]))).all())
        versions = tuple(VersionView(a.id, users.get(a.annotator_id, "?"), annotation_content(a),
                                     a.submitted_at, a.seconds_spent) for a in anns)
        usable = usable_versions(anns, smp.n_tokens)
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
           edit: LeadEdit | None = None, annotation_id: int | None = None) -> str:
    """Lead: settle an open review item (see module docstring). Returns the decision.

    ``edit`` needs the lead's ``edit`` (stored as an edited resolution by the lead); ``take_version`` needs the ``annotation_id`` to take;
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
        anns = submitted_annotations(s, smp.id)
        if decision == "accept_auto":
            usable = usable_versions(anns, smp.n_tokens)
            if not usable:
                raise InvalidInput("No complete annotation to resolve; send the sample back or discard it.")
            store_gold(s, smp, resolve_pair(usable), "accepted", actor.user_id, note)
        elif decision == "edit":
            if edit is None or edit.n_tokens != smp.n_tokens:
                raise InvalidInput("The edited resolution does not fit this text.")
            if edit.has_unlabelled_segment:
                raise InvalidInput("Every segment of the resolution needs at least one axis.")
            store_gold(s, smp, edit.resolution((actor.username,)), "edited", actor.user_id, note)
        elif decision == "take_version":
            chosen = next((a for a in anns if a.id == annotation_id), None)
            if chosen is None:
                raise InvalidInput("Choose one of this sample's annotations to take.")
            try:
                version = AnnotatorVersion.from_content(chosen.annotator_id, annotation_content(chosen),
                                                        smp.n_tokens)
            except (SegmentationError, ValueError):
                raise InvalidInput("That annotation is unfinished and cannot be taken.") from None
            if None in version.segment_axes:
                raise InvalidInput("That annotation has segments without an axis and cannot be taken.")
            store_gold(s, smp, take_version(version), "annotator", actor.user_id, note, chosen.id)
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
        count_parameters(s, smp.project_id, annotation_content(a), -1)
        a.status, a.submitted_at, a.returned_note = "draft", None, note
        a.version += 1
        a.updated_at = utcnow()
    s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))


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
