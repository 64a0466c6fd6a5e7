"""Review (lead): the queue and its filters, one case side by side, and every decision.

Two annotators submit disagreeing segmentations of the same text (k = 2), which opens a review
item. The custom components (token boundaries, curve chart) cannot be clicked in AppTest — the
browser test clicks them; here the edit goes through the axis multiselects and number inputs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select, update
from streamlit.testing.v1 import AppTest

from annotation.curves import describe_curve
from annotation.content import AnnotationContent
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from annotation.services.review import review
from db.models import Annotation, GoldAnnotation, ReviewItem, Sample
from page_helpers import GOOD_POINTS, SPLIT_A, SPLIT_B, reported_states, run_with_gone_widgets
from page_helpers import annotate, complete_content, errors, markdown_text, run, text_records, titles, toasts
from ui.display import plain
from ui.session import ACTOR_KEY
import workbench_writes

# Not imported from conftest: run together with tests/browser, "conftest" names that folder's.
PAGE_PATH = str(Path(__file__).resolve().parents[2] / "screens" / "review.py")
TIMEOUT = 30



@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Review project")
    text_imports.import_texts(db, lead, p.id, text_records(3))
    return p


@pytest.fixture
def disagreement(db, pair, project):
    """One sample annotated with different boundaries by ann_a and ann_b: one open review item."""
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    item = annotate(db, b, project.id, **SPLIT_B)
    return item.sample_id


#: Splits where ann_a does (SPLIT_A) and once more, on the same axes: flagged, and the union's
#: segments each carry one axis, so Accept can store it (SPLIT_B's axes differ on tokens 4–5).
SPLIT_C = dict(boundaries=(0, 4, 6), segment_axes=("static", "main", "main"))


@pytest.fixture
def agreeing_axes(db, pair, project):
    """One sample split differently by ann_a and ann_b on the same axes: one open review item."""
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    return annotate(db, b, project.id, **SPLIT_C).sample_id


@pytest.fixture
def open_review(make_app, lead):
    def _open():
        at = run(make_app(lead))
        at.switch_page("screens/review.py")
        return run(at)

    return _open


def _item_id(at) -> int:
    return at.session_state["review.pick"]


def _open_items(db) -> list[ReviewItem]:
    with db.read() as s:
        return list(s.scalars(select(ReviewItem).where(ReviewItem.status == "open")))


def _choose(at, action: str):
    at.button_group(key="review.action").set_value(action)
    return run(at)


def _judge(at, confidence: int = 4, error_type: str = "ambiguous_text"):
    """The lead's confidence and error type, required with every decision."""
    item = _item_id(at)
    at.button_group(key=f"review.{item}.confidence").set_value(confidence)
    at.button_group(key=f"review.{item}.error_type").set_value(error_type)
    return run(at)


# --- the queue ----------------------------------------------------------------------------------

def test_empty_queue(open_review, project):
    at = open_review()
    assert titles(at) == ["Review"]
    assert [s.value for s in at.success] == ["Nothing to review in this project right now."]
    assert not at.dataframe


def test_queue_lists_the_item_with_its_reason(open_review, disagreement):
    at = open_review()
    table = at.dataframe[0].value
    assert list(table["sample"]) == ["S-000"]
    assert table["reasons"][0] == "Segmentation mismatch, Pk above threshold, Axes differ on a segment"
    assert table["annotators"][0] == "ann_a, ann_b"
    assert "**1** open item · oldest first" in [c.value for c in at.caption]
    reason = at.selectbox(key="review.filter.reason")
    assert "Segmentation mismatch (1)" in reason.options


def test_filters_narrow_the_queue(open_review, disagreement):
    at = open_review()
    at.selectbox(key="review.filter.reason").set_value("not_present_tense")
    run(at)
    assert "Nothing to review with these filters." in [i.value for i in at.info]
    at.selectbox(key="review.filter.reason").set_value("segmentation_mismatch")
    at.selectbox(key="review.filter.annotator").set_value("ann_b")
    run(at)
    assert list(at.dataframe[0].value["sample"]) == ["S-000"]
    assert "**1** of 1 open item · oldest first" in [c.value for c in at.caption]


