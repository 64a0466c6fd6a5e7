"""Which open samples a hand-out tries, in the project's hand-out order (``hand_out_order``):
import order (oldest first), a random place in the pool, or the latest applied model's most
uncertain first. Called by :func:`annotation.services.workbench.queue.next_item` with no lock held (its read
half) and again inside its write when every candidate filled up meanwhile. Blindness, k, quotas,
warm-up and gold checks are the queue's and unchanged by the order: each function returns only
samples the user has not had (nor wrote, an authored follow-up), with fewer than k annotators, that are active (and not warm-up
samples when ``exclude_warmup``) — or, with the ``third_annotator`` setting on (``more`` = 1), a
sample settling handed to one more annotator (``extra_annotators``) whose extra slot is open.
"""

from __future__ import annotations

import random

from sqlalchemy import and_, func, select, true, union_all
from sqlalchemy.orm import Session

from annotation.services.model import model_loop
from annotation.settings import ProjectSettings
from annotation.services.model.model_jobs import PREDICT
from db.models import Assignment, ModelPrediction, Sample, SamplePair

#: How many candidates one look returns (a hand-out claims the first still open).
_CANDIDATES = 20
#: The random pivot of the "random" hand-out order (tests seed it).
_rng = random.Random()


def _had_by(user_id: int):  # type: ignore[no-untyped-def]
    """How many times the user was handed the sample (0: never): a count per row on the
    (sample_id, user_id) unique index (see :func:`import_order_candidates`)."""
    return (select(func.count()).select_from(Assignment)
            .where(Assignment.sample_id == Sample.id, Assignment.user_id == user_id)
            .scalar_subquery())


def _open_to(user_id: int):  # type: ignore[no-untyped-def]
    """The sample is one the user may be handed: never had by them, and not a follow-up they
    wrote themselves (its author knows the intended change; others annotate it blind). The
    second is a primary-key look-up per row in ``sample_pairs``, written as a count like
    :func:`_had_by`."""
    wrote = (select(func.count()).select_from(SamplePair)
             .where(SamplePair.sample_id == Sample.id, SamplePair.authored_by == user_id)
             .scalar_subquery())
    return and_(_had_by(user_id) == 0, wrote == 0)


def _open_slot(k: int, more: int, n: int):  # type: ignore[no-untyped-def]
    """The pool's condition for samples with ``n`` annotators: open when n < k, and for n ≥ k
    (up to ``k + more``) only on a sample asked for more than n - k extra annotators."""
    return true() if n < k else Sample.extra_annotators > n - k


def uncertain_candidates(s: Session, user_id: int, project_id: int, k: int, *, exclude_warmup: bool,
                         limit: int, more: int = 0) -> list[int] | None:
    """Open samples (fewer than ``k`` annotators — ``k + extra_annotators`` with ``more`` —, not the user's) by the latest applied model's
    calibrated uncertainty (its expected miss), largest first; None when the project has no
    applied model or its model does not earn its place (:func:`model_loop.withheld`: it does not
    beat the trivial reference under cross-validation, or its expected miss does not track its
    error; ties keep import order) — the caller falls back to import order,
    as it does for samples the model did not predict. Sample ids only: the annotator sees which
    sample they get, never why."""
    job = model_loop.latest_job(s, project_id, PREDICT)
    if job is None or model_loop.withheld(job, ordering=True):
        return None
    stmt = (select(Sample.id).join(ModelPrediction, ModelPrediction.sample_id == Sample.id)
            .where(ModelPrediction.job_id == job.id, Sample.project_id == project_id, Sample.status == "active",
                   Sample.n_assigned < (k + Sample.extra_annotators if more else k), _open_to(user_id))
            .order_by(ModelPrediction.expected_miss.desc().nulls_last(), Sample.id).limit(limit))
    if exclude_warmup:
        stmt = stmt.where(Sample.is_warmup.is_(False))
    return list(s.scalars(stmt))


