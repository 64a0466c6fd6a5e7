"""Importing interchange annotations into a project: all or nothing, idempotent, blind owners."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotation.segmentation import tokenize
from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.errors import InvalidInput, PermissionDenied
from annotation.corpus.text_import import TextRecord
from db.models import Annotation, Assignment, GoldAnnotation, ParameterStats, ReviewItem, Sample, User

TEXT = "The bakery on Elm Street is closed for renovation this week, the owner says."


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Imported")
    text_imports.import_texts(db, lead, p.id, [TextRecord(TEXT, 1, "B1-00042", 1),
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


# --- issue 9: an import obeys the workbench's rules and cannot poison review ---------------------

SHOPS = [TextRecord(f"Shop {i} is closed today.", 1, f"S-{i}", 10 + i) for i in range(1, 4)]


def curve(annotator: str, sample: str, xi: float, **over) -> dict:
    """A record of a one-segment text with hand-set parameters and no points."""
    return {"sample_id": sample, "annotator": annotator, "boundaries": [0], "segment_axes": ["main"],
            "xi": xi, "omega": 8.0, "alpha": 0.0, "submitted_at": "2026-11-20T10:31:00Z", **over}


@pytest.fixture
def spread(db, lead, project):
    """Three single annotations spreading ξ over 40–80, so σ(ξ) ≈ 20 (no sample complete)."""
    text_imports.import_texts(db, lead, project.id, SHOPS)
    annotation_import.import_annotations(db, lead, project.id, payload(
        curve("ann03", "S-1", 40.0), curve("ann03", "S-2", 60.0), curve("ann03", "S-3", 80.0)))
    return project


def review_state(db, external_id: str) -> tuple[list[str], bool]:
    """(reasons of the sample's open review item, whether it has gold)."""
    with db.read() as s:
        smp = s.scalar(select(Sample).where(Sample.external_id == external_id))
        item = s.scalar(select(ReviewItem).where(ReviewItem.sample_id == smp.id))
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
    return (list(item.reasons) if item else []), gold is not None


def import_close_pair(db, lead, project) -> None:
    """Two annotations of B1-00043 whose ξ differ by 0.5: far under 2σ."""
    annotation_import.import_annotations(db, lead, project.id, payload(
        curve("ann03", "B1-00043", 50.0), curve("ann07", "B1-00043", 50.5)))


@pytest.mark.parametrize("bad", [
    {"points": [], "xi": 1e308, "omega": 1e308, "alpha": 1e308},
    {"points": [], "xi": -5000.0, "omega": 8.0, "alpha": 0.0},
    {"points": [], "xi": 50.0, "omega": 0.001, "alpha": 0.0},
    {"points": [], "xi": 50.0, "omega": 8.0, "alpha": 19999.0},
])
def test_parameters_outside_the_fit_are_refused_and_review_is_unharmed(db, lead, spread, bad):
    before = counts(db)
    data = payload(record("ann03"), record("ann07", **bad))
    with pytest.raises(InvalidInput, match=r"bad\.jsonl: line 2: .* is outside the fit's range .*"
                                           r"Nothing was imported"):
        annotation_import.import_annotations(db, lead, spread.id, data, "bad.jsonl")
    assert counts(db) == before
    import_close_pair(db, lead, spread)
    assert review_state(db, "B1-00043") == ([], True)  # settled into gold, not flagged


def test_sums_poisoned_before_the_fix_are_rebuilt_and_an_extreme_value_is_described(db, lead, spread):
    from annotation.curves import CurveFitError, describe_curve
    from annotation.services.review import settling

    with db.write() as s:  # what an unchecked import of ξ = ω = α = 1e308 left behind
        a = s.scalar(select(Annotation).join(Sample, Sample.id == Annotation.sample_id)
                     .where(Sample.external_id == "S-3"))
        a.xi = a.omega = a.alpha = 1e308
        stats = s.get(ParameterStats, spread.id)
        stats.sum_xi, stats.sumsq_xi = stats.sum_xi + 1e308, float("inf")
        stats.sum_omega, stats.sumsq_omega = stats.sum_omega + 1e308, float("inf")
        stats.sum_alpha, stats.sumsq_alpha = stats.sum_alpha + 1e308, float("inf")
    import_close_pair(db, lead, spread)
    assert review_state(db, "B1-00043") == ([], True)
    with db.read() as s:
        sd = settling._spread(s, spread.id)
    assert sd.xi is not None and 5 < sd.xi < 25  # from 40, 60, 50, 50.5: the 1e308 left out
    with pytest.raises(CurveFitError, match="outside the fit's range"):  # not OverflowError
        describe_curve(1e308, 1e308, 1e308)


def test_flagged_records_need_a_partition_of_their_text_and_agreement_works_after(db, lead, project):
    from annotation.services.quality import agreement

    before = counts(db)
    bad = record("ann07", boundaries=[0, 999, 5000], flags=["multiple_peaks"], points=[])
    with pytest.raises(InvalidInput, match=r"line 2: Segmentation: .*Nothing was imported"):
        annotation_import.import_annotations(db, lead, project.id, payload(record("ann03"), bad))
    assert counts(db) == before
    flagged = record("ann07", flags=["multiple_peaks"], points=[])
    annotation_import.import_annotations(db, lead, project.id, payload(record("ann03"), flagged))
    report = agreement.project_agreement(db, lead, project.id).report
    assert report.n_samples == 1


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", "admin\u202e", "lead 1"])
def test_annotator_names_outside_the_username_rules_are_refused(db, lead, project, name):
    before = counts(db)
    with pytest.raises(InvalidInput, match="line 2: annotator .* is not a valid username"):
        annotation_import.import_annotations(db, lead, project.id, payload(record("ann03"), record(name)))
    assert counts(db) == before


@pytest.mark.parametrize("name", ["Lead1", "LEAD1", "leadl", "lеad1"])  # the last with a Cyrillic е
def test_a_look_alike_of_an_existing_account_is_refused(db, lead, project, name):
    before = counts(db)
    pattern = "looks like the existing account 'lead1'" if name.isascii() else "not a valid username"
    with pytest.raises(InvalidInput, match=f"line 2: annotator .*{pattern}"):
        annotation_import.import_annotations(db, lead, project.id, payload(record("ann03"), record(name)))
    assert counts(db) == before


def test_surrounding_spaces_are_removed_as_create_user_does(db, lead, project):
    summary = annotation_import.import_annotations(db, lead, project.id, payload(record(" lead1 ")))
    assert summary.new_accounts == ()
    with db.read() as s:
        owner = s.scalar(select(User.username).join(Annotation, Annotation.annotator_id == User.id))
    assert owner == "lead1"


def test_create_user_refuses_a_look_alike_of_an_existing_account(db, admin, lead):
    from annotation.services.accounts import accounts

    for name in ("Lead1", "leadl"):
        with pytest.raises(InvalidInput, match="looks like the existing account 'lead1'"):
            accounts.create_user(db, admin, name, "long-enough-pw", "annotator")
    with pytest.raises(InvalidInput, match="2–64 letters"):
        accounts.create_user(db, admin, "admin\u202e", "long-enough-pw", "annotator")
    assert accounts.create_user(db, admin, " lead2 ", "long-enough-pw", "annotator").username == "lead2"


def test_every_field_arrives_as_written(db, lead, project):
    """Staging goes by COPY on PostgreSQL and INSERT on SQLite: text with tabs, new lines,
    backslashes and non-ASCII, JSON lists, empty and null values and the time come through
    unchanged on both."""
    note = "Tab\there, new line\nthere, a backslash \\N and \\\\ — «ça» 時"
    data = payload(record("ann03", note=note, flags=["not_present_tense"],
                          submitted_at="2026-11-20T23:59:59.123456+02:00"),
                   record("ann07", "B1-00043", points=[], xi=61.5, omega=9.25, alpha=-1.5))
    annotation_import.import_annotations(db, lead, project.id, data)
    with db.read() as s:
        by_owner = {u: a for a, u in s.execute(select(Annotation, User.username)
                                                .join(User, User.id == Annotation.annotator_id))}
    a, b = by_owner["ann03"], by_owner["ann07"]
    assert a.note == note and a.flags == ["not_present_tense"]
    assert a.boundaries == [0, 5, 11] and len(a.segment_axes) == 3
    assert a.points == [[60.0, 0.5], [76.0, 1.0], [96.0, 0.4]]
    assert a.submitted_at.isoformat() == "2026-11-20T21:59:59.123456+00:00"
    assert (b.points, b.xi, b.omega, b.alpha, b.note) == ([], 61.5, 9.25, -1.5, "")
