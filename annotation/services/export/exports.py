"""Exporting a project's gold as a HuggingFace dataset folder, the record of every export, and
the statistics of an export.

An export reads the gold values of the project's production samples (active, not warm-up) and
every submitted annotation of those samples, splits each benchmark 70/20/10 stratified on the
axes used (``annotation.corpus.splits``), and writes the folder atomically (``annotation.export``).
The database row is made first (status ``writing``) so the folder's manifest carries its id,
and is marked ``complete`` — with the split membership, so the export can be repeated exactly —
or ``failed`` with the reason; an export written into an earlier one's folder marks that one
``replaced``, and a refused destination records nothing (:mod:`annotation.services.export.export_records`).
Annotators are named by pseudonym (``ann`` + user id), never by user name. The project's
protocol's export layout (:class:`annotation.protocols.protocol.ExportLayout`) is the one path:
its reader's gold (:func:`annotation.services.protocols.services_of`), its checks — which refuse,
before anything is recorded, e.g. a pair's gold that lacks the curve given the follow-up — and its
writer (:func:`annotation.export.export_dataset`), whose card and configurations are the layout's
(a context pair's: the ``tvcp`` configuration, :mod:`annotation.export.tvcp`).

An export killed while writing (the server stopped, the process killed) leaves its row at
``writing`` and its hidden staging folder beside the target. :func:`recover_interrupted_exports`
— run before every export, by :func:`export_readiness` (the Export page's first call) and by
every listing of exports — marks such rows ``failed`` ("the worker stopped without finishing")
and removes their staging folders. A row's writer is dead when it (host and process id, stored
with the row) is this host's and the process is gone, or when its heartbeat, moved every few
seconds while it writes, is stale — the only sign for another app server sharing the database
(a row written before heartbeats: after :data:`annotation.export.ABANDONED_AFTER_SECONDS`;
:mod:`annotation.services.export.export_records`). Staging folders are removed only when their
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
from pathlib import Path
from typing import Any, Callable, Mapping

from sqlalchemy import func, select

from annotation import export as hf_export
from annotation.corpus.dataset_stats import DatasetStatistics, dataset_statistics
from annotation.export import figures as figures_module
from annotation.leftovers import figures_folder_prefix
from annotation.export.card_experts import EXPERTS
from annotation.export.figures import ExportFigures, FigureInput, export_figures
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import FolderNotEmpty, InvalidInput, NotFound
from annotation.content import CONTEXT
from annotation.protocols import protocol_of
from annotation.services.protocols import services_of
from annotation.services.export.export_reads import (
    count_gold,
    expert_figures_by_pseudonym,
    production,
    read_export_input,
)
from annotation.wording import counted
from annotation.services.export import export_records
from annotation.services.export.export_records import (
    COMPLETE,
    REPLACED,
    ExportRecord,
    fail_record,
    finish_record,
    get_export,
    recover_interrupted_exports,
    start_record,
)
from annotation.services.lookup import project_row
from annotation.services.number_limits import checks_numbers
from annotation.settings import ProjectSettings
from db.config import config
from db.engine import Database
from db.models import (
    DatasetExport,
    GoldAnnotation,
    NearDuplicate,
    ReviewItem,
    Sample,
)

#: where the app writes exports (one sub-folder each); the CLI takes any folder
#: The exports of a project, newest first (:mod:`annotation.services.export.export_records`), reached from here too.
list_exports = export_records.list_exports

Progress = Callable[[float, str], None]


def export_root() -> Path:
    """The folder under which the app writes exports (``CHRONOCEPT_EXPORT_DIR``, default
    ``./data/exports``)."""
    return config().export_dir.resolve()


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


@checks_numbers
def export_readiness(db: Database, actor: Actor, project_id: int) -> ExportReadiness:
    """Lead: gold samples per benchmark, production samples still without gold, near-duplicate
    marks awaiting a decision and open review items — shown before exporting. Recovers the
    project's interrupted exports first (:func:`recover_interrupted_exports`)."""
    with db.read() as s:
        authorize(s, actor, Policy.EXPORT)
    recover_interrupted_exports(db, project_id)
    with db.read() as s:
        authorize(s, actor, Policy.EXPORT)
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
        # (annotation.leftovers.remove_abandoned_figure_folders)
        self._folder = Path(tempfile.mkdtemp(
            prefix=figures_folder_prefix(socket.gethostname(), os.getpid())))
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


