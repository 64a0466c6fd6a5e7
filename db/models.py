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
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base
from db.types import UTCDateTime, utcnow  # utcnow: imported from here by the services


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
        # the third annotator's hand-out: the few complete samples asked for one more
        Index("ix_samples_extra", "project_id", "status", "n_assigned", "extra_annotators"),
        # the queue asks on every call whether the project has warm-up samples
        Index("ix_samples_warmup", "project_id", "is_warmup"),
        Index("ix_samples_import_batch", "import_batch_id", "status", "id"),  # its hidden rows, by id
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
    #: the batched import that wrote the row, so that publishing or rolling it back touches its
    #: own rows only (NULL: written otherwise). No foreign key: adding one rebuilds the table on
    #: SQLite, and a batch row is deleted only once its rows are.
    import_batch_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: a known outcome: minutes after the text at which its statement stopped holding (NULL:
    #: unknown), imported with the text; a seed of the annotators' calibration
    realised_minutes: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: annotators asked beyond the project's k (a flagged or uncertain sample's third annotator)
    extra_annotators: Mapped[int] = mapped_column(SmallInteger, default=0, server_default="0")


class SamplePair(Base):
    """What makes a sample of a context-pairs project a pair: its target (the sample's
    ``parent_text``) is read with this follow-up. ``target_key`` groups the follow-ups of one
    target (the export keeps them in one split). ``reference_*`` are an imported release's own
    labels (TVCP class indices 0–11, a change label), shown to leads and compared with, never
    shown to annotators. An authored follow-up records its author, the target sample it was
    written for and the change its author intended (annotators never see it), with the author's own curve."""

    __tablename__ = "sample_pairs"
    __table_args__ = (Index("ix_sample_pairs_target", "target_key"),
                      Index("ix_sample_pairs_author", "authored_by"))

    sample_id: Mapped[int] = mapped_column(ForeignKey("samples.id", ondelete="CASCADE"), primary_key=True)
    target_key: Mapped[str] = mapped_column(String(64))
    follow_up: Mapped[str] = mapped_column(Text)
    reference_alone: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    reference_given: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    reference_change: Mapped[str] = mapped_column(String(16), default="", server_default="")
    intended_change: Mapped[str] = mapped_column(String(16), default="", server_default="")
    authored_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    authored_from: Mapped[int | None] = mapped_column(ForeignKey("samples.id", ondelete="SET NULL"), nullable=True)
    authored_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    #: the author's own curve of the target given their follow-up (base-1.1 log minutes)
    authored_xi: Mapped[float | None] = mapped_column(Float, nullable=True)
    authored_omega: Mapped[float | None] = mapped_column(Float, nullable=True)
    authored_alpha: Mapped[float | None] = mapped_column(Float, nullable=True)


#: "running": rows are being written (hidden); "publishing": complete — the commit point, made
#: visible in short steps; "published": done.
IMPORT_BATCH_STATUSES = ("running", "publishing", "published")


class ImportBatch(Base):
    """A large text import, written in short transactions and made visible at the end.

    ``open_project_id`` is the project while the import is unfinished and NULL afterwards: its
    unique constraint allows one unfinished import per project. Its samples carry its id, which
    is never handed out again. ``heartbeat_at`` moves with each batch, so an import whose process
    died is recognised and cleaned up (rolled back while running, finished while publishing) by
    the next import: at once when process ``pid`` is gone where ``host`` says it ran, else once
    the heartbeat is stale."""

    __tablename__ = "import_batches"
    __table_args__ = (
        UniqueConstraint("open_project_id", name="uq_import_batches_open_project"),
        CheckConstraint("status in ('running', 'publishing', 'published')", name="ck_import_batches_status"),
        {"sqlite_autoincrement": True},  # SQLite would hand a deleted highest id out again
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
    #: the writing process: where its id means one (:func:`annotation.leftovers.pid_scope`) and
    #: the id ("" and None for an import recorded before writers were)
    host: Mapped[str] = mapped_column(String(255), default="", server_default="")
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)


class WorkColumns:
    """The columns of an annotator's work (``annotation.services.rows.CONTENT_COLUMNS``): the
    segmentation, the points and the curve fitted to them, the flags and the note, and what only
    a context pair fills: the curve of the target given the follow-up (empty for single texts)
    and the change label the annotator chose instead of the derived one ("": the derived).
    Shared by ``annotations`` and ``staged_annotations``, so an import stages what it publishes.
    (The database's column order is the migrations'; the models' order does not matter.)"""

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

    context_points: Mapped[list[Any]] = mapped_column(JSON, default=list, server_default="[]")
    context_xi: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_omega: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_alpha: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_scale: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_rmse: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_params_source: Mapped[str] = mapped_column(String(16), default="fit", server_default="fit")
    change: Mapped[str] = mapped_column(String(16), default="", server_default="")


class StagedAnnotation(WorkColumns, Base):
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


class Annotation(WorkColumns, Base):
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
    #: a gold check (``annotation.services.quality.gold_checks``): handed to an admitted annotator from
    #: the warm-up set like production work, scored against gold, never counted, flagged,
    #: settled, exported or in agreement (``annotation.quality.gold_checks`` has the rules)
    is_gold_check: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class GoldAnnotation(Base):
    """The settled values of one sample: the automatic resolution, a lead's decision, or the
    lead-made gold of a warm-up sample. ``segment_axes`` holds a list of axes per segment: one
    from review and settling; gold stored before that rule, or a warm-up gold, may hold several."""

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
    #: a context pair's gold: the curve of the target given the follow-up and the change label
    context_xi: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_omega: Mapped[float | None] = mapped_column(Float, nullable=True)
    context_alpha: Mapped[float | None] = mapped_column(Float, nullable=True)
    change: Mapped[str] = mapped_column(String(16), default="", server_default="")
    #: the label the gold curves give when a lead's change label overrides it ("" otherwise)
    curves_change: Mapped[str] = mapped_column(String(16), default="", server_default="")
    #: which rule pooled the annotators' curves ("equal", "calibration", "model"; "" for a lead's
    #: or a warm-up gold) and each annotation's weight in it ({annotation id: weight}; NULL: none)
    pooling: Mapped[str] = mapped_column(String(16), default="", server_default="")
    pool_weights: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


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


# The back office's tables (db/models_backoffice.py), importable from here like every model.
from db.models_backoffice import (  # noqa: E402
    ParameterStats,
    ReviewDay,
    DUPLICATE_STATUSES,
    JOB_STATUSES,
    AuditEvent,
    DatasetExport,
    GoldCheck,
    GoldCheckPause,
    Job,
    ModelPrediction,
    NearDuplicate,
    Qualification,
    TextEmbedding,
)

__all__ = [
    "Base",
    "UTCDateTime",
    "utcnow",
    "User",
    "UserSession",
    "LoginAttempt",
    "Project",
    "Sample",
    "ImportBatch",
    "StagedAnnotation",
    "Assignment",
    "Annotation",
    "GoldAnnotation",
    "ReviewItem",
    "ParameterStats",
    "ReviewDay",
    "ROLES",
    "SAMPLE_STATUSES",
    "IMPORT_BATCH_STATUSES",
    "DUPLICATE_STATUSES",
    "JOB_STATUSES",
    "AuditEvent",
    "DatasetExport",
    "GoldCheck",
    "GoldCheckPause",
    "Job",
    "ModelPrediction",
    "NearDuplicate",
    "Qualification",
    "TextEmbedding",
]
