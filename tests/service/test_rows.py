"""Rows ↔ domain values (``annotation.services.rows``): what a service writes through the mapping
it reads back unchanged, on SQLite and PostgreSQL, from the ORM row, from a ``select`` of named
columns and from the fast JSON-as-text read; and no service maps rows by hand any more."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import select, update

from annotation.review.resolution import Resolution
from annotation.services.workbench import queue
from annotation.services import rows
from annotation.content import AnnotationContent
from db.models import Annotation, GoldAnnotation, Sample

ROOT = Path(__file__).resolve().parents[2]

WORK = AnnotationContent(boundaries=(0, 2), segment_axes=("static", None), points=((12.5, 1.0), (40.0, 0.25)),
                         xi=41.5, omega=7.25, alpha=-1.5, scale=0.9, rmse=0.02, params_source="manual",
                         flags=("unclear",), note="«literal» <b>note</b>")


def _first_sample(db, pid: int) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id).limit(1))


def test_annotation_content_round_trips_through_every_read(db, make_project, make_user):
    pid = make_project(2)
    ann = make_user("ann")
    item = queue.next_item(db, ann, pid)
    assert item is not None
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.id == item.annotation_id).values(**rows.content_values(WORK)))
    with db.read() as s:
        orm = s.get(Annotation, item.annotation_id)
        assert rows.annotation_content(orm) == WORK
        named = s.execute(select(*(getattr(Annotation, c) for c in rows.CONTENT_COLUMNS))
                          .where(Annotation.id == item.annotation_id)).one()
        assert rows.annotation_content(named) == WORK
        fast = s.execute(select(*rows.content_select(Annotation)).where(Annotation.id == item.annotation_id)).all()
        assert rows.contents_of(fast) == [WORK]


def test_a_fresh_drafts_empty_columns_read_as_empty_work(db, make_project, make_user):
    pid = make_project(2)
    item = queue.next_item(db, make_user("ann"), pid)
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.id == item.annotation_id)
                  .values(boundaries=[], segment_axes=[], points=[], flags=[], note=""))
    with db.read() as s:
        assert rows.annotation_content(s.get(Annotation, item.annotation_id)) == AnnotationContent()


def test_gold_round_trips(db, make_project, lead):
    pid = make_project(2)
    sid = _first_sample(db, pid)
    with db.read() as s:
        n_tokens = s.get(Sample, sid).n_tokens
    res = Resolution((0, 2), (("static",), ("main", "static")), 41.5, 7.25, -1.5, (), n_tokens)
    when = datetime(2026, 11, 29, 8, 0, tzinfo=timezone.utc)
    with db.write() as s:
        s.add(GoldAnnotation(sample_id=sid, **rows.gold_values(res, source="adjudicated", decided_by=lead.user_id,
                                                                decided_at=when, note="n", confidence=4,
                                                                error_type="boundary")))
    with db.read() as s:
        gold = rows.stored_gold(s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == sid)))
    back = gold.resolution(n_tokens)
    assert (back.boundaries, back.segment_axes, back.xi, back.omega, back.alpha) == (
        res.boundaries, res.segment_axes, res.xi, res.omega, res.alpha)
    assert (gold.source, gold.decided_by, gold.decided_at, gold.note, gold.confidence, gold.error_type) == (
        "adjudicated", lead.user_id, when, "n", 4, "boundary")


#: How a row used to be turned into a domain value by hand, in each service that needed one.
HAND_MAPPING = (
    re.compile(r"AnnotationContent\(\s*boundaries="),                     # a content from columns
    re.compile(r"tuple\(tuple\(\w+\) for \w+ in \w+\.segment_axes\)"),   # a gold's axes
    re.compile(r"\.boundaries or \(0,\)"),                                # a draft's empty columns
)


def test_no_service_maps_rows_by_hand():
    found = []
    for path in sorted((ROOT / "annotation" / "services").rglob("*.py")):  # the rooms too
        if path.name == "rows.py":
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(0)}" for p in HAND_MAPPING for m in p.finditer(text)]
    assert not found, f"map rows through annotation.services.rows, not by hand: {found}"


def test_export_rows_are_read_by_name():
    text = (ROOT / "annotation" / "services" / "export" / "export_reads.py").read_text(encoding="utf-8")
    assert not re.findall(r"\br\[\d+\]", text)


def test_the_rooms_decode_no_json_column_and_build_no_rating_themselves():
    found = []
    for room in ("quality", "review", "model", "workbench", "accounts", "jobs", "projects"):
        for path in sorted((ROOT / "annotation" / "services" / room).glob("*.py")):
            text = path.read_text(encoding="utf-8")
            found += [f"{room}/{path.name}: {m.group(0)}"
                      for m in re.finditer(r"json\.loads\(|\bRating\(|\bReferenceRow\(", text)]
    assert not found, f"decode and build through annotation.services.rows: {found}"
