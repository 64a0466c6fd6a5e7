"""Dataset statistics of an exported benchmark (annotation.corpus.dataset_stats), by hand."""

from __future__ import annotations

import json
import math

import pytest

from annotation.axes import EXPORT_KEYS
from annotation.corpus.dataset_stats import TARGET_KEYS, DatasetStatistics, MeanSD, dataset_statistics


def _record(_id, text, targets, **axes):
    return {
        "_id": _id,
        "parent_text": text,
        "axes": {key: axes.get(key, "") for key in EXPORT_KEYS},
        "target_values": dict(zip(TARGET_KEYS, targets)),
    }


RECORDS = {
    "train": [
        # tokens: It | rains | today | .                      → 4
        _record("a", "It rains today.", (10.0, 2.0, 0.0), main_outcome_axis="It rains today."),
        # tokens: We | will | go | , | maybe | .              → 6
        _record("b", "We will go, maybe.", (20.0, 4.0, 1.0),
                main_outcome_axis="We will go,", hypothetical_axis="maybe."),
    ],
    "validation": [
        # tokens: No | .                                       → 2
        _record("c", "No.", (30.0, 6.0, -1.0), negation_axis="No."),
    ],
    "test": [],
}


def test_hand_computed_example():
    stats = dataset_statistics(RECORDS)
    assert stats.split_sizes == {"train": 2, "validation": 1, "test": 0}

    overall = stats.overall
    assert overall.n_samples == 3
    assert list(overall.axis_counts) == list(EXPORT_KEYS)
    assert overall.axis_counts["main_outcome_axis"] == 2
    assert overall.axis_counts["hypothetical_axis"] == 1
    assert overall.axis_counts["negation_axis"] == 1
    assert overall.axis_counts["static_axis"] == 0
    assert overall.axis_shares["main_outcome_axis"] == pytest.approx(2 / 3)
    assert overall.axis_shares["negation_axis"] == pytest.approx(1 / 3)
    # token lengths 4, 6, 2: mean 4, sample SD sqrt((0 + 4 + 4) / 2) = 2
    assert overall.token_length == MeanSD(3, 4.0, 2.0)
    # location 10, 20, 30: mean 20, SD 10; scale 2, 4, 6: mean 4, SD 2; skewness 0, 1, -1: 0, 1
    assert overall.targets["location"] == MeanSD(3, 20.0, 10.0)
    assert overall.targets["scale"] == MeanSD(3, 4.0, 2.0)
    assert overall.targets["skewness"] == MeanSD(3, 0.0, 1.0)

    train = stats.by_split["train"]
    assert train.axis_counts["main_outcome_axis"] == 2 and train.axis_shares["main_outcome_axis"] == 1.0
    assert train.axis_shares["hypothetical_axis"] == 0.5
    assert train.token_length.mean == 5.0
    assert train.token_length.sd == pytest.approx(math.sqrt(2))
    assert train.targets["location"].sd == pytest.approx(math.sqrt(50))

    validation = stats.by_split["validation"]
    assert validation.token_length == MeanSD(1, 2.0, None)  # no SD of one value
    assert validation.axis_shares["negation_axis"] == 1.0

    test = stats.by_split["test"]
    assert test.n_samples == 0
    assert test.token_length == MeanSD(0, None, None)
    assert all(share == 0.0 for share in test.axis_shares.values())
    assert test.targets["location"].mean is None


def test_known_token_lengths_are_used():
    stats = dataset_statistics(RECORDS, token_lengths={"a": 10})
    assert stats.overall.token_length.mean == pytest.approx((10 + 6 + 2) / 3)


def test_json_round_trip_and_missing_splits():
    stats = dataset_statistics({"train": RECORDS["train"]})
    assert stats.split_sizes == {"train": 2, "validation": 0, "test": 0}
    data = json.loads(json.dumps(stats.to_json(), allow_nan=False))
    assert DatasetStatistics.from_json(data) == stats


def test_bad_input():
    with pytest.raises(ValueError, match="unknown split"):
        dataset_statistics({"dev": []})
    bad = _record("x", "Hi.", (1.0, 1.0, 0.0))
    bad["axes"]["time_axis"] = "Hi."
    with pytest.raises(ValueError, match="unknown axis key"):
        dataset_statistics({"train": [bad]})
