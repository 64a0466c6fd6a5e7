"""The export's ``annotations`` config is the interchange record (SPEC section 11): its lines read
back with the fields only an export adds left aside, and an export folder in any log base gives
the interchange file of base 1.1 that an import reads."""

from __future__ import annotations

import json
import math

import pytest

from annotation.corpus.interchange import InterchangeError, parse_interchange
from annotation.export import (ExportMeta, ExportSettings, GoldSample, PairGold, export_hf_dataset,
                               export_tvcp_dataset)
from annotation.export.dataset import ExportError
from annotation.export.reader import annotations_as_interchange
from annotation.settings import ProjectSettings

META = ExportMeta(export_id=3, project="A", created_by="lead01", created_at="2026-11-26T10:00:00Z")
TEXT = "The bakery on Elm Street is closed for renovation this week."
ANNOTATION = {"sample_id": "S-1", "annotator": "ann04", "boundaries": [0, 3], "segment_axes": ["main", "static"],
              "points": [[27.6, 0.77], [21.6, 0.41], [31.6, 0.41]], "xi": 27.1, "omega": 9.8, "alpha": 0.3,
              "flags": ["other"], "note": "=SUM(A1) \u2028 two lines?", "submitted_at": "2026-11-20T10:31:00Z"}


def _export(folder, base: float) -> None:
    samples = [GoldSample("S-1", 1, TEXT, (0, 3), (("main",), ("static",)), 27.0, 9.8, 0.3)]
    export_hf_dataset(folder, samples, [ANNOTATION], ExportSettings(base=base, seed=1), meta=META,
                      splits={"S-1": "train"})


def test_an_exported_annotation_line_reads_back_its_provenance_left_aside(tmp_path):
    _export(tmp_path / "e", 1.1)
    line = (tmp_path / "e" / "annotations" / "train.json").read_bytes()
    assert set(json.loads(line)) - set(ANNOTATION) == {"provenance"}
    [record] = parse_interchange(line, {"S-1": 11})
    assert (record.annotator, record.content.note, record.content.flags) == ("ann04", ANNOTATION["note"], ("other",))
    assert (record.content.xi, record.content.points[0]) == (27.1, (27.6, 0.77))
    # a field no export writes is still refused
    with pytest.raises(InterchangeError, match="line 1: unknown field provenence"):
        parse_interchange(json.dumps({**ANNOTATION, "provenence": {}}).encode(), {"S-1": 11})


def test_an_export_folder_in_another_base_gives_its_annotations_in_base_1_1(tmp_path):
    _export(tmp_path / "e", math.e)
    exported = json.loads((tmp_path / "e" / "annotations" / "train.json").read_text(encoding="utf-8"))
    assert exported["xi"] == pytest.approx(27.1 * math.log(1.1))  # written in base e
    [record] = parse_interchange(annotations_as_interchange(tmp_path / "e"), {"S-1": 11})
    assert (record.content.xi, record.content.omega, record.content.alpha) == pytest.approx((27.1, 9.8, 0.3))
    assert [x for x, _ in record.content.points] == pytest.approx([27.6, 21.6, 31.6])
    assert record.content.note == ANNOTATION["note"]  # kept whole: U+2028 ends no line


def test_a_pairs_export_gives_both_curves_in_base_1_1(tmp_path):
    pair = PairGold("P-1", "T-1", "Interview tomorrow at nine.", "It moved to Friday.", 45.0, 10.0, 0.0,
                    60.0, 10.0, 0.5)
    annotation = {**ANNOTATION, "sample_id": "P-1", "boundaries": [], "segment_axes": [], "flags": [], "note": "",
                  "points": [], "xi": 45.0, "omega": 10.0, "alpha": 0.0,
                  "context_points": [[60.0, 1.0], [50.0, 0.5], [70.0, 0.5]],
                  "context_xi": 60.0, "context_omega": 10.0, "context_alpha": 0.5, "change": "neutral"}
    export_tvcp_dataset(tmp_path / "e", [pair], ExportSettings(base=2.0, seed=1), meta=META, change_factor=1.5,
                        annotations=[annotation], splits={"P-1": "train"})
    [record] = parse_interchange(annotations_as_interchange(tmp_path / "e"), {"P-1": 5},
                                 settings=ProjectSettings(protocol="pairs"))
    c = record.content
    assert (c.xi, c.omega, c.context_xi, c.context_omega, c.context_alpha) == pytest.approx(
        (45.0, 10.0, 60.0, 10.0, 0.5))
    assert c.context_points[0] == pytest.approx((60.0, 1.0)) and c.change == "neutral"


def test_a_folder_that_is_not_an_export_is_named(tmp_path):
    with pytest.raises(ExportError, match="is not a Chronocept export"):
        annotations_as_interchange(tmp_path)
