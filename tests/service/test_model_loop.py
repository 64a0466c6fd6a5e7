"""The model in the loop, on SQLite and PostgreSQL: a run is refused with the reason when it cannot
be applied; the queue's hand-out orders (import, random, most uncertain first) keep blindness and
k; Review's "Model disagrees" list and its cases; the model's curve for a lead only."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, update

from annotation.flag_reasons import MODEL_DISAGREES
from annotation.services.model import model_jobs, model_loop
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.workbench import hand_out_order
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from db.models import DatasetExport, GoldAnnotation, Job, ModelPrediction, ReviewItem, Sample, utcnow
from annotation.wording import signed
from model_results import kept
from service_helpers import complete_content
import workbench_writes


def _sample_ids(db, pid: int) -> list[int]:
    with db.read() as s:
        return list(s.scalars(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id)))


def _export(db, pid: int, lead, tmp_path) -> int:
    with db.write() as s:
        e = DatasetExport(project_id=pid, created_by=lead.user_id, path=str(tmp_path / "export"), base=1.1, seed=1,
                          licence="cc-by-4.0", settings={}, splits={}, counts={}, status="complete")
        s.add(e)
        s.flush()
        return e.id


def _run(db, pid: int, export_id: int | None, tmp_path, *, status="succeeded", models=True) -> int:
    run_dir = tmp_path / f"run-{pid}-{export_id}-{status}-{models}"
    if models:
        (run_dir / "models" / "linear__none").mkdir(parents=True)
    with db.write() as s:
        j = Job(project_id=pid, kind="training", export_id=export_id, config={"benchmark": 1}, status=status,
                run_dir=str(run_dir))
        s.add(j)
        s.flush()
        return j.id


def _model_job(db, pid: int, kind: str, rows: dict[int, dict], *, verdict: str = "beats") -> int:
    """A finished job's predictions: ``miss`` the expected miss the queue orders by."""
    with db.write() as s:
        j = Job(project_id=pid, kind=kind, config={}, status="succeeded", started_at=utcnow(), finished_at=utcnow(),
                result=kept(verdict, len(rows)))
        s.add(j)
        s.flush()
        for sid, v in rows.items():
            s.add(ModelPrediction(job_id=j.id, sample_id=sid, xi=v.get("xi", 50.0), omega=8.0, alpha=0.0,
                                  spread_w1=v.get("spread", 1.0), half_gone_minutes=100.0, half_gone_low=50.0,
                                  half_gone_high=200.0, gold_w1=v.get("w1"), score=v.get("score"),
                                  expected_miss=v.get("miss", 1.0)))
        return j.id


def test_a_run_that_cannot_be_applied_is_refused_with_the_reason(db, lead, make_project, tmp_path):
    pid, other = make_project(3), make_project(3)
    export, foreign = _export(db, pid, lead, tmp_path), _export(db, other, lead, tmp_path)
    cases = [
        (_run(db, other, foreign, tmp_path), "belongs to another project"),
        (_run(db, pid, foreign, tmp_path), "export of training run .* belongs to another project"),
        (_run(db, pid, export, tmp_path, status="failed"), "is failed; only a finished run"),
        (_run(db, pid, export, tmp_path, models=False), "models of training run .* are missing"),
    ]
    for run_id, reason in cases:
        with pytest.raises(InvalidInput, match=reason):
            model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, start=False)
    with pytest.raises(NotFound):
        model_jobs.launch_model_job(db, lead, pid, 999_999, model_jobs.PREDICT, start=False)
    good = _run(db, pid, export, tmp_path)
    with pytest.raises(InvalidInput, match="ensemble members must be a whole number from 2 to 20"):
        model_jobs.launch_model_job(db, lead, pid, good, model_jobs.PREDICT, members=1, start=False)
    with pytest.raises(InvalidInput, match="An audit needs at least 20 gold samples"):
        model_jobs.launch_model_job(db, lead, pid, good, model_jobs.AUDIT, start=False)
    with db.read() as s:
        assert s.scalar(select(Job.id).where(Job.kind.in_(model_jobs.MODEL_KINDS))) is None  # nothing queued
    job = model_jobs.launch_model_job(db, lead, pid, good, model_jobs.PREDICT, members=3, start=False)
    assert (job.kind, job.status, job.config["run_job_id"], job.config["members"]) == ("predict", "queued", good, 3)


