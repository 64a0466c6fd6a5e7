"""A lead reviews and decides a context pair (both databases): the case shows the follow-up,
each annotator's two curves and change label (derived or overridden), the reference labels and
the author's intent; every gold-storing decision stores both curves and the change label."""

from __future__ import annotations

import pytest

from annotation.review.lead_edit import LeadEdit
from annotation.services.review import resolving, review
from annotation.services.errors import InvalidInput
from pair_data import ALONE, pair_content, pairs_project, sample_id_of, write_submitted
from service_helpers import gold_rows, open_items

PAIR = {"id": "P-1", "target": "Job interview tomorrow, wish me luck.",
        "follow_up": "They just moved it to next Friday.", "reference_alone": 8,
        "reference_given": 10, "reference_change": "increased", "intended_change": "increased"}
DECIDE = dict(confidence=4, error_type="annotator_error")


@pytest.fixture
def case_of(db, lead, make_user):
    """A flagged pair: ann's curves say increased (×2), bob's neutral (×1.3) but he chose
    increased — an override; returns the open case."""
    ann, bob = make_user("ann", "annotator"), make_user("bob", "annotator")
    pid = pairs_project(db, lead, [PAIR])
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, ann.user_id, pair_content(given=(52.0, 10.0, 0.0)))
    write_submitted(db, sid, bob.user_id, pair_content(given=(48.0, 10.0, 0.0), change="increased"), minutes=1)
    resolving.resolve_project(db, lead, pid)
    item, = open_items(db)
    return lambda: review.open_case(db, lead, item.id)


def test_the_case_shows_what_a_lead_needs_of_a_pair(case_of):
    case = case_of()
    assert case.reasons == ("change_overridden",)
    assert case.pair.follow_up == "They just moved it to next Friday."
    assert (case.pair.reference_alone, case.pair.reference_given, case.pair.reference_change,
            case.pair.intended_change) == (8, 10, "increased", "increased")
    ann, bob = case.versions
    assert (ann.change.label, ann.change.overridden) == ("increased", False)
    assert (bob.change.label, bob.change.derived, bob.change.overridden) == ("increased", "neutral", True)
    assert bob.content.context_xi == 48.0 and not case.segmented
    assert case.pair_proposal.context == (50.0, 10.0, 0.0) and case.pair_proposal.change == "increased"
    assert case.pair_pooled is not None and case.pair_pooled.change == "increased"


def test_accepting_stores_both_curves_and_the_label_the_lead_sets(db, lead, case_of):
    case = case_of()
    review.decide(db, lead, case.item_id, "accept_auto", change="increased", **DECIDE)
    gold, = gold_rows(db)
    assert (gold.xi, gold.context_xi, gold.change, gold.source) == (ALONE[0], 50.0, "increased", "accepted")
    assert gold.curves_change == "" and not open_items(db)  # the mean curves give increased: no override


def test_a_label_the_gold_curves_do_not_give_is_an_override_that_needs_a_reason(db, lead, case_of):
    case = case_of()  # the mean curves (×1.6 longer) give increased
    with pytest.raises(InvalidInput) as refused:
        review.decide(db, lead, case.item_id, "accept_auto", change="neutral", **DECIDE)
    assert str(refused.value) == ("Not stored: neutral is an override: the gold curves give increased. "
                                  "Say why in the note.")
    assert not gold_rows(db) and len(open_items(db)) == 1
    review.decide(db, lead, case.item_id, "accept_auto", change="neutral", note="an interview moved is no longer",
                  **DECIDE)
    gold, = gold_rows(db)
    assert (gold.change, gold.curves_change, gold.note) == ("neutral", "increased", "an interview moved is no longer")
    assert review.gold_of(db, lead, case.sample_id).curves_change == "increased"


def test_taking_a_version_takes_its_second_curve_and_its_label(db, lead, case_of):
    case = case_of()
    bob = case.versions[1]
    # bob's own curves give neutral and he chose increased: taken as it is, the gold overrides them
    with pytest.raises(InvalidInput, match="increased is an override: the gold curves give neutral"):
        review.decide(db, lead, case.item_id, "take_version", annotation_id=bob.annotation_id, **DECIDE)
    review.decide(db, lead, case.item_id, "take_version", annotation_id=bob.annotation_id, note="bob read it right",
                  **DECIDE)
    gold, = gold_rows(db)
    assert (gold.context_xi, gold.change, gold.source_annotation_id) == (48.0, "increased", bob.annotation_id)
    assert gold.curves_change == "neutral"
    ann = case.versions[0]  # ann's curves give increased, her label: no override, no note needed
    assert (ann.change.label, ann.change.overridden) == ("increased", False)


def test_an_edit_may_set_the_second_curve(db, lead, case_of):
    case = case_of()
    edit = LeadEdit.from_proposal(case.proposal, case.n_tokens)
    review.decide(db, lead, case.item_id, "edit", edit=edit, context=(58.0, 11.0, 0.5), **DECIDE)
    gold, = gold_rows(db)
    assert (gold.context_xi, gold.context_omega, gold.context_alpha) == (58.0, 11.0, 0.5)
    assert gold.change == "increased" and gold.segment_axes == [[]]


def test_the_pooled_decision_pools_the_second_curves(db, lead, case_of):
    case = case_of()
    review.decide(db, lead, case.item_id, "accept_pooled", **DECIDE)
    gold, = gold_rows(db)
    assert gold.context_xi == pytest.approx(case.pair_pooled.context[0])
    assert 48.0 < gold.context_xi < 52.0 and gold.change == "increased"


@pytest.mark.parametrize("extra, message", [
    ({"change": "longer"}, "The change label is one of: decreased, neutral, increased."),
    ({"context": (50.0, 0.0, 0.0)}, "Curve given the follow-up: omega"),
])
def test_a_bad_choice_is_refused_in_one_line_and_stores_nothing(db, lead, case_of, extra, message):
    case = case_of()
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        review.decide(db, lead, case.item_id, "accept_auto", **DECIDE, **extra)
    assert not gold_rows(db) and len(open_items(db)) == 1


def test_a_single_text_takes_no_change_label(db, lead, make_user):
    from service_helpers import annotate
    from annotation.services.projects import projects
    from annotation.services.corpus import text_imports
    p = projects.create_project(db, lead, "Texts")
    from service_helpers import text_records
    text_imports.import_texts(db, lead, p.id, text_records(1))
    ann, bob = make_user("ann", "annotator"), make_user("bob", "annotator")
    annotate(db, ann, p.id, flags=("other",), note="unclear")
    annotate(db, bob, p.id)
    item, = open_items(db)
    with pytest.raises(InvalidInput, match="belong to context pairs"):
        review.decide(db, lead, item.id, "accept_auto", change="neutral", **DECIDE)
