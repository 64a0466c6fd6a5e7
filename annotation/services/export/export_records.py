"""The record of every export (``dataset_exports``): its life from ``writing`` to ``complete``,
``failed`` or ``replaced``, the recovery of exports killed while writing, and the listing.

A row's status says what its folder holds:

* ``writing`` — the folder is being built (the row is made first so the manifest carries its id);
* ``complete`` — the folder holds this export's files;
* ``failed`` — nothing was written; ``error`` says why (:data:`INTERRUPTED` for an interrupted
  export, :data:`WORKER_GONE` for one whose writer died);
* ``replaced`` — a later export was written into the same folder (with "Replace the folder" /
  ``--overwrite``, or after the folder was removed), so the folder holds *that* export's files.
  The row keeps its split membership, so "Repeat exactly" writes it anew into another folder.

A destination the export refuses (a file, or a folder with files and no overwrite) records
nothing: the refusal happens before the row is made, and should the destination be taken
between the check and the final rename, the row is removed again (:func:`fail_record`).

While it writes, an export moves its row's heartbeat every :data:`HEARTBEAT_EVERY_S` seconds
(:func:`heartbeat`). Its writer is dead when it is this host's process and gone, or when the
heartbeat is older than :data:`HEARTBEAT_STALE_S` — the only sign of life from another app
server sharing the database (a row from before heartbeats: an hour after it started). Every
listing (:func:`list_exports`, :func:`get_export`) marks such an export failed first
(:func:`recover_interrupted_exports`), so none reads as "writing" after its writer died.

The recovery and the export's own end race (another app server may judge an export dead just
as it finishes): each writes its outcome with one conditional ``UPDATE`` — the recovery only if
the row is still ``writing`` with the heartbeat it judged stale, the export only if the row is
still ``writing`` — so exactly one outcome is written and the other changes nothing. A check
read first and an ``UPDATE`` after it would both pass on PostgreSQL (READ COMMITTED).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from sqlalchemy import select, update

from annotation import export as hf_export
from annotation.leftovers import WORKER_GONE
from annotation.protocols import ExportLayout, PROTOCOLS, layout_of_export
from annotation.services import audit
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import DatasetExport, User, utcnow

WRITING, COMPLETE, FAILED, REPLACED = "writing", "complete", "failed", "replaced"
#: the ``error`` of an export interrupted while writing (the page left, the server stopped it)
INTERRUPTED = "interrupted"
#: how often a writing export moves its heartbeat, and how old one is when its writer is dead
#: (a beat is one short write; a live export never misses a dozen in a row)
HEARTBEAT_EVERY_S = 5.0
HEARTBEAT_STALE_S = 90.0


#: the layout of an export written per benchmark configuration
SINGLE_LAYOUT = PROTOCOLS["single"].export


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
    #: the export written into this one's folder since (status ``replaced``)
    replaced_by: int | None = None
    #: the exports whose folder this one took (only on the record an export returns)
    replaces: tuple[int, ...] = ()
    #: the layout it was written in (annotation.protocols.layout_of_export)
    layout: ExportLayout = SINGLE_LAYOUT
    #: the samples per split of the layout's own configuration, for a layout written in one
    #: (``{"train": n, …}``; empty for the benchmark configurations, :attr:`split_sizes`)
    own_sizes: dict[str, int] = field(default_factory=dict)

    @property
    def folder_exists(self) -> bool:
        return Path(self.path, hf_export.MANIFEST_FILE).is_file()

    @property
    def holds_its_files(self) -> bool:
        """Whether its folder is there and holds this export (a zip or statistics of it make sense)."""
        return self.status == COMPLETE and self.folder_exists

    @property
    def repeatable(self) -> bool:
        """Whether "Repeat exactly" can write it (again): its split membership is recorded."""
        return self.status in (COMPLETE, REPLACED)

    @property
    def status_text(self) -> str:
        """The status in words, with the reason or the replacing export."""
        if self.status == REPLACED:
            return f"replaced by export {self.replaced_by} (same folder)"
        return self.status + (f": {self.error}" if self.error else "")

    @property
    def n_samples(self) -> int:
        return sum(sum(sizes.values()) for sizes in self.split_sizes.values()) + sum(self.own_sizes.values())

    def sizes_text(self, *, long: bool) -> str:
        """Its split sizes in words: on the Export page (``long``) or a line of the CLI."""
        if self.own_sizes:
            return self.layout.said(self.layout.sizes_caption if long else self.layout.sizes_line, self.own_sizes)
        if long:
            return " · ".join(f"benchmark {b}: {s['train']} train / {s['validation']} validation / {s['test']} test"
                              for b, s in self.split_sizes.items())
        return ", ".join(f"benchmark {b}: {c['train']}/{c['validation']}/{c['test']}" for b, c in self.split_sizes.items())


def record_of(row: DatasetExport, username: str | None, replaces: tuple[int, ...] = ()) -> ExportRecord:
    counts = row.counts or {}
    sizes = {b: dict(counts.get(cfg, {})) for b, cfg in hf_export.BENCHMARK_CONFIGS.items()
             if sum(counts.get(cfg, {}).values())}
    n_annotations = sum(counts.get(hf_export.ANNOTATIONS_CONFIG, {}).values())
    layout = layout_of_export(counts)
    settings = row.settings or {}
    return ExportRecord(row.id, row.project_id, row.path, row.base, row.seed, row.licence, row.status,
                        row.error, row.created_at, username or "—", sizes, n_annotations,
                        row.reproduces_id, settings.get("seconds"), settings.get("replaced_by"), replaces,
                        layout, layout.own_sizes(counts))


def _is_interrupted(row: DatasetExport, now: datetime) -> bool:
    writer = (row.settings or {}).get("writer")
    writer = writer if isinstance(writer, dict) else None
    if row.heartbeat_at is not None:
        return not hf_export.writer_is_alive(writer, row.heartbeat_at.timestamp(), now=now.timestamp(),
                                             max_age=HEARTBEAT_STALE_S)
    started = row.created_at
    if started.tzinfo is None:
        started = started.replace(tzinfo=timezone.utc)
    return not hf_export.writer_is_alive(writer, started.timestamp(), now=now.timestamp())


@dataclass(frozen=True)
class InterruptedExport:
    """An export judged interrupted, with the heartbeat it was judged on (None: a row from
    before heartbeats, judged by its age), which the write that fails it requires unchanged."""

    id: int
    heartbeat_at: datetime | None


def find_interrupted_exports(db: Database, project_id: int | None = None) -> list[InterruptedExport]:
    """The exports stuck at ``writing`` whose writer is dead (module docstring): one indexed read."""
    now = datetime.now(timezone.utc)
    with db.read() as s:
        stmt = select(DatasetExport).where(DatasetExport.status == WRITING)
        if project_id is not None:
            stmt = stmt.where(DatasetExport.project_id == project_id)
        return [InterruptedExport(row.id, row.heartbeat_at) for row in s.scalars(stmt) if _is_interrupted(row, now)]


def fail_interrupted_export(db: Database, judged: InterruptedExport) -> str | None:
    """Mark a judged export ``failed`` (:data:`WORKER_GONE`) if it is still writing with the
    heartbeat it was judged on; its folder's path, or None when it finished, failed or beat
    meanwhile (its writer lives: nothing is changed)."""
    beat_unchanged = (DatasetExport.heartbeat_at.is_(None) if judged.heartbeat_at is None
                      else DatasetExport.heartbeat_at == judged.heartbeat_at)
    with db.write() as s:
        path = s.scalar(update(DatasetExport)
                        .where(DatasetExport.id == judged.id, DatasetExport.status == WRITING, beat_unchanged)
                        .values(status=FAILED, error=WORKER_GONE).returning(DatasetExport.path)
                        .execution_options(synchronize_session=False))
        if path is not None:
            audit.record(s, None, "export_interrupted", "export", judged.id, path=path)
        return path


def recover_interrupted_exports(db: Database, project_id: int | None = None) -> list[int]:
    """Mark exports stuck at ``writing`` whose writer is dead (module docstring) as ``failed``
    (:data:`WORKER_GONE`) and remove their abandoned staging folders (see
    :mod:`annotation.services.export.exports`); returns their ids.

    Cheap when there is nothing to do: one indexed read. Never raises for a folder it cannot
    remove (it stays for the next time)."""
    recovered: list[int] = []
    for judged in find_interrupted_exports(db, project_id):
        path = fail_interrupted_export(db, judged)
        if path is None:
            continue  # someone else recovered it, or it finished or beat meanwhile
        recovered.append(judged.id)
        try:
            hf_export.remove_abandoned_staging(path)
        except OSError:
            pass
    return recovered


def start_record(db: Database, actor: Actor, project_id: int, target: Path,
                 export_settings: hf_export.ExportSettings, reproduce: int | None, include_agreement: bool,
                 overwrite: bool) -> tuple[int, datetime]:
    """The export's row, status ``writing``, made before the folder so its manifest carries the
    id: (id, created at). Re-checks the actor's role."""
    with db.write() as s:
        authorize(s, actor, Policy.EXPORT)
        now = utcnow()
        row = DatasetExport(project_id=project_id, created_by=actor.user_id, path=str(target),
                            created_at=now, heartbeat_at=now,
                            base=export_settings.base, seed=export_settings.seed,
                            licence=export_settings.licence, reproduces_id=reproduce, status=WRITING,
                            settings={"ratios": list(export_settings.ratios),
                                      "include_agreement": include_agreement, "overwrite": overwrite,
                                      "writer": hf_export.writer_identity()})
        s.add(row)
        s.flush()
        return row.id, row.created_at


