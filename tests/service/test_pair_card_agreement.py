"""The pairs export's card tells the agreement story as the single-text card does: on a pairs
project with unsettled disputes, its headline — Cohen's κ of the change label, ICC(1,1) and W1 of
the target's curve alone and given the follow-up — is the Agreement page's over every doubly
annotated pair, before adjudication; the settled gold's figures follow, with what was left out
and why, and the adjudication outcome; ``agreement.json`` holds the same figures beside the card;
the tvcp files are the same with or without it. Both databases."""

from __future__ import annotations

import json
import math

import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.agreement.pair_agreement import change_result
from annotation.services.quality import agreement
from annotation.services.export import exports
from annotation.services.review import resolving
from pair_data import pair_content, pairs_project, sample_id_of, write_submitted
from pair_gold_data import SHIFT

N_PAIRS = 40
DISPUTED = range(0, 40, 3)  # 14 pairs whose second annotator's curves say another change
CHANGES = ("increased", "neutral", "decreased")
#: What the second annotator's curves say instead on a disputed pair.
OTHER = {"increased": "neutral", "neutral": "decreased", "decreased": "increased"}
CURVES = ("icc_xi", "icc_omega", "icc_alpha", "w1")


def disputed_pairs(db, lead, make_user) -> int:
    """40 pairs, two annotations each: the target's curve spread over the pairs with a small
    per-pair disagreement, the curve given the follow-up moved by the pair's change (×3 longer,
    the same, ×3 shorter); on 14 pairs the second annotator's second curve says another change
    (a change-disagreement flag: they wait for a lead and get no gold)."""
    ann, bob = make_user("ann", "annotator"), make_user("bob", "annotator")
    pid = pairs_project(db, lead, [
        {"id": f"P-{i:03d}", "target": f"The shop on street {i} is open until the evening.",
         "follow_up": f"Follow-up {i}: the owner said something about it."} for i in range(N_PAIRS)])
    for i in range(N_PAIRS):
        sid = sample_id_of(db, pid, f"P-{i:03d}")
        change = CHANGES[i % 3]
        for minutes, (who, offset, omega, alpha, said) in enumerate((
                (ann.user_id, 0.0, 8.0 + i % 5, 0.5 + 0.3 * (i % 4), change),
                (bob.user_id, ((i * 7 % 11) - 5.0) * 0.3, 8.5 + i % 5, 0.5 + 0.3 * (i % 4) - 0.05 * (i % 3),
                 OTHER[change] if i in DISPUTED else change))):
            xi = 30.0 + 1.7 * i + offset
            write_submitted(db, sid, who, pair_content(alone=(xi, omega, alpha), given=(xi + SHIFT[said], omega, alpha)),
                            minutes=2 * i + minutes)
    resolving.resolve_project(db, lead, pid)
    return pid


def labels(scope, slot: int) -> list[str]:
    return [s.ratings[slot].change for s in scope.samples]


def test_the_pairs_card_headline_is_the_agreement_before_adjudication(db, lead, make_user, tmp_path):
    pid = disputed_pairs(db, lead, make_user)
    rec = exports.export_dataset(db, lead, pid, tmp_path / "out", seed=3)
    card = json.loads((tmp_path / "out" / "export.json").read_text(encoding="utf-8"))["agreement"]
    head = card["tvcp"]
    settled = head["settled"]
    assert head["n_samples"] == N_PAIRS and settled["n_samples"] == rec.n_samples == N_PAIRS - len(DISPUTED)
    assert head["excluded"] == {"flagged, awaiting a lead": len(DISPUTED)} and head["discarded"] == 0

    # the Agreement page for the same scope: the project's pairs (the tvcp config holds both benchmarks)
    page = agreement.project_agreement(db, lead, pid)
    assert page.report.n_samples == N_PAIRS
    for name in CURVES:
        for prefix, report in (("", page.report), ("given_", page.pairs.given)):
            value = report.headline[name]
            assert math.isfinite(value) and head[prefix + name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
            assert head["intervals"][prefix + name] == pytest.approx(list(report.interval(name)), rel=1e-9), name
    kappa = change_result(page.report).figures.kappa
    assert head["change_kappa"] == pytest.approx(kappa, rel=1e-12)
    assert head["change_kappa"] == pytest.approx(cohen_kappa_score(labels(page, 0), labels(page, 1)))
    low, high = head["intervals"]["change_kappa"]
    assert low <= head["change_kappa"] <= high < 1
    assert head["n"]["change_kappa"] == head["n"]["icc_xi"] == head["n"]["given_w1"] == N_PAIRS
    # the disputes pull the change label's agreement down: the settled gold's reads better
    assert settled["change_kappa"] == pytest.approx(1.0) and head["change_kappa"] < 0.9
    assert settled["n"]["given_icc_xi"] == N_PAIRS - len(DISPUTED)
    assert settled["intervals"]["change_kappa"] == pytest.approx([1.0, 1.0])

    outcome = card["adjudication"]
    assert outcome["n_samples"] == N_PAIRS and outcome["flagged"] >= len(DISPUTED)
    assert outcome["awaiting_lead"] == len(DISPUTED)
    assert outcome["gold_by_source"] == {"automatic": N_PAIRS - len(DISPUTED)}

    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert f"### `tvcp` — before adjudication: {N_PAIRS} samples with two or more annotations" in readme
    assert (f"Settled gold: the same figures over the {N_PAIRS - len(DISPUTED)} of these samples whose gold "
            f"this export writes ({len(DISPUTED)} left out: {len(DISPUTED)} flagged, awaiting a lead).") in readme
    assert f"- Cohen's κ of the change label {head['change_kappa']:.3f} [" in readme
    assert f"- ICC(1,1) of location ξ given the follow-up {head['given_icc_xi']:.3f} [" in readme
    assert "### Adjudication" in readme and "Cohen's κ compares the change labels" in readme

    document = json.loads((tmp_path / "out" / "agreement.json").read_text(encoding="utf-8"))
    assert document["figures"] == card and document["export_id"] == rec.id and document["log_base"] == 1.1
    assert document["rules"]["change_kappa"]["min_n"] == 10 and document["rules"]["given_icc_xi"]["min_n"] == 30
    assert set(document["rules"]) == {*CURVES, *(f"given_{n}" for n in CURVES), "change_kappa"}


def test_the_tvcp_files_are_the_same_with_or_without_the_agreement(db, lead, make_user, tmp_path):
    pid = disputed_pairs(db, lead, make_user)
    exports.export_dataset(db, lead, pid, tmp_path / "with", seed=3)
    exports.export_dataset(db, lead, pid, tmp_path / "without", seed=3, include_agreement=False)
    for folder in ("tvcp", "annotations"):
        for path in sorted((tmp_path / "without" / folder).iterdir()):
            assert (tmp_path / "with" / folder / path.name).read_bytes() == path.read_bytes(), path.name
    assert not (tmp_path / "without" / "agreement.json").exists()
    assert json.loads((tmp_path / "without" / "export.json").read_text(encoding="utf-8"))["agreement"] is None
    assert "No agreement figures were given with this export." in (tmp_path / "without" / "README.md").read_text()
