"""Baseline training page (lead): launch a real worker, watch it, results, cancel, failures."""

from __future__ import annotations

import socket

import pytest

import annotation.training as training
from annotation.services.export import exports
from annotation.services.jobs import jobs
from db import config as app_config
from db.models import Job, utcnow
from gold_data import gold_project
from gone_processes import pid_of_no_process
from page_helpers import errors, infos, run, shown, titles

QUICK = {"models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}


@pytest.fixture
def exported(db, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()  # read again, as a restarted process would
    pid = gold_project(db, lead, n=45)  # benchmark 1: 30 samples, test split 3 (the least training takes)
    return pid, exports.export_dataset(db, lead, pid, tmp_path / "export", seed=2, include_agreement=False).id


def open_page(make_app, actor):
    at = run(make_app(actor))
    at.switch_page("screens/training.py")
    return run(at)


def test_without_export_the_page_says_what_to_do(make_app, db, lead):
    gold_project(db, lead, n=6)
    at = open_page(make_app, lead)
    assert titles(at) == ["Baseline training"]
    assert infos(at) == ["No export yet: make one on the **Export dataset** page first."]


def test_launch_runs_a_worker_and_shows_its_results(make_app, db, lead, exported):
    at = open_page(make_app, lead)
    at.multiselect(key="training.models").set_value(["mean", "linear"])
    at.selectbox(key="training.encoder").set_value("hashing")
    at.button(key="FormSubmitter:training.launch-Launch training").click()
    run(at)
    (job,) = jobs.list_jobs(db, lead, exported[0])
    assert job.config["models"] == ["mean", "linear"] and job.config["encoder"] == "hashing"
    assert jobs.wait_for(db, job.id, 120) == "succeeded", jobs.get_job(db, lead, job.id).log
    run(at)
    assert not errors(at)
    assert any("**Succeeded**" in m.value for m in at.markdown)
    table = at.dataframe[0].value
    # the trivial references follow the models, and each model says how it reads against them
    assert list(table["model"]) == ["Mean (reference)", "Linear regression", "Reference: training mean curve",
                                    "Reference: per-axis mean"]
    assert list(table["inputs"])[2:] == ["no text", "no text"]
    assert {"MSE", "MAE", "R²", "Spearman ρ", "NLL", "Curve NLL", "Curve CRPS", "MSE 95 % interval",
            "against the references"} <= set(table.columns)
    assert list(table["against the references"])[2:] == ["—", "—"]
    n_test = jobs.get_job(db, lead, job.id).result["split_sizes"]["test"]
    assert list(table["against the references"])[0] == (
        "not compared (fewer than 10 test samples)" if n_test < 10 else list(table["against the references"])[0])
    # a test split under 30 samples ranks nothing, and the page says why and what it would need
    assert n_test < 30 and any(
        shown(m.value).startswith(f"Not ranked: the test split has {n_test} samples; ranking models needs ≥ 30 test "
                           "samples") for m in at.markdown)
    # the mean model predicts one value (and these gold texts are annotated alike): ρ is undefined,
    # shown "—" with the reason, never "None" or NaN
    assert list(table["Spearman ρ"])[0] == "—"
    assert "None" not in table.to_string() and "nan" not in table.to_string()
    assert any(c.value.startswith(f"— R² needs ≥ 30 test samples (n = {n_test}); Spearman ρ needs ≥ 30 test "
                                  f"samples (n = {n_test})") for c in at.caption)
    assert set(table["R²"]) == {"—"} and list(table["n (test)"])[0] == n_test
    assert len(at.get("plotly_chart")) == 1  # predicted vs gold, a panel per parameter (no NN: no loss chart)


def test_a_crashed_job_is_shown_failed_with_its_log(make_app, db, lead, exported, monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("the GPU fell off the bus")

    monkeypatch.setattr(training, "run_training", crash)
    job = jobs.launch_training(db, lead, exported[0], exported[1], QUICK, start=False)
    jobs.run_job(db, job.id)
    at = open_page(make_app, lead)
    # the job's message is shown literally (escaped Markdown), so compare what is read
    assert any("**Failed** — RuntimeError: the GPU fell off the bus" in shown(m.value) for m in at.markdown)
    assert any("Traceback" in c.value for c in at.code)
    assert not at.dataframe


def test_cancel_from_the_page(make_app, db, lead, exported):
    job = jobs.launch_training(db, lead, exported[0], exported[1], QUICK, start=False)
    at = open_page(make_app, lead)
    at.button(key=f"training.cancel.{job.id}").click()
    run(at)
    assert jobs.get_job(db, lead, job.id).status == "cancelled"


def test_two_finished_runs_side_by_side(make_app, db, lead, exported):
    for _ in range(2):
        job = jobs.launch_training(db, lead, exported[0], exported[1], QUICK, start=False)
        assert jobs.run_job(db, job.id) == "succeeded"
    at = open_page(make_app, lead)
    side = next(df.value for df in at.dataframe if "job" in df.value.columns)  # not the leaderboard
    assert list(side["job"]) == [2, 2, 2, 2, 1, 1, 1, 1]   # each run's two models and two references
    # the run's caption says its split sizes in words, not as a Python dict
    (line,) = [c.value for c in at.caption if c.value.startswith("Benchmark 1 · encoder hashing")]
    sizes = jobs.get_job(db, lead, job.id).result["split_sizes"]
    assert f"samples: train {sizes['train']}, validation {sizes['validation']}, test {sizes['test']} · " in line
    assert "{'train'" not in line


def test_a_pairs_project_is_not_offered_training_on_its_tvcp_export(make_app, db, lead, tmp_path):
    from annotation.services.export import exports
    from pair_gold_data import pair_gold_project

    pid = pair_gold_project(db, lead, n_targets=20)
    exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3)
    at = open_page(make_app, lead)
    assert "The baselines train on a single-texts export" in " ".join(infos(at))
    assert not [b for b in at.button if b.label == "Launch training"]


def test_a_job_whose_worker_died_reads_failed_on_opening_the_page(make_app, db, lead, exported):
    """Nobody has to open the job: its worker (this host's process) is gone, so the page lists it
    failed with the reason from its first run."""
    job = jobs.launch_training(db, lead, exported[0], exported[1], QUICK, start=False)
    gone = pid_of_no_process()
    with db.write() as s:
        row = s.get(Job, job.id)
        row.status, row.pid, row.host, row.heartbeat_at = "running", gone, socket.gethostname(), utcnow()
    at = open_page(make_app, lead)
    assert any(f"**Failed** — The worker stopped without finishing: its process (pid {gone} " in shown(m.value)
               for m in at.markdown)
