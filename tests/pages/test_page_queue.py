"""My queue: today's progress, the start button, the history table, the quota message."""

from __future__ import annotations

import re

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.workbench import queue
import workbench_writes
from page_helpers import (
    complete_content,
    infos,
    metric_values,
    run,
    sample_header,
    successes,
    titles,
)


def _submit_one(db, actor, project_id):
    item = queue.next_item(db, actor, project_id)
    return workbench_writes.submit(db, actor, item.annotation_id, item.version, complete_content())


def test_no_project_yet(make_app, ann):
    at = run(make_app(ann))
    assert titles(at) == ["My queue"]
    assert infos(at) == ["There is no project yet. A lead creates one under **Projects & texts**."]
    assert not at.metric


def test_fresh_annotator_sees_metrics_and_the_start_button(make_app, ann, demo):
    at = run(make_app(ann))
    assert titles(at) == ["My queue"]
    assert metric_values(at) == {"Submitted today": "0 / 70", "Submitted in total": "0",
                                 "In progress": "0"}  # no pool counter (it told checks apart)
    assert at.button(key="queue.start").label == "Start the next sample"
    assert "None yet." in [c.value for c in at.caption]
    assert not at.dataframe


def test_start_button_opens_the_workbench(make_app, ann, demo):
    at = run(make_app(ann))
    at.button(key="queue.start").click()
    run(at)
    assert sample_header(at) == "Sample #1"
    assert not titles(at)  # the workbench has a header, not the queue's title


def test_draft_in_progress_offers_continue(make_app, db, ann, demo):
    queue.next_item(db, ann, demo.id)
    at = run(make_app(ann))
    assert metric_values(at)["In progress"] == "1"
    assert at.button(key="queue.continue").label == "Continue where I left off"
    assert not [b for b in at.button if b.key == "queue.start"]
    table = at.dataframe[0].value
    assert list(table["sample"]) == ["#1"]
    assert list(table["status"]) == ["draft"]
    # a draft has no submission time and no flags: a dash, never Python's "None"
    assert (table.iloc[0]["submitted"], table.iloc[0]["flags"]) == ("—", "—")
    assert not [v for v in table.to_numpy().ravel() if v is None or str(v) in ("None", "NaT", "nan")]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", table.iloc[0]["last change"])


def test_history_lists_a_submitted_annotation(make_app, db, ann, demo):
    done = _submit_one(db, ann, demo.id)
    at = run(make_app(ann))
    assert metric_values(at)["Submitted today"] == "1 / 70"
    assert metric_values(at)["Submitted in total"] == "1"
    table = at.dataframe[0].value
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["id"], row["sample"], row["benchmark"], row["status"]) == (
        done.annotation_id, "#1", 1, "submitted")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", row["submitted"])
    assert row["flags"] == "—"
    assert "None" not in table.astype(str).to_numpy().ravel()


def test_history_times_are_in_the_projects_time_zone(make_app, db, admin, ann, demo):
    projects.update_settings(db, admin, demo.id, quota_timezone="Asia/Tokyo")
    done = _submit_one(db, ann, demo.id)
    queue.next_item(db, ann, demo.id)  # a draft too
    table = run(make_app(ann)).dataframe[0].value
    assert set(table["status"]) == {"submitted", "draft"}
    by_status = {r["status"]: r for _, r in table.iterrows()}
    assert by_status["submitted"]["submitted"].endswith(" JST")
    assert by_status["draft"]["submitted"] == "—"
    assert done.annotation_id in set(table["id"])


def test_quota_reached_message(make_app, db, admin, ann, demo):
    projects.update_settings(db, admin, demo.id, daily_quota=1)
    _submit_one(db, ann, demo.id)
    at = run(make_app(ann))
    assert metric_values(at)["Submitted today"] == "1 / 1"
    assert successes(at) == ["You reached today's quota of 1 submission — thank you! "
                             "Drafts stay saved; new submissions open tomorrow."]
    assert not [b for b in at.button if b.key in ("queue.start", "queue.continue")]


def test_empty_pool(make_app, db, admin, ann):
    projects.create_project(db, admin, "Empty")
    at = run(make_app(ann))
    assert "Open slots in the pool" not in metric_values(at)
    assert infos(at) == ["Nothing left to annotate in this project for you right now."]


def test_deactivated_user_with_an_open_session_is_signed_out(make_app, db, admin, ann, demo):
    at = run(make_app(ann))
    assert titles(at) == ["My queue"]
    accounts.set_active(db, admin, ann.user_id, False)
    run(at)
    # signed out at the next run: the sign-in form, nothing of the queue
    assert "auth.actor" not in at.session_state
    assert at.text_input(key="login.username") is not None
    assert not at.metric and not at.dataframe
