"""The model in the loop on the pages: Review's "Model disagrees" list opens a normal review case
for the sample it names; the model's curve on a case only when the project allows it and the lead
switches it on; the Projects page's hand-out order; and no anchoring — an annotator's pages show
no model, prediction, spread or audit anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from db.models import GoldAnnotation, Job, ModelPrediction, ReviewItem, Sample, utcnow
from ui.display import plain
from model_results import kept
from page_helpers import SPLIT_A, SPLIT_B, annotate, errors, markdown_text, run, shown, text_records

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Loop project")
    text_imports.import_texts(db, lead, p.id, text_records(4))
    return p


def _ids(db, pid: int) -> list[tuple[int, str]]:
    with db.read() as s:
        return list(s.execute(select(Sample.id, Sample.external_id).where(Sample.project_id == pid)
                              .order_by(Sample.id)).all())


def _job(db, pid: int, kind: str, rows: dict[int, tuple[float, float | None]], *, verdict: str = "beats",
         run_job_id: int = 1) -> int:
    """A finished job of ``kind`` with a prediction per sample: (expected miss, score)."""
    with db.write() as s:
        j = Job(project_id=pid, kind=kind, config={"run_job_id": run_job_id, "members": 5, "folds": 5},
                status="succeeded", finished_at=utcnow(), result=kept(verdict, len(rows)))
        s.add(j)
        s.flush()
        for sid, (miss, score) in rows.items():
            s.add(ModelPrediction(job_id=j.id, sample_id=sid, xi=72.0, omega=9.0, alpha=1.0, spread_w1=1.0,
                                  half_gone_minutes=600.0, half_gone_low=300.0, half_gone_high=900.0,
                                  gold_w1=None if score is None else 8.0, score=score, expected_miss=miss))
        return j.id


def captions(at) -> list[str]:
    """The page's captions as a reader sees them (escapes taken out)."""
    return [shown(str(c.value)) for c in at.caption]


def _gold(db, sample_ids):
    with db.write() as s:
        for sid in sample_ids:
            s.add(GoldAnnotation(sample_id=sid, boundaries=[0], segment_axes=[["main"]], xi=50.0, omega=8.0,
                                 alpha=0.0, source="auto", decided_at=utcnow()))


def _open(make_app, actor, page):
    at = run(make_app(actor))
    at.switch_page(page)
    return run(at)


def test_model_disagrees_opens_the_case_of_the_sample_it_names(db, lead, project, make_app):
    (s0, e0), (s1, e1), (s2, _), _ = _ids(db, project.id)
    _gold(db, [s0, s1, s2])
    _job(db, project.id, "audit", {s0: (1.0, 2.0), s1: (0.5, 9.0), s2: (2.0, 1.0)})
    with db.write() as s:  # the queue holds another case (its filters are on the page)
        s.add(ReviewItem(sample_id=s2, reasons=["daily_review"], status="open", opened_at=utcnow()))
    at = _open(make_app, lead, "screens/review.py")
    assert [e.label for e in at.expander][0].startswith("Model disagrees · 3 gold samples of 3 audited")
    assert [b.label for b in at.button if b.key and b.key.startswith("review.model.open.")] == [
        "Open its review case", "Open its review case", "Open its open review case"]
    text = markdown_text(at)
    assert text.index(f"**1. {plain(e1)}**") < text.index(f"**2. {plain(e0)}**")  # most suspicious first
    # the score is not W1 over the expected miss (W1 8 · expected miss 0.5 · score 9): the panel says
    # what it is; the cross-validation reads as a sentence of its own
    said = captions(at)
    assert [c for c in said if "The score is the larger of the two, each divided by its 95th percentile" in c]
    assert [c for c in said if c.startswith("Cross-validated in ") and c.endswith(".")]
    # a filter that leaves the case out of the queue is set back: the case named opens, no other
    at.selectbox(key="review.filter.reason").set_value("xi_deviation")
    at = run(at)
    at.button(key=next(b.key for b in at.button if b.key and b.key.endswith(f".{s1}"))).click()
    at = run(at)
    assert at.selectbox(key="review.filter.reason").value == "__all__"
    assert f"### Sample {plain(e1)}" in markdown_text(at)
    with db.read() as s:
        item = s.scalar(select(ReviewItem).where(ReviewItem.sample_id == s1))
    assert item.status == "open" and item.reasons == ["model_disagrees"]
    assert not at.exception


