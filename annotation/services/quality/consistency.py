"""Consistency across similar texts: the lead's list of pairs of texts that
are nearly the same (SBERT cosine ≥ ``consistency_similarity_min``) but whose gold curves differ
by more than ``flag_w1_max`` in W1, or whose gold uses different axes.

The rule is :mod:`annotation.corpus.consistency`. The vectors are the SBERT vectors de-duplication
stored (``TextEmbedding``, float32 bytes, read with
:func:`annotation.corpus.duplicates.unpack_embeddings`); nothing is embedded or downloaded here. Only
active production samples with gold are compared (warm-up samples are left out); those
without a stored vector are counted, and the lead is pointed to the de-duplication run, which
embeds them. Read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from sqlalchemy import select

from annotation.corpus.consistency import axes_used, find_inconsistent_pairs
from annotation.curves.distance import CurveDistance
from annotation.corpus.duplicates import unpack_embeddings
from annotation.corpus.embeddings import SBERT_MODEL_NAME
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.rows import curve_of
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_settings
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import GoldAnnotation, ReviewItem, Sample, TextEmbedding

#: the orders the pairs can be listed in
ORDERS = ("similarity", "w1")
#: pairs returned at most (the most similar inconsistent ones)
DEFAULT_LIMIT = 500
_CHUNK = 900  # IN lists under SQLite's bound-parameter limit


@dataclass(frozen=True)
class ConsistencySide:
    """One text of a pair: its sample, the text as imported, its gold's axes and curve, and the
    open review item of the sample (None when it has none)."""

    sample_id: int
    external_id: str
    text: str
    axes: tuple[str, ...]
    xi: float
    omega: float
    alpha: float
    review_item_id: int | None


@dataclass(frozen=True)
class ConsistencyPair:
    """Two similar texts whose golds disagree: ``first`` is the earlier sample."""

    first: ConsistencySide
    second: ConsistencySide
    similarity: float
    w1: float | None  # None when a curve is undefined
    overlap: float | None
    shift: float | None
    curves_differ: bool
    axes_differ: bool

    @property
    def time_factor(self) -> float | None:
        """W1 as a factor in time (1.1 ** W1)."""
        return None if self.w1 is None else CurveDistance(self.w1, self.overlap or 0.0, self.shift or 0.0).time_factor

    @property
    def distance_text(self) -> str:
        """The curve distance in words: "S-002's curve sits ≈ ×3.2 later than S-001's"."""
        if self.w1 is None:
            return "a gold curve is undefined"
        return CurveDistance(self.w1, self.overlap or 0.0, self.shift or 0.0).describe(
            self.first.external_id, self.second.external_id)

    @property
    def why(self) -> str:
        """What differs: "curves", "axes" or "curves and axes"."""
        return " and ".join(w for w, on in (("curves", self.curves_differ), ("axes", self.axes_differ)) if on)


@dataclass(frozen=True)
class ConsistencyReport:
    """The pairs and what the search covered: ``n_compared`` samples with gold and a vector,
    ``n_without_vector`` with gold but no stored vector (run de-duplication to embed them);
    ``truncated`` when more than ``limit`` pairs were found."""

    pairs: tuple[ConsistencyPair, ...]
    n_compared: int
    n_without_vector: int
    similarity_min: float
    w1_max: float
    limit: int
    truncated: bool


@checks_numbers
def consistency_pairs(db: Database, actor: Actor, project_id: int, *, order: str = "similarity",
                      limit: int = DEFAULT_LIMIT) -> ConsistencyReport:
    """Lead: the project's similar texts whose golds disagree (module docstring), the ``limit``
    most similar of them, listed by ``order``: "similarity" (most similar first) or "w1" (the
    furthest-apart curves first)."""
    if order not in ORDERS:
        raise InvalidInput(f"Unknown order {order!r}; use similarity or w1.")
    if int(limit) < 1:
        raise InvalidInput("Ask for at least one pair.")
    limit = int(limit)
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        settings = project_settings(s, project_id)
        rows = s.execute(
            select(Sample.id, GoldAnnotation.xi, GoldAnnotation.omega, GoldAnnotation.alpha,
                   GoldAnnotation.segment_axes, TextEmbedding.dim, TextEmbedding.vector)
            .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .outerjoin(TextEmbedding, (TextEmbedding.sample_id == Sample.id)
                       & (TextEmbedding.model == SBERT_MODEL_NAME))
            .where(Sample.project_id == project_id, Sample.status == "active",
                   Sample.is_warmup.is_(False))
            .order_by(Sample.id)).all()
    with_vector = [r for r in rows if r.vector is not None]
    dims = {r.dim for r in with_vector}
    if len(dims) > 1:  # vectors of another encoder size: only the most common size compares
        common = max(dims, key=lambda d: sum(1 for r in with_vector if r.dim == d))
        with_vector = [r for r in with_vector if r.dim == common]
    n_without = len(rows) - len(with_vector)
    if len(with_vector) < 2:
        return ConsistencyReport((), len(with_vector), n_without, settings.consistency_similarity_min,
                                 settings.flag_w1_max, limit, False)
    vectors = unpack_embeddings([r.vector for r in with_vector], with_vector[0].dim)
    params = np.array([curve_of(r) for r in with_vector], dtype=float)
    axes = [axes_used(r.segment_axes or ()) for r in with_vector]
    found = find_inconsistent_pairs(vectors, params, axes, similarity_min=settings.consistency_similarity_min,
                                    w1_max=settings.flag_w1_max, limit=limit + 1)
    truncated = len(found) > limit
    found = found[:limit]
    ids = sorted({with_vector[i].id for p in found for i in (p.first, p.second)})
    texts, items = _texts_and_items(db, ids)

    def side(i: int) -> ConsistencySide:
        r = with_vector[i]
        external, text = texts[r.id]
        return ConsistencySide(r.id, external, text, tuple(sorted(axes[i])), r.xi, r.omega, r.alpha,
                               items.get(r.id))

    def finite(value: float) -> float | None:
        return float(value) if np.isfinite(value) else None

    pairs = [ConsistencyPair(side(p.first), side(p.second), p.similarity, finite(p.w1), finite(p.overlap),
                             finite(p.shift), p.curves_differ, p.axes_differ)
             for p in found  # a project deleted meanwhile takes its samples along: skip those
             if with_vector[p.first].id in texts and with_vector[p.second].id in texts]
    return ConsistencyReport(sorted_pairs(pairs, order), len(with_vector), n_without,
                             settings.consistency_similarity_min, settings.flag_w1_max, limit, truncated)


def sorted_pairs(pairs: Sequence[ConsistencyPair], order: str) -> tuple[ConsistencyPair, ...]:
    """``pairs`` in ``order``: "similarity" (most similar first) or "w1" (furthest-apart curves
    first, undefined distances last); ties by similarity, then by sample ids."""
    if order not in ORDERS:
        raise InvalidInput(f"Unknown order {order!r}; use similarity or w1.")

    def key(p: ConsistencyPair) -> tuple[float, ...]:
        ties = (-p.similarity, p.first.sample_id, p.second.sample_id)
        if order == "w1":
            return (-(p.w1 if p.w1 is not None else -1.0), *ties)
        return ties

    return tuple(sorted(pairs, key=key))


def _texts_and_items(db: Database, ids: list[int]) -> tuple[dict[int, tuple[str, str]], dict[int, int]]:
    """The external id and text of each sample in ``ids`` and its open review item, if any."""
    texts: dict[int, tuple[str, str]] = {}
    items: dict[int, int] = {}
    with db.read() as s:
        for start in range(0, len(ids), _CHUNK):
            part = ids[start:start + _CHUNK]
            for sid, external, text in s.execute(
                    select(Sample.id, Sample.external_id, Sample.parent_text).where(Sample.id.in_(part))):
                texts[sid] = (external, text)
            for sid, item_id in s.execute(
                    select(ReviewItem.sample_id, ReviewItem.id)
                    .where(ReviewItem.sample_id.in_(part), ReviewItem.status == "open")
                    .order_by(ReviewItem.id)):
                items.setdefault(sid, item_id)
    return texts, items


__all__ = [
    "DEFAULT_LIMIT",
    "ORDERS",
    "ConsistencyPair",
    "ConsistencyReport",
    "ConsistencySide",
    "consistency_pairs",
    "sorted_pairs",
]
