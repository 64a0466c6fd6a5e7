"""De-duplication service: marks, the lead's decisions, the embedding cache — SQLite and PostgreSQL.

A word-hashing encoder stands in for SBERT here (the real model is exercised in
tests/unit/test_dedup.py); it gives texts sharing most words a cosine near 1.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from sqlalchemy import select

from annotation.services.corpus import duplicates
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import warmup_set
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from annotation.corpus.text_import import TextRecord
from db.models import AuditEvent, NearDuplicate, Sample, TextEmbedding
from service_helpers import count

TEXTS = [
    ("T-0", "The council approved the new budget for the city library on Monday."),
    ("T-1", "Heavy rain flooded several streets in the harbour district overnight."),
    ("T-2", "The council approved the new budget for the city library on Monday!"),
    ("T-3", "A local bakery won the regional prize for its sourdough bread."),
    ("T-4", "Heavy rain flooded several streets in the harbour district last night."),
    ("T-5", "Our school will open a science lab next spring."),
]


class WordHashEncoder:
    """Sum of fixed random word vectors, normalised; counts how many texts it embedded."""

    dim = 64

    def __init__(self):
        self.encoded = 0

    def get_sentence_embedding_dimension(self) -> int:
        return self.dim

    def encode(self, texts, **kwargs):
        self.encoded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().strip(".!?").split():
                rng = np.random.default_rng(zlib.crc32(word.encode()))
                out[i] += rng.standard_normal(self.dim).astype(np.float32)
            out[i] /= np.linalg.norm(out[i]) or 1.0
        return out


@pytest.fixture
def encoder():
    return WordHashEncoder()


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Dedup")
    text_imports.import_texts(db, lead, p.id, [TextRecord(t, 1, i, n + 1) for n, (i, t) in enumerate(TEXTS)])
    return p.id


def marks(db, project_id):
    with db.read() as s:
        rows = s.execute(select(Sample.external_id, NearDuplicate.status)
                         .join(NearDuplicate, NearDuplicate.sample_id == Sample.id)
                         .where(NearDuplicate.project_id == project_id)).all()
    return dict(rows)


def status_of(db, external_id):
    with db.read() as s:
        return s.scalar(select(Sample.status).where(Sample.external_id == external_id))


def test_run_marks_later_copies_and_keeps_them_in_the_pool(db, lead, project, encoder):
    seen = []
    summary = duplicates.run_dedup(db, lead, project, model=encoder,
                                   progress=lambda f, m: seen.append(f))
    assert marks(db, project) == {"T-2": "pending", "T-4": "pending"}
    assert (summary.n_texts, summary.n_embedded, summary.n_new_marks, summary.n_pending) == (6, 6, 2, 2)
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert all(status_of(db, i) == "active" for i, _ in TEXTS)  # only confirmed ones leave the pool
    pairs = duplicates.list_pairs(db, lead, project)
    by_id = {p.sample_id: p for p in pairs}
    assert by_id["T-2"].duplicate_of == "T-0" and by_id["T-4"].duplicate_of == "T-1"
    assert by_id["T-2"].text == TEXTS[2][1] and by_id["T-2"].of_text == TEXTS[0][1]
    assert by_id["T-2"].representation in ("sbert", "tfidf", "both") and by_id["T-2"].score > 0.7
    assert count(db, AuditEvent, AuditEvent.action == "run_dedup") == 1


def test_the_last_run_is_read_back_with_its_threshold(db, lead, project, encoder, make_user):
    """What the page says of an empty list: whether the search ran, when, over how many texts
    and at which threshold (the latest run; another project's runs are not this one's)."""
    assert duplicates.last_run(db, lead, project) is None
    duplicates.run_dedup(db, lead, project, model=encoder)
    duplicates.run_dedup(db, lead, project, model=encoder, threshold=0.95)
    other = projects.create_project(db, lead, "Other")
    text_imports.import_texts(db, lead, other.id, [TextRecord("One text alone.", 1, "O-1", 1)])
    duplicates.run_dedup(db, lead, other.id, model=encoder, threshold=0.5)
    last = duplicates.last_run(db, lead, project)
    assert (last.n_texts, last.threshold) == (6, 0.95) and last.at.tzinfo is not None
    with pytest.raises(PermissionDenied):
        duplicates.last_run(db, make_user("ann"), project)


def test_confirm_takes_the_text_out_of_the_pool_and_undo_brings_it_back(db, lead, project, encoder):
    duplicates.run_dedup(db, lead, project, model=encoder)
    mark = next(p for p in duplicates.list_pairs(db, lead, project) if p.sample_id == "T-2")
    assert duplicates.decide(db, lead, project, [mark.id], "confirm") == 1
    assert status_of(db, "T-2") == "duplicate"
    assert duplicates.decide(db, lead, project, [mark.id], "confirm") == 0  # double click: nothing
    confirmed = duplicates.list_pairs(db, lead, project, status="confirmed")
    assert [p.decided_by for p in confirmed] == ["lead1"]
    assert duplicates.decide(db, lead, project, [mark.id], "undo") == 1
    assert status_of(db, "T-2") == "active"
    assert marks(db, project)["T-2"] == "pending"
    with db.read() as s:
        actions = list(s.scalars(select(AuditEvent.action).where(AuditEvent.entity == "sample")
                                 .order_by(AuditEvent.id)))
    assert actions == ["duplicate_confirm", "duplicate_undo"]


def test_rerun_keeps_decisions_and_embeds_only_new_texts(db, lead, project, encoder):
    duplicates.run_dedup(db, lead, project, model=encoder)
    pairs = {p.sample_id: p for p in duplicates.list_pairs(db, lead, project)}
    duplicates.decide(db, lead, project, [pairs["T-2"].id], "confirm")
    duplicates.decide(db, lead, project, [pairs["T-4"].id], "release")
    assert count(db, TextEmbedding) == 6
    # a third copy of T-0 and a copy of the released T-4 arrive
    text_imports.import_texts(db, lead, project, [
        TextRecord("The council approved the new budget for the city library on Monday?", 1, "T-6", 1),
        TextRecord("Heavy rain flooded several streets in the harbour district last night!", 1, "T-7", 2),
    ])
    encoder.encoded = 0
    summary = duplicates.run_dedup(db, lead, project, model=encoder)
    assert encoder.encoded == 2 and (summary.n_embedded, summary.n_cached) == (2, 6)
    assert marks(db, project) == {"T-2": "confirmed", "T-4": "released", "T-6": "pending", "T-7": "pending"}
    pairs = {p.sample_id: p for p in duplicates.list_pairs(db, lead, project)}
    assert pairs["T-6"].duplicate_of == "T-0"  # the confirmed T-2 is never "the kept text"
    assert pairs["T-7"].duplicate_of in ("T-1", "T-4")  # the released T-4 counts as kept
    assert status_of(db, "T-2") == "duplicate"


def test_a_higher_threshold_drops_pending_marks_but_not_decisions(db, lead, project, encoder):
    duplicates.run_dedup(db, lead, project, model=encoder)
    mark = next(p for p in duplicates.list_pairs(db, lead, project) if p.sample_id == "T-2")
    duplicates.decide(db, lead, project, [mark.id], "confirm")
    duplicates.run_dedup(db, lead, project, model=encoder, threshold=1.0)
    assert marks(db, project) == {"T-2": "confirmed"}


def test_a_production_near_copy_of_a_warmup_text_is_marked_and_listed_first(db, lead, project, encoder):
    """A warm-up text (gold checks use it) was left out of de-duplication, so a near-copy of it
    sat in production (issue 22, item 10). Warm-up texts are now compared, always kept (never
    marked, even when imported later), and their near-copies are listed apart, first."""
    warmup_set.mark_warmup(db, lead, project, ["T-2"])
    duplicates.run_dedup(db, lead, project, model=encoder)
    assert marks(db, project) == {"T-0": "pending", "T-4": "pending"}  # T-0: a copy of warm-up T-2
    first, second = duplicates.list_pairs(db, lead, project)
    assert (first.sample_id, first.duplicate_of, first.of_warmup) == ("T-0", "T-2", True)
    assert (second.sample_id, second.of_warmup) == ("T-4", False)


def test_bad_requests_change_nothing(db, lead, project, encoder, make_user):
    annotator = make_user("ann1")
    with pytest.raises(PermissionDenied):
        duplicates.run_dedup(db, annotator, project, model=encoder)
    with pytest.raises(InvalidInput):
        duplicates.run_dedup(db, lead, project, model=encoder, threshold=0)
    assert count(db, NearDuplicate) == 0 and count(db, TextEmbedding) == 0
    duplicates.run_dedup(db, lead, project, model=encoder)
    mark = duplicates.list_pairs(db, lead, project)[0]
    with pytest.raises(PermissionDenied):
        duplicates.decide(db, annotator, project, [mark.id], "confirm")
    with pytest.raises(InvalidInput):
        duplicates.decide(db, lead, project, [mark.id], "delete")
    with pytest.raises(NotFound):  # a stale tab names a mark a re-run replaced
        duplicates.decide(db, lead, project, [mark.id, 999_999], "confirm")
    assert set(marks(db, project).values()) == {"pending"}
    assert all(status_of(db, i) == "active" for i, _ in TEXTS)


def test_the_database_pages_the_marks_most_similar_first(db, lead, project, encoder):
    duplicates.run_dedup(db, lead, project, model=encoder, threshold=0.05)
    everything = duplicates.list_pairs(db, lead, project, limit=10_000)
    assert len(everything) >= 4
    assert everything == sorted(everything, key=lambda p: (-p.score, p.id))  # the score that fired
    n_pages = -(-len(everything) // 3)
    pages = [duplicates.pair_page(db, lead, project, page=n, page_size=3) for n in range(1, n_pages + 1)]
    assert {(p.total, p.n_pages) for p in pages} == {(len(everything), n_pages)}
    seen = [pair.id for p in pages for pair in p.pairs]
    assert seen == [p.id for p in everything]
    assert all(len(p.pairs) <= 3 for p in pages)
    last = duplicates.pair_page(db, lead, project, page=99, page_size=3)  # past the end: the last page
    assert last.page == last.n_pages and last.pairs
    with pytest.raises(InvalidInput, match="The page must be a whole number from 1"):
        duplicates.pair_page(db, lead, project, page=0, page_size=3)  # pages count from 1
    empty = duplicates.pair_page(db, lead, project, status="confirmed")
    assert (empty.total, empty.page, empty.n_pages, empty.pairs) == (0, 1, 1, [])
    with pytest.raises(InvalidInput):
        duplicates.pair_page(db, lead, project, status="nonsense")
