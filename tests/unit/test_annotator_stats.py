"""Per-annotator dashboard figures (annotation.quality.annotator_stats) on hand-made data."""

from __future__ import annotations

import math
from datetime import date
from types import MappingProxyType

import pytest

from annotation.agreement import PairAgreement
from annotation.quality.annotator_stats import (
    PAIR_FIGURE_NEEDS,
    Submission,
    annotator_summary,
    daily_activity,
    pair_figure,
    pair_rules,
    partner_counts,
    partner_means,
    partner_table,
)

D1, D2 = date(2026, 11, 2), date(2026, 11, 3)


def pair(a, b, n, **figures):
    return PairAgreement((a, b), n, MappingProxyType(figures))


SUBS = [
    Submission("ann", 1, D1, 60.0, False),
    Submission("ann", 2, D1, 180.0, True),
    Submission("ann", 3, D2, 30.0, False),
    Submission("ann", 9, D2, 90.0, False, warmup=True),
    Submission("bob", 1, D1, 100.0, False),
    Submission("bob", 2, D2, 100.0, False),
]


def test_daily_activity():
    rows = {(r.day, r.annotator): (r.submitted, r.median_seconds, r.mean_seconds)
            for r in daily_activity(SUBS).itertuples()}
    assert rows == {(D1, "ann"): (2, 120.0, 120.0), (D2, "ann"): (2, 60.0, 60.0),
                    (D1, "bob"): (1, 100.0, 100.0), (D2, "bob"): (1, 100.0, 100.0)}


def test_partner_means_are_weighted_by_shared_samples_and_skip_withheld_figures():
    """A pair figure counts toward an annotator's mean only where the rule shows it (n = the
    pair's shared samples ≥ its minimum); the mean rests on those pairs' samples."""
    pairs = [pair("ann", "bob", 40, jaccard=0.9, pk=0.1, icc_xi=None, kappa=0.6),
             pair("ann", "cy", 12, jaccard=0.5, pk=None, icc_xi=0.8, kappa=0.4),
             pair("bob", "cy", 9, jaccard=0.2, pk=0.3, icc_xi=0.1, kappa=0.9)]
    means = partner_means(pairs)
    ann, bob, cy = means["ann"], means["bob"], means["cy"]
    assert partner_counts(pairs) == {"ann": 2, "bob": 2, "cy": 2}
    assert (ann["jaccard"].value, ann["jaccard"].n) == (pytest.approx((0.9 * 40 + 0.5 * 12) / 52), 52)
    assert (ann["pk"].value, ann["pk"].n) == (pytest.approx(0.1), 40)          # cy's Pk undefined
    assert (bob["jaccard"].value, bob["jaccard"].n) == (pytest.approx(0.9), 40)  # bob × cy: 9 < 10
    assert ann["kappa"].text() == f"{(0.6 * 40 + 0.4 * 12) / 52:.3f} (n = 52)"  # no interval: not bootstrapped
    # ICC: bob's pair with ann has none, cy's pairs share 12 and 9 < 30 → withheld, n = all shared
    assert ann["icc_xi"].text() == "— no pair with a partner shows it: each needs ≥ 30 samples with every curve (n = 52)"
    assert cy["icc_xi"].text() == "— needs ≥ 30 samples with every curve (n = 21)"
    assert cy["jaccard"].text() == "0.500 (n = 12)"  # bob × cy (9 samples) left out


def test_pair_figures_follow_the_rule_of_each_measure():
    minimum = {name: needs.min_n for name, needs in PAIR_FIGURE_NEEDS.items()}
    assert minimum == {"jaccard": 10, "kappa": 10, "pk": 10, "icc_xi": 30, "icc_omega": 30, "icc_alpha": 30}
    assert not any(needs.interval for needs in PAIR_FIGURE_NEEDS.values())
    ten = pair("ann", "bob", 10, jaccard=0.75, icc_xi=0.9)
    assert pair_figure(ten, "jaccard").text() == "0.750 (n = 10)"
    assert pair_figure(ten, "icc_xi").text() == "— needs ≥ 30 samples with every curve (n = 10)"
    assert pair_figure(pair("ann", "bob", 9, jaccard=0.75), "jaccard").withheld == "needs ≥ 10 samples with axis labels"
    table = partner_table([ten, pair("ann", "cy", 3, jaccard=0.5)])
    assert list(zip(table["annotator"], table["partner"])) == [
        ("ann", "bob"), ("ann", "cy"), ("bob", "ann"), ("cy", "ann")]
    assert table["jaccard"].iloc[0] == 0.75 and math.isnan(table["jaccard"].iloc[1])  # withheld: NaN
    assert math.isnan(table["icc_xi"].iloc[0])
    assert "ICC(1,1) needs ≥ 30 samples with every curve" in pair_rules()


def test_summary():
    frame = annotator_summary(SUBS, drafts={"ann": 2, "dee": 1}, complete_samples={1, 2},
                              auto_flagged_samples={2}, pairs=[pair("ann", "bob", 12, jaccard=0.75)])
    rows = {r.annotator: r for r in frame.itertuples()}
    ann = rows["ann"]
    assert (ann.submitted, ann.warmup, ann.active_days, ann.drafts, ann.partners) == (4, 1, 2, 2, 1)
    assert ann.median_seconds == pytest.approx(75.0) and ann.mean_seconds == pytest.approx(90.0)
    assert ann.annotator_flag_rate == pytest.approx(0.25)
    assert (ann.complete_samples, ann.auto_flag_rate) == (2, 0.5)
    assert ann.jaccard == 0.75 and math.isnan(ann.icc_xi)  # 12 shared samples: Jaccard shown, no ICC
    dee = rows["dee"]  # only a draft: listed, no rates
    assert dee.submitted == 0 and dee.drafts == 1
    assert dee.median_seconds != dee.median_seconds  # NaN


def test_empty():
    assert annotator_summary([]).empty and daily_activity([]).empty and partner_table([]).empty
