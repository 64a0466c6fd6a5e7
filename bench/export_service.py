"""Export benchmark through the service (SPEC section 10: export of 100k samples ≤ 15 s).

Loads a database with ``--samples`` gold samples and about two submitted annotations each
(``bench/annotated_pool.py``, plus one gold row per sample), then times
:func:`annotation.services.export.exports.export_dataset` end to end — database read, splits,
formatting, card, atomic write, record — without and with the agreement figures on the card.

    python bench/export_service.py [--samples 100000] [--backend sqlite|postgres|both]
        [--repeat 2] [--only-agreement] [--keep-db FILE]

``--keep-db FILE`` (SQLite) loads the database into FILE once and re-uses it on later runs (the
load takes about a minute at 100k; the export itself does not change the data it reads).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, insert, select, text  # noqa: E402

from annotation.services.export import exports  # noqa: E402
from annotated_pool import build  # noqa: E402  (bench/annotated_pool.py, beside this script)
from db.engine import Database  # noqa: E402
from db.models import Annotation, GoldAnnotation, Sample  # noqa: E402

PG_ADMIN = os.environ.get("CHRONOCEPT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
TARGET_S = 15.0


def add_gold(db: Database, project_id: int, n_gold: int) -> int:
    """One gold row per sample (its first annotation's values) for the first ``n_gold`` samples."""
    with db.read() as s:
        rows = s.execute(
            select(Annotation.sample_id, Annotation.boundaries, Annotation.segment_axes, Annotation.xi,
                   Annotation.omega, Annotation.alpha)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted", Annotation.xi.is_not(None))
            .order_by(Annotation.sample_id, Annotation.id)).all()
    gold, seen = [], set()
    for r in rows:
        if r.sample_id in seen:
            continue
        seen.add(r.sample_id)
        gold.append(dict(sample_id=r.sample_id, boundaries=r.boundaries,
                         segment_axes=[[a] if a else [] for a in r.segment_axes],
                         xi=r.xi, omega=r.omega, alpha=r.alpha, source="auto"))
        if len(gold) == n_gold:
            break
    with db.engine.begin() as conn:
        for start in range(0, len(gold), 5000):
            conn.execute(insert(GoldAnnotation.__table__), gold[start:start + 5000])
    return len(gold)


def _reuse(db: Database):
    """(admin actor, project id, counts) of a database an earlier run loaded and kept."""
    from annotation.services.authz import Actor
    from db.models import Project, User

    with db.read() as s:
        admin = s.scalars(select(User).where(User.role == "admin").order_by(User.id)).first()
        project_id = s.scalar(select(Project.id).order_by(Project.id))
        n_ann = s.scalar(select(text("count(*)")).select_from(Annotation.__table__))
        n_gold = s.scalar(select(text("count(*)")).select_from(GoldAnnotation.__table__))
    return Actor(admin.id, admin.username, admin.role, admin.display_name), project_id, n_ann, n_gold


def run(backend: str, n_samples: int, repeat: int, keep_db: str | None = None,
        only_agreement: bool = False) -> bool:
    pg_name = None
    reuse = False
    if backend == "sqlite" and keep_db:
        reuse = Path(keep_db).exists()
        url = f"sqlite:///{Path(keep_db).resolve()}"
    elif backend == "sqlite":
        tmp = tempfile.mkdtemp(prefix="chronocept-export-bench-")
        url = f"sqlite:///{tmp}/bench.db"
    else:
        pg_name = f"chronocept_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{pg_name}"'))
        url = PG_ADMIN.rsplit("/", 1)[0] + f"/{pg_name}"
    db = Database.connect(url)
    cleanup: list[Path] = []
    try:
        t0 = time.perf_counter()
        if reuse:
            admin_actor, project_id, n_annotations, n_gold = _reuse(db)
            print(f"\n== {backend}: {n_gold} gold samples, {n_annotations} annotations "
                  f"(re-used {keep_db})")
        else:
            # ~5% more samples than gold: the loader keeps open slots for its queue benchmark
            setup = build(db, int(n_samples * 1.05), 2 * n_samples, 40, 7)
            n_gold = add_gold(db, setup.project_id, n_samples)
            admin_actor, project_id = setup.admin, setup.project_id
            print(f"\n== {backend}: {n_gold} gold samples, {setup.counts['annotations']} annotations "
                  f"(loaded in {time.perf_counter() - t0:.0f} s)")
        print(f"  load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
        out_root = Path(tempfile.mkdtemp(prefix="chronocept-export-out-"))
        cleanup.append(out_root)
        ok = True
        for agreement in ((True,) if only_agreement else (False, True)):
            times = []
            for i in range(repeat):
                t = time.perf_counter()
                rec = exports.export_dataset(db, admin_actor, project_id,
                                              out_root / f"{agreement}-{i}", seed=1, include_agreement=agreement)
                times.append(time.perf_counter() - t)
            med = statistics.median(times)
            label = "with agreement figures" if agreement else "without agreement figures"
            print(f"  export {label:<26} median {med:6.2f} s  (runs: {', '.join(f'{x:.2f}' for x in times)}) "
                  f"{'meets' if med <= TARGET_S else 'MISSES'} ≤ {TARGET_S:.0f} s · {rec.n_samples} samples, "
                  f"{rec.n_annotations} annotations")
            ok = ok and med <= TARGET_S
        return ok
    finally:
        db.dispose()
        for folder in cleanup:
            shutil.rmtree(folder, ignore_errors=True)
        if pg_name:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only-agreement", action="store_true",
                        help="time only the export with the card's agreement figures")
    parser.add_argument("--keep-db", metavar="FILE",
                        help="SQLite: load into FILE once, re-use it when it exists")
    args = parser.parse_args()
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    results = [run(b, args.samples, args.repeat, args.keep_db, args.only_agreement) for b in backends]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
