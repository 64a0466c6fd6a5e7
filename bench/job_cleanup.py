"""A dead predict job's rows removed without holding the write lock (SPEC §10: never over 250 ms
at a time): a project of 100k samples, an earlier predict job that succeeded and a later one whose
worker went silent after storing a row per sample (100k), found dead by a listing of the jobs
(``jobs.list_jobs``, as the Training page and ``chronocept jobs`` call it), which marks it failed
and then deletes its rows, ``job_reporter.DISCARD_CHUNK`` per write.

Printed: the listing's time, the longest write-lock hold of this process (:class:`LockClock` of
``bench/import_resolve.py``: from BEGIN IMMEDIATE, or the first statement that writes on
PostgreSQL, to COMMIT) and, on SQLite, the longest wait of a writer in another process asking for
the lock every 10 ms (:class:`WriterProbe`). For comparison, ``--whole`` first times the same
rows deleted by one ``DELETE`` in one write, as the failure's own write used to.

    python bench/job_cleanup.py [--backend sqlite|postgres|both] [--rows 100000] [--whole]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import delete, func, insert, select  # noqa: E402

from import_resolve import DEFAULT_PG_ADMIN_URL, LockClock, WriterProbe, fresh_url, report  # noqa: E402
from annotation.services.accounts import accounts  # noqa: E402
from annotation.services.jobs import job_reporter, jobs
from annotation.services.projects import projects
from db.engine import Database  # noqa: E402
from db.models import Job, ModelPrediction, Sample, utcnow  # noqa: E402

CHUNK = 5_000


def _chunks(rows: list[dict]):  # type: ignore[no-untyped-def]
    for at in range(0, len(rows), CHUNK):
        yield rows[at:at + CHUNK]


def _load(db: Database, n: int) -> tuple[object, int, int, int]:
    """The admin, the project, the succeeded job and the silent one, each job with ``n`` rows."""
    admin = accounts.create_first_admin(db, "admin", "admin-password-123")
    project = projects.create_project(db, admin, "Bench project")
    with db.engine.begin() as conn:
        for chunk in _chunks([dict(project_id=project.id, external_id=f"B1-{i:06d}", benchmark=1,
                                   parent_text=f"Text number {i} of the bench.", n_tokens=6, status="active",
                                   n_assigned=0, source="bench") for i in range(n)]):
            conn.execute(insert(Sample.__table__), chunk)
        samples = [r[0] for r in conn.execute(select(Sample.id).where(Sample.project_id == project.id))]
        silent_since = utcnow() - timedelta(minutes=10)
        job_ids = []
        for status in ("succeeded", "running"):
            job_ids.append(conn.execute(insert(Job.__table__).values(
                project_id=project.id, kind="predict", status=status, host="gpu-host-far-away", pid=1,
                started_at=silent_since, heartbeat_at=silent_since, config={}, result={}, progress=0.0,
                message="", log="", run_dir="", launcher="", cancel_requested=False,
                created_at=silent_since)).inserted_primary_key[0])
        for job_id in job_ids:
            for chunk in _chunks([dict(job_id=job_id, sample_id=sid, xi=40.0, omega=8.0, alpha=0.0, spread_w1=1.0,
                                       half_gone_minutes=100.0, half_gone_low=50.0, half_gone_high=200.0)
                                  for sid in samples]):
                conn.execute(insert(ModelPrediction.__table__), chunk)
    return admin, project.id, job_ids[0], job_ids[1]


def _rows(db: Database, job_id: int) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(ModelPrediction).where(ModelPrediction.job_id == job_id))


def part(url: str, n: int, whole: bool) -> bool:
    db = Database.connect(url)
    t0 = time.perf_counter()
    admin, project_id, earlier, silent = _load(db, n)
    print(f"loaded {n} samples and two predict jobs of {n} rows each in {time.perf_counter() - t0:.1f} s")
    ok = True
    if whole:
        clock = LockClock(db.engine)
        probe = WriterProbe(url) if db.is_sqlite else None
        t = time.perf_counter()
        with db.write() as s:  # as the write of the failure deleted them before
            s.execute(delete(ModelPrediction).where(ModelPrediction.job_id == earlier))
        seconds = time.perf_counter() - t
        clock.close()
        report(f"{n} rows deleted in one write (before)", seconds, clock, target=None, probe=probe)
    clock = LockClock(db.engine)
    probe = WriterProbe(url) if db.is_sqlite else None
    t = time.perf_counter()
    listed = {j.id: j for j in jobs.list_jobs(db, admin, project_id)}
    seconds = time.perf_counter() - t
    clock.close()
    assert listed[silent].status == "failed" and _rows(db, silent) == 0
    ok &= report(f"listing that fails the dead job and deletes its {n} rows, {job_reporter.DISCARD_CHUNK} "
                 "per write", seconds, clock, target=None, probe=probe)
    db.dispose()
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--whole", action="store_true", help="also time the rows deleted in one write")
    parser.add_argument("--pg-url", default=DEFAULT_PG_ADMIN_URL)
    args = parser.parse_args(argv)
    ok = True
    for backend in (("sqlite", "postgres") if args.backend == "both" else (args.backend,)):
        print(f"\n== {backend} (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)")
        url, drop = fresh_url(backend, args.pg_url)
        try:
            ok &= part(url, args.rows, args.whole)
        finally:
            drop()
        print(f"(load average after: {os.getloadavg()[0]:.2f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
