"""``chronocept predict`` and ``chronocept audit``: a finished training run applied to its project;
``chronocept jobs``: the project's background jobs.

* ``predict RUN_DIR`` — the run's best model as an ensemble predicts every sample of the project
  (the queue's "most uncertain first" order reads the latest such job); run here, in this process.
* ``audit [--run RUN_DIR] [--top N] [--json]`` — with ``--run``, cross-fits a new audit of the gold
  first; then prints the latest audit's most suspicious gold samples, most suspicious first (the
  list Review shows under "Model disagrees").
* ``jobs`` — the project's jobs (training, predict, audit), newest first, as the Training page
  lists them: a job whose worker died reads as failed, with the reason, without anyone opening it.

``predict`` and ``audit`` take the run folder of a training job of the project: one the back
office launched, or one ``chronocept train EXPORT --run-dir RUN`` recorded
(:func:`record_training_run`) because the database holds the export it trained on. ``train`` itself needs no database: where none holds its
export, the run is trained and not recorded, and ``predict`` says what is missing.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from cli.acting import acting_user, named_project_id
from cli.database import database_failure, open_database
from cli.output import CliError
from db.engine import Database, database_url


def _run_job_id(db: Database, actor, project_id: int, run_dir: str) -> int:  # type: ignore[no-untyped-def]
    """The training job of this project whose run folder is ``run_dir``; else the reason, naming
    what is missing."""
    from annotation.services.jobs import jobs
    from annotation.training.results import RunFolderError, load_run

    wanted = Path(run_dir).resolve()
    for job in jobs.list_jobs(db, actor, project_id):
        if job.kind == jobs.TRAINING and job.run_dir and Path(job.run_dir).resolve() == wanted:
            return job.id
    try:
        trained_on = load_run(wanted).export_id
    except RunFolderError as exc:
        raise CliError(f"{run_dir} is not the folder of a training run of this project: {exc}") from None
    raise CliError(f"{run_dir} is not the folder of a training run of this project: no training job of it "
                   f"has that folder. It was trained on export {trained_on}; `chronocept train` records a run "
                   f"as a job where the database holds its export — train it again with this database "
                   f"(CHRONOCEPT_DATABASE_URL), or launch training on the Training page")


def record_training_run(args: argparse.Namespace, export_dir: Path, run_dir: Path, results: Any) -> str:
    """After ``chronocept train``: record the finished run as a training job of its export's
    project when the configured database holds that export, so ``predict`` and ``audit`` accept
    its folder; one line saying so, or why not (the run stands either way). A database that does
    not exist is not created: an SQLite file that is not there means none."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from annotation.export import MANIFEST_FILE
    from annotation.services.accounts import accounts
    from annotation.services.model import model_jobs
    from annotation.services.errors import ServiceError
    from annotation.training.predictions import MAX_PREDICTIONS, stored_result
    from db.presence import DatabaseInUse
    from db.upgrade import SchemaUpgradeError

    not_recorded = "not recorded as a training job of a project (predict and audit need one): "
    url = make_url(database_url())
    if url.get_backend_name() == "sqlite" and not (url.database and Path(url.database).is_file()):
        return not_recorded + f"there is no database at {url.database or 'memory'} (CHRONOCEPT_DATABASE_URL)"
    # the export as its manifest names it: a database's export has an id, a time and a project
    try:
        manifest = json.loads((export_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
        made_at, project = str(manifest["created_at"]), str(manifest["project"])
    except (OSError, ValueError, KeyError, TypeError):
        return not_recorded + f"its {MANIFEST_FILE} names no export of a project's database"
    try:
        db = open_database()
    except (SQLAlchemyError, SchemaUpgradeError, DatabaseInUse) as exc:
        reason = database_failure(exc) if isinstance(exc, SQLAlchemyError) else str(exc)
        return not_recorded + reason
    try:
        actor = accounts.actor_for_script(db, args.user)
        if actor is None:
            return not_recorded + (f"no active user {args.user!r}" if args.user else "no active admin yet")
        if not (str(results.export_id).isascii() and str(results.export_id).isdigit()):
            return not_recorded + f"its {MANIFEST_FILE} names no export of a project's database"
        job = model_jobs.record_training_run(
            db, actor, int(results.export_id), made_at, run_dir, results.config.to_dict(),
            stored_result(results, MAX_PREDICTIONS), results.total_seconds,
            f"Trained from the command line in {results.total_seconds:.0f} s on {results.device}.")
    except ServiceError as exc:
        return not_recorded + str(exc)
    except SQLAlchemyError as exc:
        return not_recorded + database_failure(exc)
    finally:
        db.dispose()
    return (f"recorded as training job {job.id} of project {project!r} (export {results.export_id}): "
            f"chronocept predict {run_dir} and chronocept audit --run {run_dir} apply it")


def _apply(db: Database, args: argparse.Namespace, kind: str) -> tuple[Any, int, Any]:
    from annotation.services.jobs import jobs
    from annotation.services.model import model_jobs

    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    job = model_jobs.launch_model_job(db, actor, pid, _run_job_id(db, actor, pid, args.run), kind,
                                      members=args.members, folds=getattr(args, "folds", model_jobs.DEFAULT_FOLDS),
                                      launcher="", start=False)
    status = jobs.run_job(db, job.id)  # here, in this process
    done = jobs.get_job(db, actor, job.id)
    if status != "succeeded":
        raise CliError(f"job {job.id} {status}: {done.message}")
    return actor, pid, done


def cmd_predict(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.model import model_jobs

    from annotation.training.calibration import calibration_words, withheld_because

    _actor, _pid, done = _apply(db, args, model_jobs.PREDICT)
    lines = [f"job {done.id}: {done.message}", calibration_words(done.result)]
    reason = withheld_because(done.result, ordering=True)
    lines.append(f"not used to hand out the most uncertain first: {reason}" if reason
                 else "used to hand out the most uncertain first where the project asks for it")
    return "\n".join(line for line in lines if line)


def _number(value: float | None, digits: int = 2) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), digits)


def cmd_audit(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.model import model_jobs, model_loop

    if args.run:
        actor, pid, _done = _apply(db, args, model_jobs.AUDIT)
    else:
        actor = acting_user(db, args.user)
        pid = named_project_id(db, actor, args.project)
    listed = model_loop.disagreements(db, actor, pid, top=args.top)
    if listed is None:
        raise CliError("no audit yet: run one with --run RUN_DIR, or from the Training page")
    from annotation.training.calibration import calibration_words

    how = calibration_words(listed.kept)
    rows = [{"rank": e.rank, "sample": e.external_id, "score": _number(e.score), "w1": _number(e.gold_w1),
             "expected_miss": _number(e.expected_miss), "gold": [_number(v, 3) for v in e.gold],
             "model": [_number(v, 3) for v in e.model], "annotators_w1": _number(e.figures.w1),
             "annotators_pk": _number(e.figures.pk), "gold_changed": e.gold_changed,
             "open_review_item": e.open_item_id} for e in listed.entries]
    if args.json:
        return json.dumps({"audit_job": listed.job_id, "audited": listed.n_audited, "withheld": listed.withheld,
                           "calibration": (listed.kept or {}).get("calibration"), "samples": rows}, ensure_ascii=False, indent=2)
    if listed.withheld:
        return "\n".join(line for line in (f"audit job {listed.job_id} lists nothing: {listed.withheld}", how) if line)
    lines = [f"audit job {listed.job_id}: the {len(rows)} most suspicious of {listed.n_audited} gold samples "
             "(score: the larger of the parameter residual against the model's usual residuals and the W1 "
             "from the gold to the model's curve over its expected miss)", how,
             f"{'rank':>4}  {'score':>7}  {'W1':>6}  {'miss':>6}  sample"]
    lines += [f"{r['rank']:>4}  {r['score']:>7.2f}  {r['w1']:>6.2f}  {_cell(r['expected_miss'])}  {r['sample']}"
              for r in rows]
    return "\n".join(line for line in lines if line)


def _cell(value: float | None) -> str:
    return f"{value:>6.2f}" if value is not None else f"{'—':>6}"


def cmd_jobs(db: Database, args: argparse.Namespace) -> str:
    """One line per job: id, kind, when, status (with the reason of a failure), progress."""
    from annotation.services.jobs import jobs

    actor = acting_user(db, args.user)
    listed = jobs.list_jobs(db, actor, named_project_id(db, actor, args.project))
    if not listed:
        return "no jobs yet"
    return "\n".join(f"{j.id:>4}  {j.kind:<8}  {j.created_at:%Y-%m-%d %H:%M}  {j.status}"
                     + (f" ({j.progress:.0%})" if not j.finished else "")
                     + (f": {(j.message.splitlines() or [''])[0]}" if j.status == "failed" else "")
                     for j in listed)


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The commands' parsers."""
    from annotation.services.model.model_jobs import DEFAULT_FOLDS, DEFAULT_MEMBERS

    p = sub.add_parser("predict", help="apply a finished training run: predict every sample with an ensemble")
    p.add_argument("run", metavar="RUN_DIR", help="the training run's folder (its job's run folder)")
    p.add_argument("--members", type=int, default=DEFAULT_MEMBERS, help=f"ensemble members (default {DEFAULT_MEMBERS})")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("audit", help="the gold samples a cross-fitted model disagrees with, most suspicious first")
    p.add_argument("--run", metavar="RUN_DIR", help="first audit the gold anew with this training run")
    p.add_argument("--members", type=int, default=DEFAULT_MEMBERS, help=f"ensemble members (default {DEFAULT_MEMBERS})")
    p.add_argument("--folds", type=int, default=DEFAULT_FOLDS, help=f"folds of the cross-fit (default {DEFAULT_FOLDS})")
    p.add_argument("--top", type=int, default=20, help="how many to list (1-200, default 20)")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("jobs", help="list the project's background jobs (training, predict, audit) and their status")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_jobs)
