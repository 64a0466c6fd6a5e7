"""No computation while a write lock is held (SPEC §10, a team's day): the annotator's write path
(workbench_events.apply_events) replays edits, fits curves, computes flags, gold, warm-up
figures and gold-check scores before its write transaction, never inside it — on SQLite (where
the write lock, taken at BEGIN IMMEDIATE, serves the whole team) and on PostgreSQL (row locks).

The watch follows every connection of the engine: a connection holds a write lock from BEGIN
IMMEDIATE (SQLite) or its first statement that writes or locks rows (UPDATE, INSERT, DELETE,
SELECT … FOR UPDATE) until its COMMIT or ROLLBACK. Each computation is wrapped to note whether
any lock was held when it ran, and counted, so the test cannot pass by not computing at all.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
from sqlalchemy import event, select

import workbench_writes
from annotation.workbench import editing, event_log
from annotation.corpus.text_import import TextRecord
from annotation.services.quality import admission, gold_checks, qualification, experts, gold_weighting
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue, submission, workbench_events
from annotation.services.review import review, settle_plan, warmup_set
from db.models import Sample
from service_helpers import GOOD_POINTS, complete_content, gold_rows

#: A boundary the other annotation (one Main segment) lacks, with Main on both sides: a review item
#: whose union has one axis per segment, so every decision can store it.
SPLIT = dict(boundaries=(0, 4), segment_axes=("main", "main"))


class LockWatch:
    """Which connections hold a write lock now, and how long each lock was held."""

    def __init__(self, engine):
        self.engine = engine
        self.since: dict[int, float] = {}
        self.held: list[float] = []
        self.statements: dict[int, list[str]] = {}  # per connection, those sent under its lock
        self.transactions: list[list[str]] = []  # the statements of each finished lock
        self.events = (("before_cursor_execute", self._statement), ("commit", self._end),
                       ("rollback", self._end))
        for name, fn in self.events:
            event.listen(engine, name, fn)

    def close(self) -> None:
        for name, fn in self.events:
            event.remove(self.engine, name, fn)

    def _statement(self, conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001
        head = statement.lstrip().upper()
        if head.startswith(("BEGIN IMMEDIATE", "UPDATE", "INSERT", "DELETE")) or "FOR UPDATE" in head:
            self.since.setdefault(id(conn), time.perf_counter())
        if id(conn) in self.since and not head.startswith("BEGIN"):
            self.statements.setdefault(id(conn), []).append(head.split()[0])

    def _end(self, conn):  # noqa: ANN001
        started = self.since.pop(id(conn), None)
        if started is not None:
            self.held.append(time.perf_counter() - started)
            self.transactions.append(self.statements.pop(id(conn), []))

    @property
    def locked(self) -> bool:
        return bool(self.since)


#: The computations of the write path: (module, attribute) wrapped by the watch.
COMPUTATIONS = [
    (event_log, "replay"),
    (editing, "fit_curve"), (editing, "fit_scale_for"),
    (submission, "fit_curve"), (submission, "fit_scale_for"),
    (settle_plan, "flags_for_sample"), (settle_plan, "pooled_gold"), (settle_plan, "annotator_flag_hits"),
    (gold_weighting, "cross_fit"), (experts, "score_annotators"),
    (admission, "qualification_figures"),
    (gold_checks, "score_check"),
    (review, "pooled_gold"), (review, "pooled_or_none"), (review, "pool_versions_with_fit"),
]


@pytest.fixture
def watch(db, monkeypatch):
    """The lock watch on ``db``, with every computation wrapped: ``watch.calls`` counts them,
    ``watch.under_lock`` lists those that ran while a lock was held."""
    w = LockWatch(db.engine)
    w.calls, w.under_lock = Counter(), []
    for module, name in COMPUTATIONS:
        real = getattr(module, name)

        def wrapped(*args, __real=real, __name=f"{module.__name__}.{name}", **kwargs):
            w.calls[__name] += 1
            if w.locked:
                w.under_lock.append(__name)
            return __real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)
    yield w
    w.close()


def test_a_batch_of_500_moves_is_replayed_and_fitted_before_its_write(db, make_user, make_project, watch):
    pid = make_project(1)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    saved = workbench_writes.save_draft(db, ann, item.annotation_id, item.version,
                                        complete_content(), step=2)
    moves = [{"seq": i, "kind": "point", "action": "move", "index": 1, "x": 20.0 + (i % 40) / 10,
              "y": 0.41} for i in range(1, 501)]
    out = workbench_events.apply_events(db, ann, item.annotation_id, "arrow-key", saved.version, moves)
    assert out.last_seq == 500 and out.item.version == saved.version + 1
    assert watch.calls["annotation.workbench.event_log.replay"] >= 2 and watch.calls["annotation.workbench.editing.fit_curve"] >= 1
    assert watch.under_lock == []


@pytest.mark.parametrize("pooling", ["model", "calibration"])
def test_a_weighted_gold_is_weighed_before_the_write(db, lead, make_user, make_project, watch, pooling):
    """The pooling rule's computations — the annotator model's fit, the annotators' Cooke scores —
    run in the submit's read, never while its write holds the lock."""
    import json

    from annotation.services.corpus import annotation_import

    pid = make_project(24, gold_pooling=pooling)
    lines = [json.dumps({"sample_id": f"S-{i:03d}", "annotator": who, "boundaries": [0],
                         "segment_axes": ["main"], "xi": 40.0 + i, "omega": 8.0, "alpha": 0.0,
                         "submitted_at": "2026-11-02T10:00:00Z"})
             for i in range(2, 24) for who in ("imp_a", "imp_b")]
    annotation_import.import_annotations(db, lead, pid, "\n".join(lines).encode(), "a.jsonl")
    a, b = make_user("ann_a"), make_user("ann_b")
    close = tuple((x + 1.0, y) for x, y in GOOD_POINTS)
    for user, content in ((a, complete_content()), (b, complete_content(points=close))):
        item = queue.next_item(db, user, pid)
        workbench_writes.submit(db, user, item.annotation_id, item.version, content)
    computed = ("annotation.services.quality.gold_weighting.cross_fit" if pooling == "model"
                else "annotation.services.quality.experts.score_annotators")
    assert watch.calls[computed] >= 1
    assert watch.under_lock == []


