"""The lead's side of quality control: the review queue and the lead's decisions.

* Samples reach the queue when they are settled (:mod:`annotation.services.review.settling`: flagged at
  submit, or by an annotator's flag) and by the daily review sample.
* Each calendar day's review sample (``annotation.review.review_sampling``) is drawn once, for days
  that are over, when the lead opens the queue; it adds "daily review" items, flagged or not.
* The lead decides an open item: accept the automatic resolution, accept the pooled one (the
  refitted linear pool of the curves, :mod:`annotation.review.pooling`), store an edited one, take one
  annotator's version, send the sample back to its annotators, or discard it. Every decision
  records the lead's confidence (1–5) and error type (:mod:`annotation.review.adjudication`) and is
  stored on the item (who, when, why) and in the audit log; a decision that stores gold puts
  them on the gold too (the export's provenance).
* The queue can be sorted by W1 or Pk between the annotations (largest first) or by age; the
  figures are computed once per open sample and kept (:mod:`annotation.services.review.review_queue`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Callable, Mapping, Sequence

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from annotation.review.adjudication import DECISION_BY_NAME, DECISIONS, decision_named, decision_record_problem
from annotation.review.flags import one_per_reason
from annotation.review.lead_edit import LeadEdit
from annotation.content import AnnotationContent
from annotation.curves import CurveFitError
from annotation.curves import parameter_bounds_problem
from annotation.pairs.change import CHANGE_LABELS
from annotation.review.gold_rules import change_override, override_problem, several_axes_problem
from annotation.review.pair_settling import (ChangeChoice, PairGold, change_choice, decided_pair_gold,
                                             given_versions, pair_gold, pair_version)
from annotation.review.pooling import pool_versions_with_fit, pooled_or_none
from annotation.review.resolution import AnnotatorVersion, Resolution, take_version
from annotation.quality.weighted_gold import GoldWeighting, pooled_gold
from annotation.services.quality.gold_weighting import weighting_in
from annotation.protocols import protocol_of
from annotation.segmentation import SegmentationError
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.text_limits import check_chars
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.services.errors import InvalidInput, NotFound, StaleVersion
from annotation.services.review import review_queue as _queue
from annotation.services.review.review_queue import reason_label
from annotation.services.lookup import project_settings
from annotation.services.rows import StoredGold, annotation_content, stored_gold
from annotation.services.protocols.sample_pairs import PairFacts
from annotation.services.review.settling import (
    count_parameters,
    ensure_stats,
    pair_facts,
    store_gold,
    submitted_annotations,
)
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample, User, utcnow

#: The review queue (:mod:`annotation.services.review.review_queue`), reached from here too.
DAILY_REVIEW, SORTS, ReviewRow = _queue.DAILY_REVIEW, _queue.SORTS, _queue.ReviewRow
filter_rows, review_queue = _queue.filter_rows, _queue.review_queue


@dataclass(frozen=True)
class VersionView:
    annotation_id: int
    annotator: str
    content: AnnotationContent
    submitted_at: datetime | None
    seconds_spent: float
    #: a context pair's change label: the annotator's override or the one their curves give
    change: ChangeChoice | None = None


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
    #: the pooled resolution (union of boundaries and axes, the refitted linear pool of the
    #: curves); None when no annotation is complete or no curve can be pooled
    pooled: Resolution | None = None
    #: W1 between the pooled curve and the pool it stands for (log-time units): large when the
    #: annotators' curves are far apart and one skew-normal cannot hold both peaks
    pooled_fit_w1: float | None = None
    #: a context pair's facts (follow-up; reference labels and the author's intent, for leads)
    pair: PairFacts | None = None
    #: the pair part of the proposal and of the pooled resolution (second curve, change label)
    pair_proposal: PairGold | None = None
    pair_pooled: PairGold | None = None
    #: the project's change threshold (a time factor) and whether its targets are segmented
    change_factor: float = 1.5
    segmented: bool = True


@checks_numbers
def open_case(db: Database, actor: Actor, item_id: int) -> ReviewCase:
    """Lead: one review item with both (all) annotations side by side and the proposal; for a
    context pair also the follow-up, each annotator's two curves and change label, the pair part
    of the proposals, and the imported reference labels and the author's intent."""
    with db.read() as s:
        authorize(s, actor, Policy.REVIEW)
        item = s.get(ReviewItem, item_id)
        if item is None:
            raise NotFound("No such review item.")
        smp = s.get(Sample, item.sample_id)
        anns = submitted_annotations(s, smp.id)
        settings = project_settings(s, smp.project_id)
        facts = pair_facts(s, smp.id, settings)
        users = dict(s.execute(select(User.id, User.username)
                               .where(User.id.in_([a.annotator_id for a in anns]))).all())
        history = tuple(_history(s, smp.id))
        weighting = weighting_in(s, smp.project_id, settings)
    factor = settings.change_factor
    contents = [annotation_content(a) for a in anns]
    versions = tuple(VersionView(a.id, users.get(a.annotator_id, "?"), c, a.submitted_at, a.seconds_spent,
                                 change_choice(c, factor) if facts is not None else None)
                     for a, c in zip(anns, contents))
    case = _Case(actor, smp.n_tokens, tuple((a.id, a.annotator_id, c) for a, c in zip(anns, contents)),
                 "", None, None, facts is not None, protocol_of(settings).segmented(settings), factor,
                 weighting=weighting, sample_id=smp.id)
    usable = _versions(case)
    proposal = pooled_gold(usable, weighting, smp.id) if usable else None
    pooled, pooled_w1 = pooled_or_none(usable)
    pair_proposal = pair_pooled = None
    if facts is not None:
        labelled = [(who, c) for _aid, who, c in case.annotations]
        pair_proposal = pair_gold(labelled, smp.n_tokens, proposal, factor) if proposal else None
        pair_pooled = _pooled_pair(case, pooled) if pooled is not None else None
    return ReviewCase(item.id, smp.id, smp.external_id, smp.benchmark, smp.parent_text,
                      smp.n_tokens, tuple(item.reasons), _details_of(item), versions,
                      proposal, history, pooled, pooled_w1, facts, pair_proposal, pair_pooled,
                      factor, case.segmented)


