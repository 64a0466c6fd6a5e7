"""The HuggingFace dataset export (annotation.export): layout, records, card, atomic writing,
reproduction, and a round trip through ``datasets.load_dataset`` offline."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import random
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from annotation.axes import AXIS_NAMES, EXPORT_KEYS, axis_by_name
from annotation.export import (
    ANNOTATION_KEYS,
    CONFIGS,
    SPLIT_FILES,
    ExportAnnotation,
    ExportError,
    ExportManifest,
    ExportMeta,
    ExportSettings,
    GoldSample,
    Provenance,
    annotation_record,
    axis_texts,
    export_hf_dataset,
    read_export,
    zip_export,
)
from annotation.export import writer as export_writer
from annotation.export.records import encode_json
from annotation.corpus.interchange import to_interchange
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation, segment_texts, token_offsets, token_spans, tokenize
from annotation.corpus.splits import SPLITS

SENTENCES = (
    "The bakery on Elm Street is closed for renovation this week.",
    "The owner plans to reopen by June with a new menu.",
    "Residents think the new car park is far too expensive.",
    "If the rain continues, Saturday's match might be postponed.",
    "The school doesn’t serve lunch on Fridays anymore.",
    "Every Friday the market opens at 8:15 near the café.",
    "Water boils at 100 degrees at sea level.",
    "The council will vote on the 3.5 million budget next Tuesday.",
)
META = ExportMeta(export_id=7, project="Test project", created_by="lead01",
                  created_at=datetime(2026, 11, 22, 9, 30, tzinfo=timezone.utc))
START = datetime(2026, 9, 7, 8, 0, tzinfo=timezone.utc)


def make_samples(n: int, seed: int = 1, benchmarks=(1, 2)) -> list[GoldSample]:
    """Gold samples of both benchmarks (benchmark 2: two sentences), 1–4 segments, axes drawn
    with realistic skew, now and then two axes on one segment or none."""
    rng = random.Random(seed)
    samples = []
    for i in range(n):
        benchmark = benchmarks[i % len(benchmarks)]
        text = rng.choice(SENTENCES)
        if benchmark == 2:
            text += " " + rng.choice(SENTENCES)
        n_tokens = len(tokenize(text))
        cuts = sorted(rng.sample(range(1, n_tokens), rng.randint(0, 3)))
        boundaries = (0, *cuts)
        axes = []
        for j in range(len(boundaries)):
            names = {"main"} if j == 0 or rng.random() < 0.4 else {rng.choice(AXIS_NAMES)}
            if rng.random() < 0.2:
                names.add(rng.choice(AXIS_NAMES))
            if j and rng.random() < 0.05:
                names = set()
            axes.append(tuple(sorted(names, key=AXIS_NAMES.index)))
        samples.append(GoldSample(f"B{benchmark}-{i:04d}", benchmark, text, boundaries, tuple(axes),
                                  xi=rng.uniform(20, 150), omega=rng.uniform(2, 30), alpha=rng.uniform(-3, 3)))
    return samples


def make_annotations(samples, per_sample: int = 2, seed: int = 2) -> list[ExportAnnotation]:
    rng = random.Random(seed)
    out = []
    for i, sample in enumerate(samples):
        for k in range(per_sample):
            flagged = rng.random() < 0.1
            content = AnnotationContent(
                boundaries=sample.boundaries,
                segment_axes=tuple(names[0] if names else "main" for names in sample.segment_axes),
                points=() if flagged else ((sample.xi, 1.0), (sample.xi - sample.omega, 0.5),
                                           (sample.xi + sample.omega, 0.5)),
                xi=None if flagged else sample.xi + rng.gauss(0, 1),
                omega=None if flagged else sample.omega,
                alpha=None if flagged else sample.alpha,
                flags=("no_main_timeline",) if flagged else (),
                note="",
            )
            when = None if (i, k) == (0, 1) else START + timedelta(minutes=rng.randrange(100_000))
            out.append(ExportAnnotation(sample.external_id, f"ann{(i + 3 * k) % 5:02d}", content, when))
    return out


def expected_axes(sample: GoldSample) -> dict[str, str]:
    """The axes field computed independently, from segmentation.segment_texts."""
    texts = segment_texts(sample.parent_text, Segmentation(sample.boundaries, len(tokenize(sample.parent_text))))
    return {
        axis_by_name(name).export_key: " ".join(t for t, names in zip(texts, sample.segment_axes) if name in names)
        for name in AXIS_NAMES
    }


@pytest.fixture(scope="module")
def project():
    samples = make_samples(60)
    annotations = make_annotations(samples)
    stray = ExportAnnotation("B1-9999", "ann01", annotations[0].content, START)  # not exported
    return samples, annotations + [stray]


@pytest.fixture(scope="module")
def exported(project, tmp_path_factory):
    samples, annotations = project
    out = tmp_path_factory.mktemp("export") / "chronocept-export"
    manifest = export_hf_dataset(out, samples, annotations, ExportSettings(seed=3), meta=META,
                                 agreement={"icc_xi": 0.93, "jaccard": 0.81, "pk": float("nan")})
    return out, manifest


@pytest.fixture
def hf(monkeypatch, tmp_path):
    """``datasets`` working offline with its cache under tmp_path."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf" / "datasets"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()

    def load(folder: Path, config: str):
        return datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "hf" / "datasets"))

    return load


