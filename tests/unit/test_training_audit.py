"""Gold audit: cross-fitted predictions never come from a model that saw the sample, the scores
are W1 over the floored spread (hand values), and the ranking puts planted errors first."""

from __future__ import annotations

import numpy as np
import pytest

import annotation.training.audit as audit
from annotation.curves.distance import curve_distances
from annotation.training.audit import (
    MIN_FLOOR,
    audit_scores,
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


def test_audit_scores_hand_values():
    one = np.array([[50.0, 10.0, 0.0], [50.0, 10.0, 0.0], [50.0, 10.0, 0.0]])
    members = np.stack([one, one + [[4.0, 0, 0], [0, 0, 0], [0, 0, 0]]])
    p = EnsemblePrediction.from_members(members)    # means 52, 50, 50; spreads 4, 0, 0
    gold = np.array([[62.0, 10.0, 0.0], [56.0, 10.0, 0.0], [51.0, 10.0, 0.0]])
    # W1 is the shift between equal shapes: 10, 6, 1
    assert audit_scores(gold, p, floor=2.0) == pytest.approx([2.5, 3.0, 0.5], abs=1e-3)
    # default floor: the median W1, 6 → 10/6, 6/6, 1/6
    assert typical_miss(gold, p) == pytest.approx(6.0, abs=1e-4)
    assert audit_scores(gold, p) == pytest.approx([10 / 6, 1.0, 1 / 6], abs=1e-3)


def test_a_zero_spread_cannot_explode_the_score():
    one = np.array([[50.0, 10.0, 0.0]] * 4)
    p = EnsemblePrediction.from_members(np.stack([one] * 5))
    assert np.all(p.spread_w1 == 0.0)
    exact = audit_scores(one, p)       # the gold equals the model: median W1 0 → MIN_FLOOR
    assert typical_miss(one, p) == MIN_FLOOR and np.all(exact == 0.0)
    far = one + [[20.0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert audit_scores(far, p, floor=MIN_FLOOR)[0] == pytest.approx(20.0 / MIN_FLOOR, abs=1e-2)


def test_audit_score_arguments_are_checked():
    one = np.array([[50.0, 10.0, 0.0]] * 2)
    p = EnsemblePrediction.from_members(np.stack([one, one]))
    with pytest.raises(ValueError, match="shape"):
        audit_scores(one[:1], p)
    with pytest.raises(ValueError, match="at least"):
        audit_scores(one, p, floor=0.0)
    off = np.array([[-100.0, 0.5, 0.0], [50.0, 10.0, 0.0]])   # a curve entirely off the axis
    scores = audit_scores(off, p, floor=1.0)
    assert np.isnan(scores[0]) and scores[1] == 0.0
    assert rank(scores).tolist() == [1, 0]


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
    scores = audit_scores(gold, fit.prediction)
    assert rank(scores)[0] == 9
    w1, _, _ = curve_distances(gold, fit.prediction.mean)
    assert scores[9] == pytest.approx(
        w1[9] / max(fit.prediction.spread_w1[9], typical_miss(gold, fit.prediction)))
