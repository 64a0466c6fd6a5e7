"""The model in the loop's ensemble: the run's best model by validation NLL, K bootstrap members,
and what their curves say together (mean curve, spread W1, half-gone times), with hand values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from annotation.curves.distance import curve_distances
from annotation.training import TrainingConfig, run_training, write_synthetic_export
from annotation.training.data import Sample
from annotation.training.encoders import HashingEncoder, SbertEncoder
from annotation.training.ensemble import (
    Ensemble,
    EnsemblePrediction,
    ModelSpec,
    best_model_of_run,
    encoder_named,
    fit_ensemble,
    text_blocks,
    validation_nll,
)
from annotation.training.ensemble_curves import half_gone_minutes, members_spread_w1
from annotation.training.errors import (
    BadConfigError,
    BadGridError,
    DeviceUnavailableError,
    RunFolderError,
    TrainingCancelled,
)
from annotation.training.results import ResultRow
from annotation.training.targets import fit_target_scaler
from annotation.workbench.elicitation import curve_feedback

UNITS = {"minutes": 24.2, "hours": 54.5, "days": 87.9, "weeks": 104.0}
LINEAR = ModelSpec("linear", {"alpha": 0.01}, "hashing")


def _pool(repeats: int = 4):
    texts = [f"open for {unit} ({i})" for i in range(repeats) for unit in UNITS]
    y = np.array([[xi, 8.0, 0.5] for _ in range(repeats) for xi in UNITS.values()])
    return texts, y


# --- curves of an ensemble --------------------------------------------------------------------

def test_spread_is_the_mean_pairwise_w1_of_the_members():
    base = np.array([[50.0, 10.0, 0.0], [80.0, 6.0, 3.0]])
    members = np.stack([base, base + [3.0, 0, 0], base + [9.0, 0, 0]])
    # shifted copies: W1 is the shift, so the pairs are 3, 9 and 6 apart → mean 6
    assert members_spread_w1(members) == pytest.approx([6.0, 6.0], abs=1e-3)
    pairs = [curve_distances(members[i], members[j])[0] for i, j in ((0, 1), (0, 2), (1, 2))]
    assert members_spread_w1(members) == pytest.approx(np.mean(pairs, axis=0), abs=1e-12)


def test_the_spread_of_identical_members_is_exactly_zero():
    rng = np.random.default_rng(4)
    one = np.column_stack([rng.uniform(0, 200, 50), rng.uniform(0.5, 60, 50),
                           rng.uniform(-20, 20, 50)])
    assert np.all(members_spread_w1(np.stack([one] * 5)) == 0.0)
    assert np.all(EnsemblePrediction.from_members(np.stack([one] * 5)).spread_w1 == 0.0)


def test_an_ensemble_of_one_model_repeated_has_zero_spread():
    texts, y = _pool()
    ens = fit_ensemble(texts, y, spec=LINEAR, k=2, seed=0)
    same = Ensemble(ens.spec, (ens.members[0],) * 3, ens.scaler, ens.encoder, ens.device)
    prediction = same.predict(texts)
    assert np.all(prediction.spread_w1 == 0.0)
    assert np.all(prediction.half_gone_interval[:, 0] == prediction.half_gone_interval[:, 1])


def test_the_spread_needs_two_members_and_skips_curves_off_the_axis():
    with pytest.raises(ValueError, match="at least 2 members"):
        members_spread_w1(np.zeros((1, 2, 3)) + [50.0, 10.0, 0.0])
    off = np.array([[[50.0, 10.0, 0.0]], [[54.0, 10.0, 0.0]], [[-100.0, 0.5, 0.0]]])
    # only the pair of the two curves on the axis counts
    assert members_spread_w1(off) == pytest.approx([4.0], abs=1e-3)


def test_half_gone_matches_the_workbench_read_back():
    rng = np.random.default_rng(0)
    curves = np.column_stack([rng.uniform(0, 200, 300), rng.uniform(0.5, 60, 300),
                              rng.uniform(-20, 20, 300)])
    ours = half_gone_minutes(curves)
    for row, value in zip(curves, ours):
        reference = curve_feedback(*row).half_gone_minutes
        if math.isinf(reference):
            assert math.isinf(value)
        else:
            assert value == pytest.approx(reference, rel=1e-9)


def test_half_gone_hand_values():
    # a normal curve falls to half its peak ω·√(2 ln 2) after ξ; one still high at the chart's
    # end is never half gone; undefined parameters give NaN
    got = half_gone_minutes(np.array([[50.0, 10.0, 0.0], [190.0, 40.0, 0.0],
                                      [50.0, -1.0, 0.0], [np.nan, 10.0, 0.0]]))
    assert got[0] == pytest.approx(1.1 ** (50.0 + 10.0 * math.sqrt(2 * math.log(2))), rel=1e-12)
    assert math.isinf(got[1]) and np.isnan(got[2:]).all()


def test_prediction_mean_interval_and_clipping():
    a = np.array([[40.0, 10.0, 0.0], [60.0, -3.0, 30.0]])
    b = np.array([[50.0, 20.0, 2.0], [60.0, 5.0, 0.0]])
    p = EnsemblePrediction.from_members(np.stack([a, b]))
    # ω −3 is clipped to the fit's 0.5, α 30 to its 20: every member is a drawable curve
    assert p.members[0, 1].tolist() == [60.0, 0.5, 20.0]
    assert p.mean.tolist() == [[45.0, 15.0, 1.0], [60.0, 2.75, 10.0]]
    gone = half_gone_minutes(p.members.reshape(-1, 3)).reshape(2, 2)
    assert p.half_gone_interval.tolist() == np.stack([gone.min(0), gone.max(0)], 1).tolist()
    assert p.half_gone.tolist() == half_gone_minutes(p.mean).tolist()
    assert len(p) == 2


# --- fitting ----------------------------------------------------------------------------------

def test_members_train_on_seeded_bootstrap_resamples_with_training_statistics():
    texts, y = _pool()
    ens = fit_ensemble(texts, y, spec=LINEAR, k=3, seed=11)
    assert len(ens.members) == 3 and ens.device == "cpu"
    for m, index in enumerate(ens.bootstrap_indices):
        expected = np.sort(np.random.default_rng(11 + m).integers(0, len(texts), len(texts)))
        assert index.tolist() == expected.tolist()
    assert ens.bootstrap_indices[0].tolist() != ens.bootstrap_indices[1].tolist()
    assert ens.scaler == fit_target_scaler(y)       # the whole training set, not a resample
    again = fit_ensemble(texts, y, spec=LINEAR, k=3, seed=11).predict(texts[:4])
    assert again.members.tolist() == ens.predict(texts[:4]).members.tolist()


def test_the_ensemble_learns_and_is_uncertain_off_its_data():
    texts, y = _pool(6)
    p = fit_ensemble(texts, y, spec=LINEAR, k=4, seed=0).predict(
        ["open for days (2)", "closed forever"])
    assert p.members.shape == (4, 2, 3)
    assert abs(p.mean[0, 0] - 87.9) < 2.0
    assert p.spread_w1[0] < p.spread_w1[1]     # an unseen text spreads the members more


def test_texts_may_be_strings_samples_or_nine_strings():
    encoder = HashingEncoder(dim=16)
    nine = ("Open today.", *[""] * 8)
    sample = Sample("B1-1", "Open today.", ("", "", "", "", "", "", "", ""), (1.0, 1.0, 0.0))
    blocks = text_blocks(["Open today.", nine, sample], encoder)
    assert blocks.shape == (3, 9, 16) and blocks.dtype == np.float32
    assert np.array_equal(blocks[0], blocks[1]) and np.array_equal(blocks[0], blocks[2])
    with pytest.raises(ValueError, match="nine strings"):
        text_blocks([("too", "few")], encoder)


def test_fit_arguments_are_checked_and_progress_and_cancellation_work():
    texts, y = _pool()
    with pytest.raises(BadConfigError, match="k >= 2"):
        fit_ensemble(texts, y, spec=LINEAR, k=1)
    with pytest.raises(ValueError, match="shape"):
        fit_ensemble(texts, y[:3], spec=LINEAR)
    if not torch.cuda.is_available():
        with pytest.raises(DeviceUnavailableError):
            fit_ensemble(texts, y, spec=LINEAR, device="cuda")
    seen = []
    fit_ensemble(texts, y, spec=LINEAR, k=2, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("member 2 of 2" in m for _, m in seen)
    with pytest.raises(TrainingCancelled):
        fit_ensemble(texts, y, spec=LINEAR, k=2, should_stop=lambda: True)


def test_model_spec_completes_and_checks_its_grid_point():
    spec = ModelSpec("ffnn", {"hidden_size": 8.0}, "hashing", "no_axes")
    assert spec.params == {"hidden_size": 8, "hidden_layers": 2, "dropout": 0.1,
                           "learning_rate": 1e-3, "weight_decay": 0.0}
    assert ModelSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    with pytest.raises(BadConfigError, match="one value for alpha"):
        ModelSpec("linear", {}, "hashing")        # four default alphas: the point is not chosen
    with pytest.raises(BadGridError):
        ModelSpec("linear", {"gamma": 1}, "hashing")
    with pytest.raises(BadConfigError):
        ModelSpec("linear", {"alpha": 1}, "hashing", ablation="sideways")


def test_encoder_names():
    assert encoder_named("hashing") == HashingEncoder()
    assert encoder_named("hashing-32-seed5") == HashingEncoder(dim=32, seed=5)
    assert isinstance(encoder_named("all-MiniLM-L6-v2"), SbertEncoder)
    with pytest.raises(BadConfigError):
        encoder_named("word2vec")


# --- the run's best model ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("ensemble")
    export = write_synthetic_export(base / "export", 45, seed=3)
    config = TrainingConfig(models=("mean", "linear"), ablations=("none", "no_axes"),
                            encoder="hashing", seed=5, grids={"linear": {"alpha": [0.1, 10.0]}},
                            max_epochs=7, patience=3, batch_size=8)
    run_training(export, base / "run", config, encoder=HashingEncoder(dim=8))
    return base / "run"


def _copy(run_dir, tmp_path):
    import shutil

    return shutil.copytree(run_dir, tmp_path / "copy")


def test_the_best_model_has_the_lowest_validation_nll(run_dir):
    rows = json.loads((run_dir / "metrics.json").read_text())["rows"]
    best = min(rows, key=lambda r: r["valid_nll"])
    spec = best_model_of_run(run_dir)
    assert (spec.model, spec.ablation) == (best["model"], best["ablation"])
    saved = json.loads((run_dir / "models" / f"{spec.model}__{spec.ablation}" /
                        "params.json").read_text())
    assert dict(spec.params) == saved
    assert spec.encoder == "hashing-8-seed0" and encoder_named(spec.encoder).dim == 8
    assert (spec.max_epochs, spec.patience, spec.batch_size) == (7, 3, 8)


def test_a_run_without_recorded_nll_is_ranked_by_its_mse(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    metrics = json.loads((copy / "metrics.json").read_text())
    for row in metrics["rows"]:
        del row["valid_nll"]
    (copy / "metrics.json").write_text(json.dumps(metrics))
    best = min(metrics["rows"], key=lambda r: r["valid_mse"])
    spec = best_model_of_run(copy)
    assert (spec.model, spec.ablation) == (best["model"], best["ablation"])


def test_validation_nll_hand_values():
    row = ResultRow("linear", "none", *[math.nan] * 7, valid_mse=0.25, valid_nll=0.7)
    assert validation_nll(row) == 0.7
    fallback = ResultRow("linear", "none", *[math.nan] * 7, valid_mse=0.25)
    # ½ ln(2πe·0.25): a zero-mean Gaussian whose σ² is the MSE
    assert validation_nll(fallback) == pytest.approx(0.5 * math.log(2 * math.pi * math.e / 4))
    assert math.isnan(validation_nll(ResultRow("mean", "none", *[math.nan] * 7)))


@pytest.mark.parametrize("damage, reason", [
    ("running", "is a running run"),
    ("no_params", "is missing from"),
    ("no_weights", "is missing from"),
    ("no_rows", "holds no trained model"),
    ("no_metrics", "holds no training run"),
])
def test_an_incomplete_run_folder_is_refused(run_dir, tmp_path, damage, reason):
    copy = _copy(run_dir, tmp_path)
    metrics = json.loads((copy / "metrics.json").read_text())
    if damage == "running":
        metrics["status"] = "running"
    elif damage == "no_rows":
        metrics["rows"] = []
    elif damage == "no_params":
        (copy / "models" / "linear__none" / "params.json").unlink()
    elif damage == "no_weights":
        (copy / "models" / "mean__no_axes" / "mean.json").unlink()
    (copy / "metrics.json").write_text(json.dumps(metrics))
    if damage == "no_metrics":
        (copy / "metrics.json").unlink()
    with pytest.raises(RunFolderError, match=reason) as caught:
        best_model_of_run(copy)
    assert "\n" not in str(caught.value)