def test_case_shows_both_annotations_and_the_proposal(open_review, disagreement):
    at = open_review()
    text = markdown_text(at)
    assert "### Sample S\\-000" in text
    assert "ann\\_a" in text and "ann\\_b" in text
    assert "Segmentation mismatch" in text and "differ in 2 boundaries" in text
    assert "**Proposed resolution**" in text
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Shared boundaries"] == "0 of 2"
    assert metrics["|Δξ|"] == "0.00"
    # each annotator's axis table: segment text → axis
    axis_tables = [t.value for t in at.table]
    assert [list(t["axis"]) for t in axis_tables] == [["Static", "Main"], ["Static", "Main"]]
    # st.table renders Markdown in its cells, so the segments are escaped (read literally)
    assert list(axis_tables[0]["segment"]) == [plain("Sample number 0 says"),
                                               plain("the shop on street 0 is closed this week.")]
    assert list(axis_tables[1]["segment"]) == [plain("Sample number 0 says the shop"),
                                               plain("on street 0 is closed this week.")]
    history = at.dataframe[-1].value
    assert list(history["what"]) == ["Review opened"] and list(history["who"]) == ["automatic"]


def test_curves_are_described_in_stored_base_whatever_the_display_base(open_review, db, lead, project,
                                                                       disagreement):
    """Stored parameters are base-1.1 log minutes; a project displaying base 2 must not read them
    as base-2 values (that turned "peaks after ≈ 1 day" into months)."""
    projects.update_settings(db, lead, project.id, log_base=2.0)
    at = open_review()
    captions = [c.value for c in at.caption]
    with db.read() as s:
        a = s.scalars(select(Annotation).where(Annotation.sample_id == disagreement)).first()
    expected = describe_curve(a.xi, a.omega, a.alpha).capitalize()
    assert expected in captions
    assert describe_curve(a.xi, a.omega, a.alpha, 2.0).capitalize() not in captions


# --- decisions ----------------------------------------------------------------------------------

def test_a_case_without_a_shared_boundary_opens_on_edit(open_review, db, pair, project, lead, disagreement):
    """Issue 33: the union of two segmentations that share no boundary is one nobody drew, so the
    case opens on Edit and says why; a case whose annotators share a boundary opens on Accept."""
    at = open_review()
    assert at.button_group(key="review.action").value == "edit"
    assert any(c.value.startswith("No boundary is shared (0 of 2): the automatic resolution would keep every "
                                  "boundary either annotator placed") for c in at.caption)
    assert not [b for b in at.button if (b.key or "").endswith(".do.accept")]
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    annotate(db, b, project.id, boundaries=(0, 4, 6), segment_axes=("static", "main", "main"))
    second = review.review_queue(db, lead, project.id)[1].item_id
    at = run(at)   # the picker lists the new case
    at.selectbox(key="review.pick").set_value(second)
    run(at)
    assert at.button_group(key="review.action").value == "accept"
    assert not any(c.value.startswith("No boundary is shared") for c in at.caption)


def test_accept_stores_the_automatic_resolution(open_review, db, lead, agreeing_axes):
    at = _judge(_choose(open_review(), "accept"))
    at.text_area(key=f"review.{_item_id(at)}.note.accept").input("union is right")
    at.button(key=f"review.{_item_id(at)}.do.accept").click()
    run(at)
    gold = review.gold_of(db, lead, agreeing_axes)
    assert gold.source == "accepted" and gold.boundaries == (0, 4, 6)
    assert gold.segment_axes == (("static",), ("main",), ("main",))
    assert gold.note == "union is right"
    assert _open_items(db) == []
    assert toasts(at) == ["S-000: accepted the automatic resolution"]
    assert [s.value for s in at.success] == ["Nothing to review in this project right now."]


