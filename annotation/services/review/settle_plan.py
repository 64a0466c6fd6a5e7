"""What settling one sample writes, decided with no session (SPEC §5, §15): :func:`plan_settle`.

Called by :mod:`annotation.services.review.settling` at a submit (planned before the write, written once
the sample is verified unchanged) and by :mod:`annotation.services.review.resolving` for many samples at
once. A sample complete with its k annotations is flagged (a review item) or resolved into gold;
with the project's ``third_annotator`` setting on, one the automatic rules flag — or whose gold
the annotator model leaves too wide — is handed to one more annotator first (outcome "more":
``samples.extra_annotators`` = 1), and once its k + 1 annotations are in it settles when a pair
of them agrees (:mod:`annotation.quality.third_annotator`), else it goes to a lead with the flags
of all of them.

A recheck (new thresholds, the setting turned off) of an escalated sample whose extra annotation
never came and whose extra slot is still free: when its k annotations no longer call for another
annotator (no automatic flag, the gold not known to be too wide, or the setting now off), it
settles from its k as usual and its extra slot is released (``extra_annotators`` back to 0, so
the queue stops offering it); otherwise it keeps waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from annotation.protocols import protocol_of
from annotation.review.deviation import ParameterSpread
from annotation.review.flags import FlagHit, annotator_flag_hits, flags_for_sample, one_per_reason
from annotation.review.gold_rules import axes_differ_hits
from annotation.review.pair_figures import PairFigures, pair_figures
from annotation.review.pair_settling import PairGold, pair_version
from annotation.review.resolution import AnnotatorVersion, Resolution
from annotation.quality.weighted_gold import GoldWeighting, gold_sd as model_gold_sd, pooled_gold
from annotation.quality.third_annotator import agreeing_pair, ask_another, gold_of_pair
from annotation.segmentation import SegmentationError
from annotation.services.protocols.sample_pairs import PairFacts
from annotation.settings import ProjectSettings
from annotation.content import AnnotationContent


@dataclass(frozen=True)
class Submitted:
    """One submitted annotation of a sample as settling reads it: its id, annotator, content
    and the annotator's username (for the flags' wording)."""

    id: int
    annotator_id: int
    content: AnnotationContent
    name: str


@dataclass(frozen=True)
class SettlePlan:
    """What settling one sample writes, decided (:func:`plan_settle`) from a state read before
    the write: the review reasons (and their details) to open or add, automatic gold to drop
    (new thresholds flag it) or to store, the sample's new ``extra_annotators`` (None: left as it
    is) and the outcome ("incomplete", "pending", "flagged", "gold", "more" — handed to one more
    annotator; a resolve of many samples also says "settled" for gold it finds already stored)."""

    result: str
    reasons: tuple[str, ...] = ()
    details: tuple[dict[str, Any], ...] = ()
    drop_gold: bool = False
    gold: Resolution | None = None
    pair: PairGold | None = None
    extra: int | None = None


def _hits_json(hits: Sequence[FlagHit], subs: Sequence[Submitted]) -> tuple[tuple[str, ...], tuple[dict[str, Any], ...]]:
    return (tuple(h.code for h in hits),
            tuple({"code": h.code, "detail": h.detail, "value": h.value, "threshold": h.threshold,
                   "annotation_ids": [subs[i].id for i in h.annotators if i < len(subs)]}
                  for h in hits))


@dataclass(frozen=True)
class _Judged:
    """The automatic side of some annotations of a sample: every flag (the annotators' own
    included), the versions the resolution merges (None for an unfinished one), their
    union-and-mean resolution and a context pair's part of the gold."""

    hits: tuple[FlagHit, ...]
    versions: tuple[AnnotatorVersion | None, ...]
    gold: Resolution | None
    pair: PairGold | None


def _judge(smp: Any, settings: ProjectSettings, subs: Sequence[Submitted], spread: ParameterSpread,
           known: Mapping[tuple[int, int], PairFigures] | None, pair: PairFacts | None,
           weighting: GoldWeighting = GoldWeighting()) -> _Judged:
    """The flags and the automatic resolution of ``subs`` (all of a sample's annotations, or a
    pair of them: the three-way rule judges each pair alone)."""
    hits = flags_for_sample([x.content for x in subs], smp.n_tokens, spread, settings,
                            [x.name for x in subs], known=known)
    segmented = protocol_of(settings).segmented(settings) or pair is None
    versions: list[AnnotatorVersion | None] = []
    for x in subs:
        try:
            versions.append(pair_version(x.annotator_id, x.content, smp.n_tokens, segmented))
        except (SegmentationError, ValueError):
            versions.append(None)  # an unfinished flagged annotation cannot take part in a merge
    usable = [v for v in versions if v is not None]
    gold = pooled_gold(usable, weighting, getattr(smp, "id", None)) if usable else None
    # one axis per segment: where the annotators' axes differ on a segment a lead chooses
    hits += axes_differ_hits(usable, {x.annotator_id: (i, x.name) for i, x in enumerate(subs)})
    extra = None
    rule = protocol_of(settings).settle_rule  # the protocol's part of the gold, and its own flags
    if pair is not None and rule is not None:
        extra = rule.gold([(x.annotator_id, x.content) for x in subs], smp.n_tokens, gold, settings)
        hits += rule.hits([x.content for x in subs], spread, settings, [x.name for x in subs], pair, extra)
    return _Judged(hits, tuple(versions), gold, extra)


