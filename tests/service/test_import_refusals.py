"""Imports refuse a file in one sentence of the product's, with nothing written: an id that is not
text, a reason that ends in its own full stop (each import, on both databases)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.corpus import pair_imports
from annotation.services.errors import InvalidInput
from annotation.settings import ProjectSettings
from db.base import Base
from service_helpers import text_records


def _rows(db) -> int:
    with db.read() as s:
        return sum(s.scalar(select(func.count()).select_from(t)) for t in Base.metadata.sorted_tables)


def test_a_pairs_file_with_an_id_that_is_not_text_is_refused(db, lead):
    pid = projects.create_project(db, lead, "Pairs", settings=ProjectSettings(protocol="pairs")).id
    before = _rows(db)
    data = b'{"target": "The pool is closed today.", "follow_up": "It reopened.", "target_id": NaN}\n'
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, lead, pid, data, "p.jsonl")
    assert str(refused.value) == ("p.jsonl: line 1: target_id must be text or a whole number, not NaN. "
                                  "Nothing was imported.")
    assert _rows(db) == before


def test_a_texts_file_with_an_id_that_is_not_text_is_refused(db, lead):
    pid = projects.create_project(db, lead, "Texts").id
    before = _rows(db)
    with pytest.raises(InvalidInput) as refused:
        text_imports.import_text_file(db, lead, pid, b'{"text": "The pool is closed today.", "id": true}\n', "t.jsonl")
    assert str(refused.value) == "t.jsonl: line 1: id must be text or a whole number, not true. Nothing was imported."
    assert _rows(db) == before


def test_an_annotations_file_refused_for_a_reason_with_its_own_full_stop_says_it_once(db, lead):
    pid = projects.create_project(db, lead, "Texts").id
    text_imports.import_texts(db, lead, pid, text_records(1))
    before = _rows(db)
    line = {"sample_id": "S-000", "annotator": "ann", "boundaries": [1], "segment_axes": ["main"], "xi": 50.0,
            "omega": 9.0, "alpha": 0.0, "submitted_at": "2026-11-20T10:31:00Z"}
    with pytest.raises(InvalidInput) as refused:
        annotation_import.import_annotations(db, lead, pid, json.dumps(line).encode(), "a.jsonl")
    assert str(refused.value) == ("a.jsonl: line 1: Segmentation: the first segment must start at token 0. "
                                  "Nothing was imported.")
    assert _rows(db) == before


def test_an_id_already_used_by_a_different_record_is_refused_in_the_refusals_words(db, lead):
    """The plan's refusals end like every import refusal: the reason, one full stop, then
    "Nothing was imported." (a texts import and a pairs import)."""
    texts = projects.create_project(db, lead, "Texts").id
    text_imports.import_texts(db, lead, texts, text_records(1))
    pairs = projects.create_project(db, lead, "Pairs", settings=ProjectSettings(protocol="pairs")).id
    pair_imports.import_pair_file(db, lead, pairs, b'{"target": "Gym at six.", "follow_up": "At seven.", '
                                               b'"target_id": "gym"}\n', "p.jsonl")
    before = _rows(db)
    with pytest.raises(InvalidInput) as refused:
        text_imports.import_text_file(db, lead, texts, b'{"text": "Another text.", "id": "S-000"}\n', "t.jsonl")
    assert str(refused.value) == ("line 1: id 'S-000' is already used by a different text in this project. "
                                  "Nothing was imported.")
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, lead, pairs, b'{"target": "Swim at five.", "follow_up": "Closed.", '
                                                   b'"target_id": "gym"}\n', "p.jsonl")
    assert str(refused.value) == ("line 1: target_id 'gym' already names a different target in this project. "
                                  "Nothing was imported.")
    assert _rows(db) == before
