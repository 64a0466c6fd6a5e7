"""Export service: folder + record, reproduction, refusals, statistics — SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import signal
import threading
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from annotation import export as hf_export
from annotation.export import writer as export_writer
from annotation.export.figures import FigureInput
from annotation.services.export import export_downloads, exports
from annotation.services.review import resolving
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from db.models import AuditEvent, DatasetExport, GoldAnnotation, Sample
from gold_data import gold_project
from gone_processes import pid_of_no_process
from service_helpers import count, run_cli


@pytest.fixture
def gold(db, lead):
    return gold_project(db, lead, n=30)


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_export_writes_the_folder_and_records_it(db, lead, gold, tmp_path):
    out = tmp_path / "ds"
    steps = []
    rec = exports.export_dataset(db, lead, gold, out, seed=7, progress=lambda f, m: steps.append(f))
    assert rec.status == "complete" and rec.path == str(out.resolve()) and rec.seed == 7
    assert rec.split_sizes == {1: {"train": 14, "validation": 4, "test": 2},
                               2: {"train": 7, "validation": 2, "test": 1}}
    assert rec.n_annotations == 60 and steps[-1] == 1.0
    with db.read() as s:
        gold_by_id = {e: g for e, g in s.execute(
            select(Sample.external_id, GoldAnnotation).join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id))}
        row = s.get(DatasetExport, rec.id)
        assert row.status == "complete" and row.created_by == lead.user_id
        assert sorted(row.splits["benchmark_1"]["train"]) == row.splits["benchmark_1"]["train"]
    # every record is the database's gold, in the SPEC's key order, in the project's base 1.1
    seen = set()
    for config in ("benchmark_1", "benchmark_2"):
        for split, name in hf_export.SPLIT_FILES.items():
            for r in read_lines(out / config / name):
                g = gold_by_id[r["_id"]]
                assert list(r) == ["_id", "parent_text", "axes", "target_values", "provenance"]
                assert r["provenance"]["resolution"] == "automatic" and r["provenance"]["confidence"] is None
                assert list(r["target_values"]) == ["location", "scale", "skewness"]
                assert r["target_values"] == {"location": g.xi, "scale": g.omega, "skewness": g.alpha}
                assert r["axes"]["main_outcome_axis"] == " ".join(r["parent_text"].split()[:5])
                assert sum(bool(v) for v in r["axes"].values()) == 2
                assert r["_id"] in row.splits[config][split]
                seen.add(r["_id"])
    assert seen == set(gold_by_id)
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["export_id"] == rec.id and manifest["agreement"]["benchmark_1"]["n_samples"] == 20
    annotators = {a["annotator"] for split in hf_export.SPLIT_FILES.values()
                  for a in read_lines(out / "annotations" / split)}
    assert annotators and all(a.startswith("ann") and a not in ("ann_x", "ann_y") for a in annotators)
    assert count(db, AuditEvent, AuditEvent.action == "export_dataset") == 1
    assert [e.id for e in exports.list_exports(db, lead, gold)] == [rec.id]


def test_reproducing_an_export_gives_the_same_files(db, lead, gold, tmp_path):
    first = exports.export_dataset(db, lead, gold, tmp_path / "a", base=math.e, seed=3, licence="mit")
    again = exports.export_dataset(db, lead, gold, tmp_path / "b", reproduce=first.id)
    assert (again.base, again.seed, again.licence, again.reproduces_id) == (math.e, 3, "mit", first.id)
    for config in ("benchmark_1", "benchmark_2", "annotations"):
        for name in hf_export.SPLIT_FILES.values():
            assert (tmp_path / "a" / config / name).read_bytes() == (tmp_path / "b" / config / name).read_bytes()
    r = read_lines(tmp_path / "a" / "benchmark_1" / "train.json")[0]
    with db.read() as s:
        g = s.scalar(select(GoldAnnotation).join(Sample).where(Sample.external_id == r["_id"]))
    assert r["target_values"]["location"] == pytest.approx(g.xi * math.log(1.1))
    assert r["target_values"]["skewness"] == pytest.approx(g.alpha)


def test_a_different_seed_gives_a_different_split(db, lead, gold, tmp_path):
    a = exports.export_dataset(db, lead, gold, tmp_path / "a", seed=1)
    b = exports.export_dataset(db, lead, gold, tmp_path / "b", seed=2)
    with db.read() as s:
        assert s.get(DatasetExport, a.id).splits != s.get(DatasetExport, b.id).splits


def test_refusals_write_nothing(db, lead, gold, tmp_path, make_user, monkeypatch):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    with pytest.raises(InvalidInput, match="not empty"):
        exports.export_dataset(db, lead, gold, busy)
    assert [p.name for p in busy.iterdir()] == ["keep.txt"]
    with pytest.raises(PermissionDenied):
        exports.export_dataset(db, make_user("ann1"), gold, tmp_path / "x")
    with pytest.raises(InvalidInput, match="base"):
        exports.export_dataset(db, lead, gold, tmp_path / "x", base=1.0)
    with pytest.raises(NotFound):
        exports.export_dataset(db, lead, gold, tmp_path / "x", reproduce=12345)
    assert count(db, DatasetExport) == 0 and not (tmp_path / "x").exists()


def test_a_refused_destination_leaves_no_row(db, lead, gold, tmp_path):
    """The target is a file (with or without overwrite), or a folder with files and no overwrite:
    refused before anything is recorded."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    for target, overwrite in ((a_file, False), (a_file, True), (busy, False)):
        with pytest.raises(InvalidInput, match="not a folder|not empty"):
            exports.export_dataset(db, lead, gold, target, overwrite=overwrite)
    assert count(db, DatasetExport) == 0
    assert a_file.read_text() == "mine" and [p.name for p in busy.iterdir()] == ["keep.txt"]


