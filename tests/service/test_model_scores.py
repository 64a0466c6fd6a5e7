"""Scoring a model built elsewhere on an export's test split, and the export's leaderboard beside
its training jobs' baselines — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from sqlalchemy import select

from annotation.services.export import exports
from annotation.services.jobs import jobs
from annotation.services.model import model_scores
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from annotation.training.scoring import NO_INTERVAL_FEW, Figure
from db import config as app_config
from db.models import AuditEvent
from gold_data import gold_project
from service_helpers import count

QUICK = {"models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}


@pytest.fixture
def export(db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=45)  # benchmark 1: 30 samples, test split 3
    record = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3, include_agreement=False)
    return pid, record.id, tmp_path / "export"


def _predictions(folder, shift: float = 0.0) -> bytes:
    rows = [json.loads(line) for line in (folder / "benchmark_1" / "test.json").read_text().splitlines()]
    return "".join(json.dumps({"_id": r["_id"], "xi": r["target_values"]["location"] + shift,
                               "omega": r["target_values"]["scale"], "alpha": r["target_values"]["skewness"]})
                   + "\n" for r in rows).encode()


def _scored(db) -> int:
    return count(db, AuditEvent, AuditEvent.action == "score_predictions")


def test_a_scored_file_is_kept_in_the_export_folder_and_ranked_beside_the_baselines(db, lead, export):
    pid, export_id, folder = export
    job = jobs.launch_training(db, lead, pid, export_id, QUICK, start=False)
    assert jobs.run_job(db, job.id) == "succeeded"

    entry = model_scores.score_submission(db, lead, pid, export_id, _predictions(folder, 0.5), "ours.jsonl",
                                          "  Ours *v2*  ")
    assert (entry.kind, entry.name, entry.by, entry.n_test) == ("submission", "Ours *v2*", "lead1", 3)
    # three test samples: the gold scale is the same for all, so R² is undefined; no intervals on 3
    assert math.isnan(entry.figures["r2"].value) and entry.figures["r2"].undefined == "needs ≥ 30 test samples (n = 3)"
    assert entry.figures["mse"].value > 0 and entry.figures["mse"].no_interval == NO_INTERVAL_FEW
    assert entry.figures["w1"].value == pytest.approx(0.5, abs=0.01)
    (kept,) = (folder / "scores").glob("*.json")
    record = json.loads(kept.read_text())
    assert record["name"] == "Ours *v2*" and record["submitted_by"] == "lead1" and record["via"] == "app"
    assert record["export_id"] == str(export_id) and record["benchmark"] == 1 and len(record["sha256"]) == 64
    with db.read() as s:
        (event,) = s.scalars(select(AuditEvent).where(AuditEvent.action == "score_predictions"))
        assert (event.entity, event.entity_id, event.detail["kept"]) == ("export", str(export_id), kept.name)

    perfect = model_scores.score_submission(db, lead, pid, export_id, _predictions(folder), "gold.csv.jsonl",
                                            "the gold itself")
    assert perfect.figures["mse"].value == 0
    board = model_scores.leaderboard(db, lead, pid, export_id, 1)
    assert [(e.kind, e.name) for e in board.entries][:2] == [("submission", "the gold itself"),
                                                              ("submission", "Ours *v2*")]
    baselines = [e for e in board.entries if e.kind == "baseline"]
    assert {(e.model, e.ablation, e.job_id) for e in baselines} == {("mean", "none", job.id),
                                                                     ("linear", "none", job.id)}
    stored = {r["model"]: r for r in jobs.get_job(db, lead, job.id).result["rows"]}
    for e in baselines:
        # a run scores its rows as chronocept score does (issue 33): W1 too, intervals from 10 samples
        assert e.figures["mse"].value == pytest.approx(stored[e.model]["mse"], rel=1e-12)
        assert e.figures["w1"].value > 0 and e.figures["mse"].no_interval == NO_INTERVAL_FEW
    # a run recorded before then has neither
    old = model_scores.baseline_figures({k: v for k, v in stored["linear"].items() if k != "score"})
    assert math.isnan(old["w1"].value) and old["w1"].undefined == model_scores.BASELINE_NO_W1
    assert old["mse"].no_interval == model_scores.BASELINE_NO_INTERVAL
    # the trivial references of the split stand among the rows, once
    references = [e for e in board.entries if e.kind == model_scores.REFERENCE]
    assert sorted(e.name for e in references) == ["Reference: per-axis mean", "Reference: training mean curve"]
    mses = [e.figures["mse"].value for e in board.entries]
    assert mses == sorted(mses)
    assert model_scores.leaderboard(db, lead, pid, export_id, 2).entries == ()
    # a document that cannot be read is named, not shown
    (folder / "scores" / "broken.json").write_text("{", encoding="utf-8")
    assert model_scores.leaderboard(db, lead, pid, export_id, 1).unreadable == ("broken.json",)


def test_a_refused_file_keeps_and_records_nothing(db, lead, export):
    pid, export_id, folder = export
    good = _predictions(folder).decode().splitlines()
    bad = "\n".join([good[0], good[1].replace('"omega": 8.0', '"omega": 0.1'), good[2]]).encode()
    with pytest.raises(InvalidInput) as refused:
        model_scores.score_submission(db, lead, pid, export_id, bad, "p.jsonl", "mine")
    assert str(refused.value) == ("p.jsonl: line 2: omega (ω) = 0.1 is outside the fit's range [0.5, 200]. "
                                  "Nothing was scored.")
    cases = [(good[0].encode(), "p.jsonl", "mine", "2 test samples have no prediction"),
             (b"", "p.jsonl", "mine", "the file holds no predictions"),
             (b"x", "p.xlsx", "mine", "unsupported file type '.xlsx'"),
             (_predictions(folder), "p.jsonl", "x" * 81, "longer than 80 characters"),
             (_predictions(folder), "p.jsonl", "  ", "needs a name")]
    for data, name, title, reason in cases:
        with pytest.raises(InvalidInput, match=reason) as refused:
            model_scores.score_submission(db, lead, pid, export_id, data, name, title)
        assert "\n" not in str(refused.value)
    assert not (folder / "scores").exists() and _scored(db) == 0


def test_who_may_score_and_which_exports(db, lead, export, make_user, tmp_path):
    pid, export_id, folder = export
    data = _predictions(folder)
    with pytest.raises(PermissionDenied):
        model_scores.score_submission(db, make_user("ann1"), pid, export_id, data, "p.jsonl", "mine")
    with pytest.raises(PermissionDenied):
        model_scores.leaderboard(db, make_user("ann2"), pid, export_id)
    with pytest.raises(NotFound):
        model_scores.score_submission(db, lead, pid + 1, export_id, data, "p.jsonl", "mine")
    with pytest.raises(NotFound):
        model_scores.score_submission(db, lead, pid, 999, data, "p.jsonl", "mine")
    # a later export written into the same folder: the earlier one's folder holds another export
    exports.export_dataset(db, lead, pid, folder, seed=4, include_agreement=False, overwrite=True)
    with pytest.raises(InvalidInput, match="replaced"):
        model_scores.score_submission(db, lead, pid, export_id, data, "p.jsonl", "mine")
    shutil.rmtree(folder)
    with pytest.raises(NotFound, match="no longer on this server"):
        model_scores.leaderboard(db, lead, pid, export_id + 1)
    assert _scored(db) == 0


def test_the_leaderboard_sorts_by_the_interval_not_the_point():
    """Issue 33: b's point MSE is worse than a's, but its whole interval lies lower — b leads; an
    entry without an interval follows those with one, an undefined one comes last."""
    def entry(name, mse, low, high):
        return model_scores.LeaderboardEntry(kind=model_scores.SUBMISSION, name=name, by="lea", at=None,
                                             figures={"mse": Figure(mse, low, high)}, n_test=40)
    entries = [entry("a", 0.30, 0.05, 0.90), entry("b", 0.35, 0.25, 0.50), entry("c", 0.10, math.nan, math.nan),
               entry("d", math.nan, math.nan, math.nan)]
    assert [e.name for e in sorted(entries, key=model_scores._sort_key)] == ["b", "a", "c", "d"]
