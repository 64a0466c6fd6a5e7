"""What the review queue keeps per process (annotation.services.review.review_queue): each open sample's
W1 and Pk, and whether a day is left to draw — kept only while what they were computed from is
unchanged (SQLite + PostgreSQL)."""

from __future__ import annotations

from datetime import date, timedelta

import shutil

import pytest
from sqlalchemy import select

from annotation.review.review_sampling import daily_review_sample
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import review, review_queue
from db.engine import Database
from db.models import Annotation, ReviewDay, ReviewItem, utcnow
from service_helpers import annotate, count, text_records

SPLIT_A = dict(boundaries=(0, 4), segment_axes=("static", "main"))
SPLIT_B = dict(boundaries=(0, 6), segment_axes=("static", "main"))


def _disagreeing_pair(db, make_user, pid):  # type: ignore[no-untyped-def]
    a, b = make_user("ann_a"), make_user("ann_b")
    annotate(db, a, pid, **SPLIT_A)
    annotate(db, b, pid, **SPLIT_B)


def test_a_changed_annotation_changes_the_figures_shown(db, make_user, make_project, lead):
    pid = make_project(1)
    _disagreeing_pair(db, make_user, pid)
    [row] = review.review_queue(db, lead, pid)
    assert row.w1 == pytest.approx(0.0, abs=1e-9) and row.pk == pytest.approx(0.4)
    with db.write() as s:  # one annotation changes (as a lead's tool or an import would)
        ann = s.scalars(select(Annotation).where(Annotation.status == "submitted")).first()
        ann.xi, ann.boundaries, ann.segment_axes = ann.xi + 12.0, [0], [["main"]]
        ann.version += 1
    [after] = review.review_queue(db, lead, pid)
    assert after.w1 == pytest.approx(12.0, abs=0.01)
    assert after.pk != row.pk


def _one_case(db, second: dict):  # type: ignore[no-untyped-def]
    """A fresh database's one open case: ann_a splits at 4, ann_b as ``second`` says."""
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    made = {}
    for name, role in (("lead1", "lead"), ("ann_a", "annotator"), ("ann_b", "annotator")):
        accounts.create_user(db, admin, name, f"{name}-password", role)
        made[name] = accounts.authenticate(db, name, f"{name}-password")
    pid = projects.create_project(db, made["lead1"], "P").id
    text_imports.import_texts(db, made["lead1"], pid, text_records(1))
    annotate(db, made["ann_a"], pid, **SPLIT_A)
    annotate(db, made["ann_b"], pid, **second)
    [row] = review.review_queue(db, made["lead1"], pid)
    return row


def test_two_databases_with_the_same_ids_keep_their_own_figures(tmp_path, sqlite_template):
    """The figures are kept per database: the same sample and annotation ids elsewhere are other work."""
    figures = []
    for folder, second in (("one", SPLIT_B), ("two", dict(SPLIT_A, flags=("not_present_tense",)))):
        shutil.copyfile(sqlite_template, tmp_path / f"{folder}.db")  # the migrated schema
        other = Database.connect(f"sqlite:///{tmp_path / folder}.db")
        try:
            figures.append(_one_case(other, second))
        finally:
            other.dispose()
    one, two = figures
    assert (one.item_id, one.sample_id) == (two.item_id, two.sample_id)  # the same ids …
    assert one.pk > 0 and two.pk == pytest.approx(0.0)                  # … other work


def test_a_queue_with_no_day_to_draw_opens_no_write_transaction(db, make_user, make_project, lead, monkeypatch):
    pid = make_project(1)
    _disagreeing_pair(db, make_user, pid)
    assert len(review.review_queue(db, lead, pid)) == 1

    def no_write():  # type: ignore[no-untyped-def]
        raise AssertionError("the queue took the write lock with nothing to draw")

    monkeypatch.setattr(db, "write", no_write)
    assert len(review.review_queue(db, lead, pid)) == 1


def test_a_day_that_ends_is_drawn_at_the_next_queue(db, make_user, make_project, lead, monkeypatch):
    pid = make_project(10)
    users = [make_user("x1"), make_user("x2")]
    for _ in range(10):
        for u in users:
            annotate(db, u, pid)  # all agree: auto gold, nothing flagged
    assert review.review_queue(db, lead, pid) == []  # today is not over: nothing drawn
    assert count(db, ReviewDay) == 0
    tomorrow = utcnow() + timedelta(days=1)
    monkeypatch.setattr(review_queue, "utcnow", lambda: tomorrow)
    rows = review.review_queue(db, lead, pid)
    # 10 % of 20 annotations are drawn; both may be of one sample (it depends on the day's hash
    # keys), and a sample is one case: the cases are the samples of the two drawn annotations.
    with db.read() as s:
        pairs = s.execute(select(Annotation.id, Annotation.sample_id)).all()
        [day] = s.scalars(select(ReviewDay))
    drawn = set(daily_review_sample([a for a, _ in pairs], date.fromisoformat(day.day), 0.1, seed=pid))
    assert len(drawn) == 2 and day.n_sampled == 2 and day.n_submitted == 20
    assert sorted(r.sample_id for r in rows) == sorted({sid for a, sid in pairs if a in drawn})
    assert all(r.reasons == ("daily_review",) for r in rows)
    assert count(db, ReviewDay) == 1
    assert len(review.review_queue(db, lead, pid)) == len(rows)  # drawn once


def test_work_dated_on_an_undrawn_past_day_is_drawn(db, make_user, make_project, lead):
    """Imported work can carry an earlier day than the last drawn one: the count of work before
    today changes, so the queue looks again."""
    pid = make_project(20)
    users = [make_user("x1"), make_user("x2")]
    for _ in range(10):
        for u in users:
            annotate(db, u, pid)
    with db.write() as s:
        for a in s.scalars(select(Annotation)):
            a.submitted_at = a.submitted_at - timedelta(days=1)
    assert len(review.review_queue(db, lead, pid)) == 2
    for _ in range(10):
        for u in users:
            annotate(db, u, pid)
    with db.write() as s:  # the second ten samples' work dated three days ago
        for a in s.scalars(select(Annotation).where(Annotation.submitted_at > utcnow() - timedelta(hours=12))):
            a.submitted_at = a.submitted_at - timedelta(days=3)
    assert len(review.review_queue(db, lead, pid)) == 4
    assert count(db, ReviewDay) == 2


def test_the_queue_is_read_again_only_when_what_it_shows_changed(db, make_user, make_project, lead, monkeypatch):
    pid = make_project(2)
    _disagreeing_pair(db, make_user, pid)
    [row] = review.review_queue(db, lead, pid)
    real = review_queue._read_queue
    reads = []
    monkeypatch.setattr(review_queue, "_read_queue", lambda *a: reads.append(1) or real(*a))
    assert review.review_queue(db, lead, pid, sort="w1") == [row] and reads == []  # unchanged: kept
    with db.write() as s:  # a new flag grows the open item's reasons
        item = s.get(ReviewItem, row.item_id)
        item.reasons = [*item.reasons, "not_present_tense"]
    [grown] = review.review_queue(db, lead, pid)
    assert grown.reasons == (*row.reasons, "not_present_tense") and reads == [1]
    review.decide(db, lead, row.item_id, "discard", confidence=3, error_type="other", note="duplicate")
    assert review.review_queue(db, lead, pid) == [] and reads == [1, 1]
