"""The ``tvcp`` export of a context-pairs project: folder, CSV per split, splits by target,
``datasets`` loading it, the TVCP authors' way of reading the CSV, repeating it, refusals — on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from sqlalchemy import select, update

from annotation import export as hf_export
from annotation.pairs.duration_classes import class_of_curve
from annotation.services.export import export_downloads, exports
from annotation.services.errors import InvalidInput
from db.models import DatasetExport, GoldAnnotation, Sample
from pair_gold_data import SHIFT, pair_gold_project, pair_id
from service_helpers import count

CSV = {"train": "train.csv", "validation": "valid.csv", "test": "test.csv"}


@pytest.fixture
def pairs(db, lead):
    return pair_gold_project(db, lead, n_targets=20, references=True)


def read_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_pairs_project_writes_the_tvcp_config_with_a_csv_per_split(db, lead, pairs, tmp_path):
    out = tmp_path / "ds"
    rec = exports.export_dataset(db, lead, pairs, out, seed=5)
    assert rec.status == "complete" and rec.layout.spreadsheet and rec.n_samples == 60 and rec.n_annotations == 120
    assert sum(rec.own_sizes.values()) == 60 and rec.split_sizes == {}
    # the protocol's configuration, the individual annotations and the card's agreement: no benchmark folders
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "agreement.json", "annotations", "export.json",
                                                     "tvcp"]
    assert sorted(p.name for p in (out / "tvcp").iterdir()) == sorted(
        ["train.json", "valid.json", "test.json", "train.csv", "valid.csv", "test.csv"])
    with db.read() as s:
        row = s.get(DatasetExport, rec.id)
        gold = {e: (g, t) for e, g, t in s.execute(select(Sample.external_id, GoldAnnotation, Sample.parent_text)
                                                   .join(GoldAnnotation, GoldAnnotation.sample_id == Sample.id))}
    split_of_target: dict[str, str] = {}
    seen = set()
    for split, name in CSV.items():
        records = read_lines(out / "tvcp" / hf_export.SPLIT_FILES[split])
        assert [r["_id"] for r in records] == row.splits["tvcp"][split]
        frame = pd.read_csv(out / "tvcp" / name, keep_default_na=False)
        assert list(frame.columns) == list(hf_export.TVCP_KEYS) and len(frame) == len(records)
        for r, (_, csv_row) in zip(records, frame.iterrows()):
            g, text = gold[r["_id"]]
            assert list(r)[:5] == ["context", "follow_up", "context_only_tv", "combined_tv", "change"]
            assert r["context"] == text == csv_row["context"] and r["follow_up"] == csv_row["follow_up"]
            assert r["context_only_tv"] == class_of_curve(g.xi, g.omega, g.alpha).index == csv_row["context_only_tv"]
            assert r["combined_tv"] == class_of_curve(g.context_xi, g.context_omega, g.context_alpha).index
            assert r["change"] == g.change == csv_row["change"]
            assert (r["xi"], r["context_xi"]) == (g.xi, g.context_xi)
            assert r["n_annotations"] == 2 and r["resolution"] == "automatic" and r["w1"] == 0.0
            assert r["reference_change"] == g.change and r["reference_context_only_tv"] == 6
            # no target in two splits
            assert split_of_target.setdefault(r["target_id"], split) == split
            seen.add(r["_id"])
    assert seen == set(gold) and len(split_of_target) == 20
    with pytest.raises(InvalidInput, match="holds context pairs"):
        exports.export_statistics(db, lead, rec.id)
    assert export_downloads.zip_of_export(db, lead, rec.id)[:2] == b"PK"
    card = (out / "README.md").read_text()
    assert "| 0 | no time-sensitive information |" in card and "| 11 | more than 1 month |" in card
    assert "| 0 | decreased |" in card and "| 2 | increased |" in card and "`valid.csv` = dev" in card


def test_the_tvcp_config_loads_with_datasets(db, lead, pairs, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    import datasets as hf

    rec = exports.export_dataset(db, lead, pairs, tmp_path / "ds", seed=5, base=math.e)
    loaded = hf.load_dataset(str(tmp_path / "ds"), "tvcp", cache_dir=str(tmp_path / "hf"))
    assert {split: loaded[split].num_rows for split in loaded} == {
        s: n for s, n in rec.own_sizes.items() if n}
    assert loaded["train"].column_names == list(hf_export.TVCP_KEYS)
    row = loaded["train"][0]
    assert row["change"] in ("decreased", "neutral", "increased") and isinstance(row["combined_tv"], int)
    # the curves in the export's base e: ξ × ln 1.1
    with db.read() as s:
        xi = s.scalar(select(GoldAnnotation.xi).join(Sample).where(Sample.external_id == row["_id"]))
    assert row["xi"] == pytest.approx(xi * math.log(1.1))
    # the default config is the tvcp one
    assert hf.load_dataset(str(tmp_path / "ds"), cache_dir=str(tmp_path / "hf"))["train"].num_rows == rec.own_sizes["train"]
    # the annotations config: both curves of every annotation, in the export's base
    annotations = hf.load_dataset(str(tmp_path / "ds"), "annotations", cache_dir=str(tmp_path / "hf"))
    assert sum(annotations[split].num_rows for split in annotations) == rec.n_annotations == 120
    first = annotations["train"][0]
    assert list(first)[-6:] == ["context_points", "context_xi", "context_omega", "context_alpha", "change",
                                "provenance"]
    with db.read() as s:
        context_xi = s.scalar(select(GoldAnnotation.context_xi).join(Sample)
                              .where(Sample.external_id == first["sample_id"]))
    assert first["context_xi"] == pytest.approx(context_xi * math.log(1.1))  # the two annotators agree with the gold


def test_the_tvcp_readers_way_of_reading_the_csv_works(db, lead, pairs, tmp_path):
    """What the TVCP authors' dataset reader does with a split file: ``pandas.read_csv``, the
    columns ``context`` and ``follow_up`` as text, ``change`` through their label map, the two
    class columns as numbers."""
    exports.export_dataset(db, lead, pairs, tmp_path / "ds", seed=5)
    label_map = {"decreased": 0, "neutral": 1, "increased": 2}
    for name in CSV.values():
        frame = pd.read_csv(tmp_path / "ds" / "tvcp" / name)
        if frame.empty:
            continue
        contexts, follow_ups = frame["context"].tolist(), frame["follow_up"].tolist()
        assert all(isinstance(t, str) and t for t in contexts + follow_ups)
        labels = frame["change"].map(label_map)
        assert labels.notna().all() and set(labels) <= {0, 1, 2}
        assert [int(v) for v in frame["context_only_tv"]] == list(frame["context_only_tv"])
        assert frame["combined_tv"].between(0, 11).all()
        for follow_up, label in zip(follow_ups, labels):   # the seeded follow-ups name their change
            assert list(label_map)[label] in follow_up


def test_gold_without_a_change_label_gets_the_derived_one(db, lead, tmp_path):
    pid = pair_gold_project(db, lead, n_targets=4, gold_change=False)
    exports.export_dataset(db, lead, pid, tmp_path / "ds", seed=1)
    rows = [r for name in hf_export.SPLIT_FILES.values() for r in read_lines(tmp_path / "ds" / "tvcp" / name)]
    assert {r["_id"]: r["change"] for r in rows} == {pair_id(t, c): c for t in range(4) for c in SHIFT}
    assert all(r["reference_change"] is None and r["reference_combined_tv"] is None for r in rows)


def test_repeating_a_tvcp_export_gives_the_same_files(db, lead, pairs, tmp_path):
    first = exports.export_dataset(db, lead, pairs, tmp_path / "a", seed=3)
    again = exports.export_dataset(db, lead, pairs, tmp_path / "b", reproduce=first.id)
    assert again.own_sizes == first.own_sizes
    for name in (*CSV.values(), *hf_export.SPLIT_FILES.values()):
        assert (tmp_path / "a" / "tvcp" / name).read_bytes() == (tmp_path / "b" / "tvcp" / name).read_bytes()


def test_gold_without_the_second_curve_is_refused_and_nothing_recorded(db, lead, pairs, tmp_path):
    with db.write() as s:
        sample_id = s.scalar(select(Sample.id).where(Sample.external_id == pair_id(3, "neutral")))
        s.execute(update(GoldAnnotation).where(GoldAnnotation.sample_id == sample_id).values(context_xi=None))
    with pytest.raises(InvalidInput) as refused:
        exports.export_dataset(db, lead, pairs, tmp_path / "ds", seed=1)
    assert str(refused.value) == ("1 pair cannot be exported — P-003-neu: its gold has no curve of the target "
                                  "given the follow-up; settle them again on the Review page.")
    assert not (tmp_path / "ds").exists() and count(db, DatasetExport) == 0


def test_a_single_texts_project_beside_it_exports_as_before(db, lead, pairs, tmp_path):
    from gold_data import gold_project

    single = gold_project(db, lead, n=9, name="Single")
    rec = exports.export_dataset(db, lead, single, tmp_path / "single", seed=2)
    assert not rec.layout.spreadsheet and sorted(p.name for p in (tmp_path / "single").iterdir()) == [
        "README.md", "agreement.json", "annotations", "benchmark_1", "benchmark_2", "export.json"]


def test_a_lead_override_is_flagged_in_its_record_and_counted_on_the_card(db, lead, pairs, tmp_path):
    """A gold change label that a lead stored against what the gold curves give (review records the
    curves' label beside it) reads in the record's provenance and in the card's count."""
    with db.write() as s:
        sid, change = s.execute(select(GoldAnnotation.sample_id, GoldAnnotation.change)
                                .order_by(GoldAnnotation.sample_id).limit(1)).one()
        other = next(label for label in ("decreased", "neutral", "increased") if label != change)
        s.execute(update(GoldAnnotation).where(GoldAnnotation.sample_id == sid)
                  .values(change=other, curves_change=change, source="edited", note="sarcasm"))
        overridden = s.get(Sample, sid).external_id
    out = tmp_path / "ds"
    rec = exports.export_dataset(db, lead, pairs, out, seed=5)
    records = {r["_id"]: (split, r) for split in CSV
               for r in read_lines(out / "tvcp" / hf_export.SPLIT_FILES[split])}
    split, flagged = records[overridden]
    assert (flagged["change"], flagged["curves_change"], flagged["resolution"]) == (other, change, "edited")
    assert all(r["curves_change"] is None for i, (_, r) in records.items() if i != overridden)
    frame = pd.read_csv(out / "tvcp" / CSV[split], keep_default_na=False)
    assert list(frame.loc[frame["_id"] == overridden, "curves_change"]) == [change]
    card = (out / "README.md").read_text()
    assert "A *lead override* is a gold change label that the gold curves do not give" in card
    counts = ", ".join(f"{s} {int(s == split)}" for s in CSV)
    assert f"In this export 1 of its pairs holds one ({counts})." in card
    assert rec.status == "complete"
