"""Agreement page (lead): headline figures against thresholds, filters, charts, CSV download."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, timedelta

import pytest

from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.corpus.text_import import TextRecord
from page_helpers import run, shown, titles
from ui import table_download


#: texts of benchmark 1 (enough for every headline figure: ICC and Krippendorff's α need 30), then 2
N_FIRST, N_SECOND = 30, 2
N = N_FIRST + N_SECOND


@pytest.fixture
def seeded(db, admin):
    """A project with 32 texts (30 of benchmark 1, 2 of benchmark 2), each annotated by two
    (imported) annotators who mostly agree."""
    p = projects.create_project(db, admin, "Agreement project")
    text_imports.import_texts(db, admin, p.id, [TextRecord(f"Shop {i} is closed for repairs today.",
                                                       1 if i < N_FIRST else 2, f"S-{i}", i + 1) for i in range(N)])
    records = []
    start = date(2026, 11, 1)
    for i in range(N):
        for j, who in enumerate(("ann_a", "ann_b")):
            records.append({"sample_id": f"S-{i}", "annotator": who,
                            "boundaries": [0, 2] if (i, j) != (7, 1) else [0, 3],
                            "segment_axes": ["static", "main"] if (i, j) != (3, 1) else ["generic", "main"],
                            "xi": 50.0 + 3 * i + j, "omega": 8.0 + i % 9, "alpha": 0.3 * (i % 7),
                            "submitted_at": f"{start + timedelta(days=i)}T10:00:00Z"})
    data = "\n".join(json.dumps(r) for r in records).encode()
    annotation_import.import_annotations(db, admin, p.id, data, "seed.jsonl")
    return p


def open_page(make_app, actor):
    at = run(make_app(actor))
    at.switch_page("screens/agreement.py")
    return run(at)


def open_tab(at, name: str):
    """Open one of the page's lazy tabs (only the open tab's content runs)."""
    at.session_state["agreement.tab"] = name
    return run(at)


def test_only_the_open_tab_runs(make_app, admin, seeded):
    at = open_page(make_app, admin)
    assert [t.label for t in at.tabs] == ["Curves", "Axis labels", "Curve parameters", "Segmentation",
                                         "Over time", "Annotator pairs", "Review outcomes"]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert len(specs) == 1 and "Curve distance per sample (W1)" in specs[0]
    at = open_tab(at, "Curve parameters")
    assert len(at.get("plotly_chart")) == 3 and "Curve distance per sample (W1)" not in str(
        [c.proto.spec for c in at.get("plotly_chart")])


def test_headline_figures_and_tabs(make_app, admin, seeded):
    at = open_page(make_app, admin)
    assert titles(at) == ["Agreement"]
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["ICC(1,1) ξ"]) > 0.99
    assert 0.5 < float(metrics["Jaccard (axis labels)"]) < 1.0  # one generic/static disagreement
    assert 0.0 < float(metrics["Pk (segmentation)"]) < 0.2  # one boundary disagreement
    assert f"{N} samples with two or more annotations" in at.caption[0].value
    assert at.get("plotly_chart")  # the open tab's histogram
    at = open_tab(at, "Axis labels")
    assert at.get("plotly_chart")  # the heatmap
    # merging Generic and Static removes the generic/static disagreement from kappa
    unmerged = float({m.label: m.value for m in at.metric}["Cohen's kappa"])
    at.toggle(key="agreement.merged").set_value(True)
    run(at)
    merged = float({m.label: m.value for m in at.metric}["Cohen's kappa"])
    assert merged > unmerged
    # the choice stays through another tab (whose run leaves the toggle out)
    at = open_tab(open_tab(at, "Segmentation"), "Axis labels")
    assert at.toggle(key="agreement.merged").value is True
    assert float({m.label: m.value for m in at.metric}["Cohen's kappa"]) == merged


def test_filters(make_app, admin, seeded):
    at = open_page(make_app, admin)
    at.selectbox(key="agreement.benchmark").set_value(2)
    run(at)
    assert "2 samples with two or more annotations" in at.caption[0].value
    at.selectbox(key="agreement.benchmark").set_value("all")
    at.multiselect(key="agreement.annotators").set_value(["ann_a"])
    run(at)
    assert "No sample has two submitted annotations" in at.info[0].value


def test_annotators_cannot_open_it(make_app, make_user, seeded):
    ann = make_user("someone")
    at = run(make_app(ann))
    with pytest.raises(Exception):  # switching to a page the role does not register raises
        at.switch_page("screens/agreement.py")


def _verdict_captions(at) -> list[str]:
    """The verdict part of each headline caption ("n = 32 · 95 % CI [lo, hi] · <verdict>", or
    "n = 2 · — <the rule that withheld it>")."""
    parts = [c.value.rsplit(" · ", 1)[-1] for c in at.caption if c.value.startswith("n = ")]
    return [p for p in parts if p.startswith(("passes:", "does not pass:", "— "))]


def test_headline_verdicts_use_the_shared_wording(make_app, admin, seeded):
    at = open_page(make_app, admin)
    verdicts = _verdict_captions(at)
    assert len(verdicts) == 5  # ICC ξ, ω, α, Jaccard, Pk
    metrics = {m.label: m.value for m in at.metric}
    assert f"passes: ICC ξ {metrics['ICC(1,1) ξ']} > 0.90" in verdicts
    pk = metrics["Pk (segmentation)"]
    assert (f"passes: Pk {pk} < 0.15" in verdicts) == (float(pk) < 0.15)
    assert (f"does not pass: Pk {pk} is above the 0.15 maximum" in verdicts) == (float(pk) > 0.15)
    assert not any(word in c for c in verdicts for word in ("threshold", "None", "not enough data"))

    # two samples: no figure the data cannot support (issue 33) — each "—" with its rule and n
    at.selectbox(key="agreement.benchmark").set_value(2)
    run(at)
    verdicts = _verdict_captions(at)
    assert verdicts[:5] == ["— needs ≥ 30 samples with every curve"] * 3 + [
        "— needs ≥ 10 samples with axis labels", "— needs ≥ 10 samples with two segmentations"]
    assert {m.label: m.value for m in at.metric}["ICC(1,1) ξ"] == "—"
    assert any(c.value == "n = 2 · — needs ≥ 30 samples with every curve" for c in at.caption)
    w1 = next(c.value for c in at.caption if c.value.startswith("n = 2 · — needs ≥ 10 samples with two curves"))
    assert w1 and {m.label: m.value for m in at.metric}["Curve distance W1"] == "—"


def test_every_headline_figure_shows_its_interval_and_the_curves_and_alpha_figures(make_app, admin, seeded):
    at = open_page(make_app, admin)
    metrics = {m.label: m.value for m in at.metric}
    # W1 as a time factor; curves of consecutive samples differ by 1 in ξ only: W1 ≈ 1 → ×1.10
    assert metrics["Curve distance W1"].startswith("×1.1")
    for label in ("Krippendorff α (ξ)", "Krippendorff α (ω)", "Krippendorff α (α)", "Krippendorff α (axis labels)"):
        assert label in metrics and metrics[label] != "—"
    # "n = 32 · 95 % CI [..]" (the labels' α counts tokens, not samples)
    intervals = [c.value for c in at.caption if c.value.startswith("n = ") and " · 95 % CI [" in c.value]
    assert len(intervals) == 9  # ICC ×3, Jaccard, Pk, α ×4
    w1_caption = next(c.value for c in at.caption if c.value.startswith(f"n = {N} · mean W1"))
    assert "log-time units, 95 % CI [" in w1_caption and "flag above 12" in w1_caption
    assert any(c.value.startswith("Intervals: 95 % bootstrap") and "seed 20261124" in c.value for c in at.caption)
    # the Curves tab: the W1 histogram with the project's flag threshold
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    w1_hist = [spec for spec in specs if "Curve distance per sample (W1)" in spec]
    assert len(w1_hist) == 1 and "flag threshold" in w1_hist[0]
    assert {m.label for m in at.metric} >= {"Mean W1", "Median W1", "Mean overlap", "Samples above the flag"}
    # the same page again gives the same intervals (seeded bootstrap)
    again = run(at)
    assert [c.value for c in again.caption if c.value in intervals] == intervals


def test_review_outcomes_show_wilson_intervals(db, make_app, admin, seeded):
    from annotation.services.review import review
    items = review.review_queue(db, admin, seeded.id)
    at = open_tab(open_page(make_app, admin), "Review outcomes")
    assert any("No review item has been closed" in c.value for c in at.caption)
    assert items, "the seeded disagreements open review items"
    # accepted as it is: a case whose union has one axis per segment (the gold keeps one)
    accepted = next(i for i in items if "axes_differ" not in i.reasons)
    review.decide(db, admin, accepted.item_id, "accept_auto", note="", confidence=4, error_type="other")
    at = run(at)
    table = next(f.value for f in at.dataframe if "95 % interval" in f.value.columns)
    rows = {r["outcome"]: r for r in table.to_dict("records")}
    assert set(rows) == {"unchanged", "changed", "sent back", "discarded"}
    assert rows["unchanged"]["samples"] == 1 and rows["unchanged"]["share"] == "100.0%"
    assert rows["unchanged"]["95 % interval"] == "20.7% – 100.0%"  # Wilson, 1 of 1
    assert rows["changed"]["95 % interval"] == "0.0% – 79.3%"


def csv_rows(data: bytes | str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode() if isinstance(data, bytes) else data)))


def test_a_large_table_is_prepared_on_request_and_kept_while_it_is_the_same(make_app, admin, seeded, downloads,
                                                                            monkeypatch):
    # above the size written on every run, the lead asks for the CSV; the bytes then stay
    # (a rerun keeps the button: no download is ever built on click, so none can be lost)
    monkeypatch.setattr(table_download, "AT_ONCE_MAX_ROWS", 4)
    at = open_page(make_app, admin)
    assert not [n for n in downloads if n.endswith(".csv")]
    at.button(key="agreement.download.prepare").click()
    run(at)
    (name,) = [n for n in downloads if n.endswith(".csv")]
    rows = csv_rows(downloads[name])
    assert sorted(r["sample_id"] for r in rows) == sorted(f"S-{i}" for i in range(N))
    downloads.clear()
    run(at)
    assert name in downloads and not [b for b in at.button if b.key == "agreement.download.prepare"]
    # another table (a filter): prepared again only when asked
    downloads.clear()
    at.selectbox(key="agreement.benchmark").set_value(1)
    run(at)
    assert not [n for n in downloads if n.endswith(".csv")]
    at.button(key="agreement.download.prepare").click()
    run(at)
    assert len(csv_rows(downloads[name])) == N_FIRST


def test_breakdowns_withhold_what_too_few_samples_cannot_support(make_app, admin, seeded):
    # one pair of annotators shares all 32 samples: every figure of the pair is shown (ICC needs 30);
    # the samples were submitted over days of few samples each: a week under 10 shows no Jaccard
    at = open_tab(open_page(make_app, admin), "Annotator pairs")
    pairs = next(f.value for f in at.dataframe if "annotator A" in f.value.columns)
    assert list(pairs["samples"]) == [N] and pairs["icc_xi"].notna().all() and pairs["jaccard"].notna().all()
    said = [shown(c.value) for c in at.caption]
    assert any(c.startswith("A pair's figure is empty where the two share too few samples for it: ") for c in said), said
    at = open_tab(at, "Over time")
    weeks = next(f.value for f in at.dataframe if "week" in f.value.columns)
    small = weeks[weeks["samples"] < 10]
    assert len(small) == len(weeks) > 3          # one sample a day: every week holds 7 or fewer
    assert small["jaccard"].isna().all() and small["icc_xi"].isna().all()
    assert weeks[weeks["samples"] < 30]["icc_xi"].isna().all()
    assert any("ICC(1,1) needs ≥ 30 samples with every curve" in shown(c.value) for c in at.caption)
