"""A team's day on one database (SPEC §10, "a team's day"): N annotators as separate processes
through the one write path the workbench uses, on SQLite and on PostgreSQL.

Set-up (not timed): a fresh database, N annotators, a lead, a project of ``--texts`` short texts
(k = 2, a daily quota that never interferes) and, for the batch sender, a second project of
2,500-token texts. Each annotator is a process of its own (``multiprocessing`` with ``spawn``)
with its own engine, and works as the workbench makes a person work:

* ``next`` — :func:`queue.next_item` when it holds no sample (the first one, or when a
  submit's hand-out came back empty);
* ``edit`` — :func:`workbench_events.apply_events` with what the annotation surface sends:
  the segmentation (1–2 boundary toggles) with the axes of the segments, then the five curve
  points — two batches per sample, numbered per client as the surface numbers them;
* ``submit`` — the ``submit`` event in the same stream; the next sample comes in its answer.

Three modes, each for ``--seconds``:

* ``think``: 1–3 s of think time (uniform, seeded per annotator) before every call;
* ``batch``: ``think``, plus one more process — the batch sender — sending 500-event batches
  every 1–2 s to its own draft on a 2,500-token text: first 500 boundary toggles at a time
  until the text is split into 2,500 segments, then alternately 500 toggles and 500 moves of one
  point (the batches holding an arrow key or a fast pointer makes). Its calls are ``batch500``;
* ``nothink``: no think time at all.

Printed per call: n, p50, p95 and max (ms), the submits per minute, every error by message
and count, and the checks: every submit reported done is stored once and nothing else is; no
annotator has a sample twice; no sample has more than k annotators and ``n_assigned`` equals its
assignment rows; every draft's stored last event number is the last one its client had
acknowledged (no acknowledged edit lost). Targets (2 cores, nothing else running): with think
time, with or without the batch sender, p95 ≤ 150 ms and max ≤ 1 s for every call and 0
errors; with no think time, no call over 2 s and 0 errors. A target is met only when every call
it covers was measured at least once (:func:`verdict`): a run in which a kind of call never
happened measured nothing of it. The clock starts when every process has warmed up (a barrier,
however long a busy machine takes to start them), so no process loses part of its time to a
slow start. The machine's load average is printed before and after each run. Exit status 0
when every target and check is met.

    python bench/team_load.py [--backend sqlite|postgres|both] [--modes think,batch,nothink]
        [--annotators 16] [--seconds 45] [--texts 3000] [--seed 20261126]
        [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_PG_ADMIN_URL = os.environ.get(
    "CHRONOCEPT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
K = 2
LONG_TOKENS = 2500
POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
THINK = (1.0, 3.0)
TARGETS = {"think": (150.0, 1000.0), "batch": (150.0, 1000.0), "nothink": (None, 2000.0)}
#: the calls each mode's target covers: each must have been measured for the target to be met
JUDGED = {"think": ("next", "edit", "submit"), "batch": ("next", "edit", "submit", "batch500"),
          "nothink": ("next", "edit", "submit")}
#: how long a process waits at the start for the others (a guard against one that died)
START_WAIT_S = 900.0


@dataclass
class Plan:
    url: str
    mode: str
    seconds: float
    seed: int
    project_id: int
    long_project_id: int
    warmup_project_id: int


@dataclass
class Result:
    """What one process saw: per call its latencies (ms), errors, submits done (annotation id,
    sample id) and, per annotation, the last event number acknowledged to its client."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    submits: list[tuple[int, int]] = field(default_factory=list)
    acked: dict[int, tuple[str, int]] = field(default_factory=dict)


# --------------------------------------------------------------------------------- the workers

_start_gate = None  # the processes' barrier (set in each process by the pool's initializer)


def _set_start_gate(gate) -> None:
    global _start_gate
    _start_gate = gate


def _start_together(out: Result) -> float:
    """Wait until every process has warmed up, then start this one's clock: its deadline."""
    import threading

    try:
        _start_gate.wait(timeout=START_WAIT_S)
    except threading.BrokenBarrierError:
        out.errors.append(f"start: not every process was ready within {START_WAIT_S:.0f} s")
    return time.time()


def _think(rng: random.Random, plan: Plan) -> None:
    if plan.mode != "nothink":
        time.sleep(rng.uniform(*THINK))


