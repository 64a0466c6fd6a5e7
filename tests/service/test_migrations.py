"""Every migration keeps every row: a populated database is walked from the first revision to
head one revision at a time, on SQLite and on PostgreSQL, through the app's own upgrade path.

After each step every table that existed before has the same rows, and each row keeps the values
of the columns it had (new columns may appear). The walk covers future migrations by itself:

* ``SEED_ROWS[R]`` holds the rows inserted right after upgrading to revision ``R`` into the
  tables ``R`` created (one dict entry per new revision; an empty dict when it adds no table);
* the walk fails when the Alembic script directory holds a revision that has no entry, and
* it fails when the head schema has a table that no seed filled.

So a migration that adds a table must come with a seed row for it, and a migration that loses
or rewrites rows fails here on both databases.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.config import Config
from alembic.script import ScriptDirectory

from db import config as app_config
from db.engine import MIGRATIONS_DIR, make_engine, upgrade_schema

T0 = dt.datetime(2026, 11, 20, 9, 30, 0)


def at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def _annotation(id_, sample_id, annotator_id, status, xi, omega, alpha, **extra):
    submitted = status == "submitted"
    row = {
        "id": id_, "sample_id": sample_id, "annotator_id": annotator_id, "status": status,
        "version": 3 if submitted else 1, "step": 3 if submitted else 1,
        "boundaries": [0, 4] if submitted else [0],
        "segment_axes": ["main", "static"] if submitted else ["main"],
        "points": [[xi, 1.0], [xi - omega, 0.5], [xi + omega, 0.5]] if submitted else [],
        "xi": xi if submitted else None, "omega": omega if submitted else None,
        "alpha": alpha if submitted else None,
        "scale": 12.5 if submitted else None, "rmse": 0.031 if submitted else None,
        "params_source": "fit", "flags": [], "note": "", "guidelines_version": "1.0",
        "seconds_spent": 84.5 if submitted else 12.0,
        "created_at": at(id_), "updated_at": at(id_ + 5),
        "submitted_at": at(id_ + 5) if submitted else None,
    }
    row.update(extra)
    return row


# After upgrading to revision R, these rows go into the tables R created (and may reference
# rows seeded earlier). A new migration adds one entry here: {} when it creates no table.
SEED_ROWS: dict[str, dict[str, list[dict]]] = {
    "0017": {},  # columns only: a known outcome, extra annotators, the gold's pooling and weights
    "0016": {},  # a column only: a prediction's calibrated uncertainty (expected miss)
    "0015": {},  # a column only: the curves' label beside a lead's overriding change label
    "0014": {},  # columns only: the writer of an import and its samples, an export's heartbeat
    "0013": {  # a pair with a release's reference labels, and a follow-up an annotator wrote
        "sample_pairs": [
            {"sample_id": 2, "target_key": "T-1", "follow_up": "They moved it to Friday.",
             "reference_alone": 4, "reference_given": 7, "reference_change": "increased",
             "intended_change": "", "authored_by": None, "authored_from": None, "authored_at": None,
             "authored_xi": None, "authored_omega": None, "authored_alpha": None},
            {"sample_id": 1, "target_key": "T-1", "follow_up": "It was cancelled.",
             "reference_alone": None, "reference_given": None, "reference_change": "",
             "intended_change": "decreased", "authored_by": 3, "authored_from": 2,
             "authored_at": at(140), "authored_xi": 40.0, "authored_omega": 6.0, "authored_alpha": -1.0},
        ],
    },
    "0001": {
        "users": [
            {"id": 1, "username": "admin", "display_name": "Ada Admin", "password_hash": "$argon2id$x",
             "role": "admin", "is_active": True, "created_at": at(0), "password_changed_at": at(0)},
            {"id": 2, "username": "lead1", "display_name": "Lea Lead", "password_hash": "$argon2id$y",
             "role": "lead", "is_active": True, "created_at": at(1), "password_changed_at": at(1)},
            {"id": 3, "username": "ann_a", "display_name": "Ann A", "password_hash": "$argon2id$z",
             "role": "annotator", "is_active": True, "created_at": at(2), "password_changed_at": at(2)},
            {"id": 4, "username": "ann_b", "display_name": "Bo B", "password_hash": "$argon2id$w",
             "role": "annotator", "is_active": False, "created_at": at(3), "password_changed_at": at(9)},
        ],
        "login_attempts": [
            {"id": 1, "username": "admin", "at": at(4), "succeeded": True},
            {"id": 2, "username": "ann_a", "at": at(5), "succeeded": False},
            {"id": 3, "username": "nobody", "at": at(6), "succeeded": False},
        ],
        "audit_log": [
            {"id": 1, "at": at(0), "actor_id": None, "action": "first_admin", "entity": "user",
             "entity_id": "1", "detail": {}},
            {"id": 2, "at": at(7), "actor_id": 1, "action": "import_texts", "entity": "project",
             "entity_id": "1", "detail": {"n": 5, "file": "texts.jsonl"}},
        ],
        "projects": [
            {"id": 1, "name": "Demo", "description": "Short texts", "created_at": at(7), "created_by": 1,
             "settings": {"k": 2, "daily_quota": 70, "flag_sigma": 2.0}},
        ],
        "samples": [
            {"id": i, "project_id": 1, "external_id": f"B1-{i:05d}", "benchmark": 1 if i < 5 else 2,
             "parent_text": f"The bakery on Elm Street {i} is closed for renovation this week.",
             "n_tokens": 12, "status": "active", "n_assigned": 2 if i <= 3 else 0,
             "source": "texts.jsonl", "created_at": at(8)}
            for i in range(1, 6)
        ],
        "assignments": [
            {"id": n, "sample_id": s, "user_id": u, "slot": slot, "assigned_at": at(10 + n)}
            for n, (s, u, slot) in enumerate([(1, 3, 1), (1, 4, 2), (2, 3, 1), (2, 4, 2), (3, 3, 1)], 1)
        ],
        "annotations": [
            _annotation(1, 1, 3, "submitted", 54.1, 11.2, -0.4),
            _annotation(2, 1, 4, "submitted", 60.0, 9.5, 0.7, flags=["no_main_timeline"], note="unclear"),
            _annotation(3, 2, 3, "submitted", 76.3, 14.0, 1.5),
            _annotation(4, 2, 4, "draft", 0, 0, 0),
            _annotation(5, 3, 3, "submitted", 96.7, 20.0, 0.0),
        ],
    },
    "0002": {},
    "0003": {
        "qualifications": [
            {"id": 1, "project_id": 1, "user_id": 3, "status": "admitted",
             "figures": {"icc": 0.93, "jaccard": 0.8, "pk": 0.1}, "decided_by": 2, "decided_at": at(30),
             "overridden": False},
            {"id": 2, "project_id": 1, "user_id": 4, "status": "warmup", "figures": {},
             "decided_by": None, "decided_at": None, "overridden": False},
        ],
        # project 1's row is written by the migration itself; a second project brings its own
        "parameter_stats": [
            {"project_id": 2, "n": 0, "sum_xi": 0.0, "sumsq_xi": 0.0, "sum_omega": 0.0,
             "sumsq_omega": 0.0, "sum_alpha": 0.0, "sumsq_alpha": 0.0},
        ],
        "review_days": [
            {"id": 1, "project_id": 1, "day": "2026-11-20", "n_submitted": 4, "n_sampled": 1,
             "drawn_at": at(40)},
        ],
        "review_items": [
            {"id": 1, "sample_id": 1, "reasons": ["annotator_flag", "param_deviation"],
             "details": {"xi": {"a": 54.1, "b": 60.0}}, "status": "open", "opened_at": at(41),
             "closed_at": None, "closed_by": None, "decision": "", "note": ""},
            {"id": 2, "sample_id": 2, "reasons": ["daily_sample"], "details": {}, "status": "closed",
             "opened_at": at(42), "closed_at": at(50), "closed_by": 2, "decision": "take_version",
             "note": "ann_a is right"},
        ],
        "gold_annotations": [
            {"id": 1, "sample_id": 2, "boundaries": [0, 4], "segment_axes": ["main", "static"],
             "xi": 76.3, "omega": 14.0, "alpha": 1.5, "source": "take_version",
             "source_annotation_id": 3, "decided_by": 2, "decided_at": at(50), "note": "ann_a is right"},
        ],
    },
    "0004": {},
    "0005": {
        "text_embeddings": [
            {"sample_id": 1, "model": "all-MiniLM-L6-v2", "dim": 4, "vector": bytes(range(16))},
            {"sample_id": 4, "model": "all-MiniLM-L6-v2", "dim": 4, "vector": bytes(range(16, 32))},
        ],
        "near_duplicates": [
            {"id": 1, "project_id": 1, "sample_id": 5, "duplicate_of_id": 4, "sbert_score": 0.91,
             "tfidf_score": 0.66, "representation": "sbert", "threshold": 0.7, "status": "pending",
             "found_at": at(60), "decided_by": None, "decided_at": None},
        ],
        "dataset_exports": [
            {"id": 1, "project_id": 1, "created_by": 2, "created_at": at(70), "path": "/data/exports/e1",
             "base": 1.1, "seed": 13, "licence": "cc-by-4.0", "settings": {"base": 1.1},
             "splits": {"train": [2], "validation": [], "test": []}, "counts": {"train": 1},
             "reproduces_id": None, "status": "done", "error": ""},
        ],
        "jobs": [
            {"id": 1, "project_id": 1, "kind": "train", "export_id": 1, "config": {"models": ["linear"]},
             "status": "succeeded", "progress": 1.0, "message": "done", "log": "epoch 1\n",
             "result": {"linear": {"mse": 0.9}}, "run_dir": "/data/runs/1", "launcher": "",
             "pid": 4242, "host": "app1", "cancel_requested": False, "created_by": 2,
             "created_at": at(71), "started_at": at(72), "heartbeat_at": at(80), "finished_at": at(81)},
        ],
    },
    "0006": {},  # adds login_attempts.address (its row is in SEED_PREREQUISITES)
    "0007": {
        "import_batches": [
            {"id": 1, "project_id": 1, "open_project_id": None, "status": "published",
             "source": "big.jsonl", "added": 3, "creates_project": False, "created_by": 2,
             "started_at": at(95), "heartbeat_at": at(96), "finished_at": at(97)},
        ],
    },
    "0008": {  # also adds users.preferences and annotations.event_client/event_seq
        "user_sessions": [
            {"id": 1, "user_id": 3, "token_hash": "a" * 64, "created_at": at(100),
             "last_seen_at": at(101), "expires_at": at(820), "revoked_at": None,
             "revoked_reason": "", "user_agent": "Mozilla/5.0"},
            {"id": 2, "user_id": 2, "token_hash": "b" * 64, "created_at": at(102),
             "last_seen_at": at(103), "expires_at": at(822), "revoked_at": at(104),
             "revoked_reason": "sign-out", "user_agent": ""},
        ],
    },
    "0009": {},  # adds confidence/error_type to review_items and gold_annotations (checked below)
    # 0010 also adds annotations.is_gold_check: rows from before
    # read false, and the gold-check annotation in SEED_PREREQUISITES sets it
    "0010": {
        "gold_checks": [
            {"id": 1, "project_id": 1, "user_id": 3, "sample_id": 4, "annotation_id": 6,
             "scored_at": at(111), "w1": 3.25, "jaccard": 0.8, "pk": 0.05, "passed": True},
        ],
        "gold_check_pauses": [
            {"id": 1, "project_id": 1, "user_id": 3, "paused_at": at(112),
             "figures": {"window": 10, "passed": 5, "share": 0.5}, "lifted_at": at(113),
             "lifted_by": 2, "lift_note": "talked it through"},
            {"id": 2, "project_id": 1, "user_id": 4, "paused_at": at(114), "figures": {},
             "lifted_at": None, "lifted_by": None, "lift_note": ""},
        ],
    },
    "0012": {  # an applied run's prediction and an audit's, each of its job
        "model_predictions": [
            {"id": 1, "job_id": 7, "sample_id": 2, "xi": 52.5, "omega": 9.0, "alpha": 0.5, "spread_w1": 1.25,
             "half_gone_minutes": 180.0, "half_gone_low": 90.0, "half_gone_high": 400.0, "gold_w1": None,
             "score": None},
            {"id": 2, "job_id": 8, "sample_id": 2, "xi": 50.0, "omega": 8.0, "alpha": 0.0, "spread_w1": 0.5,
             "half_gone_minutes": 150.0, "half_gone_low": 120.0, "half_gone_high": 200.0, "gold_w1": 3.5,
             "score": 7.0},
        ],
    },
    "0011": {  # an annotation import caught before its commit point, with its batch row
        "staged_annotations": [
            {"id": 1, "batch_id": 2, "sample_id": 2, "annotator": "imported_7",
             "boundaries": [0, 4], "segment_axes": ["main", "static"], "points": [],
             "xi": 55.0, "omega": 9.5, "alpha": -0.5, "scale": None, "rmse": None,
             "params_source": "manual", "flags": [], "note": "from the pilot",
             "submitted_at": at(120)},
        ],
    },
}

# Rows that a revision's seed needs in tables created earlier (e.g. a project whose
# parameter_stats row is seeded at 0003), inserted before that revision's own seed.
SEED_PREREQUISITES: dict[str, dict[str, list[dict]]] = {
    "0012": {
        "jobs": [
            {"id": 7, "project_id": 1, "kind": "predict", "export_id": None, "config": {"run_job_id": 1, "k": 5},
             "status": "succeeded", "progress": 1.0, "message": "", "log": "", "result": {}, "run_dir": "",
             "launcher": "", "pid": None, "host": "", "cancel_requested": False, "created_by": 2,
             "created_at": at(130), "started_at": at(130), "heartbeat_at": at(131), "finished_at": at(131)},
            {"id": 8, "project_id": 1, "kind": "audit", "export_id": None, "config": {"run_job_id": 1, "k": 5},
             "status": "succeeded", "progress": 1.0, "message": "", "log": "", "result": {}, "run_dir": "",
             "launcher": "", "pid": None, "host": "", "cancel_requested": False, "created_by": 2,
             "created_at": at(132), "started_at": at(132), "heartbeat_at": at(133), "finished_at": at(133)},
        ],
    },
    "0003": {
        "projects": [
            {"id": 2, "name": "Pilot", "description": "", "created_at": at(20), "created_by": 2,
             "settings": {}},
        ],
    },
    "0011": {
        "import_batches": [
            {"id": 2, "project_id": 1, "open_project_id": 1, "status": "running",
             "source": "pilot.jsonl", "added": 0, "creates_project": False, "created_by": 2,
             "started_at": at(119), "heartbeat_at": at(119), "finished_at": None},
        ],
    },
    "0010": {
        "assignments": [{"id": 6, "sample_id": 4, "user_id": 3, "slot": 0, "assigned_at": at(108)}],
        "annotations": [_annotation(6, 4, 3, "submitted", 50.0, 10.0, 0.0, is_gold_check=True)],
    },
    "0006": {
        "login_attempts": [
            {"id": 4, "username": "ann_b", "address": "203.0.113.9", "at": at(90), "succeeded": True},
        ],
    },
    "0013": {  # a hidden row the unfinished import of 0011 (batch 2, project 1) has written
        "samples": [
            {"id": 6, "project_id": 1, "external_id": "B1-00006", "benchmark": 1,
             "parent_text": "The pilot's first text, still hidden.", "n_tokens": 6, "status": "importing",
             "n_assigned": 0, "is_warmup": False, "source": "pilot.jsonl", "created_at": at(119)},
        ],
    },
}


def _revisions_in_order() -> list[str]:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    script = ScriptDirectory.from_config(cfg)
    return [s.revision for s in reversed(list(script.walk_revisions("base", "heads")))]


def _tables(conn) -> list[str]:
    return sorted(t for t in sa.inspect(conn).get_table_names() if t != "alembic_version")


def _snapshot(engine) -> dict[str, list[dict]]:
    """Every row of every table, as {column: value}, ordered by primary key."""
    with engine.connect() as conn:
        meta = sa.MetaData()
        meta.reflect(conn)
        out = {}
        for name in _tables(conn):
            table = meta.tables[name]
            order = list(table.primary_key.columns) or list(table.columns)
            out[name] = [dict(r._mapping) for r in conn.execute(sa.select(table).order_by(*order))]
        return out


def _insert(engine, rows_by_table: dict[str, list[dict]]) -> None:
    with engine.begin() as conn:
        meta = sa.MetaData()
        meta.reflect(conn)
        for name, rows in rows_by_table.items():
            if rows:
                conn.execute(meta.tables[name].insert(), rows)
        if conn.dialect.name == "postgresql":
            # explicit ids were given: move each sequence past them, as the app would need
            for name, rows in rows_by_table.items():
                if rows and "id" in rows[0]:
                    conn.execute(sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"(SELECT max(id) FROM {name}))"))


def _comparable(value):
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def _assert_rows_kept(before: dict[str, list[dict]], after: dict[str, list[dict]], step: str) -> None:
    for table, old_rows in before.items():
        assert table in after, f"{step}: table {table} disappeared"
        new_rows = after[table]
        assert len(new_rows) == len(old_rows), (
            f"{step}: {table} had {len(old_rows)} rows, now {len(new_rows)}")
        for old, new in zip(old_rows, new_rows):
            for column, value in old.items():
                assert column in new, f"{step}: column {table}.{column} disappeared"
                assert _comparable(new[column]) == _comparable(value), (
                    f"{step}: {table}.{column} changed from {value!r} to {new[column]!r}")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request, tmp_path, monkeypatch):
    if request.param == "sqlite":
        monkeypatch.delenv("CHRONOCEPT_BACKUP_DIR", raising=False)
        app_config.load()  # read again, as a restarted process would
        return f"sqlite:///{tmp_path / 'walk.db'}"
    monkeypatch.setenv("CHRONOCEPT_BACKUP_DIR", str(tmp_path / "pg-backups"))
    app_config.load()  # read again, as a restarted process would
    return request.getfixturevalue("postgres_url")


def test_every_revision_has_a_seed_entry():
    """A new migration must say which rows to put into the tables it creates (maybe none)."""
    script = ScriptDirectory.from_config(_alembic_config())
    assert len(script.get_heads()) == 1, "the migrations must form one line (merge the branches)"
    missing = [r for r in _revisions_in_order() if r not in SEED_ROWS]
    assert not missing, f"add SEED_ROWS entries for revisions {missing} in {__file__}"
    unknown = sorted(set(SEED_ROWS) - set(_revisions_in_order()))
    assert not unknown, f"SEED_ROWS names revisions that do not exist: {unknown}"


def test_walk_from_first_revision_to_head_keeps_every_row(empty_url):
    revisions = _revisions_in_order()
    engine = make_engine(empty_url)
    engine_folder = Path(engine.url.database).resolve().parent if engine.dialect.name == "sqlite" else None
    try:
        visited, seeded = [], set()
        for revision in revisions:
            assert revision in SEED_ROWS, f"revision {revision} has no SEED_ROWS entry"
            before = _snapshot(engine)
            done = upgrade_schema(engine, target=revision)
            after = _snapshot(engine)
            assert (done.from_revision, done.to_revision) == (visited[-1] if visited else None, revision)
            if visited:  # an existing database is backed up first, holding what it held
                assert done.backup_path is not None and done.backup_path.stat().st_size > 0
                if engine.dialect.name == "sqlite":
                    assert done.backup_path.parent == engine_folder / "backups"
                    with sqlite3.connect(done.backup_path) as copy:
                        assert copy.execute("SELECT count(*) FROM annotations").fetchone()[0] == len(
                            before["annotations"])
                else:
                    assert done.backup_path.read_bytes()[:5] == b"PGDMP"
            else:  # never for a fresh, empty database
                assert done.backup_path is None
            _assert_rows_kept(before, after, f"upgrade to {revision}")
            with engine.connect() as conn:
                assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == revision
                if conn.dialect.name == "sqlite":
                    assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
                    assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            new_tables = set(after) - set(before)
            seed = SEED_ROWS.get(revision, {})
            assert set(seed) <= new_tables, (
                f"SEED_ROWS[{revision!r}] fills tables that {revision} did not create: "
                f"{sorted(set(seed) - new_tables)}")
            _insert(engine, SEED_PREREQUISITES.get(revision, {}))
            _insert(engine, seed)
            seeded |= {t for t, rows in seed.items() if rows}
            visited.append(revision)

        assert visited == revisions and visited[-1] == ScriptDirectory.from_config(
            _alembic_config()).get_current_head()
        head = _snapshot(engine)
        unseeded = sorted(set(head) - seeded)
        assert not unseeded, (
            f"tables at head that no seed filled: {unseeded}; add rows to SEED_ROWS for the "
            "revision that creates them")
        assert all(head[t] for t in head), [t for t in head if not head[t]]
        # 0009: the review items and gold from before carry no lead confidence or error type
        for table in ("review_items", "gold_annotations"):
            assert head[table] and all(r["confidence"] is None and r["error_type"] == ""
                                       for r in head[table]), table
        # 0013: the annotations and gold from before have no second curve and no change label
        for table in ("annotations", "gold_annotations"):
            assert all(r["context_xi"] is None and r["change"] == "" for r in head[table]), table
        assert all(r["context_points"] in ([], "[]") and r["context_params_source"] == "fit"
                   for r in head["annotations"])
        # 0015: no gold from before is recorded as a lead's override of its curves' change label
        assert all(r["curves_change"] == "" for r in head["gold_annotations"])
        # 0017: the samples from before have no known outcome and no extra annotator; their gold
        # records no pooling rule or weights
        assert all(r["realised_minutes"] is None and r["extra_annotators"] == 0 for r in head["samples"])
        assert all(r["pooling"] == "" and r["pool_weights"] is None for r in head["gold_annotations"])
        # 0014: the imports and exports from before have no writer or heartbeat recorded
        assert head["import_batches"] and all(r["host"] == "" and r["pid"] is None
                                              for r in head["import_batches"])
        assert head["dataset_exports"] and all(r["heartbeat_at"] is None for r in head["dataset_exports"])
        # 0014: the unfinished import's hidden row is tied to it (it can still be rolled back or
        # finished, and only with its own rows); every other sample names no import
        assert {r["id"]: r["import_batch_id"] for r in head["samples"]} == {1: None, 2: None, 3: None, 4: None,
                                                                            5: None, 6: 2}
        # at head, an upgrade is a no-op and takes no backup
        assert upgrade_schema(engine).backup_path is None
        _assert_rows_kept(head, _snapshot(engine), "upgrade at head")
        # 0014: an import batch's id is never handed out again once its row is deleted
        with engine.connect() as conn:
            new_batch = sa.text("INSERT INTO import_batches (project_id, status, source, added, creates_project, "
                                "started_at, heartbeat_at, host) VALUES (1, 'running', '', 0, false, :at, :at, '') "
                                "RETURNING id")
            gone = conn.execute(new_batch, {"at": at(200)}).scalar()
            conn.execute(sa.text("DELETE FROM import_batches WHERE id = :id"), {"id": gone})
            assert conn.execute(new_batch, {"at": at(201)}).scalar() > gone
            conn.rollback()
    finally:
        engine.dispose()


def _alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


# --- the upgrade's safety net: foreign key check, rollback, backups, refusals -----------------

def _at_revision(url: str, revision: str):
    engine = make_engine(url)
    upgrade_schema(engine, target=revision)
    return engine


def _version(engine) -> str:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def test_sqlite_broken_reference_aborts_the_upgrade_and_changes_nothing(tmp_path):
    from db.upgrade import SchemaUpgradeError

    path = tmp_path / "broken.db"
    engine = _at_revision(f"sqlite:///{path}", "0002")
    _insert(engine, {k: SEED_ROWS["0001"][k] for k in ("users", "projects", "samples")})
    with sqlite3.connect(path) as raw:  # foreign keys off by default: a row pointing nowhere
        raw.execute("INSERT INTO assignments (sample_id, user_id, slot, assigned_at) "
                    "VALUES (999, 1, 1, '2026-11-20 10:00:00')")
    with pytest.raises(SchemaUpgradeError, match=r"1 row\(s\) pointing at missing rows .*assignments"):
        upgrade_schema(engine)
    assert _version(engine) == "0002"
    with engine.connect() as conn:
        assert "review_items" not in sa.inspect(conn).get_table_names()
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # restored on the pooled connection
    engine.dispose()


def test_sqlite_migration_transaction_rolls_back_when_the_check_fails(tmp_path):
    from db.upgrade import SchemaUpgradeError, migration_transaction

    engine = _at_revision(f"sqlite:///{tmp_path / 'm.db'}", "head")
    with pytest.raises(SchemaUpgradeError, match="would leave 1 row"):
        with migration_transaction(engine) as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 0
            conn.exec_driver_sql("INSERT INTO text_embeddings (sample_id, model, dim, vector) "
                                 "VALUES (42, 'm', 1, x'00')")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM text_embeddings").scalar() == 0
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_alembic_refuses_a_sqlite_connection_with_foreign_keys_on(tmp_path):
    from alembic import command

    engine = make_engine(f"sqlite:///{tmp_path / 'fk.db'}")
    cfg = _alembic_config()
    with pytest.raises(RuntimeError, match="foreign keys off"), engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    engine.dispose()


def test_fresh_and_current_databases_are_not_backed_up(tmp_path, monkeypatch):
    monkeypatch.delenv("CHRONOCEPT_BACKUP_DIR", raising=False)
    app_config.load()  # read again, as a restarted process would
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    first = upgrade_schema(engine)
    again = upgrade_schema(engine)
    assert (first.from_revision, first.backup_path, first.describe()) == (None, None, None)
    assert (again.upgraded, again.backup_path) == (False, None)
    assert not (tmp_path / "backups").exists()
    engine.dispose()


@pytest.mark.postgres
def test_postgres_upgrade_without_pg_dump_is_refused_unless_opted_out(postgres_url, tmp_path, monkeypatch):
    import db.backup
    from db.upgrade import NO_BACKUP_ENV, SchemaUpgradeError

    monkeypatch.setenv("CHRONOCEPT_BACKUP_DIR", str(tmp_path))
    monkeypatch.delenv(NO_BACKUP_ENV, raising=False)
    app_config.load()  # read again, as a restarted process would
    engine = _at_revision(postgres_url, "0001")
    monkeypatch.setattr(db.backup.shutil, "which", lambda name: None)
    with pytest.raises(SchemaUpgradeError, match=f"pg_dump is not installed.*{NO_BACKUP_ENV}=1") as caught:
        upgrade_schema(engine)
    assert "\n" not in str(caught.value)
    assert _version(engine) == "0001"
    monkeypatch.setenv(NO_BACKUP_ENV, "1")
    app_config.load()  # read again, as a restarted process would
    done = upgrade_schema(engine)
    assert done.upgraded and done.backup_path is None and "pg_dump" in done.backup_skipped
    assert "no backup was taken" in done.describe()
    engine.dispose()


def test_pg_dump_gets_the_password_from_the_environment_not_argv(tmp_path, monkeypatch):
    import subprocess

    import db.backup

    seen = {}

    def fake_run(argv, **kwargs):
        seen["argv"], seen["env"] = argv, kwargs.get("env")
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(db.backup.shutil, "which", lambda name: "/usr/bin/pg_dump")
    monkeypatch.setattr(db.backup.subprocess, "run", fake_run)
    engine = sa.create_engine("postgresql+psycopg://alice:s3cr%40t@db.example:5433/chron")
    db.backup.backup_database(engine, tmp_path / "x.dump")
    assert not any("s3cr" in arg for arg in seen["argv"]), seen["argv"]
    assert seen["env"]["PGPASSWORD"] == "s3cr@t"
    assert "--no-password" in seen["argv"]  # never a prompt that would hang the app's start-up
    assert seen["argv"][-1] == "postgresql://alice@db.example:5433/chron"


# --- the CLI reports the upgrade and its backup on stderr ------------------------------------

def _cli(url: str, *args: str, stdin: str = "", **env: str):
    import os
    import subprocess
    import sys

    cli = str(Path(sys.executable).parent / "chronocept")
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CHRONOCEPT_DATABASE_URL": url, **env})


def test_cli_backs_up_an_older_sqlite_database_and_says_where(tmp_path, monkeypatch):
    monkeypatch.delenv("CHRONOCEPT_BACKUP_DIR", raising=False)
    app_config.load()  # read again, as a restarted process would
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = _at_revision(url, "0002")
    _insert(engine, {k: SEED_ROWS["0001"][k] for k in ("users", "projects", "samples", "annotations")})
    engine.dispose()
    done = _cli(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n")
    assert done.returncode == 0, done.stderr
    backups = list((tmp_path / "backups").glob("old-*-before-0002-to-*.db"))
    assert len(backups) == 1
    assert done.stderr.strip().splitlines() == [
        f"chronocept: database upgraded from schema 0002 to {_revisions_in_order()[-1]}; "
        f"backup of the old database: {backups[0]}"]
    with sqlite3.connect(backups[0]) as copy:
        assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == ("0002",)
        assert copy.execute("SELECT count(*) FROM annotations").fetchone() == (5,)
    with sqlite3.connect(tmp_path / "old.db") as live:
        assert live.execute("SELECT count(*) FROM annotations").fetchone() == (5,)
    again = _cli(url, "create-user", "ann1", "--role", "annotator", stdin="long-enough-pw\n")
    assert again.returncode == 0 and again.stderr == ""  # at head: no upgrade, no backup
    assert len(list((tmp_path / "backups").iterdir())) == 1


@pytest.mark.postgres
def test_cli_refuses_an_upgrade_without_pg_dump_in_one_line(postgres_url, tmp_path):
    engine = _at_revision(postgres_url, "0001")
    engine.dispose()
    # a PATH without pg_dump (the interpreter is called by absolute path)
    done = _cli(postgres_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n",
                PATH=str(tmp_path), CHRONOCEPT_BACKUP_DIR=str(tmp_path / "b"))
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "pg_dump is not installed" in done.stderr and "CHRONOCEPT_UPGRADE_WITHOUT_BACKUP=1" in done.stderr
