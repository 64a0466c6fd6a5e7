"""What the back office reads of an applied model (``annotation.services.model.model_jobs``):

* the latest finished job of a kind (:func:`latest_job`: the queue's "most uncertain first"
  order, :mod:`annotation.services.workbench.hand_out_order`, reads the latest ``predict`` job);
* Review's "Model disagrees" list (:func:`disagreements`, the latest finished ``audit`` job), and
  :func:`open_disagreement_case`, which opens a normal review case for one of them — nothing is
  flagged, changed or decided automatically;
* the gate both features pass (:func:`withheld`): a job's model is used only when it beats the
  trivial reference under cross-validation, and orders the queue only when its expected miss
  also tracks its error (:func:`annotation.training.calibration.withheld_because`); otherwise
  the list is empty, the queue keeps its import order and the pages say why
  (:func:`uncertain_order_withheld`);
* the model's curve for a review case (:func:`model_curve`), which a lead may show when the
  project allows it (``show_model_curve``, off by default).

No anchoring: nothing here is for an annotator; every function that returns a figure is for leads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotation.review.adjudication import SampleFigures, sample_figures
from annotation.flag_reasons import MODEL_DISAGREES
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.model.model_jobs import AUDIT, PREDICT
from annotation.services.rows import annotation_content, curve_of
from annotation.services.review.settling import open_review
from annotation.services.number_limits import checks_numbers
from annotation.training.calibration import withheld_because
from db.engine import Database
from db.models import Annotation, GoldAnnotation, Job, ModelPrediction, ReviewItem, Sample

#: Most entries the "Model disagrees" list shows (a lead asks for fewer with ``top``).
MAX_TOP = 200


def latest_job(s: Session, project_id: int, kind: str) -> Job | None:
    """The project's latest finished job of ``kind`` (``predict`` or ``audit``), or None."""
    return s.scalar(select(Job).where(Job.project_id == project_id, Job.kind == kind, Job.status == "succeeded")
                    .order_by(Job.id.desc()).limit(1))


def _latest_prediction(s: Session, project_id: int, kind: str,
                       sample_id: int) -> tuple[Job | None, ModelPrediction | None]:
    """The project's latest finished job of ``kind`` and its row for the sample (None, None:
    no such job; (job, None): the job has no row for it)."""
    job = latest_job(s, project_id, kind)
    if job is None:
        return None, None
    return job, s.scalar(select(ModelPrediction).where(ModelPrediction.job_id == job.id,
                                                         ModelPrediction.sample_id == sample_id))


def withheld(job: Job, *, ordering: bool = False) -> str:
    """Why ``job``'s model may not be used ("": it may) — to hand out the most uncertain first
    with ``ordering`` (its uncertainty must also track its error): module docstring."""
    return withheld_because(job.result, ordering=ordering)


@checks_numbers
def uncertain_order_withheld(db: Database, actor: Actor, project_id: int) -> str:
    """Lead: why "most uncertain first" cannot use the latest applied model ("" when it can), in
    words the Projects page shows under the choice."""
    with db.read() as s:
        authorize(s, actor, Policy.MODEL_LOOP)
        job = latest_job(s, project_id, PREDICT)
        if job is None:
            return "no model has been applied to this project yet (Training page: Predict every sample)"
        reason = withheld(job, ordering=True)
        return f"the latest predictions (job {job.id}) are not used: {reason}" if reason else ""


@dataclass(frozen=True)
class Disagreement:
    """One gold sample the cross-fitted model disagrees with: both curves (base-1.1 log
    minutes; ``gold`` as it is now, which may have changed since the audit), the W1 between the
    gold and the model's curve at the audit, the ensemble's spread, the score (W1 scaled by the
    spread), and the sample's own agreement figures (between its annotators). ``gold_changed``:
    the gold was decided again (or removed) after the audit read it — W1 and score are the
    audit's, against the gold it saw."""

    rank: int
    sample_id: int
    external_id: str
    text: str
    gold: tuple[float, float, float]
    model: tuple[float, float, float]
    gold_w1: float
    expected_miss: float | None
    score: float
    half_gone_minutes: float
    half_gone_interval: tuple[float, float]
    figures: SampleFigures
    open_item_id: int | None
    gold_changed: bool


@dataclass(frozen=True)
class AuditList:
    job_id: int
    finished_at: datetime | None
    n_audited: int
    entries: tuple[Disagreement, ...]
    #: why the audit's model lists nothing ("" when it earns its place: :func:`withheld`)
    withheld: str = ""
    #: what the audit's job kept of its cross-validation (its comparison with the reference, the
    #: calibration: :func:`annotation.training.calibration.calibration_words` reads it)
    kept: dict | None = None