def annotator(plan: Plan, actor, index: int) -> Result:
    """One annotator's process: sample after sample until the time is up (module docstring)."""
    from annotation.services.workbench import queue, workbench_events
    from annotation.services.errors import failure_message
    from db.engine import Database, make_engine

    db = Database(make_engine(plan.url))
    rng = random.Random(plan.seed * 1000 + index)
    out = Result()
    warm_up(db, actor, plan)
    deadline = _start_together(out) + plan.seconds

    def timed(name, call):
        t0 = time.perf_counter()
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - every failure is counted with its message
            out.errors.append(f"{name}: {failure_message(exc) or traceback.format_exc(limit=3)}")
            return None
        finally:
            out.times[name].append((time.perf_counter() - t0) * 1e3)

    item = None
    while time.time() < deadline:
        if item is None:
            _think(rng, plan)
            item = timed("next", lambda: queue.next_item(db, actor, plan.project_id))
            if item is None:
                break  # the pool is empty (or the hand-out failed: counted)
        client, seq, version = uuid.uuid4().hex[:16], 0, item.version
        n = item.n_tokens
        gaps = sorted(rng.sample(range(1, n), k=min(n - 1, rng.randint(1, 2))))
        segmentation = [{"kind": "boundary", "gap": g} for g in gaps]
        segmentation += [{"kind": "axis", "segment": i, "axis": rng.choice(["main", "static", "opinion"])}
                         for i in range(len(gaps) + 1)]
        curve = [{"kind": "point", "action": "add", "x": x, "y": y} for x, y in POINTS]
        done = None
        for batch in (segmentation, curve, [{"kind": "submit", "flagged": False}]):
            if time.time() >= deadline:
                break
            _think(rng, plan)
            events = [{"seq": seq + i + 1, **e} for i, e in enumerate(batch)]
            name = "submit" if batch[0]["kind"] == "submit" else "edit"
            done = timed(name, lambda: workbench_events.apply_events(
                db, actor, item.annotation_id, client, version, events))
            if done is None:
                break
            seq = done.last_seq
            out.acked[item.annotation_id] = (client, seq)
        if done is not None and done.submitted:
            out.submits.append((item.annotation_id, item.sample_id))
            item = done.next_item
        else:  # an error, a refused submit or the time is up: ask for the open draft again
            item = None
    db.dispose()
    return out


def warm_up(db, actor, plan: Plan) -> None:
    """One sample of a project of its own, annotated before the clock starts and not counted:
    an app server's process has its imports done and its statements compiled long before a
    team's day, so the first call of a fresh process is not what an annotator waits for."""
    from annotation.services.workbench import queue, workbench_events

    item = queue.next_item(db, actor, plan.warmup_project_id)
    if item is not None:
        events = [{"seq": 1, "kind": "boundary", "gap": 1}, {"seq": 2, "kind": "axis", "segment": 0, "axis": "main"},
                  {"seq": 3, "kind": "axis", "segment": 1, "axis": "static"},
                  *({"seq": 4 + i, "kind": "point", "action": "add", "x": x, "y": y} for i, (x, y) in enumerate(POINTS)),
                  {"seq": 9, "kind": "submit", "flagged": False}]
        workbench_events.apply_events(db, actor, item.annotation_id, "warm-up", item.version, events)


def batch_sender(plan: Plan, actor, index: int) -> Result:
    """The annotator who sends 500-event batches (module docstring)."""
    from annotation.services.workbench import queue, workbench_events
    from annotation.services.errors import failure_message
    from db.engine import Database, make_engine

    db = Database(make_engine(plan.url))
    rng = random.Random(plan.seed * 1000 + index)
    out = Result()
    warm_up(db, actor, plan)
    item = queue.next_item(db, actor, plan.long_project_id)
    deadline = _start_together(out) + plan.seconds
    client, seq = uuid.uuid4().hex[:16], 0
    gaps = list(range(1, item.n_tokens))
    rng.shuffle(gaps)
    first = [{"kind": "point", "action": "add", "x": x, "y": y} for x, y in POINTS]
    rounds = 0
    while time.time() < deadline:
        if first:
            batch, first = first, []
        elif gaps:
            batch, gaps = [{"kind": "boundary", "gap": g} for g in gaps[:500]], gaps[500:]
        elif rounds % 2:
            batch = [{"kind": "boundary", "gap": rng.randrange(1, item.n_tokens)} for _ in range(500)]
        else:
            batch = [{"kind": "point", "action": "move", "index": 1, "x": round(20 + rng.random() * 5, 2),
                      "y": 0.41} for _ in range(500)]
        rounds += 1
        events = [{"seq": seq + i + 1, **e} for i, e in enumerate(batch)]
        t0 = time.perf_counter()
        try:
            done = workbench_events.apply_events(db, actor, item.annotation_id, client, item.version, events)
            seq = done.last_seq
            out.acked[item.annotation_id] = (client, seq)
        except Exception as exc:  # noqa: BLE001
            out.errors.append(f"batch500: {failure_message(exc) or traceback.format_exc(limit=3)}")
        out.times["batch500" if len(batch) == 500 else "edit"].append((time.perf_counter() - t0) * 1e3)
        time.sleep(rng.uniform(1.0, 2.0))
    db.dispose()
    return out


