"""The dataset card's agreement is the project's agreement before adjudication (issue 33): on a
project with unsettled disputes its headline equals the Agreement page for the same scope and
pingouin's ICC(1,1) over every doubly-annotated sample; the settled gold's figures follow, with
what was left out and why; ``agreement.json`` holds the same figures beside the card. Both
databases."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pingouin
import pytest

from annotation.agreement.report import HEADLINE_NAMES
from annotation.corpus.text_import import TextRecord
from annotation.services.quality import agreement, experts
from annotation.services.corpus import annotation_import
from annotation.services.export import exports
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import resolving
from annotation.services.export.export_reads import pseudonym
from gold_data import expert_project
from service_helpers import run_cli

N_SAMPLES = 40
DISPUTED = range(0, 40, 3)  # 14 samples whose second annotator splits the text elsewhere
# every fourth sample: the second annotator gives the second segment another axis, which the gold
# cannot keep both of (one axis per segment): those wait for a lead too
WAITING = sorted({*DISPUTED, *range(0, 40, 4)})  # 20 samples flagged, awaiting a lead


def disputed_project(db, lead) -> int:
    """40 texts, two annotations each: ξ spread over the samples with a per-sample disagreement,
    and on 14 of them the second annotator's segmentation differs (a segmentation-mismatch flag:
    they wait for a lead and get no gold), and on every fourth the second segment's axis differs
    (they wait too)."""
    p = projects.create_project(db, lead, "Disputes")
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"On day {i} the team will finish the report and then everybody rests.", 1, f"D-{i:03d}", i + 1)
        for i in range(N_SAMPLES)])
    lines = []
    for i in range(N_SAMPLES):
        xi = 30.0 + 1.7 * i
        for who, shift, bounds, axes in (
                ("ann_x", 0.0, [0, 5], ["main", "static"]),
                ("ann_y", ((i * 7 % 11) - 5.0) * 0.3, [0, 3] if i in DISPUTED else [0, 5],
                 ["main", "generic"] if i % 4 == 0 else ["main", "static"])):
            lines.append(json.dumps({
                "sample_id": f"D-{i:03d}", "annotator": who, "boundaries": bounds, "segment_axes": axes,
                "xi": xi + shift, "omega": 8.0 + (i % 5) + (0.5 if who == "ann_y" else 0.0),
                "alpha": 0.5 + 0.3 * (i % 4) - 0.05 * (i % 3) * (who == "ann_y"),
                "submitted_at": "2026-11-02T10:00:00Z"}))
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "disputes.jsonl")
    resolving.resolve_project(db, lead, p.id)
    return p.id


def pingouin_icc1(scope: agreement.AgreementScope, parameter: str) -> float:
    rows = [{"sample": s.sample_id, "slot": slot, "rating": getattr(r, parameter)}
            for s in scope.samples for slot, r in enumerate(s.ratings[:2])]
    with np.errstate(divide="ignore", invalid="ignore"):  # pingouin's F of a form with no error variance
        table = pingouin.intraclass_corr(pd.DataFrame(rows), targets="sample", raters="slot", ratings="rating")
    return float(table.set_index("Type").loc["ICC(1,1)", "ICC"])


def test_the_card_headline_is_the_agreement_before_adjudication(db, lead, tmp_path):
    pid = disputed_project(db, lead)
    rec = exports.export_dataset(db, lead, pid, tmp_path / "out", seed=3)
    card = json.loads((tmp_path / "out" / "export.json").read_text(encoding="utf-8"))["agreement"]
    head = card["benchmark_1"]
    settled = head["settled"]
    assert head["n_samples"] == N_SAMPLES and settled["n_samples"] == rec.n_samples == N_SAMPLES - len(WAITING)
    assert head["excluded"] == {"flagged, awaiting a lead": len(WAITING)}

    page = agreement.project_agreement(db, lead, pid, benchmark=1)
    assert page.report.n_samples == N_SAMPLES
    for name in HEADLINE_NAMES:
        value = page.report.headline[name]
        if head[name] is None:  # withheld by the rule, or undefined on the page too
            assert head["n"][name] < 30 or not math.isfinite(value), name
            continue
        assert head[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
        assert head["intervals"][name] == pytest.approx(list(page.report.interval(name)), rel=1e-9), name
    for parameter in ("xi", "omega", "alpha"):
        assert head[f"icc_{parameter}"] == pytest.approx(pingouin_icc1(page, parameter), rel=1e-9)
    # the disputes pull agreement down: the settled gold's figures read better, and are not the headline
    assert settled["pk"] < head["pk"] and settled["jaccard"] > head["jaccard"]
    assert head["n"]["icc_xi"] == N_SAMPLES and settled["n"]["icc_xi"] == N_SAMPLES - len(WAITING)

    outcome = card["adjudication"]
    assert outcome["n_samples"] == N_SAMPLES and outcome["flagged"] >= len(WAITING)
    assert outcome["awaiting_lead"] == len(WAITING)
    low, high = outcome["flagged_interval"]
    assert low < outcome["flagged"] / N_SAMPLES < high

    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert f"### `benchmark_1` — before adjudication: {N_SAMPLES} samples with two or more annotations" in readme
    assert (f"Settled gold: the same figures over the {N_SAMPLES - len(WAITING)} of these samples whose gold "
            f"this export writes ({len(WAITING)} left out: {len(WAITING)} flagged, awaiting a lead).") in readme
    assert f"- ICC(1,1) of location ξ {head['icc_xi']:.3f} [" in readme
    assert "### Adjudication" in readme

    # the command line states the same figures (the page's report), with their n
    code, out, _ = run_cli(db, "agreement", "--project", "Disputes", "--benchmark", "1")
    assert code == 0 and f"{head['icc_xi']:.3f} [" in out and f"(n = {N_SAMPLES})" in out

    document = json.loads((tmp_path / "out" / "agreement.json").read_text(encoding="utf-8"))
    assert document["figures"] == card and document["export_id"] == rec.id and document["log_base"] == 1.1
    assert document["rules"]["icc_xi"]["min_n"] == 30 and document["rules"]["w1"]["min_n"] == 10


def test_the_card_scores_the_annotators_as_experts_by_pseudonym(db, lead, tmp_path):
    pid = expert_project(db, lead, {"ann_centred": 12, "ann_late": 12, "ann_new": 5})
    # two texts without an outcome that ann_centred and ann_late agree on: the export's gold
    text_imports.import_texts(db, lead, pid, [TextRecord(f"The gallery on street {i} is closed this week.", 1,
                                                     f"G-{i}", i + 1) for i in range(2)])
    lines = [json.dumps({"sample_id": f"G-{i}", "annotator": who, "boundaries": [0], "segment_axes": ["main"],
                         "xi": 50.0, "omega": 8.0, "alpha": 0.5, "submitted_at": "2026-11-02T10:00:00Z"})
             for i in range(2) for who in ("ann_centred", "ann_late")]
    annotation_import.import_annotations(db, lead, pid, "\n".join(lines).encode(), "gold.jsonl")
    exports.export_dataset(db, lead, pid, tmp_path / "out", seed=3)
    ids = {name: f.annotator for name, f in experts.expert_overview(db, lead, pid).rows()}
    names = {name: pseudonym(uid) for name, uid in ids.items()}

    document = json.loads((tmp_path / "out" / "agreement.json").read_text(encoding="utf-8"))
    found = document["figures"]["experts"]
    assert (found["seed_items"], found["outcome_items"]) == (12, 12)
    by_name = {a["annotator"]: a for a in found["annotators"]}
    assert set(by_name) == {names["ann_centred"], names["ann_late"], names["ann_new"]}
    centred, late, new = (by_name[names[n]] for n in ("ann_centred", "ann_late", "ann_new"))
    assert centred["calibration"]["value"] > 0.05 > late["calibration"]["value"] and centred["n_seeds"] == 12
    assert new["calibration"]["value"] is None and new["calibration"]["withheld"] == "needs ≥ 10 seeds"
    card = json.loads((tmp_path / "out" / "export.json").read_text(encoding="utf-8"))["agreement"]
    assert card["experts"] == found

    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Annotators as experts", 1)[1].split("\n## ", 1)[0]
    assert "the gold's half-gone time (calibration against the panel, not against what happened)" in section
    assert "at least 10 seeds" in section
    assert "12 seed items (12 with a known outcome). 2 of 3 annotators with seeds are scored; median calibration" in section
    assert "1 rejected at the 5 % level." in section
    assert f"- `{names['ann_new']}` — 5 seeds (5 with a known outcome): — needs ≥ 10 seeds (n = 5)" in section
    assert f"- `{names['ann_centred']}` — 12 seeds (12 with a known outcome): calibration " in section
    assert "ann_centred" not in readme and "ann_late" not in readme  # pseudonyms only
    assert "experts:" not in readme.split("## Annotators as experts")[0]  # not repeated as plain lines
