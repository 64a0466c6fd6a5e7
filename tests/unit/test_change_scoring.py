"""Scoring predicted change labels of a tvcp export's test split: reading the file all or
nothing, accuracy and exact match (the TVCP paper's metrics), intervals over targets."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from annotation.export import ExportMeta, ExportSettings, PairGold, export_tvcp_dataset
from annotation.pairs.change import CHANGE_LABELS
from annotation.training.change_scoring import (
    NO_INTERVAL_FEW_TARGETS,
    NO_PAIRS,
    align_changes,
    is_tvcp_export,
    parse_change_predictions,
    score_changes,
    score_tvcp_export,
)
from annotation.training.errors import ExportFormatError
from annotation.training.submissions import PredictionFileError

UP = math.log(3) / math.log(1.1)


@pytest.mark.parametrize("data, name, line, reason", [
    (b"_id,change\na,up\n", "p.csv", 2, "change must be one of decreased, neutral, increased (or 0, 1, 2), got 'up'"),
    (b'{"_id": "a", "change": 3}\n', "p.jsonl", 1, "change must be one of"),
    (b'{"_id": "a", "change": true}\n', "p.jsonl", 1, "change must be one of"),
    (b'{"_id": "", "change": "neutral"}\n', "p.jsonl", 1, "_id is missing"),
    (b"_id,change\n,neutral\n", "p.csv", 2, "_id is missing"),
    (b"_id,change\na,neutral\na,neutral\n", "p.csv", 3, "_id 'a' also appears on line 2"),
    (b"_id,label\na,neutral\n", "p.csv", 1, "the columns must be _id, change; got '_id', 'label'"),
    (b'{"_id": "a", "change": "neutral", "xi": 3}\n', "p.jsonl", 1, "the columns must be _id, change"),
    (b"_id,change\na,neutral,x\n", "p.csv", 2, "3 fields where the header has 2"),
    (b"\xff\xfe", "p.csv", 1, "not UTF-8"),
    (b"", "p.csv", 0, "the file holds no predictions"),
    (b"x", "p.xlsx", 0, "unsupported file type '.xlsx'"),
])
def test_a_bad_file_is_refused_whole_with_its_line_and_reason(data, name, line, reason):
    with pytest.raises(PredictionFileError) as refused:
        parse_change_predictions(data, name)
    assert refused.value.line == line and reason in refused.value.reason


def test_labels_and_their_indices_are_read_in_both_formats():
    jsonl = b'{"change": "decreased", "_id": "a"}\n\n{"_id": "b", "change": 2}\n{"_id": 7, "change": "1"}\n'
    assert parse_change_predictions(jsonl, "p.jsonl").labels == (0, 2, 1)
    assert parse_change_predictions("\ufeffchange,_id\nneutral,a\n".encode(), "p.csv").ids == ("a",)


def test_unknown_and_missing_ids_are_refused():
    found = parse_change_predictions(b"_id,change\na,neutral\nzz,neutral\n", "p.csv")
    with pytest.raises(PredictionFileError, match="line 3: _id 'zz' is not in the test split"):
        align_changes(found, ["a", "b"])
    with pytest.raises(PredictionFileError, match="2 test pairs have no prediction \\(the first: 'b'\\)"):
        align_changes(parse_change_predictions(b"_id,change\na,neutral\n", "p.csv"), ["a", "b", "c"])


def test_accuracy_counts_pairs_and_exact_match_counts_targets():
    gold = [0, 1, 2, 0, 1, 2, 1]
    pred = [0, 1, 2, 0, 1, 0, 1]
    targets = ["t1", "t1", "t1", "t2", "t2", "t2", "t3"]
    score = score_changes(gold, pred, targets)
    assert score.figures["accuracy"].value == pytest.approx(6 / 7)
    assert score.figures["exact_match"].value == pytest.approx(2 / 3)
    assert score.n_test == 7 and score.figures["exact_match"].no_interval == NO_INTERVAL_FEW_TARGETS
    assert math.isnan(score.figures["accuracy"].low)
    empty = score_changes([], [], [])
    assert math.isnan(empty.figures["accuracy"].value) and empty.figures["exact_match"].undefined == NO_PAIRS


def test_intervals_resample_targets_and_are_seeded():
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 3, 120).tolist()
    pred = [g if rng.random() < 0.7 else (g + 1) % 3 for g in gold]
    targets = [f"t{i // 3}" for i in range(120)]
    a = score_changes(gold, pred, targets, resamples=300, seed=5)
    b = score_changes(gold, pred, targets, resamples=300, seed=5)
    for name in ("accuracy", "exact_match"):
        f = a.figures[name]
        assert f.low <= f.value <= f.high and f.no_interval is None and f == b.figures[name]
    assert a.resamples == 300
    perfect = score_changes(gold, gold, targets, resamples=200)
    assert perfect.figures["accuracy"].value == perfect.figures["exact_match"].value == 1.0
    assert (perfect.figures["accuracy"].low, perfect.figures["accuracy"].high) == (1.0, 1.0)


def tvcp_export(tmp_path, n_targets=20):
    pairs = [PairGold(f"p{t:02d}{k}", f"t{t:02d}", f"Target {t}.", f"Follow-up {k}.", 45.0, 10.0, 0.0,
                      45.0 + (-UP, 0.0, UP)[k], 10.0, 0.0, change=CHANGE_LABELS[k])
             for t in range(n_targets) for k in range(3)]
    out = tmp_path / "e"
    export_tvcp_dataset(out, pairs, ExportSettings(seed=1), change_factor=1.5,
                        meta=ExportMeta(4, "Pairs", "lea", "2026-11-29T10:00:00Z"))
    return out, [json.loads(line) for line in (out / "tvcp" / "test.json").read_text().splitlines()]


def test_an_export_is_scored_against_its_tvcp_test_split(tmp_path):
    out, test = tvcp_export(tmp_path)
    assert is_tvcp_export(out) and len(test) == 6   # two targets of twenty
    lines = ["_id,change"] + [f"{r['_id']},{r['change']}" for r in test]
    lines[1] = f"{test[0]['_id']},{'neutral' if test[0]['change'] != 'neutral' else 'increased'}"
    scored = score_tvcp_export(out, "\n".join(lines).encode(), "p.csv")
    assert (scored.export_id, scored.benchmark, len(scored.sha256)) == ("4", "tvcp", 64)
    assert scored.score.figures["accuracy"].value == pytest.approx(5 / 6)
    assert scored.score.figures["exact_match"].value == pytest.approx(1 / 2)


def test_a_single_texts_export_has_no_change_labels_to_score(tmp_path):
    from annotation.training.synthetic import write_synthetic_export

    folder = write_synthetic_export(tmp_path / "s", 30, seed=1)
    assert not is_tvcp_export(folder)
    with pytest.raises(ExportFormatError, match="has no tvcp configuration"):
        score_tvcp_export(folder, b"_id,change\na,neutral\n", "p.csv")