def test_an_audit_whose_model_does_not_beat_the_reference_lists_nothing_and_says_why(db, lead, project, make_app):
    (s0, _), (s1, _), _, _ = _ids(db, project.id)
    _gold(db, [s0, s1])
    job = _job(db, project.id, "audit", {s0: (1.0, 2.0), s1: (0.5, 9.0)}, verdict="tied")
    at = _open(make_app, lead, "screens/review.py")
    assert [e.label for e in at.expander][0] == f"Model disagrees · nothing listed (audit job {job})"
    assert not [b for b in at.button if b.key and b.key.startswith("review.model.open.")]
    [said] = [c for c in captions(at) if c.startswith("The latest audit lists nothing: its model is not told apart "
                                                       "from the training mean curve")]
    assert ". Cross-validated in " in said and said.endswith(".")  # not ". cross-validated …" run on
    assert not at.exception


def test_the_models_curve_is_off_unless_the_project_allows_it(db, lead, pair, project, make_app):
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    item = annotate(db, b, project.id, **SPLIT_B)
    _job(db, project.id, "predict", {item.sample_id: (1.5, None)})
    at = _open(make_app, lead, "screens/review.py")
    assert not [t for t in at.toggle if t.label == "Show the model's curve"]
    projects.update_settings(db, lead, project.id, show_model_curve=True)
    at = _open(make_app, lead, "screens/review.py")
    [toggle] = [t for t in at.toggle if t.label == "Show the model's curve"]
    assert toggle.value is False  # off by default even where allowed
    toggle.set_value(True)
    at = run(at)
    assert not at.exception and "No applied model has predicted this sample." not in markdown_text(at)


def test_the_hand_out_order_is_a_project_setting(db, lead, project, make_app):
    at = _open(make_app, lead, "screens/projects.py")
    box = next(s for s in at.selectbox if s.label == "Hand out the next sample")
    assert box.value == "import"
    box.set_value("uncertain")
    next(b for b in at.button if b.label.startswith("Save settings of")).click()
    at = run(at)
    assert projects.get_project(db, lead, project.id).settings.hand_out_order == "uncertain"
    # no model applied: the page says the order is not in effect, and why; a model that beats
    # the reference puts it in effect; one that does not, takes it out again
    said = [c for c in captions(at) if c.startswith("Most uncertain first is not in effect")]
    assert said == ["Most uncertain first is not in effect, samples go out in import order: no model has been "
                    "applied to this project yet (Training page: Predict every sample)."]
    ids = [sid for sid, _ in _ids(db, project.id)]
    _job(db, project.id, "predict", {sid: (1.0, None) for sid in ids})
    at = _open(make_app, lead, "screens/projects.py")
    assert not [c for c in captions(at) if c.startswith("Most uncertain first is not in effect")]
    job = _job(db, project.id, "predict", {sid: (1.0, None) for sid in ids}, verdict="tied")
    at = _open(make_app, lead, "screens/projects.py")
    [said] = [c for c in captions(at) if c.startswith("Most uncertain first is not in effect")]
    assert f"the latest predictions (job {job}) are not used: its model is not told apart" in said


ANNOTATOR_PAGES = ("screens/queue.py", "screens/workbench.py", "screens/feedback.py", "screens/guidelines.py",
                   "screens/account.py")
#: What the model's pages say (the guidelines say "spread" and "predictions" of other things)
MODEL_WORDS = ("model", "predicted", "uncertain", "audit", "ensemble", "disagrees", "mean w1")


def test_no_anchoring_an_annotator_sees_no_model_anywhere(db, lead, ann, project, make_app):
    ids = [sid for sid, _ in _ids(db, project.id)]
    _gold(db, ids[:2])
    projects.update_settings(db, lead, project.id, hand_out_order="uncertain", show_model_curve=True)
    _job(db, project.id, "predict", {sid: (float(i), None) for i, sid in enumerate(ids)})
    _job(db, project.id, "audit", {sid: (1.0, 5.0) for sid in ids[:2]})
    for page in ANNOTATOR_PAGES:
        at = _open(make_app, ann, page)
        if page == "screens/workbench.py":
            start = [b for b in at.button if b.label == "Start the next sample"]
            if start:
                start[0].click()
                at = run(at)
        shown = " ".join([markdown_text(at), *(str(e.value) for e in at.caption), *(str(e.label) for e in at.button),
                          *(str(e.label) for e in at.expander), *(str(e.label) for e in at.toggle)]).lower()
        assert not [w for w in MODEL_WORDS if w in shown], (page, [w for w in MODEL_WORDS if w in shown])
        assert not at.exception


