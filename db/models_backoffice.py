"""ORM models of the back office: warm-up standing and gold checks, text embeddings and
near-duplicates, dataset exports, jobs and the audit log. Persistence only, like
:mod:`db.models` (which re-exports every model here, so ``from db.models import Job`` works)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base
from db.types import UTCDateTime, utcnow


class Qualification(Base):
    """An annotator's standing in a project: in warm-up until admitted to production, by passing
    the thresholds against gold or by a lead's decision."""

    __tablename__ = "qualifications"
    __table_args__ = (
        UniqueConstraint("project_id", "user_id", name="uq_qualifications_project_user"),
        CheckConstraint("status in ('warmup', 'admitted')", name="ck_qualifications_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(String(16), default="warmup")
    figures: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    overridden: Mapped[bool] = mapped_column(Boolean, default=False)


class GoldCheck(Base):
    """One submitted gold check scored against the sample's gold at submit: W1 (log-time
    units), Jaccard, Pk (None where undefined) and whether it passed (None: the sample had no
    gold at submit, so it is not judged)."""

    __tablename__ = "gold_checks"
    __table_args__ = (Index("ix_gold_checks_project_user", "project_id", "user_id", "scored_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    annotation_id: Mapped[int] = mapped_column(ForeignKey("annotations.id", ondelete="CASCADE"), unique=True)
    scored_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    w1: Mapped[float | None] = mapped_column(Float, nullable=True)
    jaccard: Mapped[float | None] = mapped_column(Float, nullable=True)
    pk: Mapped[float | None] = mapped_column(Float, nullable=True)
    passed: Mapped[bool | None] = mapped_column(Boolean, nullable=True)


class GoldCheckPause(Base):
    """An annotator paused from production by the gold-check rule; in force until a lead lifts
    it (``lifted_at``, ``lifted_by``, ``lift_note``). ``figures``: the window that paused them."""

    __tablename__ = "gold_check_pauses"
    __table_args__ = (Index("ix_gold_check_pauses_project_user", "project_id", "user_id", "lifted_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    paused_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    figures: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    lifted_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    lifted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    lift_note: Mapped[str] = mapped_column(Text, default="")


class TextEmbedding(Base):
    """The cached SBERT vector of one sample's text (float32 bytes), so a de-duplication
    re-run embeds only texts it has not seen. ``model`` names the encoder that made it."""

    __tablename__ = "text_embeddings"

    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"), primary_key=True)
    model: Mapped[str] = mapped_column(String(64))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


DUPLICATE_STATUSES = ("pending", "confirmed", "released")


class NearDuplicate(Base):
    """A text found too similar to an earlier kept text, and the lead's decision on it:
    ``pending`` (still in the pool), ``confirmed`` (out of the pool) or ``released`` (kept)."""

    __tablename__ = "near_duplicates"
    __table_args__ = (
        CheckConstraint("status in ('pending', 'confirmed', 'released')", name="ck_near_duplicates_status"),
        CheckConstraint("representation in ('sbert', 'tfidf', 'both')", name="ck_near_duplicates_representation"),
        Index("ix_near_duplicates_project_status", "project_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"), unique=True)
    duplicate_of_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    sbert_score: Mapped[float] = mapped_column(Float)
    tfidf_score: Mapped[float] = mapped_column(Float)
    representation: Mapped[str] = mapped_column(String(8))
    threshold: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    found_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class DatasetExport(Base):
    """One export of a project's gold as a HuggingFace dataset folder: who, when, with which
    settings and seed, and exactly which samples went to which split (so it can be repeated)."""

    __tablename__ = "dataset_exports"
    __table_args__ = (Index("ix_dataset_exports_project", "project_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    path: Mapped[str] = mapped_column(Text)
    base: Mapped[float] = mapped_column(Float)
    seed: Mapped[int] = mapped_column(Integer)
    licence: Mapped[str] = mapped_column(String(64))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: {"benchmark_1": {"train": [ids], "validation": [...], "test": [...]}, "benchmark_2": {...}}
    splits: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    reproduces_id: Mapped[int | None] = mapped_column(ForeignKey("dataset_exports.id"), nullable=True)
    #: "writing" while the folder is being built, then "complete" or "failed" (with ``error``)
    status: Mapped[str] = mapped_column(String(16), default="writing")
    error: Mapped[str] = mapped_column(Text, default="")
    #: moved every few seconds while writing (None: a row recorded before exports had one)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


JOB_STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")


class Job(Base):
    """A long task (baseline training) that runs in its own process and reports back here:
    progress, a log tail and results survive page reloads and app restarts."""

    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint("status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')",
                        name="ck_jobs_status"),
        Index("ix_jobs_project", "project_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    export_id: Mapped[int | None] = mapped_column(ForeignKey("dataset_exports.id"), nullable=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    message: Mapped[str] = mapped_column(Text, default="")
    log: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    run_dir: Mapped[str] = mapped_column(Text, default="")
    launcher: Mapped[str] = mapped_column(Text, default="")
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    host: Mapped[str] = mapped_column(String(255), default="")
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class ModelPrediction(Base):
    """What a job predicted for one sample: an applied training run (``jobs.kind`` ``predict``,
    every sample of the project) or a cross-fitted gold audit (``audit``, the gold samples, each
    predicted by models that never saw it; ``gold_w1`` and ``score`` set). The curve is the
    ensemble's (base-1.1 log minutes); ``spread_w1`` the mean W1 between its members' curves;
    ``expected_miss`` the calibrated uncertainty (the W1 by which the model usually misses a curve
    like this, learnt from its cross-fitted residuals; NULL for a job applied before it existed);
    ``half_gone_*`` the time (minutes) by which half the validity is gone, and its calibrated
    interval (:mod:`annotation.training.calibration`)."""

    __tablename__ = "model_predictions"
    __table_args__ = (
        UniqueConstraint("job_id", "sample_id", name="uq_model_predictions_job_sample"),
        Index("ix_model_predictions_spread", "job_id", "spread_w1"),
        Index("ix_model_predictions_score", "job_id", "score"),
        Index("ix_model_predictions_miss", "job_id", "expected_miss"),
        Index("ix_model_predictions_sample", "sample_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    xi: Mapped[float] = mapped_column(Float)
    omega: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    spread_w1: Mapped[float] = mapped_column(Float)
    half_gone_minutes: Mapped[float] = mapped_column(Float)
    half_gone_low: Mapped[float] = mapped_column(Float)
    half_gone_high: Mapped[float] = mapped_column(Float)
    gold_w1: Mapped[float | None] = mapped_column(Float, nullable=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    expected_miss: Mapped[float | None] = mapped_column(Float, nullable=True)


class AuditEvent(Base):
    """Who did what, when, to which entity — append-only."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_entity", "entity", "entity_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    action: Mapped[str] = mapped_column(String(64))
    entity: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ParameterStats(Base):
    """Running count, sum and sum of squares of ξ, ω, α over a project's submitted annotations,
    kept in step with every submit, so the 2σ flag needs no scan of the project."""

    __tablename__ = "parameter_stats"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, default=0)
    sum_xi: Mapped[float] = mapped_column(Float, default=0.0)
    sumsq_xi: Mapped[float] = mapped_column(Float, default=0.0)
    sum_omega: Mapped[float] = mapped_column(Float, default=0.0)
    sumsq_omega: Mapped[float] = mapped_column(Float, default=0.0)
    sum_alpha: Mapped[float] = mapped_column(Float, default=0.0)
    sumsq_alpha: Mapped[float] = mapped_column(Float, default=0.0)


class ReviewDay(Base):
    """Marks a calendar day whose daily review sample has been drawn (drawn once, reproducibly)."""

    __tablename__ = "review_days"
    __table_args__ = (UniqueConstraint("project_id", "day", name="uq_review_days_project_day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    day: Mapped[str] = mapped_column(String(10))  # ISO date in the project's time zone
    n_submitted: Mapped[int] = mapped_column(Integer, default=0)
    n_sampled: Mapped[int] = mapped_column(Integer, default=0)
    drawn_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