def _details_of(item: ReviewItem) -> tuple[dict, ...]:
    """The item's flag details, each reason once: items opened before settling listed each reason
    once could hold an annotator's flag twice."""
    return one_per_reason(item.details or (), lambda d: d.get("code", ""))


def _history(s: Session, sample_id: int) -> list[dict]:
    events = []
    for item in s.scalars(select(ReviewItem).where(ReviewItem.sample_id == sample_id)
                          .order_by(ReviewItem.id)):
        events.append({"at": item.opened_at, "who": "", "what": "review opened",
                       "why": ", ".join(reason_label(r) for r in item.reasons)})
        if item.status == "closed":
            who = s.get(User, item.closed_by).username if item.closed_by else ""
            events.append({"at": item.closed_at, "who": who, "what": item.decision, "why": item.note,
                           "confidence": item.confidence, "error_type": item.error_type})
    return events


@checks_numbers
def sample_history(db: Database, actor: Actor, sample_id: int) -> list[dict]:
    """Lead: review openings and decisions of one sample, oldest first."""
    with db.read() as s:
        authorize(s, actor, Policy.REVIEW)
        return _history(s, sample_id)


@dataclass(frozen=True)
class _Case:
    """What a decision's handler works on: the sample's submitted annotations as read before the
    decision's write (id, annotator, content), with no session — a handler computes (a merge,
    a pooled refit) while no lock is held."""

    actor: Actor
    n_tokens: int
    annotations: tuple[tuple[int, int, AnnotationContent], ...]
    note: str
    edit: LeadEdit | None
    annotation_id: int | None
    #: whether its gold holds a part besides the target's (a context pair's: the second curve
    #: and the change label), made by :func:`_pair_part`
    own_part: bool = False
    segmented: bool = True
    change_factor: float = 1.5
    #: the lead's change label and second curve (None: from the annotations)
    change: str | None = None
    context: tuple[float, float, float] | None = None
    weighting: GoldWeighting = GoldWeighting()  # the project's gold pooling rule, and the sample
    sample_id: int | None = None


