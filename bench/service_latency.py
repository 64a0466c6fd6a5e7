"""Annotation-step service latency (SPEC section 10: p95 ≤ 25 ms per service call with 100k
samples and 200k annotations in the database).

For each backend, a fresh database is created and migrated (:meth:`Database.connect`), one admin
and ``--annotators`` annotators are created through :mod:`annotation.services.accounts.accounts`, and one
project (k = 2, daily quota 10000, the largest allowed, so it never interferes) through
:mod:`annotation.services.projects.projects`. Then, as setup that is not timed per call, the pool is
bulk-loaded by ``bench/annotated_pool.py`` (Core ``executemany`` in chunks), laid out the way
the pull queue leaves it (oldest samples are full first):

* 90k samples with two submitted annotations (180k), 20k with one (20k), 10k unassigned, of
  which 2 % are discarded: 200k annotations on 120k samples. With k = 2, 200k annotations on
  exactly 100k samples would fill every slot and leave ``next_item`` nothing to hand out, so the
  default is 120k samples (at least the 100k of the SPEC); other sizes keep about a tenth of the
  annotations on half-done samples;
* every annotation has its assignment row (slot 1 or 2) and ``samples.n_assigned`` matches;
* annotations carry realistic content (segmentations, axes, 3–5 points, fitted ξ/ω/α, a few
  flags) with ``submitted_at`` spread over the past 60 days; one in five annotators has one open
  draft (the queue hands an annotator at most one open draft at a time).

Setup is timed as a whole (its parts are printed) but is not part of the per-call figures.

PostgreSQL is ANALYZEd after the load (autovacuum would do the same shortly after such a load);
SQLite is left as the application leaves it (the app never runs ANALYZE there).

Then ``--steps`` annotation steps rotate over the annotators; each step times, with
``time.perf_counter``, ``queue.next_item``, a draft saved (the surface's edits to a partial draft,
through ``workbench_events.apply_events`` from the item's version), a submit (the edits to the complete content: a valid segmentation with an axis per segment and the
points (40, 0.5), (60, 1.0), (90, 0.3)) and ``queue.queue_status``. A few steps are run first as a
warm-up and not counted. The table also shows the machine's floor (a round trip and an empty
write transaction through the same session plumbing) and the load average, so that figures from
a loaded machine or a slow disk (PostgreSQL flushes its WAL on every commit) can be read as such.

    python bench/service_latency.py [--backend sqlite|postgres|both] [--samples 120000]
        [--annotations 200000] [--annotators 50] [--steps 300] [--warmup 10] [--seed 20261122]
        [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres] [--explain]

The PostgreSQL database (``chronocept_bench_<pid>``) is dropped at the end; the SQLite file lives
in a temporary directory that is removed. Exit status 0 when every p95 target is met.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, text  # noqa: E402

from annotation.content import AnnotationContent
from annotation.services.workbench import queue, workbench_events  # noqa: E402
from annotation.workbench.edit_script import edits_between  # noqa: E402
from db.engine import Database  # noqa: E402
from annotated_pool import Setup, build  # noqa: E402  (bench/annotated_pool.py, beside this script)

P95_TARGET_MS = 25.0
DEFAULT_PG_ADMIN_URL = os.environ.get(
    "CHRONOCEPT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
SUBMIT_POINTS = ((40.0, 0.5), (60.0, 1.0), (90.0, 0.3))

# --------------------------------------------------------------------------------- measuring

def _draft_content(n_tokens: int) -> AnnotationContent:
    if n_tokens >= 2:
        cut = max(1, n_tokens // 2)
        return AnnotationContent(boundaries=(0, cut), segment_axes=("main", None),
                                 points=((40.0, 0.5), (60.0, 1.0)))
    return AnnotationContent(boundaries=(0,), segment_axes=("main",), points=((40.0, 0.5),))


def _final_content(n_tokens: int) -> AnnotationContent:
    if n_tokens >= 3:
        cut = max(1, n_tokens // 3)
        return AnnotationContent(boundaries=(0, cut), segment_axes=("main", "static"),
                                 points=SUBMIT_POINTS)
    return AnnotationContent(boundaries=(0,), segment_axes=("main",), points=SUBMIT_POINTS)


CALLS = ("next_item", "save_draft", "submit", "queue_status")


def _send(db, actor, item, content: AnnotationContent, *, step: int | None = None, submit: bool = False,  # type: ignore[no-untyped-def]
          seconds_delta: float = 0.0):
    """What the annotation surface sends to store ``content`` over ``item``'s stored work: its
    numbered edits, through the one write path (``workbench_events.apply_events``), as a fresh
    client starting from the item's version. Returns the stored item; a refused submit raises."""
    edits = edits_between(item.content, content, step=step, submit=submit)
    out = workbench_events.apply_events(db, actor, item.annotation_id, uuid.uuid4().hex[:16], item.version,
                                        edits, seconds_delta=seconds_delta)
    if submit and not out.submitted:
        raise out.submit_error
    return out.item


