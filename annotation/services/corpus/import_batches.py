"""An import's batch row (``import_batches``): a project's one unfinished import, the process
writing it, and the hold that every write of the import takes on it.

Every write made under a batch — a hidden batch of samples or of staged annotations, the commit
point, a chunk of publishing or of rolling back, by the import itself or by another process
recovering it — first *holds* the batch (:func:`hold_batch`) in its own transaction: a
conditional update of the heartbeat that finds the batch still its project's unfinished import,
in the state that write expects. The update locks the row until the transaction ends
(PostgreSQL; a write transaction on SQLite holds the whole database), so two processes acting on
one batch take turns, and a write whose batch was rolled back or finished meanwhile by another
process changes nothing. The samples an import writes carry its batch's id
(``samples.import_batch_id``): publishing or rolling back a batch touches its own rows, never
those of the next import into the project.

The writer (:func:`this_writer`) is the process's id and where that id means one process
(:func:`annotation.leftovers.pid_scope`: host, boot, pid namespace); :func:`writer_is_gone`
judges it.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from annotation.leftovers import pid_scope, writer_is_alive
from annotation.wording import NOTHING_IMPORTED, refusal
from annotation.services.projects.projects import IMPORTING
from db.models import IMPORT_BATCH_STATUSES, ImportBatch, Sample, utcnow

#: The batch's states: rows being written (hidden), past the commit point (being made visible),
#: done.
RUNNING, PUBLISHING, PUBLISHED = IMPORT_BATCH_STATUSES
#: An unfinished import whose heartbeat is older than this lost its process (wherever it ran);
#: the next import into the project cleans it up (deletes its hidden rows, or finishes
#: publishing them).
STALE_IMPORT_S = 120.0

#: What an import says when another process, finding its heartbeat late, took it for dead and
#: rolled it back while it was still writing: none of its rows are left.
ROLLED_BACK_MEANWHILE = refusal(
    "This import wrote nothing for too long and another process, taking it for one whose process "
    "had died, rolled it back; import the file again", NOTHING_IMPORTED)


def this_writer() -> dict[str, Any]:
    """The ``host`` and ``pid`` columns of a batch this process writes."""
    return {"host": pid_scope(), "pid": os.getpid()}


def writer_is_gone(host: str, pid: int | None, heartbeat_at: datetime, now: datetime, *,
                   stale_after_s: float = STALE_IMPORT_S) -> bool:
    """Whether the process writing an import is dead: its process ``pid`` is gone where that id
    means one process (``host``, a :func:`annotation.leftovers.pid_scope`, is this process's),
    or the heartbeat is older than ``stale_after_s`` — the only sign for a process elsewhere (an
    app server on another host, another container). An import recorded without its writer
    (``host`` "") is judged by its heartbeat alone."""
    writer = {"host": host, "pid": pid} if host else None
    return not writer_is_alive(writer, heartbeat_at.timestamp(), now=now.timestamp(), max_age=stale_after_s)


def hold_batch(s: Session, batch_id: int, status: str, project_id: int | None = None) -> bool:
    """In the caller's write transaction, before it writes anything of the batch: move the
    heartbeat of batch ``batch_id`` if it is still an unfinished import (of ``project_id`` when
    given) in ``status``, which locks its row until the transaction ends. False when it is not:
    another process rolled it back or finished it meanwhile, and the caller writes nothing."""
    held = s.execute(update(ImportBatch)
                     .where(ImportBatch.id == batch_id, ImportBatch.status == status,
                            ImportBatch.open_project_id == project_id if project_id is not None
                            else ImportBatch.open_project_id.is_not(None))
                     .values(heartbeat_at=utcnow())
                     .execution_options(synchronize_session=False))
    return held.rowcount == 1


def hidden_ids(s: Session, batch_id: int, limit: int) -> list[int]:
    """The first ``limit`` hidden rows of batch ``batch_id``, in id order."""
    return list(s.scalars(select(Sample.id).where(Sample.import_batch_id == batch_id, Sample.status == IMPORTING)
                          .order_by(Sample.id).limit(limit)))


def count_hidden(s: Session, batch_id: int) -> int:
    """How many hidden rows batch ``batch_id`` holds."""
    return s.scalar(select(func.count()).select_from(Sample)
                    .where(Sample.import_batch_id == batch_id, Sample.status == IMPORTING)) or 0