def test_an_annotator_cannot_apply_a_run(db, lead, make_user, make_project, tmp_path):
    pid = make_project(3)
    run_id = _run(db, pid, _export(db, pid, lead, tmp_path), tmp_path)
    with pytest.raises(PermissionDenied):
        model_jobs.launch_model_job(db, make_user("ann"), pid, run_id, model_jobs.PREDICT, start=False)


def _handed(db, users, pid: int, rounds: int) -> list[int]:
    order = []
    for _ in range(rounds):
        for u in users:
            item = queue.next_item(db, u, pid)
            if item is None:
                continue
            order.append(item.sample_id)
            workbench_writes.submit(db, u, item.annotation_id, item.version, complete_content())
    return order


def test_most_uncertain_first_follows_the_latest_applied_model_and_keeps_k_and_blindness(db, lead, make_user,
                                                                                       make_project):
    pid = make_project(8, hand_out_order="uncertain")
    ids = _sample_ids(db, pid)
    _model_job(db, pid, "predict", {sid: {"miss": float(i)} for i, sid in enumerate(ids)})  # an older one
    # the latest applied model predicted 6 of the 8: largest expected miss first (not the members'
    # spread, which hardly tracks the error), then the rest in import order
    _model_job(db, pid, "predict", {ids[1]: {"miss": 0.5, "spread": 9.0}, ids[3]: {"miss": 4.0},
                                    ids[5]: {"miss": 2.0}, ids[6]: {"miss": 3.0}, ids[2]: {"miss": 1.0},
                                    ids[7]: {"miss": 0.1}})
    a, b = make_user("ann_a"), make_user("ann_b")
    first = queue.next_item(db, a, pid)
    assert first.sample_id == ids[3]
    workbench_writes.submit(db, a, first.annotation_id, first.version, complete_content())
    assert queue.next_item(db, b, pid).sample_id == ids[3]  # k = 2: the second annotator gets it too
    order = [first.sample_id] + _handed(db, [a], pid, 7)
    assert order == [ids[3], ids[6], ids[5], ids[2], ids[1], ids[7], ids[0], ids[4]]
    assert queue.next_item(db, a, pid) is None  # never the same sample twice


@pytest.mark.parametrize("result", [kept("tied"), kept("worse"), {"n": 8}], ids=["tied", "worse", "before"])
def test_a_model_that_does_not_beat_the_reference_does_not_order_the_queue(db, lead, make_user, make_project, result):
    pid = make_project(6, hand_out_order="uncertain")
    ids = _sample_ids(db, pid)
    job = _model_job(db, pid, "predict", {sid: {"miss": float(10 - i)} for i, sid in enumerate(ids)})
    assert model_loop.uncertain_order_withheld(db, lead, pid) == ""
    assert queue.next_item(db, make_user("ann_0"), pid).sample_id == ids[0]   # the largest miss: its own
    with db.write() as s:
        s.get(Job, job).result = result          # the same predictions, a model that does not earn its place
    why = model_loop.uncertain_order_withheld(db, lead, pid)
    assert why.startswith(f"the latest predictions (job {job}) are not used: ")
    assert ("under cross-validation" in why) if "calibration" in result else ("apply the run again" in why)
    ann = make_user("ann")
    assert _handed(db, [ann], pid, 6) == ids       # import order, as if no model had been applied
    with pytest.raises(PermissionDenied):
        model_loop.uncertain_order_withheld(db, ann, pid)


def test_without_an_applied_model_uncertain_order_is_import_order(db, lead, make_user, make_project):
    pid = make_project(4, hand_out_order="uncertain")
    assert _handed(db, [make_user("ann")], pid, 4) == _sample_ids(db, pid)
    assert model_loop.uncertain_order_withheld(db, lead, pid).startswith("no model has been applied")


def test_random_order_hands_out_every_sample_once_and_not_in_import_order(db, make_user, make_project):
    pid = make_project(30, hand_out_order="random", annotators_per_sample=1)
    hand_out_order._rng.seed(5)
    users = [make_user("ann_a"), make_user("ann_b")]
    order = _handed(db, users, pid, 20)
    assert sorted(order) == _sample_ids(db, pid)  # each once (k = 1), none left out
    assert order != sorted(order)


