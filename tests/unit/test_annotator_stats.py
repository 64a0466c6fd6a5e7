"""Per-annotator dashboard figures (annotation.quality.annotator_stats) on hand-made data."""

from __future__ import annotations

from datetime import date
from types import MappingProxyType

import pytest

from annotation.agreement import PairAgreement
from annotation.quality.annotator_stats import (
    Submission,
    annotator_summary,
    daily_activity,
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


def test_partner_means_are_weighted_by_shared_samples_and_skip_missing_figures():
    pairs = [pair("ann", "bob", 3, jaccard=0.9, pk=0.1, icc_xi=None),
             pair("ann", "cy", 1, jaccard=0.5, pk=None, icc_xi=0.8)]
    means = partner_means(pairs)
    assert means["ann"]["partners"] == 2
    assert means["ann"]["jaccard"] == pytest.approx((0.9 * 3 + 0.5) / 4)
    assert means["ann"]["pk"] == pytest.approx(0.1)
    assert means["ann"]["icc_xi"] == pytest.approx(0.8)
    assert means["bob"]["kappa"] is None
    table = partner_table(pairs)
    assert list(zip(table["annotator"], table["partner"])) == [
        ("ann", "bob"), ("ann", "cy"), ("bob", "ann"), ("cy", "ann")]


def test_summary():
    frame = annotator_summary(SUBS, drafts={"ann": 2, "dee": 1}, complete_samples={1, 2},
                              auto_flagged_samples={2}, pairs=[pair("ann", "bob", 2, jaccard=0.75)])
    rows = {r.annotator: r for r in frame.itertuples()}
    ann = rows["ann"]
    assert (ann.submitted, ann.warmup, ann.active_days, ann.drafts, ann.partners) == (4, 1, 2, 2, 1)
    assert ann.median_seconds == pytest.approx(75.0) and ann.mean_seconds == pytest.approx(90.0)
    assert ann.annotator_flag_rate == pytest.approx(0.25)
    assert (ann.complete_samples, ann.auto_flag_rate) == (2, 0.5)
    assert ann.jaccard == 0.75
    dee = rows["dee"]  # only a draft: listed, no rates
    assert dee.submitted == 0 and dee.drafts == 1
    assert dee.median_seconds != dee.median_seconds  # NaN


def test_empty():
    assert annotator_summary([]).empty and daily_activity([]).empty and partner_table([]).empty
