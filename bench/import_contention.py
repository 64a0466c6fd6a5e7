"""Annotators working while a lead imports a large text file, SQLite.

A fresh SQLite file gets a project with ``--pool`` texts and ``--annotators`` annotators. First
the annotators work alone for ``--baseline`` seconds; then the same annotators work while
``text_imports.import_texts`` adds ``--texts`` new texts (written in batches of
``IMPORT_BATCH_ROWS`` rows per short transaction, published at the end). Each annotator thread
loops ``next_item`` → ``save_draft`` → ``submit``. Printed for both phases: submissions per 40 s,
``next_item`` p50/p95/max, failed calls (any exception: "database is locked", a pool time-out, Busy),
and for the import its duration and the longest time any write transaction was open (the
longest SQLite write-lock hold). Figures depend on the machine's load; the load average is
printed beside them.

    python bench/import_contention.py [--texts 100000] [--pool 3000] [--annotators 8]
        [--baseline 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import event  # noqa: E402

from annotation.content import AnnotationContent
from annotation.services.accounts import accounts  # noqa: E402
from annotation.services.projects import projects
from annotation.services.workbench import queue, workbench_events
from annotation.services.corpus import text_imports
from annotation.workbench.edit_script import edits_between  # noqa: E402
from annotation.corpus.text_import import TextRecord  # noqa: E402
from db.engine import Database  # noqa: E402

POINTS = ((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2))
CONTENT = AnnotationContent(boundaries=(0,), segment_axes=("main",), points=POINTS)
PASSWORD = "bench-password-1"


def texts(n: int, tag: str) -> list[TextRecord]:
    return [TextRecord(f"Text {tag}{i}: the night bus on route {i % 97} stops at the harbour from "
                       f"Monday, the council said.", 1, None, i + 1) for i in range(n)]


class Worker(threading.Thread):
    def __init__(self, db, actor, project_id, stop):
        super().__init__(daemon=True)
        self.db, self.actor, self.pid, self.stop = db, actor, project_id, stop
        self.next_ms: list[float] = []
        self.submits: list[float] = []  # perf_counter at each successful submit
        self.failures: list[str] = []

    def run(self):
        while not self.stop.is_set():
            try:
                t0 = time.perf_counter()
                item = queue.next_item(self.db, self.actor, self.pid)
                self.next_ms.append((time.perf_counter() - t0) * 1000)
                if item is None:
                    return
                # the workbench's one write path: the surface's edits, then its submit
                out = workbench_events.apply_events(
                    self.db, self.actor, item.annotation_id, uuid.uuid4().hex[:16], item.version,
                    edits_between(item.content, CONTENT, step=2, submit=True))
                if not out.submitted:
                    raise RuntimeError("; ".join(out.submit_problems) or "the submit was not done")
                self.submits.append(time.perf_counter())
            except Exception as exc:  # noqa: BLE001 - a failed call is a figure
                self.failures.append(f"{type(exc).__name__}: {exc}")


def phase(db, actors, pid, run_for=None, during=None):
    stop = threading.Event()
    workers = [Worker(db, a, pid, stop) for a in actors]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    result = None
    if during is not None:
        result = during()
    else:
        time.sleep(run_for)
    elapsed = time.perf_counter() - t0
    stop.set()
    for w in workers:
        w.join()
    nexts = sorted(x for w in workers for x in w.next_ms)
    submits = sum(1 for w in workers for t in w.submits if t - t0 <= elapsed)
    failures = [f for w in workers for f in w.failures]
    p95 = nexts[min(len(nexts) - 1, int(0.95 * len(nexts)))] if nexts else float("nan")
    return dict(elapsed=elapsed, per40=submits * 40 / elapsed, submits=submits,
                p50=statistics.median(nexts) if nexts else float("nan"), p95=p95,
                max=nexts[-1] if nexts else float("nan"), failures=failures, result=result)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=100_000)
    ap.add_argument("--pool", type=int, default=3000)
    ap.add_argument("--annotators", type=int, default=8)
    ap.add_argument("--baseline", type=float, default=20.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.connect(f"sqlite:///{Path(tmp) / 'bench.db'}")
        admin = accounts.create_first_admin(db, "admin", PASSWORD, "Admin")
        pid = projects.create_project(db, admin, "Bench").id
        projects.update_settings(db, admin, pid, daily_quota=10000)
        text_imports.import_texts(db, admin, pid, texts(args.pool, "P"))
        actors = []
        for i in range(args.annotators):
            accounts.create_user(db, admin, f"ann{i:02d}", PASSWORD, "annotator")
            actors.append(accounts.authenticate(db, f"ann{i:02d}", PASSWORD))

        # the longest write transaction (= SQLite write-lock hold) during the import
        opened: dict[int, float] = {}
        longest = [0.0, 0]

        def on_begin(conn):
            opened[id(conn)] = time.perf_counter()

        def on_end(conn):
            t = opened.pop(id(conn), None)
            if t is not None:
                longest[0] = max(longest[0], time.perf_counter() - t)

        base = phase(db, actors, pid, run_for=args.baseline)
        big = texts(args.texts, "I")
        event.listen(db.engine, "begin", on_begin)
        event.listen(db.engine, "commit", on_end)

        def do_import():
            t0 = time.perf_counter()
            summary = text_imports.import_texts(db, admin, pid, big, source="bench")
            return summary.added, time.perf_counter() - t0

        during = phase(db, actors, pid, during=do_import)
        db.dispose()
    load = os.getloadavg()
    print(f"SQLite, {args.annotators} annotator threads, pool {args.pool} texts, "
          f"load average {load[0]:.1f}/{load[1]:.1f} on {os.cpu_count()} cores (shared machine)")
    print(f"{'phase':<28}{'submits/40 s':>14}{'next p50 ms':>13}{'next p95 ms':>13}{'next max ms':>13}{'failed':>8}")
    for name, r in (("annotators alone", base), (f"during a {args.texts:,}-text import", during)):
        print(f"{name:<28}{r['per40']:>14.0f}{r['p50']:>13.1f}{r['p95']:>13.1f}{r['max']:>13.1f}"
              f"{len(r['failures']):>8}")
    added, secs = during["result"]
    print(f"import: {added:,} texts in {secs:.1f} s, batches of {text_imports.IMPORT_BATCH_ROWS} rows; "
          f"longest write transaction while importing {longest[0] * 1000:.0f} ms")
    for f in (base["failures"] + during["failures"])[:5]:
        print("failure:", f)
    return 0 if not (base["failures"] or during["failures"]) else 1


if __name__ == "__main__":
    sys.exit(main())
