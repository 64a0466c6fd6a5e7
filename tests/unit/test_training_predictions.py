"""The key of a job's stored prediction series is built and read in one module."""

from __future__ import annotations

import pytest

from annotation.training.predictions import parse_prediction_key, prediction_key, prediction_series


@pytest.mark.parametrize("model, ablation", [("linear", "none"), ("ffnn", "no_axes"), ("bilstm", "shuffled_axes")])
def test_a_key_reads_back_as_its_model_and_ablation(model, ablation):
    assert parse_prediction_key(prediction_key(model, ablation)) == (model, ablation)


def test_series_keep_the_stored_order_and_rows():
    stored = {"svr__none": [{"xi_gold": 1.0, "xi_pred": 2.0}], "mean__no_axes": []}
    series = prediction_series(stored)
    assert [(s.key, s.model, s.ablation) for s in series] == [("svr__none", "svr", "none"),
                                                              ("mean__no_axes", "mean", "no_axes")]
    assert series[0].rows == ({"xi_gold": 1.0, "xi_pred": 2.0},)
    assert prediction_series({}) == []
