"""De-duplication before annotation: find near-duplicate texts, let the lead confirm or release.

A run embeds the project's texts with SBERT (only those without a cached vector), builds TF-IDF
vectors, and marks every text too similar to an earlier kept one (``annotation.corpus.duplicates``). Marks
start *pending* — the text stays in the annotation pool. Confirming a mark takes the text out
of the pool (sample status ``duplicate``); releasing it keeps the text for good (later runs
treat it as kept). Every decision can be undone, and every step is in the audit log. Nothing is
ever deleted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable, Sequence

import numpy as np
from sqlalchemy import case, delete, func, or_, select
from sqlalchemy.orm import aliased

from annotation.corpus.duplicates import NearDuplicate as FoundDuplicate  # the model's row shares the name
from annotation.corpus.duplicates import (
    find_near_duplicates,
    pack_embedding,
    tfidf_matrix,
    unpack_embeddings,
)
from annotation.corpus.embeddings import SBERT_MODEL_NAME, embed_texts
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.lookup import project_settings
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import AuditEvent, NearDuplicate, Sample, TextEmbedding, User, utcnow

#: progress callback: (fraction done 0..1, what is happening)
Progress = Callable[[float, str], None]
#: share of the progress bar given to embedding (the slow part) when every text is new
_EMBED_SHARE = 0.85
_WRITE_CHUNK = 2000
DECISIONS = ("confirm", "release", "undo")


@dataclass(frozen=True)
class DedupSummary:
    n_texts: int
    n_embedded: int
    n_cached: int
    n_new_marks: int
    n_pending: int
    n_confirmed: int
    n_released: int
    threshold: float
    seconds: float


@dataclass(frozen=True)
class DuplicatePair:
    """One mark as the lead reviews it: the later text beside the earlier kept one."""

    id: int
    sample_id: str
    text: str
    duplicate_of: str
    of_text: str
    sbert_score: float
    tfidf_score: float
    representation: str
    status: str
    decided_by: str | None
    decided_at: datetime | None
    #: the later text has already been handed to an annotator
    sample_in_work: bool
    #: the kept text is a warm-up text (gold checks use it): a production near-copy of it lets an
    #: annotator who meets both tell the check apart, and is listed apart, first
    of_warmup: bool = False

    @property
    def score(self) -> float:
        """The similarity that fired (the larger one when both did)."""
        if self.representation == "sbert":
            return self.sbert_score
        if self.representation == "tfidf":
            return self.tfidf_score
        return max(self.sbert_score, self.tfidf_score)


@dataclass(frozen=True)
class DuplicateCounts:
    pending: int
    confirmed: int
    released: int

    @property
    def total(self) -> int:
        return self.pending + self.confirmed + self.released


@checks_numbers
def run_dedup(db: Database, actor: Actor, project_id: int, *, progress: Progress | None = None,
              model=None, threshold: float | None = None) -> DedupSummary:  # type: ignore[no-untyped-def]
    """Lead: (re-)compute the near-duplicate marks of a project's production texts.

    Texts are taken in import order (sample id), discarded ones left out; warm-up texts come
    first and are always kept (never marked), so a production near-copy of a gold-check text is
    marked against it. Released texts count as kept and confirmed ones as gone; pending marks
    are recomputed, so a changed threshold or new texts give an up-to-date list while the
    lead's decisions stay.
    """
    started = time.perf_counter()
    report = progress or (lambda fraction, message: None)
    with db.read() as s:
        authorize(s, actor, Policy.DUPLICATES)
        settings = project_settings(s, project_id)
        limit = settings.dedup_threshold if threshold is None else float(threshold)
        if not 0 < limit <= 1:
            raise InvalidInput("The similarity threshold must be in (0, 1].")
        rows = s.execute(
            select(Sample.id, Sample.parent_text, Sample.is_warmup)
            .where(Sample.project_id == project_id, Sample.status.in_(("active", "duplicate")))
            .order_by(Sample.is_warmup.desc(), Sample.id)).all()
        ids = [r.id for r in rows]
        texts = [r.parent_text for r in rows]
        warmup = [i for i, r in enumerate(rows) if r.is_warmup]
        decided = dict(s.execute(
            select(NearDuplicate.sample_id, NearDuplicate.status)
            .where(NearDuplicate.project_id == project_id, NearDuplicate.status != "pending")).all())
        cached = {
            sid: blob for sid, blob in s.execute(
                select(TextEmbedding.sample_id, TextEmbedding.vector)
                .join(Sample, Sample.id == TextEmbedding.sample_id)
                .where(Sample.project_id == project_id, TextEmbedding.model == SBERT_MODEL_NAME)).all()
        }
    missing = [i for i, sid in enumerate(ids) if sid not in cached]
    embed_share = _EMBED_SHARE * (len(missing) / max(len(ids), 1))
    report(0.0, f"Embedding {len(missing)} new texts ({len(ids) - len(missing)} cached)…")
    fresh = None
    if missing:
        fresh = embed_texts([texts[i] for i in missing], model=model,
                            progress=lambda done, total: report(
                                embed_share * done / max(total, 1), f"Embedding texts: {done}/{total}"))
        _store_embeddings(db, [ids[i] for i in missing], fresh)
    dim = fresh.shape[1] if fresh is not None else (len(next(iter(cached.values()))) // 4 if cached else 0)
    vectors = np.zeros((len(ids), dim), dtype=np.float32)
    if fresh is not None:
        vectors[missing] = fresh
    known = [i for i, sid in enumerate(ids) if sid in cached]
    if known:
        vectors[known] = unpack_embeddings([cached[ids[i]] for i in known], dim)
    report(embed_share, "Comparing texts…")
    index_of = {sid: i for i, sid in enumerate(ids)}
    keep = warmup + [index_of[sid] for sid, st in decided.items() if st == "released" and sid in index_of]
    drop = [index_of[sid] for sid, st in decided.items() if st == "confirmed" and sid in index_of]
    found = find_near_duplicates(
        vectors, tfidf_matrix(texts), threshold=limit, keep=keep, drop=drop,
        progress=lambda done, total: report(
            embed_share + (0.98 - embed_share) * done / max(total, 1), f"Comparing texts: {done}/{total}"))
    report(0.98, "Saving the marks…")
    new_marks = _store_marks(db, actor, project_id, ids, found, limit)
    counts = duplicate_counts(db, actor, project_id)
    report(1.0, "Done.")
    summary = DedupSummary(len(ids), len(missing), len(ids) - len(missing), new_marks,
                           counts.pending, counts.confirmed, counts.released, limit,
                           time.perf_counter() - started)
    with db.write() as s:
        audit.record(s, actor.user_id, "run_dedup", "project", project_id,
                     texts=summary.n_texts, embedded=summary.n_embedded, new_marks=new_marks,
                     pending=summary.n_pending, threshold=limit)
    return summary


def _store_embeddings(db: Database, sample_ids: Sequence[int], vectors: np.ndarray) -> None:
    for start in range(0, len(sample_ids), _WRITE_CHUNK):
        with db.write() as s:
            part = sample_ids[start:start + _WRITE_CHUNK]
            # a concurrent run may have stored some of them meanwhile: replace, never duplicate
            s.execute(delete(TextEmbedding).where(TextEmbedding.sample_id.in_(part)))
            s.add_all(TextEmbedding(sample_id=sid, model=SBERT_MODEL_NAME, dim=vectors.shape[1],
                                    vector=pack_embedding(vectors[start + j]))
                      for j, sid in enumerate(part))


def _store_marks(db: Database, actor: Actor, project_id: int, ids: Sequence[int],
                 found: Iterable[FoundDuplicate], threshold: float) -> int:
    """Replace the project's pending marks by ``found``; decided marks are never touched (a
    decision taken while the run was computing wins over the run)."""
    with db.write() as s:
        authorize(s, actor, Policy.DUPLICATES)
        existing = {m.sample_id: m for m in s.scalars(
            select(NearDuplicate).where(NearDuplicate.project_id == project_id))}
        wanted = {}
        for d in found:
            wanted[ids[d.index]] = d
        new = 0
        for sid, mark in existing.items():
            if mark.status == "pending" and sid not in wanted:
                s.delete(mark)
        for sid, d in wanted.items():
            mark = existing.get(sid)
            if mark is not None and mark.status != "pending":
                continue
            if mark is None:
                mark = NearDuplicate(project_id=project_id, sample_id=sid, status="pending")
                s.add(mark)
                new += 1
            mark.duplicate_of_id = ids[d.of_index]
            mark.sbert_score = float(d.sbert_score)
            mark.tfidf_score = float(d.tfidf_score)
            mark.representation = d.representation
            mark.threshold = threshold
            mark.found_at = utcnow()
        return new


@checks_numbers
def duplicate_counts(db: Database, actor: Actor, project_id: int) -> DuplicateCounts:
    """How many marks are pending, confirmed and released."""
    with db.read() as s:
        authorize(s, actor, Policy.DUPLICATES)
        got = dict(s.execute(
            select(NearDuplicate.status, func.count())
            .where(NearDuplicate.project_id == project_id).group_by(NearDuplicate.status)).all())
    return DuplicateCounts(got.get("pending", 0), got.get("confirmed", 0), got.get("released", 0))


@dataclass(frozen=True)
class DedupRun:
    """A de-duplication run as the audit log keeps it: when, over how many texts, at which
    similarity threshold."""

    at: datetime
    n_texts: int
    threshold: float


@checks_numbers
def last_run(db: Database, actor: Actor, project_id: int) -> DedupRun | None:
    """Lead: the project's last de-duplication run (the app's or ``chronocept dedup``), None
    before the first."""
    with db.read() as s:
        authorize(s, actor, Policy.DUPLICATES)
        event = s.scalar(select(AuditEvent).where(
            AuditEvent.entity == "project", AuditEvent.entity_id == str(project_id),
            AuditEvent.action == "run_dedup").order_by(AuditEvent.id.desc()).limit(1))
    if event is None:
        return None
    return DedupRun(event.at, int(event.detail.get("texts", 0)), float(event.detail.get("threshold", 0.0)))


def _where(q, project_id: int, status: str | None, min_score: float):  # type: ignore[no-untyped-def]
    """``q`` narrowed to the project's marks with ``status`` (None: all) above ``min_score``."""
    if status not in (None, "pending", "confirmed", "released"):
        raise InvalidInput(f"Unknown status {status!r}.")
    q = q.where(NearDuplicate.project_id == project_id)
    if status is not None:
        q = q.where(NearDuplicate.status == status)
    if min_score > 0:
        q = q.where(or_(NearDuplicate.sbert_score > min_score, NearDuplicate.tfidf_score > min_score))
    return q


