"""The trained model back in the loop: jobs that apply a finished training run to its project.

Two kinds of job, launched by a lead (Training page, ``chronocept predict`` / ``chronocept audit``)
and run by the same worker as training (``chronocept run-job``: a local process or a GPU host),
never on a web request:

* ``predict`` — the run's best model (by validation NLL) as an ensemble of K members, each fitted
  on a bootstrap resample of the run's training split, predicts ξ, ω, α for *every* active sample
  of the project (texts not yet annotated included). Before that, the training split is
  cross-fitted in ``folds`` folds: whether the model beats the trivial reference (the other
  folds' mean curve) on an interval, and its calibration
  (:mod:`annotation.training.calibration`): each sample's expected miss (the calibrated
  uncertainty the queue's "most uncertain first" order reads) and a conformal interval on the
  half-gone time, with its coverage on held-out folds.
* ``audit`` — cross-fitted predictions for the project's gold: the gold is split into folds, an
  ensemble fitted on the other folds predicts each, so no gold sample is judged by a model that
  saw it; each gold sample gets the W1 from the gold curve to the model's and the audit score
  (:func:`annotation.training.audit.audit_scores`), and the job the same cross-validation and
  calibration. Review's "Model disagrees" list reads the latest such job.

Both are shown and used only when the model earns its place: :mod:`.model_loop` offers the list
and the order only for a job whose cross-validation beats the reference, and says why otherwise.

A run is refused with the reason when its training job is not a finished training of this
project, its export belongs to another project, or its folder or models are missing. A run
trained outside the back office (``chronocept train EXPORT``) becomes such a job when the
database holds its export (:func:`record_training_run`): a finished training job of the export's
project, applied and shown like one the back office launched. The
predictions are computed before any write and stored in short chunked inserts
(:class:`db.models.ModelPrediction`) under the job's id; they are read only once the job has
succeeded, so the job's one final ``UPDATE`` publishes them all at once, and a job that does not
succeed leaves none behind (:mod:`annotation.services.jobs.job_reporter`). Targets are stored in base 1.1 (an export's base is
converted on the way in). Both kinds are run by :func:`run_model_job`, which this module
registers with :mod:`annotation.services.jobs.jobs` as it loads (``jobs.RUNNERS``).
"""

from __future__ import annotations

import math
import os
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import func, insert, select

from annotation.curves.distance import curve_distances
from annotation.services import audit
from annotation.services.jobs import jobs
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.export.export_reads import production
from annotation.services.jobs.job_reporter import JobReporter, run_reported
from annotation.services.number_limits import checks_numbers
from annotation.timeaxis import DEFAULT_BASE, convert_base
from db.engine import Database
from db.models import DatasetExport, GoldAnnotation, Job, ModelPrediction, Sample, utcnow

PREDICT = "predict"
AUDIT = "audit"
MODEL_KINDS = (PREDICT, AUDIT)
#: Ensemble members (the issue's default) and the bounds a lead may choose from.
DEFAULT_MEMBERS, MIN_MEMBERS, MAX_MEMBERS = 5, 2, 20
DEFAULT_FOLDS, MIN_FOLDS, MAX_FOLDS = 5, 2, 10
#: Fewest gold samples an audit cross-fits (each fold must leave a training set behind).
MIN_AUDIT_GOLD = 20
#: Rows per INSERT of the stored predictions (one short write each).
WRITE_CHUNK = 2_000


def _bounded(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"The number of {name} must be a whole number from {low} to {high}.")
    return value


def check_run(s: Any, project_id: int, run_job_id: int, *, files: bool = True) -> tuple[Job, DatasetExport]:
    """The finished training job ``run_job_id`` of this project and its export, or
    :class:`InvalidInput` / :class:`NotFound` saying why it cannot be applied (``files``: also
    that its models are on disk — looked at in a read, never under the write lock)."""
    run = s.get(Job, run_job_id)
    if run is None or run.kind != jobs.TRAINING:
        raise NotFound(f"There is no training run {run_job_id}.")
    if run.project_id != project_id:
        raise InvalidInput(f"Training run {run_job_id} belongs to another project.")
    if run.status != "succeeded":
        raise InvalidInput(f"Training run {run_job_id} is {run.status}; only a finished run can be applied.")
    export = s.get(DatasetExport, run.export_id) if run.export_id is not None else None
    if export is None or export.project_id != project_id:
        raise InvalidInput(f"The export of training run {run_job_id} belongs to another project.")
    models = Path(run.run_dir) / "models"
    if files and (not models.is_dir() or not any(models.iterdir())):
        raise InvalidInput(f"The models of training run {run_job_id} are missing ({models}).")
    return run, export