def test_settling_submits_compute_flags_and_gold_before_their_write(db, make_user, make_project, watch):
    pid = make_project(3)
    a, b = make_user("ann_a"), make_user("ann_b")
    # two close curves: nothing to flag, the first sample settles at its second submit
    close = tuple((x + 1.0, y) for x, y in GOOD_POINTS)
    for user, content in ((a, complete_content()), (b, complete_content(points=close))):
        item = queue.next_item(db, user, pid)
        workbench_writes.submit(db, user, item.annotation_id, item.version, content)
    flagged = complete_content(flags=("multiple_peaks",))
    for user in (a, b):  # the second sample: an annotator's flag, then a complete pair
        item = queue.next_item(db, user, pid)
        workbench_writes.submit(db, user, item.annotation_id, item.version, flagged)
    assert len(gold_rows(db)) == 1
    for name in ("flags_for_sample", "pooled_gold", "annotator_flag_hits"):
        assert watch.calls[f"annotation.services.review.settle_plan.{name}"] >= 1, name
    assert watch.calls["annotation.services.workbench.submission.fit_curve"] >= 4
    assert watch.under_lock == []


def test_warm_up_and_gold_check_submits_score_before_their_write(db, lead, make_user, make_project, watch):
    pid = make_project(6, gold_check_share=0.5)
    warm = ["S-004", "S-005"]
    warmup_set.mark_warmup(db, lead, pid, warm)
    for ext in warm:
        warmup_set.set_warmup_gold(db, lead, _sample_id(db, pid, ext), **SPLIT, xi=30.0, omega=8.0, alpha=0.5)
    veteran = make_user("veteran")  # admitted: one of every two hand-outs is a gold check
    qualification.admit(db, lead, pid, veteran.user_id, "experienced")
    watch.calls.clear()  # the lead's set-up above is not the annotators' write path
    watch.under_lock.clear()
    newcomer = make_user("newcomer")  # in warm-up: scored by qualification figures
    item = queue.next_item(db, newcomer, pid)
    workbench_writes.submit(db, newcomer, item.annotation_id, item.version, complete_content(**SPLIT))
    for _ in range(2):
        item = queue.next_item(db, veteran, pid)
        workbench_writes.submit(db, veteran, item.annotation_id, item.version, complete_content(**SPLIT))
    assert watch.calls["annotation.services.quality.admission.qualification_figures"] >= 1
    assert watch.calls["annotation.services.quality.gold_checks.score_check"] >= 1
    assert watch.under_lock == []