def _open_case_rows(s: Session, actor: Actor, item_id: int, *,
                    lock: bool = False) -> tuple[ReviewItem, Sample, list[Annotation]]:
    """The open item (``lock``: FOR UPDATE), its sample and submitted annotations, for a lead;
    NotFound / StaleVersion when there is no such item or it was decided meanwhile."""
    authorize(s, actor, Policy.REVIEW)
    item = s.get(ReviewItem, item_id, with_for_update=lock)
    if item is None:
        raise NotFound("No such review item.")
    if item.status != "open":
        raise StaleVersion("Another lead already decided this sample; reload the queue.")
    smp = s.get(Sample, item.sample_id)
    return item, smp, submitted_annotations(s, smp.id)


@checks_numbers
def decide(db: Database, actor: Actor, item_id: int, decision: str, *, confidence: int | None = None,
           error_type: str | None = None, note: str = "", edit: LeadEdit | None = None,
           annotation_id: int | None = None, change: str | None = None,
           context: tuple[float, float, float] | None = None) -> str:
    """Lead: settle an open review item (see module docstring). Returns the decision.

    ``decision`` is one of :data:`annotation.review.adjudication.DECISIONS` (what each needs is there).
    Every decision needs the lead's ``confidence`` (1–5) and ``error_type``
    (:data:`annotation.review.adjudication.ERROR_TYPES`), stored on the item and on the gold it stores.
    ``edit`` needs the lead's ``edit`` (stored as an edited resolution by the lead); ``take_version`` needs the ``annotation_id`` to take;
    ``send_back`` and ``discard`` need a ``note`` (the annotators and the history show it).
    For a context pair a gold-storing decision also stores the curve given the follow-up and the
    change label (:func:`annotation.review.pair_settling.decided_pair_gold`): the lead may set the
    label (``change``) and, with ``edit``, the second curve (``context``: ξ, ω, α).
    A decision on an item that is no longer open raises :class:`StaleVersion`.

    Read, compute, then write: the item and the annotations are read, the gold is computed with
    no transaction open, and the write takes the item's lock only to check that nothing it was
    computed from changed meanwhile (else :class:`StaleVersion`, nothing stored) and to store.
    """
    chosen = decision_named(decision)
    if chosen is None:
        raise InvalidInput(f"Unknown decision {decision!r}.")
    problem = decision_record_problem(confidence, error_type)
    if problem:
        raise InvalidInput(problem)
    note = check_chars((note or "").strip(), NOTE_MAX_CHARS, "note")
    if chosen.needs == "note" and not note:
        raise InvalidInput("Say why in the note: the annotators and the history show it.")
    _check_pair_choice(change, context)

    def read(s: Session) -> tuple[_Case, tuple]:  # type: ignore[type-arg]
        _item, smp, anns = _open_case_rows(s, actor, item_id)
        settings = project_settings(s, smp.project_id)
        is_pair = pair_facts(s, smp.id, settings) is not None
        if not is_pair and (change or context is not None):
            raise InvalidInput("A change label and a curve given the follow-up belong to context pairs.")
        return (_Case(actor, smp.n_tokens, tuple((a.id, a.annotator_id, annotation_content(a)) for a in anns),
                      note, edit, annotation_id, is_pair, protocol_of(settings).segmented(settings),
                      settings.change_factor, change or None, context,
                      weighting_in(s, smp.project_id, settings), smp.id),
                tuple((a.id, a.version) for a in anns))

    case, read_key = db.run_read(read)
    outcome = _GOLD_HANDLERS[chosen.name](case) if chosen.gold_source is not None else None
    pair = _pair_part(case, chosen.name, outcome) if outcome is not None and case.own_part else None
    if outcome is not None:
        pair = _obeying_gold_rules(case, outcome[0], pair)
    with db.write() as s:
        item, smp, anns = _open_case_rows(s, actor, item_id, lock=True)
        if tuple((a.id, a.version) for a in anns) != read_key:
            raise StaleVersion("This sample's annotations changed while you decided; look at the case again.")
        if outcome is not None:
            resolution, taken_from = outcome
            gold = store_gold(s, smp, resolution, chosen.gold_source, actor.user_id, note, taken_from, pair=pair)
            gold.confidence, gold.error_type = confidence, error_type
        else:
            _WRITERS[chosen.name](s, smp, anns, note)
        item.status, item.decision, item.note = "closed", decision, note
        item.confidence, item.error_type = confidence, error_type
        item.closed_by, item.closed_at = actor.user_id, utcnow()
        audit.record(s, actor.user_id, f"review_{decision}", "sample", smp.id, item=item.id, note=note,
                     confidence=confidence, error_type=error_type,
                     **({"change": pair.change} if pair is not None else {}))
        return decision