def test_the_setting_is_checked():
    with pytest.raises(Exception, match="hand-out order must be one of: import, random, uncertain"):
        projects.ProjectSettings(hand_out_order="newest")


def test_model_disagrees_list_and_case(db, lead, make_user, make_project):
    pid = make_project(4)
    ids = _sample_ids(db, pid)
    with db.write() as s:
        for sid in ids[:3]:
            s.add(GoldAnnotation(sample_id=sid, boundaries=[0], segment_axes=[["main"]], xi=50.0, omega=8.0,
                                 alpha=0.0, source="auto", decided_at=utcnow()))
    assert model_loop.disagreements(db, lead, pid) is None  # no audit yet
    _model_job(db, pid, "audit", {ids[0]: {"w1": 1.0, "score": 0.5}, ids[1]: {"w1": 9.0, "score": 6.0, "xi": 70.0},
                                  ids[2]: {"w1": 4.0, "score": 2.0}})
    listed = model_loop.disagreements(db, lead, pid, top=2)
    assert listed.n_audited == 3
    assert [(e.rank, e.sample_id, e.score, e.gold_w1) for e in listed.entries] == [(1, ids[1], 6.0, 9.0),
                                                                                    (2, ids[2], 2.0, 4.0)]
    top = listed.entries[0]
    assert (top.gold, top.model, top.open_item_id) == ((50.0, 8.0, 0.0), (70.0, 8.0, 0.0), None)
    with pytest.raises(InvalidInput, match="from 1 to 200"):
        model_loop.disagreements(db, lead, pid, top=0)
    with pytest.raises(PermissionDenied):
        model_loop.disagreements(db, make_user("ann"), pid)
    item_id = model_loop.open_disagreement_case(db, lead, ids[1])
    assert model_loop.open_disagreement_case(db, lead, ids[1]) == item_id  # opening again: the same case
    with db.read() as s:
        item = s.get(ReviewItem, item_id)
        gold = s.scalar(select(GoldAnnotation).where(GoldAnnotation.sample_id == ids[1]))
    assert (item.status, item.reasons) == ("open", [MODEL_DISAGREES])
    assert item.details[0]["score"] == 6.0 and gold.xi == 50.0  # nothing changed but the open case
    assert model_loop.disagreements(db, lead, pid, top=1).entries[0].open_item_id == item_id
    with pytest.raises(InvalidInput, match="not in the latest audit"):
        model_loop.open_disagreement_case(db, lead, ids[3])
    assert not any(e.gold_changed for e in model_loop.disagreements(db, lead, pid).entries)
    with db.write() as s:  # a lead decides the gold again after the audit read it
        s.execute(update(GoldAnnotation).where(GoldAnnotation.sample_id == ids[2])
                  .values(xi=44.0, decided_at=utcnow()))
    changed = {e.sample_id: e.gold_changed for e in model_loop.disagreements(db, lead, pid).entries}
    assert changed == {ids[1]: False, ids[2]: True, ids[0]: False}
    # a later audit whose model does not beat the reference lists nothing, says why, opens nothing
    later = _model_job(db, pid, "audit", {ids[0]: {"w1": 9.0, "score": 7.0}}, verdict="tied")
    listed = model_loop.disagreements(db, lead, pid)
    assert (listed.job_id, listed.entries, listed.n_audited) == (later, (), 1)
    assert listed.withheld.startswith("its model is not told apart from the training mean curve")
    with pytest.raises(InvalidInput, match=f"The latest audit \\(job {later}\\) lists nothing: its model is not told"):
        model_loop.open_disagreement_case(db, lead, ids[0])


def test_the_models_curve_is_for_leads(db, lead, make_user, make_project):
    pid = make_project(2)
    ids = _sample_ids(db, pid)
    assert model_loop.model_curve(db, lead, ids[0]) is None
    job = _model_job(db, pid, "predict", {ids[0]: {"xi": 61.0, "spread": 2.5}})
    curve = model_loop.model_curve(db, lead, ids[0])
    assert (curve.job_id, curve.xi, curve.spread_w1) == (job, 61.0, 2.5)
    assert model_loop.model_curve(db, lead, ids[1]) is None
    with pytest.raises(PermissionDenied):
        model_loop.model_curve(db, make_user("ann"), ids[0])


