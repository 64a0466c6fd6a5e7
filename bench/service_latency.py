"""Annotation-step service latency (SPEC section 10: p95 ≤ 25 ms per service call with 100k
samples and 200k annotations in the database).

For each backend, a fresh database is created and migrated (:meth:`Database.connect`), one admin
and ``--annotators`` annotators are created through :mod:`annotation.services.accounts`, and one
project (k = 2, daily quota 10000, the largest allowed, so it never interferes) through
:mod:`annotation.services.projects`. Then, as setup that is not timed per call, the pool is
bulk-loaded with SQLAlchemy Core ``executemany`` in chunks, laid out the way the pull queue leaves
it (oldest samples are full first):

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
``time.perf_counter``, ``queue.next_item``, ``submission.save_draft`` (expected version, a partial
draft), ``submission.submit`` (complete content: a valid segmentation with an axis per segment and the
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
import random
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, insert, select, text  # noqa: E402

from annotation.axes import AXIS_NAMES  # noqa: E402
from annotation.curves import CurveFitError, fit_curve  # noqa: E402
from annotation.protocol import AnnotationContent  # noqa: E402
from annotation.segmentation import _TOKEN_RE  # noqa: E402  (the tokenizer's own pattern)
from annotation.services import accounts, projects, queue, submission  # noqa: E402
from annotation.services.authz import Actor  # noqa: E402
from annotation.settings import ProjectSettings  # noqa: E402
from db.engine import Database  # noqa: E402
from db.models import Annotation, Assignment, Sample  # noqa: E402

P95_TARGET_MS = 25.0
CHUNK = 5000
DAYS = 60
DEFAULT_PG_ADMIN_URL = os.environ.get(
    "CHRONOCEPT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
SUBMIT_POINTS = ((40.0, 0.5), (60.0, 1.0), (90.0, 0.3))

_WORDS = (
    "the council said on monday that it will reopen the bridge after repairs are finished "
    "engineers found cracks in two of the supports during a routine inspection last week and "
    "traffic has been diverted through the old town centre since then residents complained about "
    "noise while shops reported fewer customers the mayor promised a decision by friday; a "
    "spokesperson added that the works could take until march, depending on the weather. "
    "meanwhile buses run every 15 minutes, and cyclists may use the footpath. she is usually "
    "early, but today the train was late because of a signal failure near the station"
).split()


# --------------------------------------------------------------------------------------- setup

def _text(rng: random.Random, benchmark: int) -> str:
    n = rng.randint(10, 32) if benchmark == 1 else rng.randint(60, 180)
    start = rng.randrange(len(_WORDS))
    words = [_WORDS[(start + i) % len(_WORDS)] for i in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _fitted_templates(rng: random.Random, n: int = 120) -> list[tuple[list[list[float]], object]]:
    """Plausible point sets with their fit (reused for the bulk-loaded annotations)."""
    out = []
    while len(out) < n:
        peak = rng.uniform(25, 150)
        width = rng.uniform(8, 35)
        k = rng.choice((3, 4, 5))
        xs = sorted({round(min(199.0, max(1.0, peak + d)), 1)
                     for d in (-width, -width / 2.5, 0.0, width / 1.5, width * 1.4)[:k]})
        ys = [round(max(0.0, min(1.0, 1.0 - abs(x - peak) / (1.6 * width) + rng.uniform(-0.04, 0.04))), 3)
              for x in xs]
        pts = [(x, y) for x, y in zip(xs, ys)]
        try:
            fit = fit_curve(pts)
        except CurveFitError:
            continue
        out.append(([[x, y] for x, y in pts], fit))
    return out


def _segmentation(rng: random.Random, n_tokens: int) -> tuple[list[int], list[str]]:
    n_seg = min(n_tokens, rng.choice((1, 1, 2, 2, 2, 3, 4)))
    cuts = sorted(rng.sample(range(1, n_tokens), n_seg - 1)) if n_seg > 1 else []
    bounds = [0] + cuts
    axes = ["main"] + [rng.choice(AXIS_NAMES) for _ in cuts]
    rng.shuffle(axes)
    return bounds, axes


@dataclass
class Setup:
    admin: Actor
    annotators: list[Actor]
    project_id: int
    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def _chunks(rows: list[dict], size: int = CHUNK):
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def build(db: Database, n_samples: int, n_annotations: int, n_annotators: int, seed: int) -> Setup:
    rng = random.Random(seed)
    t0 = time.perf_counter()
    admin = accounts.create_first_admin(db, "admin", "admin-password-123")
    annotators = []
    for i in range(n_annotators):
        info = accounts.create_user(db, admin, f"ann{i:03d}", f"ann{i:03d}-password", "annotator")
        annotators.append(Actor(info.id, info.username, info.role, info.display_name))
    proj = projects.create_project(db, admin, "Bench project", "service latency benchmark",
                                   settings=ProjectSettings(annotators_per_sample=2))
    projects.update_settings(db, admin, proj.id, daily_quota=10_000)
    t_users = time.perf_counter() - t0

    # Layout: n_double samples with 2 annotations, n_single with 1, the rest unassigned.
    # Default 120k/200k -> 90k samples with 2 + 20k with 1 + 10k unassigned; in general about a
    # tenth of the annotations sit on half-done samples and the rest on complete ones.
    n_single = n_annotations // 10
    if (n_annotations - n_single) // 2 + n_single > n_samples:
        n_single = max(0, 2 * n_samples - n_annotations)
    n_double = (n_annotations - n_single) // 2
    n_single = n_annotations - 2 * n_double
    if n_single <= 0 or n_double + n_single > n_samples:
        raise SystemExit(f"{n_annotations} annotations on {n_samples} samples with k=2 leave no open "
                         "slot to hand out; use more samples (k=2 allows at most 2 per sample)")

    now = datetime.now(timezone.utc)
    t1 = time.perf_counter()
    sample_rows = []
    n_tokens = []
    discarded_every = 50  # 2 % of the unassigned tail is discarded
    for i in range(n_samples):
        b = 1 if rng.random() < 0.7 else 2
        txt = _text(rng, b)
        nt = len(_TOKEN_RE.findall(txt))  # == len(tokenize(txt)), without the Token objects
        na = 2 if i < n_double else (1 if i < n_double + n_single else 0)
        status = "discarded" if na == 0 and i % discarded_every == 0 else "active"
        created = now - timedelta(days=DAYS + 5) + timedelta(seconds=i * 0.01)
        sample_rows.append(dict(project_id=proj.id, external_id=f"B{b}-{i + 1:06d}", benchmark=b,
                                parent_text=txt, n_tokens=nt, status=status, n_assigned=na,
                                source="bench.jsonl", created_at=created))
        n_tokens.append(nt)
    t_gen_samples = time.perf_counter() - t1

    t2 = time.perf_counter()
    with db.engine.begin() as conn:
        for chunk in _chunks(sample_rows):
            conn.execute(insert(Sample.__table__), chunk)
        ids = [r[0] for r in conn.execute(select(Sample.id).where(Sample.project_id == proj.id)
                                           .order_by(Sample.id))]
    assert len(ids) == n_samples
    t_ins_samples = time.perf_counter() - t2

    # Annotations + assignments.
    t3 = time.perf_counter()
    templates = _fitted_templates(rng)
    user_ids = [a.user_id for a in annotators]
    ann_rows: list[dict] = []
    asg_rows: list[dict] = []
    assigned_total = n_double + n_single
    span = timedelta(days=DAYS).total_seconds()
    for i in range(assigned_total):
        k = 2 if i < n_double else 1
        who = rng.sample(user_ids, k)
        # sample i was handed out at a time proportional to its position in the queue
        base = now - timedelta(seconds=span * (1 - i / assigned_total)) - timedelta(minutes=30)
        for slot, uid in enumerate(who, start=1):
            assigned = base + timedelta(seconds=rng.uniform(0, 1200))
            submitted = assigned + timedelta(seconds=rng.uniform(40, 600))
            pts, fit = templates[rng.randrange(len(templates))]
            bounds, axes = _segmentation(rng, n_tokens[i])
            flagged = rng.random() < 0.03
            asg_rows.append(dict(sample_id=ids[i], user_id=uid, slot=slot, assigned_at=assigned))
            ann_rows.append(dict(
                sample_id=ids[i], annotator_id=uid, status="submitted", version=rng.randint(2, 7),
                step=2, boundaries=bounds, segment_axes=axes, points=pts,
                xi=fit.xi, omega=fit.omega, alpha=fit.alpha, scale=fit.scale, rmse=fit.rmse,
                params_source="fit" if rng.random() < 0.8 else "manual",
                flags=["no_main_timeline"] if flagged else [],
                note="unclear which event is meant" if flagged else "",
                guidelines_version="1.0", seconds_spent=round(rng.uniform(30, 300), 1),
                created_at=assigned, updated_at=submitted, submitted_at=submitted))
    # A few open drafts: one in five annotators has one (their most recent single-annotated sample).
    draft_users = set(user_ids[::5])
    for row in reversed(ann_rows):
        if not draft_users:
            break
        if row["annotator_id"] in draft_users and row["sample_id"] > ids[n_double - 1 if n_double else 0]:
            draft_users.discard(row["annotator_id"])
            row.update(status="draft", step=1, version=2, submitted_at=None,
                       points=row["points"][:2], xi=None, omega=None, alpha=None, scale=None,
                       rmse=None, flags=[], note="")
    t_gen_ann = time.perf_counter() - t3

    t4 = time.perf_counter()
    with db.engine.begin() as conn:
        for chunk in _chunks(asg_rows):
            conn.execute(insert(Assignment.__table__), chunk)
        for chunk in _chunks(ann_rows):
            conn.execute(insert(Annotation.__table__), chunk)
    t_ins_ann = time.perf_counter() - t4

    t5 = time.perf_counter()
    if not db.is_sqlite:
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
    else:
        with db.engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    t_analyze = time.perf_counter() - t5

    # Consistency check of what was loaded.
    with db.read() as s:
        got = {
            "samples": s.scalar(select(text("count(*)")).select_from(Sample.__table__)),
            "annotations": s.scalar(select(text("count(*)")).select_from(Annotation.__table__)),
            "assignments": s.scalar(select(text("count(*)")).select_from(Assignment.__table__)),
            "sum_n_assigned": s.scalar(text("select sum(n_assigned) from samples")),
            "drafts": s.scalar(text("select count(*) from annotations where status = 'draft'")),
        }
    assert got["samples"] == n_samples and got["annotations"] == n_annotations, got
    assert got["assignments"] == n_annotations == got["sum_n_assigned"], got

    return Setup(admin, annotators, proj.id, seconds={
        "users + project (services, Argon2 hashing)": t_users,
        "generate samples": t_gen_samples,
        "insert samples": t_ins_samples,
        "generate annotations": t_gen_ann,
        "insert assignments + annotations": t_ins_ann,
        ("VACUUM ANALYZE" if not db.is_sqlite else "WAL checkpoint"): t_analyze,
    }, counts={**got, "double": n_double, "single": n_single})


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
        saved = submission.save_draft(db, actor, item.annotation_id, item.version,
                                      _draft_content(item.n_tokens), step=1, seconds_delta=25.0)
        t2 = pc()
        done = submission.submit(db, actor, saved.annotation_id, saved.version,
                                 _final_content(item.n_tokens), seconds_delta=40.0)
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
        saved = submission.save_draft(db, actor, item.annotation_id, item.version,
                                      _draft_content(item.n_tokens), step=1)
        current["call"] = "submit"
        submission.submit(db, actor, saved.annotation_id, saved.version, _final_content(item.n_tokens))
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
    print(f"\nsummary: " + ", ".join(f"{b} {'met' if ok else 'NOT met'}" for b, ok in results.items())
          + f"; whole run {time.perf_counter() - t0:.1f} s")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
