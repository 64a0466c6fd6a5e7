"""A large import whose process is killed (SIGKILL) while it writes its hidden batches is cleaned
up by the very next import, which then imports everything — one retry, on SQLite and PostgreSQL,
for texts and for context pairs, through ``chronocept import … --project NEW``.

The import runs in a forked process of this test (no new interpreter to start); it stops after
its second hidden batch and tells the test, which kills it there. Meanwhile the project the
import is creating is listed nowhere, and a second import waits its turn (the writer lives).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from annotation import leftovers
from annotation.corpus.text_import import TextRecord
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.errors import InvalidInput, NotFound
from db.models import ImportBatch, Project, Sample, SamplePair, utcnow
from gone_processes import pid_of_no_process
from service_helpers import run_cli

N_RECORDS = 180  # four hidden batches of 50


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 50)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)


def _file(tmp_path, kind: str):
    path = tmp_path / f"big-{kind}.jsonl"
    if kind == "texts":
        lines = [{"text": f"Ferry {i} to the island leaves every hour this summer."} for i in range(N_RECORDS)]
    else:
        lines = [{"target": f"The bridge on road {i // 3} is closed this week.",
                  "follow_up": f"Update {i % 3}: the works on road {i // 3} go on."} for i in range(N_RECORDS)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _import_until_killed(db, argv: list[str], conn) -> None:
    """The child: the CLI import, stopped for good after its second hidden batch."""
    real, written = text_imports._write_hidden_batch, [0]

    def write_then_wait(*args, **kwargs):
        real(*args, **kwargs)
        written[0] += 1
        if written[0] == 2:
            conn.send("two hidden batches written")
            conn.recv()  # never answered: the test kills this process here

    text_imports._write_hidden_batch = write_then_wait
    run_cli(db, *argv)


def _count(db, *where) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(Sample).where(*where)) or 0


@pytest.mark.parametrize("kind", ["texts", "pairs"])
def test_an_import_killed_in_its_hidden_batches_is_redone_by_one_retry(db, admin, tmp_path, kind):
    argv = ["import", kind, str(_file(tmp_path, kind)), "--project", "New"]
    fork = multiprocessing.get_context("fork")
    ours, theirs = fork.Pipe()
    writer = fork.Process(target=_import_until_killed, args=(db, argv, theirs), daemon=True)
    writer.start()
    try:
        assert ours.poll(120), "the import never wrote its second batch"
        ours.recv()
        # while the writer lives, its project is listed nowhere and a second import waits its turn
        assert [p.name for p in projects.list_projects(db, admin)] == []
        code, _, err = run_cli(db, *argv)
        assert code == 1 and "still being written" in err, err
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.join()
    assert writer.exitcode == -signal.SIGKILL
    assert _count(db, Sample.status == text_imports.IMPORTING) == 100
    assert [p.name for p in projects.list_projects(db, admin)] == []

    code, out, err = run_cli(db, *argv)

    assert (code, err) == (0, "")
    assert out.startswith(f"imported {N_RECORDS} ")
    (project,) = projects.list_projects(db, admin)
    assert (project.name, project.n_samples) == ("New", N_RECORDS)
    assert _count(db, Sample.status == text_imports.IMPORTING) == 0
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Project)) == 1  # the dead import's project went
        assert s.execute(select(ImportBatch.status, ImportBatch.open_project_id)).all() == [("published", None)]
        assert (s.scalar(select(func.count()).select_from(SamplePair))
                == (N_RECORDS if kind == "pairs" else 0))


def test_a_writer_on_another_host_is_judged_by_its_heartbeat_alone(db, admin):
    """A process id means nothing on another app server: its import is live while its heartbeat
    is fresh, whatever that id is here; on this host a gone process is dead at once."""
    pid = projects.create_project(db, admin, "Shared").id
    gone = pid_of_no_process()
    with db.write() as s:
        s.add(ImportBatch(project_id=pid, open_project_id=pid, status="running", host="app-server-2",
                          pid=gone, heartbeat_at=utcnow()))
    assert text_imports.recover_interrupted_imports(db) == 0
    with pytest.raises(InvalidInput, match="still being written"):
        text_imports.import_texts(db, admin, pid, [TextRecord("The pier is closed today.", 1, None, 1)])

    with db.write() as s:  # this host, the same dead process, a fresh heartbeat: dead
        s.execute(update(ImportBatch).values(host=leftovers.pid_scope()))
    assert text_imports.recover_interrupted_imports(db) == 1

    with db.write() as s:  # the other host again, silent for longer than an import ever is
        s.add(ImportBatch(project_id=pid, open_project_id=pid, status="running", host="app-server-2",
                          pid=os.getpid(), heartbeat_at=utcnow() - timedelta(seconds=text_imports.STALE_IMPORT_S + 1)))
    assert text_imports.import_texts(db, admin, pid, [TextRecord("The pier is closed today.", 1, None, 1)]).added == 1


def test_an_import_into_a_project_whose_creating_import_died_finds_it_gone(db, admin):
    """Named by its id (the CLI and the pages name it by name, and it is listed nowhere), the
    project of a dead creating import is rolled back with it: the import says there is none."""
    pid = projects.create_project(db, admin, "Half made").id
    with db.write() as s:
        s.add(ImportBatch(project_id=pid, open_project_id=pid, status="running", creates_project=True,
                          host=leftovers.pid_scope(), pid=pid_of_no_process(), heartbeat_at=utcnow()))
    with pytest.raises(NotFound):
        text_imports.import_texts(db, admin, pid, [TextRecord("The pier is closed today.", 1, None, 1)])
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Project)) == 0


def test_a_writer_in_another_pid_namespace_under_this_host_name_is_judged_by_its_heartbeat(db, admin, monkeypatch):
    """Containers that share a host name (and a kernel) but not a pid namespace: the other
    container's writer has a process id no process here has, and its import is live while its
    heartbeat is fresh, as on another host."""
    pid = projects.create_project(db, admin, "Shared").id
    boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    with monkeypatch.context() as other_container:  # its import starts there
        other_container.setattr(leftovers, "_boot_and_pid_namespace", lambda: (boot, 1), raising=False)
        other_container.setattr(os, "getpid", pid_of_no_process)
        text_imports.claim_import(db, admin, pid, "big.jsonl", None)

    assert text_imports.recover_interrupted_imports(db) == 0
    with pytest.raises(InvalidInput, match="still being written"):
        text_imports.import_texts(db, admin, pid, [TextRecord("The pier is closed today.", 1, None, 1)])


def test_an_import_leaves_another_projects_dead_import_to_that_projects_next_import(db, admin, tmp_path):
    """``chronocept import texts --project B`` cleans up a dead import creating or filling B, not
    one into project A: that one is cleaned up by A's next import (or the app's start)."""
    a = projects.create_project(db, admin, "A").id
    projects.create_project(db, admin, "B")
    with db.write() as s:
        s.add(ImportBatch(project_id=a, open_project_id=a, status="running", host="", pid=None,
                          heartbeat_at=utcnow() - timedelta(seconds=text_imports.STALE_IMPORT_S + 1)))
    texts = tmp_path / "t.txt"
    texts.write_text("The pier is closed today.\n", encoding="utf-8")

    assert run_cli(db, "import", "texts", str(texts), "--project", "B")[0] == 0

    with db.read() as s:
        assert s.scalar(select(ImportBatch.open_project_id).where(ImportBatch.status == "running")) == a
    assert text_imports.import_texts(db, admin, a, [TextRecord("The pier is closed today.", 1, None, 1)]).added == 1


def test_an_import_naming_the_project_a_dead_import_was_creating_past_its_commit_point_fills_it(
        db, admin, tmp_path, monkeypatch):
    """The dead import had passed its commit point: the CLI finishes it first, and the project it
    created (listed from then on) is imported into, not created again."""
    with monkeypatch.context() as dying:  # dies right after its commit point
        dying.setattr(text_imports, "_publish_import", lambda *a, **k: None)
        assert run_cli(db, "import", "texts", str(_file(tmp_path, "texts")), "--project", "New")[0] == 0
    with db.write() as s:
        s.execute(update(ImportBatch).values(pid=pid_of_no_process()))
    assert projects.list_projects(db, admin) == []
    more = tmp_path / "more.txt"
    more.write_text("The pier is closed today.\n", encoding="utf-8")

    code, out, err = run_cli(db, "import", "texts", str(more), "--project", "New")

    assert (code, err) == (0, "") and out.startswith("imported 1 ")
    (project,) = projects.list_projects(db, admin)
    assert (project.name, project.n_samples) == ("New", N_RECORDS + 1)
