"""De-duplication, export and statistics pages (lead) — driven through the whole app with AppTest.

The de-duplication test runs the real bundled SBERT model (loaded once per test process).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select
from streamlit.testing.v1 import AppTest

from annotation.services.corpus import duplicates
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.corpus.text_import import TextRecord
from db import config as app_config
from db.models import DatasetExport, NearDuplicate, Sample
from gold_data import gold_project
from page_helpers import REPO_ROOT, TIMEOUT, errors, infos, metric_values, run, titles, toasts
from ui.session import ACTOR_KEY

TEXTS = [
    ("T-0", "The council approved the new budget for the city library on Monday."),
    ("T-1", "Heavy rain flooded several streets in the harbour district overnight."),
    ("T-2", "The council approved the new budget for the city library on Monday!"),
    ("T-3", "A local bakery won the regional prize for its sourdough bread."),
]


@pytest.fixture
def texts_project(db, lead):
    p = projects.create_project(db, lead, "Texts")
    text_imports.import_texts(db, lead, p.id, [TextRecord(t, 1, i, n + 1) for n, (i, t) in enumerate(TEXTS)])
    return p.id


@pytest.fixture
def exports_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "exports"
    monkeypatch.setenv("CHRONOCEPT_EXPORT_DIR", str(folder))
    app_config.load()  # read again, as a restarted process would
    return folder


def open_page(make_app, actor, page):
    at = run(make_app(actor))
    at.switch_page(page)
    return run(at)


def mark_status(db):
    with db.read() as s:
        return dict(s.execute(select(Sample.external_id, NearDuplicate.status)
                              .join(NearDuplicate, NearDuplicate.sample_id == Sample.id)).all())


def test_dedup_run_confirm_and_undo(make_app, db, lead, texts_project):
    at = open_page(make_app, lead, "screens/duplicates.py")
    assert titles(at) == ["De-duplication"]
    assert metric_values(at)["To review"] == "0"
    assert infos(at) == ["The search has not run in this project yet: **Find near-duplicates** compares every text."]
    at.button(key=f"duplicates.run.{texts_project}").click()
    run(at)
    run(at)  # the page reruns itself after the run; the toast says what happened
    assert mark_status(db) == {"T-2": "pending"}
    assert metric_values(at)["To review"] == "1"
    text = "\n".join(m.value for m in at.markdown)
    assert ":orange-background[Monday\\!]" in text and ":orange-background[Monday\\.]" in text
    captions = "\n".join(c.value for c in at.caption)
    assert "Kept · **T\\-0** (earlier)" in captions and "Near-duplicate · **T\\-2**" in captions
    (mark,) = duplicates.list_pairs(db, lead, texts_project)
    at.button(key=f"duplicates.confirm.{mark.id}").click()
    run(at)
    assert mark_status(db) == {"T-2": "confirmed"}
    with db.read() as s:
        assert s.scalar(select(Sample.status).where(Sample.external_id == "T-2")) == "duplicate"
    at.segmented_control(key="duplicates.status").set_value("confirmed")
    run(at)
    at.button(key=f"duplicates.undo.{mark.id}").click()
    run(at)
    assert mark_status(db) == {"T-2": "pending"}


def test_a_stale_tab_does_not_override_a_decision_taken_elsewhere(make_app, db, lead, texts_project):
    duplicates.run_dedup(db, lead, texts_project)
    at = open_page(make_app, lead, "screens/duplicates.py")
    (mark,) = duplicates.list_pairs(db, lead, texts_project)
    duplicates.decide(db, lead, texts_project, [mark.id], "release")  # another tab released it
    at.button(key=f"duplicates.confirm.{mark.id}").click()
    run(at)
    assert mark_status(db) == {"T-2": "released"}  # the old button no longer exists: no effect
    last = duplicates.last_run(db, lead, texts_project)
    assert infos(at) == [f"Nothing left to review: every pair the search found is decided (last run "
                         f"{last.at:%Y-%m-%d %H:%M} UTC over 4 texts, threshold 0.70)."]
    assert toasts(at) == ["The page changed under your click; nothing was done."]


def test_a_search_that_found_nothing_says_so_with_its_threshold(make_app, db, lead):
    p = projects.create_project(db, lead, "Distinct texts")
    text_imports.import_texts(db, lead, p.id, [TextRecord(t, 1, i, n + 1) for n, (i, t) in enumerate(TEXTS)
                                           if i != "T-2"])
    duplicates.run_dedup(db, lead, p.id, threshold=0.9)
    at = open_page(make_app, lead, "screens/duplicates.py")
    last = duplicates.last_run(db, lead, p.id)
    assert (last.n_texts, last.threshold) == (3, 0.9)
    assert infos(at) == [f"The search found no near-duplicates: no text is more than 0.90 similar to an "
                         f"earlier kept one (last run {last.at:%Y-%m-%d %H:%M} UTC over 3 texts, threshold 0.90)."]


def test_a_click_on_a_card_after_the_page_changed_is_said_to_do_nothing(make_app, db, lead):
    """Confirm on card 1, then Release on card 2 before the page redrew (both clicks reach the
    same run, as when a browser sends them together): the first is done, the second is not —
    and the lead is told so; nothing else changes."""
    p = projects.create_project(db, lead, "Two pairs")
    texts = [*TEXTS, ("T-4", "Heavy rain flooded several streets in the harbour district overnight!")]
    text_imports.import_texts(db, lead, p.id, [TextRecord(t, 1, i, n + 1) for n, (i, t) in enumerate(texts)])
    duplicates.run_dedup(db, lead, p.id)
    at = open_page(make_app, lead, "screens/duplicates.py")
    first, second = duplicates.list_pairs(db, lead, p.id)
    at.button(key=f"duplicates.confirm.{first.id}").click()
    at.button(key=f"duplicates.release.{second.id}").click()
    run(at)
    assert mark_status(db) == {first.sample_id: "confirmed", second.sample_id: "pending"}
    assert toasts(at) == [f"{first.sample_id}: confirmed as a duplicate — out of the pool",
                          "The page changed under your click; nothing was done."]


def test_annotators_do_not_get_the_back_office_pages(make_app, make_user, texts_project):
    annotator = make_user("ann1")
    at = run(make_app(annotator))
    for page in ("screens/duplicates.py", "screens/export.py", "screens/statistics.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(page)
    direct = AppTest.from_file(str(REPO_ROOT / "screens" / "export.py"), default_timeout=TIMEOUT)
    direct.session_state[ACTOR_KEY] = annotator
    run(direct)
    assert errors(direct) == ["This page needs the lead role."]


def test_export_without_gold_explains_and_disables(make_app, lead, texts_project, exports_dir):
    at = open_page(make_app, lead, "screens/export.py")
    assert titles(at) == ["Export dataset"]
    assert any("Nothing to export yet" in i for i in infos(at))
    assert at.button(key=f"export.submit.{texts_project}").label == "Export Texts"
    assert at.button(key=f"export.submit.{texts_project}").disabled


def test_export_then_repeat_then_statistics(make_app, db, lead, exports_dir):
    pid = gold_project(db, lead, n=12)
    at = open_page(make_app, lead, "screens/export.py")
    assert metric_values(at)["Gold · benchmark 1"] == "8"
    at.text_input(key="export.name").set_value("release-1")
    at.number_input(key="export.seed").set_value(11)
    at.button(key=f"export.submit.{pid}").click()
    run(at)
    assert not errors(at)
    folder = exports_dir / "release-1"
    manifest = json.loads((folder / "export.json").read_text())
    assert manifest["seed"] == 11 and manifest["counts"]["benchmark_1"]["train"] >= 5
    assert any("Export 1 is ready" in s.value for s in at.success)
    assert at.get("download_button")
    # the same name again is refused with a message and changes nothing
    at.text_input(key="export.name").set_value("release-1")
    at.button(key=f"export.submit.{pid}").click()
    run(at)
    assert any("not empty" in e for e in errors(at))
    at.text_input(key="export.name").set_value("../escape")
    at.button(key=f"export.submit.{pid}").click()
    run(at)
    assert any("folder name" in e for e in errors(at))
    with db.read() as s:
        assert s.scalar(select(DatasetExport.id).order_by(DatasetExport.id.desc())) == 1
    at.button(key="export.repeat.1").click()
    run(at)
    with db.read() as s:
        again = s.scalars(select(DatasetExport).order_by(DatasetExport.id)).all()
    assert [e.reproduces_id for e in again] == [None, 1] and again[1].status == "complete"
    assert (Path(again[1].path) / "benchmark_1" / "train.json").read_bytes() == \
        (folder / "benchmark_1" / "train.json").read_bytes()

    stats = open_page(make_app, lead, "screens/statistics.py")
    assert titles(stats) == ["Dataset statistics"]
    assert [m.value for m in stats.metric if m.label == "Samples"] == ["8", "4"]  # one tab each
    assert len(stats.get("plotly_chart")) == 2 * 5  # per benchmark: axes, 3 histograms, curves
    assert pid


def test_a_replaced_export_says_so_and_can_still_be_repeated(make_app, db, lead, exports_dir):
    from annotation.services.export import exports

    pid = gold_project(db, lead, n=6)
    first = exports.export_dataset(db, lead, pid, exports_dir / "release", seed=1)
    at = open_page(make_app, lead, "screens/export.py")
    at.text_input(key="export.name").set_value("release")
    at.checkbox(key="export.overwrite").check()
    at.button(key=f"export.submit.{pid}").click()
    run(at)
    assert not errors(at)
    table = at.dataframe[0].value
    status = dict(zip(table["Export"], table["Status"]))
    assert status == {2: "complete", first.id: "replaced by export 2 (same folder)"}
    at.selectbox(key="export.pick").set_value(first.id)
    run(at)
    at.button(key=f"export.repeat.{first.id}").click()
    run(at)
    assert not errors(at)
    with db.read() as s:
        rows = s.scalars(select(DatasetExport).order_by(DatasetExport.id)).all()
    assert [(r.status, r.seed, r.reproduces_id) for r in rows] == [
        ("replaced", 1, None), ("complete", rows[1].seed, None), ("complete", 1, first.id)]


def test_statistics_without_export(make_app, lead, texts_project):
    at = open_page(make_app, lead, "screens/statistics.py")
    assert infos(at) == ["No export yet. Statistics describe an export: make one on the "
                         "**Export dataset** page."]
