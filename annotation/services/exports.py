"""Exporting a project's gold as a HuggingFace dataset folder, the record of every export, and
the statistics of an export.

An export reads the gold values of the project's production samples (active, not warm-up) and
every submitted annotation of those samples, splits each benchmark 70/20/10 stratified on the
axes used (``annotation.splits``), and writes the folder atomically (``annotation.export``).
The database row is made first (status ``writing``) so the folder's manifest carries its id,
and is marked ``complete`` — with the split membership, so the export can be repeated exactly —
or ``failed`` with the reason. Annotators are named by pseudonym (``ann`` + user id), never by
user name.

An export killed while writing (the server stopped, the process killed) leaves its row at
``writing`` and its hidden staging folder beside the target. :func:`recover_interrupted_exports`
— run before every export and by :func:`export_readiness`, the Export page's first call — marks
such rows ``failed`` ("interrupted") and removes their staging folders. A row is interrupted when
its writer (host and process id, stored with the row) is this host and the process is gone, or,
when that cannot be checked (another app server sharing the database, a row written before the
writer was recorded), when it has been writing for longer than
:data:`annotation.export.ABANDONED_AFTER_SECONDS`. Staging folders are removed only when their
own marker says the same (``annotation.export.remove_abandoned_staging``), so a live export of
another server is never touched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import os
import pickle
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

from sqlalchemy import func, select

from annotation import export as hf_export
from annotation.dataset_stats import DatasetStatistics, dataset_statistics
from annotation.export import figures as figures_module
from annotation.export.figures import ExportFigures, FigureInput, export_figures
from annotation.services import audit
from annotation.services.authz import Actor, require_role
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.export_reads import (  # noqa: F401  (pseudonym: re-exported)
    count_gold, production, pseudonym, read_export_input,
)
from annotation.services.lookup import project_row
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import (
    DatasetExport,
    GoldAnnotation,
    NearDuplicate,
    ReviewItem,
    Sample,
    User,
)

#: where the app writes exports (one sub-folder each); the CLI takes any folder
EXPORT_DIR_ENV = "CHRONOCEPT_EXPORT_DIR"
DEFAULT_EXPORT_DIR = Path("data") / "exports"
Progress = Callable[[float, str], None]


def export_root() -> Path:
    """The folder under which the app writes exports (``CHRONOCEPT_EXPORT_DIR``, default
    ``./data/exports``)."""
    return Path(os.environ.get(EXPORT_DIR_ENV) or DEFAULT_EXPORT_DIR).resolve()


@dataclass(frozen=True)
class ExportRecord:
    """One export as the back office lists it."""

    id: int
    project_id: int
    path: str
    base: float
    seed: int
    licence: str
    status: str
    error: str
    created_at: datetime
    created_by: str
    #: {benchmark: {"train": n, "validation": n, "test": n}}
    split_sizes: dict[int, dict[str, int]]
    n_annotations: int
    reproduces_id: int | None
    seconds: float | None

    @property
    def folder_exists(self) -> bool:
        return Path(self.path, hf_export.MANIFEST_FILE).is_file()

    @property
    def n_samples(self) -> int:
        return sum(sum(sizes.values()) for sizes in self.split_sizes.values())


def _record(row: DatasetExport, username: str | None) -> ExportRecord:
    counts = row.counts or {}
    sizes = {b: dict(counts.get(cfg, {})) for b, cfg in hf_export.BENCHMARK_CONFIGS.items()
             if sum(counts.get(cfg, {}).values())}
    n_annotations = sum(counts.get(hf_export.ANNOTATIONS_CONFIG, {}).values())
    return ExportRecord(row.id, row.project_id, row.path, row.base, row.seed, row.licence, row.status,
                        row.error, row.created_at, username or "—", sizes, n_annotations,
                        row.reproduces_id, (row.settings or {}).get("seconds"))


@dataclass(frozen=True)
class ExportReadiness:
    """What an export would contain now, and what is still unsettled."""

    gold_by_benchmark: dict[int, int]
    without_gold: int
    pending_duplicates: int
    open_reviews: int

    @property
    def n_gold(self) -> int:
        return sum(self.gold_by_benchmark.values())


INTERRUPTED = "interrupted"


def _is_interrupted(row: DatasetExport, now: datetime) -> bool:
    started = row.created_at
    if started.tzinfo is None:
        started = started.replace(tzinfo=timezone.utc)
    writer = (row.settings or {}).get("writer")
    return not hf_export.writer_is_alive(writer if isinstance(writer, dict) else None,
                                         started.timestamp(), now=now.timestamp())


def recover_interrupted_exports(db: Database, project_id: int | None = None) -> list[int]:
    """Mark exports stuck at ``writing`` whose writer is gone as ``failed`` ("interrupted") and
    remove their abandoned staging folders (see the module docstring); returns their ids.

    Cheap when there is nothing to do: one indexed read. Never raises for a folder it cannot
    remove (it stays for the next time)."""
    now = datetime.now(timezone.utc)
    with db.read() as s:
        stmt = select(DatasetExport).where(DatasetExport.status == "writing")
        if project_id is not None:
            stmt = stmt.where(DatasetExport.project_id == project_id)
        stale = [row.id for row in s.scalars(stmt) if _is_interrupted(row, now)]
    recovered: list[int] = []
    for export_id in stale:
        with db.write() as s:
            row = s.get(DatasetExport, export_id)
            if row is None or row.status != "writing":
                continue  # someone else recovered (or finished) it meanwhile
            row.status, row.error = "failed", INTERRUPTED
            path = row.path
            audit.record(s, None, "export_interrupted", "export", export_id, path=path)
        recovered.append(export_id)
        try:
            hf_export.remove_abandoned_staging(path)
        except OSError:
            pass
    return recovered


def export_readiness(db: Database, actor: Actor, project_id: int) -> ExportReadiness:
    """Lead: gold samples per benchmark, production samples still without gold, near-duplicate
    marks awaiting a decision and open review items — shown before exporting. Recovers the
    project's interrupted exports first (:func:`recover_interrupted_exports`)."""
    with db.read() as s:
        require_role(s, actor, "lead")
    recover_interrupted_exports(db, project_id)
    with db.read() as s:
        require_role(s, actor, "lead")
        in_production = production(project_id)
        gold = dict(s.execute(
            select(Sample.benchmark, func.count()).join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .where(*in_production).group_by(Sample.benchmark)).all())
        total = s.scalar(select(func.count()).select_from(Sample).where(*in_production)) or 0
        pending = s.scalar(select(func.count()).select_from(NearDuplicate).where(
            NearDuplicate.project_id == project_id, NearDuplicate.status == "pending")) or 0
        reviews = s.scalar(select(func.count()).select_from(ReviewItem).join(Sample).where(
            Sample.project_id == project_id, ReviewItem.status == "open")) or 0
    by_benchmark = {b: int(gold.get(b, 0)) for b in hf_export.BENCHMARKS}
    return ExportReadiness(by_benchmark, total - sum(by_benchmark.values()), pending, reviews)


