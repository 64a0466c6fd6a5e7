"""Annotators (lead dashboard): the table and charts on seeded work, the filters, roles."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from streamlit.testing.v1 import AppTest

from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from db.models import Annotation
from page_helpers import (
    APP_PATH,
    SPLIT_A,
    SPLIT_B,
    TIMEOUT,
    annotate,
    errors,
    infos,
    metric_values,
    run,
    shown,
    text_records,
    titles,
)
from annotation.quality.annotator_stats import pair_rules
from gold_data import expert_project, gold_project
from ui.session import ACTOR_KEY

PAGE_PATH = str(Path(APP_PATH).parent / "screens/annotators.py")


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Dashboard project")
    text_imports.import_texts(db, lead, p.id, text_records(4))
    return p


@pytest.fixture
def seeded(db, pair, project):
    """Both annotate three texts today; one disagreement (S-001), one own flag (ann_b, S-002),
    and ann_a has a draft open."""
    a, b = pair
    for split_b, flags in ((SPLIT_A, ()), (SPLIT_B, ()), (SPLIT_A, ("not_present_tense",))):
        annotate(db, a, project.id, **SPLIT_A)
        annotate(db, b, project.id, **split_b, flags=flags)
    queue.next_item(db, a, project.id)
    return project


@pytest.fixture
def open_page(make_app, lead):
    def _open(actor=None):
        at = run(make_app(actor or lead))
        at.switch_page("screens/annotators.py")
        return run(at)

    return _open


def _summary(at):
    for frame in at.dataframe:
        if "annotator" in frame.value.columns and "drafts" in frame.value.columns:
            return frame.value
    raise AssertionError("no per-annotator table")


def test_annotators_do_not_get_the_page(make_app, pair, project):
    at = run(make_app(pair[0]))
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("screens/annotators.py")


def test_the_page_itself_refuses_an_annotator(db_url, pair, project):
    at = AppTest.from_file(PAGE_PATH, default_timeout=TIMEOUT)
    at.session_state[ACTOR_KEY] = pair[0]
    run(at)
    assert errors(at) == ["This page needs the lead role."]
    assert "Annotators" not in titles(at)
    assert not at.dataframe


def test_nothing_yet(open_page, project):
    at = open_page()
    assert titles(at) == ["Annotators"]
    assert infos(at) == ["No submissions and no drafts in this period."]


def test_table_and_charts_on_seeded_work(open_page, seeded):
    at = open_page()
    assert titles(at) == ["Annotators"]
    metrics = metric_values(at)
    assert (metrics["Submitted"], metrics["Annotators active"], metrics["Drafts in progress"]) == ("6", "2", "1")
    table = _summary(at)
    assert list(table["annotator"]) == ["ann_a", "ann_b"]
    a, b = table.iloc[0], table.iloc[1]
    assert (a["submitted"], a["drafts"], a["annotator_flag_rate"]) == (3, 1, 0.0)
    assert b["annotator_flag_rate"] == pytest.approx(1 / 3)
    assert a["auto_flag_rate"] == pytest.approx(1 / 3)  # S-001's segmentation mismatch
    # three shared samples: every agreement figure is "—" with the rule that withheld it, and n
    assert a["partners"] == 1 and a["jaccard"] == "— needs ≥ 10 samples with axis labels (n = 3)"
    assert a["icc_xi"] == "— needs ≥ 30 samples with every curve (n = 3)"
    assert any(pair_rules() in shown(c.value) for c in at.caption)
    # the charts are lazy tabs: one chart per run, the open tab's
    assert [tab.label for tab in at.tabs][:4] == ["Submitted per day", "Median time per sample, per day",
                                                  "Flag rates", "Agreement with each partner (Jaccard)"]
    charts = []
    for name in ("Submitted per day", "Median time per sample, per day", "Flag rates",
                 "Agreement with each partner (Jaccard)"):
        at.session_state["annotators.chart"] = name
        run(at)
        charts.append([c.proto.spec for c in at.get("plotly_chart")])
    assert [len(c) for c in charts] == [1, 1, 1, 0] and len({c[0] for c in charts[:3]}) == 3
    # no pair's Jaccard is shown yet: no heatmap, the rule instead (the tab left open by the loop)
    assert any(shown(c.value).startswith("No pair's Jaccard is shown: a pair's Jaccard needs ≥ 10")
               for c in at.caption)
    pairs = [f.value for f in at.dataframe if "partner" in f.value.columns]
    assert len(pairs) == 1 and list(pairs[0]["partner"]) == ["ann_b", "ann_a"]
    assert set(pairs[0]["pk"]) == {"— needs ≥ 10 samples with two segmentations (n = 3)"}


def test_time_per_sample_under_a_minute_reads_in_seconds(open_page, db, seeded):
    with db.write() as s:
        s.execute(update(Annotation).values(seconds_spent=42.0))
    at = open_page()
    assert metric_values(at)["Median time per sample"] == "42 s"  # not "0.7 min", nor "0.0 min"


def test_annotator_filter(open_page, seeded):
    at = open_page()
    at.multiselect(key="annotators.people").set_value(["ann_b"])
    run(at)
    assert list(_summary(at)["annotator"]) == ["ann_b"]
    assert metric_values(at)["Submitted"] == "3"


def test_date_filter(open_page, seeded):
    at = open_page()
    today = date.today()
    at.date_input(key="annotators.range").set_value((today - timedelta(days=60), today - timedelta(days=40)))
    run(at)
    # no submission then; ann_a's open draft still lists her (drafts are not dated)
    table = _summary(at)
    assert list(table["annotator"]) == ["ann_a"]
    assert table.iloc[0]["submitted"] == 0 and table.iloc[0]["drafts"] == 1
    assert metric_values(at)["Submitted"] == "0"


def test_each_annotator_is_judged_against_the_thresholds(open_page, seeded):
    at = open_page()
    table = _summary(at)
    assert "verdict" in table.columns
    # three shared samples: no ICC for the pair yet, and the cell says so rather than "None"
    assert all("— ICC" in v for v in table["verdict"])
    assert not any("None" in v or "threshold" in v for v in table["verdict"])


def spread_points(i: int, j: int = 0) -> tuple[tuple[float, float], ...]:
    """Five points of a single-peaked curve that moves, widens and leans with ``i`` (so ξ, ω and
    α vary over samples, as an ICC needs); ``j`` nudges the second annotator's peak."""
    peak = 27.6 + 0.8 * i + 0.3 * j
    left, right = 1 + 0.15 * (i % 4), 1 + 0.15 * ((i + 2) % 4)
    return ((peak, 0.77), (peak - 6 * left, 0.41), (peak + 4 * right, 0.41),
            (peak - 12.7 * left, 0.19), (peak + 7.3 * right, 0.2))