def test_a_proposal_with_two_axes_on_a_segment_is_not_offered_for_accept(open_review, db, lead, disagreement):
    """The gold keeps one axis per segment: where the annotators' axes differ the page says so,
    opens on Edit, and Accept (and Accept pooled) cannot be clicked."""
    at = open_review()
    item = _item_id(at)
    message = ("Tokens 5–6 carry two axes (Main, Static); the gold keeps one axis per segment — choose one "
               "(Edit) or take one version.")
    assert at.button_group(key="review.action").value == "edit"
    assert any(message + " So this case opens on Edit." in c.value.replace("\\", "") for c in at.caption)
    for action in ("accept", "pooled"):
        at = _choose(at, action)
        assert message in [w.value.replace("\\", "") for w in at.warning]
        assert at.button(key=f"review.{item}.do.{action}").disabled
    assert review.gold_of(db, lead, disagreement) is None


def test_take_one_annotators_version(open_review, db, lead, disagreement):
    at = open_review()
    item = _item_id(at)
    at = _judge(_choose(at, "take"))
    case = review.open_case(db, lead, item)
    b = case.versions[1]
    assert at.button(key=f"review.{item}.do.take.{b.annotation_id}").label == plain(
        f"Take ann_b's version of {case.external_id}")  # the button names the case it decides
    at.button(key=f"review.{item}.do.take.{b.annotation_id}").click()
    run(at)
    gold = review.gold_of(db, lead, disagreement)
    assert gold.source == "annotator" and gold.boundaries == (0, 6)
    assert gold.xi == pytest.approx(b.content.xi)
    assert _open_items(db) == []


def test_send_back_needs_a_note(open_review, db, lead, disagreement):
    at = _judge(_choose(open_review(), "send_back"))
    item = _item_id(at)
    at.button(key=f"review.{item}.do.send_back").click()
    run(at)
    assert errors(at) == ["Say why in the note: the annotators and the history show it."]
    assert [i.id for i in _open_items(db)] == [item]
    with db.read() as s:
        assert {a.status for a in s.scalars(select(Annotation))} == {"submitted"}

    at.text_area(key=f"review.{item}.note.send_back").input("Split after 'street 0'.")
    at.button(key=f"review.{item}.do.send_back").click()
    run(at)
    assert not errors(at)
    assert _open_items(db) == []
    with db.read() as s:
        anns = list(s.scalars(select(Annotation)))
    assert {a.status for a in anns} == {"draft"}
    assert {a.returned_note for a in anns} == {"Split after 'street 0'."}
    history = review.sample_history(db, lead, disagreement)
    assert [(h["what"], h["who"], h["why"]) for h in history][-1] == (
        "send_back", "lead1", "Split after 'street 0'.")


def test_discard_asks_for_a_reason_and_a_confirmation(open_review, db, lead, disagreement):
    at = _judge(_choose(open_review(), "discard"))
    item = _item_id(at)
    at.button(key=f"review.{item}.do.discard").click()
    run(at)
    assert errors(at) == ["Say why in the note: the annotators and the history show it."]
    assert not _has_button(at, f"review.{item}.do.discard_confirm")  # no dialog without a reason

    at.text_area(key=f"review.{item}.note.discard").input("duplicate of S-001")
    at.button(key=f"review.{item}.do.discard").click()
    run(at)
    confirm = at.button(key=f"review.{item}.do.discard_confirm")
    assert confirm.label.startswith("Discard ") and confirm.label != at.button(key=f"review.{item}.do.discard").label
    with db.read() as s:
        assert s.get(Sample, disagreement).status == "active"  # not before the confirmation
    # AppTest reruns the whole page (no fragment reruns): press the opening button again in the
    # same run as the dialog's own button, as the workbench tests do.
    at.button(key=f"review.{item}.do.discard").click()
    confirm.click()
    run(at)
    with db.read() as s:
        assert s.get(Sample, disagreement).status == "discarded"
    assert review.gold_of(db, lead, disagreement) is None
    assert _open_items(db) == []