@contextmanager
def heartbeat(db: Database, export_id: int) -> Iterator[None]:
    """Move the export's heartbeat every :data:`HEARTBEAT_EVERY_S` seconds while the body runs
    (a thread of its own: the export's formatting holds no lock it would wait for)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT_EVERY_S):
            try:
                beat_once(db, export_id)
            except Exception:  # noqa: BLE001 - a missed beat is not the export's failure; the next one may pass
                pass

    thread = threading.Thread(target=beat, name=f"export-{export_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def beat_once(db: Database, export_id: int) -> None:
    """One heartbeat of a writing export (a finished or failed one keeps its last)."""
    with db.write() as s:
        s.execute(update(DatasetExport).where(DatasetExport.id == export_id, DatasetExport.status == WRITING)
                  .values(heartbeat_at=utcnow()).execution_options(synchronize_session=False))


def finish_record(db: Database, actor: Actor, username: str, export_id: int,
                  manifest: hf_export.ExportManifest, seconds: float, n_samples: int,
                  n_annotations: int) -> ExportRecord:
    """Mark the export complete with its split membership, counts and time, mark the complete
    exports whose folder it now occupies ``replaced``, and audit it — if it is still writing.
    One that was taken for dead meanwhile (:func:`recover_interrupted_exports`: silent for
    :data:`HEARTBEAT_STALE_S`) stays failed: :class:`InvalidInput`, nothing changed."""
    with db.write() as s:
        finished = s.execute(update(DatasetExport)
                             .where(DatasetExport.id == export_id, DatasetExport.status == WRITING)
                             .values(status=COMPLETE).execution_options(synchronize_session=False)).rowcount
        if not finished:
            raise InvalidInput(f"Export {export_id} was taken for dead while it finished (silent for over "
                               f"{HEARTBEAT_STALE_S:.0f} s) and marked failed; its folder was written, but the "
                               "export is not recorded as complete: export again.")
        row = s.get(DatasetExport, export_id)
        row.splits = {c: {sp: list(ids) for sp, ids in per.items()} for c, per in manifest.splits.items()}
        row.counts = {c: dict(per) for c, per in manifest.counts.items()}
        row.settings = {**row.settings, "seconds": round(seconds, 3),
                        "annotations_left_out": manifest.annotations_left_out}
        # any project's export: the folder is one place on disk, whoever wrote it before
        earlier = s.scalars(select(DatasetExport).where(
            DatasetExport.path == row.path, DatasetExport.id != export_id,
            DatasetExport.status == COMPLETE)).all()
        for old in earlier:
            old.status = REPLACED
            old.settings = {**(old.settings or {}), "replaced_by": export_id}
        replaced = tuple(sorted(old.id for old in earlier))
        audit.record(s, actor.user_id, "export_dataset", "export", export_id, path=row.path,
                     base=row.base, seed=row.seed, reproduces=row.reproduces_id,
                     samples=n_samples, annotations=n_annotations, replaces=list(replaced))
        return record_of(row, username, replaced)


def fail_record(db: Database, export_id: int, exc: BaseException) -> None:
    """Mark the export failed with the reason (an interrupt — the page left, the server
    stopped — is recorded as :data:`INTERRUPTED`, not as an error of the export). A destination
    taken meanwhile (FileExistsError: nothing was written, nothing replaced) is a refusal like
    the one before the row was made, so the row goes."""
    reason = (str(exc) or type(exc).__name__) if isinstance(exc, Exception) else INTERRUPTED
    with db.write() as s:
        row = s.get(DatasetExport, export_id)
        if row is None or row.status != WRITING:
            return
        if isinstance(exc, FileExistsError):
            s.delete(row)
        else:
            row.status, row.error = FAILED, reason[:2000]


@checks_numbers
def list_exports(db: Database, actor: Actor, project_id: int) -> list[ExportRecord]:
    """Lead: the project's exports, newest first (those whose writer died marked failed first)."""
    with db.read() as s:
        authorize(s, actor, Policy.EXPORT)
    recover_interrupted_exports(db, project_id)
    with db.read() as s:
        rows = s.execute(select(DatasetExport, User.username)
                         .outerjoin(User, User.id == DatasetExport.created_by)
                         .where(DatasetExport.project_id == project_id)
                         .order_by(DatasetExport.id.desc())).all()
        return [record_of(row, name) for row, name in rows]


@checks_numbers
def get_export(db: Database, actor: Actor, export_id: int) -> ExportRecord:
    """Lead: one export (marked failed first if its writer died)."""
    with db.read() as s:
        authorize(s, actor, Policy.EXPORT)
        row = s.get(DatasetExport, export_id)
        if row is None:
            raise NotFound(f"There is no export {export_id}.")
        writing, project_id = row.status == WRITING, row.project_id
    if writing:
        recover_interrupted_exports(db, project_id)
    with db.read() as s:
        row = s.get(DatasetExport, export_id)
        who = s.get(User, row.created_by) if row.created_by else None
        return record_of(row, who.username if who else None)
