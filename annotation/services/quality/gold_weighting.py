"""What the project's gold pooling rule weighs with (:class:`annotation.quality.weighted_gold.GoldWeighting`),
read for settling — at a submit, a resolve, a recheck.

* **equally** (the default): nothing is read.
* **by calibration**: the annotators' calibration × information on the seeds
  (:func:`annotation.services.quality.experts.expert_figures_in`, kept per process until a seed or its
  gold changes).
* **by the annotator model**: the cross-fitted model (:func:`annotation.quality.annotator_model.cross_fit`)
  of every submitted production annotation with a curve. A fit takes up to a second at 3,000
  annotations, so it is kept per process and refitted only when the project's submitted
  annotations have grown by :data:`REFIT_SHARE` (and at least :data:`REFIT_MIN`) since, or when a
  resolve asks (``fresh``). A kept fit is a little older than the newest submits; its
  cross-fitting still keeps every sample's weights from a fit without that sample's fold — or
  without the sample at all, for a sample the fit never saw. Fewer than :data:`MIN_MODEL_ANNOTATIONS`
  annotations fit no model: the rule pools equally and the gold says so.

All of it is computed in the caller's read transaction, never under the write lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotation.publishable import NEEDS, Figure, figure
from annotation.quality.annotator_model import CrossFitted, cross_fit, observations_from_curves
from annotation.quality.expert_scores import calibration_weights
from annotation.quality.weighted_gold import CALIBRATION, EQUAL, MODEL, POOLING_PRIOR_STRENGTH, GoldWeighting
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.quality.experts import expert_figures_in
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Annotation, Sample, User

#: a kept model fit is refitted once the submitted annotations grew by this share …
REFIT_SHARE = 0.05
#: … and by at least this many
REFIT_MIN = 20
#: the fewest annotations the model is fitted on
MIN_MODEL_ANNOTATIONS = 40

_MODELS: dict[tuple[str, int], tuple[int, CrossFitted | None]] = {}
_LOCK = threading.Lock()


def _production_curves(s: Session, project_id: int) -> list[tuple[int, int, float, float, float]]:
    return [tuple(r) for r in s.execute(  # type: ignore[misc]
        select(Annotation.annotator_id, Annotation.sample_id, Annotation.xi, Annotation.omega, Annotation.alpha)
        .join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Sample.is_warmup.is_(False), Annotation.status == "submitted",
               Annotation.xi.is_not(None), Annotation.omega.is_not(None), Annotation.alpha.is_not(None))
        .order_by(Annotation.id)).all()]


def _count_production_curves(s: Session, project_id: int) -> int:
    """How many rows :func:`_production_curves` would read, counted by the database."""
    return s.scalar(select(func.count()).select_from(Annotation).join(Sample, Sample.id == Annotation.sample_id)
                    .where(Sample.project_id == project_id, Sample.is_warmup.is_(False),
                           Annotation.status == "submitted", Annotation.xi.is_not(None),
                           Annotation.omega.is_not(None), Annotation.alpha.is_not(None))) or 0


def project_model(s: Session, project_id: int, *, fresh: bool = False) -> CrossFitted | None:
    """The project's cross-fitted annotator model (module docstring), None under
    :data:`MIN_MODEL_ANNOTATIONS` annotations."""
    key = (str(s.get_bind().url), project_id)
    n = _count_production_curves(s, project_id)
    with _LOCK:
        kept = _MODELS.get(key)
    if kept is not None and not fresh and n < max(kept[0] * (1 + REFIT_SHARE), kept[0] + REFIT_MIN):
        return kept[1]
    rows = _production_curves(s, project_id)
    model = cross_fit(observations_from_curves(rows), prior_strength=POOLING_PRIOR_STRENGTH) if len(rows) >= MIN_MODEL_ANNOTATIONS else None
    with _LOCK:
        _MODELS[key] = (len(rows), model)
    return model


def weighting_in(s: Session, project_id: int, settings: ProjectSettings, *, fresh: bool = False) -> GoldWeighting:
    """What ``settings.gold_pooling`` weighs with, read in ``s``; the model is also fitted when
    the third annotator's width rule needs it (``settings.third_annotator``)."""
    model = None
    if settings.gold_pooling == MODEL or settings.third_annotator:
        model = project_model(s, project_id, fresh=fresh)
    if settings.gold_pooling == CALIBRATION:
        return GoldWeighting(CALIBRATION, calibration_weights(expert_figures_in(s, project_id).figures), model)
    return GoldWeighting(settings.gold_pooling if settings.gold_pooling == MODEL else EQUAL, {}, model)


@dataclass(frozen=True)
class ModelRow:
    """One annotator in the annotator model (the fit on every production annotation): bias
    (log-time units; + late), noise, width ratio (κ < 1: narrower than the consensus) — each a
    :class:`~annotation.publishable.Figure` over the annotator's items."""

    annotator: str
    n_items: int
    bias: Figure
    noise: Figure
    confidence: Figure


@dataclass(frozen=True)
class ModelOverview:
    """The project's annotator model for the Annotators page: ``rows`` by username, how many
    production annotations it was fitted on (``n_annotations``; None: too few to fit, under
    :data:`MIN_MODEL_ANNOTATIONS`), the items and the share with a difficulty above 1."""

    rows: tuple[ModelRow, ...]
    n_annotations: int
    n_items: int
    n_difficult: int
    fitted: bool


@checks_numbers
def annotator_model_overview(db: Database, actor: Actor, project_id: int) -> ModelOverview:
    """Lead: each annotator's bias, noise and width ratio, and the items' difficulty, from the
    project's annotator model (fitted on every submitted production annotation with a curve)."""
    with db.read() as s:
        authorize(s, actor, Policy.QUALITY_READ)
        model = project_model(s, project_id)
        n = _count_production_curves(s, project_id)
        names = (dict(s.execute(select(User.id, User.username).where(User.id.in_(list(model.annotators)))).all())
                 if model is not None else {})
    if model is None:
        return ModelOverview((), n, 0, 0, False)
    needs = NEEDS["annotator_model"]
    rows = tuple(sorted((ModelRow(names.get(a, f"user {a}"), e.n_items,
                                  *(figure(needs, v, n=e.n_items) for v in (e.bias, e.noise, e.confidence)))
                         for a, e in model.annotators.items()), key=lambda r: r.annotator.lower()))
    return ModelOverview(rows, n, len(model.items), sum(e.difficulty > 1.0 for e in model.items.values()), True)


__all__ = ["MIN_MODEL_ANNOTATIONS", "REFIT_MIN", "REFIT_SHARE", "ModelOverview", "ModelRow",
           "annotator_model_overview", "project_model", "weighting_in"]
