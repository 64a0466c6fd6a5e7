"""Gold checks on the pages: the lead's Annotators page lists a pause with its lift button and
shows the accuracy trend; lifting needs a note; a stale lift says so; the paused annotator's
queue says a lead will be in touch."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.content import AnnotationContent
from annotation.services.quality import gold_checks, qualification
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from annotation.services.review import warmup_set
from db.models import Annotation, GoldCheckPause, Sample
from page_helpers import (
    complete_content,
    errors,
    metric_values,
    run,
    sample_header,
    text_records,
    toasts,
)
from surface_driver import view
import workbench_writes

GOLD = (30.0, 8.0, 0.5)
FAR = AnnotationContent(boundaries=(0,), segment_axes=("main",),
                        points=((27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2)),
                        xi=90.0, omega=8.0, alpha=0.5, params_source="manual")


def _checked_project(db, lead, **settings):
    p = projects.create_project(db, lead, "Checked project")
    projects.update_settings(db, lead, p.id, gold_check_share=0.5, **settings)
    text_imports.import_texts(db, lead, p.id, text_records(12))
    warm = [f"S-{i:03d}" for i in range(8, 12)]
    warmup_set.mark_warmup(db, lead, p.id, warm)
    with db.read() as s:
        ids = list(s.scalars(select(Sample.id).where(Sample.external_id.in_(warm))))
    for sid in ids:
        warmup_set.set_warmup_gold(db, lead, sid, boundaries=(0,), segment_axes=("main",),
                                   xi=GOLD[0], omega=GOLD[1], alpha=GOLD[2])
    return p


def _is_check(db, annotation_id) -> bool:
    with db.read() as s:
        return bool(s.get(Annotation, annotation_id).is_gold_check)


def test_the_workbench_shows_a_check_exactly_like_production_work(db, make_app, lead, make_user):
    p = _checked_project(db, lead)
    ann = make_user("ann")
    qualification.admit(db, lead, p.id, ann.user_id, "experienced")
    views = {}
    for _ in range(4):  # two blocks of two hand-outs: one check, one production sample each
        item = queue.next_item(db, ann, p.id)
        at = run(make_app(ann))
        at.switch_page("screens/workbench.py")
        run(at)
        v = view(at)
        assert not [i for i in at.info if "Warm-up" in i.value]
        views.setdefault(_is_check(db, item.annotation_id), []).append(v)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert len(views[True]) == 2 and len(views[False]) == 2
    check, production = views[True][0], views[False][0]
    assert set(check) == set(production) and set(check["sample"]) == set(production["sample"])
    assert check["sample"]["is_warmup"] is False and check["notices"] == production["notices"] == []
    assert check["quota_reached"] is production["quota_reached"] is False


def test_my_queue_and_the_workbench_show_a_check_and_production_alike(db, make_app, lead, make_user):
    """Neither an external id out of sequence (a check is a warm-up sample: S-008 among S-000,
    S-001, …) nor a pool counter that does not move at a check tells the annotator which
    hand-out was a check: they see their own sample numbers and the same counters."""
    p = _checked_project(db, lead)
    ann = make_user("ann")
    qualification.admit(db, lead, p.id, ann.user_id, "experienced")
    seen = []
    for n in range(1, 5):  # two blocks of two hand-outs: one check, one production sample each
        item = queue.next_item(db, ann, p.id)
        at = run(make_app(ann))  # My queue with the hand-out in progress
        metrics = metric_values(at)
        shown = " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                         + [str(v) for v in at.dataframe[0].value.to_numpy().ravel()])
        at.switch_page("screens/workbench.py")
        run(at)
        seen.append((_is_check(db, item.annotation_id), metrics, list(at.dataframe[0].value["sample"])
                     if at.dataframe else None, sample_header(at), view(at)["sample"]))
        assert "S-0" not in shown and "S\\-0" not in shown  # no external id on My queue
        assert sample_header(at) == f"Sample #{n}" and view(at)["sample"]["number"] == n
        assert "external_id" not in view(at)["sample"]
        assert not [c.value for c in at.caption if "S-0" in c.value or "S\\-0" in c.value]
        workbench_writes.submit(db, ann, item.annotation_id, item.version, complete_content())
    assert sorted(check for check, *_ in seen) == [False, False, True, True]
    # the same counters, each moving by one at every hand-out, check or not; no pool counter
    assert [m for _, m, *_ in seen] == [
        {"Submitted today": f"{n} / 70", "Submitted in total": str(n), "In progress": "1"}
        for n in range(4)]
    history = run(make_app(ann)).dataframe[0].value
    assert sorted(history["sample"]) == ["#1", "#2", "#3", "#4"]  # no sequence break
    # the sequence of the numbers is the hand-out order, checks in it like any sample
    by_id = dict(zip(history["id"], history["sample"]))
    with db.read() as s:
        ids = list(s.scalars(select(Annotation.id).where(Annotation.annotator_id == ann.user_id)
                             .order_by(Annotation.id)))
    assert [by_id[i] for i in ids] == ["#1", "#2", "#3", "#4"]


@pytest.fixture
def paused(db, lead, make_user):
    """A project with gold checks every other hand-out, window 2; ann failed two checks and is
    paused. Returns (project, ann, pause id)."""
    p = _checked_project(db, lead, gold_check_window=2, gold_check_min_pass=0.6)
    ann = make_user("ann")
    qualification.admit(db, lead, p.id, ann.user_id, "experienced")
    while not queue.queue_status(db, ann, p.id).paused:
        item = queue.next_item(db, ann, p.id)
        check = _is_check(db, item.annotation_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, FAR if check else complete_content())
    (pause,) = gold_checks.gold_check_overview(db, lead, p.id).pauses
    return p, ann, pause.pause_id


def _open(make_app, who):
    at = run(make_app(who))
    at.switch_page("screens/annotators.py")
    return run(at)


def _lifted(db, pause_id):
    with db.read() as s:
        return s.get(GoldCheckPause, pause_id).lifted_at is not None


def test_the_lead_sees_the_pause_and_the_trend_and_lifts_it(db, make_app, lead, paused):
    p, ann, pause_id = paused
    at = _open(make_app, lead)
    warning = [w.value for w in at.warning if "paused from production" in w.value]
    assert len(warning) == 1 and warning[0].startswith("ann is paused") and "0 of the last 2" in warning[0]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert sum("W1 to gold" in spec and "Share passed over the last 2 checks" in spec for spec in specs) == 1
    trend = next(f.value for f in at.dataframe if "window_share" in f.value.columns)
    assert list(trend["annotator"]) == ["ann", "ann"] and list(trend["passed"]) == [False, False]
    summary = next(f.value for f in at.dataframe if "since last lift" in f.value.columns)
    assert list(summary["paused"]) == [True]
    # no note: refused with a message, nothing changed
    at.button(key=f"annotators.lift.{pause_id}").click()
    run(at)
    assert errors(at) == ["Say why the pause is lifted (a note for the record)."]
    assert not _lifted(db, pause_id)
    at.text_input(key=f"annotators.lift_note.{pause_id}").input("Talked it through on Monday.")
    at.button(key=f"annotators.lift.{pause_id}").click()
    run(at)
    assert _lifted(db, pause_id)
    assert any("is lifted" in t for t in toasts(at))
    assert not [w for w in at.warning if "paused from production" in w.value]
    assert not queue.queue_status(db, ann, p.id).paused


def test_a_stale_lift_says_so_and_changes_nothing(db, make_app, lead, make_user, paused):
    p, ann, pause_id = paused
    at = _open(make_app, lead)
    other = make_user("lead2", "lead")
    gold_checks.lift_pause(db, other, pause_id, "done by the other lead")
    at.text_input(key=f"annotators.lift_note.{pause_id}").input("me too")
    at.button(key=f"annotators.lift.{pause_id}").click()
    run(at)
    assert any("already lifted by lead2" in e for e in errors(at))
    with db.read() as s:
        assert s.get(GoldCheckPause, pause_id).lift_note == "done by the other lead"


def test_the_paused_annotator_is_told_a_lead_will_be_in_touch(make_app, paused):
    _, ann, _ = paused
    at = run(make_app(ann))  # My queue
    assert any("A lead will be in touch" in w.value for w in at.warning)
    assert not [b for b in at.button if b.key in ("queue.start", "queue.continue")]


def test_every_other_back_office_page_tells_the_lead_who_is_paused(db, make_app, lead, paused):
    p, ann, pause_id = paused
    at = run(make_app(lead))
    for page in ("screens/review.py", "screens/agreement.py", "screens/export.py"):
        at.switch_page(page)
        run(at)
        notices = [w.value for w in at.warning if "Paused by gold checks" in w.value]
        assert len(notices) == 1 and "ann" in notices[0] and "see Annotators" in notices[0], page
    gold_checks.lift_pause(db, lead, pause_id, "talked it through")
    at.switch_page("screens/review.py")
    run(at)
    assert not [w for w in at.warning if "Paused by gold checks" in w.value]


def test_the_lead_sees_a_flagged_check_with_its_flag_and_note_unjudged(db, make_app, lead, make_user):
    from annotation.flag_reasons import flag_label

    p = _checked_project(db, lead)
    ann = make_user("ann")
    qualification.admit(db, lead, p.id, ann.user_id, "experienced")
    flagged = AnnotationContent(boundaries=(0,), segment_axes=(None,), flags=("other",),
                                note="**Garbled** text: half of it is missing.")
    while True:
        item = queue.next_item(db, ann, p.id)
        check = _is_check(db, item.annotation_id)
        workbench_writes.submit(db, ann, item.annotation_id, item.version, flagged if check else complete_content())
        if check:
            break
    at = _open(make_app, lead)
    trend = next(f.value for f in at.dataframe if "window_share" in f.value.columns)
    assert list(trend["flags"]) == [flag_label("other")]
    assert list(trend["note"]) == ["**Garbled** text: half of it is missing."]  # a cell: literal
    assert trend["passed"].isna().all()  # unjudged: neither passed nor failed


def test_the_pause_tells_the_lead_what_became_of_the_open_drafts(db, make_app, lead, paused):
    p, ann, pause_id = paused
    with db.write() as s:
        pause = s.get(GoldCheckPause, pause_id)
        pause.figures = {**pause.figures, "released_drafts": 1, "kept_drafts": 2}
    at = _open(make_app, lead)
    (warning,) = [w.value for w in at.warning if "paused from production" in w.value]
    assert warning.endswith("1 empty draft released (their slots are open to others); 2 drafts with "
                            "their work kept, holding their slots until the pause is lifted.")