def _run(args: tuple) -> Result:
    role, plan, actor, index = args
    return (batch_sender if role == "batch" else annotator)(plan, actor, index)


# --------------------------------------------------------------------------------- set-up and checks

def make_database(backend: str, pg_admin: str) -> tuple[str, callable]:
    from sqlalchemy import create_engine, text

    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix="team-load-")
        return f"sqlite:///{folder}/team.db", lambda: None
    name = f"chronocept_team_{uuid.uuid4().hex[:10]}"
    admin = create_engine(pg_admin, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return f"{pg_admin.rsplit('/', 1)[0]}/{name}", drop


def populate(url: str, n_annotators: int, n_texts: int) -> tuple[list, object, int, int, int]:
    from annotation.services.accounts import accounts
    from annotation.services.projects import projects
    from annotation.services.corpus import text_imports
    from annotation.corpus.text_import import TextRecord
    from db.engine import Database

    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password-1")
    accounts.create_user(db, admin, "lead", "lead-password-1", "lead")
    lead = accounts.authenticate(db, "lead", "lead-password-1")
    actors = []
    for i in range(n_annotators + 1):
        name = f"ann{i:02d}"
        accounts.create_user(db, admin, name, f"{name}-password", "annotator")
        actors.append(accounts.authenticate(db, name, f"{name}-password"))
    p = projects.create_project(db, lead, "Team day")
    projects.update_settings(db, lead, p.id, annotators_per_sample=K, daily_quota=10000)
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"Text {i}: the bakery on street {i} is closed for renovation until next week.",
                   1, f"T-{i:05d}", i + 1) for i in range(n_texts)])
    long_p = projects.create_project(db, lead, "Long texts")
    projects.update_settings(db, lead, long_p.id, daily_quota=10000)
    long_text = " ".join("abcdefghij"[i % 10] for i in range(LONG_TOKENS))  # within 5,000 characters
    text_imports.import_texts(db, lead, long_p.id, [TextRecord(long_text, 2, f"L-{i}", i + 1) for i in range(3)])
    warm = projects.create_project(db, lead, "Warm-up of the processes")
    projects.update_settings(db, lead, warm.id, annotators_per_sample=1, daily_quota=10000)
    text_imports.import_texts(db, lead, warm.id, [
        TextRecord(f"Warm-up text {i}: the ferry leaves at noon tomorrow.", 1, f"W-{i:03d}", i + 1)
        for i in range(n_annotators + 1)])
    db.dispose()
    return actors, lead, p.id, long_p.id, warm.id


def check(url: str, project_id: int, results: list[Result]) -> list[str]:
    """The invariants (module docstring); returns the broken ones, in words."""
    from sqlalchemy import select

    from db.engine import Database, make_engine
    from db.models import Annotation, Assignment, Sample

    db = Database(make_engine(url))
    problems = []
    with db.read() as s:
        submitted = sorted((a, smp) for a, smp in s.execute(
            select(Annotation.id, Annotation.sample_id).join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted")))
        pairs = Counter(s.execute(select(Annotation.sample_id, Annotation.annotator_id)).all())
        assigned = Counter(smp for (smp,) in s.execute(select(Assignment.sample_id)))
        n_assigned = dict(s.execute(select(Sample.id, Sample.n_assigned)).all())
        rows = {a: (c, q) for a, c, q in s.execute(select(Annotation.id, Annotation.event_client,
                                                          Annotation.event_seq))}
    reported = sorted(x for r in results for x in r.submits)
    if reported != submitted:
        lost = set(reported) - set(submitted)
        extra = set(submitted) - set(reported)
        problems.append(f"submits: {len(lost)} reported but not stored, {len(extra)} stored but not reported")
    if pairs and max(pairs.values()) > 1:
        problems.append("an annotator holds a sample twice")
    per_sample = Counter(smp for _, smp in submitted)
    if per_sample and max(per_sample.values()) > K:
        problems.append("a sample has more than k submitted annotations")
    for smp, n in n_assigned.items():
        if n > K and smp in per_sample or n != assigned.get(smp, 0):
            problems.append(f"sample {smp}: n_assigned {n}, {assigned.get(smp, 0)} assignment rows")
            break
    for r in results:
        for a, (client, seq) in r.acked.items():
            if rows.get(a) != (client, seq):
                problems.append(f"annotation {a}: {seq} acknowledged to {client}, stored {rows.get(a)}")
                break
    db.dispose()
    return problems


# --------------------------------------------------------------------------------- reporting

def _pct(values: list[float], p: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(p / 100 * (len(v) - 1)))))] if v else float("nan")