@checks_numbers
def launch_model_job(db: Database, actor: Actor, project_id: int, run_job_id: int, kind: str, *,
                     members: int = DEFAULT_MEMBERS, folds: int = DEFAULT_FOLDS, seed: int = 0,
                     launcher: str | None = None, start: bool = True):  # type: ignore[no-untyped-def]
    """Lead: queue a ``predict`` or ``audit`` job of a finished training run and start its
    worker (``start=False`` only queues: tests, the CLI running it in-process)."""
    if kind not in MODEL_KINDS:
        raise InvalidInput(f"Unknown kind of model job {kind!r}.")
    members = _bounded("ensemble members", members, MIN_MEMBERS, MAX_MEMBERS)
    folds = _bounded("folds", folds, MIN_FOLDS, MAX_FOLDS)
    launcher = jobs.launcher_command() if launcher is None else launcher.strip()
    if launcher:
        jobs.check_launcher(launcher)
    with db.read() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        check_run(s, project_id, run_job_id)  # the disk looked at with no lock held
    with db.write() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        run, export = check_run(s, project_id, run_job_id, files=False)
        if kind == AUDIT:
            n_gold = s.scalar(select(func.count()).select_from(GoldAnnotation)
                              .join(Sample, Sample.id == GoldAnnotation.sample_id)
                              .where(*production(project_id))) or 0
            if n_gold < max(MIN_AUDIT_GOLD, folds * 2):
                raise InvalidInput(f"An audit needs at least {max(MIN_AUDIT_GOLD, folds * 2)} gold samples "
                                   f"to cross-fit in {folds} folds; this project has {n_gold}.")
        job = Job(project_id=project_id, kind=kind, export_id=export.id,
                  config={"run_job_id": run.id, "run_dir": run.run_dir, "members": members, "folds": folds,
                          "seed": seed},
                  status="queued", launcher=launcher, created_by=actor.user_id,
                  message="Waiting for the worker to start…")
        s.add(job)
        s.flush()
        job.run_dir = str(jobs.runs_root() / f"job-{job.id}")  # its own folder: the worker's log
        audit.record(s, actor.user_id, "launch_job", "job", job.id, kind=kind, run=run.id, members=members)
        job_id = job.id
    if start:
        jobs.start_worker_or_fail(db, job_id, launcher)
    return jobs.get_job(db, actor, job_id)


@checks_numbers
def record_training_run(db: Database, actor: Actor, export_id: int, export_created_at: str,
                        run_dir: str | Path, config: dict[str, Any], result: dict[str, Any],
                        seconds: float, message: str) -> jobs.JobInfo:
    """Lead: record a finished run trained outside the back office (``chronocept train``) on
    export ``export_id`` as a finished training job of that export's project, so ``predict`` and
    ``audit`` accept its folder. The export is named as its manifest names it — id and creation
    time (``YYYY-MM-DDTHH:MM:SSZ``) — so an export of another database that happens to have the
    same id is not taken for it. ``config``: the run's :class:`~annotation.training.TrainingConfig`
    as a dict; ``result``: what a job keeps of its results
    (:func:`annotation.training.predictions.stored_result`). Called by the process that trained
    the run, whose host and process id the job names, as a worker's would. Refused, saying why,
    when the database holds no such export, the export is not complete, or the run has no models."""
    run_dir = Path(run_dir).resolve()
    models = run_dir / "models"
    if not models.is_dir() or not any(models.iterdir()):  # the disk looked at with no lock held
        raise InvalidInput(f"The run folder {run_dir} holds no models.")
    finished = utcnow()
    with db.write() as s:
        authorize(s, actor, Policy.JOBS_RUN)
        export = s.get(DatasetExport, export_id)
        if export is None or _utc_second(export.created_at) != export_created_at:
            raise NotFound(f"This database holds no export {export_id} made at {export_created_at}.")
        if export.status != "complete":
            raise InvalidInput(f"Export {export_id} of this database is {export.status}, not complete.")
        job = Job(project_id=export.project_id, kind=jobs.TRAINING, export_id=export.id, config=dict(config),
                  status="succeeded", progress=1.0, message=message, result=result, run_dir=str(run_dir),
                  host=socket.gethostname(), pid=os.getpid(), created_by=actor.user_id,
                  started_at=finished - timedelta(seconds=max(float(seconds), 0.0)), heartbeat_at=finished,
                  finished_at=finished)
        s.add(job)
        s.flush()
        audit.record(s, actor.user_id, "record_training_run", "job", job.id, export=export.id,
                     models=list(config.get("models", ())), run_dir=str(run_dir))
        job_id = job.id
    return jobs.get_job(db, actor, job_id)


