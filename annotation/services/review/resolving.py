"""Settling many samples at once: ``chronocept resolve``, a change of the flag thresholds and an
annotation import (SPEC §5, §10 "a team's day").

Compute, then write, in chunks of :data:`CHUNK` samples: a chunk's submitted annotations, gold
and open review items are read in a read transaction (three statements, JSON decoded in one
pass), its settling is decided with no lock held (:func:`annotation.services.review.settling.plan_settle`,
the W1 and Pk of all its pairs in one vectorised pass), and its writes go in one short
write transaction that first reads what each sample looks like now: a sample that changed
meanwhile (an annotator's submit, a lead's decision) is left out and decided again in the next
pass, so nothing is written from a stale reading and the write lock is held for a chunk's writes
only — never for a whole project.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, Callable, Iterable, Sequence

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from annotation.flag_reasons import is_automatic_flag
from annotation.review.deviation import ParameterSpread
from annotation.review.pair_figures import pair_figures
from annotation.content import AnnotationContent
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.quality.gold_weighting import weighting_in
from annotation.services.lookup import project_settings
from annotation.quality.weighted_gold import GoldWeighting
from annotation.services.rows import content_select, contents_of, gold_values
from annotation.services.protocols import services_of
from annotation.services.protocols.sample_pairs import PairFacts
from annotation.services.review.settle_plan import SettlePlan, Submitted, plan_settle
from annotation.services.review.settling import pair_columns, spread_of_project
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from db.engine import Database, make_engine
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample, User, utcnow
from db.queries import id_in

log = logging.getLogger(__name__)

#: Samples read, decided and written together: a chunk's write is a few bulk statements, well
#: under the 250 ms the write lock may be held (SPEC §10), and its read a few thousand rows.
CHUNK = 500
#: From this many samples, settling is shared by one process per core.
PARALLEL_MIN_SAMPLES = 20_000
#: Passes over samples that changed while their chunk was being decided, before giving up on
#: them (they are counted as pending: the next resolve, or the submit that changed them, settles).
MAX_PASSES = 5


@dataclass(frozen=True)
class SettleSummary:
    """What a resolve changed, by sample: ``gold`` stored or changed, ``flagged`` sent to review
    (or its automatic flags replaced by a recheck), ``more`` handed to one more annotator (the
    ``third_annotator`` setting); and what it left as it was: ``pending``
    awaiting a lead, ``incomplete``, and ``settled`` — gold already as it would be stored. So a
    second run that finds nothing new reports no gold and no flag."""

    gold: int
    flagged: int
    pending: int
    incomplete: int
    settled: int = 0
    more: int = 0


@dataclass
class _Sample:
    """One sample of a chunk as read: the fields settling looks at, its submitted annotations,
    gold (id, source) and open review item (id, reasons, details); ``n_assigned`` and
    ``extra_annotators`` (a third annotator asked) follow the other fields."""

    id: int
    n_tokens: int
    status: str
    is_warmup: bool
    subs: list[Submitted]
    gold: tuple[int, str] | None
    item: tuple[int, list[str], list[dict[str, Any]]] | None
    pair: PairFacts | None = None  # a context pair's facts (read for a pairs project only)
    stored_gold: dict[str, Any] | None = None  # the gold's columns of GOLD_COMPARED (with contents)
    n_assigned: int = 0
    extra_annotators: int = 0

    def key(self) -> tuple[Any, ...]:
        return (self.status, tuple(x.id for x in self.subs), self.gold,
                None if self.item is None else self.item[0], self.extra_annotators,
                self.n_assigned if self.extra_annotators else None)  # a waiting sample's extra slot


def _read_chunk(s: Session, ids: Sequence[int], *, contents: bool = True,
                facts: Callable[[Session, Sequence[int]], dict[int, PairFacts]] | None = None) -> dict[int, _Sample]:
    """The samples ``ids`` with their submitted annotations (in submit order), gold and open
    item (and with ``pairs`` their pair facts). Without ``contents`` only what identifies their
    state is read (for the write's check)."""
    samples = {sid: _Sample(sid, n, status, bool(warm), [], None, None, n_assigned=assigned, extra_annotators=more)
               for sid, n, status, warm, assigned, more in s.execute(
                   select(Sample.id, Sample.n_tokens, Sample.status, Sample.is_warmup, Sample.n_assigned,
                          Sample.extra_annotators).where(id_in(Sample.id, ids, s)))}
    if contents:
        rows = s.execute(
            select(Annotation.id, Annotation.sample_id, Annotation.annotator_id, User.username,
                   *content_select(Annotation))
            .join(User, User.id == Annotation.annotator_id)
            .where(id_in(Annotation.sample_id, ids, s), Annotation.status == "submitted")
            .order_by(Annotation.sample_id, Annotation.submitted_at, Annotation.id)).all()
        for r, content in zip(rows, contents_of(rows)):
            samples[r.sample_id].subs.append(Submitted(r.id, r.annotator_id, content, r.username))
    else:
        for aid, sid in s.execute(select(Annotation.id, Annotation.sample_id)
                                  .where(id_in(Annotation.sample_id, ids, s), Annotation.status == "submitted")
                                  .order_by(Annotation.sample_id, Annotation.submitted_at, Annotation.id)):
            samples[sid].subs.append(Submitted(aid, 0, AnnotationContent(), ""))
    compared = [getattr(GoldAnnotation, name) for name in GOLD_COMPARED] if contents else []
    for gid, sid, source, *values in s.execute(select(GoldAnnotation.id, GoldAnnotation.sample_id,
                                                      GoldAnnotation.source, *compared)
                                               .where(id_in(GoldAnnotation.sample_id, ids, s))):
        samples[sid].gold = (gid, source)
        if contents:
            samples[sid].stored_gold = dict(zip(GOLD_COMPARED, values))
    item_rows = s.execute(select(ReviewItem.id, ReviewItem.sample_id, ReviewItem.reasons, ReviewItem.details)
                          .where(id_in(ReviewItem.sample_id, ids, s), ReviewItem.status == "open")
                          .order_by(ReviewItem.id)).all()
    for iid, sid, reasons, details in item_rows:
        if samples[sid].item is None:
            samples[sid].item = (iid, list(reasons or ()), list(details or ()))
    if facts is not None:
        for sid, found in facts(s, ids).items():
            samples[sid].pair = found
    return samples


#: The columns of a gold that settling writes from a resolution: equal ones are not written again.
GOLD_COMPARED = ("boundaries", "segment_axes", "xi", "omega", "alpha", "source", "decided_by", "note",
                 "source_annotation_id", "confidence", "error_type", "context_xi", "context_omega",
                 "context_alpha", "change", "pooling", "pool_weights")


@dataclass(frozen=True)
class _Decision:
    sample: _Sample
    plan: SettlePlan
    drop_item: bool = False  # a recheck removes an item whose automatic flags no longer hold
    replace_item: bool = False  # a recheck's flags differ from the item's: its reasons replaced


def _as_stored(details: Iterable[dict[str, Any]]) -> str:
    """Flag details as the JSON column holds them (tuples become lists, NaN reads as itself)."""
    return json.dumps(list(details), sort_keys=True, default=float)


def _unchanged_gold(smp: _Sample, plan: SettlePlan) -> bool:
    """Whether the sample's gold already holds what ``plan`` would store (its decision time
    aside): an automatic gold settled again from the same annotations."""
    if plan.gold is None or smp.stored_gold is None or plan.drop_gold:
        return False
    values = gold_values(plan.gold, source="auto", decided_by=None, decided_at=utcnow(),
                         **pair_columns(plan.pair))
    return all(values[name] == smp.stored_gold[name] for name in GOLD_COMPARED)


def _recheck(smp: _Sample, item: tuple[int, list[str], list[dict[str, Any]]], plan: SettlePlan) -> _Decision:
    """A recheck's decision on a sample whose open ``item`` holds only automatic flags, ``plan``
    made as if the item were not there. Flags the same as the item's leave it as it is (still
    awaiting a lead); other flags replace the item's in place (its id and waiting time kept);
    no flags remove it. So a second recheck under the same thresholds changes nothing."""
    if plan.result != "flagged":
        return _Decision(smp, plan, drop_item=True)
    if list(plan.reasons) == item[1] and _as_stored(plan.details) == _as_stored(item[2]):
        return _Decision(smp, SettlePlan("pending"))
    return _Decision(smp, plan, replace_item=True)


def _decide(samples: Iterable[_Sample], settings: ProjectSettings, spread: ParameterSpread,
            recheck: bool, weighting: GoldWeighting | None = None) -> list[_Decision]:
    """Each sample's settling (pure), the figures of every pair (W1, Pk) computed at once."""
    samples = list(samples)
    pairs = pair_figures([(smp.n_tokens, [x.content for x in smp.subs]) for smp in samples])
    out = []
    for smp, curve in zip(samples, pairs):
        item = smp.item
        rechecked = recheck and item is not None and all(is_automatic_flag(r) for r in item[1])
        plan = plan_settle(smp, settings, smp.subs, None if smp.gold is None else smp.gold[1],
                           item is not None and not rechecked, spread, known=curve, pair=smp.pair,
                           release=recheck, weighting=weighting)
        if plan.extra is None and _unchanged_gold(smp, plan):
            plan = SettlePlan("settled")
        out.append(_recheck(smp, item, plan) if rechecked and item is not None else _Decision(smp, plan))
    return out


def _write(s: Session, decisions: Sequence[_Decision]) -> tuple[Counter[str], list[int]]:
    """Write the decisions whose samples are as they were read; returns the outcomes written
    and the ids of the samples that changed meanwhile (decided again later)."""
    now = {d.sample.id: d for d in decisions}
    current = _read_chunk(s, list(now), contents=False)
    changed = [sid for sid, d in now.items()
               if sid not in current or current[sid].key() != d.sample.key()]
    todo = [d for sid, d in now.items() if sid not in changed]
    stamp = utcnow()
    drop_items = [d.sample.item[0] for d in todo if d.drop_item]
    drop_gold = [d.sample.gold[0] for d in todo if d.plan.drop_gold and d.sample.gold is not None]
    if drop_items:
        s.execute(delete(ReviewItem).where(id_in(ReviewItem.id, drop_items, s)))
    if drop_gold:
        s.execute(delete(GoldAnnotation).where(id_in(GoldAnnotation.id, drop_gold, s)))
    new_items, grown_items, new_gold, renewed_gold = [], [], [], []
    for d in todo:
        plan, smp = d.plan, d.sample
        if d.replace_item and smp.item is not None:
            grown_items.append({"item_id": smp.item[0], "reasons": list(plan.reasons),
                                "details": list(plan.details)})
        elif plan.reasons:
            item = None if d.drop_item else smp.item
            reasons, details = (item[1], item[2]) if item else ([], [])
            new = [r for r in dict.fromkeys(plan.reasons) if r not in reasons]
            values = {"reasons": [*reasons, *new],
                      "details": [*details, *(x for x in plan.details if x.get("code") in new)]}
            if item is None:
                new_items.append({"sample_id": smp.id, "status": "open", "opened_at": stamp, **values})
            elif new:
                grown_items.append({"item_id": item[0], **values})
        if plan.gold is not None:
            values = gold_values(plan.gold, source="auto", decided_by=None, decided_at=stamp,
                                 **pair_columns(plan.pair))
            if smp.gold is None or plan.drop_gold:
                new_gold.append({"sample_id": smp.id, **values})
            else:
                renewed_gold.append({"gold_id": smp.gold[0], **values})
    # Core statements on the tables, executemany (the SET clause from the rows' keys): the ORM's
    # bulk paths cost a third of the write, and its bulk UPDATE wants the key under its own name
    items, golds = ReviewItem.__table__, GoldAnnotation.__table__
    if new_items:
        s.execute(insert(items), new_items)
    if grown_items:
        s.execute(update(items).where(items.c.id == bindparam("item_id")), grown_items)
    if new_gold:
        s.execute(insert(golds), new_gold)
    if renewed_gold:
        s.execute(update(golds).where(golds.c.id == bindparam("gold_id")), renewed_gold)
    extras = [{"sample_id": d.sample.id, "extra": d.plan.extra} for d in todo if d.plan.extra is not None]
    if extras:  # a third annotator asked (1), or a waiting sample's extra slot given up (0)
        samples = Sample.__table__
        s.execute(update(samples).where(samples.c.id == bindparam("sample_id"))
                  .values(extra_annotators=bindparam("extra")), extras)
    return Counter(d.plan.result for d in todo), changed


def settle_samples(db: Database, project_id: int, sample_ids: Sequence[int], settings: ProjectSettings,
                   *, recheck: bool = False,
                   progress: Callable[[int, int], None] | None = None) -> Counter[str]:
    """Settle the samples ``sample_ids`` of a project (module docstring); returns how many ended
    as "gold" (stored or changed), "flagged", "pending" (waiting for a lead, or still changing
    after every pass), "incomplete" and "settled" (gold already as it would be stored). ``progress(done, total)`` is called as parts are done.

    From :data:`PARALLEL_MIN_SAMPLES` samples the work is shared by one process per core, each
    settling its part in chunks on its own connection (reading and deciding a sample is
    CPU work: about 0.3 ms); a pool that cannot start leaves it all to this process."""
    ids = list(sample_ids)
    workers = os.cpu_count() or 1
    if len(ids) >= PARALLEL_MIN_SAMPLES and workers >= 2:
        url = db.engine.url.render_as_string(hide_password=False)
        size = -(-len(ids) // (workers * 4))  # a few parts per process: progress as they finish
        parts = [ids[i:i + size] for i in range(0, len(ids), size)]
        try:
            counts: Counter[str] = Counter()
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                futures = [pool.submit(_settle_part, url, project_id, part, settings, recheck)
                           for part in parts]
                for future in as_completed(futures):
                    counts += future.result()
                    if progress is not None:
                        progress(min(len(ids), sum(counts.values())), len(ids))
            return counts
        except (BrokenProcessPool, OSError, RuntimeError) as exc:
            log.warning("settling in processes failed (%s); settling here", exc)
    return _settle_here(db, project_id, ids, settings, recheck, progress)


def _settle_part(url: str, project_id: int, ids: list[int], settings: ProjectSettings,
                 recheck: bool) -> Counter[str]:
    """One process's part of :func:`settle_samples` (on a connection of its own)."""
    db = Database(make_engine(url))
    try:
        return _settle_here(db, project_id, ids, settings, recheck, None)
    finally:
        db.dispose()


def _settle_here(db: Database, project_id: int, ids: list[int], settings: ProjectSettings, recheck: bool,
                 progress: Callable[[int, int], None] | None) -> Counter[str]:
    spread = db.run_read(lambda s: spread_of_project(s, project_id))
    weighting = db.run_read(lambda s: weighting_in(s, project_id, settings, fresh=True))
    facts = services_of(settings).facts  # a context pair's facts (none for single texts)
    counts: Counter[str] = Counter()
    todo, total = ids, len(ids)
    for _pass in range(MAX_PASSES):
        retry: list[int] = []
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start:start + CHUNK]
            samples = db.run_read(lambda s: _read_chunk(s, chunk, facts=facts))
            decisions = _decide(samples.values(), settings, spread, recheck, weighting)
            done, changed = db.run_write(lambda s: _write(s, decisions))
            counts += done
            retry += changed
            if progress is not None:
                progress(min(total, sum(counts.values())), total)
        if not retry:
            return counts
        todo = retry
    counts["pending"] += len(todo)
    return counts


def complete_samples(db: Database, project_id: int, k: int, *, waiting: bool = False) -> list[int]:
    """The ids of the project's active production samples with at least ``k`` submitted
    annotations — ``k`` + ``extra_annotators`` for a sample handed to more annotators — oldest
    first; with ``waiting`` also those still waiting for their extra annotators (a recheck may
    settle them from their k: :mod:`annotation.services.review.settle_plan`)."""
    wanted = k if waiting else k + Sample.extra_annotators
    return db.run_read(lambda s: list(s.scalars(
        select(Sample.id).join(Annotation, Annotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Sample.status == "active",
               Sample.is_warmup.is_(False), Annotation.status == "submitted")
        .group_by(Sample.id, Sample.extra_annotators).having(func.count(Annotation.id) >= wanted)
        .order_by(Sample.id))))


@checks_numbers
def resolve_project(db: Database, actor: Actor, project_id: int, *, recheck: bool = False,
                    progress: Callable[[int, int], None] | None = None) -> SettleSummary:
    """Lead: settle every complete sample not settled yet — unflagged ones become gold, flagged
    ones open review items. With ``recheck`` (after thresholds changed) open items that hold only
    automatic flags are re-evaluated, and automatic gold is checked against the new thresholds."""
    settings = db.run_read(lambda s: (authorize(s, actor, Policy.REVIEW), project_settings(s, project_id))[1])
    ids = complete_samples(db, project_id, settings.annotators_per_sample, waiting=recheck)
    counts = settle_samples(db, project_id, ids, settings, recheck=recheck, progress=progress)
    summary = {k: counts.get(k, 0) for k in ("gold", "flagged", "pending", "incomplete", "settled", "more")}
    with db.write() as s:
        audit.record(s, actor.user_id, "resolve_project", "project", project_id, recheck=recheck, **summary)
    return SettleSummary(**summary)
