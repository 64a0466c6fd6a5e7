"""Gold audit: cross-fitted predictions never come from a model that saw the sample, the scores
are the larger of the residual's Mahalanobis distance and W1 over the expected miss, each over its
95th percentile (hand values), and the ranking puts planted errors of every kind first."""

from __future__ import annotations

import numpy as np
import pytest

import annotation.training.audit as audit
from annotation.curves.distance import curve_distances
from annotation.training.audit import (
    MIN_FLOOR,
    audit_scores,
    residual_distances,
    cross_fitted,
    fold_assignment,
    rank,
    typical_miss,
)
from annotation.training.ensemble import Ensemble, EnsemblePrediction, ModelSpec
from annotation.training.errors import BadConfigError

LINEAR = ModelSpec("linear", {"alpha": 0.01}, "hashing")
UNITS = {"minutes": 24.2, "hours": 54.5, "days": 87.9, "weeks": 104.0}


class IndexEncoder:
    """Encodes "sample 17" as (17, 1, 0, 0) and "" as zeros, so a feature block names its
    sample: the instrument that sees which samples a model trained on and predicted."""

    name = "index"
    dim = 4

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            if text:
                out[row, :2] = (float(text.split()[1]), 1.0)
        return out


def test_folds_are_seeded_balanced_and_checked():
    fold_of = fold_assignment(23, 5, seed=4)
    assert sorted(np.bincount(fold_of).tolist()) == [4, 4, 5, 5, 5]
    assert fold_of.tolist() == fold_assignment(23, 5, seed=4).tolist()
    assert fold_of.tolist() != fold_assignment(23, 5, seed=5).tolist()
    with pytest.raises(BadConfigError):
        fold_assignment(10, 1, seed=0)
    with pytest.raises(ValueError, match="cannot be split"):
        fold_assignment(3, 5, seed=0)


def test_no_sample_is_ever_predicted_by_a_model_that_saw_it(monkeypatch):
    n = 26
    texts = [f"sample {i}" for i in range(n)]
    targets = np.column_stack([np.linspace(10, 150, n), np.full(n, 8.0), np.zeros(n)])
    trained_on: dict[int, set[int]] = {}
    predicted: list[tuple[int, list[int]]] = []
    fit = audit.fit_ensemble_blocks
    predict = Ensemble.member_curves

    kept = []   # held, so that no two ensembles share an id() (a freed one's may be reused)

    def recording_fit(blocks, *args, **kwargs):
        ensemble = fit(blocks, *args, **kwargs)
        kept.append(ensemble)
        seen = blocks[:, 0, 0].astype(int)
        # what every member trained on: its bootstrap draw, all within the training folds
        trained_on[id(ensemble)] = {int(seen[i]) for b in ensemble.bootstrap_indices for i in b}
        trained_on[id(ensemble)] |= set(seen.tolist())
        return ensemble

    def recording_predict(self, blocks):
        predicted.append((id(self), blocks[:, 0, 0].astype(int).tolist()))
        return predict(self, blocks)

    monkeypatch.setattr(audit, "fit_ensemble_blocks", recording_fit)
    monkeypatch.setattr(Ensemble, "member_curves", recording_predict)
    result = cross_fitted(texts, targets, folds=4, spec=LINEAR, k=3, seed=2,
                          encoder=IndexEncoder())
    assert len(trained_on) == 4 and len(predicted) == 4
    everyone = []
    for ensemble, ids in predicted:
        assert not set(ids) & trained_on[ensemble]
        assert len(trained_on[ensemble]) + len(ids) == n
        assert {int(result.fold_of[i]) for i in ids} == {int(result.fold_of[ids[0]])}
        everyone += ids
    assert sorted(everyone) == list(range(n))     # every sample predicted exactly once
    assert result.prediction.members.shape == (3, n, 3)


def test_cross_fitted_predictions_follow_the_input_order():
    texts = [f"open for {unit} ({i})" for i in range(5) for unit in UNITS]
    y = np.array([[xi, 8.0, 0.5] for _ in range(5) for xi in UNITS.values()])
    order = np.random.default_rng(0).permutation(len(texts))
    texts, y = [texts[i] for i in order], y[order]
    fit = cross_fitted(texts, y, folds=5, spec=LINEAR, k=2, seed=1)
    assert np.abs(fit.prediction.mean[:, 0] - y[:, 0]).max() < 10.0
    assert np.bincount(fit.fold_of).tolist() == [4] * 5