#: :attr:`DuplicatePair.score` in SQL (the similarity that fired, the larger when both did), so
#: the database sorts and pages the marks.
_SCORE = case((NearDuplicate.representation == "sbert", NearDuplicate.sbert_score),
              (NearDuplicate.representation == "tfidf", NearDuplicate.tfidf_score),
              (NearDuplicate.sbert_score >= NearDuplicate.tfidf_score, NearDuplicate.sbert_score),
              else_=NearDuplicate.tfidf_score)


@checks_numbers
def list_pairs(db: Database, actor: Actor, project_id: int, *, status: str | None = "pending",
               limit: int = 50, offset: int = 0, min_score: float = 0.0) -> list[DuplicatePair]:
    """Lead: marks to review — near-copies of warm-up texts first, then the others — most similar
    first (ties by mark id), each with both texts side by side; only the ``limit`` marks after the
    first ``offset`` are read from the database."""
    later, earlier, who = aliased(Sample), aliased(Sample), aliased(User)
    q = (select(NearDuplicate, later, earlier, who.username)
         .join(later, later.id == NearDuplicate.sample_id)
         .join(earlier, earlier.id == NearDuplicate.duplicate_of_id)
         .outerjoin(who, who.id == NearDuplicate.decided_by))
    q = _where(q, project_id, status, min_score)
    with db.read() as s:
        authorize(s, actor, Policy.DUPLICATES)
        rows = s.execute(q.order_by(earlier.is_warmup.desc(), _SCORE.desc(), NearDuplicate.id)
                         .limit(max(0, limit)).offset(max(0, offset))).all()
    return [
        DuplicatePair(m.id, a.external_id, a.parent_text, b.external_id, b.parent_text,
                      m.sbert_score, m.tfidf_score, m.representation, m.status, name,
                      m.decided_at, a.n_assigned > 0, bool(b.is_warmup))
        for m, a, b, name in rows
    ]