#: From this many gold samples on, an export computes its figures in a second process (a fresh
#: interpreter, :class:`FiguresProcess`, started before the read: its imports take about a
#: second), truly beside the formatting; below it, in a thread of this process.
FIGURES_PROCESS_MIN_SAMPLES = 10_000
#: How long the figures' process may take: this many seconds, plus one per thousand annotations
#: (at 100k samples about 5 s are needed; a stopped or hung process must not hold an export).
FIGURES_TIMEOUT_S = 120.0

_log = logging.getLogger(__name__)


class FiguresFailed(RuntimeError):
    """The figures of an export could not be computed (message: why, in a line)."""


class FiguresInThread:
    """Computes an export's figures here (:func:`annotation.export.figures.export_figures`, run
    in the export's worker thread). A context manager giving itself; :meth:`stop` has nothing to
    stop. An error becomes :class:`FiguresFailed`, which the export reports in a line."""

    def compute(self, data: FigureInput) -> ExportFigures:
        try:
            return export_figures(data)
        except Exception as exc:
            raise FiguresFailed(f"{type(exc).__name__}: {exc}") from exc

    def stop(self) -> None:
        """Nothing to stop: a thread finishes its computation."""

    def __enter__(self) -> FiguresInThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class FiguresProcess(FiguresInThread):
    """The figures computed by a child interpreter, ``python -m annotation.export.figures IN
    OUT``: started first, so it imports while this process reads the database; :meth:`compute`
    writes the input, tells it to go and waits (at most :data:`FIGURES_TIMEOUT_S` and a second
    per thousand annotations). Should the child fail for another reason than time — no such
    module where it starts, a crash — the figures are computed here after all (slower).

    A plain child interpreter rather than :mod:`multiprocessing`: its ``spawn`` re-runs the
    parent's ``__main__`` script (breaking callers without a main guard), and ``fork`` in the app
    server, which runs many threads, may copy a lock one of them holds. The data goes through
    files, not pipes: 20 MB fed through a pipe from a thread takes thousands of small writes,
    each waiting for the GIL the formatting holds (measured: the child's 6 s became 11.6 s).
    Leaving the context (or :meth:`stop`) kills the child if it still runs and removes the
    files; a child whose parent died removes them itself."""

    #: the module the child runs (a test may point it elsewhere)
    module = figures_module.__name__

    def __init__(self) -> None:
        # named after this process, so a start after a crash can tell it abandoned
        # (figures_module.remove_abandoned_figure_folders)
        self._folder = Path(tempfile.mkdtemp(
            prefix=figures_module.figures_folder_prefix(socket.gethostname(), os.getpid())))
        self._given, self._out = self._folder / "input.pickle", self._folder / "figures.pickle"
        self._errors = self._folder / "stderr.txt"
        root = Path(figures_module.__file__).resolve().parents[2]  # the folder holding ``annotation``
        try:
            with self._errors.open("wb") as err:
                self._child = subprocess.Popen(
                    [sys.executable, "-m", self.module, str(self._given), str(self._out)],
                    cwd=root, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err)
        except BaseException:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise

    def compute(self, data: FigureInput) -> ExportFigures:
        try:
            return self._compute_in_child(data)
        except subprocess.TimeoutExpired as exc:
            raise FiguresFailed(f"they took longer than {exc.timeout:.0f} s") from None
        except (FiguresFailed, OSError, pickle.UnpicklingError, EOFError) as exc:
            _log.warning("The export's figures process failed (%s); computing them in the app instead.", exc)
            return super().compute(data)

    def _compute_in_child(self, data: FigureInput) -> ExportFigures:
        with self._given.open("wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        timeout = FIGURES_TIMEOUT_S + len(data.annotators) / 1000
        try:
            self._child.communicate(b"go\n", timeout=timeout)
        except BrokenPipeError:  # it ended before it was asked: its error output says why
            self._child.wait()
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        if self._child.returncode != 0:
            lines = self._errors.read_text("utf-8", "replace").strip().splitlines()
            raise FiguresFailed(lines[-1] if lines else f"exit status {self._child.returncode}")
        with self._out.open("rb") as f:
            return pickle.load(f)

    def stop(self) -> None:
        """Kill the child if it still runs (an export given up need not wait for its figures)."""
        if self._child.poll() is None:
            self._child.kill()
            self._child.wait()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self._folder, ignore_errors=True)