@checks_numbers
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
        user = authorize(s, actor, Policy.EXPORT)
        project = project_row(s, project_id)
        settings = ProjectSettings.from_dict(project.settings)
        assignment = None
        if reproduce is not None:
            earlier = s.get(DatasetExport, reproduce)
            # a replaced export's folder holds another export, but its split membership is kept
            repeatable = earlier is not None and earlier.status in (COMPLETE, REPLACED)
            if not repeatable or earlier.project_id != project_id:
                raise NotFound(f"There is no complete export {reproduce} of this project to repeat.")
            base, seed, licence = earlier.base, earlier.seed, earlier.licence
            assignment = {}
            for per_split in (earlier.splits or {}).values():
                for split, ids in per_split.items():
                    assignment.update({i: split for i in ids})
        # a large export starts the figures' process now, so it starts up while the rows are read
        figures = stack.enter_context(_figures_runner(count_gold(s, project_id)))
        # the protocol's export layout decides the rest: its reader's gold, its checks, its writer
        # (whose card's agreement is the layout's: a pair's covers the change label and both curves)
        protocol = protocol_of(settings)
        layout = protocol.export
        only = set(assignment) if assignment is not None else None
        read = read_export_input(s, project_id, only=only, agreement=include_agreement,
                                 pairs=protocol.uses(CONTEXT), change_factor=settings.change_factor)
        samples: list[Any] = services_of(settings).export_gold(s, project_id, read, only)
        if assignment is not None and len(samples) != len(assignment):
            lost = sorted(set(assignment) - {g.external_id for g in samples})
            raise InvalidInput(f"{len(lost)} samples of export {reproduce} no longer have gold "
                               f"(e.g. {', '.join(lost[:5])}); it cannot be repeated exactly.")
        project_name = project.name
    if not samples:
        raise InvalidInput("No sample has gold values yet: resolve the double annotations "
                           "(Review page or `chronocept resolve`) before exporting.")
    problems = layout.checks(samples)
    if problems:  # refused before the row is made: nothing is written or recorded
        raise InvalidInput(f"{counted(len(problems), layout.noun)} cannot be exported — {problems[0]}"
                           + (" …" if len(problems) > 1 else "") + "; settle them again on the Review page.")
    try:
        export_settings = hf_export.ExportSettings(
            base=settings.log_base if base is None else base,
            seed=secrets.randbelow(2**31) if seed is None else seed,
            licence=licence or hf_export.DEFAULT_LICENCE)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    target = Path(out_dir).expanduser().resolve()
    try:  # a refused destination records nothing: checked before the row is made
        hf_export.check_destination(target, overwrite)
    except FileExistsError:
        raise (FolderNotEmpty(target) if target.is_dir() and not target.is_symlink() else
               InvalidInput(f"{target} already exists and is not a folder; choose another place.")) from None
    recover_interrupted_exports(db, project_id)
    hf_export.remove_abandoned_staging(target)  # a killed export to this folder (no row: older)
    # The figures (provenance and card: numpy over every pair of curves and segmentations) are
    # computed beside the formatting of the records (pure Python), which takes them last.
    figure_input = dataclasses.replace(read.figures, base=export_settings.base)
    # the annotators as experts: beside the agreement figures (their own card section), by pseudonym
    experts = expert_figures_by_pseudonym(db, project_id) if include_agreement else None
    with ThreadPoolExecutor(max_workers=1) as worker:
        computing = worker.submit(figures.compute, figure_input)
        try:
            report(0.1, "Formatting the annotations; computing the provenance and agreement figures…")
            annotations = read.records()
            report(0.35, f"Writing {len(samples)} samples and {len(annotations)} annotations…")
            export_id, created_at = start_record(db, actor, project_id, target, export_settings, reproduce,
                                                 include_agreement, overwrite)
            try:
                meta = hf_export.ExportMeta(export_id, project_name, user.username, created_at)
                with export_records.heartbeat(db, export_id):  # the row says its writer lives
                    agreement = ((lambda: {**(computing.result().agreement or {}), EXPERTS: experts})
                                 if include_agreement else None)
                    manifest = hf_export.export_dataset(
                        layout.config, target, samples, export_settings, meta=meta, annotations=annotations,
                        change_factor=settings.change_factor, agreement=agreement, splits=assignment,
                        provenance=lambda: computing.result().provenance, overwrite=overwrite)
                seconds = time.perf_counter() - started
                record = finish_record(db, actor, user.username, export_id, manifest, seconds, len(samples),
                                       len(annotations))
            except BaseException as exc:
                fail_record(db, export_id, exc)
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


@dataclass(frozen=True)
class ExportStatistics:
    """What the statistics page shows of one export: per benchmark, the statistics and the
    records (for histograms and curve overlays)."""

    export: ExportRecord
    statistics: Mapping[int, DatasetStatistics]
    records: Mapping[int, Mapping[str, list[dict[str, Any]]]]
    base: float


@checks_numbers
def export_statistics(db: Database, actor: Actor, export_id: int) -> ExportStatistics:
    """Lead: read an export folder back and compute its statistics (``annotation.corpus.dataset_stats``)."""
    record = get_export(db, actor, export_id)
    if record.status == REPLACED:
        raise InvalidInput(f"Export {export_id} was {record.status_text}; repeat it to see its statistics.")
    if record.status != "complete":
        raise InvalidInput(f"Export {export_id} is not complete ({record.status_text}).")
    if not record.folder_exists:
        raise NotFound(f"The folder of export {export_id} ({record.path}) is no longer on this server; "
                       "repeat the export to see its statistics.")
    if record.layout.no_statistics:  # these statistics are of curves over segmented texts
        raise InvalidInput(f"Export {export_id} {record.layout.no_statistics}.")
    try:
        # the benchmark configs only: the annotations (often 2× as many lines) are not shown
        contents = hf_export.read_export(record.path, configs=tuple(hf_export.BENCHMARK_CONFIGS.values()))
    except (OSError, ValueError, KeyError) as exc:
        raise InvalidInput(f"The folder of export {export_id} cannot be read: {exc}") from None
    stats, records = {}, {}
    for b, name in hf_export.BENCHMARK_CONFIGS.items():
        per_split = contents.records.get(name, {})
        if sum(len(v) for v in per_split.values()):
            stats[b] = dataset_statistics(per_split)
            records[b] = per_split
    return ExportStatistics(record, stats, records, contents.manifest.base)
