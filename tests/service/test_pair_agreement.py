"""Agreement in a context-pairs project (both databases): kappa and Krippendorff's α on the
change label, ICC and W1 on both curves, the gold against imported reference labels — and no
figure where the data cannot support one."""

from __future__ import annotations

import math

import krippendorff
import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.services.quality import agreement
from annotation.services.review import resolving
from pair_data import pair_content, pairs_project, sample_id_of, write_submitted

#: (ann's second ξ, bob's second ξ) per pair, the first curves all at ξ = 45 + i; 52 is
#: increased (×2), 46 neutral, 30 decreased
GIVEN = [(52.0, 52.0), (46.0, 46.0), (30.0, 30.0), (52.0, 46.0), (30.0, 30.0), (52.0, 52.0), (46.0, 30.0)]
LABEL = {52.0: "increased", 46.0: "neutral", 30.0: "decreased"}
REFERENCE = ["increased", "neutral", "decreased", "increased", "decreased", "neutral", "neutral"]


@pytest.fixture
def project(db, lead, make_user):
    ann, bob = make_user("ann", "annotator"), make_user("bob", "annotator")
    pid = pairs_project(db, lead, [
        {"id": f"P-{i}", "target": f"Target number {i} is open today.", "follow_up": f"Follow-up {i}.",
         "reference_change": REFERENCE[i], "reference_alone": 6, "reference_given": 7}
        for i in range(len(GIVEN))])
    for i, (a, b) in enumerate(GIVEN):
        sid = sample_id_of(db, pid, f"P-{i}")
        # the given curves sit as far from the first curve as the labels say; ξ shifted per pair
        write_submitted(db, sid, ann.user_id, pair_content(alone=(45.0 + i, 10.0, 0.0),
                                                           given=(a + i, 10.0, 0.0)), minutes=2 * i)
        write_submitted(db, sid, bob.user_id, pair_content(alone=(45.5 + i, 10.0, 0.0),
                                                           given=(b + i + 0.5, 10.0, 0.0)), minutes=2 * i + 1)
    return pid


def test_change_label_agreement_equals_the_libraries(db, lead, project):
    scope = agreement.project_agreement(db, lead, project)
    first = [LABEL[a] for a, _ in GIVEN]
    second = [LABEL[b] for _, b in GIVEN]
    change = scope.report.results["change"].figures
    assert change.n_samples == 7 and change.note == ""
    assert change.kappa == pytest.approx(cohen_kappa_score(first, second))
    codes = {"decreased": 0, "neutral": 1, "increased": 2}
    expected = krippendorff.alpha(reliability_data=[[codes[x] for x in first], [codes[x] for x in second]],
                                  level_of_measurement="nominal")
    assert change.alpha == pytest.approx(expected)
    assert change.agreement == pytest.approx(5 / 7)
    # the unsegmented project runs no axis or segmentation measure
    assert set(scope.report.results) == {"icc", "curve", "krippendorff_curve", "change"}
    assert scope.report.pairs[0].figures["change_kappa"] == pytest.approx(change.kappa)


def test_both_curves_get_icc_and_w1(db, lead, project):
    scope = agreement.project_agreement(db, lead, project)
    alone, given = scope.report, scope.pairs.given
    assert alone.curve.mean_w1 == pytest.approx(0.5, abs=1e-3)   # every alone pair 0.5 apart
    assert given.n_samples == 7 and given.curve.mean_w1 > alone.curve.mean_w1
    assert alone.icc["xi"].ok and given.icc["xi"].ok
    assert alone.icc["xi"].headline > given.icc["xi"].headline


def test_the_gold_against_the_reference_labels(db, lead, project):
    resolving.resolve_project(db, lead, project)   # five agree and settle; two go to review
    scope = agreement.project_agreement(db, lead, project)
    change, alone, given = scope.pairs.reference
    # gold: increased, neutral, decreased, decreased, increased (pairs 0, 1, 2, 4, 5)
    assert (change.what, change.n, change.accuracy) == ("change", 5, pytest.approx(4 / 5))
    gold = ["increased", "neutral", "decreased", "decreased", "increased"]
    reference = [REFERENCE[i] for i in (0, 1, 2, 4, 5)]
    assert change.kappa == pytest.approx(cohen_kappa_score(gold, reference))
    assert alone.what == "class alone" and alone.n == 5 and not math.isnan(alone.accuracy)
    assert given.what == "class given the follow-up" and given.n == 5


def test_too_few_samples_give_no_kappa_and_say_why(db, lead, make_user):
    ann, bob = make_user("ann", "annotator"), make_user("bob", "annotator")
    pid = pairs_project(db, lead, [{"id": "P-0", "target": "A target.", "follow_up": "A follow-up.",
                                    "reference_change": "neutral"}])
    sid = sample_id_of(db, pid, "P-0")
    write_submitted(db, sid, ann.user_id, pair_content())
    write_submitted(db, sid, bob.user_id, pair_content(), minutes=1)
    resolving.resolve_project(db, lead, pid)
    scope = agreement.project_agreement(db, lead, pid)
    change = scope.report.results["change"].figures
    assert math.isnan(change.kappa) and math.isnan(change.alpha)
    assert change.note == "needs ≥ 5 samples with two change labels (1 so far)"
    ref = scope.pairs.reference[0]
    assert math.isnan(ref.accuracy) and ref.note.startswith("needs ≥ 5 samples")


def test_a_single_text_project_has_no_pair_part(db, lead, make_project):
    pid = make_project(2)
    scope = agreement.project_agreement(db, lead, pid)
    assert scope.pairs is None and "change" not in scope.report.results


def test_the_command_line_report_has_the_pair_part(db, lead, project):
    import argparse
    import json

    import cli

    args = argparse.Namespace(user="lead1", project="Pairs", benchmark=None, json=True, summary=True)
    data = json.loads(cli.cmd_agreement(db, args))
    assert data["measures"]["change"]["n_samples"] == 7
    assert data["context_pairs"]["given"]["n_samples"] == 7
    assert data["context_pairs"]["reference"][0]["what"] == "change"
    text = cli.cmd_agreement(db, argparse.Namespace(**{**vars(args), "json": False}))
    assert "change label: kappa" in text