# --- formatter --------------------------------------------------------------------------------


def test_axis_texts_join_multi_axis_and_non_adjacent_segments():
    text = "We will meet on Friday, but it rains every day."
    # tokens: We will meet on Friday , | but it rains | every day .
    axes, n_tokens = axis_texts(text, (0, 6, 9), (("main", "intention"), ("negation",), ("main", "recurrent")))
    assert n_tokens == 12
    assert list(axes) == list(EXPORT_KEYS)
    assert axes["main_outcome_axis"] == "We will meet on Friday, every day."
    assert axes["intention_axis"] == "We will meet on Friday,"
    assert axes["negation_axis"] == "but it rains"
    assert axes["recurrent_axis"] == "every day."
    assert axes["static_axis"] == axes["generic_axis"] == axes["opinion_axis"] == axes["hypothetical_axis"] == ""


def test_axis_texts_keep_inner_spacing_and_allow_unlabelled_segments():
    text = "  It  rains,\nand   then it stops. "
    axes, _ = axis_texts(text, (0, 4), (("main",), ()))
    assert axes["main_outcome_axis"] == "It  rains,\nand"  # the original text between the tokens
    assert sum(bool(v) for v in axes.values()) == 1


@pytest.mark.parametrize("boundaries, axes, message", [
    ((1, 3), (("main",), ("main",)), "token 0"),
    ((0, 3, 2), (("main",),) * 3, "partition"),
    ((0, 99), (("main",), ("main",)), "partition"),
    ((0,), (("time",),), "unknown axis"),
])
def test_axis_texts_refuse_bad_segmentations(boundaries, axes, message):
    with pytest.raises(ExportError, match=message):
        axis_texts("It rains today in Paris.", boundaries, axes)


