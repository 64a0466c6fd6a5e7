"""Seed data for the context-pair tests: a pairs project whose samples and follow-ups, and the
annotators' submitted two-curve annotations, are written straight into the tables (the pair
import and the workbench's pair steps are tested on their own)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from annotation.corpus.pair_import import PairRecord
from annotation.services.corpus import pair_imports
from annotation.services.projects import projects
from annotation.services.rows import content_values
from annotation.content import AnnotationContent
from db.models import Annotation, Sample, SamplePair

#: A target alone (about 4 hours: "2–6 hours") and what follow-ups do to it, ξ on the base-1.1 axis.
ALONE = (45.0, 10.0, 0.0)
LATER = (62.0, 10.0, 0.0)    # ≈ ×5 longer: increased
SAME = (46.0, 10.0, 0.0)     # ≈ ×1.1: neutral
SOONER = (30.0, 10.0, 0.0)   # ≈ ×4 shorter: decreased


def pair_content(alone=ALONE, given=LATER, change: str = "", **extra) -> AnnotationContent:
    """A submitted pair annotation: one segment, the two curves (parameters only) and the
    annotator's override of the change label ("" accepts the derived one)."""
    values = dict(boundaries=(0,), segment_axes=("main",), xi=alone[0], omega=alone[1],
                  alpha=alone[2], context_xi=given[0], context_omega=given[1],
                  context_alpha=given[2], change=change)
    return AnnotationContent(**{**values, **extra})


def pairs_project(db, lead, pairs: list[dict], name: str = "Pairs", **settings) -> int:
    """A pairs project with one sample per entry of ``pairs`` (``id``, ``target``, ``follow_up``,
    and optional ``reference_alone``/``reference_given``/``reference_change``/``intended_change``)."""
    p = projects.create_project(db, lead, name)
    projects.update_settings(db, lead, p.id, protocol="pairs", **settings)
    pair_imports.import_pairs(db, lead, p.id, [
        PairRecord(x["target"], x["follow_up"], x["id"], x.get("target_key", x["id"]), i + 1,
                   x.get("reference_alone"), x.get("reference_given"), x.get("reference_change", ""))
        for i, x in enumerate(pairs)])
    with db.write() as s:
        ids = dict(s.execute(select(Sample.external_id, Sample.id).where(Sample.project_id == p.id)).all())
        for x in pairs:
            if x.get("intended_change"):
                s.get(SamplePair, ids[x["id"]]).intended_change = x["intended_change"]
    return p.id


def sample_id_of(db, project_id: int, external_id: str) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == project_id,
                                                Sample.external_id == external_id))


def write_submitted(db, sample_id: int, annotator_id: int, content: AnnotationContent, *,
                    minutes: int = 0) -> int:
    """Store ``content`` as ``annotator_id``'s submitted annotation of the sample; returns its id."""
    at = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc) + timedelta(minutes=minutes)
    with db.write() as s:
        a = Annotation(sample_id=sample_id, annotator_id=annotator_id, status="submitted",
                       submitted_at=at, updated_at=at, **content_values(content))
        s.add(a)
        s.flush()
        return a.id


def pairs_from_texts(db, actor, name: str, records, follow_up, *, settings=None, **pair_fields) -> int:
    """A pairs project whose pairs are ``records`` (``TextRecord``s: the text is the target, the
    id the pair's) imported through the pairs import, each pair's follow-up then set to
    ``follow_up(sample)`` and its ``sample_pairs`` row given ``pair_fields`` (reference labels, an
    author's intent — what annotators must never see); returns the project id."""
    p = projects.create_project(db, actor, name)
    projects.update_settings(db, actor, p.id, protocol="pairs", **(settings or {}))
    pair_imports.import_pairs(db, actor, p.id, [
        PairRecord(r.text, "(set below)", r.external_id, r.external_id, i + 1)
        for i, r in enumerate(records)], source=name)
    with db.write() as s:
        for smp in s.scalars(select(Sample).where(Sample.project_id == p.id)):
            row = s.get(SamplePair, smp.id)
            row.follow_up = follow_up(smp)
            for key, value in pair_fields.items():
                setattr(row, key, value)
    return p.id