@dataclass(frozen=True)
class PairPage:
    """One page of marks (most similar first) and where it lies among all of them."""

    pairs: list[DuplicatePair]
    total: int
    page: int
    n_pages: int


@checks_numbers
def pair_page(db: Database, actor: Actor, project_id: int, *, status: str | None = "pending",
              page: int = 1, page_size: int = 20) -> PairPage:
    """Lead: page ``page`` (from 1; clamped to the pages there are, so a page emptied by
    decisions shows the last one) of the marks with ``status``, and how many there are."""
    if page_size < 1:
        raise InvalidInput("A page holds at least one mark.")
    with db.read() as s:
        authorize(s, actor, Policy.DUPLICATES)
        total = s.scalar(_where(select(func.count(NearDuplicate.id)), project_id, status, 0.0)) or 0
    n_pages = max(1, (total + page_size - 1) // page_size)
    page = min(max(1, int(page)), n_pages)
    pairs = list_pairs(db, actor, project_id, status=status, limit=page_size,
                       offset=(page - 1) * page_size) if total else []
    return PairPage(pairs, total, page, n_pages)


@checks_numbers
def decide(db: Database, actor: Actor, project_id: int, mark_ids: Sequence[int], decision: str) -> int:
    """Lead: confirm (take the texts out of the pool), release (keep them) or undo (back to
    pending, back in the pool) some marks. Returns how many marks changed; asking twice for
    the same decision changes nothing the second time."""
    if decision not in DECISIONS:
        raise InvalidInput(f"Unknown decision {decision!r}; use confirm, release or undo.")
    target = {"confirm": "confirmed", "release": "released", "undo": "pending"}[decision]
    changed = 0
    with db.write() as s:
        authorize(s, actor, Policy.DUPLICATES)
        marks = list(s.scalars(select(NearDuplicate).where(
            NearDuplicate.project_id == project_id, NearDuplicate.id.in_(list(mark_ids)))))
        if len(marks) != len(set(mark_ids)):
            raise NotFound("Some of these marks no longer exist (a re-run may have replaced them); "
                           "reload the list.")
        for mark in marks:
            if mark.status == target:
                continue
            sample = s.get(Sample, mark.sample_id)
            if target == "confirmed":
                if sample.status == "active":
                    sample.status = "duplicate"
            elif sample.status == "duplicate":
                sample.status = "active"
            before = mark.status
            mark.status = target
            mark.decided_by = None if target == "pending" else actor.user_id
            mark.decided_at = None if target == "pending" else utcnow()
            audit.record(s, actor.user_id, f"duplicate_{decision}", "sample", sample.external_id,
                         duplicate_of=mark.duplicate_of_id, before=before, after=target)
            changed += 1
    return changed
