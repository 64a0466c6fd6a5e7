"""Scoring any model's test-split predictions: hand values, undefined figures, the bootstrap, the
same metrics as a real training run, and every refused file (one line, its line number)."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

import numpy as np
import pytest
from scipy import stats

from annotation.agreement.intervals import DEFAULT_SEED, resample_counts
from annotation.training import TrainingConfig, load_run, run_training, write_synthetic_export
from annotation.training.errors import ExportNotFoundError, NotEnoughSamplesError
from annotation.training.metrics import point_metrics
from annotation.training.results import UNDEFINED_REASONS
from annotation.training.results import metric_withheld
from annotation.training.scoring import (
    MIN_INTERVAL_SAMPLES,
    NO_INTERVAL_FEW,
    SCORE_METRICS,
    Figure,
    ModelScore,
    per_sample_w1,
    point_statistics,
    resampled_spearman,
    score_predictions,
)
from annotation.training.submissions import (
    MAX_PREDICTION_BYTES,
    MAX_PREDICTION_LINES,
    PredictionFileError,
    read_submissions,
    score_export,
    submission_record,
    write_submission,
)

RNG = np.random.default_rng(11)
N = 40
GOLD = np.column_stack([RNG.uniform(30, 120, N), RNG.uniform(4, 20, N), RNG.normal(0, 1.5, N)])
TRAIN = np.column_stack([RNG.uniform(30, 120, 200), RNG.uniform(3, 20, 200), RNG.normal(0, 1.5, 200)])


def test_perfect_predictions():
    score = score_predictions(GOLD, GOLD, TRAIN)
    f = score.figures
    assert f["mse"].value == 0 and f["mae"].value == 0 and f["w1"].value == 0
    assert f["r2"].value == 1 and f["spearman"].value == pytest.approx(1)
    assert f["curve_crps"].value == pytest.approx(0, abs=1e-12)
    # the cross-entropy of a curve with itself is its entropy
    entropy = np.mean([stats.skewnorm.entropy(a, loc=x, scale=w) for x, w, a in GOLD])
    assert f["curve_nll"].value == pytest.approx(entropy, rel=1e-6)
    assert (f["mse"].low, f["mse"].high) == (0, 0) and (f["w1"].low, f["w1"].high) == (0, 0)
    assert all(fig.undefined is None and fig.no_interval is None for fig in f.values())
    assert score.n_test == N and score.resamples == 1000 and score.seed == DEFAULT_SEED


def test_a_constant_prediction_of_the_mean():
    # trained on the test split itself, the z-scores have mean 0 and SD 1 in every column, so
    # predicting the mean gives MSE 1 and R² 0 per column; ρ is undefined (constant prediction)
    score = score_predictions(GOLD, np.tile(GOLD.mean(axis=0), (N, 1)), GOLD)
    f = score.figures
    assert f["mse"].value == pytest.approx(1.0)
    assert f["r2"].value == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(f["spearman"].value) and f["spearman"].undefined == UNDEFINED_REASONS["spearman"]
    assert f["spearman"].no_interval == "no interval for an undefined figure"
    assert f["mse"].low < 1.0 < f["mse"].high
    z = (GOLD - GOLD.mean(axis=0)) / GOLD.std(axis=0)
    assert f["mae"].value == pytest.approx(np.abs(z).mean())


def test_figures_the_data_cannot_support_are_undefined_with_the_reason():
    two = score_predictions(GOLD[:2], GOLD[:2] + 1, TRAIN)
    for name in ("r2", "spearman"):   # the rule withholds them before they are undefined
        assert math.isnan(two.figures[name].value) and two.figures[name].undefined == "needs ≥ 30 test samples (n = 2)"
    assert math.isfinite(two.figures["mse"].value) and two.figures["mse"].no_interval == NO_INTERVAL_FEW
    # gold without spread in one column: R² is undefined, not −2e28
    flat = GOLD.copy()
    flat[:, 1] = 8.0
    score = score_predictions(flat, flat + RNG.normal(0, 0.5, flat.shape), TRAIN)
    assert math.isnan(score.figures["r2"].value)
    assert score.figures["r2"].undefined == UNDEFINED_REASONS["r2"]
    assert math.isfinite(score.figures["spearman"].value) is False  # a constant gold column: ρ too
    few = score_predictions(GOLD[:MIN_INTERVAL_SAMPLES - 1], GOLD[:MIN_INTERVAL_SAMPLES - 1] + 1, TRAIN)
    assert all(f.no_interval == NO_INTERVAL_FEW for f in few.figures.values() if math.isfinite(f.value))
    assert all(math.isnan(f.low) for f in few.figures.values())


def test_the_bootstrap_is_seeded_and_its_sums_agree_with_the_metrics():
    pred = GOLD + RNG.normal(0, 3, GOLD.shape) * [1, 0.3, 0.2]
    a, b = score_predictions(GOLD, pred, TRAIN), score_predictions(GOLD, pred, TRAIN)
    assert a == b
    other = score_predictions(GOLD, pred, TRAIN, seed=1)
    assert other.figures["mse"].low != a.figures["mse"].low
    for name in SCORE_METRICS:
        f = a.figures[name]
        assert f.low <= f.value <= f.high, name
    z_true = (GOLD - TRAIN.mean(axis=0)) / TRAIN.std(axis=0)
    z_pred = (pred - TRAIN.mean(axis=0)) / TRAIN.std(axis=0)
    metrics = point_metrics(z_true, z_pred)
    for name, statistic in point_statistics(z_true, z_pred).items():
        assert statistic.value() == pytest.approx(getattr(metrics, name), rel=1e-9), name
    # a JSON round trip keeps every figure
    assert ModelScore.from_dict(json.loads(json.dumps(a.to_dict()))) == a


def test_resampled_spearman_is_scipy_on_the_resample():
    t, p = np.round(RNG.normal(size=25), 1), np.round(RNG.normal(size=25), 1)  # with ties
    counts = resample_counts(np.random.default_rng(3), 25, 30)
    rho = resampled_spearman(t, p, counts)
    for row, value in zip(counts, rho):
        drawn = np.repeat(np.arange(25), row.astype(int))
        assert value == pytest.approx(stats.spearmanr(t[drawn], p[drawn]).statistic, abs=1e-12)


def test_w1_is_in_the_exports_base():
    gold = np.array([[50.0, 10.0, 0.0], [80.0, 6.0, 2.0]])
    pred = gold + [[4.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    factor = math.log(1.1) / math.log(2.0)
    in_two = per_sample_w1(gold * [factor, factor, 1], pred * [factor, factor, 1], base=2.0)
    assert in_two == pytest.approx(per_sample_w1(gold, pred) * factor)
    assert per_sample_w1(gold, pred)[0] == pytest.approx(4.0, abs=1e-3)   # on the 0.5-unit grid


@pytest.mark.slow
def test_the_scores_of_a_training_runs_predictions_are_its_metrics(tmp_path):
    """The run's own predictions file through the scorer gives the run's metrics.json rows."""
    import torch

    torch.set_num_threads(1)
    export = write_synthetic_export(tmp_path / "export", 150, seed=3)
    run_training(export, tmp_path / "run", TrainingConfig(models=("mean", "linear"), ablations=("none", "no_axes"),
                                                          encoder="hashing", seed=7))
    run = load_run(tmp_path / "run")
    assert len(run.rows) == 4
    for row in run.rows:
        path = tmp_path / "run" / row.artefacts["predictions"]
        scored = score_export(export, path.read_bytes(), path.name)
        assert scored.score.n_test == row.n_test == 15
        assert scored.score.n_scale_clipped == row.n_scale_clipped
        for name, value in row.metrics().items():
            got = scored.score.figures[name].value
            if metric_withheld(name, row.n_test):   # R² and ρ on 15 test samples: withheld by the rule
                assert math.isnan(got) and scored.score.figures[name].undefined == "needs ≥ 30 test samples (n = 15)"
            elif math.isnan(value):   # the mean model's ρ: undefined in both
                assert math.isnan(got) and scored.score.figures[name].undefined == UNDEFINED_REASONS[name]
            else:
                assert got == pytest.approx(value, rel=1e-9, abs=1e-12), (row.model, row.ablation, name)
        for parameter, figures in row.per_parameter.items():
            for key, value in figures.items():
                assert scored.score.per_parameter[parameter][key] == pytest.approx(value, rel=1e-9, nan_ok=True)


# --------------------------------------------------------------------------- refused files


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return write_synthetic_export(tmp_path_factory.mktemp("score") / "export", 60, seed=5)


def _test_rows(export):
    return [json.loads(line) for line in (export / "benchmark_1" / "test.json").read_text().splitlines()]


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _good(export) -> list[dict]:
    return [{"_id": r["_id"], "xi": r["target_values"]["location"] + 1.0,
             "omega": r["target_values"]["scale"], "alpha": r["target_values"]["skewness"]}
            for r in _test_rows(export)]


def test_a_good_file_in_either_format_scores_alike(export):
    rows = _good(export)
    as_jsonl = score_export(export, _jsonl(rows), "p.jsonl").score
    csv_text = "_id,xi,omega,alpha\n" + "".join(f"{r['_id']},{r['xi']!r},{r['omega']!r},{r['alpha']!r}\n"
                                                 for r in reversed(rows))
    as_csv = score_export(export, csv_text.encode(), "p.CSV").score
    assert as_jsonl == as_csv and as_jsonl.n_test == 6
    # every ξ one unit late: W1 1, a little less where a curve's tail runs off the axis
    assert 0.9 < as_jsonl.figures["w1"].value <= 1.0 + 1e-3


def _refusal(export, data: bytes, name: str = "p.jsonl") -> PredictionFileError:
    with pytest.raises(PredictionFileError) as caught:
        score_export(export, data, name)
    message = str(caught.value)
    assert "\n" not in message and message
    assert not (export / "scores").exists()
    return caught.value


def _with(rows, index, **changes):
    out = [dict(r) for r in rows]
    out[index].update(changes)
    return out


@pytest.mark.parametrize("case, line, reason", [
    ("unknown id", 3, "_id 'B1-99999' is not in the test split"),
    ("repeated id", 2, "also appears on line 1"),
    ("empty id", 4, "_id is missing"),
    ("no id column", 1, "the columns must be _id, xi, omega, alpha"),
    ("extra column", 1, "the columns must be _id, xi, omega, alpha"),
    ("nan", 2, "omega must be a finite number"),
    ("infinite", 5, "xi must be a finite number"),
    ("text value", 3, "alpha must be a number, got 'wide'"),
    ("boolean", 3, "alpha must be a number"),
    ("omega below the fit's bounds", 2, "omega (ω) = 0.1 is outside the fit's range [0.5, 200]"),
    ("alpha beyond the fit's bounds", 6, "alpha (α) = 25 is outside the fit's range [-20, 20]"),
    ("off the axis", 1, "the predicted curve lies entirely off the time axis"),
    ("not an object", 2, "each line must be a JSON object"),
    ("bad json", 3, "not valid JSON"),
])
def test_each_bad_line_refuses_the_whole_file_naming_it(export, case, line, reason):
    rows = _good(export)
    bad = {
        "unknown id": lambda: _with(rows, 2, _id="B1-99999"),
        "repeated id": lambda: _with(rows, 1, _id=rows[0]["_id"]),
        "empty id": lambda: _with(rows, 3, _id="  "),
        "no id column": lambda: [{k: v for k, v in r.items() if k != "_id"} for r in rows],
        "extra column": lambda: _with(rows, 0, note="x"),
        "nan": lambda: _with(rows, 1, omega=float("nan")),
        "infinite": lambda: _with(rows, 4, xi=float("inf")),
        "text value": lambda: _with(rows, 2, alpha="wide"),
        "boolean": lambda: _with(rows, 2, alpha=True),
        "omega below the fit's bounds": lambda: _with(rows, 1, omega=0.1),
        "alpha beyond the fit's bounds": lambda: _with(rows, 5, alpha=25),
        "off the axis": lambda: _with(rows, 0, xi=-100.0, omega=0.5),
    }
    if case == "not an object":
        data = _jsonl(rows[:1]) + b"[1, 2]\n" + _jsonl(rows[1:])
    elif case == "bad json":
        data = _jsonl(rows[:2]) + b'{"_id": \n' + _jsonl(rows[2:])
    else:
        data = _jsonl(bad[case]())
    error = _refusal(export, data)
    assert error.line == line and reason in error.reason, str(error)
    assert str(error).startswith(f"line {line}: ")


def test_refused_csv_files(export):
    rows = _good(export)
    header = "_id,xi,omega,alpha\n"
    body = "".join(f"{r['_id']},{r['xi']},{r['omega']},{r['alpha']}\n" for r in rows)
    wrong = _refusal(export, ("_id,location,scale,skewness\n" + body).encode(), "p.csv")
    assert wrong.line == 1 and "got '_id', 'location', 'scale', 'skewness'" in wrong.reason
    short = _refusal(export, (header + body + "B1-1,50\n").encode(), "p.csv")
    assert short.line == len(rows) + 2 and short.reason == "2 fields where the header has 4"
    nan = _refusal(export, (header + body.replace(f",{rows[0]['omega']},", ",nan,", 1)).encode(), "p.csv")
    assert nan.line == 2 and "omega must be a finite number" in nan.reason
    missing = _refusal(export, (header + "".join(body.splitlines(True)[1:])).encode(), "p.csv")
    assert missing.line == 0 and missing.reason == f"1 test sample has no prediction (the first: {rows[0]['_id']!r})"


def test_refused_whole_files(export, monkeypatch):
    assert "unsupported file type '.txt'" in _refusal(export, b"x", "p.txt").reason
    assert _refusal(export, b"", "p.jsonl").reason == "the file holds no predictions"
    assert _refusal(export, b"\n\n", "p.jsonl").reason == "the file holds no predictions"
    assert _refusal(export, b"_id,xi,omega,alpha\n", "p.csv").reason == "the file holds no predictions"
    assert _refusal(export, b"\xff\xfe", "p.csv").reason == "the file is not UTF-8 text"
    big = _refusal(export, b" " * (MAX_PREDICTION_BYTES + 1))
    assert big.line == 0 and big.reason == "the file is larger than 10 MB"
    many = _refusal(export, b"\n" * (MAX_PREDICTION_LINES + 1))
    assert many.reason == "the file has 50,001 lines; at most 50,000 are read"


def test_an_export_folder_that_is_not_an_export_or_too_small(tmp_path, export):
    with pytest.raises(ExportNotFoundError, match="is not a Chronocept export"):
        score_export(tmp_path, _jsonl(_good(export)), "p.jsonl")
    tiny = write_synthetic_export(tmp_path / "tiny", 12, seed=1)   # test split 1
    with pytest.raises(NotEnoughSamplesError, match="scoring needs at least 3 in the test split"):
        score_export(tiny, b"", "p.jsonl")


def test_kept_submissions_round_trip_and_other_exports_are_left_out(tmp_path, export):
    scored = score_export(export, _jsonl(_good(export)), "p.jsonl")
    when = datetime(2026, 5, 1, 9, 30, tzinfo=timezone.utc)
    record = submission_record(scored, name="  Ours / v2  ", submitted_by="lea", file_name="p.jsonl",
                               via="app", when=when)
    folder = tmp_path / "copy"
    first = write_submission(folder, record)
    second = write_submission(folder, record)
    assert (first.name, second.name) == ("20260501-093000-ours-v2.json", "20260501-093000-ours-v2-2.json")
    write_submission(folder, {**record, "export_id": "another"})
    write_submission(folder, {**record, "benchmark": 2})
    kept, unreadable = read_submissions(folder, scored.export_id, 1)
    assert [r["file"] for r in kept] == [first.name, second.name] and unreadable == []
    assert ModelScore.from_dict(kept[0]["score"]) == scored.score and kept[0]["name"] == "Ours / v2"
    assert not list(folder.glob("scores/.*"))  # no temporary file left behind
    with pytest.raises(ValueError, match="longer than 80"):
        submission_record(scored, name="x" * 81, submitted_by="lea", file_name="p", via="app", when=when)
    assert Figure.from_dict(Figure(math.nan).to_dict()).undefined is None
