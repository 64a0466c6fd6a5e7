"""Importing interchange annotations into a project: all or nothing, idempotent, blind owners."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotation.segmentation import tokenize
from annotation.services import annotation_import, projects
from annotation.services.errors import InvalidInput, PermissionDenied
from annotation.text_import import TextRecord
from db.models import Annotation, Assignment, Sample, User

TEXT = "The bakery on Elm Street is closed for renovation this week, the owner says."


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Imported")
    projects.import_texts(db, lead, p.id, [TextRecord(TEXT, 1, "B1-00042", 1),
                                           TextRecord("Trains run every hour.", 1, "B1-00043", 2)])
    return p


def record(annotator: str, sample: str = "B1-00042", **over) -> dict:
    n = len(tokenize(TEXT))
    base = {"sample_id": sample, "annotator": annotator, "boundaries": [0, 5, 11],
            "segment_axes": ["main", "static", "opinion"],
            "points": [[60, 0.5], [76, 1.0], [96, 0.4]], "flags": [], "note": "",
            "submitted_at": "2026-11-20T10:31:00Z"}
    if sample != "B1-00042":
        base.update(boundaries=[0], segment_axes=["recurrent"])
    assert n == 16
    return {**base, **over}


def payload(*records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def counts(db):
    with db.read() as s:
        return (s.scalar(select(func.count()).select_from(Annotation)),
                s.scalar(select(func.count()).select_from(Assignment)),
                s.scalar(select(func.count()).select_from(User)))


def test_import_creates_submitted_annotations_and_inactive_owners(db, lead, project):
    data = payload(record("ann03"), record("ann07", submitted_at="2026-11-20T11:00:00Z"),
                   record("ann03", "B1-00043"))
    summary = annotation_import.import_annotations(db, lead, project.id, data, "old.jsonl")
    assert (summary.added, summary.already_present) == (3, 0)
    assert summary.new_accounts == ("ann03", "ann07")
    with db.read() as s:
        rows = s.execute(select(Annotation, Sample.external_id, User.username, User.is_active)
                         .join(Sample, Sample.id == Annotation.sample_id)
                         .join(User, User.id == Annotation.annotator_id)
                         .order_by(Annotation.submitted_at, Annotation.id)).all()
        slots = dict(s.execute(select(Assignment.user_id, Assignment.slot)
                               .join(Sample, Sample.id == Assignment.sample_id)
                               .where(Sample.external_id == "B1-00042")).all())
        n_assigned = s.scalar(select(Sample.n_assigned).where(Sample.external_id == "B1-00042"))
    assert all(a.status == "submitted" and a.xi is not None for a, *_ in rows)
    assert not any(active for *_, active in rows)  # imported owners cannot sign in
    assert sorted(slots.values()) == [1, 2] and n_assigned == 2


def test_reimport_is_harmless_and_a_different_version_is_refused(db, lead, project):
    data = payload(record("ann03"))
    annotation_import.import_annotations(db, lead, project.id, data)
    again = annotation_import.import_annotations(db, lead, project.id, data)
    assert (again.added, again.already_present, again.new_accounts) == (0, 1, ())
    before = counts(db)
    changed = payload(record("ann07"), record("ann03", segment_axes=["main", "main", "opinion"]))
    with pytest.raises(InvalidInput, match="line 2: ann03 already has a different annotation"):
        annotation_import.import_annotations(db, lead, project.id, changed)
    assert counts(db) == before  # not even ann07's record or account


def test_a_bad_record_imports_nothing(db, lead, project):
    before = counts(db)
    data = payload(record("ann03"), record("ann07", boundaries=[0, 5, 99]))
    with pytest.raises(InvalidInput, match="line 2: .*past the last token.*Nothing was imported"):
        annotation_import.import_annotations(db, lead, project.id, data, "x.jsonl")
    assert counts(db) == before


def test_annotators_cannot_import(db, make_user, project):
    ann = make_user("someone")
    with pytest.raises(PermissionDenied):
        annotation_import.import_annotations(db, ann, project.id, payload(record("ann03")))