def _has_button(at, key: str) -> bool:
    try:
        at.button(key=key)
    except KeyError:
        return False
    return True


def test_edit_axes_and_location_then_save(open_review, db, lead, disagreement):
    at = _judge(_choose(open_review(), "edit"))
    item = _item_id(at)
    # the editor starts from the proposal: three segments (0, 4, 6), the middle one two axes
    middle = at.multiselect(key=f"review.{item}.axes.4.2")
    assert middle.value == ["main", "static"]  # AXES order
    middle.set_value(["opinion"])
    run(at)
    xi = at.number_input(key=f"review.{item}.xi.0")
    xi.set_value(61.5)
    run(at)
    assert at.number_input(key=f"review.{item}.xi.0").value == 61.5
    at.text_area(key=f"review.{item}.note.edit").input("my call")
    at.button(key=f"review.{item}.do.edit").click()
    run(at)
    assert not errors(at)
    gold = review.gold_of(db, lead, disagreement)
    assert gold.source == "edited" and gold.boundaries == (0, 4, 6)
    assert gold.segment_axes == (("static",), ("opinion",), ("main",))
    assert gold.xi == 61.5 and gold.note == "my call"
    assert _open_items(db) == []


def test_a_merged_segments_late_axes_report_changes_no_other_segment(open_review, db, lead, disagreement):
    """Joining two segments takes the second one's axes box off the page, but the browser goes on
    reporting that box until a run ends normally (with a lead clicking fast, runs are cut short),
    and Streamlit still calls its on_change. The report used to be applied by position: the
    vanished middle segment's Main + Static landed on the segment now second in the list."""
    at = _choose(open_review(), "edit")
    item = _item_id(at)
    edit_key = f"review.{item}.edit"
    middle = at.multiselect(key=f"review.{item}.axes.4.2")
    assert middle.value == ["main", "static"]
    middle_reported = reported_states([middle])
    # what a click on the gap before token 4 does: | 0–6 static | 6–14 main |
    at.session_state[edit_key] = replace(at.session_state[edit_key], boundaries=(0, 6),
                                         segment_axes=(("static",), ("main",)))
    run(at)
    assert at.multiselect(key=f"review.{item}.axes.6.8").value == ["main"]
    run_with_gone_widgets(at, middle_reported)
    assert at.session_state[edit_key].segment_axes == (("static",), ("main",))
    assert at.multiselect(key=f"review.{item}.axes.6.8").value == ["main"]


def test_the_editor_sends_an_axes_box_only_a_changed_value(open_review, db, lead, disagreement):
    """A value the page writes into a widget's key reaches the browser as "set this value", which
    replaces whatever the lead chose there meanwhile (a run's reply can arrive after the next
    click). The editor writes a segment's box only when the edit changed elsewhere (a new
    segment, back to the proposal), never the value the box already holds."""
    at = open_review()   # no boundary shared: the case opens on Edit
    assert at.button_group(key="review.action").value == "edit"
    item = _item_id(at)
    box = f"review.{item}.axes.6.8"
    assert at.multiselect(key=box).proto.set_value  # a new box starts from the edit
    at.multiselect(key=box).set_value(["recurrent", "main"])
    run(at)
    assert at.session_state[f"review.{item}.edit"].segment_axes[2] == ("main", "recurrent")
    assert at.multiselect(key=box).value == ["recurrent", "main"]
    assert not at.multiselect(key=box).proto.set_value
    proposed = at.number_input(key=f"review.{item}.xi.0").value
    at.number_input(key=f"review.{item}.xi.0").set_value(61.5)  # ξ, ω, α: never written into
    run(at)
    assert at.number_input(key=f"review.{item}.xi.0").value == 61.5
    assert not at.number_input(key=f"review.{item}.xi.0").proto.set_value
    at.button(key=f"review.{item}.edit_reset").click()
    run(at)
    assert at.multiselect(key=box).value == ["main"] and at.multiselect(key=box).proto.set_value
    # back to the proposal: new inputs showing its values; the old ones are gone (their state
    # was never written, so a late report of theirs changes nothing)
    assert at.number_input(key=f"review.{item}.xi.1").value == proposed
    assert not [n for n in at.number_input if n.key == f"review.{item}.xi.0"]


