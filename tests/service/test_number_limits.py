"""Every number a service takes from outside is checked before it meets the database.

PostgreSQL binds an id as ``2147483648::INTEGER`` and fails the statement with a ``DataError``
(a traceback) where SQLite finds no row; text where a number belongs ("1; drop") fails the same
way; None or "x" where the service compares or counts is a ``TypeError``. The rule
(:mod:`annotation.services.number_limits`): an id no row can have is ``NotFound``, any other
number out of its range ``InvalidInput``, in one line, with nothing written.

The walk is structural: every service entry point (a public function taking ``db`` and the
acting ``actor``, and the worker's :func:`jobs.run_job`) is found by inspection, and each of its
numeric parameters — annotated ``int`` (or ``int | None``), several ids (``*_ids``), or named
like an id, a seed, a version or an edit's number — gets values no column holds. :data:`CALLS`
gives each entry point a call that reaches the database with every other argument valid (a
world with a row of each kind), so a missing check shows as the ``DataError`` it was; a new
entry point without a case, or a new parameter name without a rule, fails
:func:`test_every_entry_point_taking_a_number_has_a_case`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
from sqlalchemy import Integer, select

import annotation.services
from annotation.corpus.pair_import import PairRecord
from annotation.corpus.text_import import TextRecord
from annotation.pairs.authoring import FollowUpDraft
from annotation.services.accounts import accounts
from annotation.services.corpus import authoring
from annotation.services.jobs import jobs
from annotation.services.model import model_jobs
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue, workbench_events
from annotation.services.authz import Actor
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.number_limits import EDIT_NUMBER, PARAMETERS, Ids, int_range
from authoring_data import pairs_project, three_drafts
from db.base import Base
from db.models import ReviewItem, Sample
from db.models_backoffice import DatasetExport, GoldCheckPause, Job, NearDuplicate
from gold_data import gold_project

PASSWORD = "long-enough-password"
#: Values no integer column holds, or that are no number at all.
BAD: tuple[object, ...] = (2**31, 2**63, -1, "1; drop", None, "x", True)
NAMES = ("_id", "seq", "seed", "version")

#: Entry points that take no actor but an id from outside.
WITHOUT_ACTOR = {"jobs.run_job": "the worker command `chronocept run-job JOB_ID`"}
#: Public functions taking ``db`` and ``actor`` that are steps of another entry point, which
#: checks the numbers it passes on.
STEPS = {
    "export_records.start_record": "a step of exports.export_dataset",
    "export_records.finish_record": "a step of exports.export_dataset",
    "text_imports.claim_import": "a step of the imports (import_texts, import_pairs)",
    "text_imports.run_import": "a step of the imports (import_texts, import_pairs)",
}
#: Numeric parameters checked by their own service, with their own message.
OWN_CHECKS = {"members": "model_jobs: the ensemble's bounds", "folds": "model_jobs: the cross-fit's bounds",
              "confidence": "review: a decision's confidence, 1 to 5, checked before anything is read",
              "top": "model_loop: how long the Model disagrees list is, 1 to 200"}


def _entry_points() -> dict[str, Callable[..., Any]]:
    found = {}
    for info in pkgutil.walk_packages(annotation.services.__path__, "annotation.services."):
        if info.ispkg:
            continue
        module = importlib.import_module(info.name)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ != module.__name__ or name.startswith("_"):
                continue
            key = f"{info.name.rpartition('.')[2]}.{name}"
            if list(inspect.signature(function).parameters)[:2] == ["db", "actor"] or key in WITHOUT_ACTOR:
                found[key] = function
    return found


def _numeric(parameter: inspect.Parameter) -> bool:
    annotation = str(parameter.annotation)
    return (annotation in ("int", "int | None") or parameter.name.endswith(NAMES)
            or (parameter.name.endswith("_ids") and "[int]" in annotation))


def _walked() -> dict[str, tuple[str, ...]]:
    """Each entry point taking a number from outside, with those parameters."""
    walked = {}
    for key, function in _entry_points().items():
        names = tuple(p.name for p in inspect.signature(function).parameters.values() if _numeric(p))
        if names and key not in STEPS:
            walked[key] = names
    return walked


# --- a world with a row of each kind --------------------------------------------------------


@dataclass(frozen=True)
class World:
    admin: Actor
    project_id: int
    pairs_id: int
    user_id: int
    sample_id: int
    annotation_id: int
    version: int
    item_id: int
    export_id: int
    run_id: int
    job_id: int
    pause_id: int
    mark_id: int
    folder: Path


def _world(db, folder: Path) -> World:
    admin = accounts.create_first_admin(db, "admin", PASSWORD)
    pid = gold_project(db, admin, n=6)
    text_imports.import_texts(db, admin, pid, [TextRecord("On Monday the shop opens again after the works.", 1,
                                                      "fresh", 1)])
    user = accounts.create_user(db, admin, "ann", PASSWORD, "annotator")
    item = queue.next_item(db, admin, pid)
    pairs_id = pairs_project(db, admin, targets=1)
    (folder / "export").mkdir()
    (folder / "run" / "models").mkdir(parents=True)
    (folder / "run" / "models" / "linear.pkl").write_bytes(b"")
    with db.write() as s:
        first, second = s.scalars(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id).limit(2))
        review = ReviewItem(sample_id=first, reasons=["review"])
        export = DatasetExport(project_id=pid, path=str(folder / "export"), base=1.1, seed=1, licence="cc-by-4.0",
                               status="complete")
        pause = GoldCheckPause(project_id=pid, user_id=user.id)
        mark = NearDuplicate(project_id=pid, sample_id=second, duplicate_of_id=first, sbert_score=0.9,
                             tfidf_score=0.9, representation="both", threshold=0.7)
        s.add_all([review, export, pause, mark])
        s.flush()
        run = Job(project_id=pid, kind=jobs.TRAINING, export_id=export.id, status="succeeded",
                  run_dir=str(folder / "run"))
        queued = Job(project_id=pid, kind=jobs.TRAINING, export_id=export.id, status="queued",
                     run_dir=str(folder / "queued"))
        s.add_all([run, queued])
        s.flush()
        ids = (first, review.id, export.id, run.id, queued.id, pause.id, mark.id)
    first, item_id, export_id, run_id, job_id, pause_id, mark_id = ids
    return World(admin, pid, pairs_id, user.id, first, item.annotation_id, item.version, item_id, export_id,
                 run_id, job_id, pause_id, mark_id, folder)


def _edit(seq: int = 1) -> list[dict[str, Any]]:
    return [{"seq": seq, "kind": "step", "step": 1}]


PAIR_LINE = json.dumps({"target": "The shop is closed this week.", "follow_up": "It reopened today."}).encode()

#: A call of each entry point that takes a number, every argument valid (``db`` and ``actor``
#: are added).
CALLS: dict[str, Callable[[World], dict[str, Any]]] = {
    "accounts.reset_password": lambda w: dict(user_id=w.user_id, new_password="another-long-password"),
    "accounts.set_active": lambda w: dict(user_id=w.user_id, active=True),
    "accounts.set_role": lambda w: dict(user_id=w.user_id, role="annotator"),
    "agreement.annotators_with_work": lambda w: dict(project_id=w.project_id),
    "agreement.project_agreement": lambda w: dict(project_id=w.project_id, benchmark=1, intervals=False),
    "agreement.review_outcomes": lambda w: dict(project_id=w.project_id, benchmark=1),
    "annotation_import.import_annotations": lambda w: dict(project_id=w.project_id, data=b"", source="a.jsonl"),
    "authoring.authoring_task": lambda w: dict(project_id=w.pairs_id),
    "authoring.save_follow_ups": lambda w: dict(project_id=w.pairs_id, target_key="T-0", drafts=three_drafts()),
    "authoring.validation_by_author": lambda w: dict(project_id=w.pairs_id),
    "consistency.consistency_pairs": lambda w: dict(project_id=w.project_id, limit=10),
    "dashboard.annotator_dashboard": lambda w: dict(project_id=w.project_id),
    "experts.expert_overview": lambda w: dict(project_id=w.project_id),
    "gold_weighting.annotator_model_overview": lambda w: dict(project_id=w.project_id),
    "duplicates.decide": lambda w: dict(project_id=w.project_id, mark_ids=[w.mark_id], decision="release"),
    "duplicates.duplicate_counts": lambda w: dict(project_id=w.project_id),
    "duplicates.last_run": lambda w: dict(project_id=w.project_id),
    "duplicates.list_pairs": lambda w: dict(project_id=w.project_id, limit=10, offset=0),
    "duplicates.pair_page": lambda w: dict(project_id=w.project_id, page=1, page_size=10),
    "duplicates.run_dedup": lambda w: dict(project_id=w.project_id, threshold=2.0),
    "export_downloads.spreadsheet_of_export": lambda w: dict(export_id=w.export_id),
    "export_downloads.zip_of_export": lambda w: dict(export_id=w.export_id),
    "export_records.get_export": lambda w: dict(export_id=w.export_id),
    "export_records.list_exports": lambda w: dict(project_id=w.project_id),
    "exports.export_dataset": lambda w: dict(project_id=w.project_id, out_dir=w.folder / "out", seed=1,
                                             reproduce=w.export_id, include_agreement=False),
    "exports.export_readiness": lambda w: dict(project_id=w.project_id),
    "exports.export_statistics": lambda w: dict(export_id=w.export_id),
    "feedback.feedback_page": lambda w: dict(project_id=w.project_id, page=1, per_page=20),
    "feedback.feedback_trend": lambda w: dict(project_id=w.project_id),
    "gold_checks.gold_check_overview": lambda w: dict(project_id=w.project_id),
    "gold_checks.lift_pause": lambda w: dict(pause_id=w.pause_id, note="checked"),
    "gold_checks.paused_annotators": lambda w: dict(project_id=w.project_id),
    "jobs.cancel_job": lambda w: dict(job_id=w.job_id),
    "jobs.get_job": lambda w: dict(job_id=w.job_id),
    "jobs.launch_training": lambda w: dict(project_id=w.project_id, export_id=w.export_id, config={},
                                           launcher="", start=False),
    "jobs.list_jobs": lambda w: dict(project_id=w.project_id),
    "jobs.run_job": lambda w: dict(job_id=w.job_id),
    "model_jobs.launch_model_job": lambda w: dict(project_id=w.project_id, run_job_id=w.run_id,
                                                  kind=model_jobs.PREDICT, seed=1, launcher="", start=False),
    "model_jobs.record_training_run": lambda w: dict(export_id=w.export_id, export_created_at="2026-01-01T00:00:00Z",
                                                     run_dir=w.folder / "run", config={}, result={}, seconds=1.0,
                                                     message="trained"),
    "model_loop.disagreements": lambda w: dict(project_id=w.project_id, top=5),
    "model_loop.model_curve": lambda w: dict(sample_id=w.sample_id),
    "model_loop.open_disagreement_case": lambda w: dict(sample_id=w.sample_id),
    "model_loop.uncertain_order_withheld": lambda w: dict(project_id=w.project_id),
    "model_scores.leaderboard": lambda w: dict(project_id=w.project_id, export_id=w.export_id),
    "model_scores.score_submission": lambda w: dict(project_id=w.project_id, export_id=w.export_id, data=b"",
                                                    file_name="p.jsonl", name="mine"),
    "pair_imports.import_pair_file": lambda w: dict(project_id=w.pairs_id, data=PAIR_LINE, filename="p.jsonl"),
    "pair_imports.import_pairs": lambda w: dict(project_id=w.pairs_id, records=[
        PairRecord("The shop is closed this week.", "It reopened today.", None, None, 1)]),
    "projects.get_project": lambda w: dict(project_id=w.project_id),
    "projects.update_settings": lambda w: dict(project_id=w.project_id, daily_quota=70),
    "qualification.admit": lambda w: dict(project_id=w.project_id, user_id=w.user_id, note="fine"),
    "qualification.decision_history": lambda w: dict(project_id=w.project_id, user_id=w.user_id),
    "qualification.my_qualification": lambda w: dict(project_id=w.project_id),
    "qualification.qualification_board": lambda w: dict(project_id=w.project_id),
    "qualification.recheck": lambda w: dict(project_id=w.project_id),
    "qualification.revoke": lambda w: dict(project_id=w.project_id, user_id=w.user_id, note="not yet"),
    "queue.my_history": lambda w: dict(project_id=w.project_id, limit=10),
    "queue.next_item": lambda w: dict(project_id=w.project_id),
    "queue.open_draft_item": lambda w: dict(project_id=w.project_id),
    "queue.open_item": lambda w: dict(annotation_id=w.annotation_id),
    "queue.pool_size": lambda w: dict(project_id=w.project_id),
    "queue.queue_status": lambda w: dict(project_id=w.project_id),
    "queue.sample_numbers": lambda w: dict(project_id=w.project_id, annotation_ids=[w.annotation_id]),
    "resolving.resolve_project": lambda w: dict(project_id=w.project_id),
    "review.decide": lambda w: dict(item_id=w.item_id, decision="take_version", confidence=3,
                                    error_type="none", annotation_id=w.annotation_id),
    "review.gold_of": lambda w: dict(sample_id=w.sample_id),
    "review.open_case": lambda w: dict(item_id=w.item_id),
    "review.sample_history": lambda w: dict(sample_id=w.sample_id),
    "review_queue.draw_pending_days": lambda w: dict(project_id=w.project_id),
    "review_queue.review_queue": lambda w: dict(project_id=w.project_id, benchmark=1),
    "text_imports.import_text_file": lambda w: dict(project_id=w.project_id, data=b"A new text is here.\n",
                                                    filename="t.txt", default_benchmark=1),
    "text_imports.import_texts": lambda w: dict(project_id=w.project_id, records=[
        TextRecord("A new text is here today.", 1, None, 1)]),
    "warmup_set.mark_warmup": lambda w: dict(project_id=w.project_id, external_ids=["fresh"]),
    "warmup_set.pick_warmup": lambda w: dict(project_id=w.project_id, n=1, seed=1),
    "warmup_set.set_warmup_gold": lambda w: dict(sample_id=w.sample_id, boundaries=[0], segment_axes=["main"],
                                                 xi=40.0, omega=8.0, alpha=0.5),
    "warmup_set.unmark_warmup": lambda w: dict(project_id=w.project_id, external_ids=["fresh"]),
    "warmup_set.warmup_samples": lambda w: dict(project_id=w.project_id),
    "workbench_events.apply_events": lambda w: dict(annotation_id=w.annotation_id, client="c" * 16,
                                                    base_version=w.version, events=_edit()),
}


def _everything(db) -> dict[str, list[str]]:
    with db.read() as s:
        return {table.name: sorted(repr(tuple(row)) for row in s.execute(select(table)))
                for table in Base.metadata.sorted_tables}


# --- the rules ------------------------------------------------------------------------------


def test_every_entry_point_taking_a_number_has_a_case():
    walked = _walked()
    assert set(CALLS) == set(walked), \
        "an entry point takes a number: add a CALLS case (or name it a STEP of another with why)"
    names = {name for params in walked.values() for name in params}
    assert names - set(PARAMETERS) - set(OWN_CHECKS) == set(), \
        "a new numeric parameter: say what it stands for in number_limits.PARAMETERS"
    assert set(STEPS) <= set(_entry_points()), "no such step any more"


def test_each_integer_column_has_its_types_range():
    ranges = {"SmallInteger": (-2**15, 2**15 - 1), "Integer": (-2**31, 2**31 - 1),
              "BigInteger": (-2**63, 2**63 - 1)}
    columns = [c for t in Base.metadata.sorted_tables for c in t.columns if isinstance(c.type, Integer)]
    assert columns
    for column in columns:
        assert int_range(column.type) == ranges[type(column.type).__name__], column
    for name, rule in PARAMETERS.items():
        one = rule.one if isinstance(rule, Ids) else rule
        low, high = int_range(one.column)
        assert low <= one.range()[0] <= one.range()[1] <= high, name  # a narrower domain stays inside


def test_every_number_from_outside_is_refused_in_one_line_with_nothing_written(db, tmp_path):
    world = _world(db, tmp_path)
    entry_points = _entry_points()
    wrong: list[str] = []
    for key, params in sorted(_walked().items()):
        function = entry_points[key]
        signature = inspect.signature(function)
        good = CALLS[key](world)
        before = _everything(db)
        for name in params:
            parameter = signature.parameters[name]
            optional = parameter.default is None or "None" in str(parameter.annotation)
            for value in BAD:
                if value is None and optional:
                    continue
                bad = [value] if name.endswith("_ids") and value is not None else value
                args = (db, world.admin) if key not in WITHOUT_ACTOR else (db,)
                try:
                    function(*args, **{**good, name: bad})
                    wrong.append(f"{key}({name}={bad!r}) was accepted")
                except (InvalidInput, NotFound) as exc:
                    if "\n" in str(exc) or not str(exc).endswith("."):
                        wrong.append(f"{key}({name}={bad!r}): not one line: {exc}")
                except Exception as exc:  # noqa: BLE001 — what the walk is looking for
                    wrong.append(f"{key}({name}={bad!r}) raised {type(exc).__name__}: {str(exc)[:80]}")
        if _everything(db) != before:
            wrong.append(f"{key} wrote something when refusing")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("field", ["seq", "first"])
@pytest.mark.parametrize("value", [2**31, 2**63])
def test_an_edit_numbered_beyond_the_column_is_refused(db, field, value):
    """The edits' numbers come in the events, not as a parameter: each is checked against the
    column that stores the last one applied."""
    admin = accounts.create_first_admin(db, "admin", PASSWORD)
    pid = projects.create_project(db, admin, "P").id
    text_imports.import_texts(db, admin, pid, [TextRecord("On Monday the shop opens again after the works.", 1,
                                                      None, 1)])
    item = queue.next_item(db, admin, pid)
    event = {"seq": value, "kind": "step", "step": 1, **({"first": value} if field == "first" else {})}
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        workbench_events.apply_events(db, admin, item.annotation_id, "c" * 16, item.version, [event])
    low, high = EDIT_NUMBER.range()
    assert str(refused.value) == f"The number of an edit must be a whole number from {low} to {high}."
    assert _everything(db) == before


@pytest.mark.parametrize("drafts", [None, "three", [None], [FollowUpDraft(None, "It was cancelled.", None)]])
def test_follow_ups_that_are_not_drafts_are_refused(db, drafts):
    admin = accounts.create_first_admin(db, "admin", PASSWORD)
    pid = pairs_project(db, admin, targets=1)
    before = _everything(db)
    with pytest.raises(InvalidInput, match="^Write exactly one follow-up for each change"):
        authoring.save_follow_ups(db, admin, pid, "T-0", drafts)
    assert _everything(db) == before


def test_a_model_jobs_seed_is_a_whole_number_an_export_can_record(db, tmp_path):
    world = _world(db, tmp_path)
    before = _everything(db)
    for seed in ("x", -1, 2**80, True, 1.5):
        with pytest.raises(InvalidInput, match=r"^The seed must be a whole number from 0 to 2147483647\.$"):
            model_jobs.launch_model_job(db, world.admin, world.project_id, world.run_id, model_jobs.PREDICT,
                                        seed=seed, launcher="", start=False)
    assert _everything(db) == before
    job = model_jobs.launch_model_job(db, world.admin, world.project_id, world.run_id, model_jobs.PREDICT,
                                      seed=2**31 - 1, launcher="", start=False)
    assert job.config["seed"] == 2**31 - 1