def _cli(db, *args: str) -> tuple[int, str, str]:
    import contextlib
    import io
    import os

    import cli

    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.get("CHRONOCEPT_DATABASE_URL")
    os.environ["CHRONOCEPT_DATABASE_URL"] = db.engine.url.render_as_string(hide_password=False)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))
    finally:
        if saved is None:
            os.environ.pop("CHRONOCEPT_DATABASE_URL", None)
        else:
            os.environ["CHRONOCEPT_DATABASE_URL"] = saved
    return code, out.getvalue(), err.getvalue()


def test_chronocept_audit_prints_the_list_most_suspicious_first(db, lead, make_project, tmp_path):
    import json

    pid = make_project(3)
    ids = _sample_ids(db, pid)
    code, _, err = _cli(db, "audit", "--user", "lead1")
    assert (code, err) == (1, "chronocept: no audit yet: run one with --run RUN_DIR, or from the Training page\n")
    code, _, err = _cli(db, "predict", str(tmp_path / "nowhere"), "--user", "lead1")
    assert code == 1 and "is not the folder of a training run of this project" in err
    with db.write() as s:
        for sid in ids:
            s.add(GoldAnnotation(sample_id=sid, boundaries=[0], segment_axes=[["main"]], xi=50.0, omega=8.0,
                                 alpha=0.0, source="auto", decided_at=utcnow()))
    _model_job(db, pid, "audit", {ids[0]: {"w1": 2.0, "score": 1.5}, ids[2]: {"w1": 12.0, "score": 8.25}})
    code, out, _ = _cli(db, "audit", "--user", "lead1", "--top", "5")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("audit job ") and "the 2 most suspicious of 2 gold samples" in lines[0]
    assert lines[1].startswith("cross-validated in 5 folds: beats the training mean curve")
    assert [line.split()[-1] for line in lines[3:]] == ["S-002", "S-000"]
    code, out, _ = _cli(db, "audit", "--user", "lead1", "--json")
    got = json.loads(out)
    assert [(r["rank"], r["sample"], r["score"], r["w1"]) for r in got["samples"]] == [(1, "S-002", 8.25, 12.0),
                                                                                      (2, "S-000", 1.5, 2.0)]
    assert got["withheld"] == "" and got["calibration"]["comparison"]["verdict"] == "beats"
    _model_job(db, pid, "audit", {ids[0]: {"w1": 2.0, "score": 1.5}}, verdict="worse")
    code, out, _ = _cli(db, "audit", "--user", "lead1")
    assert code == 0 and out.startswith("audit job ") and "lists nothing: its model is worse than" in out
    code, _, err = _cli(db, "audit", "--user", "lead1", "--top", "0")
    assert code == 1 and err == "chronocept: The list shows from 1 to 200 samples.\n"


QUICK = {"models": ["mean", "linear"], "encoder": "hashing", "ablations": ["none"]}


def _trained(db, lead, tmp_path, monkeypatch, *, n: int, learnable: bool) -> tuple[int, int]:
    from annotation.services.export import exports
    from annotation.services.jobs import jobs
    from db import config as app_config
    from gold_data import gold_project

    monkeypatch.setenv("CHRONOCEPT_RUNS_DIR", str(tmp_path / "runs"))
    app_config.load()
    pid = gold_project(db, lead, n=n, learnable=learnable)
    rec = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3, include_agreement=False)
    run = jobs.launch_training(db, lead, pid, rec.id, QUICK, start=False)
    assert jobs.run_job(db, run.id) == "succeeded"
    return pid, run.id


@pytest.fixture
def trained(db, lead, tmp_path, monkeypatch):
    """A gold project whose words do not tell its curves, its export and a finished quick
    training run (the hashing encoder)."""
    return _trained(db, lead, tmp_path, monkeypatch, n=45, learnable=False)


@pytest.fixture
def learnt(db, lead, tmp_path, monkeypatch):
    """As ``trained``, on texts whose words set the curve (a model of them beats the mean curve)."""
    return _trained(db, lead, tmp_path, monkeypatch, n=90, learnable=True)


def _apply(db, lead, pid: int, run_id: int, kind: str):
    from annotation.services.jobs import jobs

    job = model_jobs.launch_model_job(db, lead, pid, run_id, kind, members=3, folds=3, start=False)
    assert jobs.run_job(db, job.id) == "succeeded", jobs.get_job(db, lead, job.id).log
    return jobs.get_job(db, lead, job.id)


