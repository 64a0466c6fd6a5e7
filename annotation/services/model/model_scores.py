"""Scoring a model built elsewhere on an export's test split, and the export's leaderboard.

A lead uploads a predictions file for the test split of one benchmark of a complete export
(:mod:`annotation.training.submissions` says the format and what is refused). It is read, checked
and scored with no transaction open — the same metrics as the baselines, the mean W1 to the gold,
seeded bootstrap intervals (:mod:`annotation.training.scoring`) — then kept as one JSON document
in the export's folder (``EXPORT/scores/``) and the audit log records who scored what. A refused
file keeps nothing and records nothing.

There is no table of scores: the leaderboard of an export and benchmark is the kept documents
beside the baseline rows of the training jobs that ran on that export (their figures as the run
reported them: no intervals and no W1, which a run does not compute — score the run's
``predictions/<model>__<ablation>.csv`` to get them), best MSE first. A context-pairs export's
leaderboard (benchmark ``"tvcp"``) scores predicted change labels by accuracy and exact match, the
TVCP paper's metrics, best accuracy first; it has no baselines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from sqlalchemy import select

from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.export.export_records import REPLACED, get_export
from annotation.services.number_limits import checks_numbers
from annotation.training.errors import TrainingInputError
from annotation.wording import refusal
from annotation.training.predictions import prediction_key
from annotation.training.references import REFERENCE_LABELS
from annotation.training.results import METRIC_COLUMNS, UNDEFINED_REASONS
from annotation.training.change_scoring import CHANGE_METRICS, TVCP, score_tvcp_export
from annotation.training.scoring import SCORE_METRICS, Figure, ModelScore
from annotation.training.submissions import (
    PredictionFileError,
    check_name,
    read_submissions,
    score_export,
    submission_record,
    write_submission,
)
from db.engine import Database
from db.models import Job, User

SUBMISSION = "submission"
BASELINE = "baseline"
#: a trivial reference of the export's split (annotation.training.references), from a training run
REFERENCE = "reference"
#: why a baseline row shows no interval, and no W1
BASELINE_NO_INTERVAL = "training runs report no interval; score the run's predictions file for one"
BASELINE_NO_W1 = "training runs do not compute W1; score the run's predictions file for it"


@dataclass(frozen=True)
class LeaderboardEntry:
    """One row of a leaderboard: a kept submission or a baseline of a training job."""

    kind: str
    name: str
    by: str
    at: datetime | None
    figures: Mapping[str, Figure]
    n_test: int
    file_name: str = ""
    sha256: str = ""
    job_id: int | None = None
    model: str | None = None
    ablation: str | None = None


@dataclass(frozen=True)
class Leaderboard:
    """The entries of one export and benchmark, best MSE first (undefined last), and the kept
    documents that could not be read."""

    export_id: int
    benchmark: int | str
    entries: tuple[LeaderboardEntry, ...] = ()
    unreadable: tuple[str, ...] = field(default_factory=tuple)


def _export_folder(db: Database, actor: Actor, project_id: int, export_id: int) -> Path:
    """The folder of a complete export of the project that is still on this server."""
    record = get_export(db, actor, export_id)   # checks the lead role
    if record.project_id != project_id:
        raise NotFound(f"There is no export {export_id} in this project.")
    if record.status == REPLACED:
        raise InvalidInput(f"Export {export_id} was {record.status_text}; its folder holds another export.")
    if record.status != "complete":
        raise InvalidInput(f"Export {export_id} is not complete ({record.status_text}).")
    if not record.folder_exists:
        raise NotFound(f"The folder of export {export_id} ({record.path}) is no longer on this server; "
                       "repeat the export first.")
    return Path(record.path)


@checks_numbers
def score_submission(db: Database, actor: Actor, project_id: int, export_id: int, data: bytes,
                     file_name: str, name: str, benchmark: int | str = 1) -> LeaderboardEntry:
    """Lead: score a predictions file for the test split of ``benchmark`` of export ``export_id``
    and keep it on the export's leaderboard. ``benchmark`` ``"tvcp"``: change labels of a
    context-pairs export, scored by accuracy and exact match
    (:mod:`annotation.training.change_scoring`). A refused file (:class:`InvalidInput`, one line
    naming the line and the reason) keeps and records nothing."""
    folder = _export_folder(db, actor, project_id, export_id)
    try:
        name = check_name(name)
    except ValueError as exc:
        raise InvalidInput(f"The submission's name: {exc}.") from None
    try:   # compute with nothing locked: scoring a large split takes seconds
        scored = (score_tvcp_export(folder, data, file_name) if benchmark == TVCP else
                  score_export(folder, data, file_name, benchmark))  # type: ignore[arg-type]
    except PredictionFileError as exc:
        raise InvalidInput(refusal(f"{file_name}: {exc}", "Nothing was scored.")) from None
    except TrainingInputError as exc:
        raise InvalidInput(f"Export {export_id} cannot be scored on: {exc}") from None
    if scored.export_id != str(export_id):
        raise InvalidInput(f"The folder of export {export_id} holds export {scored.export_id}; "
                           "repeat the export first.")
    record = submission_record(scored, name=name, submitted_by=actor.username, file_name=file_name,
                               via="app", when=datetime.now(timezone.utc))
    path: Path | None = None
    try:
        with db.write() as s:
            authorize(s, actor, Policy.MODEL_LOOP)
            path = write_submission(folder, record)
            audit.record(s, actor.user_id, "score_predictions", "export", export_id,
                         benchmark=benchmark, kept=path.name, sha256=scored.sha256)
    except BaseException:
        if path is not None:   # the audit entry was not written: neither is the submission
            path.unlink(missing_ok=True)
        raise
    return _submission_entry({**record, "file": path.name})


def metrics_of(benchmark: int | str) -> tuple[str, ...]:
    """The figures a leaderboard of ``benchmark`` shows: change labels' or curves'."""
    return CHANGE_METRICS if benchmark == TVCP else SCORE_METRICS


def _submission_entry(record: Mapping[str, Any]) -> LeaderboardEntry:
    score = ModelScore.from_dict(record["score"])
    try:
        at: datetime | None = datetime.fromisoformat(str(record.get("submitted_at")))
    except ValueError:
        at = None
    return LeaderboardEntry(
        kind=SUBMISSION, name=str(record.get("name", "")), by=str(record.get("submitted_by", "")),
        at=at, figures={k: score.figures.get(k, Figure(math.nan, undefined="not in the kept document"))
                        for k in metrics_of(record.get("benchmark", 1))},
        n_test=score.n_test, file_name=str(record.get("file_name", "")),
        sha256=str(record.get("sha256", "")))


def baseline_figures(row: Mapping[str, Any]) -> dict[str, Figure]:
    """The figures of one baseline row of a training job's result: with their intervals and W1
    where the run scored them (issue 33), else as stored (a metric stored as null is undefined,
    with the reason training gives)."""
    stored = (row.get("score") or {}).get("figures") or {}
    if all(name in stored for name in SCORE_METRICS):
        return {name: Figure.from_dict(stored[name]) for name in SCORE_METRICS}
    figures = {}
    for name in METRIC_COLUMNS:
        value = row.get(name)
        if value is None:
            figures[name] = Figure(math.nan, undefined=UNDEFINED_REASONS.get(
                name, "cannot be computed on these samples"), no_interval=BASELINE_NO_INTERVAL)
        else:
            figures[name] = Figure(float(value), no_interval=BASELINE_NO_INTERVAL)
    figures["w1"] = Figure(math.nan, undefined=BASELINE_NO_W1, no_interval=BASELINE_NO_INTERVAL)
    return figures


def _sort_key(entry: LeaderboardEntry) -> tuple[bool, bool, float, float]:
    """Best first by the interval, not the point (issue 33): the upper end of the MSE interval
    (the lower end of the accuracy's for change labels); entries without an interval after those
    with one, by their value; undefined last."""
    when = entry.at.timestamp() if entry.at else 0.0
    if "accuracy" in entry.figures:   # change labels: best accuracy first
        f = entry.figures["accuracy"]
        if not math.isfinite(f.value):
            return (True, True, 0.0, when)
        return (False, not math.isfinite(f.low), -(f.low if math.isfinite(f.low) else f.value), when)
    f = entry.figures["mse"]
    if not math.isfinite(f.value):
        return (True, True, 0.0, when)
    return (False, not math.isfinite(f.high), f.high if math.isfinite(f.high) else f.value, when)


@checks_numbers
def leaderboard(db: Database, actor: Actor, project_id: int, export_id: int,
                benchmark: int | str = 1) -> Leaderboard:
    """Lead: the export's kept submissions for ``benchmark`` and the baselines of its succeeded
    training jobs on that benchmark, best MSE first; for ``"tvcp"`` (change labels: no baselines
    train on them) the kept submissions, best accuracy first."""
    folder = _export_folder(db, actor, project_id, export_id)
    if benchmark == TVCP:
        kept, unreadable = read_submissions(folder, str(export_id), TVCP)
        entries = [_submission_entry(record) for record in kept]
        return Leaderboard(export_id, benchmark, tuple(sorted(entries, key=_sort_key)), tuple(unreadable))
    with db.read() as s:
        rows = s.execute(select(Job, User.username).outerjoin(User, User.id == Job.created_by)
                         .where(Job.export_id == export_id, Job.status == "succeeded")
                         .order_by(Job.id)).all()
        jobs = [(job.id, dict(job.config or {}), dict(job.result or {}), job.finished_at, who)
                for job, who in rows]
    entries = []
    references = False
    for job_id, config, result, finished_at, who in jobs:
        if int(result.get("benchmark", config.get("benchmark", 1))) != benchmark:
            continue
        if not references and result.get("references"):   # the same split: one run's are everyone's
            references = True
            entries += [LeaderboardEntry(
                kind=REFERENCE, name=REFERENCE_LABELS.get(row["model"], row["model"]), by="—", at=finished_at,
                figures=baseline_figures(row), n_test=int(row.get("n_test") or 0), job_id=job_id,
                model=row["model"], ablation=row["ablation"]) for row in result["references"]]
        for row in result.get("rows") or []:
            entries.append(LeaderboardEntry(
                kind=BASELINE, name=f"{prediction_key(row['model'], row['ablation'])} (job {job_id})",
                by=who or "—", at=finished_at, figures=baseline_figures(row),
                n_test=int(row.get("n_test") or 0), job_id=job_id, model=row["model"],
                ablation=row["ablation"], file_name=str((row.get("artefacts") or {}).get("predictions", ""))))
    kept, unreadable = read_submissions(folder, str(export_id), benchmark)
    entries += [_submission_entry(record) for record in kept]
    return Leaderboard(export_id, benchmark, tuple(sorted(entries, key=_sort_key)), tuple(unreadable))
