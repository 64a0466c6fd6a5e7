"""Adjudication built for curves (issue 12 item 4), SQLite + PostgreSQL: the curve-distance flag
and its re-check, the queue's W1 / Pk / age orders, the pooled resolution and the lead's
confidence and error type with every decision."""

from __future__ import annotations

import pytest

from annotation.services.projects import projects
from annotation.services.review import review
from annotation.services.errors import InvalidInput, StaleVersion
from db.models import ReviewItem
from service_helpers import GOOD_POINTS, annotate, gold_rows, open_items

CLOSE = GOOD_POINTS


def later(points, shift):
    return [(x + shift, y) for x, y in points]


@pytest.fixture
def pair(db, make_user):
    return make_user("ann"), make_user("bob")


def test_curves_far_apart_are_flagged_in_words_and_rechecked_when_the_threshold_moves(
        db, pair, make_project, lead):
    pid = make_project(1, flag_xi_max=30.0)  # the fixed ξ threshold (σ is thin) above the shift
    a, b = pair
    annotate(db, a, pid, points=CLOSE)
    annotate(db, b, pid, points=later(CLOSE, 20))   # W1 ≈ 20 > 12; |Δξ| = 20 < 30: no deviation flag
    [item] = open_items(db)
    assert item.reasons == ["curve_distance"]
    [detail] = item.details
    assert detail["value"] == pytest.approx(20.0, abs=0.5) and detail["threshold"] == 12.0
    assert detail["detail"].endswith("bob's sits later") and detail["detail"].startswith("curves ≈ ×")
    assert len(detail["annotation_ids"]) == 2
    projects.update_settings(db, lead, pid, flag_w1_max=25.0)   # looser: the sample settles
    assert open_items(db) == [] and [g.source for g in gold_rows(db)] == ["auto"]
    projects.update_settings(db, lead, pid, flag_w1_max=12.0)   # tighter again: flagged again
    assert [i.reasons for i in open_items(db)] == [["curve_distance"]] and gold_rows(db) == []


def test_the_queue_sorts_by_w1_pk_and_age(db, pair, make_project, lead):
    pid = make_project(3, flag_w1_max=1.0)
    a, b = pair
    # sample 1: W1 ≈ 5, Pk 0; sample 2: W1 ≈ 15, Pk > 0; sample 3: W1 ≈ 10, Pk larger
    for shift, b_split in ((5, (0,)), (15, (0, 6)), (10, (0, 2, 9))):
        annotate(db, a, pid, points=CLOSE)
        annotate(db, b, pid, points=later(CLOSE, shift), boundaries=b_split,
                 segment_axes=("main",) * len(b_split))
    oldest = review.review_queue(db, lead, pid)
    assert len(oldest) == 3 and oldest == review.review_queue(db, lead, pid, sort="oldest")
    assert [r.w1 for r in oldest] == pytest.approx([5.0, 15.0, 10.0], abs=0.5)
    assert oldest[0].pk == 0.0 and 0 < oldest[1].pk < oldest[2].pk
    ids = [r.item_id for r in oldest]
    assert [r.item_id for r in review.review_queue(db, lead, pid, sort="newest")] == ids[::-1]
    assert [r.item_id for r in review.review_queue(db, lead, pid, sort="w1")] == [ids[1], ids[2], ids[0]]
    assert [r.item_id for r in review.review_queue(db, lead, pid, sort="pk")] == [ids[2], ids[1], ids[0]]
    with pytest.raises(InvalidInput):
        review.review_queue(db, lead, pid, sort="loudest")


def test_accept_pooled_stores_a_pooled_gold_with_confidence_and_error_type(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, points=CLOSE)
    annotate(db, b, pid, points=later(CLOSE, 20))
    [row] = review.review_queue(db, lead, pid)
    case = review.open_case(db, lead, row.item_id)
    assert case.pooled is not None and case.pooled.method == "linear_pool"
    assert case.pooled.omega > case.proposal.omega    # the pool is wider than the mean curve
    review.decide(db, lead, row.item_id, "accept_pooled", confidence=3, error_type="guideline_gap",
                  note="both readings are fair")
    gold = review.gold_of(db, lead, row.sample_id)
    assert (gold.source, gold.confidence, gold.error_type) == ("pooled", 3, "guideline_gap")
    assert gold.xi == pytest.approx(case.pooled.xi) and gold.omega == pytest.approx(case.pooled.omega)
    with db.read() as s:
        item = s.get(ReviewItem, row.item_id)
        assert (item.decision, item.confidence, item.error_type) == ("accept_pooled", 3, "guideline_gap")
    history = review.sample_history(db, lead, row.sample_id)
    assert (history[-1]["confidence"], history[-1]["error_type"]) == (3, "guideline_gap")
    with pytest.raises(StaleVersion):   # a second decision (double submit, another tab)
        review.decide(db, lead, row.item_id, "accept_pooled", confidence=3, error_type="guideline_gap")
    assert review.gold_of(db, lead, row.sample_id).decided_at == gold.decided_at