def test_no_annotator_code_path_reads_a_model():
    """The annotator's screens and the workbench's view and services never import the model's."""
    annotator_side = [ROOT / "screens" / f"{n}.py" for n in ("queue", "workbench", "feedback", "guidelines", "account")]
    annotator_side += [ROOT / "ui" / "workbench_view.py", ROOT / "annotation" / "services" / "workbench" / "workbench_events.py",
                       ROOT / "annotation" / "services" / "workbench" / "submission.py",
                       ROOT / "annotation" / "services" / "quality" / "feedback.py"]
    for path in annotator_side:
        text = path.read_text(encoding="utf-8")
        assert "model_loop" not in text and "model_jobs" not in text and "ModelPrediction" not in text, path.name


def _finished_run(db, pid: int, tmp_path) -> int:
    """A finished training run of the project, its export and its models' folder; its job's id."""
    from db.models import DatasetExport

    run_dir = tmp_path / "run"
    (run_dir / "models" / "linear__none").mkdir(parents=True)
    with db.write() as s:
        export = DatasetExport(project_id=pid, path=str(tmp_path / "export"), base=1.1, seed=1,
                               licence="cc-by-4.0", settings={}, splits={}, counts={}, status="complete")
        s.add(export)
        s.flush()
        trained = Job(project_id=pid, kind="training", export_id=export.id, config={"models": ["linear"]},
                      status="succeeded", run_dir=str(run_dir), result={"rows": []}, finished_at=utcnow())
        s.add(trained)
        s.flush()
        return trained.id


def test_applying_a_run_launches_the_job_and_shows_it(db, lead, project, make_app, tmp_path, monkeypatch):
    """Training: a finished run's Predict every sample launches its job, and the page shows the
    launched job below the run's controls — the Run box stays on the run, so Audit the gold is
    still there (it used to switch to the predict job and hide it)."""
    from annotation.services.jobs import jobs

    monkeypatch.setattr(jobs, "_start_worker", lambda db, job_id, launcher: None)  # queued only
    ids = [sid for sid, _ in _ids(db, project.id)]
    run_id = _finished_run(db, project.id, tmp_path)
    at = _open(make_app, lead, "screens/training.py")
    assert "Apply this run to the project" in markdown_text(at)
    next(b for b in at.button if b.label == "Predict every sample").click()
    at = run(at)
    assert not at.exception
    with db.read() as s:
        launched = s.scalar(select(Job).where(Job.kind == "predict"))
    assert (launched.status, launched.config["run_job_id"], launched.config["members"]) == ("queued", run_id, 5)
    assert at.session_state["training.job"] == run_id
    assert [b.label for b in at.button if b.label in ("Predict every sample", "Audit the gold")] == [
        "Predict every sample", "Audit the gold"]
    assert f"**Predictions with run {run_id}** · job {launched.id}" in markdown_text(at)
    # and the audit is one click away (this project has no gold to audit: the service says so)
    next(b for b in at.button if b.label == "Audit the gold").click()
    at = run(at)
    assert [e for e in errors(at) if e.startswith("An audit needs at least 20 gold samples")]
    assert at.session_state["training.job"] == run_id
    assert len(ids) == 4


def test_the_training_page_says_what_the_cross_validation_found_and_whether_the_model_is_used(
        db, lead, project, make_app, tmp_path):
    run_id = _finished_run(db, project.id, tmp_path)
    ids = [sid for sid, _ in _ids(db, project.id)]
    _job(db, project.id, "predict", {sid: (1.0, None) for sid in ids}, verdict="tied", run_job_id=run_id)
    at = _open(make_app, lead, "screens/training.py")
    said = captions(at)
    assert [c for c in said if c.startswith("Cross-validated in 5 folds: not told apart from the training mean curve "
                                            "(ΔMSE −0.050 [−0.200, 0.100], n = 4); 90 % intervals on the half-gone "
                                            "time cover 88.0 % [")], said
    warnings = [shown(str(w.value)) for w in at.warning]
    assert [w for w in warnings if w.startswith("Not used: its model is not told apart from the training mean curve")]
    assert not at.exception