def test_edit_with_an_empty_segment_is_refused(open_review, db, lead, disagreement):
    at = _judge(_choose(open_review(), "edit"))
    item = _item_id(at)
    at.multiselect(key=f"review.{item}.axes.0.4").set_value([])
    run(at)
    at.button(key=f"review.{item}.do.edit").click()
    run(at)
    assert errors(at) == ["Every segment of the resolution needs at least one axis."]
    assert review.gold_of(db, lead, disagreement) is None
    assert len(_open_items(db)) == 1


def test_a_decision_moves_on_to_the_next_item(open_review, db, pair, project, lead):
    a, b = pair
    for _ in range(2):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **SPLIT_C)
    at = open_review()
    first, second = [r.item_id for r in review.review_queue(db, lead, project.id)]
    assert _item_id(at) == first
    at = _judge(_choose(at, "accept"))
    at.button(key=f"review.{first}.do.accept").click()
    run(at)
    assert _item_id(at) == second
    assert list(at.dataframe[0].value["sample"]) == ["S-001"]


def test_another_lead_decided_first(open_review, db, lead, agreeing_axes):
    at = _choose(open_review(), "accept")
    item = _item_id(at)
    review.decide(db, lead, item, "accept_auto", confidence=4, error_type="ambiguous_text")
    at.button(key=f"review.{item}.do.accept").click()
    run(at)  # no traceback: the queue is simply empty now
    assert [s.value for s in at.success] == ["Nothing to review in this project right now."]


def test_the_open_item_settled_by_another_lead_is_explained(open_review, db, pair, project, lead):
    a, b = pair
    for _ in range(2):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **SPLIT_C)
    at = _choose(open_review(), "accept")
    rows = review.review_queue(db, lead, project.id)
    first, second = [r.item_id for r in rows]
    review.decide(db, lead, first, "discard", confidence=4, error_type="ambiguous_text", note="someone else")
    at.button(key=f"review.{first}.do.accept").click()  # the click comes too late
    run(at)
    assert [i.value for i in at.info][0].startswith("The sample you had open has been decided")
    assert _item_id(at) == second
    assert review.gold_of(db, lead, rows[0].sample_id) is None  # the other lead's discard stands


# --- roles --------------------------------------------------------------------------------------

def test_annotators_do_not_get_the_page(make_app, pair, disagreement):
    at = run(make_app(pair[0]))
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("screens/review.py")


def test_the_page_itself_refuses_an_annotator(db_url, pair, disagreement):
    at = AppTest.from_file(PAGE_PATH, default_timeout=TIMEOUT)
    at.session_state[ACTOR_KEY] = pair[0]
    run(at)
    assert errors(at) == ["This page needs the lead role."]
    assert "Review" not in titles(at)
    assert not at.dataframe and not at.button


def test_history_shows_earlier_decisions_on_the_sample(open_review, db, pair, project, lead, disagreement):
    """Sent back, resubmitted still disagreeing: the new item's history shows the first round."""
    [row] = review.review_queue(db, lead, project.id)
    review.decide(db, lead, row.item_id, "send_back", confidence=4, error_type="ambiguous_text", note="Split after 'street 0'.")
    for user, split in zip(pair, (SPLIT_A, SPLIT_B)):
        item = queue.next_item(db, user, project.id)
        assert item.sample_id == disagreement
        workbench_writes.submit(db, user, item.annotation_id, item.version, complete_content(**split))
    at = open_review()
    history = at.dataframe[-1].value
    assert list(history["what"]) == ["Review opened", "Sent back to the annotators", "Review opened"]
    assert list(history["who"]) == ["automatic", "lead1", "automatic"]
    assert history["why"][1] == "Split after 'street 0'."