def _settle_by_pair(smp: Any, settings: ProjectSettings, subs: Sequence[Submitted], spread: ParameterSpread,
                    known: Mapping[tuple[int, int], PairFigures] | None, pair: PairFacts | None,
                    judged: _Judged, weighting: GoldWeighting = GoldWeighting()
                    ) -> tuple[Resolution, PairGold | None] | None:
    """The gold of an escalated sample whose k + 1 annotations are in, settled by its agreeing
    pair (:func:`annotation.quality.third_annotator.agreeing_pair`), or None when no pair agrees
    (or an annotation cannot be merged: it goes to a lead)."""
    versions = judged.versions
    if any(v is None for v in versions):
        return None
    figures = known if known is not None else pair_figures([(smp.n_tokens, [x.content for x in subs])])[0]

    def hits_of(i: int, j: int) -> tuple[FlagHit, ...]:
        return _judge(smp, settings, [subs[i], subs[j]], spread, {(0, 1): figures[(i, j)]}, pair).hits

    best = agreeing_pair(len(subs), hits_of, lambda i, j: figures[(i, j)].w1)
    if best is None:
        return None
    gold = gold_of_pair([v for v in versions if v is not None], best,
                        lambda vs: pooled_gold(vs, weighting, getattr(smp, "id", None)))
    extra = None
    rule = protocol_of(settings).settle_rule
    if pair is not None and rule is not None:
        extra = rule.gold([(x.annotator_id, x.content) for x in subs], smp.n_tokens, gold, settings)
    return gold, extra


def plan_settle(smp: Any, settings: ProjectSettings, subs: Sequence[Submitted],
                gold_source: str | None, item_open: bool, spread: ParameterSpread, *,
                annotator_flags: bool = False,
                known: Mapping[tuple[int, int], PairFigures] | None = None,
                pair: PairFacts | None = None, gold_sd: float | None = None,
                release: bool = False, weighting: GoldWeighting | None = None) -> SettlePlan:
    """Decide how to settle a sample (pure: no session), from its submitted annotations in
    submit order, its gold's source (None: no gold), whether a review item is open and the
    project's parameter spread. ``smp`` is the sample row (or what a resolve read of it:
    ``n_tokens``, ``status``, ``is_warmup``, ``n_assigned``, ``extra_annotators``).
    ``annotator_flags``: the newest annotation carries an annotator's flag, which goes to the
    lead at once (whether or not the sample is complete).
    ``known``: the pairs' figures when computed for many samples at once
    (:func:`annotation.review.pair_figures.pair_figures`). ``pair``: a context pair's facts — its
    gold then also holds the curve given the follow-up and the change label, and the pair's own
    flags join (:mod:`annotation.review.pair_settling`). ``gold_sd``: the posterior SD of the
    gold's half-gone position under the annotator model (None: unknown; only the flags then
    call for a third annotator). ``release``: a recheck may settle an escalated sample still
    waiting for its extra annotator from its k (module docstring). ``weighting``: what the
    project's gold pooling rule weighs with (:func:`annotation.services.quality.gold_weighting.weighting_in`;
    None: equally); with a fitted annotator model it also gives ``gold_sd`` when none is given.
    """
    weighting = weighting or GoldWeighting()
    raised = annotator_flag_hits([x.content for x in subs]) if annotator_flags else ()
    reasons, details = _hits_json(raised, subs)
    item_open = item_open or annotator_flags
    k = settings.annotators_per_sample
    more = int(getattr(smp, "extra_annotators", 0) or 0)
    if smp.is_warmup or len(subs) < k or smp.status != "active":
        return SettlePlan("incomplete", reasons, details)
    if gold_source is not None and gold_source != "auto":
        return SettlePlan("pending", reasons, details)  # a lead decided it
    judged = _judge(smp, settings, subs, spread, known, pair, weighting)
    if gold_sd is None and settings.third_annotator:
        gold_sd = model_gold_sd([v for v in judged.versions if v is not None], weighting, getattr(smp, "id", None))
    hits = judged.hits
    # the complete sample's flags include the annotators' own, raised above: one of each reason
    reasons, details = _hits_json(one_per_reason((*raised, *hits), lambda h: h.code), subs)
    waiting = len(subs) < k + more
    released = None
    if waiting:  # escalated: its extra annotation is not in yet
        if not release or item_open or ask_another(hits, settings, 0, gold_sd) or smp.n_assigned >= k + more:
            return SettlePlan("incomplete", *_hits_json(raised, subs))
        released = 0  # settled from its k: the extra slot, never handed out, is given up
    if item_open:
        # already waiting for a lead (an annotator's flag, the daily sample): add what the
        # complete sample shows, so the lead sees every reason in one place
        return SettlePlan("pending", reasons, details, extra=released)
    gold, extra = judged.gold, judged.pair
    if more and not waiting:  # escalated, its k + 1 annotations in: a pair that agrees settles it
        settled = _settle_by_pair(smp, settings, subs, spread, known, pair, judged, weighting)
        if settled is None:  # no pair agrees: the lead sees the flags of all of them
            return SettlePlan("flagged", reasons, details, drop_gold=gold_source is not None)
        return SettlePlan("gold", gold=settled[0], pair=settled[1])
    if ask_another(hits, settings, more, gold_sd):
        return SettlePlan("more", drop_gold=gold_source is not None, extra=1)
    if hits:  # new thresholds flag what was auto-resolved before
        return SettlePlan("flagged", reasons, details, drop_gold=gold_source is not None, extra=released)
    if gold is None:
        return SettlePlan("pending", reasons, details, extra=released)  # nothing complete to merge
    return SettlePlan("gold", gold=gold, pair=extra, extra=released)