def test_the_write_of_a_batch_is_one_statement(db, lead, make_user, make_project, watch):
    """The lock is held for one versioned UPDATE: a batch of 500 boundary toggles on a
    2,500-token text is read, replayed and checked before it (the replay took seconds when it
    ran inside the write, after a SELECT … FOR UPDATE)."""
    pid = make_project(0)
    long_text = " ".join(f"w{i}" for i in range(2500))
    text_imports.import_texts(db, lead, pid, [TextRecord(long_text, 2, "LONG-1", 1)])
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    n = item.n_tokens
    assert n == 2500
    toggles = [{"seq": i, "kind": "boundary", "gap": 1 + (i * 997) % (n - 1)} for i in range(1, 501)]
    watch.transactions.clear()
    out = workbench_events.apply_events(db, ann, item.annotation_id, "toggler", item.version, toggles)
    assert out.last_seq == 500 and len(out.item.content.boundaries) > 1
    assert watch.transactions == [["UPDATE"]]


#: The statements a submit's write transaction sends, at most (BEGIN and COMMIT not counted):
#: the quota and pause check (locking the user's row on PostgreSQL), the versioned UPDATE, the
#: audit INSERT, the running sums' UPDATE, the sample's state (verified as planned); settling
#: adds the gold INSERT.
SUBMIT_WRITE_FIRST = 5
SUBMIT_WRITE_SETTLING = 6


def test_a_submit_writes_in_a_few_statements(db, make_user, make_project, watch):
    pid = make_project(2)
    first, second = make_user("ann1"), make_user("ann2")
    items = [queue.next_item(db, who, pid) for who in (first, second)]
    assert items[0].sample_id == items[1].sample_id
    written = []
    for who, item in zip((first, second), items):
        watch.transactions.clear()
        workbench_writes.submit(db, who, item.annotation_id, item.version, complete_content())
        written.append(watch.transactions[0])  # the submit's; then the next sample's hand-out
    assert len(written[0]) <= SUBMIT_WRITE_FIRST, written[0]
    assert len(written[1]) <= SUBMIT_WRITE_SETTLING, written[1]
    assert len(gold_rows(db)) == 1  # the settling submit made gold


def _sample_id(db, pid, ext) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == ext))


def test_a_leads_decision_computes_its_gold_before_its_write(db, lead, make_user, make_project, watch):
    """accept_auto merges and accept_pooled refits the pooled curve with no lock held; the write
    then only checks that the annotations did not change and stores."""
    pid = make_project(2)
    a, b = make_user("ann_a"), make_user("ann_b")
    for _ in range(2):  # two samples, each with disagreeing segmentations: two review items
        for user, content in ((a, complete_content(**SPLIT)), (b, complete_content())):
            item = queue.next_item(db, user, pid)
            workbench_writes.submit(db, user, item.annotation_id, item.version, content)
    items = [r.item_id for r in review.review_queue(db, lead, pid)]
    assert len(items) == 2
    for item_id, decision in zip(items, ("accept_auto", "accept_pooled")):
        assert review.decide(db, lead, item_id, decision, confidence=4, error_type="annotator_error") == decision
    assert watch.calls["annotation.services.review.review.pooled_gold"] >= 1
    assert watch.calls["annotation.services.review.review.pooled_or_none"] >= 1
    assert watch.under_lock == []
    assert len(gold_rows(db)) == 2


def test_a_decision_whose_annotations_change_while_it_computes_stores_nothing(db, lead, make_user, make_project,
                                                                             monkeypatch):
    from sqlalchemy import update

    from annotation.services.errors import StaleVersion
    from db.models import Annotation, ReviewItem

    pid = make_project(1)
    a, b = make_user("ann_a"), make_user("ann_b")
    for user, content in ((a, complete_content(**SPLIT)), (b, complete_content())):
        item = queue.next_item(db, user, pid)
        workbench_writes.submit(db, user, item.annotation_id, item.version, content)
    [row] = review.review_queue(db, lead, pid)
    real = review.pooled_gold

    def meanwhile(versions, *args):  # another write lands while the lead's merge is computed
        with db.write() as s:
            s.execute(update(Annotation).values(version=Annotation.version + 1))
        return real(versions, *args)

    monkeypatch.setattr(review, "pooled_gold", meanwhile)
    with pytest.raises(StaleVersion, match="annotations changed while you decided"):
        review.decide(db, lead, row.item_id, "accept_auto", confidence=3, error_type="annotator_error")
    assert gold_rows(db) == []
    with db.read() as s:
        assert s.get(ReviewItem, row.item_id).status == "open"