def import_order_candidates(s: Session, user_id: int, project_id: int, k: int,
                   exclude_warmup: bool = False, more: int = 0) -> list[int]:
    """Ids of the oldest active samples with fewer than k annotators that are not the user's
    (with ``more``: or fewer than k + ``extra_annotators``).

    One range of ``ix_samples_pool`` (project_id, status, n_assigned, id) per ``n_assigned``
    value 0 … k-1 is already in id order (the extra branch, n = k, reads the range of the
    samples with k annotators for those asked for one more: it walks the project's complete
    samples, so it runs only with the third annotator on), so each branch stops after its first few rows; the
    oldest of their union are the answer. A single ``n_assigned < k`` range is not in id order:
    SQLite sorted the whole open pool and PostgreSQL walked the primary key past every full
    sample, both growing with the project.

    "Not the user's" is a count per row on the (sample_id, user_id) unique index; written as
    NOT EXISTS, PostgreSQL planned a merge anti-join that read that whole index for the user.
    """
    mine = _open_to(user_id)
    extra = [Sample.is_warmup.is_(False)] if exclude_warmup else []
    branches = [
        select(Sample.id).where(Sample.project_id == project_id, Sample.status == "active",
                                Sample.n_assigned == n, _open_slot(k, more, n), mine, *extra)
        .order_by(Sample.id).limit(_CANDIDATES).subquery()
        for n in range(k + more)
    ]
    pool = union_all(*(select(b.c.id) for b in branches)).subquery()
    return list(s.scalars(select(pool.c.id).order_by(pool.c.id).limit(_CANDIDATES)))


def random_candidates(s: Session, user_id: int, project_id: int, k: int,
                       exclude_warmup: bool = False, more: int = 0) -> list[int]:
    """Open samples from a random place in the pool: per ``n_assigned`` value, the first open
    ids at or after a random pivot (wrapping round to the start), nearest the pivot first. Each
    branch is a range of ``ix_samples_pool``, as in :func:`import_order_candidates`; a new pivot is drawn
    at every hand-out, so the pool is handed out in no fixed order (a sample just after a long
    run of taken ones is a little likelier to come next: the price of not sorting the pool)."""
    mine = _open_to(user_id)
    extra = [Sample.is_warmup.is_(False)] if exclude_warmup else []
    found: list[int] = []
    pivot = None
    for n in range(k + more):
        base = [Sample.project_id == project_id, Sample.status == "active", Sample.n_assigned == n,
                _open_slot(k, more, n)]
        if pivot is None:
            lo = s.scalar(select(Sample.id).where(*base).order_by(Sample.id).limit(1))
            hi = s.scalar(select(Sample.id).where(*base).order_by(Sample.id.desc()).limit(1))
            if lo is None:
                continue
            pivot = _rng.randint(lo, hi)
        for part in (Sample.id >= pivot, Sample.id < pivot):
            found += s.scalars(select(Sample.id).where(*base, part, mine, *extra)
                               .order_by(Sample.id).limit(_CANDIDATES))
    if pivot is None:
        return []
    return sorted(set(found), key=lambda i: (i - pivot) % (1 << 62))[:_CANDIDATES]


def ordered_candidates(s: Session, user_id: int, project_id: int, settings: ProjectSettings,
                        exclude_warmup: bool = False) -> list[int]:
    """The open samples to try, in the project's hand-out order (``settings.hand_out_order``):
    import order, a random place in the pool, or the latest applied model's most uncertain
    first (then the samples it did not predict, in import order). With the ``third_annotator``
    setting on, samples asked for one more annotator are open too."""
    k = settings.annotators_per_sample
    more = 1 if settings.third_annotator else 0
    if settings.hand_out_order == "random":
        return random_candidates(s, user_id, project_id, k, exclude_warmup, more)
    if settings.hand_out_order == "uncertain":
        first = uncertain_candidates(s, user_id, project_id, k, exclude_warmup=exclude_warmup,
                                     limit=_CANDIDATES, more=more) or []
        if len(first) < _CANDIDATES:
            taken = set(first)
            first += [i for i in import_order_candidates(s, user_id, project_id, k, exclude_warmup, more)
                      if i not in taken]
        return first[:_CANDIDATES]
    return import_order_candidates(s, user_id, project_id, k, exclude_warmup, more)
