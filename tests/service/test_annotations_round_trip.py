"""An export's ``annotations`` config imports back: project A's annotations, exported and imported
into a new project B as a team would script it with ``chronocept``, are B's annotations field by
field — for single texts and for context pairs (both curves and the change override), with
several annotators, flags, notes and points, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import math

import pytest
from sqlalchemy import select

from annotation.axes import AXIS_NAMES
from annotation.corpus.pair_import import PairRecord
from annotation.corpus.text_import import TextRecord
from annotation.services.corpus import annotation_import, pair_imports
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import resolving
from annotation.services.export.export_reads import pseudonym
from annotation.services.rows import content_select, content_values, contents_of
from db.models import Annotation, GoldAnnotation, Project, Sample, SamplePair, User
from service_helpers import run_cli

ANNOTATORS = ("ann_amy", "ann_bo", "ann_cy")
#: a note a person might write: quotes, a formula's first character, a line separator (U+2028)
ODD_NOTE = 'Two events: =HYPERLINK("http://x") and "the match"\u2028— which one is main?'
POINTS = [[27.6, 0.77], [21.6, 0.41], [31.6, 0.41], [14.9, 0.19], [34.9, 0.2]]
#: the stored values a project computes from the others, compared within rounding
DERIVED = ("scale", "rmse", "context_scale", "context_rmse")
#: the one stored value the interchange record has no field for: whether the parameters were fitted
#: from the points or set by hand (an imported record with parameters reads as set by hand)
NOT_CARRIED = ("params_source", "context_params_source")


def _project_id(db, name: str) -> int:
    with db.read() as s:
        return s.scalar(select(Project.id).where(Project.name == name))


def _annotations(db, project_id: int, *, exported: bool = False) -> dict[tuple[str, str], dict]:
    """Every annotation of the project by (sample id, annotator — by the pseudonym an export gives
    them when ``exported``): its status, submission time and stored content."""
    with db.read() as s:
        rows = s.execute(select(Sample.external_id, User.id.label("user_id"), User.username, Annotation.status,
                                Annotation.submitted_at, *content_select(Annotation))
                         .join(Sample, Sample.id == Annotation.sample_id)
                         .join(User, User.id == Annotation.annotator_id)
                         .where(Sample.project_id == project_id)).all()
    out = {}
    for r, content in zip(rows, contents_of(rows)):
        name = pseudonym(r.user_id) if exported else r.username
        out[(r.external_id, name)] = {"status": r.status, "submitted_at": r.submitted_at,
                                      **content_values(content)}
    return out


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys() and a
    for key in a:
        for field, value in a[key].items():
            if field in NOT_CARRIED:
                continue
            if field in DERIVED and value is not None:
                assert math.isclose(b[key][field], value, rel_tol=1e-9, abs_tol=1e-12), (key, field)
            else:
                assert b[key][field] == value, (key, field, value, b[key][field])


def _settle(db, project_id: int, **curves) -> None:
    """Settle what the automatic resolution left to a lead (the flagged samples) as a lead would."""
    resolving.resolve_project(db, _lead(db), project_id)
    with db.write() as s:
        open_ = s.scalars(select(Sample.id).where(Sample.project_id == project_id,
                                                  ~Sample.id.in_(select(GoldAnnotation.sample_id)))).all()
        for sample_id in open_:
            s.add(GoldAnnotation(sample_id=sample_id, boundaries=[0], segment_axes=[["main"]], xi=40.0, omega=8.0,
                                 alpha=0.5, source="lead_edit", **curves))


def _lead(db):
    from annotation.services.accounts import accounts
    return accounts.actor_for_script(db, "lead1")


def _record(sample: str, who: str, at: int, **fields) -> str:
    return json.dumps({"sample_id": sample, "annotator": who, **fields,
                       "submitted_at": f"2026-11-{1 + at % 25:02d}T{8 + at % 10:02d}:{at % 60:02d}:00Z"})


def test_an_exported_single_texts_project_imports_into_a_new_one_unchanged(db, lead, tmp_path):
    a = projects.create_project(db, lead, "A").id
    text_imports.import_texts(db, lead, a, [
        TextRecord(f"Team {i} meets on Friday. The report is due next week and everyone rests after."
                   if i % 3 == 0 else f"The bakery on street {i} is closed for renovation this week.",
                   2 if i % 3 == 0 else 1, f"RT-{i:03d}", i + 1) for i in range(12)])
    lines = []
    for i in range(12):
        for k, who in enumerate((ANNOTATORS[i % 3], ANNOTATORS[(i + 1) % 3])):
            work = {"boundaries": [0, 3], "segment_axes": ["main", AXIS_NAMES[1 + (i + k) % 7]]}
            if i == 4 and k == 0:    # flagged, with a note and a curve
                work |= {"points": POINTS, "flags": ["other"], "note": ODD_NOTE}
            elif i == 7 and k == 1:  # flagged without a curve
                work |= {"flags": ["multiple_peaks"], "note": "Peaks at a day and at a month."}
            elif (i + k) % 2:        # points only: the parameters are fitted
                work |= {"points": [[x + i, y] for x, y in POINTS]}
            else:                    # parameters set by hand beside the points
                work |= {"points": POINTS, "xi": 28.0 + i, "omega": 9.5, "alpha": 0.25 * k,
                         "note": "fine-tuned" if k else ""}
            lines.append(_record(f"RT-{i:03d}", who, 2 * i + k, **work))
    annotation_import.import_annotations(db, lead, a, "\n".join(lines).encode(), "a.jsonl")
    _settle(db, a)

    # what a team scripts: export A, import its texts into B, then its annotations config
    out = tmp_path / "export-a"
    assert run_cli(db, "export", str(out), "--project", "A", "--seed", "7", "--quiet", "--user", "lead1")[0] == 0
    for benchmark in (1, 2):  # cat benchmark_N/*.json > texts.jsonl: the text import reads _id and parent_text
        texts = tmp_path / f"texts-{benchmark}.jsonl"
        texts.write_bytes(b"".join((out / f"benchmark_{benchmark}" / name).read_bytes()
                                   for name in ("train.json", "valid.json", "test.json")))
        code, _, err = run_cli(db, "import", "texts", str(texts), "--project", "B", "--benchmark", str(benchmark),
                               "--user", "lead1")
        assert code == 0, err
    code, said, err = run_cli(db, "import", "annotations", str(out), "--project", "B", "--user", "lead1")
    assert code == 0, err
    assert said.startswith("imported 24 annotations; 0 already present; new (inactive) accounts: ann")

    _assert_same(_annotations(db, a, exported=True), _annotations(db, _project_id(db, "B")))
    # importing it again adds nothing
    assert run_cli(db, "import", "annotations", str(out), "--project", "B", "--user", "lead1")[1].startswith(
        "imported 0 annotations; 24 already present")


def test_an_exported_pairs_project_imports_into_a_new_one_with_both_curves(db, lead, tmp_path):
    a = projects.create_project(db, lead, "A").id
    projects.update_settings(db, lead, a, protocol="pairs")
    follow_ups = ("It was moved to next month.", "Nothing changed about it.", "It was cancelled an hour ago.")
    pair_imports.import_pairs(db, lead, a, [
        PairRecord(f"Job interview number {t} is tomorrow morning, wish me luck.", follow_ups[f],
                   f"P-{t}-{f}", f"T-{t}", 3 * t + f + 1) for t in range(3) for f in range(3)])
    lines = []
    for t in range(3):
        for f, shift in enumerate((20.0, 0.5, -12.0)):
            for k, who in enumerate((ANNOTATORS[(t + f) % 3], ANNOTATORS[(t + f + 1) % 3])):
                work: dict = {"xi": 45.0 + t, "omega": 10.0, "alpha": 0.0, "context_xi": 45.0 + t + shift,
                              "context_omega": 10.0, "context_alpha": 0.5 * k}
                if (t, f, k) == (0, 1, 0):
                    work |= {"change": "increased", "note": ODD_NOTE}   # an override of the derived label
                elif (t, f, k) == (1, 2, 1):
                    work = {"flags": ["not_present_tense"], "note": "It is past."}  # flagged without curves
                elif (t + f + k) % 2:
                    work |= {"points": POINTS, "context_points": [[x + shift, y] for x, y in POINTS]}
                lines.append(_record(f"P-{t}-{f}", who, 3 * t + f + k, **work))
    annotation_import.import_annotations(db, lead, a, "\n".join(lines).encode(), "a.jsonl")
    _settle(db, a, context_xi=50.0, context_omega=8.0, context_alpha=0.5, change="increased")

    out = tmp_path / "export-a"
    assert run_cli(db, "export", str(out), "--project", "A", "--seed", "7", "--quiet", "--user", "lead1")[0] == 0
    # the team's script: cat tvcp/*.json > pairs.jsonl — the pairs import reads the export's records
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_bytes(b"".join((out / "tvcp" / split_file).read_bytes()
                                    for split_file in ("train.json", "valid.json", "test.json")))
    code, _, err = run_cli(db, "import", "pairs", str(pairs_file), "--project", "B", "--user", "lead1")
    assert code == 0, err
    with db.read() as s:  # the same pairs, targets and ids; A's gold labels are B's reference
        def pairs_of(project_id: int) -> dict:
            return {r.external_id: tuple(r)[1:] for r in s.execute(
                select(Sample.external_id, Sample.parent_text, SamplePair.follow_up, SamplePair.target_key)
                .join(SamplePair, SamplePair.sample_id == Sample.id).where(Sample.project_id == project_id))}
        assert pairs_of(_project_id(db, "B")) == pairs_of(a) and len(pairs_of(a)) == 9
        def changes_of(project_id: int, column) -> dict:
            return dict(s.execute(select(Sample.external_id, column).join(column.class_, column.class_.sample_id == Sample.id)
                                  .where(Sample.project_id == project_id)).all())
        references = changes_of(_project_id(db, "B"), SamplePair.reference_change)
        gold = changes_of(a, GoldAnnotation.change)
    # the pairs the annotators agree on settle with their curves' label, the flagged ones with the lead's
    assert references == gold and set(gold.values()) == {"increased", "neutral", "decreased"}
    code, said, err = run_cli(db, "import", "annotations", str(out), "--project", "B", "--user", "lead1")
    assert code == 0, err
    assert said.startswith("imported 18 annotations; 0 already present")

    got = _annotations(db, _project_id(db, "B"))
    _assert_same(_annotations(db, a, exported=True), got)
    assert {v["change"] for v in got.values()} == {"", "increased"}


def test_a_split_file_of_an_export_in_another_base_is_refused_and_its_folder_imported(db, lead, tmp_path):
    """Its values are in the export's base; the import reads base 1.1, so only the folder, whose
    manifest names the base, is taken."""
    pid = projects.create_project(db, lead, "A").id
    text_imports.import_texts(db, lead, pid, [TextRecord("The bakery on Elm Street is closed for renovation this week.",
                                                     1, "RT-000", 1)])
    lines = [_record("RT-000", who, k, boundaries=[0, 3], segment_axes=["main", "static"], points=POINTS)
             for k, who in enumerate(ANNOTATORS[:2])]
    annotation_import.import_annotations(db, lead, pid, "\n".join(lines).encode(), "a.jsonl")
    _settle(db, pid)
    out = tmp_path / "export-e"
    assert run_cli(db, "export", str(out), "--base", str(math.e), "--seed", "1", "--quiet", "--user", "lead1")[0] == 0
    split_file = next(p for p in (out / "annotations").glob("*.json") if p.stat().st_size)
    code, _, err = run_cli(db, "import", "annotations", str(split_file), "--user", "lead1")
    assert code == 1 and "is part of an export written in log base 2.71828" in err and "import the export folder" in err
    # the folder: every value back in base 1.1 (here into the same project, under the pseudonyms)
    originals = _annotations(db, pid, exported=True)
    code, said, err = run_cli(db, "import", "annotations", str(out), "--user", "lead1")
    assert code == 0 and said.startswith("imported 2 annotations"), err
    again = _annotations(db, pid)
    for key, first in originals.items():
        assert [x for x, _ in again[key]["points"]] == pytest.approx([x for x, _ in first["points"]])
        assert [again[key][k] for k in ("xi", "omega", "alpha")] == pytest.approx(
            [first[k] for k in ("xi", "omega", "alpha")])
