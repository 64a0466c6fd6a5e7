"""``chronocept import pairs`` and ``import annotations`` for a context-pairs project, against
SQLite and PostgreSQL, through :func:`cli.main` (as tests/service/test_cli.py does)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from db.engine import Database
from db.models import Annotation, Project, Sample, SamplePair
from test_cli import run

TVCP = ("context,follow_up,context_only_tv,combined_tv,change\n"
        "Job interview tomorrow; wish me luck.,They just moved it to next Friday.,8,9,increased\n"
        "Job interview tomorrow; wish me luck.,It was cancelled this morning.,8,0,decreased\n")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'cli.db'}"
    return request.getfixturevalue("postgres_url")


def _read(url: str, query):  # type: ignore[no-untyped-def]
    db = Database.connect(url)
    try:
        with db.read() as s:
            return s.execute(query).all()
    finally:
        db.dispose()


def test_import_pairs_creates_a_pairs_project_and_refuses_in_one_line(db_url, tmp_path):
    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    path = tmp_path / "tvcp.csv"
    path.write_text(TVCP)
    done = run(db_url, "import", "pairs", str(path), "--project", "TVCP")
    assert (done.returncode, done.stdout.strip(), done.stderr) == (
        0, "imported 2 pairs of 1 target; 0 already present", "")
    [(settings,)] = _read(db_url, select(Project.settings).where(Project.name == "TVCP"))
    assert settings["protocol"] == "pairs"
    assert _read(db_url, select(SamplePair.reference_alone, SamplePair.reference_given, SamplePair.reference_change)
                 .order_by(SamplePair.sample_id)) == [(8, 9, "increased"), (8, 0, "decreased")]
    again = run(db_url, "import", "pairs", str(path), "--project", "TVCP")
    assert again.stdout.strip() == "imported 0 pairs of 0 targets; 2 already present"

    bad = tmp_path / "bad.csv"
    bad.write_text(TVCP + "Rain today.,It stopped.,3,4,sideways\n")
    done = run(db_url, "import", "pairs", str(bad), "--project", "TVCP")
    assert done.returncode == 1 and done.stderr == (
        "chronocept: bad.csv: line 4: change must be decreased, neutral or increased, not 'sideways'. "
        "Nothing was imported.\n")
    texts = tmp_path / "texts.txt"
    texts.write_text("The pool is closed today.\n")
    done = run(db_url, "import", "texts", str(texts), "--project", "TVCP")
    assert done.returncode == 1 and done.stderr == (
        "chronocept: 'TVCP' is a context pairs project: it takes pairs, not texts. Nothing was imported.\n")
    assert _read(db_url, select(func.count()).select_from(Sample)) == [(2,)]
    missing = run(db_url, "import", "pairs", str(tmp_path / "nope.csv"))
    assert missing.returncode == 1 and "no such file" in missing.stderr


def test_import_annotations_of_pairs_from_the_command_line(db_url, tmp_path):
    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "P1", "target": "Gym class at six tonight.", "follow_up": "It moved to seven."}))
    assert run(db_url, "import", "pairs", str(pairs)).returncode == 0  # "Default project", a pairs project
    record = {"sample_id": "P1", "annotator": "ann03", "xi": 60.0, "omega": 8.0, "alpha": 0.0,
              "context_xi": 61.0, "context_omega": 8.0, "context_alpha": 0.0, "change": "increased",
              "submitted_at": "2026-11-20T10:31:00Z"}
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps(record) + "\n")
    done = run(db_url, "import", "annotations", str(path))
    assert done.returncode == 0, done.stderr
    assert "imported 1 annotations" in done.stdout
    assert _read(db_url, select(Annotation.context_xi, Annotation.change)) == [(61.0, "increased")]


def test_demo_with_the_pairs_project(db_url):
    assert run(db_url, "create-user", "boss", "--role", "admin", stdin="long-enough-pw\n").returncode == 0
    done = run(db_url, "demo", "--pairs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Demo project: 50 texts; Demo pairs project: 30 pairs"