def test_residual_distances_hand_values():
    # the other folds' 12 residuals: ξ ±2, ω ±1, α ±0.5 (each twice), mean 0, uncorrelated
    base = np.array([[2.0, 0, 0], [-2.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0], [0, 0, 0.5], [0, 0, -0.5]])
    gold = np.vstack([base, base, [[4.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]]])
    fold_of = np.array([0] * 6 + [1] * 6 + [2, 2])
    d = residual_distances(gold, np.zeros_like(gold), fold_of)
    var = np.array([16.0, 4.0, 1.0]) / 11            # Σr² / (n − 1) per parameter
    assert d[12] == pytest.approx(4.0 / np.sqrt(var[0]), rel=1e-4) == pytest.approx(np.sqrt(11))  # ξ off by 4
    assert d[13] == pytest.approx(1.0 / np.sqrt(var[2]), rel=1e-4)   # α off by 1: 1 / σ_α
    assert d[12] == pytest.approx(d[13], rel=1e-4)      # each off by the same number of its own SDs


def test_audit_scores_take_the_larger_scale_each_over_its_95th_percentile():
    rng = np.random.default_rng(4)
    truth = np.column_stack([rng.uniform(30, 150, 200), rng.uniform(5, 15, 200), rng.normal(0, 1, 200)])
    p = EnsemblePrediction.from_members(np.stack([truth, truth]))
    gold = truth + rng.normal(0, [2.0, 0.5, 0.2], truth.shape)
    folds, miss = np.arange(200) % 5, np.full(200, 2.0)
    scores = audit_scores(gold, p, folds, miss)
    parts = np.column_stack([residual_distances(gold, p.mean, folds), curve_distances(gold, p.mean)[0] / miss])
    expected = (parts / np.nanpercentile(parts, 95, axis=0)).max(axis=1)
    assert scores == pytest.approx(expected, rel=1e-9)
    assert 0.05 <= np.mean(scores > 1.0) <= 0.10    # above either 95th percentile: 5 % of each, some shared


def test_a_flipped_skew_is_found_though_it_moves_the_curve_little():
    rng = np.random.default_rng(6)
    truth = np.column_stack([rng.uniform(30, 150, 300), rng.uniform(4, 15, 300), rng.uniform(2, 4, 300)])
    truth[17] = [80.0, 4.0, 3.0]                                    # a narrow curve …
    p = EnsemblePrediction.from_members(np.stack([truth, truth]))
    gold = truth + rng.normal(0, [6.0, 1.0, 0.3], truth.shape)
    gold[17] = [80.0, 4.0, -3.0]                                    # … whose skew is flipped
    folds = np.arange(300) % 5
    w1 = curve_distances(gold, p.mean)[0]
    assert rank(w1).tolist().index(17) > 3                         # W1 alone does not put it near the top
    assert rank(audit_scores(gold, p, folds, np.full(300, 3.0)))[0] == 17


def test_audit_score_arguments_are_checked():
    one = np.array([[50.0, 10.0, 0.0]] * 2)
    p = EnsemblePrediction.from_members(np.stack([one, one]))
    folds, miss = np.array([0, 1]), np.ones(2)
    with pytest.raises(ValueError, match="shape"):
        audit_scores(one[:1], p, folds, miss)
    with pytest.raises(ValueError, match="positive"):
        audit_scores(one, p, folds, np.zeros(2))
    off = np.array([[-100.0, 0.5, 0.0], [50.0, 10.0, 0.0]])   # a curve entirely off the axis
    scores = audit_scores(off, p, folds, miss)
    assert np.isfinite(scores).all()                     # its parameters still tell how far off it is
    assert rank(scores).tolist() == [0, 1]
    assert typical_miss(one, p) == MIN_FLOOR             # the gold equals the model: median W1 0 → the floor


def test_rank_is_highest_first_stable_and_puts_nan_last():
    assert rank(np.array([0.2, 5.0, np.nan, 5.0, 1.0, 0.2])).tolist() == [1, 3, 4, 0, 5, 2]
    assert rank(np.array([])).tolist() == []
    with pytest.raises(ValueError):
        rank(np.zeros((2, 2)))


def test_a_planted_error_ranks_first():
    texts = [f"open for {unit} ({i})" for i in range(6) for unit in UNITS]
    gold = np.array([[xi, 8.0, 0.5] for _ in range(6) for xi in UNITS.values()])
    gold[9, 0] += 40.0                                   # "days" labelled 40 units later
    fit = cross_fitted(texts, gold, folds=3, spec=LINEAR, k=3, seed=0)
    scores = audit_scores(gold, fit.prediction, fit.fold_of, np.full(len(gold), 2.0))
    assert rank(scores)[0] == 9