def test_a_destination_taken_while_writing_leaves_no_row(db, lead, gold, tmp_path, monkeypatch):
    """Something appears at the target after the checks (another export, a person): the rename
    is refused, and the refusal records nothing either."""
    out = tmp_path / "raced"
    real = export_writer.write_export

    def taken_meanwhile(out_dir, *args, **kwargs):
        out_dir.mkdir()
        (out_dir / "theirs.txt").write_text("theirs")
        return real(out_dir, *args, **kwargs)

    monkeypatch.setattr(hf_export, "write_export", taken_meanwhile)
    with pytest.raises(InvalidInput, match="not empty"):
        exports.export_dataset(db, lead, gold, out)
    assert count(db, DatasetExport) == 0 and [p.name for p in out.iterdir()] == ["theirs.txt"]


def test_overwriting_an_exports_folder_marks_that_export_replaced(db, lead, gold, tmp_path):
    out = tmp_path / "release"
    first = exports.export_dataset(db, lead, gold, out, seed=1)
    second = exports.export_dataset(db, lead, gold, out, seed=2, overwrite=True)
    assert second.status == "complete" and second.replaces == (first.id,)
    by_id = {e.id: e for e in exports.list_exports(db, lead, gold)}
    old = by_id[first.id]
    assert (old.status, old.replaced_by) == ("replaced", second.id)
    assert old.status_text == f"replaced by export {second.id} (same folder)"
    assert not old.holds_its_files and by_id[second.id].holds_its_files
    assert json.loads((out / "export.json").read_text())["export_id"] == second.id
    # what the old row would serve is the other export's files: refused, in a line
    with pytest.raises(NotFound, match=f"replaced by export {second.id}"):
        export_downloads.zip_of_export(db, lead, first.id)
    with pytest.raises(InvalidInput, match=f"replaced by export {second.id}"):
        exports.export_statistics(db, lead, first.id)
    # "Repeat exactly" of the replaced export writes it anew, into a new folder
    again = exports.export_dataset(db, lead, gold, tmp_path / "again", reproduce=first.id)
    assert (again.status, again.seed, again.replaces) == ("complete", 1, ())
    assert exports.list_exports(db, lead, gold)[-1].status == "replaced"


