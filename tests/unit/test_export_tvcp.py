"""The ``tvcp`` configuration, pure: its record and columns, the CSV, the class mapping on the
card, splits that keep a target's follow-ups together, and the folder read back."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from annotation.corpus.splits import SPLITS, grouped_split
from annotation.export import (
    CSV_FILES,
    ExportError,
    ExportMeta,
    ExportSettings,
    PairGold,
    Provenance,
    TVCP_KEYS,
    export_tvcp_dataset,
    read_export,
    tvcp_record,
)
from annotation.export.tvcp import csv_text, pair_split
from annotation.export.tvcp_card import tvcp_card, tvcp_header
from annotation.pairs.change import CHANGE_LABELS
from annotation.pairs.duration_classes import CLASS_NAMES, class_of_curve

META = ExportMeta(7, "Pairs", "lea", "2026-11-29T10:00:00Z")
UP = math.log(3) / math.log(1.1)


def pair(i: int, target: int, shift: float = 0.0, **kw) -> PairGold:
    return PairGold(f"p{i:03d}", f"t{target:03d}", f"Target {target}, tomorrow.", f"Follow-up {i}.",
                    45.0, 10.0, 0.0, 45.0 + shift, 10.0, 0.0, **kw)


def test_the_record_has_the_release_columns_first_then_curves_then_provenance():
    r = tvcp_record(pair(1, 1, UP, change="increased", n_annotations=3, reference_alone=6, reference_given=7,
                         reference_change="increased"), 1.5, provenance=Provenance(2.0, None, None, "edited", 4, "x"))
    assert list(r) == list(TVCP_KEYS)
    assert list(TVCP_KEYS[:5]) == ["context", "follow_up", "context_only_tv", "combined_tv", "change"]
    assert list(TVCP_KEYS[5:11]) == ["xi", "omega", "alpha", "context_xi", "context_omega", "context_alpha"]
    assert (r["context_only_tv"], r["combined_tv"]) == (class_of_curve(45.0, 10.0, 0.0).index,
                                                        class_of_curve(45.0 + UP, 10.0, 0.0).index) == (6, 7)
    assert (r["_id"], r["target_id"], r["n_annotations"], r["reference_combined_tv"]) == ("p001", "t001", 3, 7)
    assert (r["w1"], r["resolution"], r["confidence"], r["error_type"]) == (2.0, "edited", 4, "x")


def test_parameters_and_w1_follow_the_export_base():
    factor = math.log(1.1)   # base e
    r = tvcp_record(pair(1, 1, 5.0, change="neutral"), 1.5, factor, Provenance(w1=10.0))
    assert r["xi"] == pytest.approx(45.0 * factor) and r["omega"] == pytest.approx(10.0 * factor)
    assert r["context_xi"] == pytest.approx(50.0 * factor) and r["alpha"] == r["context_alpha"] == 0.0
    assert r["w1"] == pytest.approx(10.0 * factor)


def test_a_flat_curve_is_class_0_and_the_change_is_derived_when_the_gold_has_none():
    flat = PairGold("p1", "t1", "The earth is round.", "It still is.", 100.0, 400.0, 0.0, 100.0, 400.0, 0.0)
    r = tvcp_record(flat, 1.5)
    assert (r["context_only_tv"], r["combined_tv"], r["change"]) == (0, 0, "neutral")
    assert tvcp_record(pair(2, 1, -UP), 1.5)["change"] == "decreased"
    assert tvcp_record(pair(3, 1, 2.0), 1.5)["change"] == "neutral"      # ×1.21 < ×1.5
    assert tvcp_record(pair(3, 1, 2.0), 1.2)["change"] == "increased"    # the project's factor decides


@pytest.mark.parametrize("broken, why", [
    (dict(context_xi=None), "no curve of the target given the follow-up"),
    (dict(context_omega=0.0), "not finite numbers with ω > 0"),
    (dict(xi=math.nan), "not finite numbers"),
    (dict(change="up"), "is not one of decreased, neutral, increased"),
    (dict(target_key=""), "not a pair"),
])
def test_a_pair_that_cannot_be_exported_is_refused(broken, why):
    import dataclasses

    bad = dataclasses.replace(pair(1, 1), **broken)
    with pytest.raises(ExportError, match=why):
        tvcp_record(bad, 1.5)


def test_the_csv_quotes_text_and_leaves_none_empty():
    r = tvcp_record(pair(1, 1, change="neutral"), 1.5)
    r["context"] = 'She said "no", then left,\nquickly.'
    rows = list(csv.reader(io.StringIO(csv_text([r]))))
    assert rows[0] == list(TVCP_KEYS)
    assert rows[1][0] == r["context"] and rows[1][TVCP_KEYS.index("reference_change")] == ""


def test_grouped_split_keeps_every_target_in_one_split_and_is_reproducible():
    ids = [f"p{i}" for i in range(300)]
    targets = [f"t{(i * 7) % 100}" for i in range(300)]        # 100 targets, members scattered
    split = grouped_split(ids, targets, seed=4)
    by_target: dict[str, set[str]] = {}
    for i, t in zip(ids, targets):
        by_target.setdefault(t, set()).add(split[i])
    assert all(len(s) == 1 for s in by_target.values())
    sizes = [sum(1 for v in split.values() if v == s) for s in SPLITS]
    assert sizes == [210, 60, 30]
    assert grouped_split(ids[::-1], targets[::-1], seed=4) == split
    assert grouped_split(ids, targets, seed=5) != split
    with pytest.raises(ValueError, match="more than once"):
        grouped_split(["a", "a"], ["t", "t"], seed=0)
    with pytest.raises(ValueError, match="2 ids but 1 groups"):
        grouped_split(["a", "b"], ["t"], seed=0)


def test_a_given_split_must_keep_a_targets_follow_ups_together():
    pairs = [pair(i, i // 3) for i in range(6)]
    good = {p.external_id: ("train" if i < 3 else "test") for i, p in enumerate(pairs)}
    assert pair_split(pairs, ExportSettings(), good) == good
    with pytest.raises(ExportError, match="no split"):
        pair_split(pairs, ExportSettings(), {**good, "p001": "dev"})


def test_the_card_states_the_class_and_change_mapping_and_how_classes_are_derived(tmp_path):
    pairs = [pair(i, i // 3, (UP, 0.0, -UP)[i % 3], change=CHANGE_LABELS[2 - i % 3]) for i in range(30)]
    manifest = export_tvcp_dataset(tmp_path / "e", pairs, ExportSettings(seed=2), meta=META, change_factor=1.5)
    card = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    for index, name in enumerate(CLASS_NAMES):
        assert f"| {index} | {name} |" in card
    for index, label in enumerate(CHANGE_LABELS):
        assert f"| {index} | {label} |" in card
    assert "half-gone time" in card and "class 0, *no time-sensitive information*" in card
    assert "(this project's factor: ×1.5)" in card
    assert "`train.csv` = train, `valid.csv` = dev, `test.csv` = test" in card
    assert "grouped by `target_id`" in card
    header = tvcp_header(manifest)
    assert header["configs"][0]["config_name"] == "tvcp" and header["configs"][0]["default"] is True
    assert [f["name"] for f in header["dataset_info"][0]["features"]] == list(TVCP_KEYS)
    assert tvcp_card(manifest) == card


def test_the_folder_holds_json_lines_and_the_same_rows_as_csv_and_reads_back(tmp_path):
    pairs = [pair(i, i // 3, change="neutral") for i in range(30)]
    manifest = export_tvcp_dataset(tmp_path / "e", pairs, ExportSettings(seed=2), meta=META, change_factor=1.5)
    contents = read_export(tmp_path / "e", configs=("tvcp",))
    assert contents.manifest.assignment() == {p: s for s, ids in manifest.splits["tvcp"].items() for p in ids}
    for split in SPLITS:
        records = contents.records["tvcp"][split]
        rows = list(csv.DictReader((tmp_path / "e" / "tvcp" / CSV_FILES[split]).open(encoding="utf-8")))
        assert [r["_id"] for r in records] == [r["_id"] for r in rows] == manifest.splits["tvcp"][split]
        assert all(json.dumps(r["change"]) == '"neutral"' for r in records)
    # the benchmark configs are not read from a tvcp export (it has none); its annotations config is
    # (empty here: no annotations were given)
    read_back = read_export(tmp_path / "e").records
    assert set(read_back) == {"annotations"} and not any(read_back["annotations"].values())
    # the same input and seed give the same files
    export_tvcp_dataset(tmp_path / "f", pairs, ExportSettings(seed=2), meta=META, change_factor=1.5)
    for name in CSV_FILES.values():
        assert (tmp_path / "e" / "tvcp" / name).read_bytes() == (tmp_path / "f" / "tvcp" / name).read_bytes()
