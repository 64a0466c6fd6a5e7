"""Importing interchange annotations into a context-pairs project (both databases): the curve
given the follow-up and the change override are stored through the staging path; a single-texts
project refuses them; a pair without its second curve is refused."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from annotation.corpus.interchange import pair_interchange_fields, to_interchange
from annotation.corpus.pair_import import PairRecord
from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.corpus import pair_imports
from annotation.services.errors import InvalidInput
from annotation.services.rows import annotation_content
from annotation.settings import ProjectSettings
from db.models import Annotation, Base, Sample, User
from service_helpers import text_records

TARGET = "Job interview tomorrow morning, wish me luck."
ALONE = {"xi": 60.0, "omega": 8.0, "alpha": 0.0}
#: the half-gone time ≈ ×3 later: increased at the default threshold (×1.5)
GIVEN = {"context_xi": 71.5, "context_omega": 8.0, "context_alpha": 0.0}


def _everything(db) -> dict[str, list[str]]:
    with db.read() as s:
        return {t.name: sorted(repr(tuple(r)) for r in s.execute(select(t))) for t in Base.metadata.sorted_tables}


@pytest.fixture
def pairs_project(db, lead) -> int:
    pid = projects.create_project(db, lead, "Pairs", settings=ProjectSettings(protocol="pairs")).id
    pair_imports.import_pairs(db, lead, pid, [PairRecord(TARGET, "They moved it to next Friday.", "P1", "T1", 1),
                                          PairRecord(TARGET, "It was cancelled.", "P2", "T1", 2)])
    return pid


def record(annotator: str, sample: str = "P1", **over) -> dict:
    return {"sample_id": sample, "annotator": annotator, **ALONE, **GIVEN,
            "submitted_at": "2026-11-20T10:31:00Z", **over}


def payload(*records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def _stored(db) -> dict[tuple[str, str], Annotation]:
    with db.read() as s:
        rows = s.execute(select(Annotation, Sample.external_id, User.username)
                         .join(Sample, Sample.id == Annotation.sample_id)
                         .join(User, User.id == Annotation.annotator_id)).all()
        return {(ext, name): annotation_content(a) for a, ext, name in rows}


def test_pair_annotations_keep_both_curves_and_the_override(db, lead, pairs_project):
    data = payload(record("ann1"), record("ann2", change="neutral"),
                   record("ann1", "P2", context_xi=None, context_omega=None, context_alpha=None,
                          context_points=[[40, 0.2], [50, 1.0], [60, 0.3]], change="increased"))
    summary = annotation_import.import_annotations(db, lead, pairs_project, data, "pairs.jsonl")
    assert (summary.added, summary.already_present) == (3, 0)
    stored = _stored(db)
    first = stored[("P1", "ann1")]
    assert (first.xi, first.omega, first.alpha) == (60.0, 8.0, 0.0)
    assert (first.context_xi, first.context_omega, first.context_alpha, first.change) == (71.5, 8.0, 0.0, "")
    assert first.boundaries == (0,) and first.segment_axes == (None,)  # the project does not segment
    assert stored[("P1", "ann2")].change == "neutral"  # an override
    fitted = stored[("P2", "ann1")]
    assert fitted.context_xi is not None and fitted.context_params_source == "fit" and len(fitted.context_points) == 3
    # its curve given the follow-up lies earlier (decreased): "increased" is an override
    assert fitted.change == "increased"
    # importing the same file again adds nothing, also after writing it back out
    again = annotation_import.import_annotations(db, lead, pairs_project, data, "pairs.jsonl")
    assert (again.added, again.already_present) == (0, 3)
    written = {**to_interchange("P1", "ann2", stored[("P1", "ann2")], None),
               **pair_interchange_fields(stored[("P1", "ann2")]), "submitted_at": "2026-11-20T10:31:00Z"}
    assert annotation_import.import_annotations(db, lead, pairs_project, payload(written)).already_present == 1


def test_a_change_equal_to_the_derived_one_is_no_override(db, lead, pairs_project):
    annotation_import.import_annotations(db, lead, pairs_project, payload(record("ann1", change="increased")))
    assert _stored(db)[("P1", "ann1")].change == ""


@pytest.mark.parametrize("over, message", [
    ({"context_xi": None, "context_omega": None, "context_alpha": None},
     "line 1: give context_points or context_xi, context_omega and context_alpha"),
    ({"context_alpha": None}, "line 1: give all of context_xi, context_omega and context_alpha, or none of them"),
    ({"context_omega": 0.01}, "line 1: context_omega (ω) = 0.01 is outside the fit's range [0.5, 200]"),
    ({"change": "up"}, "line 1: the change must be one of: derived, decreased, neutral, increased"),
])
def test_a_pair_annotation_without_a_good_second_curve_is_refused(db, lead, pairs_project, over, message):
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        annotation_import.import_annotations(db, lead, pairs_project, payload(record("ann1", **over)), "bad.jsonl")
    assert str(refused.value) == f"bad.jsonl: {message}. Nothing was imported."
    assert _everything(db) == before


def test_a_flagged_pair_annotation_needs_no_curve(db, lead, pairs_project):
    flagged = {"sample_id": "P1", "annotator": "ann1", "flags": ["not_present_tense"],
               "submitted_at": "2026-11-20T10:31:00Z"}
    assert annotation_import.import_annotations(db, lead, pairs_project, payload(flagged)).added == 1


def test_a_single_texts_project_refuses_the_fields_of_a_pair(db, lead):
    pid = projects.create_project(db, lead, "Texts").id
    text_imports.import_texts(db, lead, pid, text_records(1))
    before = _everything(db)
    single = {"sample_id": "S-000", "annotator": "ann1", "boundaries": [0], "segment_axes": ["main"],
              **ALONE, "submitted_at": "2026-11-20T10:31:00Z"}
    with pytest.raises(InvalidInput) as refused:
        annotation_import.import_annotations(db, lead, pid, payload({**single, **GIVEN, "change": "neutral"}), "x.jsonl")
    assert str(refused.value) == ("x.jsonl: line 1: context_xi, context_omega, context_alpha, change: only a "
                                  "context-pairs project's annotations have a curve given the follow-up. "
                                  "Nothing was imported.")
    assert _everything(db) == before
    assert annotation_import.import_annotations(db, lead, pid, payload(single)).added == 1