@pytest.fixture
def many(db, lead, pair, project):
    """ann_a and ann_b share 32 samples today (one boundary disagreement): enough for every
    agreement figure (the ICC needs 30 shared samples)."""
    text_imports.import_texts(db, lead, project.id, text_records(36)[4:])
    a, b = pair
    for i in range(32):
        annotate(db, a, project.id, **SPLIT_A, points=spread_points(i))
        annotate(db, b, project.id, **(SPLIT_B if i == 0 else SPLIT_A), points=spread_points(i, 1))
    return project


def test_agreement_figures_with_their_n_over_enough_shared_samples(open_page, many):
    at = open_page()
    a = _summary(at).iloc[0]
    for column in ("jaccard", "kappa", "pk", "icc_xi", "icc_omega", "icc_alpha"):
        assert a[column].endswith("(n = 32)") and not a[column].startswith("—"), (column, a[column])
    pairs = next(f.value for f in at.dataframe if "partner" in f.value.columns)
    assert all(cell.endswith("(n = 32)") for cell in pairs["jaccard"])
    at.session_state["annotators.chart"] = "Agreement with each partner (Jaccard)"
    run(at)
    assert '"type":"heatmap"' in at.get("plotly_chart")[0].proto.spec.replace(" ", "")


# --- annotators as experts ---------------------------------------------------------------------


def _experts(at):
    for frame in at.dataframe:
        if "seeds (outcomes)" in frame.value.columns:
            return frame.value
    return None


def _expert_caption(at) -> str:
    return next(shown(c.value) for c in at.caption if shown(c.value).startswith(("Realisation:", "No seed items")))


def test_experts_without_seeds_say_how_to_get_them(open_page, seeded):
    at = open_page()
    assert "Annotators as experts" in [h.value for h in at.subheader]
    assert _experts(at) is None
    caption = _expert_caption(at)
    assert caption.startswith("No seed items yet") and "warm-up set" in caption
    assert "stopped_holding_minutes" in caption and "gold checks" in caption


def test_experts_on_seeds_show_figures_or_the_rule(open_page, db, lead):
    expert_project(db, lead)
    at = open_page()
    assert not at.exception and "Annotators as experts" in [h.value for h in at.subheader]
    table = _experts(at)
    assert list(table["annotator"]) == ["ann_centred", "ann_late", "ann_new"]
    assert list(table["seeds (outcomes)"]) == ["12 (12)", "12 (12)", "5 (5)"]
    centred, late, new = (table.iloc[i] for i in range(3))
    assert not centred["calibration"].startswith("—") and "[" in centred["calibration"]
    assert float(centred["calibration"].split()[0]) > 0.05 > float(late["calibration"].split()[0])
    assert set(new[["calibration", "information", "weight"]]) == {"— needs ≥ 10 seeds (n = 5)"}
    caption = _expert_caption(at)
    assert ("the gold's half-gone time — calibration against the panel, not against what happened; "
            "12 seed items, 12 with a known outcome") in caption
    assert "Calibration:" in caption and "Information:" in caption and "needs ≥ 10 seeds" in caption
    spec = next(c.proto.spec for c in at.get("plotly_chart") if "rejected below" in c.proto.spec)
    assert '"type":"log"' in spec.replace(" ", "") and "ann_centred" in spec and "ann_new" not in spec


def _model_caption(at):
    return next((shown(c.value) for c in at.caption
                 if shown(c.value).startswith(("The annotator model is fitted once", "Fitted on"))), None)


def test_the_annotator_model_waits_for_enough_annotations(open_page, seeded):
    at = open_page()
    assert "The annotator model" in [h.value for h in at.subheader]
    assert _model_caption(at) == ("The annotator model is fitted once the project has 40 submitted production "
                                  "annotations with a curve (6 so far).")


def test_the_annotator_model_shows_each_annotators_bias_noise_and_width(open_page, db, lead):
    gold_project(db, lead, n=40)
    at = open_page()
    table = next(f.value for f in at.dataframe if "width ratio κ" in f.value.columns)
    assert list(table["annotator"]) == ["ann_x", "ann_y"] and list(table["items"]) == ["40", "40"]
    # the two annotated every text alike: no bias, the consensus width
    assert set(table["bias (log-time units)"]) <= {"+0.0", "-0.0"} and set(table["width ratio κ"]) == {"1.00"}
    caption = _model_caption(at)
    assert caption.startswith("Fitted on 80 production annotations of 40 items.") and "cross-fitted" in caption