def _figures_runner(n_gold: int) -> FiguresInThread:
    """What computes the figures of an export of ``n_gold`` samples (see
    :data:`FIGURES_PROCESS_MIN_SAMPLES`), a context manager."""
    if n_gold >= FIGURES_PROCESS_MIN_SAMPLES:
        try:
            return FiguresProcess()
        except (OSError, TypeError, ValueError) as exc:  # no process to be had: the slower way works
            _log.warning("No process for the export's figures (%s); computing them in the app.", exc)
    return FiguresInThread()


def export_dataset(db: Database, actor: Actor, project_id: int, out_dir: Path | str, *,
                   base: float | None = None, seed: int | None = None, licence: str | None = None,
                   overwrite: bool = False, reproduce: int | None = None,
                   include_agreement: bool = True, progress: Progress | None = None) -> ExportRecord:
    """Lead: write the project's gold as a HuggingFace dataset folder at ``out_dir`` and record
    the export. ``base`` defaults to the project's log base, ``seed`` to a random one (recorded),
    ``licence`` to cc-by-4.0. ``reproduce`` names an earlier export of the project to repeat
    exactly: its samples, split membership, base, seed and licence. Bad settings, no gold yet,
    or a non-empty ``out_dir`` raise :class:`InvalidInput` and write nothing."""
    # Reading and formatting 100k samples and 200k annotations makes millions of small,
    # acyclic objects; the cyclic collector would rescan the growing heap again and again
    # (measured: the annotation read 2.7 s → 8.3 s at 20k). It waits until the export is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with contextlib.ExitStack() as stack:  # holds the figures' process, if one is started
            return _export_dataset(db, actor, project_id, out_dir, base=base, seed=seed, licence=licence,
                                   overwrite=overwrite, reproduce=reproduce,
                                   include_agreement=include_agreement, progress=progress, stack=stack)
    finally:
        if collecting:
            gc.enable()


