"""The lead's annotator dashboard on seeded data (SQLite and PostgreSQL): submissions per day,
time per sample, flag rates, drafts, agreement with partners, the date filter and roles."""

from __future__ import annotations

import math
from datetime import date, datetime, timezone

import pytest
from sqlalchemy import select, update

from annotation.services.quality import dashboard
from annotation.services.workbench import queue
from annotation.services.review import warmup_set
from annotation.services.errors import InvalidInput, PermissionDenied
from db.models import Annotation, Sample
from service_helpers import annotate

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
SPLIT_A = dict(boundaries=(0, 4), segment_axes=("static", "main"))
SPLIT_B = dict(boundaries=(0, 6), segment_axes=("static", "main"))
D1, D2, D3 = date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12)


def at(day: date, hour: int = 10) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=timezone.utc)


def backdate(db, annotation_id: int, when: datetime, seconds: float) -> None:
    with db.write() as s:
        s.execute(update(Annotation).where(Annotation.id == annotation_id)
                  .values(submitted_at=when, seconds_spent=seconds))


@pytest.fixture
def seeded(db, make_user, make_project):
    """Two annotators on four samples (k = 2): one annotator flag (ann_a, S-002), one automatic
    flag (S-001, different boundaries), one open draft (ann_a, S-004)."""
    pid = make_project(5)
    a, b = make_user("ann_a"), make_user("ann_b")
    plan_a = [(SPLIT_A, {}), (SPLIT_A, {}), (SPLIT_A, {"flags": ("not_present_tense",)}), (SPLIT_A, {})]
    plan_b = [SPLIT_A, SPLIT_B, SPLIT_A, SPLIT_A]
    times_a = [(at(D1, 9), 60.0), (at(D1, 11), 120.0), (at(D2), 300.0), (at(D3), 30.0)]
    for (split, extra), split_b, (when, secs) in zip(plan_a, plan_b, times_a):
        item_a = annotate(db, a, pid, **split, **extra)
        item_b = annotate(db, b, pid, **split_b)
        backdate(db, item_a.annotation_id, when, secs)
        backdate(db, item_b.annotation_id, at(D2, 15), 100.0)
    queue.next_item(db, a, pid)  # S-004 stays a draft
    return pid


def _row(frame, name):
    rows = frame[frame["annotator"] == name]
    assert len(rows) == 1, frame
    return rows.iloc[0]


def test_submissions_per_day_and_time_per_sample(db, lead, seeded):
    dash = dashboard.annotator_dashboard(db, lead, seeded)
    daily = {(r.day, r.annotator): (r.submitted, r.median_seconds, r.mean_seconds)
             for r in dash.daily.itertuples()}
    assert daily == {
        (D1, "ann_a"): (2, 90.0, 90.0),
        (D2, "ann_a"): (1, 300.0, 300.0),
        (D2, "ann_b"): (4, 100.0, 100.0),
        (D3, "ann_a"): (1, 30.0, 30.0),
    }
    a = _row(dash.summary, "ann_a")
    assert (a.submitted, a.warmup, a.active_days, a.drafts) == (4, 0, 3, 1)
    assert a.per_active_day == pytest.approx(4 / 3)
    assert a.median_seconds == pytest.approx(90.0)  # of 30, 60, 120, 300
    assert a.mean_seconds == pytest.approx(127.5)
    b = _row(dash.summary, "ann_b")
    assert (b.submitted, b.active_days, b.drafts, b.median_seconds) == (4, 1, 0, 100.0)


def test_flag_rates(db, lead, seeded):
    summary = dashboard.annotator_dashboard(db, lead, seeded).summary
    a, b = _row(summary, "ann_a"), _row(summary, "ann_b")
    assert a.annotator_flag_rate == pytest.approx(0.25) and b.annotator_flag_rate == 0.0
    # S-001 got the automatic segmentation-mismatch flag: one of each one's four complete samples
    assert (a.complete_samples, b.complete_samples) == (4, 4)
    assert a.auto_flag_rate == pytest.approx(0.25) and b.auto_flag_rate == pytest.approx(0.25)


def test_agreement_with_partners(db, lead, seeded):
    dash = dashboard.annotator_dashboard(db, lead, seeded)
    assert dash.n_agreement_samples == 4
    assert list(dash.partners[["annotator", "partner", "n_samples"]].itertuples(index=False, name=None)) == [
        ("ann_a", "ann_b", 4), ("ann_b", "ann_a", 4)]
    # S-001: 12 of 14 tokens agree → 12 / (28 − 12); the three others agree fully
    # four shared samples: every figure is withheld by the rule, with the rule and n = 4
    assert dash.partners[["jaccard", "pk", "icc_xi"]].isna().all().all()
    a = _row(dash.summary, "ann_a")
    assert a.partners == 1 and math.isnan(a.jaccard) and math.isnan(a.pk)
    assert dash.figures["ann_a"]["jaccard"].text() == "— needs ≥ 10 samples with axis labels (n = 4)"
    assert dash.figures["ann_a"]["icc_omega"].text() == "— needs ≥ 30 samples with every curve (n = 4)"
    assert dash.pair_figures[("ann_a", "ann_b")]["pk"].text() == "— needs ≥ 10 samples with two segmentations (n = 4)"


