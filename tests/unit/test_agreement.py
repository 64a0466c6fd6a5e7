"""Agreement measures against published and hand-computed values (SPEC section 6).

Every expected number here is worked out independently of the code under test: from a
textbook (Shrout & Fleiss 1979), from the definition on a tiny example (derivation in the
comments), or from a literal set computation.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from fractions import Fraction

import numpy as np
import pingouin
import pytest
import segeval

from annotation.agreement import (
    MERGED_CLASS,
    MERGED_CLASSES,
    AgreementInputError,
    IccMeasure,
    JaccardMeasure,
    KappaMeasure,
    RatedSample,
    Rating,
    SegmentationMeasure,
    compare_segmentations,
    icc_1_1,
    intraclass_correlation,
    label_set_jaccard,
    pk_both_ways,
    window_diff_both_ways,
)
from annotation.axes import AXIS_NAMES
from annotation.segmentation import Segmentation

T0 = datetime(2026, 11, 16, 9, 0, tzinfo=timezone.utc)  # Monday of ISO week 2026-W47


def rating(who, boundaries=(0,), axes=("main",), params=(50.0, 10.0, 0.0), hours=0.0):
    xi, omega, alpha = params if params is not None else (None, None, None)
    return Rating(who, T0 + timedelta(hours=hours), tuple(boundaries), tuple(axes), xi, omega, alpha)


def sample(sid, n_tokens, *ratings, benchmark=1):
    return RatedSample(sid, benchmark, n_tokens, tuple(ratings))


def curve_samples(table):
    """One sample per row, one rating per column, the value used for ξ, ω and α alike."""
    return [
        sample(f"s{i}", 5, *(rating(f"judge{j}", params=(v, v, v), hours=j) for j, v in enumerate(row)))
        for i, row in enumerate(table)
    ]


# --- ICC ------------------------------------------------------------------------------------

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges, and their Table 4 values.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
SHROUT_FLEISS_PUBLISHED = {
    "ICC(1,1)": 0.17, "ICC(2,1)": 0.29, "ICC(3,1)": 0.71,
    "ICC(1,k)": 0.44, "ICC(2,k)": 0.62, "ICC(3,k)": 0.91,
}


@pytest.mark.parametrize("parameter", ["xi", "omega", "alpha"])
def test_icc_reproduces_shrout_fleiss_table(parameter):
    result = IccMeasure().compute(curve_samples(SHROUT_FLEISS))[parameter]
    assert result.ok and result.raters == 4 and result.n_used == 6 and result.n_excluded == 0
    for name, published in SHROUT_FLEISS_PUBLISHED.items():
        assert round(result.form(name).icc, 2) == published, name
    assert result.headline == result.form("ICC(1,1)").icc
    # Their ANOVA: BMS 11.24, WMS 6.26, EMS 1.02 → F = BMS/WMS (df 5, 18) and BMS/EMS (df 5, 15).
    one_way, two_way = result.form("ICC(1,1)"), result.form("ICC(A,1)")
    assert one_way.f == pytest.approx(11.24 / 6.26, abs=0.01)
    assert (one_way.df1, one_way.df2) == (5, 18)
    assert two_way.f == pytest.approx(11.24 / 1.02, abs=0.05)
    assert (two_way.df1, two_way.df2) == (5, 15)
    assert one_way.ci95_low < one_way.icc < one_way.ci95_high
    assert 0 <= one_way.p_value <= 1


def test_icc_forms_keep_pingouin_order_and_frame():
    result = IccMeasure().compute(curve_samples(SHROUT_FLEISS))["xi"]
    assert [f.form for f in result.forms] == ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
    frame = result.to_frame()
    assert list(frame.columns) == ["icc", "f", "df1", "df2", "p_value", "ci95_low", "ci95_high"]
    assert frame.loc["ICC(C,k)", "icc"] == pytest.approx(result.form("ICC(3,k)").icc)


def test_icc_1_1_by_hand():
    # rows [1,2], [3,3], [5,7]: row means 1.5, 3, 6, grand mean 3.5
    # MSB = 2·(2² + 0.5² + 2.5²)/2 = 10.5;  MSW = (0.25+0.25 + 0 + 1+1)/3 = 5/6
    # ICC(1,1) = (10.5 − 5/6)/(10.5 + 5/6) = 29/34
    table = np.array([[1, 2], [3, 3], [5, 7]], dtype=float)
    assert icc_1_1(table) == pytest.approx(float(Fraction(29, 34)), abs=1e-12)
    assert intraclass_correlation(table).headline == pytest.approx(29 / 34, abs=1e-12)


def test_fast_icc_1_1_equals_pingouin():
    rng = np.random.default_rng(7)
    for n, k in [(5, 2), (12, 2), (9, 3), (30, 4)]:
        table = rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, k))
        assert icc_1_1(table) == pytest.approx(intraclass_correlation(table).headline, abs=1e-9)


def test_headline_icc_is_pingouins_icc_1_1_without_the_rest():
    from annotation.agreement.icc import headline_icc

    rng = np.random.default_rng(11)
    table = rng.normal(size=(20, 1)) * 2 + rng.normal(size=(20, 2))
    quick, full = headline_icc(table, "xi"), intraclass_correlation(table, "xi")
    assert quick.headline == pytest.approx(full.headline, abs=1e-9)
    assert (quick.raters, quick.n_used, len(quick.forms)) == (2, 20, 1)
    assert np.isnan(quick.form("ICC(1,1)").ci95_low)
    assert headline_icc(np.ones((4, 2))).problem == intraclass_correlation(np.ones((4, 2))).problem != ""
    assert headline_icc(np.ones((2, 2))).problem.startswith("not enough data")


def test_icc_excludes_and_counts_incomplete_samples():
    complete = curve_samples([row[:2] for row in SHROUT_FLEISS])
    flagged = [
        sample("f1", 5, rating("a", params=(1, 1, 1)), rating("b", params=None, hours=1)),
        sample("f2", 5, rating("a", params=None), rating("b", params=(2, 2, 2), hours=1)),
        sample("single", 5, rating("a", params=(3, 3, 3))),
    ]
    result = IccMeasure().compute(complete + flagged)
    alone = IccMeasure().compute(complete)
    for p in ("xi", "omega", "alpha"):
        assert result[p].n_used == 6 and result[p].n_excluded == 3 and result[p].raters == 2
        assert result[p].headline == pytest.approx(alone[p].headline)


def test_icc_uses_the_first_k_slots_and_the_most_common_k():
    rows = SHROUT_FLEISS
    samples = curve_samples([r[:3] for r in rows])  # k = 3 design
    extra = list(samples)
    extra[0] = sample("s0", 5, *samples[0].ratings, rating("late", params=(99, 99, 99), hours=9))
    assert IccMeasure().compute(extra)["xi"].headline == pytest.approx(
        IccMeasure().compute(samples)["xi"].headline)
    assert IccMeasure().compute(extra)["xi"].raters == 3
    assert IccMeasure(raters=2).compute(samples)["xi"].raters == 2


@pytest.mark.parametrize("table,reason", [
    ([[1.0, 1.2]], "usable sample"),                       # one sample
    ([[4.0, 4.0], [4.0, 4.0], [4.0, 4.0]], "no variance"),  # nothing varies
])
def test_icc_degenerate_input_says_not_enough_data(table, reason):
    result = IccMeasure().compute(curve_samples(table))["xi"]
    assert not result.ok
    assert result.problem.startswith("not enough data") and reason in result.problem
    assert math.isnan(result.headline) and result.forms == ()
    with pytest.raises(KeyError):
        result.form("ICC(1,1)")


def test_icc_of_perfect_agreement_is_one_with_infinite_f():
    result = IccMeasure().compute(curve_samples([[v, v] for v in (3.0, 8.0, 1.0, 6.0)]))["xi"]
    for form in result.forms:
        assert form.icc == pytest.approx(1.0)
    assert result.form("ICC(1,1)").f == math.inf and result.form("ICC(1,1)").p_value == 0.0


def test_icc_breakdown_needs_min_samples():
    samples = curve_samples([row[:2] for row in SHROUT_FLEISS])
    none = {"icc_xi": None, "icc_omega": None, "icc_alpha": None}
    assert IccMeasure().breakdown(samples) == none              # 6 samples: the rule's 30 withholds it
    assert IccMeasure(min_breakdown_samples=5).breakdown(samples[:4]) == none
    figures = IccMeasure(min_breakdown_samples=5).breakdown(samples)
    assert figures["icc_xi"] == pytest.approx(IccMeasure().compute(samples)["xi"].headline)


def test_icc_per_sample_absolute_differences():
    s = sample("x", 5, rating("a", params=(10, 5, 1)), rating("b", params=(13, 4, -1), hours=1),
               rating("c", params=(16, 5, 0), hours=2))
    cols = IccMeasure().per_sample([s, sample("y", 5, rating("a"))])
    # pairs (a,b), (a,c), (b,c): |Δξ| 3, 6, 3 → 4; |Δω| 1, 0, 1 → 2/3; |Δα| 2, 1, 1 → 4/3
    assert cols["abs_delta_xi"][0] == pytest.approx(4)
    assert cols["abs_delta_omega"][0] == pytest.approx(2 / 3)
    assert cols["abs_delta_alpha"][0] == pytest.approx(4 / 3)
    assert math.isnan(cols["abs_delta_xi"][1])


# --- Jaccard --------------------------------------------------------------------------------

def literal_jaccard(a: Rating, b: Rating, n_tokens: int) -> float:
    """The definition: Jaccard of the sets {(token, axis)}."""
    def labels(r):
        bounds = list(r.boundaries) + [n_tokens]
        return {(t, r.segment_axes[j]) for j in range(len(r.boundaries)) for t in range(bounds[j], bounds[j + 1])}
    sa, sb = labels(a), labels(b)
    return len(sa & sb) / len(sa | sb)


# A: M M M S S S   B: M M S S S S  → 5 tokens agree: J = 5 / (12 − 5) = 5/7
PAIR_A = rating("a", (0, 3), ("main", "static"))
PAIR_B = rating("b", (0, 2), ("main", "static"), hours=1)


def test_jaccard_of_one_pair_by_hand():
    assert label_set_jaccard(PAIR_A, PAIR_B, 6) == pytest.approx(5 / 7)
    assert literal_jaccard(PAIR_A, PAIR_B, 6) == pytest.approx(5 / 7)


def test_jaccard_mean_and_per_axis_by_hand():
    same = sample("same", 4, rating("a", (0,), ("main",)), rating("b", (0,), ("main",), hours=1))
    result = JaccardMeasure().compute([sample("s", 6, PAIR_A, PAIR_B), same])
    assert result.mean == pytest.approx((5 / 7 + 1) / 2)
    assert result.n_samples == 2 and result.n_pairs == 2
    # main: A {0,1,2}, B {0,1} → 2/3 in the first sample, 1 in the second
    assert result.axis("main").mean == pytest.approx((2 / 3 + 1) / 2)
    assert result.axis("main").n_samples == 2
    # static: A {3,4,5}, B {2,3,4,5} → 3/4, used in one sample only
    assert result.axis("static").mean == pytest.approx(3 / 4) and result.axis("static").n_samples == 1
    assert math.isnan(result.axis("recurrent").mean) and result.axis("recurrent").n_samples == 0
    assert [a.axis for a in result.per_axis] == list(AXIS_NAMES)


def test_jaccard_averages_over_all_pairs_for_three_raters():
    c = rating("c", (0, 4), ("main", "generic"), hours=2)
    s = sample("k3", 6, PAIR_A, PAIR_B, c)
    expected = np.mean([literal_jaccard(x, y, 6) for x, y in [(PAIR_A, PAIR_B), (PAIR_A, c), (PAIR_B, c)]])
    assert JaccardMeasure().per_sample([s])["jaccard"][0] == pytest.approx(expected)
    assert JaccardMeasure().compute([s]).n_pairs == 3


def test_jaccard_skips_unlabelled_ratings():
    unlabelled = Rating("c", T0, (0,), (None,))
    s = sample("x", 6, PAIR_A, unlabelled, PAIR_B)
    assert JaccardMeasure().compute([s]).mean == pytest.approx(5 / 7)
    lone = JaccardMeasure().compute([sample("y", 6, PAIR_A, unlabelled)])
    assert math.isnan(lone.mean) and lone.n_samples == 0


# --- kappa, precision, co-occurrence ------------------------------------------------------

# Sample 1 (6 tokens): A  M M M S S S    B  M M S S S S
# Sample 2 (4 tokens): A  G G M M        B  S S M M
# Pooled (10 tokens): A has M 5, S 3, G 2; B has M 4, S 6. Agreements 5 + 2 = 7.
#   p_o = 0.7; p_e = 0.5·0.4 + 0.3·0.6 + 0.2·0 = 0.38; kappa = 0.32 / 0.62
# Generic/Static merged: agreements 5 + 4 = 9, p_o = 0.9; A M 5, GS 5; B M 4, GS 6
#   p_e = 0.5·0.4 + 0.5·0.6 = 0.5; kappa = 0.4 / 0.5 = 0.8
KAPPA_SAMPLES = [
    sample("k1", 6, PAIR_A, PAIR_B),
    sample("k2", 4, rating("a", (0, 2), ("generic", "main")), rating("b", (0, 2), ("static", "main"), hours=1)),
]


def test_kappa_and_precision_by_hand():
    result = KappaMeasure().compute(KAPPA_SAMPLES)
    p_o, p_e = 0.7, 0.5 * 0.4 + 0.3 * 0.6 + 0.2 * 0.0
    assert result.unmerged.kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    assert result.unmerged.kappa == pytest.approx(0.32 / 0.62)
    assert result.unmerged.precision == pytest.approx(0.7)
    assert result.unmerged.n_tokens == 10 and result.n_pairs == 2


def test_merging_generic_and_static_raises_agreement():
    result = KappaMeasure().compute(KAPPA_SAMPLES)
    assert result.merged.kappa == pytest.approx(0.8)
    assert result.merged.precision == pytest.approx(0.9)
    assert result.merged.kappa > result.unmerged.kappa
    # the only disagreement generic vs static: perfect once merged
    only = KappaMeasure().compute([KAPPA_SAMPLES[1]])
    assert only.unmerged.precision == pytest.approx(0.5) and only.unmerged.kappa < 1
    assert only.merged.precision == 1.0 and only.merged.kappa == pytest.approx(1.0)


def test_co_occurrence_is_symmetrised_in_axis_order():
    result = KappaMeasure().compute(KAPPA_SAMPLES)
    m = result.unmerged.co_occurrence
    assert list(m.index) == list(AXIS_NAMES) and list(m.columns) == list(AXIS_NAMES)
    # ordered counts (A, B): (M,M) 4, (M,S) 1, (S,S) 3, (G,S) 2 → halves mirrored
    assert m.loc["main", "main"] == 4 and m.loc["static", "static"] == 3
    assert m.loc["main", "static"] == m.loc["static", "main"] == 0.5
    assert m.loc["generic", "static"] == m.loc["static", "generic"] == 1.0
    assert m.to_numpy().sum() == 10 and (m.to_numpy() == m.to_numpy().T).all()
    merged = result.merged.co_occurrence
    assert list(merged.index) == list(MERGED_CLASSES) and MERGED_CLASS == "generic/static"
    assert "generic" not in merged.index and "static" not in merged.index
    assert merged.loc[MERGED_CLASS, MERGED_CLASS] == 5 and merged.loc["main", MERGED_CLASS] == 0.5


def test_kappa_with_a_single_class_is_undefined_not_an_error():
    s = sample("one", 5, rating("a", (0, 2), ("main", "main")), rating("b", (0,), ("main",), hours=1))
    result = KappaMeasure().compute([s])
    assert math.isnan(result.unmerged.kappa) and "one class" in result.unmerged.kappa_note
    assert result.unmerged.precision == 1.0
    assert KappaMeasure().breakdown([s]) == {"kappa": None}


def test_kappa_with_no_labelled_pairs():
    result = KappaMeasure().compute([sample("solo", 3, rating("a"))])
    assert math.isnan(result.unmerged.kappa) and result.unmerged.n_tokens == 0


# --- segmentation -----------------------------------------------------------------------------

# A = masses (2, 3, 6): tokens 1 1 2 2 2 3 3 3 3 3 3;  B = (5, 6): 1 1 1 1 1 2 2 2 2 2 2.
# Pk(A|B): window from B's mean mass 5.5/2 → 3; probes i = 0..7 compare tokens i, i+3:
#   i = 0, 1 split in A only → 2/8.
# Pk(B|A): window from A's mean 11/3/2 → 2; probes i = 0..8 compare i, i+2:
#   i = 0, 1 split in A only → 2/9.
# WindowDiff counts boundaries in the same windows: the same windows differ → 2/8 and 2/9.
# B: A's boundaries {2, 5}, B's {5}: one match, one miss → (2 − 1) / 2 = 0.5.
SEG_A, SEG_B = Segmentation.from_masses((2, 3, 6)), Segmentation.from_masses((5, 6))


def test_pk_is_asymmetric_in_segeval_and_averaged_both_ways():
    assert float(segeval.pk(SEG_A.masses, SEG_B.masses)) == pytest.approx(2 / 8)
    assert float(segeval.pk(SEG_B.masses, SEG_A.masses)) == pytest.approx(2 / 9)
    assert pk_both_ways(SEG_A, SEG_B) == pytest.approx((2 / 8 + 2 / 9) / 2)
    assert pk_both_ways(SEG_B, SEG_A) == pk_both_ways(SEG_A, SEG_B)


def test_window_diff_and_boundary_similarity_by_hand():
    assert window_diff_both_ways(SEG_A, SEG_B) == pytest.approx((2 / 8 + 2 / 9) / 2)
    comparison = compare_segmentations(SEG_A, SEG_B)
    assert comparison.boundary_similarity == pytest.approx(0.5)
    assert compare_segmentations(SEG_B, SEG_A) == comparison


def test_segmentation_guards():
    one = compare_segmentations(Segmentation.whole(1), Segmentation.whole(1))  # segeval raises on B here
    assert (one.pk, one.window_diff, one.boundary_similarity) == (0.0, 0.0, 1.0)
    same = Segmentation((0, 4), 9)
    c = compare_segmentations(same, Segmentation((0, 4), 9))
    assert (c.pk, c.window_diff, c.boundary_similarity) == (0.0, 0.0, 1.0)
    # two tokens, different segmentations: no window fits → undefined, B still defined
    short = compare_segmentations(Segmentation((0,), 2), Segmentation((0, 1), 2))
    assert math.isnan(short.pk) and math.isnan(short.window_diff) and short.boundary_similarity == 0.0
    with pytest.raises(ValueError):
        compare_segmentations(Segmentation((0,), 3), Segmentation((0,), 4))


def test_segmentation_measure_averages_over_samples():
    s1 = sample("ab", 11, rating("a", (0, 2, 5), ("main", "main", "main")),
                rating("b", (0, 5), ("main", "main"), hours=1))
    s2 = sample("same", 11, rating("a", (0, 5), ("main", "static")), rating("b", (0, 5), ("main", "static"), hours=1))
    s3 = sample("short", 2, rating("a", (0,), ("main",)), rating("b", (0, 1), ("main", "main"), hours=1))
    result = SegmentationMeasure().compute([s1, s2, s3])
    pk = (2 / 8 + 2 / 9) / 2
    assert result.pk == pytest.approx(pk / 2) and result.window_diff == pytest.approx(pk / 2)
    assert result.boundary_similarity == pytest.approx((0.5 + 1 + 0) / 3)
    assert result.n_samples == 3 and result.n_undefined == 1 and result.n_pairs == 3
    cols = SegmentationMeasure().per_sample([s1, s2, s3])
    assert cols["pk"][0] == pytest.approx(pk) and cols["pk"][1] == 0 and math.isnan(cols["pk"][2])


# --- input validation ------------------------------------------------------------------------

@pytest.mark.parametrize("boundaries,axes", [((1,), ("main",)), ((0, 5), ("main", "main")), ((0, 2, 2), ("main",) * 3)])
def test_bad_boundaries_are_rejected(boundaries, axes):
    with pytest.raises(AgreementInputError):
        sample("bad", 5, rating("a", boundaries, axes))


def test_bad_ratings_are_rejected():
    with pytest.raises(AgreementInputError):
        rating("a", (0,), ("mainly",))
    with pytest.raises(AgreementInputError):
        rating("a", (0, 2), ("main",))
    with pytest.raises(AgreementInputError):
        rating("a", params=(math.nan, 1.0, 1.0))
    with pytest.raises(AgreementInputError):
        rating("a", (0, 2.0), ("main", "main"))
    with pytest.raises(AgreementInputError):
        RatedSample("empty", 1, 3, ())


def test_pingouin_is_what_computes_the_forms():
    """Guard against a silent drift: our table fed to pingouin directly gives the same numbers."""
    import pandas as pd

    table = np.array(SHROUT_FLEISS, dtype=float)
    long = pd.DataFrame({"t": np.repeat(range(6), 4), "r": np.tile(range(4), 6), "y": table.ravel()})
    direct = pingouin.intraclass_corr(long, targets="t", raters="r", ratings="y").set_index("Type")
    ours = intraclass_correlation(table, "xi")
    for form in ours.forms:
        assert form.icc == pytest.approx(direct.loc[form.form, "ICC"])