def test_an_unfinished_flagged_annotation_is_shown_without_error(open_review, db, pair, project, lead):
    """ann_b flags the sample instead of finishing it: no segments labelled, no curve."""
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    item = queue.next_item(db, b, project.id)
    workbench_writes.submit(db, b, item.annotation_id, item.version,
                      AnnotationContent(flags=("other",), note="Two events, two timelines."))
    at = open_review()
    assert at.dataframe[0].value["reasons"][0].startswith("Other (explain in the note)")
    text = markdown_text(at)
    assert "Two events, two timelines" in [w.value for w in at.warning][0]
    assert "no curve" in text
    # the proposal still exists (ann_a's axes and curve); ann_b's version cannot be taken
    case = review.open_case(db, lead, _item_id(at))
    at = _choose(at, "take")
    taken = {v.annotator: at.button(key=f"review.{case.item_id}.do.take.{v.annotation_id}").disabled
             for v in case.versions}
    assert taken == {"ann_a": False, "ann_b": True}
    at = _choose(at, "edit")
    assert at.multiselect(key=f"review.{case.item_id}.axes.0.4").value == ["static"]
    at = _judge(_choose(at, "accept"))
    at.button(key=f"review.{case.item_id}.do.accept").click()
    run(at)
    gold = review.gold_of(db, lead, item.sample_id)
    assert gold.source == "accepted" and gold.boundaries == (0, 4)


def test_the_queue_table_and_the_decision_are_one_widget_each(open_review, db, pair, project, lead):
    """Opening another case neither re-creates the queue table nor the Decision control (a click
    on either while the page redraws would be lost): the table's selection follows the open case;
    the case opened starts from the default decision, unless the lead chose one in the same run
    (a click made while the page redraws: theirs, for the case they see next)."""
    a, b = pair
    for _ in range(3):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **SPLIT_B)
    at = open_review()
    first, second, third = [r.item_id for r in review.review_queue(db, lead, project.id)]
    assert at.session_state["review.table"]["selection"]["rows"] == [0]
    _choose(at, "take")
    at.selectbox(key="review.pick").set_value(second)
    run(at)
    assert at.button_group(key="review.action").value == "edit"   # its own default: no shared boundary
    at.button_group(key="review.action").set_value("take")
    at.selectbox(key="review.pick").set_value(third)
    run(at)
    assert _item_id(at) == third
    assert at.session_state["review.table"]["selection"]["rows"] == [2]
    assert at.button_group(key="review.action").value == "take"
    take_b = f"review.{third}.do.take.{review.open_case(db, lead, third).versions[1].annotation_id}"
    assert at.button(key=take_b).label == plain(f"Take ann_b's version of {review.open_case(db, lead, third).external_id}")
    at = _judge(at)
    at.button(key=take_b).click()
    run(at)
    assert _item_id(at) == second  # after the last one, the one before it
    assert at.session_state["review.table"]["selection"]["rows"] == [1]


def test_a_decision_clicked_after_the_case_changed_is_said_to_do_nothing(open_review, db, pair, project, lead):
    """"Accept … S-000" pressed while the page already draws the next case (Next came first, in
    the same run, as when a browser's two clicks reach the server together): nothing is stored,
    and the lead is told so."""
    a, b = pair
    for _ in range(2):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **SPLIT_C)
    at = _judge(_choose(open_review(), "accept"))
    first, second = [r.item_id for r in review.review_queue(db, lead, project.id)]
    assert _item_id(at) == first and toasts(at) == []
    at.button(key="review.next").click()
    at.button(key=f"review.{first}.do.accept").click()
    run(at)
    assert _item_id(at) == second
    assert toasts(at) == ["The page changed under your click; nothing was done."]
    assert len(_open_items(db)) == 2 and gold_rows_of(db) == []
    run(at)  # said once
    assert toasts(at) == []
    # the case shown is decided by its own button, and that is no unanswered click
    at = _judge(_choose(at, "accept"))
    at.button(key=f"review.{second}.do.accept").click()
    run(at)
    assert toasts(at) == [f"{review.open_case(db, lead, second).external_id}: accepted the automatic resolution"]
    assert [i.id for i in _open_items(db)] == [first]


