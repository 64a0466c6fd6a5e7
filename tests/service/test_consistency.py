"""Consistency across similar texts (issue 12 item 7) on SQLite and PostgreSQL: the pairs found
from the stored SBERT vectors and the golds, warm-up samples left out, the similarity and W1
thresholds respected, samples without a vector counted, the lead's role enforced."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select, update

from annotation.corpus.duplicates import pack_embedding
from annotation.corpus.embeddings import SBERT_MODEL_NAME
from annotation.services.quality import consistency
from annotation.services.projects import projects
from annotation.services.errors import InvalidInput, PermissionDenied
from db.models import GoldAnnotation, ReviewItem, Sample, TextEmbedding

#: external id → (vector, gold ξ, gold segment axes); None: no stored vector
PLAN = {
    # S-000 and S-001 say the same; their gold curves sit 20 log-time units apart (W1 = 20)
    "S-000": ([1.0, 0.0, 0.0], 50.0, [["main"]]),
    "S-001": ([0.99, 0.1, 0.0], 70.0, [["main"]]),
    # S-002 and S-003 say the same; same curve, but S-003's gold also uses Static
    "S-002": ([0.0, 1.0, 0.0], 50.0, [["main"]]),
    "S-003": ([0.0, 0.99, 0.1], 50.0, [["static"], ["main"]]),
    # S-004 is a warm-up sample: like S-005 but left out
    "S-004": ([0.0, 0.0, 1.0], 90.0, [["main"]]),
    "S-005": ([0.0, 0.05, 1.0], 50.0, [["main"]]),
    # S-006 has gold but no vector (de-duplication has not embedded it)
    "S-006": (None, 50.0, [["main"]]),
}


@pytest.fixture
def project(db, make_project):
    pid = make_project(8)  # S-007 has no gold: not compared, not counted
    with db.write() as s:
        ids = dict(s.execute(select(Sample.external_id, Sample.id).where(Sample.project_id == pid)).all())
        for ext, (vector, xi, axes) in PLAN.items():
            s.add(GoldAnnotation(sample_id=ids[ext], boundaries=list(range(len(axes))), segment_axes=axes,
                                 xi=xi, omega=8.0, alpha=0.0, source="auto"))
            if vector is not None:
                v = np.asarray(vector, dtype=np.float32)
                s.add(TextEmbedding(sample_id=ids[ext], model=SBERT_MODEL_NAME, dim=3,
                                    vector=pack_embedding(v / np.linalg.norm(v))))
        s.execute(update(Sample).where(Sample.id == ids["S-004"]).values(is_warmup=True))
        s.add(ReviewItem(sample_id=ids["S-001"], reasons=["daily_review"], status="open"))
    return pid


def _pairs(report):
    return [(p.first.external_id, p.second.external_id) for p in report.pairs]


def test_pairs_found_with_both_texts_and_what_differs(db, lead, project):
    report = consistency.consistency_pairs(db, lead, project)
    assert sorted(_pairs(report)) == [("S-000", "S-001"), ("S-002", "S-003")]
    assert (report.n_compared, report.n_without_vector) == (5, 1)  # S-004 warm-up, S-006 no vector
    assert (report.similarity_min, report.w1_max, report.truncated) == (0.9, 12.0, False)
    by = {(p.first.external_id, p.second.external_id): p for p in report.pairs}
    curves = by[("S-000", "S-001")]
    assert curves.curves_differ and not curves.axes_differ and curves.why == "curves"
    assert curves.w1 == pytest.approx(20.0, abs=1e-6)
    assert curves.time_factor == pytest.approx(1.1 ** 20.0)
    assert curves.distance_text == "S-001's curve sits ≈ ×6.7 later than S-000's"
    assert curves.similarity == pytest.approx(0.99 / np.hypot(0.99, 0.1), abs=1e-6)
    assert curves.first.text == "Sample number 0 says the shop on street 0 is closed this week."
    assert (curves.first.review_item_id, curves.second.review_item_id is not None) == (None, True)
    axes = by[("S-002", "S-003")]
    assert axes.axes_differ and not axes.curves_differ and axes.w1 == pytest.approx(0.0, abs=1e-9)
    assert (axes.first.axes, axes.second.axes) == (("main",), ("main", "static"))


def test_sorted_by_similarity_or_by_w1(db, lead, project):
    by_w1 = consistency.consistency_pairs(db, lead, project, order="w1")
    assert _pairs(by_w1) == [("S-000", "S-001"), ("S-002", "S-003")]
    sims = [p.similarity for p in consistency.consistency_pairs(db, lead, project).pairs]
    assert sims == sorted(sims, reverse=True)
    with pytest.raises(InvalidInput):
        consistency.consistency_pairs(db, lead, project, order="age")


def test_thresholds_are_the_projects(db, lead, project):
    projects.update_settings(db, lead, project, flag_w1_max=25.0)  # W1 20 is within it now
    assert _pairs(consistency.consistency_pairs(db, lead, project)) == [("S-002", "S-003")]
    projects.update_settings(db, lead, project, flag_w1_max=20.0)  # at the threshold: not above it
    assert _pairs(consistency.consistency_pairs(db, lead, project)) == [("S-002", "S-003")]
    projects.update_settings(db, lead, project, flag_w1_max=12.0, consistency_similarity_min=0.999)
    assert _pairs(consistency.consistency_pairs(db, lead, project)) == []


def test_warmup_samples_are_left_out(db, lead, project):
    with db.write() as s:
        s.execute(update(Sample).where(Sample.project_id == project, Sample.external_id == "S-004")
                  .values(is_warmup=False))
    assert ("S-004", "S-005") in _pairs(consistency.consistency_pairs(db, lead, project))


def test_limit_keeps_the_most_similar(db, lead, project):
    report = consistency.consistency_pairs(db, lead, project, limit=1)
    assert len(report.pairs) == 1 and report.truncated


def test_only_a_lead(db, make_user, project):
    with pytest.raises(PermissionDenied):
        consistency.consistency_pairs(db, make_user("ann"), project)


def test_nothing_stored_yet(db, lead, make_project):
    pid = make_project(3)
    report = consistency.consistency_pairs(db, lead, pid)
    assert (report.pairs, report.n_compared, report.n_without_vector) == ((), 0, 0)