def test_agreement_with_partners_over_enough_shared_samples(db, lead, make_user, make_project):
    """From 10 shared samples a pair's Jaccard, kappa and Pk are shown with their n; the ICC
    waits for 30 (annotation.publishable.NEEDS)."""
    pid = make_project(12)
    a, b = make_user("ann_a"), make_user("ann_b")
    for i in range(12):
        annotate(db, a, pid, **SPLIT_A)
        annotate(db, b, pid, **(SPLIT_B if i == 0 else SPLIT_A))
    dash = dashboard.annotator_dashboard(db, lead, pid)
    jaccard = (11 + 12 / 16) / 12  # S-000: 12 of 14 tokens agree → 12 / (28 − 12)
    assert dash.partners["jaccard"].tolist() == pytest.approx([jaccard, jaccard])
    figures = dash.figures["ann_a"]
    assert figures["jaccard"].text() == f"{jaccard:.3f} (n = 12)"
    assert figures["pk"].shown and figures["pk"].n == 12
    assert figures["icc_xi"].text() == "— needs ≥ 30 samples with every curve (n = 12)"
    assert dash.pair_figures[("ann_a", "ann_b")]["jaccard"].text() == f"{jaccard:.3f} (n = 12)"
    row = _row(dash.summary, "ann_a")
    assert row.jaccard == pytest.approx(jaccard) and math.isnan(row.icc_xi)
    verdicts = dashboard.agreement_verdicts(row.to_dict(), dash.thresholds, figures)
    assert verdicts["jaccard"].passes is True
    assert verdicts["icc"].text == "— needs ≥ 30 samples with every curve (n = 12)"
    assert row.verdict == "— ICC"

    from annotation.services.projects import projects
    projects.update_settings(db, lead, pid, qualify_jaccard_min=0.99)
    assert _row(dashboard.annotator_dashboard(db, lead, pid).summary, "ann_a").verdict == "✗ Jaccard · — ICC"


def test_date_filter(db, lead, seeded):
    dash = dashboard.annotator_dashboard(db, lead, seeded, start=D1, end=D1)
    assert list(dash.summary["annotator"]) == ["ann_a"]  # ann_b submitted nothing on D1
    a = _row(dash.summary, "ann_a")
    assert (a.submitted, a.median_seconds, a.annotator_flag_rate) == (2, 90.0, 0.0)
    assert dash.n_agreement_samples == 0  # no sample was completed on D1
    later = dashboard.annotator_dashboard(db, lead, seeded, start=D2)
    assert set(later.daily["day"]) == {D2, D3}
    with pytest.raises(InvalidInput):
        dashboard.annotator_dashboard(db, lead, seeded, start=D3, end=D1)


def test_warmup_work_is_counted_apart(db, make_user, lead, make_project):
    pid = make_project(3)
    warmup_set.mark_warmup(db, lead, pid, ["S-002"])
    with db.read() as s:
        sid = s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == "S-002"))
    warmup_set.set_warmup_gold(db, lead, sid, boundaries=(0,), segment_axes=("main",),
                               xi=30.0, omega=8.0, alpha=0.5)
    ann = make_user("ann")
    item = annotate(db, ann, pid)
    assert item.is_warmup
    row = _row(dashboard.annotator_dashboard(db, lead, pid).summary, "ann")
    assert (row.submitted, row.warmup, row.complete_samples) == (1, 1, 0)


def test_only_leads_see_the_dashboard(db, make_user, seeded):
    with pytest.raises(PermissionDenied):
        dashboard.annotator_dashboard(db, make_user("nosy"), seeded)


def test_an_empty_project(db, lead, make_project):
    dash = dashboard.annotator_dashboard(db, lead, make_project(2))
    assert dash.summary.empty and dash.daily.empty and dash.partners.empty


def test_agreement_is_judged_against_the_project_thresholds(db, lead, seeded):
    """Each annotator's agreement with partners is read against ``qualify_*`` by the same
    verdict function as the Agreement page and the warm-up board."""
    from annotation.agreement import verdicts_summary
    from annotation.services.projects import projects

    dash = dashboard.annotator_dashboard(db, lead, seeded)
    a = _row(dash.summary, "ann_a")
    verdicts = dashboard.agreement_verdicts(a.to_dict(), dash.thresholds, dash.figures["ann_a"])
    # four shared samples: below every figure's minimum, the rule and n said instead of a bare "None"
    assert verdicts["jaccard"].text == "— needs ≥ 10 samples with axis labels (n = 4)"
    assert verdicts["pk"].text == "— needs ≥ 10 samples with two segmentations (n = 4)"
    assert verdicts["icc"].text == "— needs ≥ 30 samples with every curve (n = 4)"
    assert a.verdict == verdicts_summary(verdicts)
    assert "— ICC" in a.verdict and "— Jaccard" in a.verdict

    projects.update_settings(db, lead, seeded, qualify_jaccard_min=0.95)
    a = _row(dashboard.annotator_dashboard(db, lead, seeded).summary, "ann_a")
    assert a.verdict == verdicts_summary(verdicts)  # nothing shown, nothing judged


def test_the_dashboard_is_kept_while_its_data_is_unchanged(db, lead, seeded, make_user):
    """The Annotators page asks on every run: the same data gives the kept dashboard; a submit,
    a warm-up marking or a settings change gives a new one."""
    from annotation.services.projects import projects

    first = dashboard.annotator_dashboard(db, lead, seeded)
    assert dashboard.annotator_dashboard(db, lead, seeded) is first
    annotate(db, make_user("ann_c"), seeded)
    grown = dashboard.annotator_dashboard(db, lead, seeded)
    assert grown is not first and int(grown.summary["submitted"].sum()) == int(first.summary["submitted"].sum()) + 1
    projects.update_settings(db, lead, seeded, quota_timezone="Asia/Tokyo")
    assert dashboard.annotator_dashboard(db, lead, seeded) is not grown
    assert dashboard.annotator_dashboard(db, lead, seeded, start=D1, end=D1) is not first  # another period