def test_token_spans_are_tokenize_offsets():
    for text in SENTENCES + ("don't co-op 1,000 and/or ... ?! (x)", "", "   ", "naïve café — “quoted”"):
        assert token_spans(text) == [(t.start, t.end) for t in tokenize(text)]
        offsets = token_offsets(text)
        assert [(offsets[2 * i], offsets[2 * i + 1]) for i in range(len(offsets) // 2)] == token_spans(text)


def test_gold_sample_and_settings_validation():
    with pytest.raises(ExportError, match="benchmark"):
        GoldSample("x", 3, "Hi.", (0,), (("main",),), 1.0, 1.0, 0.0)
    with pytest.raises(ExportError, match="ω"):
        GoldSample("x", 1, "Hi.", (0,), (("main",),), 1.0, 0.0, 0.0)
    with pytest.raises(ExportError, match="finite"):
        GoldSample("x", 1, "Hi.", (0,), (("main",),), math.nan, 1.0, 0.0)
    with pytest.raises(ExportError, match="tuple of axis names"):
        GoldSample("x", 1, "Hi.", (0,), ("main",), 1.0, 1.0, 0.0)
    with pytest.raises(ExportError, match="sample x: 1 axis set for 2 segments$"):
        GoldSample("x", 1, "Hi there.", (0, 1), (("main",),), 1.0, 1.0, 0.0)
    listed = GoldSample("x", 1, "Hi.", [0], [["main"]], 1, 2, 0)
    assert listed.boundaries == (0,) and listed.segment_axes == (("main",),)
    with pytest.raises(ValueError):
        ExportSettings(base=1.0)
    with pytest.raises(ExportError, match="licence"):
        ExportSettings(licence="CC BY 4.0")
    with pytest.raises(ValueError):
        ExportSettings(ratios=(0.5, 0.5, 0.5))
    assert ExportSettings(ratios=[0.8, 0.1, 0.1]).ratios == (0.8, 0.1, 0.1)


def test_interchange_dicts_are_accepted_like_annotations(project):
    _, annotations = project
    for annotation in annotations[:10]:
        as_dict = to_interchange(annotation.sample_id, annotation.annotator, annotation.content,
                                 annotation.submitted_at)
        assert annotation_record(as_dict) == annotation_record(annotation)
        assert annotation_record(as_dict, 2.0) == annotation_record(annotation, 2.0)
    record = dict(as_dict, submitted_at="2026-11-20T11:31:00+01:00")
    assert annotation_record(record)["submitted_at"] == "2026-11-20T10:31:00Z"
    with pytest.raises(ExportError, match="lacks"):
        annotation_record({"sample_id": "B1-0001"})


# --- the folder -------------------------------------------------------------------------------


def test_layout_counts_and_manifest(exported, project):
    out, manifest = exported
    samples, annotations = project
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert names == sorted(["README.md", "agreement.json", "export.json"]
                           + [f"{c}/{f}" for c in CONFIGS for f in SPLIT_FILES.values()])
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no temporary folder left
    for config, benchmark in (("benchmark_1", 1), ("benchmark_2", 2)):
        n = sum(s.benchmark == benchmark for s in samples)
        assert sum(manifest.counts[config].values()) == n == 30
        assert manifest.counts[config] == {"train": 21, "validation": 6, "test": 3}
    assert sum(manifest.counts["annotations"].values()) == len(annotations) - 1
    assert manifest.annotations_left_out == 1
    on_disk = json.loads((out / "export.json").read_text(encoding="utf-8"))
    assert ExportManifest.from_json(on_disk) == manifest
    for key in ("export_id", "project", "created_at", "created_by", "base", "seed", "licence", "ratios",
                "counts", "splits"):
        assert key in on_disk
    assert on_disk["created_at"] == "2026-11-22T09:30:00Z" and on_disk["seed"] == 3
    assert on_disk["agreement"]["pk"] is None  # NaN is not JSON
    assert set(manifest.assignment()) == {s.external_id for s in samples}


def test_json_lines_key_order_and_values(exported, project):
    out, manifest = exported
    samples, _ = project
    by_id = {s.external_id: s for s in samples}
    for config in ("benchmark_1", "benchmark_2"):
        for split in SPLITS:
            lines = (out / config / SPLIT_FILES[split]).read_text(encoding="utf-8").splitlines()
            ids = []
            for line in lines:
                obj = json.loads(line)
                assert list(obj) == ["_id", "parent_text", "axes", "target_values", "provenance"]
                assert list(obj["axes"]) == list(EXPORT_KEYS)
                assert list(obj["target_values"]) == ["location", "scale", "skewness"]
                sample = by_id[obj["_id"]]
                assert obj["parent_text"] == sample.parent_text
                assert obj["axes"] == expected_axes(sample)
                assert obj["target_values"] == {"location": sample.xi, "scale": sample.omega,
                                                "skewness": sample.alpha}
                ids.append(obj["_id"])
            assert ids == manifest.splits[config][split] == sorted(ids)
    raw = "".join((out / c / f).read_text(encoding="utf-8") for c in CONFIGS for f in SPLIT_FILES.values())
    assert "’" in raw and "é" in raw and "\\u" not in raw  # non-ASCII text written as is
    for split in SPLITS:
        for line in (out / "annotations" / SPLIT_FILES[split]).read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            assert list(obj) == [*ANNOTATION_KEYS, "provenance"]
            assert manifest.assignment()[obj["sample_id"]] == split


def test_card_declares_configs_licence_and_figures(exported):
    out, manifest = exported
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n")
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == "cc-by-4.0"
    assert [c["config_name"] for c in header["configs"]] == list(CONFIGS)
    for entry in header["configs"]:
        assert entry["data_files"] == [
            {"split": s, "path": f"{entry['config_name']}/{SPLIT_FILES[s]}"} for s in SPLITS
        ]
    infos = {info["config_name"]: info["features"] for info in header["dataset_info"]}
    assert [f["name"] for f in infos["benchmark_1"]] == ["_id", "parent_text", "axes", "target_values",
                                                         "provenance"]
    assert [f["name"] for f in infos["benchmark_1"][2]["struct"]] == list(EXPORT_KEYS)
    assert [f["name"] for f in infos["annotations"]] == [*ANNOTATION_KEYS, "provenance"]
    body = card.split("---\n", 2)[2]
    assert "Test project" in body and "| `benchmark_1` | 21 | 6 | 3 | 30 |" in body
    assert "Main (`main_outcome_axis`) | 100.0% (30)" in body
    assert "base-1.1 log minutes" in body and "ln(1.1) / ln(c)" in body
    assert "**icc_xi**: 0.930" in body and "**pk**: —" in body
    assert "Sechidis" in body and 'load_dataset("path/to/this/folder", "benchmark_1")' in body


def test_load_dataset_round_trip(exported, project, hf):
    out, manifest = exported
    samples, _ = project
    by_id = {s.external_id: s for s in samples}
    for config in ("benchmark_1", "benchmark_2"):
        dataset = hf(out, config)
        assert {split: dataset[split].num_rows for split in dataset} == manifest.counts[config]
        assert list(dataset["train"].features) == ["_id", "parent_text", "axes", "target_values",
                                                   "provenance"]
        assert list(dataset["train"].features["axes"]) == list(EXPORT_KEYS)
        assert list(dataset["train"].features["target_values"]) == ["location", "scale", "skewness"]
        for split in SPLITS:
            for row in dataset[split]:
                sample = by_id[row["_id"]]
                assert row["parent_text"] == sample.parent_text
                assert row["axes"] == expected_axes(sample)
                assert row["target_values"] == {"location": sample.xi, "scale": sample.omega,
                                                "skewness": sample.alpha}
    annotations = hf(out, "annotations")
    assert {split: annotations[split].num_rows for split in annotations} == manifest.counts["annotations"]
    rows = [row for split in SPLITS for row in annotations[split]]
    assert any(row["xi"] is None for row in rows) and any(row["submitted_at"] is None for row in rows)
    stamped = next(row for row in rows if row["submitted_at"] is not None)
    assert stamped["submitted_at"].tzinfo is not None
    written = read_export(out).records["annotations"]
    assert [r["annotator"] for s in SPLITS for r in written[s]] == [r["annotator"] for r in rows]


def test_base_e_scales_location_scale_and_points(tmp_path, project):
    samples, annotations = project
    manifest = export_hf_dataset(tmp_path / "e", samples, annotations, ExportSettings(base=math.e, seed=3),
                                 meta=META)
    assert manifest.base == math.e
    contents = read_export(tmp_path / "e")
    by_id = {s.external_id: s for s in samples}
    factor = math.log(1.1)
    for config in ("benchmark_1", "benchmark_2"):
        for split in SPLITS:
            for record in contents.records[config][split]:
                sample = by_id[record["_id"]]
                assert record["target_values"]["location"] == pytest.approx(sample.xi * factor, rel=1e-12)
                assert record["target_values"]["scale"] == pytest.approx(sample.omega * factor, rel=1e-12)
                assert record["target_values"]["skewness"] == sample.alpha
    source = {(a.sample_id, a.annotator): a.content for a in annotations}
    for split in SPLITS:
        for record in contents.records["annotations"][split]:
            content = source[(record["sample_id"], record["annotator"])]
            assert [v for point in record["points"] for v in point] == pytest.approx(
                [v for x, y in content.points for v in (x * factor, y)], rel=1e-12)
            if content.xi is not None:
                assert record["xi"] == pytest.approx(content.xi * factor, rel=1e-12)
                assert record["omega"] == pytest.approx(content.omega * factor, rel=1e-12)
                assert record["alpha"] == content.alpha
    assert "x = ln(t) / ln(2.71828)" in contents.card
    # same split whatever the base
    assert manifest.splits == read_export(tmp_path / "e").manifest.splits


def test_empty_benchmark_and_empty_split(tmp_path, hf):
    """datasets cannot load a declared empty split, so empty splits and configs are written but
    not declared: benchmark_2 without samples is not a config of the card, and a 3-sample
    benchmark (2/1/0) loads without a test split."""
    samples = make_samples(3, benchmarks=(1,))
    out = tmp_path / "only-b1"
    manifest = export_hf_dataset(out, samples, make_annotations(samples), ExportSettings(), meta=META)
    assert manifest.counts["benchmark_1"] == {"train": 2, "validation": 1, "test": 0}
    assert manifest.counts["benchmark_2"] == {"train": 0, "validation": 0, "test": 0}
    for split in SPLITS:
        assert (out / "benchmark_2" / SPLIT_FILES[split]).read_bytes() == b""
    assert (out / "benchmark_1" / "test.json").read_bytes() == b""
    header = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    assert [c["config_name"] for c in header["configs"]] == ["benchmark_1", "annotations"]
    assert [d["split"] for d in header["configs"][0]["data_files"]] == ["train", "validation"]
    dataset = hf(out, "benchmark_1")
    assert {split: dataset[split].num_rows for split in dataset} == {"train": 2, "validation": 1}
    with pytest.raises(ValueError, match="benchmark_2"):
        hf(out, "benchmark_2")
    contents = read_export(out)
    assert contents.records["benchmark_2"] == {"train": [], "validation": [], "test": []}
    stats = contents.manifest.benchmark_statistics("benchmark_2")
    assert stats.overall.n_samples == 0


def test_nothing_to_export_still_writes_a_folder(tmp_path):
    manifest = export_hf_dataset(tmp_path / "none", [], [], ExportSettings(), meta=META)
    assert all(n == 0 for per_split in manifest.counts.values() for n in per_split.values())
    header = yaml.safe_load((tmp_path / "none" / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    assert "configs" not in header and header["license"] == "cc-by-4.0"


# --- atomic writing, refusal, reproduction, zip --------------------------------------------------


def _failing_writer(monkeypatch, after: int):
    real = export_writer.write_json_lines
    calls = []

    def write(path, lines):
        calls.append(path)
        if len(calls) > after:
            raise OSError("disk full (injected)")
        real(path, lines)

    monkeypatch.setattr(export_writer, "write_json_lines", write)
    return calls


def test_failure_mid_write_leaves_nothing(tmp_path, monkeypatch):
    samples = make_samples(12)
    calls = _failing_writer(monkeypatch, after=4)
    with pytest.raises(OSError, match="injected"):
        export_hf_dataset(tmp_path / "out", samples, [], ExportSettings(), meta=META)
    assert len(calls) == 5
    assert list(tmp_path.iterdir()) == []  # neither OUT nor a temporary folder


def test_failure_while_overwriting_keeps_the_old_export(tmp_path, monkeypatch):
    samples = make_samples(12)
    out = tmp_path / "out"
    export_hf_dataset(out, samples, [], ExportSettings(seed=1), meta=META)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _failing_writer(monkeypatch, after=6)
    with pytest.raises(OSError, match="injected"):
        export_hf_dataset(out, samples, [], ExportSettings(seed=2), meta=META, overwrite=True)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_refuses_a_non_empty_folder_unless_overwrite(tmp_path):
    samples = make_samples(12)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not empty"):
        export_hf_dataset(out, samples, [], ExportSettings(), meta=META)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    export_hf_dataset(out, samples, [], ExportSettings(), meta=META, overwrite=True)
    assert not (out / "notes.txt").exists() and (out / "export.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # the old folder was removed
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(FileExistsError, match="not a folder"):
        export_hf_dataset(tmp_path / "a-file", samples, [], ExportSettings(), meta=META, overwrite=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    export_hf_dataset(empty, samples, [], ExportSettings(), meta=META)  # an empty folder is fine
    assert (empty / "README.md").is_file()


def test_reproduce_with_stored_splits_gives_identical_files(exported, project, tmp_path):
    out, manifest = exported
    samples, annotations = project
    stored = ExportManifest.from_json(json.loads((out / "export.json").read_text(encoding="utf-8")))
    again = tmp_path / "again"
    export_hf_dataset(again, list(reversed(samples)), list(reversed(annotations)),
                      ExportSettings(seed=3), meta=META, splits=stored.assignment(),
                      agreement=stored.agreement)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for name in files:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
    # the stored membership wins over the seed
    other_seed = export_hf_dataset(tmp_path / "other", samples, annotations, ExportSettings(seed=99),
                                   meta=META, splits=stored.assignment())
    assert other_seed.splits == manifest.splits
    assert export_hf_dataset(tmp_path / "fresh", samples, annotations, ExportSettings(seed=99),
                             meta=META).splits != manifest.splits


def test_provenance_and_figures_given_later_write_the_same_files(project, tmp_path):
    # the service computes them beside the formatting and hands over callables
    samples, annotations = project
    provenance = {s.external_id: Provenance(w1=float(i), pk=0.25, jaccard=0.5, resolution="pooled",
                                            confidence=3, error_type="other")
                  for i, s in enumerate(samples[::2])}
    with_own = [dataclasses.replace(s, provenance=provenance.get(s.external_id, Provenance(pk=0.125)))
                for s in samples]
    figures = {"benchmark_1": {"icc_xi": 0.9}}
    taken = []
    export_hf_dataset(tmp_path / "values", with_own, annotations, ExportSettings(base=math.e, seed=4), meta=META,
                      agreement=figures)
    export_hf_dataset(tmp_path / "later", [dataclasses.replace(s, provenance=Provenance(pk=0.125)) for s in samples],
                      annotations, ExportSettings(base=math.e, seed=4), meta=META,
                      agreement=lambda: taken.append("agreement") or figures,
                      provenance=lambda: taken.append("provenance") or provenance)
    assert taken == ["provenance", "agreement"]

    def read_lines(path):
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    files = sorted(p.relative_to(tmp_path / "values") for p in (tmp_path / "values").rglob("*") if p.is_file())
    for name in files:
        assert (tmp_path / "later" / name).read_bytes() == (tmp_path / "values" / name).read_bytes(), name
    records = {r["_id"]: r for f in (tmp_path / "later").glob("benchmark_*/*.json") for r in read_lines(f)}
    first = samples[0].external_id
    assert records[first]["provenance"]["w1"] == pytest.approx(0.0) and records[first]["provenance"]["pk"] == 0.25
    # an id the mapping lacks keeps the sample's own provenance
    assert records[samples[1].external_id]["provenance"]["pk"] == 0.125
    lines = [r for f in (tmp_path / "later").glob("annotations/*.json") for r in read_lines(f)]
    assert all(r["provenance"] == records[r["sample_id"]]["provenance"] for r in lines)


def test_every_line_is_its_record_encoded_whole(exported):
    # the provenance is appended to each encoded record: the line must be what encoding the
    # whole record gives (separators, key order, non-ASCII kept)
    out, _ = exported
    for config in CONFIGS:
        for name in SPLIT_FILES.values():
            for line in (out / config / name).read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                assert line == encode_json(record) and list(record)[-1] == "provenance"


def test_given_splits_must_cover_every_sample(tmp_path, project):
    samples, _ = project
    partial = {s.external_id: "train" for s in samples[1:]}
    with pytest.raises(ExportError, match="no split"):
        export_hf_dataset(tmp_path / "x", samples, [], ExportSettings(), meta=META, splits=partial)
    with pytest.raises(ExportError, match="unknown split"):
        export_hf_dataset(tmp_path / "x", samples, [], ExportSettings(), meta=META,
                          splits={s.external_id: "dev" for s in samples})
    with pytest.raises(ExportError, match="more than once"):
        export_hf_dataset(tmp_path / "x", samples + samples[:1], [], ExportSettings(), meta=META)
    assert not (tmp_path / "x").exists()


def test_zip_contains_every_file(exported):
    out, _ = exported
    with zipfile.ZipFile(io.BytesIO(zip_export(out))) as archive:
        names = archive.namelist()
        assert sorted(names) == sorted(
            f"{out.name}/{p.relative_to(out).as_posix()}" for p in out.rglob("*") if p.is_file()
        )
        assert archive.read(f"{out.name}/benchmark_1/train.json") == (out / "benchmark_1" / "train.json").read_bytes()


def test_read_export(exported, tmp_path):
    out, manifest = exported
    contents = read_export(out)
    assert contents.manifest == manifest
    assert contents.card.startswith("---")
    assert set(contents.records) == set(CONFIGS)
    for config in CONFIGS:
        assert {s: len(contents.records[config][s]) for s in SPLITS} == manifest.counts[config]
    only = read_export(out, configs=("benchmark_1",))
    assert set(only.records) == {"benchmark_1"}
    with pytest.raises(ExportError, match="not a Chronocept export"):
        read_export(tmp_path)


def test_provenance_follows_the_public_keys_and_w1_follows_the_base():
    from annotation.export import PROVENANCE_KEYS, RECORD_KEYS, Provenance, benchmark_record

    text = "The shop is closed."
    plain = GoldSample("S-1", 1, text, (0,), (("main",),), 50.0, 10.0, 0.0)
    record, _ = benchmark_record(plain)
    assert list(record) == [*RECORD_KEYS, "provenance"]
    assert record["provenance"] == dict.fromkeys(PROVENANCE_KEYS)   # no lead, no figures: all null
    decided = GoldSample("S-1", 1, text, (0,), (("main",),), 50.0, 10.0, 0.0,
                         Provenance(12.0, 0.25, 0.5, "pooled", 2, "ambiguous_text"))
    record, _ = benchmark_record(decided, base=math.e)
    assert record["provenance"] == {"w1": pytest.approx(12.0 * math.log(1.1)), "pk": 0.25,
                                    "jaccard": 0.5, "resolution": "pooled", "confidence": 2,
                                    "error_type": "ambiguous_text", "pooling": None, "pool_weights": None}
    weighted = Provenance(pooling="model", pool_weights='{"ann3": 0.7, "ann9": 0.3}').to_json()
    assert (weighted["pooling"], weighted["pool_weights"]) == ("model", '{"ann3": 0.7, "ann9": 0.3}')
    assert Provenance(w1=float("nan")).to_json()["w1"] is None   # never NaN in JSON
