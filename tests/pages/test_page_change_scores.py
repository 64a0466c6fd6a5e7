"""The Training page's "Score predictions" part on a context-pairs export: a lead uploads
predicted change labels and sees accuracy and exact match on the export's leaderboard; a refused
file is one line; the Export page names the pairs' splits."""

from __future__ import annotations

import json

import pytest

from annotation.services.export import exports
from pair_gold_data import pair_gold_project
from page_helpers import errors, metric_values, run, shown

SUBMIT = "FormSubmitter:training.score-Score"


@pytest.fixture
def exported(db, lead, tmp_path):
    pid = pair_gold_project(db, lead, n_targets=20)   # the test split: 2 targets, 6 pairs
    record = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3)
    return pid, record.id, tmp_path / "export"


def predictions(folder, wrong: int = 0) -> bytes:
    flip = {"decreased": "neutral", "neutral": "increased", "increased": "decreased"}
    rows = [json.loads(line) for line in (folder / "tvcp" / "test.json").read_text().splitlines()]
    return ("_id,change\n" + "".join(f"{r['_id']},{flip[r['change']] if i < wrong else r['change']}\n"
                                     for i, r in enumerate(rows))).encode()


def open_page(make_app, actor, page="screens/training.py"):
    at = run(make_app(actor))
    at.switch_page(page)
    return run(at)


def upload(at, name: str, file_name: str, data: bytes):
    at.text_input(key="training.score.name").set_value(name)
    at.file_uploader(key="training.score.file").set_value((file_name, data, "text/csv"))
    at.button(key=SUBMIT).click()
    return run(at)


def leaderboard(at):
    return next(df.value for df in at.dataframe if "Exact match" in df.value.columns)


def test_a_lead_uploads_change_labels_and_sees_accuracy_and_exact_match(make_app, lead, exported):
    _, export_id, folder = exported
    at = open_page(make_app, lead)
    assert at.selectbox(key="training.score.export").value == export_id
    assert at.selectbox(key="training.score.benchmark.tvcp").value == "tvcp"
    assert any("upload predicted change labels" in c.value for c in at.caption)
    name = "Ours *v2* <b>1</b>"   # Markdown and HTML, shown as typed
    at = upload(at, name, "ours.csv", predictions(folder, 1))
    assert not errors(at)
    assert [shown(s.value) for s in at.success] == [
        f"Scored “{name}” on 6 test pairs: accuracy 0.8333, exact match 0.5000."]
    at = upload(at, "the gold", "gold.csv", predictions(folder))
    board = leaderboard(at)
    assert list(board["model"]) == ["the gold", name] and list(board["kind"]) == ["submitted", "submitted"]
    assert list(board["Accuracy"]) == ["1.0000", "0.8333"] and list(board["Exact match"]) == ["1.0000", "0.5000"]
    assert list(board["test pairs"]) == [6, 6] and "MSE" not in board.columns
    assert any("a bootstrap interval needs ≥ 10 test targets" in c.value for c in at.caption)
    assert len(list((folder / "scores").glob("*.json"))) == 2


def test_a_refused_change_file_is_one_line_and_keeps_nothing(make_app, lead, exported):
    _, _, folder = exported
    lines = predictions(folder).decode().splitlines()
    bad = "\n".join([lines[0], lines[1].split(",")[0] + ",later", *lines[2:]]).encode()
    at = upload(open_page(make_app, lead), "mine", "mine.csv", bad)
    (message,) = errors(at)
    assert message == ("mine.csv: line 2: change must be one of decreased, neutral, increased (or 0, 1, 2), "
                       "got 'later'. Nothing was scored.")
    assert not (folder / "scores").exists()
    assert any("Nothing scored on this benchmark yet" in c.value for c in at.caption)


def test_the_export_page_exports_a_pairs_project_as_tvcp(make_app, db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_EXPORT_DIR", str(tmp_path / "exports"))
    from db import config as app_config

    app_config.load()
    pair_gold_project(db, lead, n_targets=20)
    at = open_page(make_app, lead, "screens/export.py")
    assert metric_values(at)["Gold pairs · tvcp"] == "60"
    assert not [label for label in metric_values(at) if "benchmark" in label]
    agreement = at.checkbox(key="export.agreement")
    assert not agreement.disabled and agreement.value   # the tvcp card states the pairs' agreement
    at.text_input(key="export.name").set_value("pairs-release")
    at.button(key=next(b.key for b in at.button if str(b.key).startswith("export.submit."))).click()
    at = run(at)
    assert not errors(at)
    # the individual annotations are exported too (the annotations config, both curves each)
    assert any("pairs (tvcp, JSON Lines and CSV): 42 train / 12 validation / 6 test" in c.value
               and "120 annotations" in c.value for c in at.caption)
    assert (tmp_path / "exports" / "pairs-release" / "tvcp" / "test.csv").is_file()


def test_dataset_statistics_of_a_tvcp_export_say_where_its_figures_are(make_app, lead, exported):
    at = open_page(make_app, lead, "screens/statistics.py")
    assert not errors(at)
    info = " ".join(i.value for i in at.info)
    assert "holds context pairs (tvcp)" in info and "train 42" in info and "test 6" in info
