"""Review (lead) of a context pair: the follow-up set apart and literal, each annotator's two
curves and change label (an override said as one), the reference labels and the author's intent,
and a decision storing both curves and the lead's change label."""

from __future__ import annotations

import pytest

from annotation.services.review import resolving, review
from page_helpers import markdown_text, run, toasts
from pair_data import pair_content, pairs_project, sample_id_of, write_submitted

FOLLOW_UP = "They moved it to **next** Friday <b>!</b>"


@pytest.fixture
def pair_case(db, lead, pair):
    a, b = pair
    pid = pairs_project(db, lead, [{"id": "P-1", "target": "Job interview tomorrow, wish me luck.",
                                    "follow_up": FOLLOW_UP, "reference_alone": 8, "reference_given": 10,
                                    "reference_change": "increased", "intended_change": "increased"}])
    sid = sample_id_of(db, pid, "P-1")
    write_submitted(db, sid, a.user_id, pair_content(given=(52.0, 10.0, 0.0)))
    write_submitted(db, sid, b.user_id, pair_content(given=(48.0, 10.0, 0.0), change="increased"), minutes=1)
    resolving.resolve_project(db, lead, pid)
    return sid


def test_a_pair_case_shows_both_curves_labels_and_the_lead_facts(make_app, db, lead, pair_case):
    at = run(make_app(lead))
    at.switch_page("screens/review.py")
    at = run(at)
    assert [t.value for t in at.text][:2] == ["Job interview tomorrow, wish me luck.", FOLLOW_UP]
    shown = markdown_text(at) + " ".join(c.value for c in at.caption)
    assert "Follow-up" in shown and "Change label overridden" in shown
    assert "The author meant: increased" in shown.replace("\\", "")
    assert "Reference: alone 1–3 days (8)" in shown.replace("\\", "")
    # the header names the distance of the curves given the follow-up too (52 and 48: 4 units)
    assert any("W1 given the follow-up 4.0 (×1.5)" in c.value for c in at.caption)
    table = next(d.value for d in at.dataframe if "change" in d.value.columns)
    assert list(table["change"]) == ["increased (derived)", "increased (overridden; the curves give neutral)"]
    assert list(table["class alone"]) == ["2–6 hours", "2–6 hours"]
    # the class after 2–6 hours is named by its range (the release's "more than 6 hours" ends at 1 day)
    assert list(table["class given"]) == ["6 hours–1 day", "2–6 hours"]

    item = at.session_state["review.pick"]
    assert at.button_group(key=f"review.{item}.change").value == "increased"
    at.button_group(key=f"review.{item}.change").set_value("neutral")
    at.button_group(key=f"review.{item}.confidence").set_value(4)
    at.button_group(key=f"review.{item}.error_type").set_value("annotator_error")
    at = run(at)
    # the label the lead chose is not what the proposed curves give: an override, which needs a reason
    assert [w.value.replace("\\", "") for w in at.warning if "override" in w.value] == [
        "neutral is an override: the gold curves give increased. A lead override is stored and exported "
        "as one: say why in the note (required)."]
    note = at.text_area(key=f"review.{item}.note.accept")
    assert note.placeholder == "Required: why the change label overrides the curves"
    at.button(key=f"review.{item}.do.accept").click()
    at = run(at)
    assert [e.value.replace("\\", "") for e in at.error] == [
        "Not stored: neutral is an override: the gold curves give increased. Say why in the note."]
    assert review.gold_of(db, lead, pair_case) is None
    at.text_area(key=f"review.{item}.note.accept").input("moved, not cancelled: the wish stays as valid")
    at.button(key=f"review.{item}.do.accept").click()
    at = run(at)
    gold = review.gold_of(db, lead, pair_case)
    assert (gold.change, gold.curves_change, gold.context_xi, gold.source) == ("neutral", "increased", 50.0, "accepted")
    assert toasts(at) == ["P-1: accepted the automatic resolution"]


def test_a_label_the_decision_curves_give_asks_for_no_reason(make_app, db, lead, pair_case):
    """Taking ann_b's version keeps the override (his curves give neutral): said before the click;
    the proposal's own label on Accept is no override."""
    at = run(make_app(lead))
    at.switch_page("screens/review.py")
    at = run(at)
    item = at.session_state["review.pick"]
    assert not [w for w in at.warning if "override" in w.value]  # Accept: the mean curves give increased
    assert at.text_area(key=f"review.{item}.note.accept").placeholder == "Optional: why"
    at.button_group(key="review.action").set_value("take")
    at = run(at)
    assert [w.value.replace("\\", "") for w in at.warning if "override" in w.value] == [
        "Taking ann_b's version: increased is an override: the gold curves give neutral. A lead override is "
        "stored and exported as one: say why in the note (required)."]