def test_a_run_applied_predicts_every_sample_and_audits_the_gold(db, lead, make_user, learnt):
    pid, run_id = learnt
    done = _apply(db, lead, pid, run_id, model_jobs.PREDICT)
    with db.read() as s:
        n_samples = s.scalar(select(func.count()).select_from(Sample).where(Sample.project_id == pid,
                                                                           Sample.status == "active"))
        rows = list(s.scalars(select(ModelPrediction).where(ModelPrediction.job_id == done.id)))
    assert len(rows) == n_samples  # every active sample, texts not yet annotated included
    assert all(r.spread_w1 >= 0 and r.half_gone_low <= r.half_gone_minutes <= r.half_gone_high for r in rows)
    assert all(r.expected_miss is not None and r.expected_miss >= 0.5 for r in rows)   # the calibrated uncertainty
    assert "Predicted" in done.message
    kept = done.result
    assert kept["cross_validated"] >= 40 and kept["folds"] == 3
    assert kept["calibration"]["comparison"]["verdict"] == "beats"       # the words tell the unit of time
    assert 0 < kept["calibration"]["coverage"] <= 1 and kept["calibration"]["level"] == 0.9
    rho = kept["calibration"]["spearman"]   # 60 training samples: the expected miss may be nearly constant
    assert model_loop.uncertain_order_withheld(db, lead, pid) == ("" if rho is not None and rho >= 0.3 else
        f"the latest predictions (job {done.id}) are not used: its expected miss does not track the error "
        f"(Spearman ρ {'—' if rho is None else signed(rho)} < 0.3 on {kept['cross_validated']} cross-fitted samples)")
    assert kept["calibration"]["coverage_interval"][0] <= kept["calibration"]["coverage"]

    audit_job = _apply(db, lead, pid, run_id, model_jobs.AUDIT)
    listed = model_loop.disagreements(db, lead, pid, top=5)
    assert (listed.job_id, listed.n_audited, listed.withheld) == (audit_job.id, 90, "")
    scores = [e.score for e in listed.entries]
    assert len(scores) == 5 and scores == sorted(scores, reverse=True) and all(s >= 0 for s in scores)
    assert all(e.half_gone_interval[0] <= e.half_gone_minutes <= e.half_gone_interval[1] for e in listed.entries)


def test_a_model_that_learnt_nothing_neither_lists_nor_orders(db, lead, trained):
    pid, run_id = trained
    done = _apply(db, lead, pid, run_id, model_jobs.PREDICT)
    assert done.result["calibration"]["comparison"]["verdict"] != "beats"
    assert "under cross-validation" in model_loop.uncertain_order_withheld(db, lead, pid)
    _apply(db, lead, pid, run_id, model_jobs.AUDIT)
    listed = model_loop.disagreements(db, lead, pid)
    assert listed.entries == () and listed.n_audited == 45
    assert listed.withheld.startswith("its model is ") and "training mean curve" in listed.withheld


def test_a_run_whose_models_vanished_fails_the_job_with_the_reason(db, lead, trained):
    import shutil

    from annotation.services.jobs import jobs

    pid, run_id = trained
    job = model_jobs.launch_model_job(db, lead, pid, run_id, model_jobs.PREDICT, members=2, start=False)
    shutil.rmtree(jobs.get_job(db, lead, run_id).run_dir)  # the run folder went away meanwhile
    assert jobs.run_job(db, job.id) == "failed"
    done = jobs.get_job(db, lead, job.id)
    assert "\n" not in done.message and done.message
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(ModelPrediction).where(ModelPrediction.job_id == job.id)) == 0


@pytest.mark.parametrize("order", ["random", "uncertain"])
def test_every_order_keeps_the_daily_quota(db, make_user, make_project, order):
    pid = make_project(6, hand_out_order=order, daily_quota=2)
    if order == "uncertain":
        _model_job(db, pid, "predict", {sid: {"miss": float(i)} for i, sid in enumerate(_sample_ids(db, pid))})
    ann = make_user("ann")
    assert len(_handed(db, [ann], pid, 5)) == 2  # the quota, whatever the order
    assert queue.next_item(db, ann, pid) is None