def over_target(mode: str, name: str, values: Sequence[float]) -> bool:
    """Whether measured calls ``name`` miss the mode's latency target (p95 and max, in ms)."""
    if name not in JUDGED[mode]:
        return False
    p95_target, max_target = TARGETS[mode]
    return (p95_target is not None and _pct(list(values), 95) > p95_target) or max(values) > max_target


def verdict(mode: str, times: Mapping[str, Sequence[float]], errors: Mapping[str, int],
            problems: Sequence[str]) -> tuple[bool, list[str]]:
    """Whether the mode's target is met, with the reasons when it is not: a call the mode covers
    never measured (zero calls say nothing of their latency), one over its target, any error,
    any broken check.

    Examples:
        >>> verdict("think", {}, {}, [])
        (False, ['no next call measured', 'no edit call measured', 'no submit call measured'])
        >>> verdict("nothink", {"next": [5.0], "edit": [9.0], "submit": [2500.0]}, {}, [])
        (False, ['submit over target'])
        >>> verdict("nothink", {"next": [5.0], "edit": [9.0], "submit": [30.0]}, {}, [])
        (True, [])
    """
    reasons = []
    for name in JUDGED[mode]:
        values = times.get(name) or ()
        if not values:
            reasons.append(f"no {name} call measured")
        elif over_target(mode, name, values):
            reasons.append(f"{name} over target")
    if errors:
        reasons.append(f"{sum(errors.values())} errors")
    reasons += list(problems)
    return not reasons, reasons


def run_mode(backend: str, mode: str, args: argparse.Namespace) -> bool:
    url, drop = make_database(backend, args.pg_url)
    try:
        actors, _lead, pid, long_pid, warm_pid = populate(url, args.annotators, args.texts)
        load_before = os.getloadavg()
        plan = Plan(url, mode, args.seconds, args.seed, pid, long_pid, warm_pid)
        jobs = [("annotator", plan, actors[i], i) for i in range(args.annotators)]
        if mode == "batch":
            jobs.append(("batch", plan, actors[args.annotators], args.annotators))
        spawn = mp.get_context("spawn")
        # one process per job: each waits at the barrier, so none can take a second job
        with spawn.Pool(len(jobs), initializer=_set_start_gate, initargs=(spawn.Barrier(len(jobs)),)) as pool:
            results = pool.map(_run, jobs, chunksize=1)
        load_after = os.getloadavg()
        problems = check(url, pid, results)
    finally:
        drop()
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for name, values in r.times.items():
            times[name].extend(values)
    errors = Counter(e.splitlines()[0][:200] for r in results for e in r.errors)
    submits = sum(len(r.submits) for r in results)
    p95_target, max_target = TARGETS[mode]
    print(f"\n== {backend}, mode {mode}: {args.annotators} annotators"
          f"{' + 1 batch sender' if mode == 'batch' else ''}, {args.seconds:.0f} s "
          f"(load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} cores)")
    print(f"{'call':<10}{'n':>7}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for name in ("next", "edit", "submit", "batch500"):
        v = times.get(name)
        if not v:
            print(f"{name:<10}{0:>7}" + ("  not measured" if name in JUDGED[mode] else ""))
            continue
        flag = "  over target" if over_target(mode, name, v) else ""
        print(f"{name:<10}{len(v):>7}{_pct(v, 50):>10.1f}{_pct(v, 95):>10.1f}{max(v):>10.1f}{flag}")
    print(f"submits: {submits} ({submits / args.seconds * 60:.0f} per minute)")
    print("errors: none" if not errors else "errors:")
    for message, n in errors.most_common():
        print(f"  {n} × {message}")
    print("checks: " + ("all hold" if not problems else "; ".join(problems)))
    target = (f"p95 ≤ {p95_target:.0f} ms, " if p95_target else "") + f"max ≤ {max_target:.0f} ms, 0 errors"
    ok, reasons = verdict(mode, times, errors, problems)
    print(f"target ({target}): {'met' if ok else 'NOT met — ' + '; '.join(reasons)}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--modes", default="think,batch,nothink")
    parser.add_argument("--annotators", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--pg-url", default=DEFAULT_PG_ADMIN_URL)
    args = parser.parse_args(argv)
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in TARGETS]
    if unknown:
        parser.error(f"unknown mode {unknown[0]!r}; the modes are {', '.join(TARGETS)}")
    ok = True
    for backend in backends:
        for mode in modes:
            ok &= run_mode(backend, mode, args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
