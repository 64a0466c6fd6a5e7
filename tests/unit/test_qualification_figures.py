"""Qualification figures against gold (annotation.qualification): hand-computed values, the
ICC against pingouin, the strict thresholds and the admission rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.agreement import intraclass_correlation
from annotation.qualification import (
    QualificationFigures,
    Thresholds,
    WarmupAttempt,
    figure_checks,
    gold_jaccard,
    meets_thresholds,
    qualification_figures,
)
from annotation.resolution import EDITED, Resolution
from annotation.segmentation import SegmentationError


def gold(boundaries=(0, 4), axes=(("static",), ("main",)), xi=30.0, omega=8.0, alpha=0.5, n=10):
    return Resolution(boundaries, axes, xi, omega, alpha, (), n, method=EDITED)


def attempt(g, boundaries=None, axes=None, xi=None, omega=None, alpha=None, sid="S"):
    boundaries = g.boundaries if boundaries is None else boundaries
    axes = tuple(a[0] for a in g.segment_axes) if axes is None else axes
    return WarmupAttempt(sid, g, boundaries, axes, xi, omega, alpha)


def test_jaccard_of_an_exact_copy_is_one():
    g = gold()
    assert gold_jaccard(g.boundaries, ("static", "main"), g) == 1.0


def test_jaccard_with_a_multi_axis_gold_segment():
    # gold: tokens 0–3 {static}, tokens 4–9 {main, opinion}: 4 + 12 = 16 pairs
    g = gold(axes=(("static",), ("main", "opinion")))
    # annotator: one segment "main" on 10 tokens: 6 of them in the gold set
    assert gold_jaccard((0,), ("main",), g) == pytest.approx(6 / (10 + 16 - 6))
    # annotator picks one of the two gold axes everywhere it applies: 10 of 10 in gold
    assert gold_jaccard((0, 4), ("static", "opinion"), g) == pytest.approx(10 / 16)


def test_unlabelled_segments_give_no_pairs():
    g = gold()
    assert gold_jaccard((0, 4), (None, "main"), g) == pytest.approx(6 / (6 + 10 - 6))


def test_jaccard_refuses_a_segmentation_of_another_text():
    with pytest.raises(SegmentationError):
        gold_jaccard((0, 12), ("main", "main"), gold())


def test_perfect_copies_score_perfectly():
    golds = [gold(xi=30 + 10 * i, omega=8 + i, alpha=0.5 * i) for i in range(3)]
    attempts = [attempt(g, xi=g.xi, omega=g.omega, alpha=g.alpha) for g in golds]
    f = qualification_figures(attempts, 3)
    assert f.icc == {"xi": pytest.approx(1.0), "omega": pytest.approx(1.0), "alpha": pytest.approx(1.0)}
    assert (f.jaccard, f.pk, f.n_done, f.n_with_curve) == (1.0, 0.0, 3, 3)
    assert meets_thresholds(f, Thresholds())


def test_icc_is_pingouins_icc_1_1_with_annotator_and_gold_as_raters():
    rng = np.random.default_rng(3)
    golds = [gold(xi=float(x), omega=8.0, alpha=0.5) for x in rng.uniform(10, 120, 8)]
    mine = [g.xi + float(e) for g, e in zip(golds, rng.normal(0, 12, 8))]
    f = qualification_figures([attempt(g, xi=x, omega=8.0, alpha=0.5) for g, x in zip(golds, mine)], 8)
    table = np.array([[x, g.xi] for g, x in zip(golds, mine)])
    assert f.icc["xi"] == pytest.approx(intraclass_correlation(table, "xi").form("ICC(1,1)").icc)
    assert f.icc["omega"] is None  # no variance at all: undefined, and it does not pass
    assert f.icc_min is None and not figure_checks(f, Thresholds())["icc"]


def test_attempts_without_a_curve_are_left_out_of_the_icc_only():
    golds = [gold(xi=30.0 + 20 * i) for i in range(3)]
    attempts = [attempt(golds[0], xi=30.0, omega=8.0, alpha=0.5),
                attempt(golds[1]),  # flagged without a curve
                attempt(golds[2], xi=70.0, omega=8.0, alpha=0.5)]
    f = qualification_figures(attempts, 3)
    assert (f.n_done, f.n_with_curve, f.jaccard) == (3, 2, 1.0)
    assert f.icc["xi"] == pytest.approx(1.0)


def test_thresholds_are_strict_and_completion_is_required():
    f = QualificationFigures(3, 3, {"xi": 0.95, "omega": 0.9, "alpha": 0.99}, 0.8, 0.1)
    t = Thresholds(0.90, 0.75, 0.15)
    assert figure_checks(f, t) == {"icc": False, "jaccard": True, "pk": True}  # 0.90 is not > 0.90
    ok = QualificationFigures(3, 3, {"xi": 0.95, "omega": 0.91, "alpha": 0.99}, 0.8, 0.1)
    assert meets_thresholds(ok, t)
    unfinished = QualificationFigures(2, 3, ok.icc, 0.8, 0.1)
    assert all(figure_checks(unfinished, t).values()) and not meets_thresholds(unfinished, t)
    assert not meets_thresholds(QualificationFigures(0, 0, ok.icc, 0.8, 0.1), t)  # no set at all
    edge = QualificationFigures(3, 3, ok.icc, 0.75, 0.15)
    assert figure_checks(edge, t) == {"icc": True, "jaccard": False, "pk": False}


def test_figures_round_trip_through_json():
    f = QualificationFigures(2, 3, {"xi": 0.5, "omega": None, "alpha": -0.25}, 0.7, math.nan, 2)
    data = f.to_json()
    assert data["pk"] is None and data["icc_min"] is None
    back = QualificationFigures.from_json(data)
    assert (back.n_done, back.n_total, back.icc, back.jaccard, back.pk) == (
        2, 3, {"xi": 0.5, "omega": None, "alpha": -0.25}, 0.7, None)