def _utc_second(moment: datetime) -> str:
    """``moment`` as an export's manifest writes its creation time."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _to_base_11(targets: np.ndarray, base: float) -> np.ndarray:
    out = np.array(targets, dtype=float).reshape(-1, 3)
    if abs(base - DEFAULT_BASE) > 1e-12:
        for i, (xi, omega, alpha) in enumerate(out):
            out[i] = convert_base(xi, omega, alpha, from_base=base, to_base=DEFAULT_BASE)
    return out


def _or_inf(value: float) -> float:
    """A figure with no finite value (a curve off the axis, half its validity never gone) as
    +inf: the same on both databases (SQLite stores NaN as NULL; PostgreSQL sorts NaN first)."""
    return float(value) if math.isfinite(value) else math.inf


def _or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _rows(job_id: int, sample_ids: list[int], prediction: Any, gold: np.ndarray | None,
          scores: np.ndarray | None, miss: np.ndarray | None, band: np.ndarray | None) -> list[dict[str, Any]]:
    """One row per sample; ``band`` the calibrated half-gone interval (minutes), else the
    members' smallest and largest half-gone time (too few samples to calibrate)."""
    mean = np.asarray(prediction.mean, dtype=float)
    gold_w1 = None if gold is None else curve_distances(gold, mean)[0]
    low_high = np.asarray(prediction.half_gone_interval if band is None else band, dtype=float)
    return [{"job_id": job_id, "sample_id": sid, "xi": float(mean[i, 0]), "omega": float(mean[i, 1]),
             "alpha": float(mean[i, 2]), "spread_w1": _or_inf(prediction.spread_w1[i]),
             "half_gone_minutes": _or_inf(prediction.half_gone[i]), "half_gone_low": _or_inf(low_high[i, 0]),
             "half_gone_high": _or_inf(low_high[i, 1]),
             "gold_w1": None if gold_w1 is None else _or_none(gold_w1[i]),
             "score": None if scores is None else _or_none(scores[i]),  # an unscorable sample: not listed
             "expected_miss": None if miss is None else _or_none(miss[i])}
            for i, sid in enumerate(sample_ids)]


def _store(db: Database, rows: list[dict[str, Any]]) -> None:
    for at in range(0, len(rows), WRITE_CHUNK):
        with db.write() as s:
            s.execute(insert(ModelPrediction.__table__), rows[at:at + WRITE_CHUNK])


def _calibrated(targets: np.ndarray, crossed: Any, seed: int) -> tuple[Any, Any]:
    """The :class:`~annotation.training.calibration.Calibration` of a cross-fitting and the
    expected-miss model fitted on all its residuals."""
    from annotation.training.calibration import calibrate, fit_expected_miss

    calibration, _ = calibrate(targets, crossed.prediction.mean, crossed.fold_of, seed=seed)
    return calibration, fit_expected_miss(crossed.prediction.mean, targets, seed=seed)