#: What a gold-storing decision stores: the resolution and the annotation it was taken from (or None).
_Gold = tuple[Resolution, int | None]


def _versions(case: _Case) -> list[AnnotatorVersion]:
    """The complete annotations as versions (an unsegmented pair's: one unlabelled segment)."""
    usable = []
    for _aid, annotator_id, content in case.annotations:
        try:
            usable.append(pair_version(annotator_id, content, case.n_tokens, case.segmented))
        except (SegmentationError, ValueError):
            continue  # an unfinished flagged annotation cannot take part in a merge
    return usable


def _usable(case: _Case) -> list[AnnotatorVersion]:
    usable = _versions(case)
    if not usable:
        raise InvalidInput("No complete annotation to resolve; send the sample back or discard it.")
    return usable


def _accept_auto(case: _Case) -> _Gold:
    return pooled_gold(_usable(case), case.weighting, case.sample_id), None


def _accept_pooled(case: _Case) -> _Gold:
    pooled, _ = pooled_or_none(_usable(case))
    if pooled is None:
        raise InvalidInput("No curve on the time axis to pool; edit the resolution instead.")
    return pooled, None


def _edit(case: _Case) -> _Gold:
    edit = case.edit
    if edit is None or edit.n_tokens != case.n_tokens:
        raise InvalidInput("The edited resolution does not fit this text.")
    if case.segmented and edit.has_unlabelled_segment:
        raise InvalidInput("Every segment of the resolution needs at least one axis.")
    if edit.curve_problem:  # no annotation had a curve and the lead typed none
        raise InvalidInput(f"Not stored. {edit.curve_problem}")
    return edit.resolution((case.actor.username,)), None


def _take_version(case: _Case) -> _Gold:
    chosen = next((a for a in case.annotations if a[0] == case.annotation_id), None)
    if chosen is None:
        raise InvalidInput("Choose one of this sample's annotations to take.")
    try:
        version = pair_version(chosen[1], chosen[2], case.n_tokens, case.segmented)
    except (SegmentationError, ValueError):
        raise InvalidInput("That annotation is unfinished and cannot be taken.") from None
    if case.segmented and None in version.segment_axes:
        raise InvalidInput("That annotation has segments without an axis and cannot be taken.")
    return take_version(version), chosen[0]


def _check_pair_choice(change: str | None, context: tuple[float, float, float] | None) -> None:
    """The lead's change label and second curve, checked before anything is read."""
    if change and change not in CHANGE_LABELS:
        raise InvalidInput(f"The change label is one of: {', '.join(CHANGE_LABELS)}.")
    if context is not None:
        try:
            problem = parameter_bounds_problem(*(float(v) for v in context))
        except (TypeError, ValueError):
            problem = "the curve given the follow-up needs three numbers ξ, ω, α"
        if problem:
            raise InvalidInput(f"Curve given the follow-up: {problem}.")


def _pooled_pair(case: _Case, pooled: Resolution) -> PairGold | None:
    """The pooled decision's pair part: the annotators' second curves pooled and refitted."""
    second = given_versions([(who, c) for _aid, who, c in case.annotations], case.n_tokens)
    try:
        merged, fit = pool_versions_with_fit(second) if second else (None, None)
    except CurveFitError:
        return None
    if merged is None or fit is None:
        return None
    context = (merged.xi, merged.omega, merged.alpha)
    return decided_pair_gold([(who, c) for _aid, who, c in case.annotations], case.n_tokens, pooled,
                             case.change_factor, context=context, change=case.change or "")