@checks_numbers
def disagreements(db: Database, actor: Actor, project_id: int, *, top: int = 20) -> AuditList | None:
    """Lead: the latest audit's ``top`` most suspicious gold samples (highest score first), or
    None when the project has no finished audit; no entries and the reason (``withheld``) when
    the audit's model does not beat the trivial reference under cross-validation."""
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise InvalidInput(f"The list shows from 1 to {MAX_TOP} samples.")
    with db.read() as s:
        authorize(s, actor, Policy.MODEL_LOOP)
        job = latest_job(s, project_id, AUDIT)
        if job is None:
            return None
        n = s.scalar(select(func.count()).select_from(ModelPrediction).where(ModelPrediction.job_id == job.id)) or 0
        reason, kept = withheld(job), dict(job.result or {})
        if reason:
            return AuditList(job.id, job.finished_at, n, (), reason, kept)
        rows = s.execute(
            select(ModelPrediction, Sample.external_id, Sample.parent_text, Sample.n_tokens,
                   GoldAnnotation.xi, GoldAnnotation.omega, GoldAnnotation.alpha, GoldAnnotation.decided_at)
            .join(Sample, Sample.id == ModelPrediction.sample_id)
            .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .where(ModelPrediction.job_id == job.id, ModelPrediction.score.is_not(None))
            .order_by(ModelPrediction.score.desc(), ModelPrediction.sample_id).limit(top)).all()
        ids = [r[0].sample_id for r in rows]
        items = dict(s.execute(select(ReviewItem.sample_id, ReviewItem.id)
                               .where(ReviewItem.sample_id.in_(ids), ReviewItem.status == "open")).all()) if ids else {}
        anns: dict[int, list] = {sid: [] for sid in ids}
        if ids:
            for a in s.scalars(select(Annotation).where(Annotation.sample_id.in_(ids), Annotation.status == "submitted")
                               .order_by(Annotation.submitted_at, Annotation.id)):
                anns[a.sample_id].append(annotation_content(a))
        figures = sample_figures([(r.n_tokens, anns[r[0].sample_id]) for r in rows])
        entries = []
        audited_at = job.started_at or job.created_at  # the audit read the gold when it started
        for rank, (r, fig) in enumerate(zip(rows, figures), 1):
            p = r[0]
            changed = r.xi is None or (r.decided_at is not None and audited_at is not None
                                       and r.decided_at > audited_at)
            gold = curve_of(r) or (float("nan"),) * 3
            entries.append(Disagreement(
                rank, p.sample_id, r.external_id, r.parent_text, gold, curve_of(p), p.gold_w1 or 0.0,
                p.expected_miss, p.score or 0.0, p.half_gone_minutes, (p.half_gone_low, p.half_gone_high), fig,
                items.get(p.sample_id), changed))
        return AuditList(job.id, job.finished_at, n, tuple(entries), "", kept)


@checks_numbers
def open_disagreement_case(db: Database, actor: Actor, sample_id: int) -> int:
    """Lead: open (or extend) the sample's review case with the reason "The model disagrees
    with the gold"; returns the review item's id for Review to open. Nothing else changes: the
    gold stays until the lead decides the case."""
    with db.write() as s:
        authorize(s, actor, Policy.MODEL_LOOP)
        smp = s.get(Sample, sample_id)
        if smp is None or smp.status != "active":
            raise NotFound("That sample is not in the project any more.")
        job, p = _latest_prediction(s, smp.project_id, AUDIT, sample_id)
        if p is None:
            raise InvalidInput(f"{smp.external_id} is not in the latest audit.")
        if reason := withheld(job):
            raise InvalidInput(f"The latest audit (job {job.id}) lists nothing: {reason}.")
        item = open_review(s, smp, [MODEL_DISAGREES], [{
            "code": MODEL_DISAGREES, "audit_job": job.id, "gold_w1": round(float(p.gold_w1 or 0.0), 3),
            "expected_miss": None if p.expected_miss is None else round(float(p.expected_miss), 3),
            "score": round(float(p.score or 0.0), 3)}])
        audit.record(s, actor.user_id, "open_model_case", "sample", smp.id, audit_job=job.id, item=item.id)
        return item.id


@dataclass(frozen=True)
class ModelCurve:
    """The latest applied model's curve for a sample (base-1.1 log minutes) and its spread."""

    job_id: int
    xi: float
    omega: float
    alpha: float
    spread_w1: float
    half_gone_interval: tuple[float, float]


@checks_numbers
def model_curve(db: Database, actor: Actor, sample_id: int) -> ModelCurve | None:
    """Lead: the latest applied model's prediction for the sample, or None (no applied model,
    or the sample came after it)."""
    with db.read() as s:
        authorize(s, actor, Policy.MODEL_LOOP)
        smp = s.get(Sample, sample_id)
        if smp is None:
            raise NotFound("No such sample.")
        job, p = _latest_prediction(s, smp.project_id, PREDICT, sample_id)
        if p is None:
            return None
        return ModelCurve(job.id, p.xi, p.omega, p.alpha, p.spread_w1, (p.half_gone_low, p.half_gone_high))


__all__ = ["AuditList", "Disagreement", "ModelCurve", "disagreements", "latest_job", "model_curve",
           "open_disagreement_case", "uncertain_order_withheld", "withheld"]
