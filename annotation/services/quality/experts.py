"""Annotators scored as experts: the project's seeds and each annotator's calibration,
information and weight (:mod:`annotation.quality.expert_scores`), for the Annotators page,
``chronocept agreement --json``, the export card and the "by calibration" gold pooling.

**Seeds** (:func:`read_seeds`), read in one read transaction:

* every submitted annotation of a warm-up-set sample — warm-up work and ongoing gold checks
  alike (:mod:`annotation.services.quality.gold_checks`) — whose sample has a gold (the lead's); its
  realisation is that gold's half-gone point (calibration *against the panel*);
* every submitted annotation of a sample imported with a known outcome
  (``samples.realised_minutes``): its realisation is that time (calibration against the world),
  which also wins on a warm-up sample that has both.

Production annotations on samples whose gold they made are never seeds: an annotator would be
scored against a gold they took part in. The figures are computed with no lock held and kept per
process, keyed by what they were computed from (the seeds' annotations and gold), so the page's
reruns do not recompute them.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from annotation.quality.expert_scores import (
    OUTCOME,
    PANEL,
    ExpertFigures,
    Seed,
    curve_quantiles,
    realisation_of_gold,
    realisation_of_minutes,
    score_annotators,
)
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.number_limits import checks_numbers
from annotation.services.process_cache import ProcessCache
from db.engine import Database
from db.models import Annotation, GoldAnnotation, Sample, User


@dataclass(frozen=True)
class SeedRow:
    """One seed as read: the annotator, the sample, the annotator's curve and the realisation's
    source (the gold's curve, or the known outcome in minutes)."""

    annotator_id: int
    sample_id: int
    curve: tuple[float, float, float]
    gold: tuple[float, float, float] | None
    realised_minutes: float | None


def read_seed_rows(s: Session, project_id: int) -> list[SeedRow]:
    """The project's seed annotations (module docstring), in annotation id order."""
    rows = s.execute(
        select(Annotation.annotator_id, Annotation.sample_id, Annotation.xi, Annotation.omega, Annotation.alpha,
               GoldAnnotation.xi, GoldAnnotation.omega, GoldAnnotation.alpha, Sample.realised_minutes)
        .join(Sample, Sample.id == Annotation.sample_id)
        .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted",
               Annotation.xi.is_not(None), Annotation.omega.is_not(None), Annotation.alpha.is_not(None),
               or_(and_(Sample.is_warmup.is_(True), GoldAnnotation.id.is_not(None)),
                   Sample.realised_minutes.is_not(None)))
        .order_by(Annotation.id)).all()
    return [SeedRow(r[0], r[1], (float(r[2]), float(r[3]), float(r[4])),
                    None if r[5] is None else (float(r[5]), float(r[6]), float(r[7])),
                    None if r[8] is None else float(r[8])) for r in rows]


def seeds_of(rows: list[SeedRow]) -> list[Seed]:
    """The seeds of ``rows``: each curve's quantiles (computed at once) and its realisation —
    the known outcome where there is one, else the gold's half-gone point. A row whose curve or
    gold is undefined on the axis is left out."""
    if not rows:
        return []
    quantiles = curve_quantiles([r.curve for r in rows])
    seeds = []
    for r, q in zip(rows, quantiles):
        if r.realised_minutes is not None:
            x, kind = realisation_of_minutes(r.realised_minutes), OUTCOME
        else:
            x, kind = realisation_of_gold(r.gold), PANEL  # type: ignore[arg-type]
        if np.isfinite(q).all() and np.isfinite(x):
            seeds.append(Seed(r.annotator_id, r.sample_id, tuple(float(v) for v in q), float(x), kind))
    return seeds


@dataclass(frozen=True)
class ExpertOverview:
    """Every annotator with seeds, by user id: their username and :class:`ExpertFigures`; the
    number of seed items and of those with a known outcome."""

    names: dict[int, str]
    figures: dict[Hashable, ExpertFigures]
    n_items: int
    n_outcome_items: int

    def rows(self) -> list[tuple[str, ExpertFigures]]:
        """(username, figures) by username."""
        return sorted(((self.names.get(uid, f"user {uid}"), f) for uid, f in self.figures.items()),
                      key=lambda row: row[0].lower())

    def to_json(self) -> dict:
        return {"seed_items": self.n_items, "outcome_items": self.n_outcome_items,
                "realisation": "the gold's half-gone time (calibration against the panel), or a known outcome",
                "annotators": [{**f.to_json(), "annotator": name} for name, f in self.rows()]}


_KEPT: ProcessCache[ExpertOverview] = ProcessCache(8)


def _fingerprint(s: Session, project_id: int) -> tuple:
    """What the figures are computed from, in aggregates: the seed-bearing samples' submitted
    annotations (count, id sum, last change) and their gold (count, id sum, last decision)."""
    seed_sample = and_(Sample.project_id == project_id,
                       or_(Sample.is_warmup.is_(True), Sample.realised_minutes.is_not(None)))
    annotations = s.execute(
        select(func.count(), func.sum(Annotation.id), func.max(Annotation.updated_at))
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(seed_sample, Annotation.status == "submitted")).one()
    gold = s.execute(select(func.count(), func.sum(GoldAnnotation.id), func.max(GoldAnnotation.decided_at),
                            func.sum(Sample.realised_minutes))
                     .join(Sample, Sample.id == GoldAnnotation.sample_id).where(seed_sample)).one()
    return tuple(annotations), tuple(gold)


def expert_figures_in(s: Session, project_id: int) -> ExpertOverview:
    """The project's :class:`ExpertOverview`, read in ``s`` (no role check: for services that
    have checked, and for settling's "by calibration" pooling); kept per process by what it is
    computed from (:func:`_fingerprint`)."""
    def make() -> ExpertOverview:
        rows = read_seed_rows(s, project_id)
        names = dict(s.execute(select(User.id, User.username)
                               .where(User.id.in_({r.annotator_id for r in rows} or {-1}))).all())
        seeds = seeds_of(rows)
        return ExpertOverview(names, score_annotators(seeds), len({x.item for x in seeds}),
                              len({x.item for x in seeds if x.kind == OUTCOME}))

    return _KEPT.get_or_make((str(s.get_bind().url), project_id), make, version=_fingerprint(s, project_id))


def project_expert_figures(db: Database, project_id: int) -> ExpertOverview:
    """:func:`expert_figures_in` in a read transaction of its own."""
    with db.read() as s:
        return expert_figures_in(s, project_id)


@checks_numbers
def expert_overview(db: Database, actor: Actor, project_id: int) -> ExpertOverview:
    """Lead: every annotator's calibration, information and weight on the project's seeds."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
    return project_expert_figures(db, project_id)


__all__ = ["ExpertOverview", "SeedRow", "expert_figures_in", "expert_overview", "project_expert_figures",
           "read_seed_rows", "seeds_of"]