def test_an_export_into_a_gone_exports_folder_marks_that_export_replaced(db, lead, gold, tmp_path):
    """The folder of an export was removed by hand; a new export to the same place (no
    overwrite needed) leaves the old row pointing at the new files otherwise."""
    out = tmp_path / "release"
    first = exports.export_dataset(db, lead, gold, out, seed=1)
    shutil.rmtree(out)
    second = exports.export_dataset(db, lead, gold, out, seed=2)
    assert exports.get_export(db, lead, first.id).replaced_by == second.id


def test_a_project_without_gold_cannot_be_exported(db, lead, make_project, tmp_path):
    pid = make_project(5)
    with pytest.raises(InvalidInput, match="gold"):
        exports.export_dataset(db, lead, pid, tmp_path / "x")
    assert count(db, DatasetExport) == 0


def test_a_failed_write_is_recorded_and_leaves_no_folder(db, lead, gold, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(export_writer, "write_json_lines", broken)
    out = tmp_path / "exports" / "x"
    out.parent.mkdir()
    with pytest.raises(InvalidInput, match="disk full"):
        exports.export_dataset(db, lead, gold, out)
    assert list(out.parent.iterdir()) == []  # neither the folder nor a temporary one
    (rec,) = exports.list_exports(db, lead, gold)
    assert rec.status == "failed" and "disk full" in rec.error


@pytest.fixture
def started(monkeypatch):
    """Every figures process started while the test runs (exports of any size start one)."""
    processes = []
    original = exports.FiguresProcess.__init__

    def counted(self):
        processes.append(self)
        original(self)

    monkeypatch.setattr(exports.FiguresProcess, "__init__", counted)
    monkeypatch.setattr(exports, "FIGURES_PROCESS_MIN_SAMPLES", 1)
    return processes


def test_figures_computed_in_a_second_process_give_the_same_files(db, lead, gold, tmp_path, monkeypatch,
                                                                   started):
    # a large export computes its provenance and card figures in a child interpreter
    with monkeypatch.context() as small:
        small.setattr(exports, "FIGURES_PROCESS_MIN_SAMPLES", 10**9)
        here = exports.export_dataset(db, lead, gold, tmp_path / "here", seed=5)
    assert started == []
    child = exports.export_dataset(db, lead, gold, tmp_path / "child", seed=5)
    assert len(started) == 1 and started[0]._child.returncode == 0
    assert not started[0]._folder.exists()  # its input and output files are removed
    for config in hf_export.CONFIGS:
        for name in hf_export.SPLIT_FILES.values():
            assert (tmp_path / "here" / config / name).read_bytes() == (tmp_path / "child" / config / name).read_bytes()
    card = [json.loads((tmp_path / d / "export.json").read_text())["agreement"] for d in ("here", "child")]
    assert card[0] == card[1] and card[0]["benchmark_1"]["w1"] is not None
    assert (here.status, child.status) == ("complete", "complete")


@pytest.mark.parametrize("in_child", [True, False], ids=["process", "thread"])
def test_figures_that_cannot_be_computed_fail_the_export_and_write_nothing(db, lead, gold, tmp_path, monkeypatch,
                                                                           in_child):
    # the counts do not pair with the annotations: the child fails, and so does the app after it
    compute = exports.FiguresInThread.compute

    def corrupted(self, data):
        return compute(self, dataclasses.replace(data, counts=[10**6]))

    if in_child:
        monkeypatch.setattr(exports, "FIGURES_PROCESS_MIN_SAMPLES", 1)
        original = exports.FiguresProcess._compute_in_child
        monkeypatch.setattr(exports.FiguresProcess, "_compute_in_child",
                            lambda self, data: original(self, dataclasses.replace(data, counts=[10**6])))
    monkeypatch.setattr(exports.FiguresInThread, "compute", corrupted)
    out = tmp_path / "exports" / "x"
    out.parent.mkdir()
    with pytest.raises(InvalidInput, match=r"its figures could not be computed \(IndexError"):
        exports.export_dataset(db, lead, gold, out)
    assert list(out.parent.iterdir()) == []
    (rec,) = exports.list_exports(db, lead, gold)
    assert rec.status == "failed" and "IndexError" in rec.error


def test_a_child_that_cannot_run_leaves_the_figures_to_the_app(db, lead, gold, tmp_path, monkeypatch, caplog):
    exports.export_dataset(db, lead, gold, tmp_path / "here", seed=5)
    monkeypatch.setattr(exports, "FIGURES_PROCESS_MIN_SAMPLES", 1)
    monkeypatch.setattr(exports.FiguresProcess, "module", "annotation.no_such_module")
    rec = exports.export_dataset(db, lead, gold, tmp_path / "there", seed=5)
    assert rec.status == "complete" and "computing them in the app instead" in caplog.text
    for config in hf_export.CONFIGS:
        for name in hf_export.SPLIT_FILES.values():
            assert (tmp_path / "here" / config / name).read_bytes() == (tmp_path / "there" / config / name).read_bytes()


def test_a_stopped_figures_process_times_out_and_is_killed(monkeypatch):
    monkeypatch.setattr(exports, "FIGURES_TIMEOUT_S", 1.0)
    data = FigureInput(("s1",), (1,), (3,), (1,), ("ann01",), (datetime(2026, 11, 20),), ((0,),), (("main",),),
                       (40.0,), (10.0,), (0.0,), gold=(("s1", "auto", None, None),))
    with exports.FiguresProcess() as process:
        os.kill(process._child.pid, signal.SIGSTOP)
        with pytest.raises(exports.FiguresFailed, match="took longer than 1 s"):
            process.compute(data)
        assert process._child.poll() is not None  # killed, not left stopped
    assert not process._folder.exists()


class LeftThePage(BaseException):
    """What Streamlit raises in the script thread when the person leaves or reruns the page."""


@pytest.mark.parametrize("at", [0.1, 0.35, 1.0])
def test_an_export_interrupted_by_its_progress_report_leaves_no_row_writing(db, lead, gold, tmp_path, started,
                                                                            at):
    def progress(fraction, message):
        if fraction == at:
            raise LeftThePage()

    out = tmp_path / "exports" / "x"
    out.parent.mkdir()
    with pytest.raises(LeftThePage):
        exports.export_dataset(db, lead, gold, out, progress=progress)
    assert count(db, DatasetExport, DatasetExport.status == "writing") == 0
    (process,) = started
    assert process._child.poll() is not None and not process._folder.exists()
    if at == 1.0:  # the folder was complete: so is its row
        (rec,) = exports.list_exports(db, lead, gold)
        assert rec.status == "complete" and [p.name for p in out.parent.iterdir()] == ["x"]
    else:
        assert list(out.parent.iterdir()) == [] and count(db, DatasetExport) == 0


def test_a_figures_process_not_asked_is_stopped_and_cleaned_up(db, lead, gold, tmp_path, started):
    # refused after the read (the folder is not empty): the child started for it does not linger
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(InvalidInput, match="not empty"):
        exports.export_dataset(db, lead, gold, tmp_path / "full")
    (process,) = started
    assert process._child.poll() is not None and not process._folder.exists()
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine" and count(db, DatasetExport) == 0


def test_statistics_and_zip_of_an_export(db, lead, gold, tmp_path):
    rec = exports.export_dataset(db, lead, gold, tmp_path / "ds", seed=5)
    stats = exports.export_statistics(db, lead, rec.id)
    assert stats.statistics[1].split_sizes == {"train": 14, "validation": 4, "test": 2}
    assert stats.statistics[2].overall.n_samples == 10
    assert stats.statistics[1].overall.axis_counts["main_outcome_axis"] == 20
    blob = export_downloads.zip_of_export(db, lead, rec.id)
    assert blob[:2] == b"PK"
    import shutil

    shutil.rmtree(tmp_path / "ds")
    with pytest.raises(NotFound, match="no longer"):
        exports.export_statistics(db, lead, rec.id)


def test_readiness_counts_gold_and_what_is_unsettled(db, lead, gold, make_project):
    ready = exports.export_readiness(db, lead, gold)
    assert (ready.gold_by_benchmark, ready.without_gold, ready.n_gold) == ({1: 20, 2: 10}, 0, 30)
    assert (ready.pending_duplicates, ready.open_reviews) == (0, 0)
    fresh = exports.export_readiness(db, lead, make_project(4))
    assert (fresh.n_gold, fresh.without_gold) == (0, 4)


def test_the_export_loads_with_datasets_and_matches_the_database(db, lead, gold, tmp_path, monkeypatch):
    """Round trip: export → ``exports.load_dataset`` offline → compare with the stored gold."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    import datasets as hf

    from annotation.axes import EXPORT_KEYS

    rec = exports.export_dataset(db, lead, gold, tmp_path / "ds", seed=9)
    with db.read() as s:
        stored = {e: (g, t) for e, g, t in s.execute(
            select(Sample.external_id, GoldAnnotation, Sample.parent_text)
            .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id))}
    for benchmark, config in ((1, "benchmark_1"), (2, "benchmark_2")):
        loaded = hf.load_dataset(str(tmp_path / "ds"), config, cache_dir=str(tmp_path / "hf"))
        assert {split: loaded[split].num_rows for split in loaded} == rec.split_sizes[benchmark]
        for split in loaded:
            for row in loaded[split]:
                g, text = stored[row["_id"]]
                assert row["parent_text"] == text and list(row["axes"]) == list(EXPORT_KEYS)
                assert list(row["target_values"]) == ["location", "scale", "skewness"]
                assert row["target_values"] == {"location": g.xi, "scale": g.omega, "skewness": g.alpha}
    annotations = hf.load_dataset(str(tmp_path / "ds"), "annotations", cache_dir=str(tmp_path / "hf"))
    assert sum(annotations[split].num_rows for split in annotations) == rec.n_annotations == 60


def shifted_project(db, lead, n: int = 12) -> int:
    """``n`` benchmark-1 texts whose second annotator drew the first one's curve 4–8 log-time
    units later (W1 = the shift) with the same segments; ω and α the same everywhere (their
    ICC has no variance)."""
    from annotation.services.corpus import annotation_import
    from annotation.services.projects import projects
    from annotation.services.corpus import text_imports
    from annotation.corpus.text_import import TextRecord

    p = projects.create_project(db, lead, "Shifted")
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"On day {i} the team will finish the report and then everybody rests.", 1,
                   f"S-{i:03d}", i + 1) for i in range(n)])
    lines = [json.dumps({"sample_id": f"S-{i:03d}", "annotator": who, "boundaries": [0, 5],
                         "segment_axes": ["main", "static"], "xi": 40.0 + 2 * i + shift, "omega": 8.0,
                         "alpha": 0.5, "submitted_at": "2026-11-02T10:00:00Z"})
             for i in range(n) for who, shift in (("ann_x", 0.0), ("ann_y", 4.0 + i % 5))]
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "shifted.jsonl")
    resolving.resolve_project(db, lead, p.id)
    return p.id


def test_the_card_states_w1_and_alpha_with_their_intervals(db, lead, tmp_path):
    pid = shifted_project(db, lead, n=30)  # ICC and Krippendorff's α need 30 samples
    rec = exports.export_dataset(db, lead, pid, tmp_path / "b11", seed=4)
    n = rec.split_sizes[1]
    manifest = json.loads((tmp_path / "b11" / "export.json").read_text(encoding="utf-8"))
    figures = manifest["agreement"]["benchmark_1"]
    assert figures["n_samples"] == sum(n.values()) == 30 and figures["w1_base"] == 1.1
    assert figures["settled"]["n_samples"] == 30 and figures["excluded"] == {}
    assert figures["w1"] == pytest.approx(4 + sum(i % 5 for i in range(30)) / 30, abs=0.02)
    low, high = figures["intervals"]["w1"]
    assert low < high
    assert low <= figures["w1"] <= high and figures["intervals"]["alpha_xi"][0] <= figures["alpha_xi"]
    assert figures["bootstrap"]["seed"] == 20261124 and figures["bootstrap"]["resamples"] == 1000
    card = (tmp_path / "b11" / "README.md").read_text(encoding="utf-8")
    w1_line = next(line for line in card.splitlines() if line.startswith("- Curve distance W1 "))
    assert w1_line == (f"- Curve distance W1 {figures['w1']:.2f} base-1.1 log-time units "
                       f"[{low:.2f}, {high:.2f}] (curves ≈ ×{1.1 ** figures['w1']:.1f} apart in time) (n = 30)")
    assert f"- Krippendorff's α (ξ) {figures['alpha_xi']:.3f} [" in card
    assert "- ICC(1,1) of scale ω — every rating has the same value (no variance) (n = 30)" in card
    assert "- Krippendorff's α (ω) — no variation: every annotation gives the same value" in card
    section = card.split("## Agreement", 1)[1].split("## Licence", 1)[0]
    assert "seed 20261124" in section and "None" not in section and "nan" not in section.lower()
    # in base e, W1 is written in base-e units like location and scale; the time factor stays
    exports.export_dataset(db, lead, pid, tmp_path / "e", seed=4, base=math.e)
    card_e = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    w1_e = json.loads((tmp_path / "e" / "export.json").read_text())["agreement"]["benchmark_1"]["w1"]
    assert w1_e == pytest.approx(figures["w1"] * math.log(1.1))
    assert f"- Curve distance W1 {w1_e:.3f} base-2.71828 log-time units [" in card_e
    assert f"(curves ≈ ×{1.1 ** figures['w1']:.1f} apart in time)" in card_e
    # without agreement figures the card says so
    exports.export_dataset(db, lead, pid, tmp_path / "none", seed=4, include_agreement=False)
    assert "No agreement figures were given" in (tmp_path / "none" / "README.md").read_text(encoding="utf-8")


# --- exports killed mid-write ------------------------------------------------------------------

def _dead_pid() -> int:
    return pid_of_no_process()


def _staging(out: Path, suffix: str, writer: dict | None, files: int = 2) -> Path:
    folder = out.parent / f".{out.name}.tmp-{suffix}"
    (folder / "benchmark_1").mkdir(parents=True)
    for i in range(files):
        (folder / "benchmark_1" / f"part{i}.json").write_text("{}\n")
    if writer is not None:
        (folder / hf_export.WRITER_MARKER).write_text(json.dumps(writer))
    return folder


def _writing_row(db, project_id: int, lead, out: Path, writer: dict | None, age_s: float = 0.0) -> int:
    from datetime import datetime, timedelta, timezone

    with db.write() as s:
        row = DatasetExport(project_id=project_id, created_by=lead.user_id, path=str(out.resolve()),
                            base=1.1, seed=1, licence="cc-by-4.0", status="writing",
                            created_at=datetime.now(timezone.utc) - timedelta(seconds=age_s),
                            settings={"ratios": [0.7, 0.2, 0.1], **({"writer": writer} if writer else {})})
        s.add(row)
        s.flush()
        return row.id


def test_an_export_killed_mid_write_is_cleaned_up_at_the_next_visit(db, lead, gold, tmp_path):
    """A killed export (its process gone) leaves a ``writing`` row and a hidden staging folder:
    the Export page's first call marks the row failed (its worker stopped) and removes the folder,
    and leaves alone what a live export (this host or another) or anything else owns."""
    import os
    import socket
    import time

    host, dead = socket.gethostname(), _dead_pid()
    out = tmp_path / "exports" / "ds"
    killed_row = _writing_row(db, gold, lead, out, {"host": host, "pid": dead})
    killed = _staging(out, "k1ll3d_x", {"host": host, "pid": dead, "started": time.time()})
    # a live export of this process, and one of another app server (cannot be checked: kept
    # until it is an hour old), to other folders beside it
    live_row = _writing_row(db, gold, lead, tmp_path / "exports" / "live",
                            {"host": host, "pid": os.getpid()})
    live = _staging(tmp_path / "exports" / "live", "l1ve0000", {"host": host, "pid": os.getpid(),
                                                                 "started": time.time()})
    remote_row = _writing_row(db, gold, lead, tmp_path / "exports" / "remote",
                              {"host": host + "-other", "pid": 1})
    remote = _staging(tmp_path / "exports" / "remote", "r3mote00",
                      {"host": host + "-other", "pid": 1, "started": time.time()})
    # another server's export to "ds" itself, still running: same name pattern, live owner
    other = _staging(out, "0ther000", {"host": host + "-other", "pid": 1, "started": time.time()})
    # not ours: wrong pattern, and a previous export moved aside during an overwrite
    unrelated = [tmp_path / "exports" / ".ds.tmp-short", tmp_path / "exports" / ".ds.old-12345678",
                 tmp_path / "exports" / "ds.tmp-abcdefgh"]
    for folder in unrelated:
        folder.mkdir()

    exports.export_readiness(db, lead, gold)

    with db.read() as s:
        rows = {r.id: r for r in s.scalars(select(DatasetExport))}
    assert (rows[killed_row].status, rows[killed_row].error) == ("failed", "the worker stopped without finishing")
    assert rows[live_row].status == "writing" and rows[remote_row].status == "writing"
    assert not killed.exists()
    assert live.exists() and remote.exists() and other.exists()
    assert all(folder.exists() for folder in unrelated)
    assert count(db, AuditEvent, AuditEvent.action == "export_interrupted") == 1

    # the next export into the same folder works and leaves only its own folder behind
    rec = exports.export_dataset(db, lead, gold, out, seed=1)
    assert rec.status == "complete" and (out / "export.json").is_file()
    assert not (out / hf_export.WRITER_MARKER).exists()


def test_exports_of_another_server_are_interrupted_only_after_an_hour(db, lead, gold, tmp_path):
    """Another host's process cannot be checked: its row and folder count as live until they
    are older than any export takes (ABANDONED_AFTER_SECONDS); a row written without a writer
    (an older version) is judged by its age alone."""
    import os
    import socket
    import time

    old = hf_export.ABANDONED_AFTER_SECONDS + 60
    out = tmp_path / "exports" / "far"
    far_row = _writing_row(db, gold, lead, out, {"host": socket.gethostname() + "-far", "pid": 1}, age_s=old)
    far = _staging(out, "f4r00000", {"host": socket.gethostname() + "-far", "pid": 1,
                                     "started": time.time() - old})
    legacy_row = _writing_row(db, gold, lead, tmp_path / "exports" / "legacy", None, age_s=old)
    legacy = _staging(tmp_path / "exports" / "legacy", "l3gacy00", None)
    os.utime(legacy, (time.time() - old, time.time() - old))
    recent_row = _writing_row(db, gold, lead, tmp_path / "exports" / "recent", None, age_s=60)

    assert sorted(exports.recover_interrupted_exports(db)) == sorted([far_row, legacy_row])
    assert not far.exists() and not legacy.exists()
    with db.read() as s:
        assert s.get(DatasetExport, recent_row).status == "writing"


def test_a_killed_export_process_is_recovered(db, lead, gold, tmp_path):
    """The real thing: an export in a subprocess is killed (SIGKILL) while writing its files;
    every listing shows it failed at once."""
    import os
    import signal
    import subprocess
    import sys

    out = tmp_path / "exports" / "killed"
    script = (
        "import sys, time\n"
        "from annotation.export import writer as export_writer\n"
        "from annotation.services.export import exports\n"
        "from annotation.services.authz import Actor\n"
        "from db.engine import Database\n"
        "original = export_writer.write_json_lines\n"
        "def slow(path, lines):\n"
        "    original(path, lines)\n"
        "    print('WRITING', flush=True)\n"
        "    time.sleep(600)\n"
        "export_writer.write_json_lines = slow\n"
        f"db = Database.connect({db.engine.url.render_as_string(hide_password=False)!r}, upgrade=False)\n"
        f"exports.export_dataset(db, Actor({lead.user_id}, {lead.username!r}, 'lead', ''), {gold},"
        f" {str(out)!r}, seed=1, include_agreement=False)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "WRITING"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    staged = list(out.parent.glob(".killed.tmp-*"))
    assert len(staged) == 1 and (staged[0] / hf_export.WRITER_MARKER).is_file()

    # listed at once as failed, by the command line and by the service, nobody opening it
    code, listing, err = run_cli(db, "exports")
    assert code == 0, err
    (line,) = listing.splitlines()
    assert "  failed: the worker stopped without finishing  " in line and "writing" not in line
    (rec,) = exports.list_exports(db, lead, gold)
    assert (rec.status, rec.error) == ("failed", "the worker stopped without finishing")
    assert list(out.parent.iterdir()) == []


def test_an_export_of_another_server_is_failed_once_its_heartbeat_is_stale(db, lead, gold, tmp_path):
    """Another host's process cannot be checked, so its heartbeat tells: a fresh one is live
    however long the export has run, a stale one reads failed in the listing."""
    import socket
    from datetime import timedelta

    from annotation.services.export import export_records
    from db.models import utcnow

    far = {"host": socket.gethostname() + "-far", "pid": 1}
    beating = _writing_row(db, gold, lead, tmp_path / "a", far, age_s=2 * hf_export.ABANDONED_AFTER_SECONDS)
    silent = _writing_row(db, gold, lead, tmp_path / "b", far, age_s=60)
    with db.write() as s:
        s.get(DatasetExport, beating).heartbeat_at = utcnow()
        s.get(DatasetExport, silent).heartbeat_at = utcnow() - timedelta(seconds=export_records.HEARTBEAT_STALE_S + 1)
    by_id = {r.id: r for r in exports.list_exports(db, lead, gold)}
    assert by_id[beating].status == "writing"
    assert (by_id[silent].status, by_id[silent].error) == ("failed", "the worker stopped without finishing")


def test_a_writing_export_moves_its_heartbeat(db, lead, gold, tmp_path, monkeypatch):
    """While its files are written, the row's heartbeat moves on its own (a thread)."""
    from annotation.services.export import export_records

    monkeypatch.setattr(export_records, "HEARTBEAT_EVERY_S", 0.01)
    beats, original = [], export_writer.write_json_lines

    def write_once_beaten(path, lines):
        original(path, lines)
        if beats:
            return
        with db.read() as s:
            (row,) = s.scalars(select(DatasetExport))
            first = row.heartbeat_at
        for _ in range(2000):  # until the heartbeat thread has moved it (it does within ms)
            with db.read() as s:
                if s.scalar(select(DatasetExport.heartbeat_at)) > first:
                    beats.append(True)
                    return
            threading.Event().wait(0.005)

    monkeypatch.setattr(export_writer, "write_json_lines", write_once_beaten)
    rec = exports.export_dataset(db, lead, gold, tmp_path / "beating", seed=1, include_agreement=False)
    assert rec.status == "complete" and beats == [True]
