"""The Training page's "Score predictions" part (lead): upload a model's test-split predictions,
see them on the export's leaderboard beside the baselines; a refused file is one line."""

from __future__ import annotations

import json

import pytest

from annotation.services.export import exports
from annotation.services.jobs import jobs
from annotation.training.submissions import MAX_PREDICTION_BYTES
from db import config as app_config
from gold_data import gold_project
from page_helpers import errors, run, shown

SUBMIT = "FormSubmitter:training.score-Score"


@pytest.fixture
def exported(db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=45)  # benchmark 1: 30 samples, test split 3
    record = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=2, include_agreement=False)
    return pid, record.id, tmp_path / "export"


def _predictions(folder, shift: float = 0.0) -> bytes:
    rows = [json.loads(line) for line in (folder / "benchmark_1" / "test.json").read_text().splitlines()]
    return "".join(json.dumps({"_id": r["_id"], "xi": r["target_values"]["location"] + shift,
                               "omega": r["target_values"]["scale"], "alpha": r["target_values"]["skewness"]})
                   + "\n" for r in rows).encode()


def open_page(make_app, actor):
    at = run(make_app(actor))
    at.switch_page("screens/training.py")
    return run(at)


def upload(at, name: str, file_name: str, data: bytes):
    at.text_input(key="training.score.name").set_value(name)
    at.file_uploader(key="training.score.file").set_value((file_name, data, "application/octet-stream"))
    at.button(key=SUBMIT).click()
    return run(at)


def leaderboard(at):
    return next(df.value for df in at.dataframe if "Mean W1" in df.value.columns)


def test_a_lead_scores_a_file_and_sees_it_beside_the_baselines(make_app, db, lead, exported):
    pid, export_id, folder = exported
    job = jobs.launch_training(db, lead, pid, export_id, {"models": ["mean", "linear"], "encoder": "hashing",
                                                          "ablations": ["none"]}, start=False)
    assert jobs.run_job(db, job.id) == "succeeded"
    at = open_page(make_app, lead)
    assert at.selectbox(key="training.score.export").value == export_id
    name = "Ours *v2* <b>1</b>"   # Markdown and HTML, shown as typed
    at = upload(at, name, "ours.jsonl", _predictions(folder, 0.5))
    assert not errors(at)
    assert [shown(s.value) for s in at.success] == [f"Scored “{name}” on 3 test samples: MSE "
                                                    f"{leaderboard(at).iloc[0]['MSE']}."]
    board = leaderboard(at)
    assert sorted(board["kind"]) == ["baseline", "baseline", "reference (no text)", "reference (no text)",
                                     "submitted"]
    assert list(board["model"])[0] == name
    assert set(board[board["kind"] == "baseline"]["model"]) == {f"Linear regression (job {job.id})",
                                                                f"Mean (reference) (job {job.id})"}
    assert set(board[board["kind"] == "reference (no text)"]["model"]) == {"Reference: training mean curve",
                                                                         "Reference: per-axis mean"}
    # 3 test samples rank nothing: no rank, and the page says why (issue 33)
    assert set(board["rank"]) == {"—"}
    row = board.iloc[0]
    assert row["by"] == "lead1" and row["test samples"] == 3
    assert row["R²"] == "—" and row["Mean W1"].startswith("0.5")   # 3 test samples: no intervals
    # a run scores its rows as a submission is scored: W1 too
    assert "—" not in set(board[board["kind"] == "baseline"]["Mean W1"])
    captions = [c.value for c in at.caption]
    assert any("needs ≥ 30 test samples (n = 3)" in c for c in captions)   # R² and ρ withheld by the rule
    assert any(shown(c).startswith("— R², Spearman ρ: withheld, needs ≥ 30 test samples (n = 3)") for c in captions)
    assert not any("undefined, needs ≥" in shown(c) for c in captions)
    assert any("a bootstrap interval needs ≥ 10 test samples" in c for c in captions)
    assert any(shown(c).startswith("Not ranked: the test split has 3 samples; ranking models needs ≥ 30")
               for c in captions)
    assert len(list((folder / "scores").glob("*.json"))) == 1


def test_a_refused_file_is_one_line_and_keeps_nothing(make_app, db, lead, exported):
    pid, export_id, folder = exported
    lines = _predictions(folder).decode().splitlines()
    bad = "\n".join([lines[0], lines[1], lines[1]]).encode()
    at = open_page(make_app, lead)
    # the uploader says the limit the page says (and the scorer applies)
    assert at.file_uploader(key="training.score.file").proto.max_upload_size_mb == MAX_PREDICTION_BYTES // 2**20
    assert any(f"up to {MAX_PREDICTION_BYTES // 2**20} MB" in c.value for c in at.caption)
    at = upload(at, "mine", "mine.jsonl", bad)
    (message,) = errors(at)
    assert "\n" not in message and message.startswith("mine.jsonl: line 3: _id ")
    assert message.endswith("also appears on line 2. Nothing was scored.")
    assert not (folder / "scores").exists()
    assert not any("Mean W1" in df.value.columns for df in at.dataframe)
    assert any("Nothing scored on this benchmark yet" in c.value for c in at.caption)
    # no file chosen
    at.file_uploader(key="training.score.file").set_value(None)
    at.button(key=SUBMIT).click()
    at = run(at)
    assert errors(at) == ["Choose a predictions file to score."]
