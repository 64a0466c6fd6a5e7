"""The dataset card's agreement section (issue 12 item 8): every headline figure with its
bootstrap interval in words, W1 in the export's log base, undefined figures as "—" with the
reason — and the card's YAML header still loads with ``datasets``."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest
import yaml

from annotation.agreement import HEADLINE_MEASURES, agreement_report
from annotation.agreement.ratings import RatedSample, Rating
from annotation.export import (
    ExportMeta,
    ExportSettings,
    GoldSample,
    agreement_lines,
    card_figures,
    export_hf_dataset,
    read_export,
)

META = ExportMeta(export_id=3, project="Card project", created_by="lead01",
                  created_at=datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc))
T = datetime(2026, 11, 2, 8, 0, tzinfo=timezone.utc)


def known_figures(w1_base: float = 1.1) -> dict:
    """One benchmark's figures as the export stores them: ICC of α undefined, every other
    figure with its interval (Krippendorff's α of ξ needs a fourth decimal to tell its ends)."""
    return {"benchmark_1": {
        "n_samples": 1234,
        "icc_xi": 0.934, "icc_omega": 0.9, "icc_alpha": None,
        "jaccard": 0.812, "pk": 0.121, "w1": 5.45,
        "alpha_xi": 0.9951, "alpha_omega": 0.98, "alpha_alpha": 0.5, "alpha_labels": 0.7,
        "intervals": {"icc_xi": [0.921, 0.945], "icc_omega": [0.88, 0.92], "icc_alpha": [None, None],
                      "jaccard": [0.8, 0.824], "pk": [0.11, 0.133], "w1": [5.42, 5.49],
                      "alpha_xi": [0.9948, 0.9953], "alpha_omega": [0.97, 0.99],
                      "alpha_alpha": [0.4, 0.6], "alpha_labels": [0.69, 0.71]},
        "undefined": {"icc_alpha": "needs ≥ 3 samples with every curve (2 so far)"},
        "bootstrap": {"confidence": 0.95, "resamples": 1000, "seed": 20261124},
        "w1_base": w1_base,
    }}


def test_card_text_with_known_figures_intervals_and_an_undefined_one():
    lines = agreement_lines(known_figures(), 1.1)
    body = "\n".join(lines)
    assert "### `benchmark_1` — 1,234 samples with two or more annotations" in lines
    assert ("In brackets: the 95% bootstrap interval (percentile method; the samples resampled with "
            "replacement 1000 times, seed 20261124; the same data and seed give the same interval). n: the "
            "samples (tokens, for the axis labels' α) a figure rests on; a figure with too few is withheld "
            "(—) with the rule.") in lines
    figures = [line for line in lines if line.startswith("- ")]
    assert figures == [
        "- ICC(1,1) of location ξ 0.934 [0.921, 0.945]",
        "- ICC(1,1) of scale ω 0.900 [0.880, 0.920]",
        "- ICC(1,1) of skewness α — needs ≥ 3 samples with every curve (2 so far)",
        "- Jaccard of token axis labels 0.812 [0.800, 0.824]",
        "- Pk of segmentations (lower is better) 0.121 [0.110, 0.133]",
        "- Curve distance W1 5.45 base-1.1 log-time units [5.42, 5.49] (curves ≈ ×1.7 apart in time)",
        "- Krippendorff's α (ξ) 0.9951 [0.9948, 0.9953]",
        "- Krippendorff's α (ω) 0.980 [0.970, 0.990]",
        "- Krippendorff's α (skewness α) 0.500 [0.400, 0.600]",
        "- Krippendorff's α (axis labels) 0.700 [0.690, 0.710]",
    ]
    assert "Wasserstein-1" in body and "base-1.1 log-time units" in body
    assert "None" not in body and "nan" not in body.lower()


def test_w1_is_written_in_the_export_base_and_its_time_factor_does_not_change():
    factor = math.log(1.1) / math.log(math.e)
    (line,) = [x for x in agreement_lines(known_figures(), math.e) if "W1" in x and x.startswith("- ")]
    # 5.45 × ln(1.1) = 0.519…: three significant digits
    assert line == (f"- Curve distance W1 {5.45 * factor:.3f} base-2.71828 log-time units "
                    f"[{5.42 * factor:.3f}, {5.49 * factor:.3f}] (curves ≈ ×1.7 apart in time)")
    assert f"{5.45 * factor:.3f}" == "0.519"
    # figures already in the export's base (w1_base = e) are not converted again
    again = [x for x in agreement_lines(known_figures(math.e), math.e) if "W1" in x and x.startswith("- ")]
    assert again == ["- Curve distance W1 5.45 base-2.71828 log-time units [5.42, 5.49] "
                     "(curves ≈ ×232.8 apart in time)"]


def test_a_figure_without_an_interval_says_why():
    figures = known_figures()
    figures["benchmark_1"]["intervals"]["pk"] = [None, None]
    figures["benchmark_1"]["undefined"]["pk"] = "no interval: the figure is undefined on every bootstrap resample"
    lines = agreement_lines(figures, 1.1)
    assert ("- Pk of segmentations (lower is better) 0.121 "
            "(no interval: the figure is undefined on every bootstrap resample)") in lines


def test_other_figures_are_listed_as_given():
    lines = agreement_lines({"icc_xi": 0.93, "pk": float("nan"), "note": "pilot"}, 1.1)
    assert lines == ["- **icc_xi**: 0.930", "- **pk**: —", "- **note**: pilot"]


def shifted_samples(n: int) -> list[RatedSample]:
    """n samples whose two curves are identical but shifted by 6 log-time units (W1 = 6), the
    same single-segment labels (Jaccard 1, Pk 0), ξ spread over samples (ICC and α high)."""
    out = []
    for i in range(n):
        xi = 30.0 + 3 * i
        out.append(RatedSample(f"B1-{i:04d}", 1, 6, (
            Rating("ann01", T, (0,), ("main",), xi, 8.0 + i % 3, 0.5),
            Rating("ann02", T, (0,), ("main",), xi + 6.0, 8.0 + i % 3, 0.5))))
    return out


def test_card_figures_of_a_report_convert_w1_and_keep_the_intervals():
    report = agreement_report(shifted_samples(30), measures=HEADLINE_MEASURES, breakdowns=False,
                              resamples=200, seed=5)
    figures = card_figures(report, base=1.1, resamples=200, seed=5)
    assert figures["n"]["icc_xi"] == figures["n"]["w1"] == figures["n"]["alpha_xi"] == 30
    assert figures["n_samples"] == 30 and figures["bootstrap"] == {"confidence": 0.95, "resamples": 200, "seed": 5}
    assert figures["w1"] == pytest.approx(6.0, abs=0.05)
    assert figures["jaccard"] == 1.0 and figures["pk"] == 0.0
    low, high = figures["intervals"]["alpha_xi"]
    assert low <= figures["alpha_xi"] <= high
    in_e = card_figures(report, base=math.e, resamples=200, seed=5)
    assert in_e["w1_base"] == math.e
    assert in_e["w1"] == pytest.approx(figures["w1"] * math.log(1.1))
    assert in_e["intervals"]["w1"] == pytest.approx([v * math.log(1.1) for v in figures["intervals"]["w1"]])
    assert card_figures(report, base=1.1, resamples=200, seed=5) == figures  # seeded: reproducible


def test_undefined_figures_of_a_report_carry_their_reasons():
    # thirty samples without curves: no ICC, W1 or curve α; labels all "main": no variation
    samples = [RatedSample(f"B1-{i}", 1, 4, (Rating("ann01", T, (0,), ("main",)),
                                            Rating("ann02", T, (0,), ("main",)))) for i in range(30)]
    report = agreement_report(samples, measures=HEADLINE_MEASURES, breakdowns=False, resamples=50)
    figures = card_figures(report, base=1.1, resamples=50, seed=1)
    assert figures["w1"] is None and figures["icc_xi"] is None and figures["intervals"]["w1"] == [None, None]
    assert figures["undefined"]["w1"] == "needs ≥ 10 samples with two curves"
    assert figures["undefined"]["alpha_xi"] == "needs ≥ 30 units"
    assert figures["undefined"]["alpha_labels"] == "no variation: every token has the same axis"
    assert figures["n"]["alpha_labels"] == 120 and figures["n"]["w1"] == 0
    assert figures["undefined"]["icc_xi"] == "needs ≥ 30 samples with every curve"
    text = "\n".join(agreement_lines({"benchmark_1": figures}, 1.1))
    assert "- Curve distance W1 — needs ≥ 10 samples with two curves (n = 0)" in text
    assert "- Jaccard of token axis labels 1.000 [1.000, 1.000] (n = 30)" in text
    assert "None" not in text and "nan" not in text.lower()


def test_figures_on_too_few_samples_are_withheld_with_the_rule():
    """The card states no figure its data cannot support: on 9 samples every mean is withheld
    (the percentile bootstrap needs 10), ICC and α too (30); each says its rule and its n."""
    report = agreement_report(shifted_samples(9), measures=HEADLINE_MEASURES, breakdowns=False, resamples=50)
    figures = card_figures(report, base=1.1, resamples=50, seed=1)
    assert [figures[name] for name in ("icc_xi", "jaccard", "pk", "w1", "alpha_xi")] == [None] * 5
    # 9 × 6 tokens are enough units for the labels' α; it has no value for another reason
    assert figures["n"]["alpha_labels"] == 54
    assert figures["undefined"]["alpha_labels"] == "no variation: every token has the same axis"
    text = "\n".join(agreement_lines({"benchmark_1": figures}, 1.1))
    assert "- ICC(1,1) of location ξ — needs ≥ 30 samples with every curve (n = 9)" in text
    assert "- Pk of segmentations (lower is better) — needs ≥ 10 samples with two segmentations (n = 9)" in text


def test_the_card_tells_before_and_after_adjudication_and_how_review_went():
    before = card_figures(agreement_report(shifted_samples(30), measures=HEADLINE_MEASURES, breakdowns=False,
                                           resamples=50), base=1.1, resamples=50, seed=1)
    settled = card_figures(agreement_report(shifted_samples(12), measures=HEADLINE_MEASURES, breakdowns=False,
                                            resamples=50), base=1.1, resamples=50, seed=1)
    figures = {"benchmark_1": {**before, "settled": settled, "discarded": 2,
                               "excluded": {"flagged, awaiting a lead": 14, "not resolved yet": 4}},
               "adjudication": {"n_samples": 30, "flagged": 16, "flagged_interval": [0.36, 0.70],
                                "awaiting_lead": 14, "decisions": {"accept_auto": 1, "edit": 1},
                                "gold_by_source": {"automatic": 11, "edited": 1}, "changed_by_lead": 1}}
    lines = agreement_lines(figures, 1.1)
    assert "### `benchmark_1` — before adjudication: 30 samples with two or more annotations" in lines
    assert ("Settled gold: the same figures over the 12 of these samples whose gold this export writes "
            "(18 left out: 14 flagged, awaiting a lead; 4 not resolved yet).") in lines
    assert ("2 samples a lead discarded after two or more annotations are outside both, as on the "
            "Agreement page.") in lines
    assert "### Adjudication" in lines
    assert ("- The lead's decisions: Accepted the automatic resolution 1 · Stored an edited resolution 1.") in lines
    assert "- The gold in this export by how it was resolved: automatic 11 · edited 1; a lead changed 1 of 12." in lines
    # the before figures come first, then the settled ones
    icc_lines = [i for i, line in enumerate(lines) if line.startswith("- ICC(1,1) of location ξ")]
    assert len(icc_lines) == 2 and lines[icc_lines[0]].endswith("(n = 30)")
    assert lines[icc_lines[1]] == "- ICC(1,1) of location ξ — needs ≥ 30 samples with every curve (n = 12)"

def test_the_card_of_an_export_carries_the_figures_and_still_loads(tmp_path, monkeypatch):
    samples = [GoldSample(f"B1-{i:04d}", 1, "The bakery on Elm Street is closed this week.", (0,),
                          (("main",),), 40.0 + i, 9.0, 0.0) for i in range(12)]
    out = tmp_path / "card"
    export_hf_dataset(out, samples, [], ExportSettings(base=math.e, seed=2), meta=META,
                      agreement=known_figures())
    contents = read_export(out)
    card = contents.card
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["pretty_name"] == "Card project"
    assert "- Curve distance W1 0.519 base-2.71828 log-time units [0.517, 0.523]" in card
    # the card writes W1 in the export's base; the manifest keeps it in base 1.1
    assert round(contents.manifest.agreement["benchmark_1"]["w1"] * math.log(1.1), 3) == 0.519
    assert "- Krippendorff's α (ξ) 0.9951 [0.9948, 0.9953]" in card
    assert contents.manifest.agreement["benchmark_1"]["w1_base"] == 1.1
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    loaded = datasets.load_dataset(str(out), "benchmark_1", cache_dir=str(tmp_path / "hf" / "datasets"))
    assert sum(len(split) for split in loaded.values()) == 12