@pytest.mark.parametrize("confidence, error_type", [
    (0, "other"), (7, "other"), (None, "other"), (True, "other"), ("3", "other"),
    (3, "typo"), (3, None), (3, ""),
])
def test_bad_confidence_or_error_type_is_refused_and_changes_nothing(
        db, pair, make_project, lead, confidence, error_type):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, points=CLOSE)
    annotate(db, b, pid, points=later(CLOSE, 20))
    [row] = review.review_queue(db, lead, pid)
    with pytest.raises(InvalidInput):
        review.decide(db, lead, row.item_id, "accept_pooled", confidence=confidence, error_type=error_type)
    assert gold_rows(db) == [] and [i.id for i in open_items(db)] == [row.item_id]
    assert open_items(db)[0].confidence is None


@pytest.mark.parametrize("decision", ["send_back", "discard"])
def test_send_back_and_discard_record_confidence_and_error_type(db, pair, make_project, lead, decision):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, points=CLOSE)
    annotate(db, b, pid, points=later(CLOSE, 20))
    [row] = review.review_queue(db, lead, pid)
    with pytest.raises(InvalidInput):   # still required
        review.decide(db, lead, row.item_id, decision, note="look again")
    review.decide(db, lead, row.item_id, decision, confidence=2, error_type="annotator_error",
                  note="look again")
    with db.read() as s:
        item = s.get(ReviewItem, row.item_id)
        assert (item.status, item.confidence, item.error_type) == ("closed", 2, "annotator_error")


def test_automatic_gold_carries_no_lead_confidence(db, pair, make_project, lead):
    pid = make_project(1)
    a, b = pair
    annotate(db, a, pid, points=CLOSE)
    annotate(db, b, pid, points=CLOSE)
    [gold] = gold_rows(db)
    assert (gold.source, gold.confidence, gold.error_type) == ("auto", None, "")


def test_the_export_carries_each_samples_provenance(db, pair, make_project, lead, tmp_path, monkeypatch):
    from annotation.export import RECORD_KEYS, read_export
    from annotation.services.export import exports

    pid = make_project(2)
    a, b = pair
    annotate(db, a, pid, points=CLOSE)            # sample 1: agreement, automatic gold
    annotate(db, b, pid, points=CLOSE)
    annotate(db, a, pid, points=CLOSE)            # sample 2: curves far apart, pooled by the lead
    # b splits the text where a does not, on the same axis (differing axes would leave the lead
    # no pooled decision: the gold keeps one axis per segment)
    annotate(db, b, pid, points=later(CLOSE, 20), boundaries=(0, 4), segment_axes=("main", "main"))
    [row] = review.review_queue(db, lead, pid)
    review.decide(db, lead, row.item_id, "accept_pooled", confidence=5, error_type="annotator_error")
    rec = exports.export_dataset(db, lead, pid, tmp_path / "ds", seed=1)
    contents = read_export(rec.path)
    records = {r["_id"]: r for split in contents.records["benchmark_1"].values() for r in split}
    assert len(records) == 2
    for r in records.values():
        assert list(r)[:4] == list(RECORD_KEYS) and list(r)[4:] == ["provenance"]
    auto = next(r for r in records.values() if r["_id"] != row.external_id)["provenance"]
    assert auto["w1"] == pytest.approx(0.0, abs=1e-6) and auto["pk"] == 0.0 and auto["jaccard"] == 1.0
    assert (auto["resolution"], auto["confidence"], auto["error_type"]) == ("automatic", None, None)
    pooled = records[row.external_id]["provenance"]
    assert pooled["w1"] == pytest.approx(20.0, abs=0.5) and pooled["pk"] > 0 and pooled["jaccard"] == 1.0
    assert (pooled["resolution"], pooled["confidence"], pooled["error_type"]) == \
        ("pooled", 5, "annotator_error")
    annotation_records = [r for split in contents.records["annotations"].values() for r in split]
    assert len(annotation_records) == 4
    assert all(r["provenance"] == records[r["sample_id"]]["provenance"] for r in annotation_records)

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets as hf

    loaded = hf.load_dataset(str(tmp_path / "ds"), "benchmark_1", cache_dir=str(tmp_path / "hf"))
    rows = {r["_id"]: r for split in loaded for r in loaded[split]}
    assert list(next(iter(rows.values())))[:4] == list(RECORD_KEYS)
    assert rows[row.external_id]["provenance"]["resolution"] == "pooled"
    assert rows[row.external_id]["provenance"]["confidence"] == 5
    annotations = hf.load_dataset(str(tmp_path / "ds"), "annotations", cache_dir=str(tmp_path / "hf"))
    assert sum(annotations[split].num_rows for split in annotations) == 4