def test_the_time_an_annotator_spent_reads_in_seconds_under_a_minute(open_review, db, disagreement):
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.sample_id == disagreement).values(seconds_spent=42.0))
    at = open_review()
    lines = [m.value for m in at.markdown if "submitted" in m.value]
    assert len(lines) == 2 and all(line.endswith(" · 42 s]") for line in lines), lines


def gold_rows_of(db) -> list:
    with db.read() as s:
        return list(s.scalars(select(GoldAnnotation)))


# --- adjudication built for curves (issue 12 item 4) ---------------------------------------------

def _later(shift: float):
    return tuple((x + shift, y) for x, y in GOOD_POINTS)


@pytest.fixture
def three_distances(db, pair, project):
    """Three open items, oldest first with curves ≈ 2, 20 and 10 units apart (all with a
    segmentation mismatch, so each is open whatever W1)."""
    a, b = pair
    for shift in (2, 20, 10):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **SPLIT_C, points=_later(shift))
    return [f"S-{i:03d}" for i in range(3)]


def test_the_queue_sorts_by_w1_pk_and_age(open_review, three_distances):
    at = open_review()
    table = at.dataframe[0].value
    assert list(table["sample"]) == three_distances and "W1" in table and "Pk" in table
    assert list(table["W1"]) == pytest.approx([2.0, 20.0, 10.0], abs=0.5)
    assert [o for o in at.selectbox(key="review.sort").options] == [
        "Oldest first", "Newest first", "Largest W1 first", "Largest Pk first"]
    at.selectbox(key="review.sort").set_value("w1")
    run(at)
    assert list(at.dataframe[0].value["sample"]) == ["S-001", "S-002", "S-000"]
    assert "largest W1 first" in markdown_text(at) + " ".join(c.value for c in at.caption)
    # a new order opens its first case (the largest W1)
    assert at.session_state["review.table"]["selection"]["rows"] == [0]
    assert f"### Sample {plain('S-001')}" in markdown_text(at)
    at.selectbox(key="review.sort").set_value("newest")
    run(at)
    assert list(at.dataframe[0].value["sample"]) == three_distances[::-1]


def test_accept_pooled_needs_a_confidence_and_an_error_type(open_review, db, lead, three_distances):
    at = open_review()
    at.selectbox(key="review.sort").set_value("w1")
    run(at)
    at = _choose(at, "pooled")
    item = _item_id(at)
    case = review.open_case(db, lead, item)
    assert case.external_id == "S-001" and case.pooled is not None
    assert "Pooled (teal) · " in markdown_text(at)
    assert at.button_group(key=f"review.{item}.confidence").options == ["1", "2", "3", "4", "5"]
    assert at.button_group(key=f"review.{item}.error_type").options == [
        "Ambiguous text", "Guideline gap", "Annotator error", "Other"]
    at.button(key=f"review.{item}.do.pooled").click()
    run(at)
    assert errors(at) == ["Choose a confidence from 1 to 5."]
    assert review.gold_of(db, lead, case.sample_id) is None
    at = _judge(at, 2, "guideline_gap")
    at.button(key=f"review.{item}.do.pooled").click()
    run(at)
    assert not errors(at)
    gold = review.gold_of(db, lead, case.sample_id)
    assert (gold.source, gold.confidence, gold.error_type) == ("pooled", 2, "guideline_gap")
    assert gold.omega == pytest.approx(case.pooled.omega)
    assert toasts(at) == ["S-001: accepted the pooled resolution"]
    # the next case in W1 order opens, with nothing chosen yet for it: the default decision (the
    # pooled one chosen for S-001 stored it on the two cases after), no confidence, no error type
    nxt = _item_id(at)
    assert review.open_case(db, lead, nxt).external_id == "S-002"
    assert at.button_group(key=f"review.{nxt}.confidence").value is None
    assert at.button_group(key=f"review.{nxt}.error_type").value is None
    # its own default: a boundary shared and one axis per segment, so Accept (not the pooled)
    assert at.button_group(key="review.action").value == "accept"
    assert [b.key for b in at.button if ".do." in (b.key or "")] == [f"review.{nxt}.do.accept"]
    # a decision made now lands with what is shown
    at = _judge(_choose(at, "accept"), 5, "annotator_error")
    at.button(key=f"review.{nxt}.do.accept").click()
    run(at)
    gold = review.gold_of(db, lead, review.open_case(db, lead, nxt).sample_id)
    assert (gold.source, gold.confidence, gold.error_type) == ("accepted", 5, "annotator_error")
    assert at.button_group(key="review.action").value == "accept"  # S-000's own default