def _compute(db: Database, job: dict[str, Any], reporter: JobReporter) -> tuple[list[dict[str, Any]], str, dict]:
    """Read, then fit and predict (no transaction open): the rows to store, a summary and what
    the job's result keeps (the cross-validation against the trivial reference, the calibration)."""
    from annotation.training.audit import audit_scores, cross_fitted_blocks
    from annotation.training.calibration import calibrate, half_gone_band
    from annotation.training.data import load_split_records
    from annotation.training.ensemble import best_model_of_run, encoder_named, fit_ensemble_blocks, text_blocks
    from annotation.training.device import resolve_device

    spec = best_model_of_run(job["config"]["run_dir"])
    device = resolve_device("auto")
    members, seed, project_id = job["config"]["members"], job["config"].get("seed", 0), job["project_id"]
    folds = job["config"]["folds"]
    reporter.log(f"best model of the run by validation NLL: {spec.model} ({spec.encoder}), {members} members on {device}")
    encoder = encoder_named(spec.encoder, device)
    if job["kind"] == PREDICT:
        benchmark = int(job.get("benchmark") or 1)
        train = load_split_records(job["export_path"], benchmark, min_samples=1)["train"]
        targets = _to_base_11(np.array([t.targets for t in train], dtype=float), job["export_base"])
        with db.read() as s:
            pool = s.execute(select(Sample.id, Sample.parent_text)
                             .where(Sample.project_id == project_id, Sample.status == "active")
                             .order_by(Sample.id)).all()
        reporter.progress(0.02, f"Embedding {len(train)} training texts…")
        blocks = text_blocks([t.parent_text for t in train], encoder)
        calibration = miss_model = None
        if len(train) >= folds * 2:
            reporter.progress(0.05, f"Cross-validating on {len(train)} training samples in {folds} folds…")
            crossed = cross_fitted_blocks(blocks, targets, folds=folds, spec=spec, encoder=encoder, k=members,
                                          seed=seed, device=device, should_stop=reporter.should_stop,
                                          progress=lambda f, m: reporter.progress(0.05 + 0.45 * f, m))
            calibration, miss_model = _calibrated(targets, crossed, seed)
        reporter.progress(0.5, f"Fitting {members} members on {len(train)} training samples…")
        ensemble = fit_ensemble_blocks(blocks, targets, spec=spec, encoder=encoder, k=members, seed=seed,
                                       device=device, should_stop=reporter.should_stop,
                                       progress=lambda f, m: reporter.progress(0.5 + 0.3 * f, m))
        reporter.progress(0.8, f"Predicting {len(pool)} samples…")
        prediction = ensemble.predict([r.parent_text for r in pool])
        miss = None if miss_model is None else miss_model.predict(prediction.mean)
        band = None if miss is None else half_gone_band(prediction.mean, miss, calibration.quantile)
        rows = _rows(job["id"], [r.id for r in pool], prediction, None, None, miss, band)
        return rows, f"Predicted {len(rows)} samples with {members} members ({spec.model}).", \
            _kept(calibration, len(train), folds)
    with db.read() as s:
        gold = s.execute(select(Sample.id, Sample.parent_text, GoldAnnotation.xi, GoldAnnotation.omega,
                                GoldAnnotation.alpha)
                         .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
                         .where(*production(project_id)).order_by(Sample.id)).all()
    params = np.array([[g.xi, g.omega, g.alpha] for g in gold], dtype=float)
    reporter.progress(0.02, f"Embedding {len(gold)} gold texts…")
    blocks = text_blocks([g.parent_text for g in gold], encoder)
    reporter.progress(0.05, f"Cross-fitting {len(gold)} gold samples in {folds} folds…")
    crossed = cross_fitted_blocks(blocks, params, folds=folds, spec=spec, encoder=encoder, k=members, seed=seed,
                                  device=device, should_stop=reporter.should_stop,
                                  progress=lambda f, m: reporter.progress(0.05 + 0.9 * f, m))
    calibration, miss = calibrate(params, crossed.prediction.mean, crossed.fold_of, seed=seed)
    scores = audit_scores(params, crossed.prediction, crossed.fold_of, miss)
    band = half_gone_band(crossed.prediction.mean, miss, calibration.quantile)
    rows = _rows(job["id"], [g.id for g in gold], crossed.prediction, params, scores, miss, band)
    return rows, f"Audited {len(rows)} gold samples in {folds} folds with {members} members ({spec.model}).", \
        _kept(calibration, len(gold), folds)


def _kept(calibration: Any, n: int, folds: int) -> dict[str, Any]:
    """What the job's result keeps of its cross-validation (read by :mod:`.model_loop`'s gate)."""
    if calibration is None:
        return {"calibration": None, "cross_validated": n, "folds": folds}
    return {"calibration": calibration.to_dict(), "cross_validated": n, "folds": folds}


def run_model_job(db: Database, job_id: int) -> str:
    """Worker: run a claimed ``predict`` or ``audit`` job (``jobs.run_job`` has set it running)."""
    with db.read() as s:
        job = s.get(Job, job_id)
        export = s.get(DatasetExport, job.export_id)
        run = s.get(Job, (job.config or {}).get("run_job_id"))
        info = {"id": job.id, "kind": job.kind, "project_id": job.project_id, "config": dict(job.config),
                "run_dir": job.run_dir, "export_path": export.path, "export_base": export.base,
                "benchmark": (run.config or {}).get("benchmark") if run is not None else None}
    def work(reporter: JobReporter) -> tuple[str, dict[str, Any]]:
        rows, summary, kept = _compute(db, info, reporter)
        reporter.progress(0.97, f"Storing {len(rows)} predictions…")
        _store(db, rows)
        return summary, {"n": len(rows), **kept}

    return run_reported(db, job_id, work)


jobs.register_runner(PREDICT, run_model_job)
jobs.register_runner(AUDIT, run_model_job)


__all__ = ["AUDIT", "MODEL_KINDS", "PREDICT", "check_run", "launch_model_job", "record_training_run",
           "run_model_job"]
