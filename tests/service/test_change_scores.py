"""Scoring predicted change labels on a context-pairs export's test split (accuracy and exact
match), kept on its leaderboard; refusals keep nothing; the command line detects a tvcp export —
on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from annotation.services.export import exports
from annotation.services.model import model_scores
from annotation.services.errors import InvalidInput
from annotation.training.change_scoring import NO_INTERVAL_FEW_TARGETS
from db.models import AuditEvent
from pair_gold_data import pair_gold_project
from service_helpers import count


@pytest.fixture
def export(db, lead, tmp_path):
    pid = pair_gold_project(db, lead, n_targets=20)   # 60 pairs; the test split: 2 targets, 6 pairs
    record = exports.export_dataset(db, lead, pid, tmp_path / "export", seed=3)
    return pid, record.id, tmp_path / "export"


def split_rows(folder):
    return [json.loads(line) for line in (folder / "tvcp" / "test.json").read_text().splitlines()]


def predictions(folder, wrong: int = 0) -> bytes:
    """The gold labels of the test split as a CSV, the first ``wrong`` of them changed."""
    flip = {"decreased": "neutral", "neutral": "increased", "increased": "decreased"}
    rows = split_rows(folder)
    return ("_id,change\n" + "".join(f"{r['_id']},{flip[r['change']] if i < wrong else r['change']}\n"
                                     for i, r in enumerate(rows))).encode()


def test_change_labels_are_scored_by_accuracy_and_exact_match_and_ranked(db, lead, export):
    pid, export_id, folder = export
    rows = split_rows(folder)
    assert len(rows) == 6 and len({r["target_id"] for r in rows}) == 2
    one_wrong = model_scores.score_submission(db, lead, pid, export_id, predictions(folder, 1), "mine.csv",
                                              "one wrong", "tvcp")
    assert (one_wrong.name, one_wrong.n_test) == ("one wrong", 6)
    assert one_wrong.figures["accuracy"].value == pytest.approx(5 / 6)
    assert one_wrong.figures["exact_match"].value == pytest.approx(1 / 2)   # the first target is wrong
    assert one_wrong.figures["accuracy"].no_interval == NO_INTERVAL_FEW_TARGETS
    perfect = model_scores.score_submission(db, lead, pid, export_id, predictions(folder), "gold.csv",
                                            "the gold", "tvcp")
    assert perfect.figures["accuracy"].value == perfect.figures["exact_match"].value == 1.0
    board = model_scores.leaderboard(db, lead, pid, export_id, "tvcp")
    assert [e.name for e in board.entries] == ["the gold", "one wrong"]
    assert set(board.entries[0].figures) == {"accuracy", "exact_match"}
    kept = sorted((folder / "scores").glob("*.json"))
    assert len(kept) == 2 and {json.loads(p.read_text())["benchmark"] for p in kept} == {"tvcp"}
    assert count(db, AuditEvent, AuditEvent.action == "score_predictions") == 2
    # indices as the TVCP reader's label map are read too
    index = {"decreased": 0, "neutral": 1, "increased": 2}
    as_indices = "".join(json.dumps({"_id": r["_id"], "change": index[r["change"]]}) + "\n" for r in rows)
    entry = model_scores.score_submission(db, lead, pid, export_id, as_indices.encode(), "i.jsonl", "indices",
                                          "tvcp")
    assert entry.figures["accuracy"].value == 1.0


def test_a_refused_change_file_keeps_and_records_nothing(db, lead, export):
    pid, export_id, folder = export
    good = predictions(folder).decode().splitlines()
    cases = [("\n".join([*good, "P-999-xxx,neutral"]), "line 8: _id 'P-999-xxx' is not in the test split"),
             ("\n".join(good[:-1]), "1 test pair has no prediction"),
             ("\n".join([good[0], good[1].split(",")[0] + ",up", *good[2:]]), "line 2: change must be one of"),
             ("\n".join([good[0], "," + good[1].split(",")[1], *good[2:]]), "line 2: _id is missing"),
             ("\n".join([*good, good[1]]), "also appears on line 2")]
    for data, reason in cases:
        with pytest.raises(InvalidInput, match=reason) as refused:
            model_scores.score_submission(db, lead, pid, export_id, data.encode(), "p.csv", "mine", "tvcp")
        assert "\n" not in str(refused.value) and str(refused.value).endswith("Nothing was scored.")
    # curves asked of a pairs export: it has no benchmark folders
    with pytest.raises(InvalidInput, match="cannot be scored on"):
        model_scores.score_submission(db, lead, pid, export_id, predictions(folder), "p.csv", "mine", 1)
    assert not (folder / "scores").exists()
    assert count(db, AuditEvent, AuditEvent.action == "score_predictions") == 0
    assert model_scores.leaderboard(db, lead, pid, export_id, "tvcp").entries == ()


def test_change_labels_asked_of_a_single_texts_export_are_refused(db, lead, tmp_path):
    from gold_data import gold_project

    pid = gold_project(db, lead, n=9)
    record = exports.export_dataset(db, lead, pid, tmp_path / "single", seed=1, include_agreement=False)
    with pytest.raises(InvalidInput, match="has no tvcp configuration"):
        model_scores.score_submission(db, lead, pid, record.id, b"_id,change\na,neutral\n", "p.csv", "x", "tvcp")


def test_the_command_line_detects_a_tvcp_export(db, lead, export, tmp_path):
    from test_cli import run

    _, export_id, folder = export
    path = tmp_path / "mine.csv"
    path.write_bytes(predictions(folder, 1))
    url = f"sqlite:///{tmp_path / 'never-created.db'}"
    done = run(url, "score", str(folder), str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"export {export_id} · change labels (tvcp) · 6 test pairs · 95% bootstrap")
    assert lines[2].split() == ["Accuracy", "0.8333"] and lines[3].split() == ["Exact", "match", "0.5000"]
    assert any("a bootstrap interval needs ≥ 10 test targets" in line for line in lines)
    kept = run(url, "score", str(folder), str(path), "--json", "--save", "from the shell")
    assert kept.returncode == 0, kept.stderr
    record = json.loads(kept.stdout)
    assert record["benchmark"] == "tvcp" and record["via"] == "command line"
    assert record["score"]["figures"]["exact_match"]["value"] == 0.5
    path.write_bytes(b"_id,change\nnope,neutral\n")
    refused = run(url, "score", str(folder), str(path))
    assert refused.returncode != 0 and "mine.csv: line 2: _id 'nope' is not in the test split; nothing was scored" \
        in refused.stderr


def test_the_command_line_exports_a_pairs_project(db, lead, tmp_path):
    from test_cli import run

    pair_gold_project(db, lead, n_targets=20)
    url = db.engine.url.render_as_string(hide_password=False)
    done = run(url, "export", str(tmp_path / "out"), "--seed", "3", "--quiet", "--user", "lead1")
    assert done.returncode == 0, done.stderr
    assert "pairs (tvcp, a target's follow-ups in one split): 42/12/6" in done.stdout
    assert (tmp_path / "out" / "tvcp" / "valid.csv").is_file()


def test_training_refuses_a_tvcp_export_in_one_line(db, lead, export):
    from annotation.services.jobs import jobs

    pid, export_id, _ = export
    before = count(db, AuditEvent)
    with pytest.raises(InvalidInput, match="context-pairs \\(tvcp\\) export"):
        jobs.launch_training(db, lead, pid, export_id, {"benchmark": 1, "models": ["mean"]}, launcher="")
    assert count(db, AuditEvent) == before
