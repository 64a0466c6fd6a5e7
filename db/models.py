"""ORM models. Persistence only: no business rules here (those live in annotation/services).

Every timestamp is stored as UTC and read back timezone-aware (:class:`db.types.UTCDateTime`), so
SQLite and PostgreSQL behave the same.
"""

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
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from db.types import UTCDateTime, utcnow  # noqa: F401 (utcnow: imported from here by the services)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


ROLES = ("annotator", "lead", "admin")


class User(Base):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint("role in ('annotator', 'lead', 'admin')", name="ck_users_role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(128), default="")
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    password_changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: per-user UI choices (e.g. the workbench layout); unknown keys are ignored by readers
    preferences: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")


class UserSession(Base):
    """One signed-in browser: the SHA-256 of its random token (the token itself lives only in
    the browser's cookie), valid until ``expires_at`` unless revoked (sign-out, password
    change, deactivation)."""

    __tablename__ = "user_sessions"
    __table_args__ = (
        UniqueConstraint("token_hash", name="uq_user_sessions_token_hash"),
        Index("ix_user_sessions_user_id", "user_id"),
        Index("ix_user_sessions_expires_at", "expires_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    revoked_reason: Mapped[str] = mapped_column(String(32), default="", server_default="")
    user_agent: Mapped[str] = mapped_column(String(255), default="", server_default="")


class LoginAttempt(Base):
    """One sign-in attempt (a pending one is stored as failed); the throttle counts recent
    failures per username, per client address, per both and overall in the database, so it
    holds across several app servers. ``address`` is "" when the client's is unknown."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_username_at", "username", "at"),
        Index("ix_login_attempts_address_at", "address", "at"),
        Index("ix_login_attempts_at", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(64), default="", server_default="")
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    succeeded: Mapped[bool] = mapped_column(Boolean)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)


#: "duplicate": a lead confirmed it as a near-duplicate of an earlier text; out of the pool.
#: "importing": written by a large text import that has not finished yet (see ImportBatch);
#: out of the pool and of every count until the import publishes it, deleted if it fails.
SAMPLE_STATUSES = ("active", "discarded", "duplicate", "importing")


class Sample(Base):
    """One text to annotate. ``n_assigned`` counts its assignments so that handing a sample to
    its k-th annotator is one atomic conditional UPDATE, safe under concurrency."""

    __tablename__ = "samples"
    __table_args__ = (
        UniqueConstraint("project_id", "external_id", name="uq_samples_project_external"),
        CheckConstraint("benchmark in (1, 2)", name="ck_samples_benchmark"),
        Index("ix_samples_pool", "project_id", "status", "n_assigned", "id"),
        # the queue asks on every call whether the project has warm-up samples
        Index("ix_samples_warmup", "project_id", "is_warmup"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    benchmark: Mapped[int] = mapped_column(SmallInteger)
    parent_text: Mapped[str] = mapped_column(Text)
    n_tokens: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active")
    n_assigned: Mapped[int] = mapped_column(Integer, default=0)
    is_warmup: Mapped[bool] = mapped_column(Boolean, default=False)
    source: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


#: "running": rows are being written (hidden); "publishing": complete — the commit point, made
#: visible in short steps; "published": done.
IMPORT_BATCH_STATUSES = ("running", "publishing", "published")


class ImportBatch(Base):
    """A large text import, written in short transactions and made visible at the end.

    ``open_project_id`` is the project while the import is unfinished and NULL afterwards: its
    unique constraint allows one unfinished import per project. ``heartbeat_at`` moves with each
    batch, so an import whose process died is recognised and cleaned up (rolled back while
    running, finished while publishing) by the next import."""

    __tablename__ = "import_batches"
    __table_args__ = (
        UniqueConstraint("open_project_id", name="uq_import_batches_open_project"),
        CheckConstraint("status in ('running', 'publishing', 'published')", name="ck_import_batches_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    open_project_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="running")
    source: Mapped[str] = mapped_column(String(255), default="")
    added: Mapped[int] = mapped_column(Integer, default=0)
    #: the import created its project (``--project NEW``): rolling it back removes the project
    creates_project: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class StagedAnnotation(Base):
    """An annotation of an unfinished annotation import, hidden from every reader until the
    import publishes it (copied into ``annotations`` in short transactions, then deleted here).
    Its annotator is named, not referenced: accounts the import creates exist only from its
    commit point on. Deleting the import's batch row discards what it staged."""

    __tablename__ = "staged_annotations"
    __table_args__ = (Index("ix_staged_annotations_batch", "batch_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    batch_id: Mapped[int] = mapped_column(ForeignKey("import_batches.id", ondelete="CASCADE"))
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    annotator: Mapped[str] = mapped_column(String(64))
    boundaries: Mapped[list[Any]] = mapped_column(JSON, default=list)
    segment_axes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    points: Mapped[list[Any]] = mapped_column(JSON, default=list)
    xi: Mapped[float | None] = mapped_column(Float, nullable=True)
    omega: Mapped[float | None] = mapped_column(Float, nullable=True)
    alpha: Mapped[float | None] = mapped_column(Float, nullable=True)
    scale: Mapped[float | None] = mapped_column(Float, nullable=True)
    rmse: Mapped[float | None] = mapped_column(Float, nullable=True)
    params_source: Mapped[str] = mapped_column(String(16), default="fit")
    flags: Mapped[list[Any]] = mapped_column(JSON, default=list)
    note: Mapped[str] = mapped_column(Text, default="")
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Assignment(Base):
    """Sample handed to one annotator; ``slot`` is 1 for the first annotator, 2 for the second…"""

    __tablename__ = "assignments"
    __table_args__ = (
        UniqueConstraint("sample_id", "user_id", name="uq_assignments_sample_user"),
        Index("ix_assignments_user", "user_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    slot: Mapped[int] = mapped_column(Integer)
    assigned_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Annotation(Base):
    """One annotator's annotation of one sample: a draft until submitted, then immutable for
    the annotator. ``version`` increases on every write (optimistic concurrency)."""

    __tablename__ = "annotations"
    __table_args__ = (
        UniqueConstraint("sample_id", "annotator_id", name="uq_annotations_sample_annotator"),
        CheckConstraint("status in ('draft', 'submitted')", name="ck_annotations_status"),
        Index("ix_annotations_annotator_submitted", "annotator_id", "submitted_at"),
        Index("ix_annotations_sample_status", "sample_id", "status"),
        # the annotator's own counters (queue_status) read only this index
        Index("ix_annotations_annotator_status", "annotator_id", "status", "sample_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(String(16), default="draft")
    version: Mapped[int] = mapped_column(Integer, default=1)
    step: Mapped[int] = mapped_column(SmallInteger, default=0)
    boundaries: Mapped[list[Any]] = mapped_column(JSON, default=list)
    segment_axes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    points: Mapped[list[Any]] = mapped_column(JSON, default=list)
    xi: Mapped[float | None] = mapped_column(Float, nullable=True)
    omega: Mapped[float | None] = mapped_column(Float, nullable=True)
    alpha: Mapped[float | None] = mapped_column(Float, nullable=True)
    scale: Mapped[float | None] = mapped_column(Float, nullable=True)
    rmse: Mapped[float | None] = mapped_column(Float, nullable=True)
    params_source: Mapped[str] = mapped_column(String(16), default="fit")
    flags: Mapped[list[Any]] = mapped_column(JSON, default=list)
    note: Mapped[str] = mapped_column(Text, default="")
    guidelines_version: Mapped[str] = mapped_column(String(32), default="")
    seconds_spent: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    #: the lead's message when they sent the annotation back to its annotator
    returned_note: Mapped[str] = mapped_column(Text, default="")
    #: the workbench surface (one id per opened sample in one browser tab) that last wrote the
    #: draft, and the sequence number of its last applied edit event: a re-sent event is
    #: applied once only, even after a reconnect or a server restart
    event_client: Mapped[str] = mapped_column(String(64), default="", server_default="")
    event_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: a gold check (``annotation.services.gold_checks``): handed to an admitted annotator from
    #: the warm-up set like production work, scored against gold, never counted, flagged,
    #: settled, exported or in agreement (``annotation.gold_checks`` has the rules)
    is_gold_check: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class GoldAnnotation(Base):
    """The settled values of one sample: the automatic resolution, a lead's decision, or the
    lead-made gold of a warm-up sample. ``segment_axes`` holds a list of axes per segment (a
    union can give a segment several)."""

    __tablename__ = "gold_annotations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"), unique=True)
    boundaries: Mapped[list[Any]] = mapped_column(JSON, default=list)
    segment_axes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    xi: Mapped[float] = mapped_column(Float)
    omega: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(32))
    source_annotation_id: Mapped[int | None] = mapped_column(ForeignKey("annotations.id"), nullable=True)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    note: Mapped[str] = mapped_column(Text, default="")
    # the lead's confidence (1-5) and error type of the decision that stored it (None / "" for
    # automatic gold)
    confidence: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    error_type: Mapped[str] = mapped_column(String(32), default="", server_default="")


class ReviewItem(Base):
    """A sample in the lead's review queue, with why it is there and how it was settled."""

    __tablename__ = "review_items"
    __table_args__ = (
        CheckConstraint("status in ('open', 'closed')", name="ck_review_items_status"),
        Index("ix_review_items_status", "status", "opened_at"),
        Index("ix_review_items_sample", "sample_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"))
    reasons: Mapped[list[Any]] = mapped_column(JSON, default=list)
    details: Mapped[list[Any]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    decision: Mapped[str] = mapped_column(String(32), default="")
    note: Mapped[str] = mapped_column(Text, default="")
    # recorded with every decision: the lead's confidence (1-5) and error type
    confidence: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    error_type: Mapped[str] = mapped_column(String(32), default="", server_default="")


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
