"""The ``chronocept`` command line (SPEC section 11).

Acts on the database named by ``CHRONOCEPT_DATABASE_URL`` (default ``./data/chronocept.db``),
exactly like the app. Exit status 0 on success; otherwise non-zero with a one-line reason on
stderr. Commands that act as a lead run as ``--user`` (default: the first active admin), so
the audit log names a real person.

A front end beside ``app.py``: it calls the services and opens the database itself, and nothing
below it imports it (``tests/unit/test_layers.py``). ``python -m cli`` runs it too
(:mod:`cli.__main__`).

LAZY: the services a command needs are imported inside it, after the database is open — the
heavy ones (pandas, scipy's statistics, the agreement code) took 1.7 s of every command's
start, a command that failed to connect or only created a user included.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from pathlib import Path
from typing import Sequence

from sqlalchemy.exc import SQLAlchemyError

from annotation.services.accounts import accounts
from annotation.services.authz import ROLES
from annotation.services.errors import FolderNotEmpty, ServiceError
from db.backup import BackupError, BackupExists, backup_database
from cli.acting import acting_user, named_project_id
from cli.database import database_failure, open_database
from cli.classical_model import add_command as add_classical_model_command
from cli.imports import add_commands as add_import_commands
from cli.model import add_commands as add_model_commands, record_training_run
from cli.output import CliError, emit, parse_arguments, reader_gone
from cli.score import cmd_score
from db.config import ConfigError, load as load_config, models_offline
from db.engine import Database, database_url
from db.presence import DatabaseInUse
from db.restore import RestoreError, restore_database
from db.sqlite_replace import DatabaseMissing
from db.upgrade import SchemaUpgradeError


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin or not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line:
            raise CliError("no password on standard input")
        return line.rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Repeat password: "):
        raise CliError("the passwords do not match")
    return first


def cmd_create_user(db: Database, args: argparse.Namespace) -> str:
    info = accounts.create_user_from_cli(db, args.name, _read_password(args), args.role,
                                         args.display_name or "")
    return f"created {info.role} {info.username} (id {info.id})"


def cmd_agreement(db: Database, args: argparse.Namespace) -> str:
    from annotation.agreement.published import change_kappa_figure, headline_figures  # on use (LAZY)
    from annotation.quality.annotator_stats import pair_figures, pair_rules  # on use (LAZY)
    from annotation.services.quality import agreement, experts  # on use (LAZY)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    scope = agreement.project_agreement(db, actor, pid, benchmark=args.benchmark)
    report = scope.report
    published = headline_figures(report)
    if args.json:
        pairs = {"context_pairs": scope.pairs.to_json()} if scope.pairs is not None else {}
        return json.dumps({**report.to_json(include_samples=not args.summary),
                           "published": {name: fig.to_json() for name, fig in published.items()},
                           "n_samples_with_one_annotation": scope.n_single, **pairs,
                           "experts": experts.expert_overview(db, actor, pid).to_json()}, indent=2, default=str)
    lines = [f"{report.n_samples} samples with 2 or more annotations "
             f"({scope.n_single} with only one left out), before adjudication; 95% bootstrap intervals "
             "and n; a figure with too few samples is withheld (—) with its rule"]
    for name, label in HEADLINE_LABELS:
        fig = published.get(name)
        if fig is None:
            lines.append(f"  {label:<30} n/a")
            continue
        lines.append(f"  {label:<30} {fig.text()}")
    curve = report.curve
    if curve is not None and curve.n_used:
        lines.append(f"  curves sit ×{curve.time_factor:.2f} apart on average (mean W1); "
                     f"{100 * curve.share_above:.1f}% of samples above the W1 flag ({curve.flag_w1_max:g})")
    if scope.pairs is not None:  # a context-pairs project
        lines.append(f"  change label: kappa {change_kappa_figure(report, scope.pairs.kappa_interval).text()}")
    if report.pairs:
        lines.append(f"per annotator pair (n = the samples the two share; {pair_rules()}; no interval):")
        for pair in report.pairs:
            shown = " · ".join(f"{PAIR_LABELS[name]} {fig.text()}" for name, fig in pair_figures(pair).items()
                               if name in pair.figures)
            lines.append(f"  {' × '.join(pair.annotators)}: {shown}")
    return "\n".join(lines)


#: The headline figures the text output lists, in order, with their labels.
HEADLINE_LABELS: tuple[tuple[str, str], ...] = (
    ("icc_xi", "ICC(1,1) xi"), ("icc_omega", "ICC(1,1) omega"), ("icc_alpha", "ICC(1,1) alpha"),
    ("jaccard", "Jaccard"), ("pk", "Pk"), ("w1", "W1 (curve distance, log-time)"),
    ("alpha_xi", "Krippendorff alpha (xi)"), ("alpha_omega", "Krippendorff alpha (omega)"),
    ("alpha_alpha", "Krippendorff alpha (alpha)"), ("alpha_labels", "Krippendorff alpha (axis labels)"),
)


#: The per-pair figures' labels in the text output.
PAIR_LABELS: dict[str, str] = {"jaccard": "Jaccard", "kappa": "kappa", "pk": "Pk", "icc_xi": "ICC xi",
                               "icc_omega": "ICC omega", "icc_alpha": "ICC alpha"}


def cmd_resolve(db: Database, args: argparse.Namespace) -> str:
    """What this run changed, then what it left as it was (a run that finds nothing new says so)."""
    from annotation.services.review import resolving  # on use (LAZY)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    summary = resolving.resolve_project(db, actor, pid, recheck=args.recheck)
    more = f", {summary.more} handed to one more annotator" if summary.more else ""
    changed = (f"{summary.gold} samples resolved into gold, {summary.flagged} flagged for review{more}"
               if summary.gold or summary.flagged or summary.more else "nothing new to resolve")
    return (f"{changed}; {summary.settled} already in gold, {summary.pending} awaiting a lead, "
            f"{summary.incomplete} incomplete")


class ProgressBar:
    """A one-line progress bar on stderr (redrawn in place on a terminal, a line per tenth
    otherwise, so logs stay short)."""

    def __init__(self, stream=None, width: int = 30):  # type: ignore[no-untyped-def]
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self._last_tenth = -1

    def __call__(self, fraction: float, message: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        if self.tty:
            filled = int(round(fraction * self.width))
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {message[:60]:<60}")
            if fraction >= 1.0:
                self.stream.write("\n")
        else:
            tenth = int(fraction * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(f"{fraction:4.0%} {message}\n")
        self.stream.flush()


def cmd_dedup(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.corpus import duplicates  # on use (LAZY)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    summary = duplicates.run_dedup(db, actor, pid, threshold=args.threshold,
                                   progress=None if args.quiet else ProgressBar())
    return (f"{summary.n_texts} texts compared in {summary.seconds:.1f} s "
            f"({summary.n_embedded} embedded, {summary.n_cached} cached; threshold {summary.threshold:g}): "
            f"{summary.n_new_marks} new near-duplicates; {summary.n_pending} to review, "
            f"{summary.n_confirmed} confirmed, {summary.n_released} released")


def cmd_export(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.export import exports  # on use (LAZY)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    try:
        record = exports.export_dataset(
            db, actor, pid, Path(args.out_dir), base=args.base, seed=args.seed, licence=args.licence,
            overwrite=args.overwrite, reproduce=args.reproduce,
            progress=None if args.quiet else ProgressBar())
    except FolderNotEmpty as exc:
        raise CliError(f"{exc.folder} already exists and is not empty; choose another folder, "
                       "or add --overwrite to replace it") from None
    sizes = record.sizes_text(long=False)  # per benchmark, or the layout's own configuration's
    replaced = (f"; export {', '.join(map(str, record.replaces))} wrote that folder before and is now "
                "marked replaced") if record.replaces else ""
    return (f"export {record.id} written to {record.path} (base {record.base:g}, seed {record.seed}); "
            f"train/validation/test — {sizes}; {record.n_annotations} annotations{replaced}")


def cmd_exports(db: Database, args: argparse.Namespace) -> str:
    """The project's exports, newest first: id, when, status (a replaced one names its
    replacement), samples, folder."""
    from annotation.services.export import exports  # on use (LAZY)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    records = exports.list_exports(db, actor, pid)
    if not records:
        return "no exports yet"
    return "\n".join(f"{r.id:>4}  {r.created_at:%Y-%m-%d %H:%M}  {r.status_text}  {r.n_samples} samples  {r.path}"
                     for r in records)


def cmd_train(db: Database | None, args: argparse.Namespace) -> str:
    """Run the baselines on an export folder without the app; print the results table, and record
    the run as a training job of the export's project where the database holds that export."""
    from annotation.training import TrainingConfig, TrainingInputError, run_training
    from cli.baselines import baselines_report

    export_dir = Path(args.export_dir)
    run_dir = Path(args.run_dir) if args.run_dir else export_dir.parent / f"{export_dir.name}-run-{int(time.time())}"
    try:
        config = TrainingConfig(benchmark=args.benchmark, models=tuple(args.models), encoder=args.encoder,
                                ablations=tuple(args.ablations), device=args.device, seed=args.seed,
                                **({"max_epochs": args.max_epochs} if args.max_epochs is not None else {}))
        bar = None if args.quiet else ProgressBar()
        results = run_training(export_dir, run_dir, config, progress=bar,
                               cache_dir=export_dir.parent / ".embedding-cache")
    except TrainingInputError as exc:
        raise CliError(str(exc)) from None
    return baselines_report(results, run_dir) + "\n" + record_training_run(args, export_dir, run_dir, results)