def test_a_long_queue_is_shown_a_page_at_a_time(open_review, three_distances, monkeypatch):
    """The table and the Case box hold one page of the queue; the page buttons and Previous /
    Next open the case they name, across pages."""
    from ui import review_picker

    monkeypatch.setattr(review_picker, "PAGE_ROWS", 2)
    at = open_review()
    assert list(at.dataframe[0].value["sample"]) == three_distances[:2]
    assert len(at.selectbox(key="review.pick").options) == 2
    assert "Rows 1–2 of 3" in " ".join(c.value for c in at.caption)
    assert at.button(key="review.page.earlier").disabled
    assert at.button(key="review.page.later").label == "Rows 3–3"
    at.button(key="review.page.later").click()
    run(at)
    assert list(at.dataframe[0].value["sample"]) == three_distances[2:]
    assert f"### Sample {plain(three_distances[2])}" in markdown_text(at)
    assert at.session_state["review.table"]["selection"]["rows"] == [0]
    at.button(key="review.previous").click()  # back across the page boundary
    run(at)
    assert f"### Sample {plain(three_distances[1])}" in markdown_text(at)
    assert list(at.dataframe[0].value["sample"]) == three_distances[:2]
    assert at.session_state["review.table"]["selection"]["rows"] == [1]
    at.button(key="review.next").click()
    run(at)
    assert f"### Sample {plain(three_distances[2])}" in markdown_text(at)
    at.button(key="review.page.earlier").click()
    run(at)
    assert f"### Sample {plain(three_distances[0])}" in markdown_text(at)


def test_the_proposal_is_named_by_the_projects_pooling_rule(open_review, db, lead, pair):
    """With the gold pooled by the annotator model, the proposal says so and gives the weights."""
    import json

    from annotation.services.corpus import annotation_import

    p = projects.create_project(db, lead, "Pooled review")
    text_imports.import_texts(db, lead, p.id, text_records(23))
    lines = [json.dumps({"sample_id": f"S-{i:03d}", "annotator": who, "boundaries": [0],
                         "segment_axes": ["main"], "xi": 40.0 + i, "omega": 8.0, "alpha": 0.0,
                         "submitted_at": "2026-11-02T10:00:00Z"})
             for i in range(1, 23) for who in ("ann_a", "ann_b")]
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "a.jsonl")
    projects.update_settings(db, lead, p.id, gold_pooling="model")
    a, b = pair
    annotate(db, a, p.id, **SPLIT_A)
    annotate(db, b, p.id, **SPLIT_B)
    at = open_review()
    text = markdown_text(at)
    assert "Weighted by the annotator model (weights 0.50 / 0.50) ·" in text, text
    assert "Mean ·" not in text
