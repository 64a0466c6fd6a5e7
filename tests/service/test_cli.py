"""The `chronocept` command line against SQLite and PostgreSQL.

Most cases call :func:`cli.main` in this process (a fresh process per call would import the
whole stack each time: minutes of CI for nothing the command does differently); the installed
console script itself is run as a real process by the smoke tests at the end."""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import func, select

import cli
from db.engine import ENV_VAR, Database
from db.models import Project, Sample, User

CLI = str(Path(sys.executable).parent / "chronocept")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'cli.db'}"
    return request.getfixturevalue("postgres_url")


@dataclass
class Done:
    """What a command left: the same three things a process would."""

    returncode: int
    stdout: str
    stderr: str


def run(url: str, *args: str, stdin: str = "") -> Done:
    """``chronocept ARGS`` with ``CHRONOCEPT_DATABASE_URL=url``, run through :func:`cli.main`
    with its own standard streams (standard input is not a terminal, as in a pipe)."""
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_stdin = os.environ.get(ENV_VAR), sys.stdin
    os.environ[ENV_VAR] = url
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved_stdin
        if saved_env is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = saved_env
    return Done(code, out.getvalue(), err.getvalue())


def run_process(url: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The installed console script as a real process."""
    env = {**os.environ, ENV_VAR: url}
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=120)


def count(url: str, model) -> int:
    db = Database.connect(url)
    try:
        with db.read() as s:
            return s.scalar(select(func.count()).select_from(model))
    finally:
        db.dispose()


def test_create_user_import_and_errors(db_url, tmp_path):
    done = run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n")
    assert done.returncode == 0, done.stderr
    assert "created admin boss" in done.stdout

    again = run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n")
    assert again.returncode == 1 and "taken" in again.stderr and len(again.stderr.splitlines()) == 1

    short = run(db_url, "create-user", "ann", "--role", "annotator", stdin="short\n")
    assert short.returncode == 1 and "at least 8" in short.stderr
    assert count(db_url, User) == 1

    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "X-1", "text": "The pool is closed today."}\n'
                     '{"text": "Trains run every hour. The station is busy.", "benchmark": 2}\n')
    done = run(db_url, "import", "texts", str(texts), "--project", "P")
    assert done.returncode == 0, done.stderr
    assert "imported 2 texts (1 benchmark 1, 1 benchmark 2)" in done.stdout
    done = run(db_url, "import", "texts", str(texts), "--project", "P")
    assert "imported 0 texts" in done.stdout and "2 already present" in done.stdout

    bad = tmp_path / "bad.csv"
    bad.write_text("id,text\nA,fine text here\nB\n")
    bad_csv_text = tmp_path / "notext.csv"
    bad_csv_text.write_text("id,body\nA,x\n")
    done = run(db_url, "import", "texts", str(bad_csv_text), "--project", "P")
    assert done.returncode == 1 and "line 1" in done.stderr and "text" in done.stderr
    assert count(db_url, Sample) == 2

    missing = run(db_url, "import", "texts", str(tmp_path / "nope.txt"))
    assert missing.returncode == 1 and "no such file" in missing.stderr


def test_import_needs_an_admin_first(db_url, tmp_path):
    texts = tmp_path / "t.txt"
    texts.write_text("One text here.\n")
    done = run(db_url, "import", "texts", str(texts))
    assert done.returncode == 1 and "create-user" in done.stderr


def test_backup_sqlite_is_a_consistent_copy(tmp_path):
    url = f"sqlite:///{tmp_path / 'live.db'}"
    assert run(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    assert run(url, "demo").returncode == 0
    target = tmp_path / "backups" / "copy.db"
    done = run(url, "backup", str(target))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(target) as conn:
        assert conn.execute("select count(*) from samples").fetchone()[0] == 50
        assert conn.execute("select username from users").fetchall() == [("boss",)]
    assert not list(target.parent.glob(".backup-*"))  # no temporary file left behind


@pytest.mark.postgres
def test_backup_postgres_with_pg_dump(postgres_url, tmp_path):
    import shutil

    if shutil.which("pg_dump") is None:
        pytest.fail("pg_dump is needed for PostgreSQL backups (postgresql-client)")
    assert run(postgres_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    target = tmp_path / "pg.dump"
    done = run(postgres_url, "backup", str(target))
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:5] == b"PGDMP"


def test_import_annotations_from_the_command_line(db_url, tmp_path):
    import json

    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "S-1", "text": "The pool is closed today."}\n')
    assert run(db_url, "import", "texts", str(texts), "--project", "P").returncode == 0
    good = {"sample_id": "S-1", "annotator": "ann03", "boundaries": [0, 3],
            "segment_axes": ["static", "main"], "xi": 70.0, "omega": 8.0, "alpha": 0.0,
            "submitted_at": "2026-11-20T10:31:00Z"}
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps(good) + "\n")
    done = run(db_url, "import", "annotations", str(path))
    assert done.returncode == 0, done.stderr
    assert "imported 1 annotations; 0 already present; new (inactive) accounts: ann03" in done.stdout
    path.write_text(json.dumps({**good, "annotator": "ann04", "sample_id": "S-2"}) + "\n")
    done = run(db_url, "import", "annotations", str(path))
    assert done.returncode == 1 and "line 1: unknown sample_id 'S-2'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_resolve_from_the_command_line(db_url, tmp_path):
    import json

    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "S-1", "text": "The pool is closed today."}\n'
                     '{"id": "S-2", "text": "The bakery opens at nine."}\n')
    assert run(db_url, "import", "texts", str(texts), "--project", "P").returncode == 0
    base = {"segment_axes": ["static", "main"], "omega": 8.0, "alpha": 0.0,
            "submitted_at": "2026-11-20T10:31:00Z"}
    records = [
        {**base, "sample_id": "S-1", "annotator": "a1", "boundaries": [0, 3], "xi": 70.0},
        {**base, "sample_id": "S-1", "annotator": "a2", "boundaries": [0, 3], "xi": 71.0},
        {**base, "sample_id": "S-2", "annotator": "a1", "boundaries": [0, 2], "xi": 70.0},
        {**base, "sample_id": "S-2", "annotator": "a2", "boundaries": [0, 3], "xi": 70.0},
    ]
    path = tmp_path / "ann.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert run(db_url, "import", "annotations", str(path)).returncode == 0
    done = run(db_url, "resolve")
    assert done.returncode == 0, done.stderr
    # the import settled both samples already: this run finds nothing new
    assert done.stdout.strip() == "nothing new to resolve; 1 already in gold, 1 awaiting a lead, 0 incomplete"


def test_agreement_json_from_the_command_line(db_url, tmp_path):
    import json

    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    texts = tmp_path / "texts.jsonl"
    n = 6
    texts.write_text("".join(json.dumps({"id": f"S-{i}", "text": f"Shop {i} is closed today."}) + "\n"
                             for i in range(n)))
    assert run(db_url, "import", "texts", str(texts), "--project", "P").returncode == 0
    records = []
    for i in range(n):  # three annotators per sample (k ≥ 2 is handled), identical labels
        for j, who in enumerate(("a1", "a2", "a3")):
            records.append({"sample_id": f"S-{i}", "annotator": who, "boundaries": [0, 2],
                            "segment_axes": ["static", "main"], "xi": 50.0 + 10 * i + j * 0.1,
                            "omega": 8.0 + i, "alpha": 0.5 * i,
                            "submitted_at": f"2026-11-2{j}T10:00:00Z"})
    path = tmp_path / "ann.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert run(db_url, "import", "annotations", str(path)).returncode == 0
    done = run(db_url, "agreement", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["n_samples"] == n
    assert report["experts"]["seed_items"] == 0 and report["experts"]["annotators"] == []  # no seeds here
    assert report["headline"]["jaccard"] == 1.0 and report["headline"]["pk"] == 0.0
    assert report["headline"]["icc_xi"] > 0.99
    # curve distance, Krippendorff's alpha and the bootstrap intervals (issue 12): k = 3, so each
    # sample's W1 is the mean of its three pairs: 0.1, 0.2 and 0.1 units apart
    assert report["headline"]["w1"] == pytest.approx(0.4 / 3, abs=1e-3)
    assert report["headline"]["alpha_labels"] == 1.0 and report["headline"]["alpha_xi"] > 0.99
    assert set(report["intervals"]) == set(report["headline"])
    low, high = report["intervals"]["w1"]
    assert low <= report["headline"]["w1"] <= high
    assert report["per_sample"][0]["w1"] == pytest.approx(0.4 / 3, abs=1e-3)
    assert report["per_sample"][0]["overlap"] > 0.9
    assert report["measures"]["curve"]["flag_w1_max"] == 12.0
    text = run(db_url, "agreement", "--benchmark", "1")
    assert text.returncode == 0 and "6 samples with 2 or more annotations" in text.stdout
    assert "Krippendorff alpha (axis labels)" in text.stdout and "W1 (curve distance" in text.stdout
    assert "[" in text.stdout  # the intervals
    # six samples cannot support an ICC: withheld with its rule and n (issue 33), the JSON says so too
    assert "ICC(1,1) xi                    — needs ≥ 30 samples with every curve (n = 6)" in text.stdout
    assert report["published"]["icc_xi"]["value"] is None and report["published"]["icc_xi"]["n"] == 6


def test_agreement_json_has_each_annotator_as_an_expert(db_url, tmp_path):
    import json
    import math

    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    n = 12
    texts = tmp_path / "texts.jsonl"  # each with a known outcome: every annotation is a seed
    texts.write_text("".join(json.dumps({"id": f"S-{i}", "text": f"Shop {i} is closed today.",
                                         "stopped_holding_minutes": 1.1 ** (30 + 7 * i)}) + "\n" for i in range(n)))
    assert run(db_url, "import", "texts", str(texts), "--project", "P").returncode == 0
    misses = (-10.0, -6.0, -3.0, -1.0, 0.5, 2.0, 3.5, 6.0, -2.0, 1.0, 8.0, 14.0)
    records = [{"sample_id": f"S-{i}", "annotator": who, "boundaries": [0], "segment_axes": ["main"],
                "xi": 30 + 7 * i - misses[i] - 11.7741, "omega": 10.0, "alpha": 0.0,
                "submitted_at": "2026-11-20T10:00:00Z"}
               for who, count in (("a1", n), ("a2", 4)) for i in range(count)]
    path = tmp_path / "ann.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert run(db_url, "import", "annotations", str(path)).returncode == 0
    done = run(db_url, "agreement", "--json", "--summary")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["experts"]
    assert (found["seed_items"], found["outcome_items"]) == (n, n)
    a1, a2 = found["annotators"]
    assert (a1["annotator"], a1["n_seeds"], a1["n_outcomes"]) == ("a1", n, n)
    assert a1["calibration"]["value"] > 0.05 and a1["calibration"]["n"] == n
    low, high = a1["calibration"]["interval"]
    assert low <= a1["calibration"]["value"] <= high and math.isclose(a1["weight"]["value"], 1.0)
    assert a2["annotator"] == "a2" and a2["n_seeds"] == 4 and a2["calibration"]["value"] is None
    assert a2["calibration"]["withheld"] == "needs ≥ 10 seeds" and a2["calibration"]["needs"]["min_n"] == 10


def test_dedup_and_export_from_the_command_line(tmp_path):
    import json

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert run(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "S-1", "text": "The pool is closed today for repairs."}\n'
                     '{"id": "S-2", "text": "The bakery opens at nine every morning."}\n'
                     '{"id": "S-3", "text": "The pool is closed today for repairs!"}\n')
    assert run(url, "import", "texts", str(texts), "--project", "P").returncode == 0
    done = run(url, "dedup")
    assert done.returncode == 0, done.stderr
    assert "3 texts compared" in done.stdout and "1 new near-duplicates; 1 to review" in done.stdout
    assert "100%" in done.stderr  # the progress bar

    nothing = run(url, "export", str(tmp_path / "out"))
    assert nothing.returncode == 1 and "No sample has gold values yet" in nothing.stderr
    base = {"segment_axes": ["static", "main"], "omega": 8.0, "alpha": 0.0,
            "submitted_at": "2026-11-20T10:31:00Z", "boundaries": [0, 3], "xi": 70.0}
    records = [{**base, "sample_id": s, "annotator": a} for s in ("S-1", "S-2") for a in ("a1", "a2")]
    path = tmp_path / "ann.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert run(url, "import", "annotations", str(path)).returncode == 0
    assert run(url, "resolve").returncode == 0
    done = run(url, "export", str(tmp_path / "out"), "--seed", "4", "--base", "2.718281828", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "export 1 written to" in done.stdout and "seed 4" in done.stdout
    assert "benchmark 1: 2/0/0" in done.stdout and "4 annotations" in done.stdout
    manifest = json.loads((tmp_path / "out" / "export.json").read_text())
    assert manifest["seed"] == 4 and manifest["export_id"] == 1
    again = run(url, "export", str(tmp_path / "out"))
    reason = again.stderr.splitlines()[-1]  # after the progress lines, one line says why
    assert again.returncode == 1 and reason.startswith("chronocept: ") and "not empty" in reason
    assert "or add --overwrite to replace it" in reason  # the command's own option, by name
    bad = run(url, "export", str(tmp_path / "other"), "--base", "1")
    assert bad.returncode == 1 and "base" in bad.stderr and not (tmp_path / "other").exists()
    repeat = run(url, "export", str(tmp_path / "again"), "--reproduce", "1", "--quiet")
    assert repeat.returncode == 0, repeat.stderr
    assert ((tmp_path / "again" / "benchmark_1" / "train.json").read_bytes()
            == (tmp_path / "out" / "benchmark_1" / "train.json").read_bytes())


def test_a_replaced_export_is_listed_as_such_and_a_refusal_records_nothing(db_url, tmp_path):
    import json

    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "S-1", "text": "The pool is closed today for repairs."}\n'
                     '{"id": "S-2", "text": "The bakery opens at nine every morning."}\n')
    assert run(db_url, "import", "texts", str(texts), "--project", "P").returncode == 0
    base = {"segment_axes": ["static", "main"], "omega": 8.0, "alpha": 0.0,
            "submitted_at": "2026-11-20T10:31:00Z", "boundaries": [0, 3], "xi": 70.0}
    records = [{**base, "sample_id": s, "annotator": a} for s in ("S-1", "S-2") for a in ("a1", "a2")]
    (tmp_path / "ann.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert run(db_url, "import", "annotations", str(tmp_path / "ann.jsonl")).returncode == 0
    assert run(db_url, "resolve").returncode == 0
    assert run(db_url, "exports").stdout.strip() == "no exports yet"
    out = tmp_path / "out"
    assert run(db_url, "export", str(out), "--seed", "1", "--quiet").returncode == 0
    # onto a file, even with --overwrite: refused in a line, and no row
    (tmp_path / "a-file").write_text("mine")
    for extra in ((), ("--overwrite",)):
        refused = run(db_url, "export", str(tmp_path / "a-file"), "--quiet", *extra)
        assert refused.returncode == 1 and "not a folder" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    assert len(run(db_url, "exports").stdout.splitlines()) == 1
    done = run(db_url, "export", str(out), "--seed", "2", "--overwrite", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "export 2 written to" in done.stdout and "export 1 wrote that folder before" in done.stdout
    listed = run(db_url, "exports").stdout.splitlines()
    assert [line.split()[0] for line in listed] == ["2", "1"]
    assert "complete" in listed[0] and "replaced by export 2 (same folder)" in listed[1]
    repeat = run(db_url, "export", str(tmp_path / "again"), "--reproduce", "1", "--quiet")
    assert repeat.returncode == 0, repeat.stderr
    assert json.loads((tmp_path / "again" / "export.json").read_text())["seed"] == 1


def test_train_from_the_command_line_needs_no_database(tmp_path):
    from annotation.training import write_synthetic_export

    write_synthetic_export(tmp_path / "export", 120, seed=3)
    env_url = f"sqlite:///{tmp_path / 'never-created.db'}"
    done = run(env_url, "train", str(tmp_path / "export"), "--models", "mean", "linear",
               "--encoder", "hashing", "--run-dir", str(tmp_path / "run"), "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("export synthetic-3-120 · benchmark 1 · 12 test samples · hashing")
    assert "mse" in lines[2] and "curve_crps" in lines[2]
    assert [line.split()[0] for line in lines[4:6]] == ["mean", "linear"]
    # the trivial references are rows of the table too, under the models (issue 33)
    assert lines[6].startswith("Reference: training mean curve") and lines[7].startswith("Reference: per-axis mean")
    # 12 test samples: R² and ρ are withheld by the rule, shown "—" and said why, for every row
    assert {line.split()[4] for line in lines[4:6]} == {line.split()[5] for line in lines[4:6]} == {"—"}
    assert lines[8:10] == ["— R²: withheld, needs ≥ 30 test samples (n = 12)",
                           "— Spearman ρ: withheld, needs ≥ 30 test samples (n = 12)"]
    assert lines[10].startswith("against the references (MSE difference on the same test samples")
    assert lines[12].startswith("  linear: beats the training mean curve (ΔMSE −")
    assert lines[13:] == [
        "not ranked: the test split has 12 samples; ranking models needs ≥ 30 test samples (an export of "
        "about 300 gold samples at a 10 % test share)",
        "not recorded as a training job of a project (predict and audit need one): there is no database at "
        f"{tmp_path / 'never-created.db'} (CHRONOCEPT_DATABASE_URL)"]
    assert (tmp_path / "run" / "metrics.json").is_file()
    assert not (tmp_path / "never-created.db").exists()
    missing = run(env_url, "train", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and missing.stderr.startswith("chronocept: ")
    assert len(missing.stderr.strip().splitlines()) == 1
    # an epoch limit out of bounds is refused in one line (0 was taken for "not given")
    for epochs, why in (("1000000000000", "up to 10000, got 1000000000000"), ("0", "got 0")):
        refused = run(env_url, "train", str(tmp_path / "export"), "--max-epochs", epochs, "--quiet")
        assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
        assert refused.stderr.startswith("chronocept: max_epochs must be a positive integer")
        assert why in refused.stderr


def test_score_from_the_command_line_needs_no_database(tmp_path):
    import json

    from annotation.training import TrainingConfig, load_run, run_training, write_synthetic_export

    export = write_synthetic_export(tmp_path / "export", 120, seed=3)
    run_training(export, tmp_path / "run", TrainingConfig(models=("linear",), encoder="hashing", seed=7))
    row = load_run(tmp_path / "run").row("linear")
    predictions = tmp_path / "run" / row.artefacts["predictions"]
    env_url = f"sqlite:///{tmp_path / 'never-created.db'}"
    done = run(env_url, "score", str(export), str(predictions))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("export synthetic-3-120 · benchmark 1 · 12 test samples · base 1.1 · "
                               "95% bootstrap intervals (1000 resamples, seed ")
    shown = {line[2:14].strip(): line[15:].split(" [")[0] for line in lines[2:10]}   # "  MSE  0.1959 [..]"
    assert shown["MSE"] == f"{row.mse:.4f}" and shown["Curve CRPS"] == f"{row.curve_crps:.4f}"
    assert shown["Spearman ρ"] == "—" and float(shown["Mean W1"]) > 0
    assert lines[10:12] == ["— R²: undefined, needs ≥ 30 test samples (n = 12)",
                            "— Spearman ρ: undefined, needs ≥ 30 test samples (n = 12)"]
    assert lines[2].endswith("]")   # every figure the rule shows, with an interval
    # the trivial references on the same split, and the file against them
    assert lines[12].startswith("references on the same test split")
    assert lines[13].startswith("  Reference: training mean curve: MSE ")
    assert lines[14].startswith("  Reference: per-axis mean: MSE ")
    assert lines[15].startswith("this file against them") and "beats the training mean curve (ΔMSE −" in lines[15]
    assert lines[16].startswith("the test split has 12 samples; ranking models needs ≥ 30 test samples")
    assert len(lines) == 17
    assert not (export / "scores").exists()   # scored, not kept

    kept = run(env_url, "score", str(export), str(predictions), "--json", "--save", "linear, again")
    assert kept.returncode == 0, kept.stderr
    record = json.loads(kept.stdout)
    assert record["name"] == "linear, again" and record["via"] == "command line"
    assert record["score"]["figures"]["r2"]["value"] is None   # withheld on 12 test samples, kept with the rule
    assert record["score"]["figures"]["r2"]["undefined"] == "needs ≥ 30 test samples (n = 12)"
    assert record["vs_reference"]["reference_mean"]["verdict"] == "beats"
    assert record["references"]["reference_mean"]["figures"]["mse"]["value"] == pytest.approx(
        load_run(tmp_path / "run").references[0].mse, rel=1e-9)
    assert Path(record["kept"]).parent == export / "scores" and Path(record["kept"]).is_file()

    bad = tmp_path / "bad.csv"
    bad.write_text("_id,xi,omega,alpha\nB1-00001,50,8,0\n", encoding="utf-8")
    for args, message in (
            ((str(export), str(bad)), "chronocept: bad.csv: line 2: _id 'B1-00001' is not in the test split; "
                                      "nothing was scored"),
            ((str(tmp_path / "run"), str(predictions)), "is not a Chronocept export"),
            ((str(export), str(tmp_path / "none.csv")), "none.csv: no such file")):
        refused = run(env_url, "score", *args, "--save", "x")
        assert refused.returncode == 1 and message in refused.stderr and not refused.stdout
        assert len(refused.stderr.strip().splitlines()) == 1
    assert len(list((export / "scores").glob("*.json"))) == 1 and not (tmp_path / "never-created.db").exists()


def test_refused_imports_create_nothing_and_never_show_a_traceback(tmp_path):
    import json

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert run(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    like = run(url, "create-user", "BOSS", "--role", "lead", stdin="long-enough-pw\n")
    assert like.returncode == 1 and "looks like the existing account 'boss'" in like.stderr
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"text": "The pool is closed today."}\n' + "[" * 100_000 + "\n")
    unclosed = tmp_path / "unclosed.csv"
    unclosed.write_text('text\nThe pool is closed today.\n"The shop is shut\n')
    for path, reason in ((deep, "line 2: the JSON is nested too deeply"), (unclosed, "line 3: malformed CSV")):
        done = run(url, "import", "texts", str(path), "--project", "New")
        assert done.returncode == 1 and reason in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1  # one line, no traceback
    db = Database.connect(url)
    try:
        with db.read() as s:
            assert s.scalar(select(func.count()).select_from(Project)) == 0  # --project New not made
    finally:
        db.dispose()

    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "S-1", "text": "The pool is closed today."}\n')
    assert run(url, "import", "texts", str(texts), "--project", "New").returncode == 0
    good = {"sample_id": "S-1", "annotator": "ann03", "boundaries": [0], "segment_axes": ["main"],
            "xi": 70.0, "omega": 8.0, "alpha": 0.0, "submitted_at": "2026-11-20T10:31:00Z"}
    for bad, reason in (({"submitted_at": "9999-01-01T00:00:00Z"}, "in the future"),
                        ({"xi": 1e308, "omega": 1e308, "alpha": 1e308}, "outside the fit's range"),
                        ({"annotator": "<script>alert(1)</script>"}, "not a valid username")):
        path = tmp_path / "ann.jsonl"
        path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "annotator": "ann04", **bad}) + "\n")
        done = run(url, "import", "annotations", str(path))
        assert done.returncode == 1 and "line 2:" in done.stderr and reason in done.stderr, done.stderr
    path.write_text("[" * 100_000 + "\n")
    done = run(url, "import", "annotations", str(path))
    assert done.returncode == 1 and "line 1: the JSON is nested too deeply" in done.stderr
    assert count(url, User) == 1


def test_a_text_file_too_large_is_refused_before_it_is_read(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert run(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    big = tmp_path / "big.txt"
    with big.open("wb") as f:
        f.truncate(21 * 2**20)  # sparse: 21 MB on paper, nothing to read
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"".join(b"Shop %06d open\n" % i for i in range(1_000_000)))  # 17 MB
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or real(self))
    done = run(url, "import", "texts", str(big), "--project", "New")
    assert done.returncode == 1 and reads == []
    assert done.stderr == "chronocept: big.txt: the file is larger than 20 MB. Nothing was imported.\n"
    done = run(url, "import", "texts", str(huge), "--project", "New")
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert "huge.txt: the file has 1,000,000 lines; at most 200,000" in done.stderr
    assert count(url, Project) == 0


def test_the_installed_console_script_runs_as_a_process(tmp_path):
    """One real process per kind of ending: success, a refused command (one line on stderr, no
    traceback), a usage error, and ``python -m cli``."""
    assert Path(CLI).exists()
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    done = run_process(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n")
    assert done.returncode == 0 and "created admin boss" in done.stdout, done.stderr
    again = run_process(url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n")
    assert again.returncode == 1 and again.stderr.startswith("chronocept: ") and "taken" in again.stderr
    assert len(again.stderr.splitlines()) == 1
    usage = run_process(url, "no-such-command")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr
    module = subprocess.run([sys.executable, "-m", "cli", "--help"], capture_output=True, text=True,
                            timeout=120)
    assert module.returncode == 0 and "create-user" in module.stdout
    assert count(url, User) == 1