def cmd_run_job(db: Database, args: argparse.Namespace) -> str:
    # on use (LAZY). A job of any kind may come: jobs runs training, and model_jobs registers the
    # runners of predict and audit with it as it is imported
    from annotation.services.jobs import jobs
    from annotation.services.model import model_jobs
    del model_jobs  # imported for what it registers
    status = jobs.run_job(db, args.job_id)
    if status != "succeeded":
        raise CliError(f"job {args.job_id} {status}")
    return f"job {args.job_id} {status}"


def cmd_demo(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.corpus import demo_projects
    actor = acting_user(db, args.user)
    info = demo_projects.load_demo_project(db, actor)
    done = f"{info.name}: {info.n_samples} texts"
    if args.pairs:
        pairs = demo_projects.load_demo_pairs_project(db, actor)
        done += f"; {pairs.name}: {pairs.n_samples} pairs"
    return done


def cmd_backup(db: Database, args: argparse.Namespace) -> str:
    """Write the backup; an existing file is replaced only with ``--overwrite``, and then in one
    step (never a half file under its name)."""
    replacing = Path(args.file).exists()
    try:
        backup_database(db.engine, Path(args.file), overwrite=args.overwrite)
    except BackupExists:
        raise CliError(f"{args.file} already exists; add --overwrite to replace it") from None
    except BackupError as exc:
        raise CliError(str(exc)) from None
    return f"backup written to {args.file}" + (" (the earlier file there replaced)" if replacing else "")


def cmd_restore(_db: None, args: argparse.Namespace) -> str:
    """Put a backup in place of the database; never opens (or upgrades) the database first —
    it may be the damaged one (see :mod:`db.restore`)."""
    source = Path(args.file)
    try:
        done = restore_database(database_url(), source)
    except (RestoreError, BackupError) as exc:
        raise CliError(str(exc)) from None
    return done.describe(source)


#: What ``chronocept --help`` says around the list of commands (plain text: argparse shows it as it is).
DESCRIPTION = ("The command line of Chronocept Studio. It acts on the database named by "
               "CHRONOCEPT_DATABASE_URL (default ./data/chronocept.db), like the app.")
EPILOG = ("A command that works on a project takes --project NAME, which may be left out only while "
          "there is one project. A command that acts as a lead takes --user NAME (default: the first "
          "active admin). 'chronocept COMMAND --help' describes a command. Exit status 0 on success, "
          "1 with a one-line reason on stderr.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chronocept", description=DESCRIPTION, epilog=EPILOG)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("create-user", help="create a user (password from a prompt or stdin)")
    p.add_argument("name")
    p.add_argument("--role", choices=ROLES, required=True)
    p.add_argument("--display-name")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    p.set_defaults(func=cmd_create_user)

    add_import_commands(sub)

    p = sub.add_parser("agreement", help="inter-annotator agreement report")
    p.add_argument("--benchmark", type=int, choices=(1, 2))
    p.add_argument("--json", action="store_true",
                   help="print the full report as JSON (with each annotator's expert figures under \"experts\")")
    p.add_argument("--summary", action="store_true", help="with --json: leave out the per-sample rows")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_agreement)

    p = sub.add_parser("resolve", help="resolve unflagged doubly-annotated samples into gold")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--recheck", action="store_true",
                   help="re-evaluate automatic flags and automatic gold (after changing thresholds)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser("dedup", help="find near-duplicate texts (SBERT and TF-IDF), print a summary")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--threshold", type=float, help="cosine similarity threshold (default: the project's)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_dedup)

    p = sub.add_parser("export", help="write the HuggingFace dataset folder")
    p.add_argument("out_dir")
    p.add_argument("--base", type=float, help="log base of the exported values (default: the project's)")
    p.add_argument("--seed", type=int, help="seed of the train/validation/test split (default: random, recorded)")
    p.add_argument("--licence", default=None, help="licence named in the dataset card (default cc-by-4.0)")
    p.add_argument("--overwrite", action="store_true", help="replace OUT_DIR when it is not empty")
    p.add_argument("--reproduce", type=int, metavar="EXPORT_ID",
                   help="repeat an earlier export exactly (same samples, splits, base, seed, licence)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("exports", help="list the project's exports and their status")
    p.add_argument("--project", help="project name (needed when there are several)")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_exports)

    p = sub.add_parser("train", help="run the baselines on an export folder, print the results table")
    p.add_argument("export_dir")
    p.add_argument("--models", nargs="+", default=["linear", "svr", "xgboost", "ffnn", "bilstm"],
                   help="any of linear svr xgboost ffnn bilstm mean (default: the five baselines)")
    p.add_argument("--ablations", nargs="+", default=["none"], help="any of none no_axes shuffled_axes")
    p.add_argument("--encoder", default="sbert", help="sbert (bundled all-MiniLM-L6-v2) or hashing")
    p.add_argument("--device", default="auto", help="auto (CUDA when available), cpu or cuda")
    p.add_argument("--benchmark", type=int, default=1, choices=(1, 2))
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--max-epochs", type=int, help="epoch limit of the neural networks")
    p.add_argument("--run-dir", help="folder for weights, metrics and logs (default: next to the export)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--user", help="record the run as this user (default: the first admin)")
    p.set_defaults(func=cmd_train, needs_db=False)

    p = sub.add_parser("score", help="score a model's test-split predictions (the baselines' metrics, "
                                     "mean W1, bootstrap intervals)")
    p.add_argument("export_dir")
    p.add_argument("predictions", help="JSON Lines or CSV: _id, xi, omega, alpha in the export's base; "
                                       "for a context-pairs (tvcp) export: _id, change")
    p.add_argument("--benchmark", type=int, default=1, choices=(1, 2),
                   help="the benchmark of a single-texts export (a tvcp export is scored on its change labels)")
    p.add_argument("--json", action="store_true", help="print the score as JSON")
    p.add_argument("--save", metavar="NAME", help="keep it on the export's leaderboard under NAME")
    p.set_defaults(func=cmd_score, needs_db=False)

    p = sub.add_parser("run-job", help="(used by the app) run a queued background job")
    p.add_argument("job_id", type=int)
    p.set_defaults(func=cmd_run_job)

    p = sub.add_parser("demo", help="load the demo project")
    p.add_argument("--pairs", action="store_true", help="also load the demo context-pairs project")
    p.add_argument("--user", help="act as this user (default: the first admin)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("backup", help="consistent copy of the database")
    p.add_argument("file")
    p.add_argument("--overwrite", action="store_true", help="replace FILE when it exists")
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser("restore", help="put a backup in place of the database (the app stopped), "
                                       "keeping the current one aside; checks the result")
    p.add_argument("file", help="a file written by chronocept backup (or an upgrade's backup)")
    p.set_defaults(func=cmd_restore, needs_db=False)
    add_model_commands(sub)
    add_classical_model_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(build_parser(), argv)
    models_offline()  # a worker's training loads the bundled SBERT model: never a download
    try:
        load_config(signs_in=False)  # every setting read once, now (db.config); a bad value is one line
    except ConfigError as exc:
        print(f"chronocept: {exc}", file=sys.stderr)
        return 1
    try:
        if not getattr(args, "needs_db", True):
            return emit(args.func(None, args))
        db = open_database()
        try:
            done = args.func(db, args)
        finally:
            db.dispose()
        return emit(done)
    except BrokenPipeError:  # the progress bar's reader (stderr) went away
        return reader_gone()
    except (CliError, ServiceError, SchemaUpgradeError, DatabaseInUse, DatabaseMissing) as exc:
        print(f"chronocept: {exc}", file=sys.stderr)
        return exc.exit_status if isinstance(exc, CliError) else 1
    except SQLAlchemyError as exc:  # an unreachable server, a refused login, a missing database
        print(f"chronocept: {database_failure(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("chronocept: interrupted", file=sys.stderr)
        return 130
