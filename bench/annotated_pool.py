"""The annotated pool the service benchmarks start from: one project (k = 2) and its samples,
assignments and submitted annotations, bulk-loaded with SQLAlchemy Core ``executemany`` in
chunks and laid out the way the pull queue leaves it (oldest samples are full first). Used by
``bench/service_latency.py`` (the per-call latencies; its docstring describes the layout) and
``bench/export_service.py`` (which adds one gold row per sample).

The admin, the annotators and the project are created through the services (Argon2 hashing
included); everything else is inserted directly. :func:`build` times its parts and checks the
counts it loaded.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert, select, text

from annotation.axes import AXIS_NAMES
from annotation.curves import CurveFitError, fit_curve
from annotation.segmentation import _TOKEN_RE  # the tokenizer's own pattern
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.authz import Actor
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Annotation, Assignment, Sample

CHUNK = 5000
DAYS = 60

_WORDS = (
    "the council said on monday that it will reopen the bridge after repairs are finished "
    "engineers found cracks in two of the supports during a routine inspection last week and "
    "traffic has been diverted through the old town centre since then residents complained about "
    "noise while shops reported fewer customers the mayor promised a decision by friday; a "
    "spokesperson added that the works could take until march, depending on the weather. "
    "meanwhile buses run every 15 minutes, and cyclists may use the footpath. she is usually "
    "early, but today the train was late because of a signal failure near the station"
).split()


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

