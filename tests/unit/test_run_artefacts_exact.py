"""A training run's artefacts are data for code, not a spreadsheet's copy: its predictions CSV
holds each sample id exactly, even one that starts a spreadsheet formula (the other side of the
CSV rule of :mod:`annotation.corpus.csv_safety`)."""

from __future__ import annotations

import csv
import json

from annotation.training import TrainingConfig, run_training, write_synthetic_export

PREFIXES = ("=", "+", "-", "@")


def test_the_predictions_csv_keeps_ids_that_start_a_formula(tmp_path):
    export = write_synthetic_export(tmp_path / "export", 40, seed=2)
    renamed = {}
    for path in sorted((export / "benchmark_1").glob("*.json")):  # ids as a project might have them
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for i, record in enumerate(records):
            renamed[record["_id"]] = record["_id"] = PREFIXES[i % 4] + record["_id"]
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    results = run_training(export, tmp_path / "run", TrainingConfig(models=("mean",), encoder="hashing", seed=1))
    [row] = results.rows
    with (tmp_path / "run" / row.artefacts["predictions"]).open(encoding="utf-8", newline="") as handle:
        ids = [r["_id"] for r in csv.DictReader(handle)]
    assert ids and set(ids) <= set(renamed.values())
    assert {i[0] for i in ids} == set(PREFIXES)  # each kind of formula start, written as it is
