"""``project_agreement`` on SQLite and PostgreSQL: W1 per sample, pair and week, Krippendorff's α,
bootstrap intervals, and the project's W1 flag threshold (issue 12, items 1 and 2)."""

from __future__ import annotations

import json
import math

import pytest

from annotation.agreement import HEADLINE_NAMES
from annotation.services.quality import agreement
from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.errors import PermissionDenied
from service_helpers import text_records


@pytest.fixture
def shifted(db, lead):
    """A project with 8 texts, each annotated by ann_a and ann_b with the same curve shaped
    alike; ann_b's sits 2 log-time units later on S-000…S-005 and 20 later on S-006, S-007."""
    p = projects.create_project(db, lead, "Agreement service")
    text_imports.import_texts(db, lead, p.id, text_records(8))
    records = []
    for i in range(8):
        shift = 20.0 if i >= 6 else 2.0
        for j, who in enumerate(("ann_a", "ann_b")):
            records.append({"sample_id": f"S-{i:03d}", "annotator": who, "boundaries": [0, 3],
                            "segment_axes": ["static", "main"], "xi": 40.0 + 10 * i + j * shift,
                            "omega": 8.0 + i, "alpha": 0.0,
                            "submitted_at": f"2026-11-{10 + i:02d}T10:00:00Z"})
    annotation_import.import_annotations(db, lead, p.id, "\n".join(json.dumps(r) for r in records).encode(),
                                         "seed.jsonl")
    return p


def test_project_agreement_gives_w1_alpha_and_intervals(db, lead, shifted):
    scope = agreement.project_agreement(db, lead, shifted.id)
    report = scope.report
    assert report.n_samples == 8
    head = report.headline
    assert head["w1"] == pytest.approx((6 * 2 + 2 * 20) / 8, abs=1e-3)
    assert head["jaccard"] == 1.0 and head["pk"] == 0.0
    assert head["alpha_labels"] == 1.0 and 0.5 < head["alpha_xi"] < 1
    table = report.per_sample.set_index("sample_id")
    assert table.loc["S-000", "w1"] == pytest.approx(2.0, abs=1e-3)
    assert table.loc["S-007", "w1"] == pytest.approx(20.0, abs=1e-3)
    assert report.pairs[0].figure("w1") == pytest.approx(head["w1"], abs=1e-9)
    assert sum(w.n_samples for w in report.weeks) == 8 and all(w.figure("w1") is not None for w in report.weeks)
    # the project's threshold (12 by default): the two 20-unit samples are above it
    assert report.curve.flag_w1_max == 12.0 and report.curve.share_above == pytest.approx(0.25)
    assert set(report.intervals) == set(HEADLINE_NAMES)
    low, high = report.interval("w1")
    assert low <= head["w1"] <= high and 2.0 - 1e-3 <= low and high <= 20.0 + 1e-3
    assert math.isnan(report.interval("jaccard")[0]) is False
    data = json.loads(json.dumps(report.to_json(), allow_nan=False))
    assert data["intervals"]["w1"] == [low, high]


def test_project_agreement_uses_the_projects_w1_threshold(db, lead, shifted):
    projects.update_settings(db, lead, shifted.id, flag_w1_max=1.5)
    assert agreement.project_agreement(db, lead, shifted.id).report.curve.share_above == 1.0


def test_same_data_same_intervals(db, lead, shifted):
    one = agreement.project_agreement(db, lead, shifted.id).report.intervals
    two = agreement.project_agreement(db, lead, shifted.id).report.intervals
    assert dict(one) == dict(two)


def test_a_report_is_computed_once_for_the_same_data_and_again_when_it_changes(db, lead, shifted):
    """The Agreement page asked for the whole report on every run (0.7 s at 200 texts)."""
    first = agreement.project_agreement(db, lead, shifted.id)
    assert agreement.project_agreement(db, lead, shifted.id) is first  # nothing changed
    assert agreement.project_agreement(db, lead, shifted.id, benchmark=1) is not first  # other filters
    projects.update_settings(db, lead, shifted.id, flag_w1_max=1.5)  # a setting the report reads
    again = agreement.project_agreement(db, lead, shifted.id)
    assert again is not first and again.report.curve.share_above == 1.0
    text_imports.import_texts(db, lead, shifted.id, text_records(9)[8:])  # S-008, and its two versions
    records = [{"sample_id": "S-008", "annotator": who, "boundaries": [0, 3], "segment_axes": ["static", "main"],
                "xi": 50.0, "omega": 9.0, "alpha": 0.0, "submitted_at": "2026-11-20T10:00:00Z"}
               for who in ("ann_a", "ann_b")]
    annotation_import.import_annotations(db, lead, shifted.id, "\n".join(json.dumps(r) for r in records).encode(),
                                         "more.jsonl")
    assert agreement.project_agreement(db, lead, shifted.id).report.n_samples == 9


def test_annotators_cannot_read_agreement(db, make_user, shifted):
    with pytest.raises(PermissionDenied):
        agreement.project_agreement(db, make_user("someone"), shifted.id)


def test_review_outcomes_count_each_decision_with_a_wilson_interval(db, lead, shifted):
    from annotation.agreement import wilson_interval
    from annotation.services.review import review
    from annotation.services.errors import InvalidInput

    outcomes = {o.outcome: o for o in agreement.review_outcomes(db, lead, shifted.id)}
    assert set(outcomes) == {"unchanged", "changed", "sent back", "discarded"}
    assert all(o.count == 0 and o.n_reviewed == 0 and math.isnan(o.interval[0]) for o in outcomes.values())
    items = review.review_queue(db, lead, shifted.id)  # the two 20-unit samples are flagged (W1)
    assert len(items) >= 2
    case = review.open_case(db, lead, items[0].item_id)
    review.decide(db, lead, items[0].item_id, "take_version", annotation_id=case.versions[0].annotation_id,
                  note="", confidence=4, error_type="annotator_error")
    review.decide(db, lead, items[1].item_id, "accept_auto", note="", confidence=3, error_type="other")
    outcomes = {o.outcome: o for o in agreement.review_outcomes(db, lead, shifted.id)}
    assert outcomes["changed"].count == 1 and outcomes["unchanged"].count == 1
    assert outcomes["changed"].share == 0.5 and outcomes["changed"].interval == wilson_interval(1, 2)
    assert outcomes["sent back"].count == 0 and outcomes["sent back"].n_reviewed == 2
    # the benchmark filter: every text of the fixture is benchmark 1 or 2 — both filters sum to all
    by_benchmark = [sum(o.count for o in agreement.review_outcomes(db, lead, shifted.id, benchmark=b))
                    for b in (1, 2)]
    assert sum(by_benchmark) == 2
    with pytest.raises(InvalidInput):
        agreement.review_outcomes(db, lead, shifted.id, benchmark=3)


def test_review_outcomes_are_for_leads(db, make_user, shifted):
    with pytest.raises(PermissionDenied):
        agreement.review_outcomes(db, make_user("ann_z"), shifted.id)