def measure(db: Database, setup: Setup, steps: int, warmup: int) -> tuple[dict[str, list[float]], dict]:
    times: dict[str, list[float]] = {c: [] for c in CALLS}
    times["step (next+save+submit)"] = []
    times["next_item (resume draft)"] = []
    times["next_item (assign new)"] = []
    info = {"resumed": 0, "assigned": 0}
    pc = time.perf_counter
    annotators = setup.annotators
    for i in range(warmup + steps):
        actor = annotators[i % len(annotators)]
        record = i >= warmup
        t0 = pc()
        item = queue.next_item(db, actor, setup.project_id)
        t1 = pc()
        if item is None:
            raise SystemExit(f"next_item returned None for {actor.username} (pool exhausted?)")
        resumed = item.version > 1
        saved = _send(db, actor, item, _draft_content(item.n_tokens), step=1, seconds_delta=25.0)
        t2 = pc()
        done = _send(db, actor, saved, _final_content(item.n_tokens), submit=True, seconds_delta=40.0)
        t3 = pc()
        queue.queue_status(db, actor, setup.project_id)
        t4 = pc()
        assert done.is_submitted
        if record:
            times["next_item"].append((t1 - t0) * 1e3)
            times["save_draft"].append((t2 - t1) * 1e3)
            times["submit"].append((t3 - t2) * 1e3)
            times["queue_status"].append((t4 - t3) * 1e3)
            times["step (next+save+submit)"].append((t3 - t0) * 1e3)
            times["next_item (resume draft)" if resumed else "next_item (assign new)"].append((t1 - t0) * 1e3)
            info["resumed" if resumed else "assigned"] += 1
    return times, info


def calibrate(db: Database, setup: Setup, n: int = 100) -> dict[str, list[float]]:
    """The machine's floor for one call: a round trip, and a write transaction that changes
    nothing (same session plumbing, one UPDATE, COMMIT — on PostgreSQL that includes the WAL
    flush). Shown next to the figures so a loaded or slow-disk machine can be told apart from
    slow queries."""
    out: dict[str, list[float]] = {"round trip (SELECT 1)": [], "empty write + commit": []}
    uid = setup.admin.user_id
    for _ in range(n):
        t0 = time.perf_counter()
        with db.read() as s:
            s.execute(text("SELECT 1")).all()
        t1 = time.perf_counter()
        with db.write() as s:
            s.execute(text("UPDATE users SET is_active = is_active WHERE id = :id"), {"id": uid})
        t2 = time.perf_counter()
        out["round trip (SELECT 1)"].append((t1 - t0) * 1e3)
        out["empty write + commit"].append((t2 - t1) * 1e3)
    return out


def _row(name: str, v: list[float], target: bool) -> str:
    if not v:
        return f"  {name:<26} {0:>5}"
    a = np.asarray(v)
    p95 = float(np.percentile(a, 95))
    verdict = ("met" if p95 <= P95_TARGET_MS else "NOT met") if target else ""
    return (f"  {name:<26} {len(v):>5} {np.median(a):>9.2f} {p95:>9.2f} "
            f"{np.percentile(a, 99):>9.2f} {a.max():>9.2f}   {verdict}")


def report(backend: str, setup: Setup, setup_s: float, times: dict[str, list[float]], info: dict,
           floor: dict[str, list[float]], load: tuple[float, float]) -> bool:
    print(f"\n=== {backend} ===")
    c = setup.counts
    print(f"  database: {c['samples']} samples ({c['double']} with 2 annotations, {c['single']} with 1), "
          f"{c['annotations']} annotations ({c['drafts']} drafts), {c['assignments']} assignments, "
          f"{len(setup.annotators)} annotators")
    print(f"  setup {setup_s:.1f} s: " + ", ".join(f"{k} {v:.1f} s" for k, v in setup.seconds.items()))
    print(f"  steps measured: {len(times['next_item'])} (next_item resumed a draft {info['resumed']}x, "
          f"assigned a new sample {info['assigned']}x)")
    print(f"  {'call':<26} {'n':>5} {'median ms':>9} {'p95 ms':>9} {'p99 ms':>9} {'max ms':>9}   "
          f"p95 ≤ {P95_TARGET_MS:g} ms")
    ok = True
    for name in CALLS:
        print(_row(name, times[name], True))
        ok &= float(np.percentile(times[name], 95)) <= P95_TARGET_MS
    for name in ("next_item (resume draft)", "next_item (assign new)"):
        print(_row("  " + name, times[name], False))
    step = times["step (next+save+submit)"]
    print(_row("step (next+save+submit)", step, False)
          + f"  (SPEC target is per call; whole step p95 {np.percentile(step, 95):.2f} ms)")
    print(f"  machine floor (not the services; load average {load[0]:.1f} before, {load[1]:.1f} after "
          f"the steps, {os.cpu_count()} CPUs):")
    for name, v in floor.items():
        print(_row("  " + name, v, False))
    print(f"  SPEC target (each call p95 ≤ {P95_TARGET_MS:g} ms): {'met' if ok else 'NOT met'}")
    return ok