def _export_dataset(db: Database, actor: Actor, project_id: int, out_dir: Path | str, *,
                    base: float | None, seed: int | None, licence: str | None, overwrite: bool,
                    reproduce: int | None, include_agreement: bool,
                    progress: Progress | None, stack: contextlib.ExitStack) -> ExportRecord:
    started = time.perf_counter()
    report = progress or (lambda fraction, message: None)
    report(0.0, "Reading the gold values…")
    with db.read() as s:
        user = require_role(s, actor, "lead")
        project = project_row(s, project_id)
        settings = ProjectSettings.from_dict(project.settings)
        assignment = None
        if reproduce is not None:
            earlier = s.get(DatasetExport, reproduce)
            if earlier is None or earlier.project_id != project_id or earlier.status != "complete":
                raise NotFound(f"There is no complete export {reproduce} of this project to repeat.")
            base, seed, licence = earlier.base, earlier.seed, earlier.licence
            assignment = {}
            for per_split in (earlier.splits or {}).values():
                for split, ids in per_split.items():
                    assignment.update({i: split for i in ids})
        # a large export starts the figures' process now, so it starts up while the rows are read
        figures = stack.enter_context(_figures_runner(count_gold(s, project_id)))
        read = read_export_input(s, project_id, only=set(assignment) if assignment is not None else None,
                                 agreement=include_agreement)
        samples = read.samples
        if assignment is not None and len(samples) != len(assignment):
            lost = sorted(set(assignment) - {g.external_id for g in samples})
            raise InvalidInput(f"{len(lost)} samples of export {reproduce} no longer have gold "
                               f"(e.g. {', '.join(lost[:5])}); it cannot be repeated exactly.")
        project_name = project.name
    if not samples:
        raise InvalidInput("No sample has gold values yet: resolve the double annotations "
                           "(Review page or `chronocept resolve`) before exporting.")
    try:
        export_settings = hf_export.ExportSettings(
            base=settings.log_base if base is None else base,
            seed=secrets.randbelow(2**31) if seed is None else seed,
            licence=licence or hf_export.DEFAULT_LICENCE)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    target = Path(out_dir).expanduser().resolve()
    if not overwrite and target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidInput(f"{target} already exists and is not empty; choose another folder "
                           "or allow replacing it.")
    recover_interrupted_exports(db, project_id)
    hf_export.remove_abandoned_staging(target)  # a killed export to this folder (no row: older)
    # The figures (provenance and card: numpy over every pair of curves and segmentations) are
    # computed beside the formatting of the records (pure Python), which takes them last.
    figure_input = dataclasses.replace(read.figures, base=export_settings.base)
    with ThreadPoolExecutor(max_workers=1) as worker:
        computing = worker.submit(figures.compute, figure_input)
        try:
            report(0.1, "Formatting the annotations; computing the provenance and agreement figures…")
            annotations = read.records()
            report(0.35, f"Writing {len(samples)} samples and {len(annotations)} annotations…")
            export_id, created_at = _start_record(db, actor, project_id, target, export_settings, reproduce,
                                                  include_agreement, overwrite)
            try:
                manifest = hf_export.export_hf_dataset(
                    target, samples, annotations, export_settings,
                    meta=hf_export.ExportMeta(export_id, project_name, user.username, created_at),
                    agreement=(lambda: computing.result().agreement) if include_agreement else None,
                    provenance=lambda: computing.result().provenance, splits=assignment, overwrite=overwrite)
                seconds = time.perf_counter() - started
                record = _finish_record(db, actor, user.username, export_id, manifest, seconds, len(samples),
                                        len(annotations))
            except BaseException as exc:
                _fail_record(db, export_id, exc)
                raise
        except BaseException as exc:
            figures.stop()  # given up: the figures' process need not finish before the pool closes
            if isinstance(exc, FileExistsError):
                raise InvalidInput(f"{target} already exists and is not empty.") from None
            if isinstance(exc, (OSError, ValueError)):
                raise InvalidInput(f"The export failed and nothing was written: {exc}") from None
            if isinstance(exc, FiguresFailed):
                raise InvalidInput(f"The export failed and nothing was written: its figures could not be "
                                   f"computed ({exc}).") from None
            raise  # a defect (or an interrupt): the row says failed, the caller sees the error
    # After the row is complete: an interrupt raised by a progress report (the page left) cannot
    # leave it at "writing".
    report(1.0, "Done.")
    return record


def _start_record(db: Database, actor: Actor, project_id: int, target: Path,
                  export_settings: hf_export.ExportSettings, reproduce: int | None, include_agreement: bool,
                  overwrite: bool) -> tuple[int, datetime]:
    """The export's row, status ``writing``, made before the folder so its manifest carries the
    id: (id, created at). Re-checks the actor's role."""
    with db.write() as s:
        require_role(s, actor, "lead")
        row = DatasetExport(project_id=project_id, created_by=actor.user_id, path=str(target),
                            base=export_settings.base, seed=export_settings.seed,
                            licence=export_settings.licence, reproduces_id=reproduce, status="writing",
                            settings={"ratios": list(export_settings.ratios),
                                      "include_agreement": include_agreement, "overwrite": overwrite,
                                      "writer": hf_export.writer_identity()})
        s.add(row)
        s.flush()
        return row.id, row.created_at


