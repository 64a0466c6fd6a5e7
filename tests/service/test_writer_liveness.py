"""Whether a writer still runs is one rule everywhere: a background job's worker, an export, an
import, a backup's or an export's leftovers — this host's process gone (a zombie included: it has
exited, only its parent has not collected it yet), or its heartbeat stale — answered by one check
of the process, ``db.processes.process_is_alive``, which backups (``db``) and the domain share."""

from __future__ import annotations

import os
import socket
import time

import pytest

from annotation import leftovers
from annotation.services.export import exports
from annotation.services.jobs import jobs
from db import backup, processes
from db.models import DatasetExport, Job, utcnow


@pytest.fixture
def zombie() -> int:
    """A process of this host that has exited and that nobody has collected yet."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # it has exited; still there, uncollected
    yield pid
    os.waitpid(pid, 0)


def test_every_check_of_a_process_is_the_one_of_db(zombie):
    assert leftovers.process_is_alive is processes.process_is_alive is backup.process_is_alive
    assert processes.process_is_alive(os.getpid()) and not processes.process_is_alive(zombie)


def test_the_leftovers_of_a_zombie_writer_are_abandoned(zombie, tmp_path):
    host = socket.gethostname()
    assert not leftovers.writer_is_alive({"host": host, "pid": zombie}, time.time())
    temporary = tmp_path / f".backup-{host}-{zombie}-abcd1234"
    figures = tmp_path / f"{leftovers.figures_folder_prefix(host, zombie)}abcd1234"
    temporary.write_bytes(b"half a backup")
    figures.mkdir()
    assert backup.remove_abandoned_backups(tmp_path) == [temporary]
    assert leftovers.remove_abandoned_figure_folders(tmp_path) == [figures]


def test_a_job_and_an_export_whose_writer_is_a_zombie_are_both_found_dead(db, lead, make_project, zombie, tmp_path):
    """Both beat a moment ago: only the process tells that their writer is gone."""
    pid = make_project(1)
    writer = {"host": socket.gethostname(), "pid": zombie}
    with db.write() as s:
        row = Job(project_id=pid, kind=jobs.TRAINING, status="running", started_at=utcnow(), heartbeat_at=utcnow(),
                  **writer)
        export = DatasetExport(project_id=pid, created_by=lead.user_id, path=str(tmp_path / "out"), base=1.1, seed=1,
                               licence="cc-by-4.0", status="writing", heartbeat_at=utcnow(),
                               settings={"writer": writer})
        s.add_all([row, export])
        s.flush()
        job, export_id = row.id, export.id

    listed = jobs.get_job(db, lead, job)
    assert (listed.status, listed.message) == ("failed", f"{jobs.WORKER_GONE}: its process (pid {zombie} on "
                                                         f"{socket.gethostname()}) is gone.")
    assert exports.get_export(db, lead, export_id).status_text == f"failed: {leftovers.WORKER_GONE}"