# ----------------------------------------------------------------------------------- explain

def explain(db: Database, setup: Setup) -> None:
    """Profiling aid: run one more step, capture every SELECT the services issue, print its plan.

    The statements are captured from the engine as sent (so they always match the current
    service code) and explained with the same parameters: EXPLAIN QUERY PLAN on SQLite,
    EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL inside a transaction that is rolled back.
    """
    from sqlalchemy import event

    seen: dict[str, tuple[str, object, str]] = {}
    current = {"call": ""}

    def capture(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("SELECT") and statement not in seen:
            seen[statement] = (statement, parameters, current["call"])

    actor = setup.annotators[1]
    event.listen(db.engine, "before_cursor_execute", capture)
    try:
        current["call"] = "next_item"
        item = queue.next_item(db, actor, setup.project_id)
        current["call"] = "save_draft"
        saved = _send(db, actor, item, _draft_content(item.n_tokens), step=1)
        current["call"] = "submit"
        _send(db, actor, saved, _final_content(item.n_tokens), submit=True)
        current["call"] = "queue_status"
        queue.queue_status(db, actor, setup.project_id)
    finally:
        event.remove(db.engine, "before_cursor_execute", capture)

    prefix = "EXPLAIN QUERY PLAN " if db.is_sqlite else "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
    print(f"\n  query plans of one step ({'SQLite' if db.is_sqlite else 'PostgreSQL'}):")
    with db.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        cur = raw.cursor()
        try:
            for statement, params, call in seen.values():
                print(f"\n  -- {call}: " + " ".join(statement.split())[:400])
                cur.execute(prefix + statement, params)
                for r in cur.fetchall():
                    print("     " + " | ".join(str(x) for x in r))
        finally:
            cur.close()
            raw.rollback()


# -------------------------------------------------------------------------------------- main

def run_backend(backend: str, args: argparse.Namespace) -> bool:
    t_total = time.perf_counter()
    cleanup = None
    if backend == "sqlite":
        tmp = tempfile.TemporaryDirectory(prefix="chronocept_bench_")
        url = f"sqlite:///{Path(tmp.name) / 'bench.db'}"
        cleanup = tmp.cleanup
    else:
        name = f"chronocept_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        admin_engine = create_engine(args.pg_url, isolation_level="AUTOCOMMIT")
        with admin_engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = f"{args.pg_url.rsplit('/', 1)[0]}/{name}"

        def cleanup() -> None:
            with admin_engine.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin_engine.dispose()
    db = None
    try:
        t0 = time.perf_counter()
        db = Database.connect(url)
        t_migrate = time.perf_counter() - t0
        setup = build(db, args.samples, args.annotations, args.annotators, args.seed)
        setup.seconds = {"migrate": t_migrate, **setup.seconds}
        setup_s = time.perf_counter() - t0
        load0 = os.getloadavg()[0]
        times, info = measure(db, setup, args.steps, args.warmup)
        load1 = os.getloadavg()[0]
        floor = calibrate(db, setup)
        ok = report(backend, setup, setup_s, times, info, floor, (load0, load1))
        if args.explain:
            explain(db, setup)
        print(f"  {backend} total wall time {time.perf_counter() - t_total:.1f} s")
        return ok
    finally:
        if db is not None:
            db.dispose()
        if cleanup is not None:
            cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--samples", type=int, default=120_000,
                        help="default 120k: 100k samples with k=2 would be full at 200k annotations")
    parser.add_argument("--annotations", type=int, default=200_000)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--pg-url", default=DEFAULT_PG_ADMIN_URL,
                        help="admin URL of the PostgreSQL server (a new database is created there)")
    parser.add_argument("--explain", action="store_true",
                        help="after measuring, print the plan of every SELECT one step issues")
    args = parser.parse_args(argv)
    if args.annotators < 2:
        parser.error("--annotators must be at least 2 (k = 2)")

    t0 = time.perf_counter()
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    print(f"service latency: {args.samples} samples, {args.annotations} annotations, "
          f"{args.annotators} annotators, {args.steps} steps (+{args.warmup} warm-up) per backend")
    results = {b: run_backend(b, args) for b in backends}
    print("\nsummary: " + ", ".join(f"{b} {'met' if ok else 'NOT met'}" for b, ok in results.items())
          + f"; whole run {time.perf_counter() - t0:.1f} s")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