def _pair_part(case: _Case, decision: str, outcome: "_Gold") -> PairGold:
    """The pair part of a gold-storing decision (see :func:`decide`); InvalidInput when it
    would leave the pair's gold without a second curve or a change label."""
    resolution, taken_from = outcome
    labelled = [(who, c) for _aid, who, c in case.annotations]
    if decision == "accept_pooled" and case.context is None:
        pair = _pooled_pair(case, resolution)
    else:
        taken = next((c for aid, _who, c in case.annotations if aid == taken_from), None)
        pair = decided_pair_gold(labelled, case.n_tokens, resolution, case.change_factor,
                                 context=case.context, change=case.change or "", taken=taken)
    if pair is None or pair.context is None:
        raise InvalidInput("No curve given the follow-up to store; edit the resolution and give one.")
    if not pair.change:
        raise InvalidInput("No change label to store; choose one.")
    return pair


def _obeying_gold_rules(case: _Case, resolution: Resolution, pair: PairGold | None) -> PairGold | None:
    """The pair part to store once the gold obeys its rules (:mod:`annotation.review.gold_rules`):
    InvalidInput for a segment with several axes, or for a change label the gold curves do not
    give without a reason in the note; an override is stored with the curves' label beside it."""
    problem = several_axes_problem(resolution)
    if problem:
        raise InvalidInput(problem)
    if pair is None or not resolution.has_parameters:
        return pair
    derived = change_override((resolution.xi, resolution.omega, resolution.alpha), pair.context,  # type: ignore[arg-type]
                              pair.change, case.change_factor)
    problem = override_problem(pair.change, derived, case.note)
    if problem:
        raise InvalidInput(problem)
    return replace(pair, curves_change=derived or "")


def _discard(s: Session, smp: Sample, anns: Sequence[Annotation], note: str) -> None:
    smp.status = "discarded"
    s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))


#: One handler per decision of :data:`annotation.review.adjudication.DECISIONS`. A decision that
#: stores gold computes it before the write, with no lock held (:data:`_GOLD_HANDLERS`: it checks
#: what the decision needs and returns a :data:`_Gold`); the others only write (:data:`_WRITERS`,
#: inside the decision's write transaction).
_GOLD_HANDLERS: Mapping[str, Callable[[_Case], _Gold]] = {
    "accept_auto": _accept_auto,
    "accept_pooled": _accept_pooled,
    "take_version": _take_version,
    "edit": _edit,
}
_WRITERS: Mapping[str, Callable[[Session, Sample, Sequence[Annotation], str], None]] = {
    "send_back": lambda s, smp, anns, note: _send_back(s, smp, anns, note),
    "discard": _discard,
}
_HANDLERS: Mapping[str, object] = {**_GOLD_HANDLERS, **_WRITERS}
if set(_HANDLERS) != set(DECISION_BY_NAME) or any(  # pragma: no cover - a decision without a handler
        (d.gold_source is not None) != (d.name in _GOLD_HANDLERS) for d in DECISIONS):
    raise ImportError(f"review handlers {sorted(_HANDLERS)} ≠ decisions {sorted(DECISION_BY_NAME)}")


def _send_back(s: Session, smp: Sample, anns: Sequence[Annotation], note: str) -> None:
    """Return every submitted annotation of the sample to its annotator as a draft."""
    ensure_stats(s, smp.project_id)
    for a in anns:
        count_parameters(s, smp.project_id, annotation_content(a), -1)
        a.status, a.submitted_at, a.returned_note = "draft", None, note
        a.version += 1
        a.updated_at = utcnow()
    s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))


@checks_numbers
def gold_of(db: Database, actor: Actor, sample_id: int) -> StoredGold | None:
    """Lead: the sample's gold values, if settled."""
    with db.read() as s:
        authorize(s, actor, Policy.REVIEW)
        g = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == sample_id))
        if g is None:
            return None
        return stored_gold(g)
