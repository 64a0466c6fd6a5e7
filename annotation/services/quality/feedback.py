"""Feedback to annotators: their own settled production work against the gold.

Every query here starts from :func:`_own_settled`: the acting user's *own submitted* annotations
of *production* samples (not warm-up, which gives its own feedback) that are active and have a
:class:`~db.models.GoldAnnotation`. Nothing of another annotator is read into what is returned —
not their boundaries, axes, curve, note or name: the gold itself is shown (it is the settled
value), but a gold a lead took from a version is "the gold", never somebody's version
(``source_annotation_id`` is only compared with the user's own annotation id, and the deciding
lead is not named: a lead may have annotated the sample too). The lead's words come from the
gold's ``note`` and the notes of the sample's closed review items, shown as written.

* :func:`feedback_page` — one page (default :data:`PAGE_SIZE`) of items, newest gold first,
  each with the annotator's version, the gold, the differences and the figures;
* :func:`feedback_trend` — their mean W1, Jaccard and Pk against gold per ISO week of
  submission, overall means, and the project's thresholds to read them by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, false, func, or_, select
from sqlalchemy.orm import Session

from annotation.review.adjudication import DECISIONS
from annotation.quality.gold_feedback import (
    GoldScore,
    MineAndGold,
    SegmentationDifference,
    TrendPoint,
    compare_with_gold,
    describe_against_gold,
    mean_scores,
    score_against_gold,
    weekly_trend,
)
from annotation.segmentation import SegmentationError
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.rows import annotation_content, stored_gold
from annotation.services.lookup import project_row, project_settings
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample

#: Items per page.
PAGE_SIZE = 20

#: How the gold was settled, as the annotator reads it (a gold taken from a version: see
#: :func:`_how_settled`). Unknown sources read as :data:`_BY_A_LEAD`.
_HOW = {
    "auto": "Settled automatically: the versions agreed, the gold is their union and mean curve",
    "accepted": "A lead accepted the automatic resolution (union of boundaries and axes, mean curve)",
    "edited": "A lead set the gold by hand",
    "pooled": "A lead pooled the curves into the gold",
}
_BY_A_LEAD = "Settled by a lead"
_TAKEN = ("annotator", "taken")
#: The lead's decisions, as the annotator reads them beside a note (no one's name).
_DECISIONS = {d.name: d.annotator_words for d in DECISIONS if d.annotator_words}


@dataclass(frozen=True)
class Version:
    """One set of values: segment start indices, axes per segment (the annotator's: one or None
    each; the gold's: a tuple each) and ξ, ω, α (None without a curve)."""

    boundaries: tuple[int, ...]
    segment_axes: tuple
    xi: float | None
    omega: float | None
    alpha: float | None

    @property
    def has_curve(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)


@dataclass(frozen=True)
class LeadNote:
    at: datetime | None
    what: str  # what the lead did, in words
    text: str  # as written


@dataclass(frozen=True)
class FeedbackItem:
    """One of the annotator's samples against its gold."""

    annotation_id: int
    external_id: str
    benchmark: int
    parent_text: str
    n_tokens: int
    submitted_at: datetime | None
    settled_at: datetime
    how_settled: str
    mine: Version
    my_note: str
    gold: Version
    score: GoldScore
    curve_words: str
    difference: SegmentationDifference | None  # None: the annotation's segments do not fit
    lead_notes: tuple[LeadNote, ...]


@dataclass(frozen=True)
class FeedbackPage:
    items: tuple[FeedbackItem, ...]
    total: int
    page: int
    per_page: int

    @property
    def n_pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def first(self) -> int:
        """1-based position of the page's first item (0 when empty)."""
        return (self.page - 1) * self.per_page + 1 if self.items else 0


@dataclass(frozen=True)
class FeedbackTrend:
    """Per week and overall, with the project's thresholds (W1 at most ``w1_max``, Jaccard at
    least ``jaccard_min``, Pk at most ``pk_max``)."""

    weeks: tuple[TrendPoint, ...]
    overall: TrendPoint
    w1_max: float
    jaccard_min: float
    pk_max: float

    @property
    def n_samples(self) -> int:
        return self.overall.n


def _own_settled(actor: Actor, project_id: int, *columns) -> Select:  # type: ignore[no-untyped-def]
    """The query every call starts from (module docstring); add a ``.where`` to narrow it."""
    return (select(*columns)
            .select_from(Annotation)
            .join(Sample, Sample.id == Annotation.sample_id)
            .join(GoldAnnotation, GoldAnnotation.sample_id == Annotation.sample_id)
            .where(Annotation.annotator_id == actor.user_id,
                   Annotation.status == "submitted",
                   Sample.project_id == project_id,
                   Sample.is_warmup == false(),
                   Sample.status == "active"))


def _pair(a: Annotation, g: GoldAnnotation, n_tokens: int) -> MineAndGold:
    mine, gold = annotation_content(a), stored_gold(g)
    return MineAndGold(a.submitted_at, n_tokens, mine.boundaries, mine.segment_axes, mine.xi, mine.omega,
                       mine.alpha, gold.boundaries, gold.segment_axes, gold.xi, gold.omega, gold.alpha)


def _how_settled(g: GoldAnnotation, annotation_id: int) -> str:
    if g.source in _TAKEN:
        return "A lead took your version as the gold" if g.source_annotation_id == annotation_id \
            else "A lead chose the gold"
    return _HOW.get(g.source, _BY_A_LEAD)


def _lead_notes(s: Session, sample_ids: list[int], golds: dict[int, GoldAnnotation]) -> dict[int, list[LeadNote]]:
    notes: dict[int, list[LeadNote]] = {sid: [] for sid in sample_ids}
    if not sample_ids:
        return notes
    # Only notes written for the annotators: a send-back's (it always went to them) and those of
    # decisions taken since the Review page says that annotators read the note — they carry the
    # lead's confidence (required since then). Older notes were written as lead-only and may
    # name the other annotator: they stay with the lead.
    for sid, closed_at, decision, note in s.execute(
            select(ReviewItem.sample_id, ReviewItem.closed_at, ReviewItem.decision, ReviewItem.note)
            .where(ReviewItem.sample_id.in_(sample_ids), ReviewItem.status == "closed", ReviewItem.note != "",
                   or_(ReviewItem.decision == "send_back", ReviewItem.confidence.is_not(None)))
            .order_by(ReviewItem.closed_at, ReviewItem.id)):
        notes[sid].append(LeadNote(closed_at, _DECISIONS.get(decision, "decided"), note))
    for sid in sample_ids:
        g = golds[sid]
        if g.note and g.confidence is not None and not any(n.text == g.note for n in notes[sid]):
            notes[sid].append(LeadNote(g.decided_at, "noted with the gold", g.note))
    return notes


@checks_numbers
def feedback_page(db: Database, actor: Actor, project_id: int, page: int = 1,
                  per_page: int = PAGE_SIZE) -> FeedbackPage:
    """Annotator: one page of their settled production samples against gold, newest gold first
    (a page past the last gives the last)."""
    if not isinstance(page, int) or page < 1:
        raise InvalidInput("The page number must be 1 or more.")
    if not isinstance(per_page, int) or not 1 <= per_page <= 200:
        raise InvalidInput("Show between 1 and 200 samples per page.")
    with db.read() as s:
        authorize(s, actor, Policy.OWN_FEEDBACK)
        project_row(s, project_id)
        total = s.scalar(_own_settled(actor, project_id, func.count())) or 0
        page = min(page, max(1, math.ceil(total / per_page)))
        rows = s.execute(
            _own_settled(actor, project_id, Annotation, GoldAnnotation, Sample.external_id, Sample.benchmark,
                         Sample.parent_text, Sample.n_tokens)
            .order_by(GoldAnnotation.decided_at.desc(), GoldAnnotation.id.desc())
            .offset((page - 1) * per_page).limit(per_page)).all()
        golds = {g.sample_id: g for _, g, *_ in rows}
        notes = _lead_notes(s, list(golds), golds)
        scores = score_against_gold([_pair(a, g, n) for a, g, _, _, _, n in rows])
        items = []
        for (a, g, external_id, benchmark, text, n_tokens), score in zip(rows, scores):
            mine, gold = annotation_content(a), stored_gold(g)
            try:
                difference = compare_with_gold(mine.boundaries, mine.segment_axes,
                                               gold.boundaries, gold.segment_axes, n_tokens)
            except SegmentationError:
                difference = None
            items.append(FeedbackItem(
                a.id, external_id, benchmark, text, n_tokens, a.submitted_at, g.decided_at,
                _how_settled(g, a.id),
                Version(mine.boundaries, mine.segment_axes, mine.xi, mine.omega, mine.alpha),
                a.note or "",
                Version(gold.boundaries, gold.segment_axes, gold.xi, gold.omega, gold.alpha),
                score, describe_against_gold(score.distance, drew_curve=mine.has_parameters),
                difference, tuple(notes[g.sample_id])))
    return FeedbackPage(tuple(items), total, page, per_page)


@checks_numbers
def feedback_trend(db: Database, actor: Actor, project_id: int) -> FeedbackTrend:
    """Annotator: their mean W1, Jaccard and Pk against gold per ISO week of submission (oldest
    first) and overall, over all their settled production samples."""
    with db.read() as s:
        authorize(s, actor, Policy.OWN_FEEDBACK)
        settings = project_settings(s, project_id)
        rows = s.execute(_own_settled(
            actor, project_id, Annotation.submitted_at, Annotation.boundaries, Annotation.segment_axes,
            Annotation.xi, Annotation.omega, Annotation.alpha, GoldAnnotation.boundaries,
            GoldAnnotation.segment_axes, GoldAnnotation.xi, GoldAnnotation.omega, GoldAnnotation.alpha,
            Sample.n_tokens).order_by(Annotation.submitted_at, Annotation.id)).all()
    pairs = [MineAndGold(when, n, tuple(b or (0,)), tuple(ax or (None,)), xi, om, al, tuple(gb),
                         tuple(tuple(x) for x in gax), gxi, gom, gal)
             for when, b, ax, xi, om, al, gb, gax, gxi, gom, gal, n in rows]
    scores = score_against_gold(pairs)
    return FeedbackTrend(weekly_trend(pairs, scores), mean_scores(scores), settings.flag_w1_max,
                         settings.qualify_jaccard_min, settings.qualify_pk_max)


__all__ = [
    "PAGE_SIZE",
    "FeedbackItem",
    "FeedbackPage",
    "FeedbackTrend",
    "LeadNote",
    "Version",
    "feedback_page",
    "feedback_trend",
]
