"""Settling context pairs into gold (both databases): the curve given the follow-up, the change
label, and the pair's flags — disagreeing labels, an override, an authored pair whose settled
change is not its author's intent."""

from __future__ import annotations

from sqlalchemy import select

from annotation.services.review import resolving, settling
from annotation.services.lookup import project_settings
from db.models import Annotation, Sample
from pair_data import LATER, SAME, SOONER, pair_content, pairs_project, sample_id_of, write_submitted
from service_helpers import gold_rows, open_items

PAIRS = [
    {"id": "P-1", "target": "Job interview tomorrow, wish me luck.", "follow_up": "They moved it to next Friday."},
    {"id": "P-2", "target": "The bakery is closed today.", "follow_up": "It reopens in an hour.",
     "intended_change": "increased"},
]


def _two(make_user):
    return make_user("ann", "annotator"), make_user("bob", "annotator")


def test_two_annotators_settle_a_pair_into_gold_with_both_curves_and_the_change(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=LATER))
    write_submitted(db, sid, bob.user_id, pair_content(given=(64.0, 10.0, 0.0)), minutes=1)
    summary = resolving.resolve_project(db, lead, pid)
    assert summary.gold == 1 and not open_items(db)
    gold, = gold_rows(db)
    assert (gold.xi, gold.omega, gold.alpha) == (45.0, 10.0, 0.0)
    assert (gold.context_xi, gold.context_omega, gold.context_alpha) == (63.0, 10.0, 0.0)
    assert gold.change == "increased" and gold.source == "auto"
    # an unsegmented pair's gold: one segment, no axis (what annotators were not asked for)
    assert gold.boundaries == [0] and gold.segment_axes == [[]]


def test_a_pair_settles_in_the_single_sample_path_too(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=SOONER))
    write_submitted(db, sid, bob.user_id, pair_content(given=SOONER), minutes=1)
    with db.write() as s:
        smp = s.get(Sample, sid)
        assert settling.settle(s, smp, project_settings(s, pid)) == "gold"
    gold, = gold_rows(db)
    assert gold.change == "decreased" and gold.context_xi == SOONER[0]


def test_a_submit_plans_the_pair_gold_before_its_write(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=SAME))
    content = pair_content(given=SAME)
    with db.read() as s:  # bob's annotation as the submit sees it: still a draft
        smp = s.get(Sample, sid)
        settings = project_settings(s, pid)
    bob_id = write_submitted(db, sid, bob.user_id, content, minutes=1)
    with db.read() as s:
        prepared = settling.prepare_submission(s, smp, bob_id, bob.user_id, "bob", content, settings, None)
    assert prepared.plan.result == "gold" and prepared.plan.pair.change == "neutral"
    with db.write() as s:
        assert prepared.apply(s, s.get(Annotation, bob_id)) == "gold"
    gold, = gold_rows(db)
    assert gold.change == "neutral" and gold.context_xi == SAME[0]


def test_disagreeing_change_labels_go_to_review_with_the_reason(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=(52.0, 10.0, 0.0)))   # ×2: increased
    write_submitted(db, sid, bob.user_id, pair_content(given=(48.0, 10.0, 0.0)), minutes=1)  # ×1.3: neutral
    summary = resolving.resolve_project(db, lead, pid)
    assert summary.flagged == 1 and not gold_rows(db)
    item, = open_items(db)
    assert item.reasons == ["change_disagreement"]
    assert item.details[0]["detail"] == "ann: increased; bob: neutral"


def test_an_override_is_flagged_for_review(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    # both say "increased"; bob's curves give neutral, so his label is an override
    write_submitted(db, sid, ann.user_id, pair_content(given=(52.0, 10.0, 0.0)))
    write_submitted(db, sid, bob.user_id, pair_content(given=(48.0, 10.0, 0.0), change="increased"), minutes=1)
    resolving.resolve_project(db, lead, pid)
    item, = open_items(db)
    assert item.reasons == ["change_overridden"]
    assert "bob chose increased where the curves give neutral" in item.details[0]["detail"]
    with db.read() as s:  # the override stays recorded on bob's annotation
        assert s.scalar(select(Annotation.change).where(Annotation.annotator_id == bob.user_id)) == "increased"


def test_choosing_the_derived_label_is_no_override(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=LATER, change="increased"))
    write_submitted(db, sid, bob.user_id, pair_content(given=LATER), minutes=1)
    assert resolving.resolve_project(db, lead, pid).gold == 1


def test_an_authored_pair_whose_change_differs_from_the_intent_goes_to_review(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    meant_up = sample_id_of(db, pid, "P-2")
    for who, minutes in ((ann, 0), (bob, 1)):
        write_submitted(db, meant_up, who.user_id, pair_content(given=SAME), minutes=minutes)
    resolving.resolve_project(db, lead, pid)
    item, = open_items(db)
    assert item.reasons == ["intent_differs"]
    assert item.details[0]["detail"] == "the author meant increased; the annotators' change is neutral"


def test_an_authored_pair_annotated_as_intended_settles(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS)
    meant_up = sample_id_of(db, pid, "P-2")
    for who, minutes in ((ann, 0), (bob, 1)):
        write_submitted(db, meant_up, who.user_id, pair_content(given=LATER), minutes=minutes)
    assert resolving.resolve_project(db, lead, pid).gold == 1
    assert gold_rows(db)[0].change == "increased"


def test_the_curve_rules_apply_to_the_second_curve(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS, flag_w1_max=5.0)
    sid = sample_id_of(db, pid, "P-1")
    # both increased, the first curves identical, the second ones 8 units apart
    write_submitted(db, sid, ann.user_id, pair_content(given=(60.0, 10.0, 0.0)))
    write_submitted(db, sid, bob.user_id, pair_content(given=(68.0, 10.0, 0.0)), minutes=1)
    resolving.resolve_project(db, lead, pid)
    item, = open_items(db)
    assert "given_curve_distance" in item.reasons and "curve_distance" not in item.reasons


def test_a_segmented_pair_keeps_its_segmentation_and_its_rules(db, lead, make_user):
    ann, bob = _two(make_user)
    pid = pairs_project(db, lead, PAIRS, segment_targets=True)
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=LATER, boundaries=(0, 2), segment_axes=("main", "static")))
    write_submitted(db, sid, bob.user_id, pair_content(given=LATER, boundaries=(0, 2), segment_axes=("main", "static")),
                    minutes=1)
    assert resolving.resolve_project(db, lead, pid).gold == 1
    gold, = gold_rows(db)
    assert gold.boundaries == [0, 2] and gold.segment_axes == [["main"], ["static"]] and gold.change == "increased"