def _finish_record(db: Database, actor: Actor, username: str, export_id: int,
                   manifest: hf_export.ExportManifest, seconds: float, n_samples: int,
                   n_annotations: int) -> ExportRecord:
    """Mark the export complete with its split membership, counts and time, and audit it."""
    with db.write() as s:
        row = s.get(DatasetExport, export_id)
        row.status = "complete"
        row.splits = {c: {sp: list(ids) for sp, ids in per.items()} for c, per in manifest.splits.items()}
        row.counts = {c: dict(per) for c, per in manifest.counts.items()}
        row.settings = {**row.settings, "seconds": round(seconds, 3),
                        "annotations_left_out": manifest.annotations_left_out}
        audit.record(s, actor.user_id, "export_dataset", "export", export_id, path=row.path,
                     base=row.base, seed=row.seed, reproduces=row.reproduces_id,
                     samples=n_samples, annotations=n_annotations)
        return _record(row, username)


def _fail_record(db: Database, export_id: int, exc: BaseException) -> None:
    """Mark the export failed with the reason (an interrupt — the page left, the server
    stopped — is recorded as :data:`INTERRUPTED`, not as an error of the export)."""
    reason = (str(exc) or type(exc).__name__) if isinstance(exc, Exception) else INTERRUPTED
    with db.write() as s:
        row = s.get(DatasetExport, export_id)
        if row is not None and row.status == "writing":
            row.status, row.error = "failed", reason[:2000]


def list_exports(db: Database, actor: Actor, project_id: int) -> list[ExportRecord]:
    """Lead: the project's exports, newest first."""
    with db.read() as s:
        require_role(s, actor, "lead")
        rows = s.execute(select(DatasetExport, User.username)
                         .outerjoin(User, User.id == DatasetExport.created_by)
                         .where(DatasetExport.project_id == project_id)
                         .order_by(DatasetExport.id.desc())).all()
        return [_record(row, name) for row, name in rows]


def get_export(db: Database, actor: Actor, export_id: int) -> ExportRecord:
    with db.read() as s:
        require_role(s, actor, "lead")
        row = s.get(DatasetExport, export_id)
        if row is None:
            raise NotFound(f"There is no export {export_id}.")
        who = s.get(User, row.created_by) if row.created_by else None
        return _record(row, who.username if who else None)


@dataclass(frozen=True)
class ExportStatistics:
    """What the statistics page shows of one export: per benchmark, the statistics and the
    records (for histograms and curve overlays)."""

    export: ExportRecord
    statistics: Mapping[int, DatasetStatistics]
    records: Mapping[int, Mapping[str, list[dict[str, Any]]]]
    base: float


def export_statistics(db: Database, actor: Actor, export_id: int) -> ExportStatistics:
    """Lead: read an export folder back and compute its statistics (``annotation.dataset_stats``)."""
    record = get_export(db, actor, export_id)
    if record.status != "complete":
        raise InvalidInput(f"Export {export_id} is not complete ({record.status}).")
    if not record.folder_exists:
        raise NotFound(f"The folder of export {export_id} ({record.path}) is no longer on this server; "
                       "repeat the export to see its statistics.")
    try:
        # the benchmark configs only: the annotations (often 2× as many lines) are not shown
        contents = hf_export.read_export(record.path, configs=tuple(hf_export.BENCHMARK_CONFIGS.values()))
    except (OSError, ValueError, KeyError) as exc:
        raise InvalidInput(f"The folder of export {export_id} cannot be read: {exc}") from None
    stats, records = {}, {}
    for b, config in hf_export.BENCHMARK_CONFIGS.items():
        per_split = contents.records.get(config, {})
        if sum(len(v) for v in per_split.values()):
            stats[b] = dataset_statistics(per_split)
            records[b] = per_split
    return ExportStatistics(record, stats, records, contents.manifest.base)


def zip_of_export(db: Database, actor: Actor, export_id: int) -> bytes:
    """Lead: the export folder as a zip archive, for download."""
    record = get_export(db, actor, export_id)
    if not record.folder_exists:
        raise NotFound(f"The folder of export {export_id} ({record.path}) is no longer on this server.")
    return hf_export.zip_export(record.path)
