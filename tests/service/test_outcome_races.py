"""A job's or an export's outcome written by two parties at once — its own process finishing, and
another app server's listing that takes it for dead — ends with exactly one outcome, and the one
that lost changes nothing: on SQLite and on PostgreSQL (READ COMMITTED), each interleaving driven
step by step (:mod:`write_races`: the other party commits at the last moment it still can).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, insert, select

from annotation.export import ExportManifest
from annotation.services.export import export_records, exports
from annotation.services.jobs import jobs
from annotation.services.model import model_loop
from annotation.services.errors import InvalidInput
from annotation.services.jobs.job_reporter import JobReporter, finish_job
from db.models import AuditEvent, DatasetExport, Job, ModelPrediction, Sample, utcnow
from write_races import before_the_write_locks, second_handle

#: another app server's process: a process id that means nothing here
FAR_AWAY = {"host": "app-server-far-away", "pid": 4242}
SILENT = timedelta(minutes=10)


@pytest.fixture
def other(db):
    """The other party: another app server, or the worker's process."""
    handle = second_handle(db)
    yield handle
    handle.dispose()


def _job(db, project_id: int, status: str, *, silent: bool = False) -> int:
    """A predict job with a row for every sample of the project; a running one last beat just
    now, or (``silent``) ten minutes ago on another host."""
    beat = utcnow() - (SILENT if silent else timedelta(0))
    with db.write() as s:
        job = Job(project_id=project_id, kind="predict", status=status, host=FAR_AWAY["host"],
                  pid=FAR_AWAY["pid"], started_at=beat, heartbeat_at=beat, message="Storing…")
        s.add(job)
        s.flush()
        samples = s.scalars(select(Sample.id).where(Sample.project_id == project_id)).all()
        s.execute(insert(ModelPrediction.__table__), [
            {"job_id": job.id, "sample_id": sid, "xi": 40.0, "omega": 8.0, "alpha": 0.0, "spread_w1": 1.0,
             "half_gone_minutes": 100.0, "half_gone_low": 50.0, "half_gone_high": 200.0} for sid in samples])
        return job.id


def _state(db, job_id: int) -> tuple[str, str, int]:
    with db.read() as s:
        job = s.get(Job, job_id)
        rows = s.scalar(select(func.count()).select_from(ModelPrediction).where(ModelPrediction.job_id == job_id))
        return job.status, job.message, rows


def _latest_predict(db, project_id: int) -> int:
    with db.read() as s:
        return model_loop.latest_job(s, project_id, "predict").id


def test_a_worker_succeeding_as_it_is_found_dead_keeps_its_success(db, other, lead, make_project):
    pid = make_project(5)
    earlier = _job(db, pid, "succeeded")
    job = _job(db, pid, "running", silent=True)

    def worker_succeeds() -> None:
        assert finish_job(other, job, "succeeded", "Predicted 5 samples.", only_if=("running",))

    with before_the_write_locks(db, worker_succeeds) as ran:
        jobs.list_jobs(db, lead, pid)  # judged dead: silent for ten minutes
    assert ran
    assert _state(db, job) == ("succeeded", "Predicted 5 samples.", 5)
    assert _latest_predict(db, pid) == job != earlier


def test_a_worker_found_dead_as_it_succeeds_stays_failed_with_no_rows(db, other, lead, make_project):
    pid = make_project(5)
    earlier = _job(db, pid, "succeeded")
    job = _job(db, pid, "running", silent=True)

    with before_the_write_locks(db, lambda: jobs.list_jobs(other, lead, pid)) as ran:
        written = finish_job(db, job, "succeeded", "Predicted 5 samples.", only_if=("running",))
    assert ran and not written
    status, message, rows = _state(db, job)
    assert (status, rows) == ("failed", 0) and message.startswith(f"{jobs.WORKER_GONE}: it has been silent since")
    assert _latest_predict(db, pid) == earlier  # the earlier complete set stays current
    assert _state(db, earlier)[2] == 5


def test_a_worker_that_beats_as_it_is_found_dead_runs_on(db, other, lead, make_project):
    pid = make_project(5)
    job = _job(db, pid, "running", silent=True)

    with before_the_write_locks(db, lambda: JobReporter(other, job).flush()) as ran:
        jobs.list_jobs(db, lead, pid)
    assert ran
    assert _state(db, job)[::2] == ("running", 5)
    with db.read() as s:
        assert utcnow() - s.get(Job, job).heartbeat_at < SILENT


# --- exports ------------------------------------------------------------------------------------


def _writing_export(db, project_id: int, lead, tmp_path) -> int:
    """An export row still writing, its writer on another app server, silent for ten minutes."""
    silent_since = utcnow() - SILENT
    with db.write() as s:
        row = DatasetExport(project_id=project_id, created_by=lead.user_id, path=str(tmp_path / "out"), base=1.1,
                            seed=1, licence="cc-by-4.0", status="writing", created_at=silent_since,
                            heartbeat_at=silent_since, settings={"ratios": [0.7, 0.2, 0.1], "writer": FAR_AWAY})
        s.add(row)
        s.flush()
        return row.id


def _finish(db, lead, export_id: int):
    manifest = ExportManifest(export_id, "Project 1", "2026-01-01T00:00:00Z", "lead1", 1.1, 1, "cc-by-4.0",
                              (0.7, 0.2, 0.1), {"benchmark_1": {"train": 1, "validation": 0, "test": 0}},
                              {"benchmark_1": {"train": ["S-000"], "validation": [], "test": []}})
    return export_records.finish_record(db, lead, "lead1", export_id, manifest, 1.0, 1, 0)


def _export_state(db, export_id: int) -> tuple[str, str, dict, int]:
    with db.read() as s:
        row = s.get(DatasetExport, export_id)
        audited = s.scalar(select(func.count()).select_from(AuditEvent)
                           .where(AuditEvent.entity == "export", AuditEvent.entity_id == str(export_id)))
        return row.status, row.error, dict(row.splits or {}), audited


def test_an_export_finishing_as_it_is_found_dead_is_complete(db, other, lead, make_project, tmp_path):
    pid = make_project(1)
    export_id = _writing_export(db, pid, lead, tmp_path)

    with before_the_write_locks(db, lambda: _finish(other, lead, export_id)) as ran:
        listed = exports.list_exports(db, lead, pid)
    assert ran
    assert [(r.id, r.status) for r in listed] == [(export_id, "complete")]
    status, error, splits, audited = _export_state(db, export_id)
    assert (status, error, audited) == ("complete", "", 1) and splits["benchmark_1"]["train"] == ["S-000"]


def test_an_export_found_dead_as_it_finishes_stays_failed_and_its_finish_changes_nothing(
        db, other, lead, make_project, tmp_path):
    pid = make_project(1)
    export_id = _writing_export(db, pid, lead, tmp_path)

    with before_the_write_locks(db, lambda: exports.list_exports(other, lead, pid)) as ran:
        with pytest.raises(InvalidInput, match=f"^Export {export_id} was taken for dead while it finished"):
            _finish(db, lead, export_id)
    assert ran
    assert _export_state(db, export_id) == ("failed", export_records.WORKER_GONE, {}, 1)


def test_an_export_that_beats_as_it_is_found_dead_keeps_writing(db, other, lead, make_project, tmp_path):
    pid = make_project(1)
    export_id = _writing_export(db, pid, lead, tmp_path)

    with before_the_write_locks(db, lambda: export_records.beat_once(other, export_id)) as ran:
        assert exports.list_exports(db, lead, pid)[0].status == "writing"
    assert ran
    assert _export_state(db, export_id) == ("writing", "", {}, 0)
